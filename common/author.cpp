// The author API (include/twinbench/twinbench.hpp) on the harness: a case's buffers, made when
// its first row runs and released when another case's row starts; the reference run once and
// checked; every row checked into poisoned outputs before it is timed; the rows registered in
// the suite's order with their descriptions.
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "common/bench_spec.hpp"
#include "common/capability.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/project_info.hpp"
#include "common/host_array.hpp"
#include "common/mpi_run.hpp"
#include "common/row_fields.hpp"
#include "common/sampler.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"
#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime.h>

#include "common/cuda_raii.hpp"
#include "common/gpu_run.hpp"
#include "common/gpu_timing.hpp"
#endif

namespace twinbench {
namespace detail {

enum Role { kInput, kOutput, kInOut, kScratch };

struct Buffer {
  CaseState* owner = nullptr;
  int role = kInput;
  std::string name;
  std::size_t n = 0;
  const ElementOps* ops = nullptr;
  Uniform dist;
  Tolerance tol;
  std::function<void(void*, std::size_t)> fill;
  Dims shape;
  std::uint64_t seed = 0;
  std::function<Found(const void*)> checker;
  std::size_t bytes() const { return n * ops->bytes; }
  // In floating point, so that a size whose bytes overflow std::size_t (--size=2^62 of floats)
  // is estimated as what it is and refused with the numbers, not wrapped round to a small one.
  double estimated_bytes() const { return static_cast<double>(n) * static_cast<double>(ops->bytes); }
  bool checked() const { return role == kOutput || role == kInOut; }

  tb::HostArray<unsigned char> host, ref, initial;
#if TWINBENCH_HAVE_CUDA
  tb::DeviceBuffer<unsigned char> device;
  tb::PinnedBuffer<unsigned char> pinned;  // inputs' upload source, outputs' download target
#endif
};

// Case::shared and Bench::shared: made on first use, released with the case (owner) or the
// workload (no owner).
struct Object {
  CaseState* owner = nullptr;
  std::function<std::shared_ptr<void>()> make;
  std::shared_ptr<void> value;
};

// A row's view of the run while it runs.
struct RowContext {
  benchmark::State* state = nullptr;
  CaseState* owner = nullptr;
  int block = 0;
  Block2 block2d;
  bool skipped = false;
  double rel = -1.0;  // Row::tolerance
};

class CaseState {
 public:
  CaseState(std::string workload, std::vector<Axis> axes, std::uint64_t seed, int id)
      : workload_(std::move(workload)), axes_(std::move(axes)), seed_(seed), id_(id) {}

  std::vector<std::shared_ptr<Buffer>> buffers;
  std::vector<std::shared_ptr<Object>> objects;
  std::function<void()> reference;
  Work work;
  double extra_host = 0.0, extra_device = 0.0;

  struct Variant {
    enum Kind { cpu, gpu, host_timed, sampled } kind = cpu;
    std::string impl;
    std::function<void(Row&)> run;       // cpu, host_timed
    std::function<void(Launch&)> launch;  // gpu
    std::function<double(Row&)> sample;   // sampled
    Options o;
  };
  std::vector<Variant> variants;

  const std::string& workload() const { return workload_; }
  const std::vector<Axis>& axes() const { return axes_; }
  std::uint64_t seed() const { return seed_; }
  std::string key() const { return workload_ + "#" + std::to_string(id_); }

  void ensure_host();
  void ensure_device();
  void release();
  cudaStream_t stream() const;
  // Empty when the reference's output is sound; else what is wrong with it.
  const std::string& reference_error() const { return reference_error_; }

 private:
  void make_host();
  void run_reference();
  std::string check_reference();
  tb::Footprint host_footprint() const;
  tb::Footprint device_footprint() const;

  std::string workload_;
  std::vector<Axis> axes_;
  std::uint64_t seed_;
  int id_;
  bool host_ready_ = false, device_ready_ = false, making_ = false;
  std::string reference_error_;
#if TWINBENCH_HAVE_CUDA
  std::optional<tb::Stream> stream_;
#endif
};

// A GPU row's launch statistics as its counters; the path a launcher took as its label.
void record_kernel(benchmark::State& state, const KernelStats& k) {
  state.counters["block"] = k.block_threads;
  state.counters["regs_per_thread"] = k.regs_per_thread;
  state.counters["static_smem_bytes"] = k.static_smem_bytes;
  state.counters["active_blocks_per_sm"] = k.active_blocks_per_sm;
  state.counters["occupancy"] = k.occupancy;
  state.counters["grid_blocks"] = static_cast<double>(k.grid_blocks);
  state.counters["suggested_block"] = k.suggested_block;
  state.counters["low_occupancy"] = k.low_occupancy() ? 1 : 0;
  state.counters["code_arch"] = k.code_arch;
  if (*k.path != '\0') state.SetLabel(k.path);
}

namespace {

// One case's buffers are alive at a time: the run's rows go case by case.
CaseState*& live_case() {
  static CaseState* live = nullptr;
  return live;
}

void make_live(CaseState* c) {
  CaseState*& live = live_case();
  if (live == c) return;
  if (live) live->release();
  live = c;
  static const bool hooked = (tb::on_workload_release([] {
                                if (live_case()) live_case()->release();
                                live_case() = nullptr;
                              }),
                              true);
  (void)hooked;
}

unsigned char poison_byte_for(const Buffer& b, int pass) {
  return b.ops->poisoned_with_nan ? tb::kPoisonBytes[0] : tb::kPoisonBytes[pass];
}

void fill_bytes(unsigned char* p, std::size_t bytes, unsigned char byte) {
  const auto n = static_cast<long long>(bytes);
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) p[i] = byte;
}

void copy_bytes(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  const auto n = static_cast<long long>(bytes);
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) dst[i] = src[i];
}

std::string number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string position(const Buffer& b, std::size_t i) {
  if (b.shape.w > 0)
    return "(x=" + std::to_string(i % static_cast<std::size_t>(b.shape.w)) +
           ", y=" + std::to_string(i / static_cast<std::size_t>(b.shape.w)) + ")";
  return b.n == 1 ? std::string("(its one element)") : "[" + std::to_string(i) + "]";
}

std::string poison_words(unsigned char byte) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%02X", byte);
  return buf;
}

// The failure's words: the output, the position, got and expected, and what the kind says.
std::string describe(const Buffer& b, const Mismatch& m, double rel, unsigned char poison) {
  std::string s = "output '" + b.name + "' " + position(b, m.index) + ": got " + number(m.got) +
                  ", expected " + number(m.expected);
  switch (m.kind) {
    case Mismatch::Kind::poison:
      s += " (never written: it still holds the poison, bytes " + poison_words(poison) + ")";
      break;
    case Mismatch::Kind::accumulated:
      s += " (accumulated onto the poison, bytes " + poison_words(poison) +
           ", wrapping around: the output was not reset before it was added to)";
      break;
    case Mismatch::Kind::not_finite:
      s += " (not finite)";
      break;
    default: {
      char buf[96];
      std::snprintf(buf, sizeof buf, " (rel error %.3e, tolerance %.1e)", m.max_rel, rel);
      s += buf;
    }
  }
  if (m.bad_elements > 1) s += "; " + std::to_string(m.bad_elements) + " elements wrong";
  return s;
}

}  // namespace

void CaseState::release() {
  for (auto& o : objects) o->value.reset();
  for (auto& b : buffers) {
    b->host = {};
    b->ref = {};
    b->initial = {};
#if TWINBENCH_HAVE_CUDA
    b->device = {};
    b->pinned = {};
#endif
  }
#if TWINBENCH_HAVE_CUDA
  stream_.reset();
#endif
  host_ready_ = device_ready_ = false;
}

tb::Footprint CaseState::host_footprint() const {
  double bytes = extra_host;
  for (const auto& b : buffers)
    bytes += b->estimated_bytes() * (b->role == kInOut ? 3 : b->checked() ? 2 : 1);
  return {.host_bytes = bytes};
}

tb::Footprint CaseState::device_footprint() const {
  double bytes = extra_device;
  for (const auto& b : buffers) bytes += b->estimated_bytes();
  return {.host_bytes = bytes, .device_bytes = bytes};  // pinned mirrors, device arrays
}

void CaseState::make_host() {
  tb::require_memory(host_footprint());
  for (auto& b : buffers) {
    b->host = tb::HostArray<unsigned char>(b->bytes());
    if (b->role == kInput) {
      if (b->fill)
        b->fill(b->host.data(), b->n);
      else
        b->ops->fill(b->host.data(), b->n, b->seed, b->dist.lo, b->dist.hi);
    } else if (b->role == kInOut) {
      b->initial = tb::HostArray<unsigned char>(b->bytes());
      if (b->fill)
        b->fill(b->initial.data(), b->n);
      else
        b->ops->fill(b->initial.data(), b->n, b->seed, b->dist.lo, b->dist.hi);
      copy_bytes(b->host.data(), b->initial.data(), b->bytes());
    } else {
      fill_bytes(b->host.data(), b->bytes(), tb::kPoisonBytes[0]);  // first touch, in parallel
    }
    if (b->checked()) b->ref = tb::HostArray<unsigned char>(b->bytes());
  }
}

void CaseState::run_reference() {
  for (auto& b : buffers) {
    if (!b->checked()) continue;
    if (b->role == kInOut)
      copy_bytes(b->ref.data(), b->initial.data(), b->bytes());
    else
      fill_bytes(b->ref.data(), b->bytes(), tb::kPoisonBytes[0]);
  }
  if (reference) reference();
}

// The reference's output is checked like a row's: an element not finite or never written is
// its error. Outputs without NaN run it a second time into the other pattern: an element that
// differs between the two runs was never written, or was added to without being reset.
std::string CaseState::check_reference() {
  std::vector<tb::HostArray<unsigned char>> first;
  bool second_pass = false;
  // An output with a check of its own holds its reference where that check keeps it.
  for (auto& b : buffers) {
    if (!b->checked() || b->checker) continue;
    const Mismatch m = b->ops->check_reference(b->ref.data(), b->n, tb::kPoisonBytes[0]);
    if (!m.ok())
      return "the reference's output '" + b->name + "' " + position(*b, m.index) + " is " +
             number(m.got) +
             (m.kind == Mismatch::Kind::poison ? " (never written: it still holds the poison)"
                                               : " (not finite)") +
             "; " + std::to_string(m.bad_elements) + " such elements";
    second_pass = second_pass || (!b->ops->poisoned_with_nan && b->role == kOutput && !b->checker);
  }
  if (!second_pass || !reference) return "";
  for (auto& b : buffers) {
    if (b->role != kOutput || b->ops->poisoned_with_nan || b->checker) continue;
    tb::HostArray<unsigned char> copy(b->bytes());
    copy_bytes(copy.data(), b->ref.data(), b->bytes());
    first.push_back(std::move(copy));
    fill_bytes(b->ref.data(), b->bytes(), tb::kPoisonBytes[1]);
  }
  reference();
  std::size_t k = 0;
  for (auto& b : buffers) {
    if (b->role != kOutput || b->ops->poisoned_with_nan || b->checker) continue;
    const Mismatch m = b->ops->same(first[k++].data(), b->ref.data(), b->n);
    if (!m.ok())
      return "the reference's output '" + b->name + "' " + position(*b, m.index) +
             " differs between two runs into outputs poisoned differently (" + number(m.expected) +
             " then " + number(m.got) +
             "): the reference leaves it unwritten or adds to it without resetting it; " +
             std::to_string(m.bad_elements) + " such elements";
  }
  return "";
}

void CaseState::ensure_host() {
  if (host_ready_ || making_) return;
  make_live(this);
  making_ = true;
  try {
    make_host();
    run_reference();
    reference_error_ = check_reference();
  } catch (...) {
    making_ = false;
    release();
    throw;
  }
  making_ = false;
  host_ready_ = true;
}

#if TWINBENCH_HAVE_CUDA
void CaseState::ensure_device() {
  ensure_host();
  if (device_ready_) return;
  tb::require_memory(device_footprint());
  stream_.emplace();
  for (auto& b : buffers) {
    b->device = tb::DeviceBuffer<unsigned char>(b->bytes());
    if (b->role == kScratch) continue;
    b->pinned = tb::PinnedBuffer<unsigned char>(b->bytes());
    const unsigned char* src = b->role == kInOut ? b->initial.data() : b->host.data();
    if (b->role != kOutput) {
      std::memcpy(b->pinned.data(), src, b->bytes());
      tb::copy_to_device(b->device.data(), b->pinned.data(), b->bytes(), *stream_);
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(*stream_));
  device_ready_ = true;
}
cudaStream_t CaseState::stream() const { return stream_ ? stream_->get() : nullptr; }
#else
void CaseState::ensure_device() {
  throw std::runtime_error("this build of twinbench has no CUDA (TWINBENCH_WITH_CUDA=OFF)");
}
cudaStream_t CaseState::stream() const { return nullptr; }
#endif

void* host_data(Buffer& b) {
  b.owner->ensure_host();
  return b.host.data();
}
std::shared_ptr<Object> add_object(CaseState* c, std::function<std::shared_ptr<void>()> make) {
  auto o = std::make_shared<Object>();
  o->owner = c;
  o->make = std::move(make);
  if (c) return c->objects.emplace_back(std::move(o));
  tb::on_workload_release([weak = std::weak_ptr<Object>(o)] {
    if (auto held = weak.lock()) held->value.reset();
  });
  return o;
}
void* object_data(Object& o) {
  if (o.owner) o.owner->ensure_host();  // the case live, its host memory estimated
  if (!o.value) {
    if (o.owner && o.owner->extra_device > 0)
      tb::require_memory({.device_bytes = o.owner->extra_device});
    o.value = o.make();
  }
  return o.value.get();
}
void* ref_data(Buffer& b) {
  b.owner->ensure_host();
  return b.ref.data();
}
void* device_data(Buffer& b) {
  b.owner->ensure_device();
#if TWINBENCH_HAVE_CUDA
  return b.device.data();
#else
  return nullptr;
#endif
}
void set_tolerance(Buffer& b, const Tolerance& t) { b.tol = t; }
void set_shape(Buffer& b, Dims d) { b.shape = d; }
void set_checker(Buffer& b, std::function<Found(const void*)> check) {
  b.checker = std::move(check);
}

std::shared_ptr<Buffer> add_buffer(CaseState& c, int role, std::string name, std::size_t n,
                                   const ElementOps& ops, Uniform dist, Tolerance tol,
                                   std::function<void(void*, std::size_t)> fill) {
  auto b = std::make_shared<Buffer>();
  b->owner = &c;
  b->role = role;
  b->name = std::move(name);
  b->n = n;
  b->ops = &ops;
  b->dist = dist;
  b->tol = tol;
  b->fill = std::move(fill);
  // Input k of the case is filled from seed + k.
  std::uint64_t filled = 0;
  for (const auto& o : c.buffers) filled += o->role == kInput || o->role == kInOut;
  b->seed = c.seed() + filled;
  return c.buffers.emplace_back(std::move(b));
}

namespace {

// ---- Checking a row: its outputs poisoned (or set to their initial values), the row run once,
// each output compared with the reference; twice where an output has no NaN.
int passes_needed(const CaseState& c) {
  for (const auto& b : c.buffers)
    if (b->role == kOutput && !b->ops->poisoned_with_nan) return 2;
  return 1;
}

double rel_for(const Buffer& b, const Options& o, const RowContext& ctx) {
  return ctx.rel >= 0 ? ctx.rel : o.rel >= 0 ? o.rel : b.tol.rel;
}

// `target(b)` is where the row's output lands on the host (host(), or the downloaded copy).
tb::CheckResult compare_outputs(const CaseState& c, const Options& o, const RowContext& ctx,
                                int pass,
                                const std::function<const unsigned char*(const Buffer&)>& target) {
  tb::CheckResult r;
  for (const auto& b : c.buffers) {
    if (!b->checked()) continue;
    const auto own = std::find_if(o.checks.begin(), o.checks.end(),
                                  [&](const OutputCheck& k) { return k.buffer.get() == b.get(); });
    const auto& checker = own != o.checks.end() ? own->check : b->checker;  // Options::checks
    if (checker) {
      const Found f = checker(target(*b));  // its errors recorded (Found)
      r.max_abs = std::fmax(r.max_abs, f.max_abs);
      r.max_rel = std::fmax(r.max_rel, f.max_rel);
      if (!f.why.empty() && r.pass) r = {false, "output '" + b->name + "': " + f.why, r.max_abs, r.max_rel};
      continue;
    }
    const double rel = rel_for(*b, o, ctx);
    const unsigned char byte = poison_byte_for(*b, pass);
    const Mismatch m =
        b->ops->compare(target(*b), b->ref.data(), b->n, rel, b->tol.scale_floor, byte);
    r.max_abs = std::fmax(r.max_abs, m.max_abs);
    r.max_rel = std::fmax(r.max_rel, m.max_rel);
    if (!m.ok() && r.pass) {
      r.pass = false;
      r.detail = describe(*b, m, rel, byte);
    }
  }
  if (r.pass && o.check) {
    const std::string why = o.check();
    if (!why.empty()) r = {false, why, r.max_abs, r.max_rel};
  }
  return r;
}

tb::CheckResult check_rows_run(const CaseState& c, const Options& o, const RowContext& ctx,
                               const std::function<void(int pass)>& prepare,
                               const std::function<void()>& run,
                               const std::function<const unsigned char*(const Buffer&)>& target) {
  tb::CheckResult r;
  for (int pass = 0; pass < passes_needed(c) && r.pass; ++pass) {
    prepare(pass);
    run();
    if (ctx.skipped) return r;
    r = compare_outputs(c, o, ctx, pass, target);
  }
  return r;
}

void prepare_host_outputs(CaseState& c, int pass) {
  for (auto& b : c.buffers) {
    if (b->role == kInOut) copy_bytes(b->host.data(), b->initial.data(), b->bytes());
    if (b->role == kOutput) fill_bytes(b->host.data(), b->bytes(), poison_byte_for(*b, pass));
  }
}

// The reference's failure is the case's, said once: every row of the case skips with it.
bool reference_sound(benchmark::State& state, CaseState& c) {
  c.ensure_host();
  if (c.reference_error().empty()) return true;
  tb::validate_once_described(state, c.key() + "/reference", [&] {
    return tb::CheckResult{false, "the reference is wrong, not this row: " + c.reference_error()};
  });
  return false;
}

tb::BenchSpec spec_for(const CaseState& c, const std::string& impl, const Options& o) {
  tb::BenchSpec s = tb::bench_spec(c.workload(), impl);
  for (const Axis& a : c.axes()) s.axes.emplace_back(a.key, a.value);
  for (const Axis& a : o.axes) s.axes.emplace_back(a.key, a.value);
  if (!o.algorithm.empty()) s = s.of_algorithm(o.algorithm);
  if (!o.precision.empty()) s = s.in_precision(o.precision);
  return s;
}

tb::WorkModel work_model(const Work& w) {
  return {.read_bytes = w.read_bytes, .written_bytes = w.written_bytes, .flops = w.flops,
          .items = w.items, .held_to_ceiling = w.held_to_ceiling,
          .link = w.link == Link::h2d ? tb::Link::h2d : w.link == Link::d2h ? tb::Link::d2h : tb::Link::none};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool has_checked_outputs(const CaseState& c) {
  for (const auto& b : c.buffers)
    if (b->checked()) return true;
  return false;
}

// ---- CPU rows and host-timed rows.
void add_host_row(const tb::RunConfig& cfg, const std::shared_ptr<CaseState>& c,
                  const CaseState::Variant& v) {
  const bool sampled = v.kind == CaseState::Variant::sampled;
  const Options& o = v.o;
  tb::BenchSpec spec = spec_for(*c, v.impl, o);
  if (o.threaded) spec = spec.on_threads(tb::omp_threads());
  const bool gpu_side = v.kind != CaseState::Variant::cpu && v.o.side == Side::gpu;
  const bool events = gpu_side && sampled && o.gpu_events;
  if (gpu_side) {
    spec.side = tb::Side::gpu;
    spec.host_timed = !events;
  }
  spec.in_step = v.kind != CaseState::Variant::cpu && v.o.in_step;
  const auto add = events ? tb::add_gpu_benchmark : tb::add_cpu_benchmark;
  add(cfg, spec, work_model(o.work ? *o.work : c->work), [c, v, o, gpu_side, sampled](benchmark::State& state) {
    if (gpu_side && v.o.gpus > 0 && !tb::gpu_info().available) return tb::skip(state, tb::gpu_info().status);
    if (gpu_side && tb::gpu_info().device_count < v.o.gpus)
      return tb::skip(state, "needs " + std::to_string(v.o.gpus) + " GPUs: this process sees " +
                                 std::to_string(tb::gpu_info().device_count) +
                                 " (CUDA_VISIBLE_DEVICES applies)");
    if (!reference_sound(state, *c)) return;
    RowContext ctx;
    ctx.state = &state;
    ctx.owner = c.get();
    Row row(ctx);
    if (has_checked_outputs(*c) || o.check) {
      const auto run = [&] {
        if (sampled) v.sample(row); else v.run(row);
      };
      const bool ok = tb::validate_once_described(state, tb::current_benchmark(), [&] {
        return check_rows_run(*c, o, ctx, [&](int pass) { prepare_host_outputs(*c, pass); }, run,
                              [](const Buffer& b) -> const unsigned char* { return b.host.data(); });
      });
      if (!ok || ctx.skipped) return;
    }
    if (o.in_step)  // the slowest rank's sample from a barrier; rank 0's clock stops them all
      tb::measure(
          state,
          [&] {
            tb::mpi::barrier();
            const auto t0 = std::chrono::steady_clock::now();
            const double s = sampled ? v.sample(row) : (v.run(row), seconds_since(t0));
            return tb::mpi::max_over_ranks(s);
          },
          [] { return tb::mpi::from_root(seconds_since({})); });
    else if (sampled) {
      try {  // Options::before_samples, after_samples
        if (o.before_samples) o.before_samples(row);
        tb::measure(state, [&] { return v.sample(row); });
      } catch (...) {
        if (o.after_samples) o.after_samples(row);
        throw;
      }
      if (o.after_samples) o.after_samples(row);
    } else
      tb::measure_cpu(state, [&] { v.run(row); });
  });
}

#if TWINBENCH_HAVE_CUDA
tb::GpuFeature feature(Needs n) {
  switch (n) {
    case Needs::cp_async: return tb::GpuFeature::cp_async;
    case Needs::bf16_tensor_cores: return tb::GpuFeature::bf16_tensor_cores;
    case Needs::tma_bulk_copy: return tb::GpuFeature::tma_bulk_copy;
    case Needs::thread_block_clusters: return tb::GpuFeature::thread_block_clusters;
    default: return tb::GpuFeature::none;
  }
}

void upload_inputs(CaseState& c) {
  for (auto& b : c.buffers)
    if (b->role == kInput || b->role == kInOut)
      tb::copy_to_device(b->device.data(), b->pinned.data(), b->bytes(), c.stream());
}

void download_outputs(CaseState& c) {
  for (auto& b : c.buffers)
    if (b->checked()) tb::copy_to_host(b->pinned.data(), b->device.data(), b->bytes(), c.stream());
}

void prepare_device_outputs(CaseState& c, int pass, bool writes_host) {
  if (writes_host) return prepare_host_outputs(c, pass);
  for (auto& b : c.buffers) {
    if (b->role == kInOut) {  // from its initial values: a row's download overwrote the mirror
      copy_bytes(b->pinned.data(), b->initial.data(), b->bytes());
      tb::copy_to_device(b->device.data(), b->pinned.data(), b->bytes(), c.stream());
    }
    if (b->role != kOutput) continue;
    const unsigned char byte = poison_byte_for(*b, pass);
    CUDA_CHECK(cudaMemsetAsync(b->device.data(), byte, b->bytes(), c.stream()));
    fill_bytes(b->pinned.data(), b->bytes(), byte);
  }
}
#endif

}  // namespace

// ---- GPU rows.
#if TWINBENCH_HAVE_CUDA
namespace {

void run_gpu_row(benchmark::State& state, CaseState& c, const CaseState::Variant& v,
                 tb::Mode mode, int block, Block2 block2d) {
  const Options& o = v.o;
  const int threads = block > 0 ? block : block2d.threads();
  if (threads > 0 && !tb::check_block(state, threads)) return;
  if (!reference_sound(state, c)) return;
  c.ensure_device();
  RowContext ctx{.state = &state, .owner = &c, .block = block, .block2d = block2d};
  Launch launch(ctx);
  std::optional<KernelStats> stats;
  if (o.stats) stats = o.stats(launch);
  if (!tb::check_capability(state, feature(o.needs), stats ? stats->code_arch : 0)) return;
  if (o.setup) o.setup(launch);  // Options::setup
  if (ctx.skipped) return;          // a skip from the setup (a library this machine lacks)
  const bool writes_host = o.writes_host;
  const auto compute = [&] { v.launch(launch); };
  const bool ok = tb::validate_once_described(state, tb::mode_independent_key(tb::current_spec()), [&] {
    return check_rows_run(
        c, o, ctx, [&](int pass) { prepare_device_outputs(c, pass, writes_host); },
        [&] {
          upload_inputs(c);
          if (o.upload) o.upload(launch);  // Options::upload
          compute();
          if (!writes_host) download_outputs(c);
          CUDA_CHECK(cudaStreamSynchronize(c.stream()));
        },
        [writes_host](const Buffer& b) -> const unsigned char* {
          return writes_host ? b.host.data() : b.pinned.data();
        });
  });
  if (!ok || ctx.skipped) return;
  const bool e2e = mode == tb::Mode::e2e;
  tb::time_gpu(
      state, c.stream(),
      [&] {
        if (e2e) upload_inputs(c);
        if (e2e && o.upload) o.upload(launch);
        compute();
        if (e2e && !writes_host) download_outputs(c);
      },
      mode == tb::Mode::e2e || o.waits_for_gpu ? tb::Timing::inline_launch : tb::Timing::gated);
  if (stats) record_kernel(state, *stats);
  if (block2d.threads() > 0) {
    state.counters["block_x"] = block2d.x;
    state.counters["block_y"] = block2d.y;
  }
}

}  // namespace
#endif

void add_gpu_row(const tb::RunConfig& cfg, const std::shared_ptr<CaseState>& c,
                 const CaseState::Variant& v, tb::Mode mode, int block, Block2 block2d) {
  tb::BenchSpec spec = spec_for(*c, v.impl, v.o);
  if (block > 0) spec = spec.with_block(block);
  if (block2d.threads() > 0) spec = spec.with_axis({"block", tb::Block2{block2d.x, block2d.y}});
  spec = spec.in_mode(mode);
  tb::add_gpu_benchmark(cfg, spec, work_model(v.o.work ? *v.o.work : c->work), [=](benchmark::State& state) {
#if TWINBENCH_HAVE_CUDA
    run_gpu_row(state, *c, v, mode, block, block2d);
#else
    (void)state;
#endif
  });
}

// ---- The workload.
class BenchState {
 public:
  BenchState(std::string name, const tb::RunConfig& cfg) : name_(std::move(name)), cfg_(cfg) {}
  const tb::RunConfig& cfg() const { return cfg_; }
  Case& open(std::vector<Axis> axes, std::uint64_t seed) {
    close();
    current_ = std::make_shared<CaseState>(name_, std::move(axes), seed, next_id_++);
    handle_.emplace(*current_);
    return *handle_;
  }
  void close();

 private:
  void add_gpu_rows(tb::Mode mode);
  std::string name_;
  const tb::RunConfig& cfg_;
  std::shared_ptr<CaseState> current_;
  std::optional<Case> handle_;
  int next_id_ = 0;
};

namespace {

std::vector<tb::Mode> modes_of(Modes m) {
  if (m == Modes::kernel_and_e2e) return {tb::Mode::kernel, tb::Mode::e2e};
  if (m == Modes::kernel_only) return {tb::Mode::kernel};
  return {tb::Mode::none};
}

std::vector<int> sizes_for(const tb::RunConfig& cfg, const Blocks& b, tb::Mode mode) {
  if (b.kind == Blocks::Kind::fixed) return b.sizes;
  if (b.kind != Blocks::Kind::sweep) return {};
#if TWINBENCH_HAVE_CUDA
  if (mode == tb::Mode::e2e) return tb::blocks_1d(cfg, mode);
#endif
  (void)mode;
  return tb::block_sweep_1d(cfg);
}

std::vector<Block2> shapes_for(const tb::RunConfig& cfg, const Blocks& b, tb::Mode mode) {
  if (b.kind == Blocks::Kind::fixed_2d) return b.shapes;
  if (b.kind != Blocks::Kind::sweep_2d) return {};
  std::vector<tb::Block2> shapes = tb::block_sweep_2d(cfg);
#if TWINBENCH_HAVE_CUDA
  if (mode == tb::Mode::e2e) shapes = tb::blocks_2d(cfg, mode);
#endif
  (void)mode;
  std::vector<Block2> out;
  for (const auto& s : shapes) out.push_back({s.x, s.y});
  return out;
}

template <class T>
void append_new(std::vector<T>& all, const std::vector<T>& more) {
  for (const T& x : more)
    if (std::find_if(all.begin(), all.end(), [&](const T& y) { return std::memcmp(&x, &y, sizeof(T)) == 0; }) == all.end())
      all.push_back(x);
}

}  // namespace

void BenchState::add_gpu_rows(tb::Mode mode) {
  std::vector<const CaseState::Variant*> gpu;
  for (const auto& v : current_->variants) {
    const std::vector<tb::Mode> modes = modes_of(v.o.modes);
    if (v.kind == CaseState::Variant::gpu && std::find(modes.begin(), modes.end(), mode) != modes.end())
      gpu.push_back(&v);
  }
  std::vector<int> sizes;
  std::vector<Block2> shapes;
  for (const auto* v : gpu) {
    append_new(sizes, sizes_for(cfg_, v->o.blocks, mode));
    append_new(shapes, shapes_for(cfg_, v->o.blocks, mode));
  }
  for (int b : sizes)
    for (const auto* v : gpu) {
      const auto mine = sizes_for(cfg_, v->o.blocks, mode);
      if (std::find(mine.begin(), mine.end(), b) != mine.end())
        add_gpu_row(cfg_, current_, *v, mode, b, {});
    }
  for (Block2 s : shapes)
    for (const auto* v : gpu) {
      const auto mine = shapes_for(cfg_, v->o.blocks, mode);
      if (std::find_if(mine.begin(), mine.end(), [&](Block2 m) { return m.x == s.x && m.y == s.y; }) != mine.end())
        add_gpu_row(cfg_, current_, *v, mode, 0, s);
    }
  for (const auto* v : gpu)
    if (v->o.blocks.kind == Blocks::Kind::own) add_gpu_row(cfg_, current_, *v, mode, 0, {});
}

// The rows of the case, in the suite's order (twinbench.hpp, Bench::add_case).
void BenchState::close() {
  if (!current_) return;
  for (const auto& v : current_->variants)
    if (v.kind != CaseState::Variant::gpu) add_host_row(cfg_, current_, v);
  std::vector<tb::Mode> modes;
  for (const auto& v : current_->variants)
    if (v.kind == CaseState::Variant::gpu)
      for (tb::Mode m : modes_of(v.o.modes))
        if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  std::sort(modes.begin(), modes.end(), [](tb::Mode a, tb::Mode b) {
    return static_cast<int>(a) < static_cast<int>(b);
  });
  for (tb::Mode m : modes) add_gpu_rows(m);
  handle_.reset();
  current_.reset();
}

bool set_project(const char* name, const char* version, const char* revision) {
  return tb::set_project_info({name, version, revision});
}

bool register_bench(const char* name, const char* summary, void (*fn)(Bench&)) {
  return tb::add_workload({name, summary, [name = std::string(name), fn](const tb::RunConfig& cfg) {
                             BenchState state(name, cfg);
                             Bench b(state);
                             fn(b);
                             state.close();
                           }});
}

}  // namespace detail

// ---- The public classes' members.
void Row::counter(const std::string& name, double value, Counter kind) {
  auto& counters = ctx_->state->counters;
  switch (kind) {
    case Counter::value: counters[name] = value; break;
    case Counter::per_second:
      counters[name] = benchmark::Counter(value, benchmark::Counter::kIsIterationInvariantRate);
      break;
    case Counter::seconds_per:
      counters[name] = benchmark::Counter(
          value, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
      break;
  }
}
void Row::label(const std::string& text) { ctx_->state->SetLabel(text); }
void Row::field(const std::string& key, const std::string& value) {
  tb::set_row_field(tb::current_benchmark(), key, value);
}
void Row::stats(const KernelStats& k) { detail::record_kernel(*ctx_->state, k); }
void Row::tolerance(double rel) { ctx_->rel = rel; }
void Row::skip(const std::string& why) {
  ctx_->skipped = true;
  tb::skip(*ctx_->state, why);
}
const std::string& Row::name() const { return tb::current_benchmark(); }

int Launch::block() const { return ctx_->block > 0 ? ctx_->block : ctx_->block2d.threads(); }
Block2 Launch::block2d() const { return ctx_->block2d; }
cudaStream_t Launch::stream() const { return ctx_->owner->stream(); }

void Case::reference(std::function<void()> run) { s_->reference = std::move(run); }
void Case::work(const Work& w) { s_->work = w; }
void Case::extra_memory(double host_bytes, double device_bytes) {
  s_->extra_host += host_bytes;
  s_->extra_device += device_bytes;
}
void Case::cpu(std::string impl, std::function<void()> run, Options o) {
  cpu(std::move(impl), [run = std::move(run)](Row&) { run(); }, std::move(o));
}
void Case::cpu(std::string impl, std::function<void(Row&)> run, Options o) {
  detail::CaseState::Variant v;
  v.kind = detail::CaseState::Variant::cpu;
  v.impl = std::move(impl);
  v.run = std::move(run);
  v.o = std::move(o);
  s_->variants.push_back(std::move(v));
}
void Case::gpu(std::string impl, std::function<void(Launch&)> launch, Options o) {
  detail::CaseState::Variant v;
  v.kind = detail::CaseState::Variant::gpu;
  v.impl = std::move(impl);
  v.launch = std::move(launch);
  v.o = std::move(o);
  s_->variants.push_back(std::move(v));
}
void Case::host_timed(std::string impl, std::function<void(Row&)> body, Options o) {
  detail::CaseState::Variant v;
  v.kind = detail::CaseState::Variant::host_timed;
  v.impl = std::move(impl);
  v.run = std::move(body);
  v.o = std::move(o);
  s_->variants.push_back(std::move(v));
}
void Case::sampled(std::string impl, std::function<double(Row&)> sample, Options o) {
  detail::CaseState::Variant v;
  v.kind = detail::CaseState::Variant::sampled;
  v.impl = std::move(impl);
  v.sample = std::move(sample);
  v.o = std::move(o);
  s_->variants.push_back(std::move(v));
}

std::vector<std::size_t> Bench::sizes(std::vector<std::size_t> defaults, std::size_t quick) const {
  return tb::sizes_1d(s_->cfg(), std::move(defaults), quick);
}
Dims Bench::image(Dims defaults, Dims quick) const {
  const tb::Dims2 d = tb::image_dims(s_->cfg(), {defaults.w, defaults.h}, {quick.w, quick.h});
  return {d.w, d.h};
}
std::vector<long long> Bench::int_axis(const std::string& name, std::vector<long long> defaults,
                                       std::vector<long long> allowed) const {
  const std::vector<int> d(defaults.begin(), defaults.end()), a(allowed.begin(), allowed.end());
  const std::vector<int> v = tb::int_axis(s_->cfg(), name, d, a);
  return {v.begin(), v.end()};
}
std::vector<std::string> Bench::name_axis(const std::string& name,
                                          std::vector<std::string> values) const {
  return tb::name_axis(s_->cfg(), name, std::move(values));
}
bool Bench::quick() const { return s_->cfg().quick; }
bool Bench::full() const { return s_->cfg().full; }
bool Bench::size_given() const { return s_->cfg().size.has_value(); }
bool Bench::image_given() const { return s_->cfg().image.has_value(); }
bool Bench::blocks_given() const { return !s_->cfg().blocks.empty(); }
int Bench::omp_threads() const { return tb::omp_threads(); }
int Bench::rank() const { return tb::mpi::rank(); }
int Bench::ranks() const { return tb::mpi::active() ? tb::mpi::size() : 1; }
int Bench::gpus() const { return tb::gpu_info().available ? tb::gpu_info().device_count : 0; }
std::vector<int> Bench::block_sweep() const { return tb::block_sweep_1d(s_->cfg()); }
std::vector<Block2> Bench::block_sweep_2d() const {
  std::vector<Block2> out;
  for (const auto& s : tb::block_sweep_2d(s_->cfg())) out.push_back({s.x, s.y});
  return out;
}
Case& Bench::add_case(std::vector<Axis> axes, std::uint64_t seed) {
  Case& c = s_->open(std::move(axes), seed);
  return c;
}

}  // namespace twinbench

namespace twinbench {

#if TWINBENCH_HAVE_CUDA
KernelStats kernel_stats(const void* kernel, int block_threads, long long grid_blocks,
                         std::size_t dynamic_smem) {
  KernelStats s;
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  int device = 0, max_threads_per_sm = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  s.block_threads = block_threads;
  s.regs_per_thread = attr.numRegs;
  s.code_arch = attr.ptxVersion;
  s.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
  s.grid_blocks = grid_blocks;
  s.sm_count = sms;
  if (block_threads > 0 && block_threads <= attr.maxThreadsPerBlock) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&s.active_blocks_per_sm, kernel,
                                                             block_threads, dynamic_smem));
    s.occupancy = static_cast<double>(s.active_blocks_per_sm * block_threads) / max_threads_per_sm;
  }
  int min_grid = 0, suggested = 0;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &suggested, kernel, dynamic_smem, 0));
  s.suggested_block = suggested;
  return s;
}
#else
KernelStats kernel_stats(const void*, int block_threads, long long grid_blocks, std::size_t) {
  KernelStats s;
  s.block_threads = block_threads;
  s.grid_blocks = grid_blocks;
  return s;
}
#endif

}  // namespace twinbench
