#pragma once
// twinbench's public API: one object per workload for every shape a CPU-vs-GPU pair takes.
//
//   void grayscale(twinbench::Bench& b) {
//     const twinbench::Dims img = b.image({3840, 2160}, /*quick=*/{640, 360});
//     twinbench::Case& c = b.add_case({{"w", img.w}, {"h", img.h}});
//     auto rgb = c.input<float>("rgb", 3 * img.pixels(), twinbench::uniform(0, 1));
//     auto gray = c.output<float>("gray", img.pixels(), {.rel = 1e-6}).shape(img);
//     c.reference([=] { serial(rgb.host(), gray.ref(), img.w, img.h); });
//     c.work({.read_bytes = 12.0 * img.pixels(), .written_bytes = 4.0 * img.pixels()});
//     c.cpu("serial", [=] { serial(rgb.host(), gray.host(), img.w, img.h); });
//     c.gpu("cuda", [=](twinbench::Launch& l) {
//       cuda(rgb.device(), gray.device(), img.w, img.h, l.block2d(), l.stream()); },
//       {.blocks = twinbench::sweep_2d()});
//   }
//   TWINBENCH_BENCH("grayscale", "RGB to gray, float32", grayscale);
//
// A workload's function runs once, when the run selects it: it reads its axes from the command
// line through `b` and opens a Case per point, a set of rows sharing named buffers. The harness
// owns the buffers (inputs from the seed, never zero; outputs poisoned before every check; their
// memory estimated before they are made and released when the next case starts), runs the
// reference and checks its output, validates every row against it before timing it, sweeps the
// threads per block with occupancy, and times GPU rows alone (mode:kernel) and with their copies
// (mode:e2e). Lambdas run later, while the rows run: capture by value ([=]); handles are cheap
// to copy. Rows are named `<workload>/<impl>/<axis>:<value>/.../block:<b>/threads:<t>/mode:<m>`
// and carry their axes as fields in the results file. docs/adding-a-workload.md walks through
// a 1D, a 2D and a scalar example.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <twinbench/detail/elements.hpp>
#include <twinbench/kernel_stats.hpp>
#include <twinbench/types.hpp>

// The launch's stream type, declared as the CUDA headers declare it, so builds without CUDA
// compile the same launchers.
typedef struct CUstream_st* cudaStream_t;

namespace twinbench {

// The element type's name in rows and messages: float32, float64, int8 ... uint64.
template <class T>
const char* dtype_name() {
  return detail::element_ops<T>().dtype;
}

// Launch statistics of a kernel (registers, occupancy, suggested block) from its address:
// `twinbench::kernel_stats(my_kernel, block, grid)` in the .cu file that defines the kernel.
// Only the block and grid without a GPU.
KernelStats kernel_stats(const void* kernel, int block_threads, long long grid_blocks,
                         std::size_t dynamic_smem = 0);
template <class... Args>
KernelStats kernel_stats(void (*kernel)(Args...), int block_threads, long long grid_blocks,
                         std::size_t dynamic_smem = 0) {
  return kernel_stats(reinterpret_cast<const void*>(kernel), block_threads, grid_blocks,
                      dynamic_smem);
}

// What a check of its own found (Output::checked_by and check_with may return it rather than the
// string): `why` "" when right, else what is wrong; the worst errors it measured become the
// row's max_abs_err and max_rel_err (a string leaves them 0).
struct Found {
  std::string why;
  double max_abs = 0.0;
  double max_rel = 0.0;
};

namespace detail {
inline Found found(std::string why) { return {std::move(why), 0.0, 0.0}; }
inline Found found(Found f) { return f; }
class CaseState;
class BenchState;
struct Buffer;
struct RowContext;
void* host_data(Buffer& b);
void* ref_data(Buffer& b);
void* device_data(Buffer& b);
void set_tolerance(Buffer& b, const Tolerance& t);
void set_shape(Buffer& b, Dims d);
void set_checker(Buffer& b, std::function<Found(const void*)> check);
std::shared_ptr<Buffer> add_buffer(CaseState& c, int role, std::string name, std::size_t n,
                                   const ElementOps& ops, Uniform dist, Tolerance tol,
                                   std::function<void(void*, std::size_t)> fill);
struct Object;
void* object_data(Object& o);
std::shared_ptr<Object> add_object(CaseState* c, std::function<std::shared_ptr<void>()> make);
}  // namespace detail

// ---- The row running now: counters, its label, its kernel's launch statistics.
enum class Counter { value, per_second, seconds_per };  // per_second: value / row time

class Row {
 public:
  explicit Row(detail::RowContext& ctx) : ctx_(&ctx) {}
  void counter(const std::string& name, double value, Counter kind = Counter::value);
  void label(const std::string& text);
  // A text field of the row in the results file (what joins two GPUs, say).
  void field(const std::string& key, const std::string& value);
  void stats(const KernelStats& k);
  // This row's tolerance where it depends on how the row runs (a reduction's depth depends on
  // its grid): replaces the outputs' rel for the row's check. Set it before the check runs,
  // from the row's body.
  void tolerance(double rel);
  // Skips the row with the reason (not a failure): a capability the machine lacks, say.
  void skip(const std::string& why);
  const std::string& name() const;

 protected:
  detail::RowContext* ctx_;
};

// A GPU row's launch: the block size being swept, the case's stream, and a grid for n items.
class Launch : public Row {
 public:
  using Row::Row;
  int block() const;
  Block2 block2d() const;
  cudaStream_t stream() const;
  unsigned grid(std::size_t n) const {  // ceil(n / block)
    const auto b = static_cast<std::size_t>(block());
    return static_cast<unsigned>((n + b - 1) / b);
  }
};

// ---- Named buffers, owned by the harness: cheap handles, valid while the case's rows run.
// host(): the host array (made, filled and first touched on first use); device(): the device
// array, the host's values uploaded (inputs) or poisoned before the check (outputs).
template <class T>
class Input {
 public:
  Input() = default;
  explicit Input(std::shared_ptr<detail::Buffer> b) : b_(std::move(b)) {}
  T* host() const { return static_cast<T*>(detail::host_data(*b_)); }
  T* device() const { return static_cast<T*>(detail::device_data(*b_)); }

 private:
  std::shared_ptr<detail::Buffer> b_;
};

// A row's own comparison for one output (Output::check_with, listed in Options::checks): it
// replaces the output's own check (element-wise or checked_by) for that row alone.
struct OutputCheck {
  std::shared_ptr<detail::Buffer> buffer;
  std::function<Found(const void*)> check;
};

// An output: host() is what a CPU row writes, device() what a GPU row writes, ref() what the
// reference writes. Each row's output is poisoned before its check (NaN for floating point; two
// byte patterns for types without NaN) and compared with ref() under the output's tolerance. A
// scalar is a one-element output. An output made with inout() starts each check from its
// initial values (filled like an input), for rows that update in place.
template <class T>
class Output {
 public:
  Output() = default;
  explicit Output(std::shared_ptr<detail::Buffer> b) : b_(std::move(b)) {}
  T* host() const { return static_cast<T*>(detail::host_data(*b_)); }
  T* ref() const { return static_cast<T*>(detail::ref_data(*b_)); }
  T* device() const { return static_cast<T*>(detail::device_data(*b_)); }
  // The tolerance may depend on the inputs: set it from the reference's body.
  void tolerance(const Tolerance& t) const { detail::set_tolerance(*b_, t); }
  // A W x H output (row-major): failures name (x, y) rather than the flat index.
  Output shape(Dims d) const {
    detail::set_shape(*b_, d);
    return *this;
  }
  // A comparison of the output's own, replacing the element-wise one (a float32 result held to
  // a float64 reference with a bound per element, say): `check(got)` returns "" when `got` is
  // right, else what is wrong. The output is still poisoned before each run.
  template <class Check>
  Output checked_by(Check check) const {
    detail::set_checker(*b_, [check](const void* got) { return detail::found(check(static_cast<const T*>(got))); });
    return *this;
  }
  // The same for one row (the rows of one precision held to its own bound): pass the result in
  // that row's Options::checks.
  template <class Check>
  OutputCheck check_with(Check check) const {
    return {b_, [check](const void* got) { return detail::found(check(static_cast<const T*>(got))); }};
  }

 private:
  std::shared_ptr<detail::Buffer> b_;
};

// Working memory a row needs (a scan's look-back state, a staging array): neither filled nor
// checked; its memory counted with the case's and released with it.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  explicit Scratch(std::shared_ptr<detail::Buffer> b) : b_(std::move(b)) {}
  T* host() const { return static_cast<T*>(detail::host_data(*b_)); }
  T* device() const { return static_cast<T*>(detail::device_data(*b_)); }

 private:
  std::shared_ptr<detail::Buffer> b_;
};

// An object of the workload's own, for what named buffers cannot hold (buffers on several GPUs,
// host memory of a kind CUDA allocates, a communicator): made by `make()` (returning a
// std::unique_ptr<T>) where a row first calls get(), and released with the case's buffers
// (Case::shared, its memory in the case's extra_memory, estimated first) or when the run moves
// on to the next workload (Bench::shared: made once for all the workload's cases).
template <class T>
class Shared {
 public:
  Shared() = default;
  explicit Shared(std::shared_ptr<detail::Object> o) : o_(std::move(o)) {}
  T& get() const { return *static_cast<T*>(detail::object_data(*o_)); }

 private:
  std::shared_ptr<detail::Object> o_;
};

// ---- Variants.
// Threads per block a GPU row is run with: the 1D sweep (--block overrides it), the 2D sweep
// (--block2d), fixed sizes, or none (a library that picks its own launch: one row, no block
// axis).
struct Blocks {
  enum class Kind { sweep, sweep_2d, fixed, fixed_2d, own };
  Kind kind = Kind::sweep;
  std::vector<int> sizes = {};
  std::vector<Block2> shapes = {};
};
inline Blocks sweep() { return {}; }
inline Blocks sweep_2d() { return {Blocks::Kind::sweep_2d}; }
inline Blocks fixed(std::vector<int> sizes) { return {Blocks::Kind::fixed, std::move(sizes)}; }
inline Blocks fixed(std::vector<Block2> shapes) { return {Blocks::Kind::fixed_2d, {}, std::move(shapes)}; }
inline Blocks own_launch() { return {Blocks::Kind::own}; }

// The timed regions a GPU row gets: kernel and e2e rows (mode:kernel, mode:e2e), or the kernel
// alone with no mode axis in its name.
enum class Modes { kernel_and_e2e, kernel_only, unnamed };

// A capability a GPU row needs; a device or build without it skips the row, naming it.
enum class Needs { none, cp_async, bf16_tensor_cores, tma_bulk_copy, thread_block_clusters };

// A row timed on the host's wall clock (allocation, launch latency, transfers, collectives), or,
// with Case::sampled, by its own clock, is on the CPU's side or the GPU's.
enum class Side { cpu, gpu };

// What a row may say about itself, beyond its function (designated initializers, in this
// order: `{.threaded = true}`, `{.blocks = twinbench::sweep_2d(), .stats = ...}`).
struct Options {
  // Every row: axes after the case's (before block); the algorithm (rows of one algorithm are
  // compared with each other; "" is the workload's plain one); the precision where it is not
  // the workload's own ("bf16", "tf32": rows pair within one); a tolerance replacing the
  // outputs' rel for this row (a summation of another depth); a check of its own (returns ""
  // when right, else what is wrong) for results the outputs cannot hold.
  std::vector<Axis> axes = {};
  std::string algorithm = {};
  std::string precision = {};
  double rel = -1.0;  // < 0: the outputs' own
  std::function<std::string()> check = {};
  // Every row: comparisons of its own for some outputs (Output::check_with); the row's work
  // where it is not the case's (variants that count their items differently).
  std::vector<OutputCheck> checks = {};
  std::optional<Work> work = {};
  // CPU and host-timed rows: runs on OpenMP's threads (named threads:N, held to the limits of
  // all threads).
  bool threaded = false;
  // GPU rows: the block sizes, the timed regions, the launch statistics
  // (kernel_stats(kernel, l.block(), grid)), a capability the row needs.
  Blocks blocks = {};
  Modes modes = Modes::kernel_and_e2e;
  std::function<KernelStats(const Launch&)> stats = {};
  Needs needs = Needs::none;
  // Device work that belongs to the inputs' upload (their conversion to the form the row reads,
  // bf16 copies say): run after every upload, so inside the timed region in e2e mode and
  // outside it in kernel mode (where the check's upload leaves the inputs on the device).
  std::function<void(Launch&)> upload = {};
  // GPU rows: run once each time the row starts, after the case's device buffers exist and
  // before the row's check, outside every timed region (constant memory a kernel reads, a
  // baseline the row's counters compare with).
  std::function<void(Launch&)> setup = {};
  // The launch waits for the GPU itself (a library call returning a value to the host): timed
  // with the launch latency included, as a caller sees it.
  bool waits_for_gpu = false;
  // The launch writes the outputs' host() (a value returned to the host): nothing downloaded.
  bool writes_host = false;
  // Host-timed and sampled rows: their side (gpu rows skip where there is no GPU, or fewer
  // than `gpus`); in_step: taken by every MPI rank together (other rows run on rank 0 alone).
  // gpus = 0: the row sees to the GPU itself (in-step rows whose ranks must agree first).
  // In-step samples are the slowest rank's, each from a barrier, and every rank stops after
  // the same sample. gpu_events: a sampled GPU row whose samples are CUDA events, registered
  // as a GPU row (the GPU's clock and telemetry), not as host-timed.
  Side side = Side::cpu;
  int gpus = 1;
  bool in_step = false;
  bool gpu_events = false;
  // Sampled rows: run once before the row's samples (after its check) and once after the last,
  // also when it or a sample threw (start and stop what watches the samples, a thread polling a
  // counter say; record counters over all of them). Samples outside them are the check's.
  std::function<void(Row&)> before_samples = {};
  std::function<void(Row&)> after_samples = {};
};

// ---- A case: the rows of one point of the workload's axes, sharing their buffers.
class Case {
 public:
  explicit Case(detail::CaseState& s) : s_(&s) {}

  template <class T>
  Input<T> input(std::string name, std::size_t n, Uniform dist = {}) {
    return Input<T>(add<T>(kInput, std::move(name), n, dist, {}, {}));
  }
  // An input filled by `fill(T* data, std::size_t n)` (a pattern the workload needs).
  template <class T, class Fill>
  Input<T> input_from(std::string name, std::size_t n, Fill fill) {
    return Input<T>(add<T>(kInput, std::move(name), n, {}, {}, [fill](void* p, std::size_t m) {
      fill(static_cast<T*>(p), m);
    }));
  }
  // An inout whose initial values `fill(T* data, std::size_t n)` writes.
  template <class T, class Fill>
  Output<T> inout_from(std::string name, std::size_t n, Fill fill, Tolerance tol = {}) {
    return Output<T>(add<T>(kInOut, std::move(name), n, {}, tol, [fill](void* p, std::size_t m) {
      fill(static_cast<T*>(p), m);
    }));
  }
  template <class T>
  Output<T> output(std::string name, std::size_t n, Tolerance tol = {}) {
    return Output<T>(add<T>(kOutput, std::move(name), n, {}, tol, {}));
  }
  template <class T>
  Output<T> inout(std::string name, std::size_t n, Uniform dist, Tolerance tol = {}) {
    return Output<T>(add<T>(kInOut, std::move(name), n, dist, tol, {}));
  }
  template <class T>
  Scratch<T> scratch(std::string name, std::size_t n) {
    return Scratch<T>(add<T>(kScratch, std::move(name), n, {}, {}, {}));
  }
  template <class T, class Make>
  Shared<T> shared(Make make) {
    return Shared<T>(detail::add_object(s_, [make]() -> std::shared_ptr<void> { return std::shared_ptr<T>(make()); }));
  }

  // The serial implementation, run once per case into ref() of every output, then checked:
  // an element not finite or never written is the reference's error, and no row is blamed.
  void reference(std::function<void()> run);
  void work(const Work& w);
  // Memory the rows take beyond the named buffers (a library's workspace), for the estimate.
  void extra_memory(double host_bytes, double device_bytes);

  void cpu(std::string impl, std::function<void()> run, Options o = {});
  void cpu(std::string impl, std::function<void(Row&)> run, Options o = {});
  void gpu(std::string impl, std::function<void(Launch&)> launch, Options o = {});
  // `body` is one timed call; a row with outputs is checked once first, as a CPU row is.
  void host_timed(std::string impl, std::function<void(Row&)> body, Options o = {});
  // `sample` takes one sample and returns its seconds (its own events, its own pairs).
  void sampled(std::string impl, std::function<double(Row&)> sample, Options o = {});

 private:
  enum Role { kInput, kOutput, kInOut, kScratch };
  template <class T>
  std::shared_ptr<detail::Buffer> add(Role role, std::string name, std::size_t n, Uniform dist,
                                      Tolerance tol, std::function<void(void*, std::size_t)> fill) {
    static_assert(std::is_arithmetic_v<T>, "buffers hold arithmetic types");
    return detail::add_buffer(*s_, role, std::move(name), n, detail::element_ops<T>(), dist, tol,
                              std::move(fill));
  }
  detail::CaseState* s_;
};

// ---- The workload: its axes from the command line, its cases.
class Bench {
 public:
  explicit Bench(detail::BenchState& s) : s_(&s) {}
  // Axis n: --size (or --axis=n:N,...) where given, `quick` under --quick, else `defaults`.
  std::vector<std::size_t> sizes(std::vector<std::size_t> defaults, std::size_t quick) const;
  // Axis image: --image=WxH where given.
  Dims image(Dims defaults, Dims quick) const;
  // The workload's own axes, declared once here and overridden with --axis=NAME:V,...; a value
  // that is not one of `allowed` (when given) is an error naming the axis.
  std::vector<long long> int_axis(const std::string& name, std::vector<long long> defaults,
                                  std::vector<long long> allowed = {}) const;
  std::vector<std::string> name_axis(const std::string& name, std::vector<std::string> values) const;
  bool quick() const;
  bool full() const;  // --full: rows left out of the default run to keep it within minutes
  bool size_given() const;  // --size given: rows left out of the default run for their time run
  bool image_given() const;  // --image given
  bool blocks_given() const;  // --block given: rows swept only in --full join its sweep
  int omp_threads() const;
  int gpus() const;  // GPUs this process sees (0 without one, or in a build without CUDA)
  // This process's rank in the MPI job and the job's ranks (0 and 1 without mpirun).
  int rank() const;
  int ranks() const;
  template <class T, class Make>
  Shared<T> shared(Make make) const {  // see Shared
    return Shared<T>(detail::add_object(nullptr, [make]() -> std::shared_ptr<void> { return std::shared_ptr<T>(make()); }));
  }
  // The 1D and 2D block sweeps in force (--block, --block2d, --sweep=all).
  std::vector<int> block_sweep() const;
  std::vector<Block2> block_sweep_2d() const;

  // Opens the rows of one point: its axes (in name order) and its inputs' seed. The previous
  // case's rows are registered now, in the order: CPU and host-timed rows as declared, then for
  // each mode, each block size, the GPU rows as declared, then those that pick their own launch.
  Case& add_case(std::vector<Axis> axes, std::uint64_t seed = 0x5eed);

 private:
  detail::BenchState* s_;
};

namespace detail {
bool register_bench(const char* name, const char* summary, void (*fn)(Bench&));
// The program's project (twinbench_add_benchmark writes the call): the results' subject.
bool set_project(const char* name, const char* version, const char* revision);
}

}  // namespace twinbench

#define TWINBENCH_CONCAT_INNER(a, b) a##b
#define TWINBENCH_CONCAT(a, b) TWINBENCH_CONCAT_INNER(a, b)
// Registers a workload: `fn(twinbench::Bench&)` declares its rows when the run selects it.
#define TWINBENCH_BENCH(name, summary, fn)                                             \
  [[maybe_unused]] static const bool TWINBENCH_CONCAT(twinbench_bench_, __LINE__) = \
      ::twinbench::detail::register_bench(name, summary, fn)
