#pragma once
// Live progress of a running kernel, host side. The kernel adds to a 64-bit counter (device
// side: gpu/progress.cuh); a host thread polls it about every millisecond, draws a bar on a
// terminal (percent, rate, ETA, redrawn with \r) or prints plain lines every second when the
// output is not a terminal, and counts the distinct values it saw. Quiet mode only counts
// (benchmarks). Host code only; the counter owners need CUDA, the poller does not.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
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
  std::string error;  // the read failed (the poller stopped polling)
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

// `twinbench --progress-demo[=SECONDS]`: a long Poisson job with a live bar (defined in
// bench/progress.cpp). Returns the exit status (0 also when there is no GPU).
int run_demo(double seconds);

}  // namespace tb::progress
