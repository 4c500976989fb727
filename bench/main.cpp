// twinbench: Google Benchmark with our own main(), so that
//  - our flags choose workloads, sizes and block sizes before anything is registered;
//  - the run context records the machine (GPU, copy bandwidth, CPU, threads, git revision);
//  - the exit code says whether a validation failed (BENCHMARK_MAIN always returns 0).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/progress.hpp"
#include "common/run_context.hpp"
#include "common/workload.hpp"

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitValidationFailed = 1;

struct Options {
  tb::RunConfig cfg;
  std::vector<std::string> workloads;
  bool list_workloads = false;
  bool help = false;
  std::string machine;
  std::optional<double> progress_demo_s;  // --progress-demo[=SECONDS]
};

struct UsageError {
  std::string message;
};

void print_usage() {
  std::puts(
      "usage: twinbench [twinbench options] [Google Benchmark options]\n"
      "\n"
      "twinbench options:\n"
      "  --workload=NAME[,NAME...]  run only these workloads (see --list-workloads)\n"
      "  --list-workloads           print the known workloads and exit\n"
      "  --quick                    small sizes and short runs (smoke test)\n"
      "  --size=N                   problem size of 1D workloads (elements, N > 0)\n"
      "  --image=WxH                image size of 2D workloads (W, H > 0)\n"
      "  --block=B[,B...]           threads per block for 1D GPU kernels (1..1024)\n"
      "  --block2d=XxY[,XxY...]     block shapes for 2D GPU kernels\n"
      "  --sweep=pow2|all           1D block sweep: powers of two 64..1024 (default) or every\n"
      "                             multiple of 32 from 32 to 1024\n"
      "  --machine=NAME             machine label recorded in the context\n"
      "  --progress-demo[=SECONDS]  run a long GPU Poisson job (default 5 s) with a live progress\n"
      "                             bar, then exit\n"
      "\n"
      "Google Benchmark options (e.g. --benchmark_filter=REGEX, --benchmark_out=FILE,\n"
      "--benchmark_out_format=json, --benchmark_repetitions=N) are passed through.\n"
      "Exit status: 0 ok, 1 a validation failed, 2 bad input.");
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

std::pair<int, int> parse_pair(std::string_view text, std::string_view what) {
  const auto parts = split(text, 'x');
  if (parts.size() != 2) throw UsageError{std::string(what) + ": expected AxB, got '" + std::string(text) + "'"};
  return {static_cast<int>(parse_positive(parts[0], what)), static_cast<int>(parse_positive(parts[1], what))};
}

int parse_block(std::string_view text) {
  const long long b = parse_positive(text, "--block");
  // 1024 threads per block is the CUDA limit on every architecture; anything above is a typo.
  if (b > 1024) throw UsageError{"--block: " + std::string(text) + " threads per block is above the CUDA limit of 1024"};
  return static_cast<int>(b);
}

std::optional<std::string_view> flag_value(std::string_view arg, std::string_view flag) {
  if (arg.substr(0, flag.size()) == flag && arg.size() > flag.size() && arg[flag.size()] == '=')
    return arg.substr(flag.size() + 1);
  return std::nullopt;
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
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (auto v3 = flag_value(arg, "--size"); v3) {
      o.cfg.size = static_cast<std::size_t>(parse_positive(*v3, "--size"));
    } else if (auto v4 = flag_value(arg, "--image"); v4) {
      const auto [w, h] = parse_pair(*v4, "--image");
      o.cfg.image = tb::Dims2{w, h};
    } else if (auto v5 = flag_value(arg, "--block"); v5) {
      for (auto& b : split(*v5, ',')) o.cfg.blocks.push_back(parse_block(b));
    } else if (auto v6 = flag_value(arg, "--block2d"); v6) {
      for (auto& b : split(*v6, ',')) {
        const auto [x, y] = parse_pair(b, "--block2d");
        if (x * y > 1024) throw UsageError{"--block2d: " + b + " is " + std::to_string(x * y) + " threads, above the CUDA limit of 1024"};
        o.cfg.blocks2d.push_back({x, y});
      }
    } else if (auto v7 = flag_value(arg, "--sweep"); v7) {
      if (*v7 == "all") o.cfg.all_blocks = true;
      else if (*v7 != "pow2") throw UsageError{"--sweep: expected pow2 or all, got '" + std::string(*v7) + "'"};
    } else if (auto v8 = flag_value(arg, "--machine"); v8) {
      o.machine = std::string(*v8);
    } else if (arg == "--progress-demo") {
      o.progress_demo_s = 5.0;
    } else if (auto v9 = flag_value(arg, "--progress-demo"); v9) {
      const std::string text(*v9);
      char* end = nullptr;
      const double s = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(s > 0) || s > 86400)
        throw UsageError{"--progress-demo: expected seconds in (0, 86400], got '" + text + "'"};
      o.progress_demo_s = s;
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

// How many registered benchmarks the filter selects, for the "i of N" progress lines. Google
// Benchmark matches a regex against the name; a leading '-' negates it.
int count_selected(const std::string& filter) {
  if (filter.empty() || filter == "all" || filter == ".") return static_cast<int>(tb::registered_names().size());
  const bool negate = filter[0] == '-';
  int count = 0;
  try {
    const std::regex re(negate ? filter.substr(1) : filter);
    for (const auto& name : tb::registered_names())
      if (std::regex_search(name, re) != negate) ++count;
  } catch (const std::regex_error&) {
    return 0;
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  try {
    opts = parse_our_flags(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "twinbench: %s\n", e.message.c_str());
    return kExitBadInput;
  }
  if (opts.help) {
    print_usage();
    return 0;
  }
  if (opts.list_workloads) {
    print_workloads(stdout);
    return 0;
  }
  if (opts.progress_demo_s) return tb::progress::run_demo(*opts.progress_demo_s);
  for (const auto& w : opts.workloads) {
    if (!tb::find_workload(w)) {
      std::fprintf(stderr, "twinbench: unknown workload '%s'\n", w.c_str());
      print_workloads(stderr);
      return kExitBadInput;
    }
  }

  for (const auto& w : tb::workloads()) {
    const bool selected = opts.workloads.empty() ||
                          std::find(opts.workloads.begin(), opts.workloads.end(), w.name) != opts.workloads.end();
    if (selected) w.register_benchmarks(opts.cfg);
  }

  // Quick mode shortens every benchmark unless the user chose a minimum time.
  std::vector<char*> args(argv, argv + argc);
  static char quick_min_time[] = "--benchmark_min_time=0.02";
  const bool has_min_time = std::any_of(args.begin(), args.end(), [](const char* a) {
    return std::string_view(a).rfind("--benchmark_min_time", 0) == 0;
  });
  if (opts.cfg.quick && !has_min_time) args.push_back(quick_min_time);
  int bench_argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  argv = args.data();
  argc = bench_argc;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitBadInput;

  const int selected = count_selected(benchmark::GetBenchmarkFilter());
  if (selected == 0) {
    std::fprintf(stderr, "twinbench: no benchmark matches the filter '%s'\n",
                 benchmark::GetBenchmarkFilter().c_str());
    print_workloads(stderr);
    return kExitBadInput;
  }
  tb::set_progress_total(selected);

  tb::record_run_context(opts.machine, opts.cfg);

  const std::size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "twinbench: no benchmark ran\n");
    return kExitBadInput;
  }
  if (tb::validation_failures() > 0) {
    std::fprintf(stderr, "twinbench: %d validation failure(s); see the errors above\n",
                 tb::validation_failures());
    return kExitValidationFailed;
  }
  return 0;
}
