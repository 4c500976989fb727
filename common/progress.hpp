#pragma once
// Live progress of a running kernel, host side. The kernel adds to a 64-bit counter (device
// side: gpu/progress.cuh); a host thread polls it about every millisecond, draws a bar on a
// terminal (percent, rate, ETA, redrawn with \r) or prints plain lines every second when the
// output is not a terminal, and counts the distinct values it saw. Quiet mode only counts
// (benchmarks). Host code only; the counter owners need CUDA, the poller does not.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tb::progress {

// How a kernel counts (gpu/progress.cuh has the device side of each).
enum class Strategy {
  none,        // no counting: compiles to nothing, the baseline
  per_thread,  // one atomicAdd per thread per report (the article's)
  per_warp,    // the warp's sum, one atomicAdd by lane 0
  per_block,   // the block's warps' sums, one atomicAdd per round of warp reports (no barrier)
  strided,     // the block's sums, added every kStridedK-th report (and at the end)
  // Live: no shared counter; each writer stores its running count into its own slot of mapped
  // host memory with a plain store (gpu/progress.cuh Publisher), the host sums the slots.
  live_block,  // a slot per block, thread 0 the writer
  live_warp,   // a slot per warp, lane 0 the writer
};
inline constexpr Strategy kStrategies[] = {Strategy::none, Strategy::per_thread, Strategy::per_warp,
                                           Strategy::per_block, Strategy::strided};
inline constexpr unsigned kStridedK = 8;
const char* strategy_name(Strategy s);

// Where the counter lives: mapped pinned host memory (the host reads it directly) or device
// memory (the host copies it on a separate non-blocking stream).
enum class CounterKind { mapped, device };
inline constexpr CounterKind kCounterKinds[] = {CounterKind::mapped, CounterKind::device};
const char* counter_name(CounterKind k);

// What a kernel gets: the counter's device address and how its adds reach the host.
// A mapped word is in host memory, which the host reads while the kernel runs: a device-scope
// atomic may be performed in the GPU's L2 and reach host memory only later. Where the GPU has
// host-native atomics (cudaDevAttrHostNativeAtomicSupported: NVLink-C2C, as on GH200) the adds
// are system-scope atomics. Elsewhere, e.g. an H200 on PCIe, a system-scope atomic on host
// memory is not supported (compute-sanitizer: "Invalid __global__ system-scoped atomic", and
// the context dies); there the add is a device-scope atomic (atomic among the GPU's threads,
// all the host needs: it only reads) followed by a system-scope fence, which makes it visible
// to the host before the thread goes on.
struct CounterRef {
  unsigned long long* ptr = nullptr;
  bool system_scope = false;  // atomicAdd_system
  bool fence_system = false;  // atomicAdd + __threadfence_system
};

// Whether the GPU can do system-scope atomics on host memory (false without a GPU).
bool host_native_atomics();

// What a kernel gets for live progress (gpu/progress.cuh Publisher): `count` slots of 64 bits,
// slot i at slots + i * stride_words, each with one writer. A writer stores when period_cycles
// SM clocks have passed since its last store, or when its total crosses a multiple of
// 2^items_log2 (63: never; a power of two keeps the test a shift, no division), and at its end.
struct SlotsRef {
  unsigned long long* slots = nullptr;  // the kernel's pointer (SlotPlacement)
  unsigned stride_words = 8;            // 8: one 64-byte line a slot; 1: packed
  unsigned count = 0;
  unsigned period_cycles = 0;  // < 2^31
  unsigned items_log2 = 63;
};

// Where a SlotBoard's slots live. mapped: pinned host memory, read with plain loads (no CUDA
// call; the kernel's stores cross PCIe). device: device memory, read with a cudaMemcpyAsync on the
// board's own non-blocking stream (a copy per read; the kernel's stores stay in the GPU's L2).
// The kernel's code is the same for both: a slot pointer and a plain store.
enum class SlotPlacement { mapped, device };

// The sum of `count` slots of a slot array written by a kernel (or by a test), read with one
// volatile load each: what SlotBoard::read returns. Monotone from call to call when every slot
// only grows, whatever the interleaving with the writers.
std::uint64_t sum_slots(const volatile std::uint64_t* slots, std::size_t count,
                        std::size_t stride_words);

// How often one writer of a board of `writers` stores, in ns: at least every 20 us (a 1 ms
// kernel still shows ~50 steps), and no more than ~10 million stores a second from the whole
// board (writers * 100 ns), so that the PCIe writes stay a small fraction of what the link
// carries whatever the grid. 2,000 writers: 200 us each.
double live_period_ns(std::size_t writers);

enum class Display {
  automatic,  // bar if the output is a terminal, else lines
  bar,        // one line redrawn with \r
  lines,      // a plain line every line_period and at the end
  quiet,      // count only
};

// "[##########----------]  50.0%  1.23e+08/s  ETA 0:03"
std::string format_bar(std::uint64_t done, std::uint64_t total, double rate_per_s, int width = 30);
// "progress: 50.0% (500/1000) 1.23e+08/s ETA 3.0 s"
std::string format_line(std::uint64_t done, std::uint64_t total, double rate_per_s);
// Seconds to go at `rate_per_s`, or a negative value when unknown.
double eta_seconds(std::uint64_t done, std::uint64_t total, double rate_per_s);
// "m:ss" or "h:mm:ss" ("--:--" for a negative, unknown, time); the run's progress lines use it.
std::string format_eta(double seconds);

struct PollStats {
  std::uint64_t polls = 0;
  std::uint64_t changes = 0;   // reads that differed from the previous read
  std::uint64_t distinct = 0;  // distinct values seen (changes + the first value)
  std::uint64_t last = 0;
  std::uint64_t max_seen = 0;
  bool complete = false;  // Options::finished said so (the poller stopped by itself)
  std::string error;      // the read failed (the poller stopped polling)
};

// Polls `read` on its own thread from construction until stop() or destruction.
class Poller {
 public:
  using Read = std::function<std::uint64_t()>;
  struct Options {
    std::chrono::microseconds interval{1000};
    Display display = Display::automatic;
    std::FILE* out = stderr;
    std::uint64_t total = 0;  // 0: unknown (no percent or ETA)
    std::string label{};
    double line_period_s = 1.0;
    // Whether the work is done (e.g. an event recorded after the kernel has completed); when it
    // says so, the poller reads once more, draws the final state and stops by itself. Checked
    // before each read, so that the last read sees the final count.
    std::function<bool()> finished{};
  };
  Poller(Read read, Options opts);
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  ~Poller();
  // Joins the thread; a bar or lines display draws its final state.
  void stop();
  PollStats stats() const;
  // Forgets the counts so far (keeps polling): a benchmark's window starts here.
  void reset_counts();
  Display display() const { return display_; }

 private:
  void run();
  void draw(std::uint64_t value, bool final);

  Read read_;
  Options opts_;
  Display display_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  PollStats stats_;
  bool have_value_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_line_;
  std::uint64_t first_value_ = 0;
  std::size_t drawn_width_ = 0;
  bool final_drawn_ = false;
  std::thread thread_;
};

#if TWINBENCH_HAVE_CUDA
// The counter a kernel adds to (unsigned long long, what atomicAdd takes).
class Counter {
 public:
  explicit Counter(CounterKind kind);
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;
  ~Counter();
  CounterKind kind() const { return kind_; }
  // What the kernel gets: the device alias of the mapped word, or the device word.
  unsigned long long* device_ptr() const { return device_; }
  CounterRef ref() const {
    const bool mapped = kind_ == CounterKind::mapped;
    return {device_, mapped && host_native_atomics(), mapped && !host_native_atomics()};
  }
  // Mapped: a volatile load of the host word. Device: cudaMemcpyAsync on this counter's own
  // non-blocking stream into pinned memory, waiting on that stream only, so it returns while a
  // kernel on another non-blocking stream is still running. Thread-safe.
  std::uint64_t read() const;
  // The article's read: a cudaMemcpy on the legacy default stream into pageable memory, which
  // waits for every kernel on the legacy stream (device counter only).
  std::uint64_t read_legacy() const;
  // Sets the counter to 0 once the kernels before it on `stream` are done.
  void reset(cudaStream_t stream);

 private:
  CounterKind kind_;
  unsigned long long* host_ = nullptr;    // mapped word, or the pinned staging word
  unsigned long long* device_ = nullptr;  // kernel's pointer
  cudaStream_t read_stream_ = nullptr;
  mutable std::mutex mutex_;
};
#endif

#if TWINBENCH_HAVE_CUDA
// Slots for live progress, in mapped pinned host memory (cudaHostAlloc mapped, the default) or in
// device memory (SlotPlacement): the kernel stores into them through ref(), any host thread sums
// them with read() at any time, whatever stream the kernel runs on: mapped without a CUDA call
// (a poller costs the GPU nothing), device with one copy on the board's own stream. Nothing is
// done when nobody reads. Not thread-safe against reset().
class SlotBoard {
 public:
  using Placement = SlotPlacement;
  // `capacity` slots, `stride_words` 64-bit words apart (8: a 64-byte line each, 1: packed).
  SlotBoard(std::size_t capacity, unsigned stride_words, Placement where = Placement::mapped);
  SlotBoard(const SlotBoard&) = delete;
  SlotBoard& operator=(const SlotBoard&) = delete;
  ~SlotBoard();
  std::size_t capacity() const { return capacity_; }
  unsigned stride_words() const { return stride_; }
  // For a launch of `writers` writers (<= capacity, else std::invalid_argument): the period from
  // live_period_ns at the device's clock (period_ns overrides it when > 0), and a store at
  // least every 2^items_log2 items of a writer (63: no item rule).
  SlotsRef ref(std::size_t writers, double period_ns = 0.0, unsigned items_log2 = 63) const;
  // The sum of the first `writers` slots of the last ref() (all of them before any ref()).
  // Thread-safe (device placement: one copy at a time).
  std::uint64_t read() const;
  // Zeroes the slots once the kernels before it on `stream` are done.
  void reset(cudaStream_t stream);

 private:
  std::size_t bytes() const { return capacity_ * stride_ * sizeof(std::uint64_t); }

  std::size_t capacity_;
  unsigned stride_;
  Placement where_;
  std::uint64_t* host_ = nullptr;         // mapped: the slots; device: the pinned staging copy
  unsigned long long* device_ = nullptr;  // the kernel's pointer
  cudaStream_t read_stream_ = nullptr;    // device placement's copies
  mutable std::mutex read_mutex_;
  mutable std::atomic<std::size_t> in_use_;
  double cycles_per_ns_ = 1.0;
};

// The host side of live progress in one object, for a kernel of known total work (README,
// "Live progress in your own kernel"):
//   tb::progress::LiveProgress live(grid_blocks, total_items, {.label = "my kernel"});
//   my_kernel<<<grid_blocks, block, 0, stream>>>(..., live.ref());  // one writer per block
//   live.watch(stream);   // a bar with rate and ETA, drawn by a thread, until the kernel is done
//   ...                   // the host is free; nothing waits on the GPU
//   live.wait();          // waits for the kernel, draws the final state, returns the count
// Any stream: watch() records an event after the kernel, and the poller's only CUDA call is
// cudaEventQuery on it. Without watch() nothing reads the slots and the kernel's stores cost
// what they cost (posted writes), nothing more.
class LiveProgress {
 public:
  LiveProgress(std::size_t writers, std::uint64_t total, Poller::Options opts = {},
               unsigned stride_words = 8, SlotPlacement where = SlotPlacement::mapped);
  LiveProgress(const LiveProgress&) = delete;
  LiveProgress& operator=(const LiveProgress&) = delete;
  ~LiveProgress();
  // For the launch: the first `writers` slots (zeroed by the constructor: one LiveProgress a
  // watched launch, or board().reset(stream) between launches).
  SlotsRef ref(double period_ns = 0.0, unsigned items_log2 = 63) const {
    return board_.ref(writers_, period_ns, items_log2);
  }
  const SlotBoard& board() const { return board_; }
  SlotBoard& board() { return board_; }
  // Starts the poller; the kernel(s) to watch are those enqueued on `stream` so far.
  void watch(cudaStream_t stream);
  // Waits for the watched work, stops the poller (final draw), and returns the final count.
  std::uint64_t wait();
  std::uint64_t read() const { return board_.read(); }
  PollStats stats() const;

 private:
  SlotBoard board_;
  std::size_t writers_;
  Poller::Options opts_;
  cudaEvent_t done_ = nullptr;
  std::unique_ptr<Poller> poller_;
  PollStats last_stats_;
};
#endif

// The status `twinbench --progress-demo` exits with when there is no GPU (or no CUDA build).
inline constexpr int kDemoNoGpuStatus = 2;

// `twinbench --progress-demo[=SECONDS]`: a long GPU job with a live bar, updated from the GPU's
// slots (defined in bench/progress.cpp). Returns the exit status: 0 done and the count exact,
// 1 a failure, kDemoNoGpuStatus without a GPU (with a message saying so).
int run_demo(double seconds);

}  // namespace tb::progress
