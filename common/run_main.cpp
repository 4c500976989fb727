// twinbench: Google Benchmark with our own main(), so that
//  - our flags choose workloads, sizes and block sizes before anything is registered;
//  - the run context records the machine (GPU, copy bandwidth, CPU, threads, git revision);
//  - the exit code says whether a validation failed (BENCHMARK_MAIN always returns 0).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <execinfo.h>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "common/run_main.hpp"
#include "common/progress_eta.hpp"
#include "common/console_reporter.hpp"
#include "common/each_device.hpp"
#include "common/device_select.hpp"
#include "common/mpi_run.hpp"
#include "common/cpu_isa.hpp"
#include "common/cpu_pinning.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/project_info.hpp"
#include "common/progress.hpp"
#include "common/ceiling_rows.hpp"
#include "common/l2_flush.hpp"
#include "common/row_fields.hpp"
#include "common/run_context.hpp"
#include "common/sampler.hpp"
#include "common/workload.hpp"

namespace {

// The row's axes as typed fields (integers as numbers), so that nothing reads them back out of
// the name: {"n": 1048576, "block": 256, "dtype": "float32", "threads": 16}.
void add_axes(nlohmann::json& row, const tb::BenchSpec& spec) {
  if (spec.workload.empty()) return;
  nlohmann::json axes = nlohmann::json::object();
  for (const tb::Axis& a : spec.axes) {
    char* end = nullptr;
    const long long v = std::strtoll(a.value.c_str(), &end, 10);
    if (!a.value.empty() && end && *end == '\0')
      axes[a.key] = v;
    else
      axes[a.key] = a.value;
  }
  if (spec.threads) axes["threads"] = *spec.threads;
  row["axes"] = std::move(axes);
}

// Google Benchmark 1.7 (Debian's) has no SkipWithMessage (1.8 added it), so a skip (no GPU, too
// little memory, a capability missing) reaches it as SkipWithError and its row reads
// error_occurred true. The row says it is a skip with "skipped": true (the reason stays in
// error_message); error_occurred keeps 1.7's meaning, "no time", which every reader of the file
// (the reports, the peers' plan, compare and gate) takes it to mean.
void mark_skip(nlohmann::json& row, const std::string& name) {
  if (row.value("error_occurred", false) && tb::was_skipped(name)) row["skipped"] = true;
}

}  // namespace

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitValidationFailed = 1;
constexpr int kExitResultsNotWritten = 3;
// A GPU is present but this build has no code for it: the CPU rows ran, every GPU row skipped
// with the rebuild command (common/build_fit.hpp). Not 0, so that a script notices.
constexpr int kExitNoGpuCode = 4;

struct Options {
  tb::RunConfig cfg;
  std::vector<std::string> workloads;
  bool list_workloads = false;
  bool help = false;
  std::string machine;
  std::optional<double> progress_demo_s;  // --progress-demo[=SECONDS]
  // The stopping rule's settings given on the command line (common/sampler.hpp).
  std::optional<double> stop_spread_pct, min_time_s, max_time_s;
  std::optional<int> min_samples;
  bool telemetry = true;  // --no-telemetry turns it off
  bool warm = false;      // --warm
  bool ceilings = true;   // --no-ceilings turns them off
  std::optional<int> device;  // --devices=N: the one GPU this run measures
  std::optional<tb::DeviceChoice> several;  // --devices=0,2|all: a run per device (each_device.hpp)
  std::optional<tb::cpu_isa::Level> cpu_isa;  // --cpu-isa: the highest level the CPU kernels run
  tb::ConsoleStyle console = tb::ConsoleStyle::compact;  // --console
};

struct UsageError {
  std::string message;
};

// The text for the suite's binary; print_usage() says it of whichever program runs.
constexpr const char* kUsage =
      "usage: twinbench [twinbench options] [Google Benchmark options]\n"
      "\n"
      "twinbench options:\n"
      "  --workload=NAME[,NAME...]  run only these workloads (see --list-workloads)\n"
      "  --list-workloads           print the known workloads and exit\n"
      "  --quick                    small sizes and short runs (smoke test)\n"
      "  --full                     also the rows left out of the default run for time (1 GiB\n"
      "                             transfers and streams, GPU Lucas recursion at n = 40, ...)\n"
      "  --axis=NAME:V[,V...]       the values of an axis, e.g. --axis=block:64,256 or\n"
      "                             --axis=filter:3 (conv2d); the shared axes have shorthands:\n"
      "  --size=N                   --axis=n:N, problem size of 1D workloads (elements, N > 0)\n"
      "  --image=WxH                --axis=image:WxH, image size of 2D workloads (W, H > 0)\n"
      "  --block=B[,B...]           --axis=block:B,..., threads per block for 1D GPU kernels\n"
      "                             (1..1024)\n"
      "  --block2d=XxY[,XxY...]     --axis=block:XxY,..., block shapes for 2D GPU kernels\n"
      "  --sweep=pow2|all           1D block sweep: powers of two 64..1024 (default) or every\n"
      "                             multiple of 32 from 32 to 1024\n"
      "  --devices=N|N,M,...|all    measure GPU N (default 0; the run sees only it); a list or\n"
      "                             all: one run per device, one after another, each writing\n"
      "                             its own results file (--benchmark_out=run.json ->\n"
      "                             run-gpu0.json, ...); the collectives, peer_copy and scaling\n"
      "                             workloads use every GPU the process sees\n"
      "                             (CUDA_VISIBLE_DEVICES); under mpirun each rank takes its\n"
      "                             local rank's GPU\n"
      "  --machine=NAME             machine label recorded in the context\n"
      "  --warm                     time GPU kernel rows with warm caches (default: cold, the L2\n"
      "                             flushed before every sample)\n"
      "  --no-telemetry             do not record GPU clocks, power, temperature, throttling and\n"
      "                             energy (NVML) over each GPU row's samples, nor the host's load,\n"
      "                             CPU clock and energy (RAPL) around each CPU row (default: on)\n"
      "  --no-ceilings              do not measure the bandwidth ceilings and compute roofs at\n"
      "                             start (rows then have no % of ceiling): for runs under a\n"
      "                             checker or profiler\n"
      "  --cpu-isa=LEVEL            run the CPU kernels at no higher an ISA level than LEVEL:\n"
      "                             baseline (x86-64), avx2 (x86-64-v3) or avx512 (x86-64-v4);\n"
      "                             on aarch64 baseline or neon (the same level there);\n"
      "                             default: the best this CPU has (the libraries' rows follow)\n"
      "  --console=compact|full     the console table: compact (default), a line of at most 120\n"
      "                             columns per row (time, rate, % of ceiling, a note), or full,\n"
      "                             Google Benchmark's line with every counter (the JSON results\n"
      "                             hold every counter either way)\n"
      "  --progress-demo[=SECONDS]  run one GPU kernel of about SECONDS (sgemm, default 5 s) with\n"
      "                             a live progress bar read from the GPU as it runs, then exit\n"
      "                             (status 2 without a GPU)\n"
      "\n"
      "Stopping rule (each benchmark takes samples until their spread settles):\n"
      "  --stop-spread=PCT          target relative standard deviation (default 1, quick 5)\n"
      "  --min-samples=N            samples at least (default 5)\n"
      "  --min-time=SECONDS         measured time at least (default 0.05, quick 0.002)\n"
      "  --max-time=SECONDS         wall time per benchmark at most, once N samples are in\n"
      "                             (default 0.3, quick 0.05)\n"
      "  --benchmark_min_time=...   Google Benchmark's own loop instead (one sample an iteration)\n"
      "\n"
      "Google Benchmark options (e.g. --benchmark_filter=REGEX, --benchmark_out=FILE,\n"
      "--benchmark_out_format=json, --benchmark_repetitions=N) are passed through.\n"
      "Exit status: 0 ok, 1 a validation failed, 2 bad input, 3 the results could not be written,\n"
      "4 a GPU is present but this build has no code for it (the CPU rows ran; rebuild for it).";

void replace_once(std::string& s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
}

// Each workload's axes as its rows name them (its function run once with the defaults; the
// program exits after the help, so the rows registered here never run).
std::string workload_axes() {
  std::string out = "\nWorkloads and their axes (--list-workloads says what each measures):\n";
  for (const auto& w : tb::workloads()) {
    const std::size_t before = tb::registered_names().size();
    try {
      w.register_benchmarks(tb::RunConfig{});
    } catch (const std::exception&) {
    }
    std::vector<std::string> axes;
    const auto& names = tb::registered_names();
    for (std::size_t i = before; i < names.size(); ++i)
      for (const tb::Axis& a : tb::registered_spec(names[i]).axes)
        if (std::find(axes.begin(), axes.end(), a.key) == axes.end()) axes.push_back(a.key);
    std::string list;
    for (const auto& a : axes) list += (list.empty() ? "" : ", ") + a;
    char line[256];
    std::snprintf(line, sizeof line, "  %-16s %s\n", w.name.c_str(), list.empty() ? "(none)" : list.c_str());
    out += line;
  }
  return out;
}

// The help names the program that runs it. A project's own program (twinbench_add_benchmark)
// is told about its own workloads: nothing of the suite's (its --full rows, conv2d's filter,
// the progress demonstration, which runs the suite's sgemm).
void print_usage(const std::string& program) {
  std::string text = kUsage;
  replace_once(text, "usage: twinbench", "usage: " + program);
  if (!tb::project_info().name.empty() && tb::project_info().name != "twinbench") {
    replace_once(text,
                 "also the rows left out of the default run for time (1 GiB\n"
                 "                             transfers and streams, GPU Lucas recursion at n = 40, ...)",
                 "also the rows the workloads leave out of the default run\n"
                 "                             for time");
    replace_once(text, "--axis=filter:3 (conv2d)", "--axis=NAME:V (a workload's own axis)");
    replace_once(text,
                 "  --progress-demo[=SECONDS]  run one GPU kernel of about SECONDS (sgemm, default 5 s) with\n"
                 "                             a live progress bar read from the GPU as it runs, then exit\n"
                 "                             (status 2 without a GPU)\n",
                 "");
  }
  std::fputs(text.c_str(), stdout);
  std::fputs("\n", stdout);
  std::fputs(workload_axes().c_str(), stdout);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

long long parse_positive(std::string_view text, std::string_view what) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw UsageError{std::string(what) + ": '" + std::string(text) + "' is not a number"};
  if (v <= 0) throw UsageError{std::string(what) + " must be greater than 0 (got " + std::string(text) + ")"};
  return v;
}

// Two positive ints: larger values would wrap when narrowed (3000000000 became -1294967296).
std::pair<int, int> parse_pair(std::string_view text, std::string_view what) {
  const auto parts = split(text, 'x');
  if (parts.size() != 2) throw UsageError{std::string(what) + ": expected AxB, got '" + std::string(text) + "'"};
  const long long a = parse_positive(parts[0], what), b = parse_positive(parts[1], what);
  constexpr long long kMax = std::numeric_limits<int>::max();
  if (a > kMax || b > kMax)
    throw UsageError{std::string(what) + ": " + std::string(text) + " is out of range (each at most " +
                     std::to_string(kMax) + ")"};
  return {static_cast<int>(a), static_cast<int>(b)};
}

int parse_block(std::string_view text, const std::string& what) {
  const long long b = parse_positive(text, what);
  // 1024 threads per block is the CUDA limit on every architecture; anything above is a typo.
  if (b > 1024) throw UsageError{what + ": " + std::string(text) + " threads per block is above the CUDA limit of 1024"};
  return static_cast<int>(b);
}

// A positive number (seconds, a percentage) no larger than `limit`.
// The label names the results folder in scripts/run.sh: a path component, never a path.
std::string parse_machine(std::string_view text) {
  static const std::regex ok("[A-Za-z0-9][A-Za-z0-9_.-]*");
  const std::string s(text);
  if (!std::regex_match(s, ok) || s.size() > 64)
    throw UsageError{"--machine: use letters, digits, '.', '_' and '-', starting with a letter or "
                     "digit, at most 64 characters (got '" + s + "')"};
  return s;
}

double parse_bounded(std::string_view text, std::string_view what, double limit) {
  const std::string t(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(v > 0) || v > limit)
    throw UsageError{std::string(what) + ": expected a number in (0, " + std::to_string(static_cast<int>(limit)) +
                     "], got '" + t + "'"};
  return v;
}

std::optional<std::string_view> flag_value(std::string_view arg, std::string_view flag) {
  if (arg.substr(0, flag.size()) == flag && arg.size() > flag.size() && arg[flag.size()] == '=')
    return arg.substr(flag.size() + 1);
  return std::nullopt;
}

// One block value: XxY is a 2D shape (at most 1024 threads), a plain number a 1D block size
// (--block takes only the one, --block2d only the other).
void add_block(tb::RunConfig& cfg, const std::string& text, const std::string& what) {
  const bool two_d = what == "--block2d" || (what != "--block" && text.find('x') != std::string::npos);
  if (!two_d) {
    cfg.blocks.push_back(parse_block(text, what));
    return;
  }
  const auto [x, y] = parse_pair(text, what);
  if (static_cast<long long>(x) * y > 1024) throw UsageError{what + ": " + text + " is " + std::to_string(static_cast<long long>(x) * y) + " threads, above the CUDA limit of 1024"};
  cfg.blocks2d.push_back({x, y});
}

// --axis=NAME:VALUES and its shorthands (common/workload.hpp): n and image take one value (the
// workloads size their data from it), block any number; any other axis is a workload's own,
// checked where the workload declares it.
void set_axis(tb::RunConfig& cfg, const std::string& name, std::string_view values, const std::string& what) {
  const std::vector<std::string> list = split(values, ',');
  if (name == "n" || name == "image") {
    if (list.size() != 1) throw UsageError{what + ": takes one value, got '" + std::string(values) + "'"};
    if (name == "n") {
      cfg.size = static_cast<std::size_t>(parse_positive(list[0], what));
    } else {
      const auto [w, h] = parse_pair(list[0], what);
      cfg.image = tb::Dims2{w, h};
    }
  } else if (name == "block") {
    for (const std::string& b : list) add_block(cfg, b, what);
  } else {
    for (const std::string& v : list)
      if (v.empty()) throw UsageError{what + ": an empty value in '" + std::string(values) + "'"};
    auto& axis = cfg.axes[name];
    axis.insert(axis.end(), list.begin(), list.end());
  }
}

// An MPI rank other than 0: only the rows every rank takes together run here, silently (rank 0
// prints and writes the results file), without ceilings or telemetry of its own (measured at
// the same time as rank 0's, they would slow them down).
void follow_rank_zero(Options& opts) {
  tb::set_rank_skip_reason("rank " + std::to_string(tb::mpi::rank()) + " of " +
                           std::to_string(tb::mpi::size()) +
                           " runs only the rows all ranks take together; rank 0 runs this one");
  opts.ceilings = false;
  opts.telemetry = false;
  (void)!std::freopen("/dev/null", "w", stdout);
  (void)!std::freopen("/dev/null", "w", stderr);
}

void drop_results_file(std::vector<char*>& args) {
  std::erase_if(args, [](const char* a) {
    return std::string_view(a).starts_with("--benchmark_out");
  });
}

// --devices=N: CUDA shows this process only device N of those it would show (the context's
// cuda_visible_devices and gpu_pci_bus_id say which it was).
void select_device(int ordinal) {
  const char* now = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string value = tb::visible_devices_for(
      ordinal, now ? std::optional<std::string>(now) : std::nullopt);
  setenv("CUDA_VISIBLE_DEVICES", value.c_str(), 1);
}

// Under mpirun without --devices: each rank measures the GPU of its local rank, one rank per GPU.
// A rank beyond the node's GPUs sees none (its GPU rows skip with the reason, and the rows all
// ranks take on GPUs skip on every rank).
void select_rank_device() {
  try {
    select_device(tb::mpi::local_rank());
  } catch (const std::invalid_argument&) {
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
  }
}

// Takes our flags out of argv (Google Benchmark rejects flags it does not know).
Options parse_our_flags(int& argc, char** argv) {
  Options o;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    bool ours = true;
    if (auto v = flag_value(arg, "--workload"); v) {
      for (auto& w : split(*v, ',')) if (!w.empty()) o.workloads.push_back(w);
    } else if (auto v2 = flag_value(arg, "--workloads"); v2) {
      for (auto& w : split(*v2, ',')) if (!w.empty()) o.workloads.push_back(w);
    } else if (arg == "--list-workloads") {
      o.list_workloads = true;
    } else if (arg == "--quick") {
      o.cfg.quick = true;
    } else if (arg == "--full") {
      o.cfg.full = true;
    } else if (arg == "--telemetry") {  // the default since telemetry became cheap enough
      o.telemetry = true;
    } else if (arg == "--no-telemetry") {
      o.telemetry = false;
    } else if (arg == "--warm") {
      o.warm = true;
    } else if (arg == "--no-ceilings") {
      o.ceilings = false;
    } else if (auto vc = flag_value(arg, "--console"); vc) {
      const auto style = tb::console_style_from(*vc);
      if (!style) throw UsageError{"--console: use compact or full (got '" + std::string(*vc) + "')"};
      o.console = *style;
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (auto v3 = flag_value(arg, "--size"); v3) {
      set_axis(o.cfg, "n", *v3, "--size");
    } else if (auto v4 = flag_value(arg, "--image"); v4) {
      set_axis(o.cfg, "image", *v4, "--image");
    } else if (auto v5 = flag_value(arg, "--block"); v5) {
      set_axis(o.cfg, "block", *v5, "--block");
    } else if (auto v6 = flag_value(arg, "--block2d"); v6) {
      set_axis(o.cfg, "block", *v6, "--block2d");
    } else if (auto va = flag_value(arg, "--axis"); va) {
      const std::size_t colon = va->find(':');
      if (colon == 0 || colon == std::string_view::npos || colon + 1 == va->size())
        throw UsageError{"--axis: expected NAME:VALUE[,VALUE...], got '" + std::string(*va) + "'"};
      set_axis(o.cfg, std::string(va->substr(0, colon)), va->substr(colon + 1), "--axis=" + std::string(va->substr(0, colon)));
    } else if (auto v7 = flag_value(arg, "--sweep"); v7) {
      if (*v7 == "all") o.cfg.all_blocks = true;
      else if (*v7 != "pow2") throw UsageError{"--sweep: expected pow2 or all, got '" + std::string(*v7) + "'"};
    } else if (auto vd = flag_value(arg, "--devices"); vd) {
      try {
        const tb::DeviceChoice c = tb::parse_devices(*vd);
        if (c.single()) o.device = c.ordinals[0];
        else o.several = c;
      } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
      }
    } else if (auto v8 = flag_value(arg, "--machine"); v8) {
      o.machine = parse_machine(*v8);
    } else if (auto v14 = flag_value(arg, "--cpu-isa"); v14) {
      o.cpu_isa = tb::cpu_isa::parse(*v14);
      if (!o.cpu_isa)
        throw UsageError{"--cpu-isa: expected baseline, avx2 or avx512 (neon on aarch64), got '" +
                         std::string(*v14) + "'"};
    } else if (arg == "--progress-demo") {
      o.progress_demo_s = 5.0;
    } else if (auto v9 = flag_value(arg, "--progress-demo"); v9) {
      o.progress_demo_s = parse_bounded(*v9, "--progress-demo", 86400.0);
    } else if (auto v10 = flag_value(arg, "--stop-spread"); v10) {
      o.stop_spread_pct = parse_bounded(*v10, "--stop-spread", 100.0);
    } else if (auto v11 = flag_value(arg, "--min-samples"); v11) {
      const long long n = parse_positive(*v11, "--min-samples");
      if (n > 1000000) throw UsageError{"--min-samples: at most 1000000 (got " + std::string(*v11) + ")"};
      o.min_samples = static_cast<int>(n);
    } else if (auto v12 = flag_value(arg, "--min-time"); v12) {
      o.min_time_s = parse_bounded(*v12, "--min-time", 3600.0);
    } else if (auto v13 = flag_value(arg, "--max-time"); v13) {
      o.max_time_s = parse_bounded(*v13, "--max-time", 3600.0);
    } else {
      ours = false;
    }
    if (!ours) argv[kept++] = argv[i];
  }
  argc = kept;
  return o;
}

void print_workloads(std::FILE* out) {
  std::fprintf(out, "known workloads:\n");
  for (const auto& w : tb::workloads()) std::fprintf(out, "  %-16s %s\n", w.name.c_str(), w.summary.c_str());
}

// The registered benchmarks the filter selects and that will run, for the "k of N" progress
// lines and their estimate of the time left: GPU benchmarks skip at once where there is no GPU,
// so they are left out. Google Benchmark matches the filter as a POSIX extended regex (its
// re.h: std::regex::extended) against the name; a leading '-' negates it.
bool filter_selects_all(const std::string& filter) {
  return filter.empty() || filter == "all" || filter == ".";
}

// Why the filter is not a valid regex, or "" when it is (or selects all).
std::string filter_regex_error(const std::string& filter) {
  if (filter_selects_all(filter)) return "";
  try {
    std::regex(filter[0] == '-' ? filter.substr(1) : filter, std::regex::extended);
  } catch (const std::regex_error& e) {
    return e.what();
  }
  return "";
}

// By the description's side: alloc and sync register their CUDA rows as host-timed rows, which
// skip in their body where there is no GPU ([1/153] ... [1/114] before the first CPU row).
bool gpu_row(const std::string& name) {
  return tb::is_gpu_benchmark(name) || tb::registered_spec(name).side == tb::Side::gpu;
}

std::vector<std::string> selected_names(const std::string& filter, bool count_gpu) {
  std::vector<std::string> names;
  if (!filter_regex_error(filter).empty()) return names;
  const bool all = filter_selects_all(filter);
  const bool negate = !all && filter[0] == '-';
  std::optional<std::regex> re;
  if (!all) re.emplace(negate ? filter.substr(1) : filter, std::regex::extended);
  for (const auto& name : tb::registered_names()) {
    if (re && std::regex_search(name, *re) == negate) continue;
    if (!count_gpu && gpu_row(name)) continue;
    names.push_back(name);
  }
  return names;
}

int count_selected(const std::string& filter, bool count_gpu) {
  return static_cast<int>(selected_names(filter, count_gpu).size());
}

int count_matching(const std::string& filter) {
  return count_selected(filter, true);
}

tb::StoppingRule rule_from(const Options& o) {
  tb::StoppingRule r = o.cfg.quick ? tb::quick_rule() : tb::default_rule();
  if (o.stop_spread_pct) r.max_rel_stdev = *o.stop_spread_pct / 100.0;
  if (o.min_samples) r.min_samples = *o.min_samples;
  if (o.min_time_s) r.min_time_s = *o.min_time_s;
  if (o.max_time_s) r.max_time_s = *o.max_time_s;
  return r;
}

void record_stopping_rule(const tb::StoppingRule& r) {
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  benchmark::AddCustomContext("stop_rule",
                              tb::classic_loop() ? "google-benchmark" : "stdrel");
  benchmark::AddCustomContext("stop_max_rel_spread_pct", num(100.0 * r.max_rel_stdev));
  benchmark::AddCustomContext("stop_min_samples", std::to_string(r.min_samples));
  benchmark::AddCustomContext("stop_min_time_s", num(r.min_time_s));
  benchmark::AddCustomContext("stop_max_time_s", num(r.max_time_s));
}

std::string flag_argument(const std::vector<char*>& args, std::string_view flag) {
  std::string value;
  for (const char* a : args)
    if (a)
      if (auto v = flag_value(a, flag); v) value = std::string(*v);
  return value;
}

bool has_flag(const std::vector<char*>& args, std::string_view flag) {
  return std::any_of(args.begin(), args.end(), [flag](const char* a) {
    return a && std::string_view(a).rfind(flag, 0) == 0;
  });
}

// "" when `path` can be opened for writing (it is created if missing, as Google Benchmark would),
// else the reason.
std::string results_file_unwritable(const std::string& path) {
  const bool existed = std::ifstream(path).good();
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return std::strerror(errno);
  std::fclose(f);
  if (!existed) std::remove(path.c_str());
  return "";
}

// Google Benchmark's flags that it accepts and then misreads: a negative repetition count
// aborts it (std::length_error, exit 134), 0 runs nothing and exits 0, and an unknown output
// format prints its usage and exits 0. Checked here: a one-line error and exit 2.
std::string check_benchmark_flags(const std::vector<char*>& args) {
  if (has_flag(args, "--benchmark_repetitions")) {
    const std::string v = flag_argument(args, "--benchmark_repetitions");
    int reps = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), reps);
    if (ec != std::errc() || end != v.data() + v.size() || reps < 1 || reps > 10000)
      return "--benchmark_repetitions: give a whole number from 1 to 10000 (got '" + v + "')";
  }
  for (const char* flag : {"--benchmark_format", "--benchmark_out_format"}) {
    if (!has_flag(args, flag)) continue;
    const std::string v = flag_argument(args, flag);
    if (v != "console" && v != "json" && v != "csv")
      return std::string(flag) + ": use console, json or csv (got '" + v + "')";
  }
  return "";
}

// SIGINT/SIGTERM end the run early but cleanly (common/sampler.hpp: request_stop); a second
// signal ends it at once, the default way.
extern "C" void on_stop_signal(int sig) {
  if (tb::stop_requested()) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  tb::request_stop(sig);
}

// A crash says where: the row running and the call stack (addresses within the binary, for
// addr2line against the unstripped build), then dies the default way, with the signal's status.
extern "C" void on_crash_signal(int sig) {
  static const char head[] = "twinbench: crashed (signal ";
  char line[64];
  const int len = std::snprintf(line, sizeof line, "%s%d); call stack:\n", head, sig);
  if (len > 0) (void)!write(2, line, static_cast<std::size_t>(len));
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);  // also where a script's background job ignored SIGINT
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction crash {};
  crash.sa_handler = on_crash_signal;
  sigemptyset(&crash.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &crash, nullptr);
}

// Samples to 5 significant digits: finer than any timer's repeatability, and half the bytes.
std::vector<double> rounded(const std::vector<double>& samples) {
  std::vector<double> out;
  out.reserve(samples.size());
  char buf[32];
  for (double v : samples) {
    std::snprintf(buf, sizeof buf, "%.5g", v);
    out.push_back(std::strtod(buf, nullptr));
  }
  return out;
}

// Completes the results file once every benchmark has run: the run's wall time and counts in
// the context (their presence is what says the run is complete: a file without them was cut
// short), and each row's samples beside it. Written to a temporary file and renamed, so the
// file is never half-written.
bool finalize_results(const std::string& path, double wall_s, int planned, int without_gpu) {
  nlohmann::json doc;
  try {
    std::ifstream in(path);
    doc = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "twinbench: could not read back %s to complete it: %s\n", path.c_str(), e.what());
    return false;
  }
  auto& ctx = doc["context"];
  const int sig = tb::stop_requested();
  ctx["run_complete"] = sig == 0;
  if (sig) ctx["interrupted_by"] = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : std::to_string(sig);
  ctx["run_wall_s"] = wall_s;
  ctx["benchmarks_planned"] = planned;
  ctx["benchmarks_measured"] = tb::measured_count();
  ctx["benchmarks_skipped"] = tb::skipped_count() + without_gpu;
  const auto& kept = tb::kept_samples();
  for (auto& b : doc["benchmarks"]) {
    if (!b.contains("sample_set")) continue;
    const auto i = static_cast<std::size_t>(b["sample_set"].get<double>());
    // Google Benchmark's name is ours plus suffixes such as "/manual_time".
    if (i < kept.size() && b.value("name", "").rfind(kept[i].first, 0) == 0)
      b["samples_s"] = rounded(kept[i].second);
  }
  // Text fields (the description's, cpu_isa, ...) by registered name; Google Benchmark's name
  // may carry suffixes.
  const auto& fields = tb::row_fields();
  for (auto& b : doc["benchmarks"]) {
    const std::string name = tb::registered_name_of(b.value("run_name", b.value("name", "")));
    add_axes(b, tb::registered_spec(name));
    mark_skip(b, name);
    const auto it = fields.find(name);
    if (it == fields.end()) continue;
    for (const auto& [key, value] : it->second) b[key] = value;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    // Compact: a row may keep a few thousand samples.
    out << doc.dump() << "\n";
    if (!out) {
      std::fprintf(stderr, "twinbench: could not write %s\n", tmp.c_str());
      return false;
    }
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

namespace {

// The options that end the program before anything is registered (help, a run per device,
// the workload list, the progress demo, bad input), or nothing to go on. MPI is initialized here
// (finalized by run_main's guard); a rank other than 0 follows rank 0's options.
std::optional<int> exit_before_registering(Options& opts, int* argc, char*** argv,
                                           const std::vector<std::string>& given) {
  if (opts.help) {
    print_usage(given.empty() ? "twinbench" : std::filesystem::path(given[0]).filename().string());
    return 0;
  }
  if (opts.several) return tb::run_each_device(*opts.several, given);
  if (const std::string alone = tb::mpi::init(argc, argv); !alone.empty()) {
    if (tb::mpi::launcher_rank() > 0) return 0;  // rank 0 runs alone and says why
    std::fprintf(stderr, "twinbench: %s\n", alone.c_str());
  }
  if (tb::mpi::rank() > 0) follow_rank_zero(opts);
  if (opts.list_workloads) {
    print_workloads(stdout);
    return 0;
  }
  if (!opts.device && tb::mpi::size() > 1) select_rank_device();
  if (opts.device) {  // before the first CUDA call, which reads the variable
    try {
      select_device(*opts.device);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "twinbench: %s\n", e.what());
      return kExitBadInput;
    }
  }
  // A device other than the first that is not there is bad input, not a run of skips (device 0
  // is the default, and a machine without a GPU runs its CPU rows).
  if (opts.device && *opts.device > 0 && !tb::gpu_info().available &&
      tb::gpu_info().name.empty()) {
    std::fprintf(stderr, "twinbench: --devices=%d: no such GPU here (%s)\n", *opts.device,
                 tb::gpu_info().status.c_str());
    return kExitBadInput;
  }
  if (opts.progress_demo_s) return tb::progress::run_demo(*opts.progress_demo_s);
  if (opts.cpu_isa) tb::cpu_isa::set_limit(*opts.cpu_isa);
  for (const auto& w : opts.workloads) {
    if (!tb::find_workload(w)) {
      std::fprintf(stderr, "twinbench: unknown workload '%s'\n", w.c_str());
      print_workloads(stderr);
      return kExitBadInput;
    }
  }
  return std::nullopt;
}

// Registers the rows of the selected workloads (all where none is named). Bad input (a value of
// a workload's own axis, an --axis no selected workload declares) is exit 2.
std::optional<int> register_selected(const Options& opts) {
  try {
    for (const auto& w : tb::workloads()) {
      const bool selected = opts.workloads.empty() ||
                            std::find(opts.workloads.begin(), opts.workloads.end(), w.name) != opts.workloads.end();
      if (selected) w.register_benchmarks(opts.cfg);
    }
  } catch (const std::invalid_argument& e) {  // a value of a workload's own axis (int_axis)
    std::fprintf(stderr, "twinbench: %s\n", e.what());
    return kExitBadInput;
  }
  if (const std::string unknown = tb::undeclared_axes(opts.cfg); !unknown.empty()) {
    std::fprintf(stderr, "twinbench: --axis: no selected workload has an axis named %s\n",
                 unknown.c_str());
    return kExitBadInput;
  }
  return std::nullopt;
}

// Google Benchmark's side of the command line, once the rows are registered.
struct BenchmarkRun {
  std::vector<char*> args;
  std::string out_path;        // --benchmark_out
  std::string display_format;  // --benchmark_format
  bool listing = false;        // --benchmark_list_tests
  std::string filter;
  int planned = 0;             // rows that will run (GPU rows left out without a GPU)
  tb::CeilingNeeds needs;      // the ceiling sets those rows are held to
};

// The ceiling sets the planned rows are held to (common/ceiling_rows.hpp).
tb::CeilingNeeds ceiling_needs(const std::vector<std::string>& plan) {
  tb::CeilingNeeds needs{.gpu = false, .cpu_all = false, .cpu_one = false};
  for (const std::string& name : plan) {
    const tb::BenchSpec& spec = tb::registered_spec(name);
    if (spec.side == tb::Side::gpu) needs.gpu = true;
    if (const auto set = tb::ceiling_set_for(spec)) {
      needs.cpu_all |= *set == tb::CeilingSet::cpu_all;
      needs.cpu_one |= *set == tb::CeilingSet::cpu_one;
    }
  }
  return needs;
}

// Hands the remaining flags to Google Benchmark and checks them and the filter.
std::optional<int> initialize_benchmark(BenchmarkRun& run) {
  // One Google Benchmark iteration per benchmark, holding all its samples: any minimum time
  // below one sample's does that (a 1.7 flag in seconds; later versions read it the same).
  static char one_iteration[] = "--benchmark_min_time=0.000000001";
  if (!tb::classic_loop()) run.args.push_back(one_iteration);
  // Read before Initialize, which takes the flags it knows out of argv.
  run.out_path = flag_argument(run.args, "--benchmark_out");
  run.display_format = flag_argument(run.args, "--benchmark_format");
  // Google Benchmark finds an unwritable results file only when it opens it, and exits 1 (our
  // code for a failed validation): check first, and say which path and why.
  if (!run.out_path.empty()) {
    if (const std::string why = results_file_unwritable(run.out_path); !why.empty()) {
      std::fprintf(stderr, "twinbench: cannot write the results file %s: %s\n",
                   run.out_path.c_str(), why.c_str());
      return kExitResultsNotWritten;
    }
  }
  const std::string list_value = flag_argument(run.args, "--benchmark_list_tests");
  run.listing = has_flag(run.args, "--benchmark_list_tests") && list_value != "false" &&
                list_value != "0";
  int bench_argc = static_cast<int>(run.args.size());
  run.args.push_back(nullptr);
  benchmark::Initialize(&bench_argc, run.args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, run.args.data())) return kExitBadInput;

  run.filter = benchmark::GetBenchmarkFilter();
  if (const std::string why = filter_regex_error(run.filter); !why.empty()) {
    std::fprintf(stderr, "twinbench: --benchmark_filter '%s' is not a valid regex (POSIX extended, "
                         "as Google Benchmark reads it): %s\n", run.filter.c_str(), why.c_str());
    return kExitBadInput;
  }
  if (count_matching(run.filter) == 0) {
    std::fprintf(stderr, "twinbench: no benchmark matches the filter '%s'\n", run.filter.c_str());
    print_workloads(stderr);
    return kExitBadInput;
  }
  const std::vector<std::string> plan = selected_names(run.filter, tb::gpu_info().available);
  run.planned = static_cast<int>(plan.size());
  run.needs = ceiling_needs(plan);
  tb::set_progress_plan(plan);
  return std::nullopt;
}

// The run's context: the machine, the ceilings measured now (not for a listing), the stopping
// rule and the telemetry.
void record_context(const Options& opts, const BenchmarkRun& run) {
  tb::set_cold_caches(!opts.warm);
  tb::record_run_context(opts.machine, opts.cfg);
  if (!run.listing) {
    if (opts.ceilings)
      tb::measure_and_record_ceilings(opts.cfg, run.needs);
    else
      tb::record_ceilings_off();
  }
  record_stopping_rule(tb::stopping_rule());
  if (opts.telemetry) {
    const tb::TelemetryStatus t = tb::enable_telemetry();
    if (!t.gpu_why.empty()) std::fprintf(stderr, "twinbench: %s\n", t.gpu_why.c_str());
    std::fprintf(stderr, "twinbench: CPU energy: %s\n", t.cpu_energy.c_str());
    benchmark::AddCustomContext("gpu_telemetry", t.gpu_why.empty() ? "nvml" : t.gpu_why);
    benchmark::AddCustomContext("cpu_energy", t.cpu_energy);
    for (const auto& [key, value] : t.gpu_environment) benchmark::AddCustomContext(key, value);
  } else {
    benchmark::AddCustomContext("gpu_telemetry", "off (--no-telemetry)");
    benchmark::AddCustomContext("cpu_energy", "off (--no-telemetry)");
  }
  benchmark::AddCustomContext("benchmarks_planned", std::to_string(run.planned));
}

// Runs the rows and says how the run ended: the exit status (docs/command-line.md).
int run_rows(const Options& opts, const BenchmarkRun& run,
             std::chrono::steady_clock::time_point run_start) {
  // The console table shows skips as skips (common/console_reporter.hpp); other formats are
  // Google Benchmark's own.
  tb::SkipAwareConsoleReporter console(
      isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Color
                            : benchmark::ConsoleReporter::OO_None,
      opts.console);
  // Why the GPU rows skip was printed once at the start (common/run_context.cpp).
  if (!tb::gpu_info().available) console.said_at_start(tb::gpu_info().status);
  const bool own_console = run.display_format.empty() || run.display_format == "console";
  const std::size_t ran = own_console ? benchmark::RunSpecifiedBenchmarks(&console)
                                      : benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (run.listing) return ran > 0 ? 0 : kExitBadInput;
  tb::release_workload_memory();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  const int without_gpu = count_matching(run.filter) - run.planned;  // skipped at once: no GPU
  std::fprintf(stderr, "twinbench: %d benchmarks measured, %d skipped, in %.0f s\n",
               tb::measured_count(), tb::skipped_count() + without_gpu, wall_s);
  if (ran == 0) {
    std::fprintf(stderr, "twinbench: no benchmark ran\n");
    return kExitBadInput;
  }
  if (!run.out_path.empty() && !finalize_results(run.out_path, wall_s, run.planned, without_gpu))
    return kExitResultsNotWritten;
  if (const int sig = tb::stop_requested()) {
    std::fprintf(stderr, "twinbench: interrupted by signal %d: the results file holds the %d "
                         "benchmarks measured before it\n",
                 sig, tb::measured_count());
    return 128 + sig;
  }
  if (tb::validation_failures() > 0) {
    std::fprintf(stderr, "twinbench: %d validation failure(s); see the errors above\n",
                 tb::validation_failures());
    return kExitValidationFailed;
  }
  if (tb::gpu_info().no_code) {  // its reason and the rebuild command were printed at the start
    std::fprintf(stderr, "twinbench: this build has no code for the GPU (see the start of the run)\n");
    return kExitNoGpuCode;
  }
  return 0;
}

}  // namespace

namespace tb {

int run_main(int argc, char** argv) {
  // Threads pinned before the OpenMP runtime reads its settings (common/cpu_pinning.hpp): may
  // start this program again with OMP_PROC_BIND and OMP_PLACES set.
  pin_openmp_threads_or_reexec(argv);
  const std::vector<std::string> given(argv, argv + argc);  // before our flags are taken out
  Options opts;
  try {
    opts = parse_our_flags(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "twinbench: %s\n", e.message.c_str());
    return kExitBadInput;
  }
  // Under mpirun: MPI for the whole run, finalized on every way out.
  struct MpiFinalize {
    ~MpiFinalize() { mpi::finalize(); }
  } mpi_finalize;
  if (const auto status = exit_before_registering(opts, &argc, &argv, given)) return *status;

  const auto run_start = std::chrono::steady_clock::now();
  BenchmarkRun run;
  run.args.assign(argv, argv + argc);
  if (mpi::rank() > 0) drop_results_file(run.args);
  if (const std::string bad = check_benchmark_flags(run.args); !bad.empty()) {
    std::fprintf(stderr, "twinbench: %s\n", bad.c_str());
    return kExitBadInput;
  }
  // Google Benchmark's own loop when its minimum time is asked for: decided before registering,
  // since it changes how benchmarks are registered (common/sampler.hpp).
  set_classic_loop(has_flag(run.args, "--benchmark_min_time"));
  set_stopping_rule(rule_from(opts));
  if (const auto status = register_selected(opts)) return *status;
  if (const auto status = initialize_benchmark(run)) return *status;
  // A signal during the start (the ceilings take seconds) ends the run the same clean way as one
  // during the rows: the ceilings stop, every row skips, the results file holds the context.
  install_stop_handlers();
  record_context(opts, run);
  return run_rows(opts, run, run_start);
}

}  // namespace tb
