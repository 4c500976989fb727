#include "common/progress.hpp"

#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#if TWINBENCH_HAVE_CUDA
#include "common/cuda_check.hpp"
#endif

namespace tb::progress {

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::none:
      return "none";
    case Strategy::per_thread:
      return "per_thread";
    case Strategy::per_warp:
      return "per_warp";
    case Strategy::per_block:
      return "per_block";
    case Strategy::strided:
      return "strided";
    case Strategy::live_block:
      return "live_block";
    case Strategy::live_warp:
      return "live_warp";
  }
  return "?";
}

const char* counter_name(CounterKind k) { return k == CounterKind::mapped ? "mapped" : "device"; }

bool host_native_atomics() {
#if TWINBENCH_HAVE_CUDA
  static const bool native = [] {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrHostNativeAtomicSupported, 0) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return v != 0;
  }();
  return native;
#else
  return false;
#endif
}

std::uint64_t sum_slots(const volatile std::uint64_t* slots, std::size_t count,
                        std::size_t stride_words) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum += slots[i * stride_words];
  return sum;
}

double live_period_ns(std::size_t writers) {
  return std::max(20'000.0, 100.0 * static_cast<double>(writers));
}

double eta_seconds(std::uint64_t done, std::uint64_t total, double rate_per_s) {
  if (total == 0 || rate_per_s <= 0.0) return -1.0;
  if (done >= total) return 0.0;
  return static_cast<double>(total - done) / rate_per_s;
}

std::string format_eta(double s) {
  if (s < 0) return "--:--";
  const long long sec = std::llround(s);
  char buf[32];
  if (sec >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", sec / 3600, sec / 60 % 60, sec % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", sec / 60, sec % 60);
  return buf;
}

namespace {

double fraction(std::uint64_t done, std::uint64_t total) {
  if (total == 0) return 0.0;
  return std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
}

}  // namespace

std::string format_bar(std::uint64_t done, std::uint64_t total, double rate_per_s, int width) {
  const double f = fraction(done, total);
  const int filled = static_cast<int>(f * width);
  std::string bar;
  bar.reserve(static_cast<std::size_t>(width) + 48);
  bar.push_back('[');
  bar.append(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), '-');
  bar.push_back(']');
  char buf[96];
  if (total > 0)
    std::snprintf(buf, sizeof buf, " %5.1f%%  %.3g/s  ETA %s", 100.0 * f, rate_per_s,
                  format_eta(eta_seconds(done, total, rate_per_s)).c_str());
  else
    std::snprintf(buf, sizeof buf, " %llu  %.3g/s", static_cast<unsigned long long>(done),
                  rate_per_s);
  bar += buf;
  return bar;
}

std::string format_line(std::uint64_t done, std::uint64_t total, double rate_per_s) {
  char buf[160];
  const double eta = eta_seconds(done, total, rate_per_s);
  if (total > 0 && eta >= 0)
    std::snprintf(buf, sizeof buf, "progress: %.1f%% (%llu/%llu) %.3g/s ETA %.1f s",
                  100.0 * fraction(done, total), static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(total), rate_per_s, eta);
  else if (total > 0)
    std::snprintf(buf, sizeof buf, "progress: %.1f%% (%llu/%llu) %.3g/s",
                  100.0 * fraction(done, total), static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(total), rate_per_s);
  else
    std::snprintf(buf, sizeof buf, "progress: %llu %.3g/s", static_cast<unsigned long long>(done),
                  rate_per_s);
  return buf;
}

Poller::Poller(Read read, Options opts) : read_(std::move(read)), opts_(std::move(opts)) {
  display_ = opts_.display;
  if (display_ == Display::automatic)
    display_ = (opts_.out && isatty(fileno(opts_.out))) ? Display::bar : Display::lines;
  if (!opts_.out) display_ = Display::quiet;
  start_ = last_line_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { run(); });
}

Poller::~Poller() { stop(); }

void Poller::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  std::lock_guard lock(mutex_);
  if (have_value_ && !final_drawn_) draw(stats_.max_seen, true);
  final_drawn_ = true;
}

PollStats Poller::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Poller::reset_counts() {
  std::lock_guard lock(mutex_);
  const std::uint64_t last = stats_.last;
  const bool had = have_value_;
  stats_ = PollStats{};
  stats_.last = stats_.max_seen = last;
  // The value seen last is the window's starting point, not a value seen inside it.
  if (had) stats_.distinct = 0;
}

// Linux lets a sleep of this thread end up to its timer slack (50 us by default) late, which
// nearly doubled the live rows' 50 us interval: a C++ test polling one 23 ms sgemm kernel on the
// H200 made 250 reads where 460 were asked for. One nanosecond of slack costs a thread that
// sleeps between reads nothing measurable.
static void tighten_timer_slack() {
#if defined(__linux__)
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

void Poller::run() {
  tighten_timer_slack();
  while (!stop_.load(std::memory_order_relaxed)) {
    std::uint64_t v = 0;
    bool finished = false;
    try {
      finished = opts_.finished && opts_.finished();
      v = read_();
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      stats_.error = e.what();
      return;
    }
    {
      std::lock_guard lock(mutex_);
      ++stats_.polls;
      if (!have_value_) {
        have_value_ = true;
        first_value_ = v;
        stats_.distinct = 1;
      } else if (v != stats_.last) {
        ++stats_.changes;
        ++stats_.distinct;
      }
      stats_.last = v;
      stats_.max_seen = std::max(stats_.max_seen, v);
      draw(stats_.max_seen, finished);
      if (finished) {
        stats_.complete = true;
        final_drawn_ = true;
        return;
      }
    }
    std::this_thread::sleep_for(opts_.interval);
  }
}

// Called with mutex_ held. The displayed value is the largest seen, so a counter whose
// updates land out of order never makes the bar step back.
void Poller::draw(std::uint64_t value, bool final) {
  if (display_ == Display::quiet) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate =
      elapsed > 0 ? static_cast<double>(value - std::min(value, first_value_)) / elapsed : 0.0;
  const std::string label = opts_.label.empty() ? "" : opts_.label + " ";
  if (display_ == Display::bar) {
    std::string text = "\r" + label + format_bar(value, opts_.total, rate);
    const std::size_t width = text.size();
    if (width < drawn_width_) text += std::string(drawn_width_ - width, ' ');  // erase leftovers
    drawn_width_ = width;
    if (final) text += "\n";
    std::fputs(text.c_str(), opts_.out);
    std::fflush(opts_.out);
    return;
  }
  const double since = std::chrono::duration<double>(now - last_line_).count();
  if (!final && since < opts_.line_period_s) return;
  last_line_ = now;
  std::fprintf(opts_.out, "%s%s\n", label.c_str(), format_line(value, opts_.total, rate).c_str());
  std::fflush(opts_.out);
}

#if TWINBENCH_HAVE_CUDA
Counter::Counter(CounterKind kind) : kind_(kind) {
  if (kind_ == CounterKind::mapped) {
    CUDA_CHECK(
        cudaHostAlloc(reinterpret_cast<void**>(&host_), sizeof(*host_), cudaHostAllocMapped));
    *host_ = 0;
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
  } else {
    CUDA_CHECK(
        cudaHostAlloc(reinterpret_cast<void**>(&host_), sizeof(*host_), cudaHostAllocDefault));
    *host_ = 0;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device_), sizeof(*device_)));
    CUDA_CHECK(cudaMemset(device_, 0, sizeof(*device_)));
    CUDA_CHECK(cudaDeviceSynchronize());  // kernels run on non-blocking streams
    CUDA_CHECK(cudaStreamCreateWithFlags(&read_stream_, cudaStreamNonBlocking));
  }
}

Counter::~Counter() {
  if (read_stream_) CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(read_stream_));
  if (kind_ == CounterKind::device && device_) CUDA_CHECK_NOEXCEPT(cudaFree(device_));
  if (host_) CUDA_CHECK_NOEXCEPT(cudaFreeHost(host_));
}

std::uint64_t Counter::read() const {
  if (kind_ == CounterKind::mapped) return *static_cast<volatile unsigned long long*>(host_);
  std::lock_guard lock(mutex_);
  CUDA_CHECK(cudaMemcpyAsync(host_, device_, sizeof(*host_), cudaMemcpyDeviceToHost, read_stream_));
  CUDA_CHECK(cudaStreamSynchronize(read_stream_));
  return *static_cast<volatile unsigned long long*>(host_);
}

std::uint64_t Counter::read_legacy() const {
  unsigned long long v = 0;
  CUDA_CHECK(cudaMemcpy(&v, device_, sizeof(v), cudaMemcpyDeviceToHost));
  return v;
}

SlotBoard::SlotBoard(std::size_t capacity, unsigned stride_words, Placement where)
    : capacity_(capacity), stride_(stride_words), where_(where), in_use_(capacity) {
  if (capacity_ == 0 || stride_ == 0)
    throw std::invalid_argument("SlotBoard: capacity and stride must be positive");
  if (where_ == Placement::mapped) {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), bytes(), cudaHostAllocMapped));
    std::memset(host_, 0, bytes());
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
  } else {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), bytes(), cudaHostAllocDefault));
    std::memset(host_, 0, bytes());
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device_), bytes()));
    CUDA_CHECK(cudaMemset(device_, 0, bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());  // the kernels run on non-blocking streams
    CUDA_CHECK(cudaStreamCreateWithFlags(&read_stream_, cudaStreamNonBlocking));
  }
  int device = 0, khz = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  if (khz > 0) cycles_per_ns_ = khz * 1e-6;
}

SlotBoard::~SlotBoard() {
  if (read_stream_) CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(read_stream_));
  if (where_ == Placement::device && device_) CUDA_CHECK_NOEXCEPT(cudaFree(device_));
  if (host_) CUDA_CHECK_NOEXCEPT(cudaFreeHost(host_));
}

SlotsRef SlotBoard::ref(std::size_t writers, double period_ns, unsigned items_log2) const {
  if (writers > capacity_)
    throw std::invalid_argument("SlotBoard: " + std::to_string(writers) + " writers, " +
                                std::to_string(capacity_) + " slots");
  in_use_.store(writers, std::memory_order_relaxed);
  const double ns = period_ns > 0 ? period_ns : live_period_ns(writers);
  SlotsRef r;
  r.slots = device_;
  r.stride_words = stride_;
  r.count = static_cast<unsigned>(writers);
  r.period_cycles = static_cast<unsigned>(std::clamp(ns * cycles_per_ns_, 0.0, 2147483647.0));
  r.items_log2 = std::min(items_log2, 63u);
  return r;
}

std::uint64_t SlotBoard::read() const {
  const std::size_t used = in_use_.load(std::memory_order_relaxed);
  if (where_ == Placement::mapped) return sum_slots(host_, used, stride_);
  // The copy engine reads the slots through the L2, where the kernel's stores land: a copy taken
  // while the kernel runs sees each slot at some value it held (each slot is one aligned 64-bit
  // word), so the sum is monotone from read to read as for mapped slots.
  std::lock_guard lock(read_mutex_);
  if (used == 0) return 0;
  const std::size_t span = ((used - 1) * stride_ + 1) * sizeof(std::uint64_t);
  CUDA_CHECK(cudaMemcpyAsync(host_, device_, span, cudaMemcpyDeviceToHost, read_stream_));
  CUDA_CHECK(cudaStreamSynchronize(read_stream_));
  return sum_slots(host_, used, stride_);
}

void SlotBoard::reset(cudaStream_t stream) {
  // The host writes the slots itself (or the memset runs on `stream`): the kernels still storing
  // to them must be done first.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (where_ == Placement::mapped) {
    std::memset(host_, 0, bytes());
    return;
  }
  CUDA_CHECK(cudaMemsetAsync(device_, 0, bytes(), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

LiveProgress::LiveProgress(std::size_t writers, std::uint64_t total, Poller::Options opts,
                           unsigned stride_words, SlotPlacement where)
    : board_(std::max<std::size_t>(writers, 1), stride_words, where),
      writers_(writers),
      opts_(std::move(opts)) {
  opts_.total = total;
  CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
}

LiveProgress::~LiveProgress() {
  if (poller_) {
    if (done_) (void)cudaEventSynchronize(done_);  // the poller may be querying it
    poller_->stop();
  }
  if (done_) CUDA_CHECK_NOEXCEPT(cudaEventDestroy(done_));
}

void LiveProgress::watch(cudaStream_t stream) {
  if (poller_) throw std::logic_error("LiveProgress: watch() twice without wait()");
  CUDA_CHECK(cudaEventRecord(done_, stream));
  Poller::Options o = opts_;
  const cudaEvent_t done = done_;
  o.finished = [done] {
    const cudaError_t r = cudaEventQuery(done);
    if (r == cudaErrorNotReady) return false;
    CUDA_CHECK(r);
    return true;
  };
  poller_ = std::make_unique<Poller>([this] { return board_.read(); }, std::move(o));
}

std::uint64_t LiveProgress::wait() {
  if (poller_) {
    CUDA_CHECK(cudaEventSynchronize(done_));
    // The poller sees the event complete at its next read and draws the final count itself;
    // give it a few intervals (it may be asleep), then stop it whatever it saw.
    const auto deadline =
        std::chrono::steady_clock::now() + 4 * opts_.interval + std::chrono::milliseconds(200);
    for (PollStats st = poller_->stats();
         !st.complete && st.error.empty() && std::chrono::steady_clock::now() < deadline;
         st = poller_->stats())
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    poller_->stop();
    last_stats_ = poller_->stats();
    poller_.reset();
  }
  const std::uint64_t count = board_.read();
  return count;
}

PollStats LiveProgress::stats() const { return poller_ ? poller_->stats() : last_stats_; }

void Counter::reset(cudaStream_t stream) {
  if (kind_ == CounterKind::mapped) {
    // The host writes the word itself, so the kernels still adding to it must be done first.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    *static_cast<volatile unsigned long long*>(host_) = 0;
  } else {
    CUDA_CHECK(cudaMemsetAsync(device_, 0, sizeof(*device_), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}
#endif

#if !TWINBENCH_HAVE_CUDA
// The CUDA build's run_demo is gpu/progress_demo.cu.
int run_demo(double /*seconds*/) {
  std::fprintf(stderr,
               "twinbench: --progress-demo needs a GPU: this binary was built without CUDA\n");
  return kDemoNoGpuStatus;
}
#endif

}  // namespace tb::progress
