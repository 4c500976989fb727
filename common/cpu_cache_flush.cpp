#include "common/cpu_cache_flush.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "common/harness.hpp"
#include "common/host_array.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::uint64_t[], FreeDeleter>;

Buffer g_buffer;
std::size_t g_words = 0;
double g_last_pass_s = 0.0;
FlushMethod g_method = FlushMethod::chunks_twice;
std::string g_check;                // what the startup check measured
volatile std::uint64_t g_sink = 0;  // keeps the reads from being optimised away

constexpr std::size_t kLineWords = 64 / sizeof(std::uint64_t);
// chunks_twice reads the buffer in chunks of this size, each twice: small enough that the second
// read of a chunk hits in the L3, so its lines are promoted as a reused line is.
constexpr std::size_t kChunkWords = (std::size_t{8} << 20) / sizeof(std::uint64_t);

// One cache line out of every level, and the fence that waits for all of them: x86-64's clflush
// (SSE2: every x86-64 has it), aarch64's `dc civac` (clean and invalidate by address to the point
// of coherence; Linux lets user space run it). Both lines are 64 bytes on the machines this
// suite targets (Xeon, Neoverse): a larger line only means some calls repeat one.
#if defined(__x86_64__) && defined(__GNUC__)
#define TB_HAVE_LINE_EVICT 1
constexpr const char* kEvictName = "clflush";
inline void evict_line(const void* p) { _mm_clflush(p); }
inline void evict_fence() { _mm_mfence(); }
#elif defined(__aarch64__) && defined(__GNUC__)
#define TB_HAVE_LINE_EVICT 1
constexpr const char* kEvictName = "dc civac";
inline void evict_line(const void* p) { asm volatile("dc civac, %0" : : "r"(p) : "memory"); }
inline void evict_fence() { asm volatile("dsb ish" : : : "memory"); }
#else
#define TB_HAVE_LINE_EVICT 0
constexpr const char* kEvictName = "no line eviction on this CPU";
#endif

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

long cache_level_bytes(int name) {
  const long v = sysconf(name);
  return v > 0 ? v : 0;
}

Buffer allocate_words(std::size_t words) {
  Buffer b(static_cast<std::uint64_t*>(std::aligned_alloc(64, words * sizeof(std::uint64_t))));
  if (!b) return b;
  // First touch by the threads that read it (the same static partition), so that each pass reads
  // local pages and every page is really allocated, not the shared zero page.
  std::uint64_t* p = b.get();
  const auto n = static_cast<std::ptrdiff_t>(words);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = static_cast<std::uint64_t>(i);
  return b;
}

// One word of each line of [begin, end) (in words), all threads.
std::uint64_t read_lines(const std::uint64_t* p, std::size_t begin, std::size_t end) {
  const auto first = static_cast<std::ptrdiff_t>(begin / kLineWords);
  const auto last = static_cast<std::ptrdiff_t>(end / kLineWords);
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::ptrdiff_t l = first; l < last; ++l) sum += p[static_cast<std::size_t>(l) * kLineWords];
  return sum;
}

void allocate() {
  static const bool registered = [] {
    on_workload_release(release_cpu_flush_buffer);
    return true;
  }();
  (void)registered;
  g_words = cpu_flush_bytes() / sizeof(std::uint64_t) / kLineWords * kLineWords;
  g_buffer = allocate_words(g_words);
  if (!g_buffer) g_words = 0;
}

void run_flush(FlushMethod method) {
  const std::uint64_t* p = g_buffer.get();
  std::uint64_t sum = 0;
  if (method == FlushMethod::one_pass) {
    sum = read_lines(p, 0, g_words);
  } else {
    for (std::size_t c = 0; c < g_words; c += kChunkWords) {
      const std::size_t end = std::min(g_words, c + kChunkWords);
      sum += read_lines(p, c, end);
      sum += read_lines(p, c, end);
    }
  }
  g_sink = sum;
}

// Evicts [p, p + words) from every cache level line by line: the cold reference of the check.
void evict(const std::uint64_t* p, std::size_t words) {
#if TB_HAVE_LINE_EVICT
  for (std::size_t i = 0; i < words; i += kLineWords) evict_line(p + i);
  evict_fence();
#else
  (void)p;
  (void)words;
#endif
}

double timed_read(const std::uint64_t* p, std::size_t words) {
  const auto t0 = Clock::now();
  g_sink = read_lines(p, 0, words);
  return seconds_since(t0);
}

const char* method_name(FlushMethod m) {
  return m == FlushMethod::one_pass ? "one pass" : "8 MiB chunks read twice";
}

// The live HostArrays (common/host_array.hpp). Never destroyed: a HostArray held in a static may
// be freed after this file's statics are gone.
struct Registry {
  std::mutex mutex;
  std::map<const void*, std::size_t> arrays;
  std::size_t bytes = 0;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// Evicts every tracked array from every cache level, all threads, when they hold no more than
// twice the caches (larger sets push most of themselves out as they stream; the read pass then
// does the rest). clflush is in SSE2, so every x86-64 has it; on a line that is not cached it
// costs little.
void evict_tracked_arrays() {
  std::vector<std::pair<const char*, std::size_t>> ranges;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.bytes == 0 || r.bytes > 2 * cpu_cache_bytes()) return;
    for (const auto& [p, bytes] : r.arrays) ranges.emplace_back(static_cast<const char*>(p), bytes);
  }
#if TB_HAVE_LINE_EVICT
  for (const auto& [p, bytes] : ranges) {
    const auto lines = static_cast<std::ptrdiff_t>(bytes / 64);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t l = 0; l < lines; ++l) evict_line(p + 64 * l);
  }
  evict_fence();
#endif
}

}  // namespace

namespace host_arrays {
void track(const void* p, std::size_t bytes) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.arrays[p] = bytes;
  r.bytes += bytes;
}
void untrack(const void* p) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.arrays.find(p);
  if (it == r.arrays.end()) return;
  r.bytes -= it->second;
  r.arrays.erase(it);
}
std::size_t tracked_bytes() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.bytes;
}
}  // namespace host_arrays

std::size_t cpu_cache_bytes() {
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  const long l3 = cache_level_bytes(_SC_LEVEL3_CACHE_SIZE);
  const long l2 = cache_level_bytes(_SC_LEVEL2_CACHE_SIZE);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return static_cast<std::size_t>(l3) + static_cast<std::size_t>(l2) *
                                            static_cast<std::size_t>(cores > 0 ? cores : 1);
#else
  return 0;
#endif
}

std::size_t cpu_flush_bytes() {
  const std::size_t caches = cpu_cache_bytes();
  return caches > 0 ? caches + caches / 2 : std::size_t{64} << 20;
}

void flush_cpu_caches() {
  if (!g_buffer) allocate();
  if (!g_buffer) return;
  const auto t0 = Clock::now();
  run_flush(g_method);
  g_last_pass_s = seconds_since(t0);
  evict_tracked_arrays();
}

bool evict_from_caches(const void* p, std::size_t bytes) {
#if TB_HAVE_LINE_EVICT
  const char* c = static_cast<const char*>(p);
  const auto lines = static_cast<std::ptrdiff_t>((bytes + 63) / 64);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t l = 0; l < lines; ++l) evict_line(c + 64 * l);
  evict_fence();
  return true;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

FlushMethod choose_cpu_flush_method() {
  if (!g_buffer) allocate();
  if (!g_buffer) return g_method;
  // A 16 MiB probe (in the L3, over the L2s of a few cores): read warm, after each method's
  // flush, and after clflush of its lines (cold by construction). Medians of 5 of each.
  const std::size_t words = (std::size_t{16} << 20) / sizeof(std::uint64_t);
  Buffer probe = allocate_words(words);
  if (!probe) return g_method;
  auto median_of = [&](auto&& before) {
    double t[5];
    for (double& s : t) {
      g_sink = read_lines(probe.get(), 0, words);  // warm it
      before();
      s = timed_read(probe.get(), words);
    }
    std::sort(t, t + 5);
    return t[2];
  };
  const double warm = median_of([] {});
  const double cold = median_of([&] { evict(probe.get(), words); });
  const double one = median_of([] { run_flush(FlushMethod::one_pass); });
  const double twice = median_of([] { run_flush(FlushMethod::chunks_twice); });
  // The method that leaves the probe the colder (its read the slower), the chunked one on a tie
  // within 5%: it does not rely on the replacement policy treating a stream as new data.
  g_method = one > twice * 1.05 ? FlushMethod::one_pass : FlushMethod::chunks_twice;
  char text[320];
  std::snprintf(text, sizeof text,
                "16 MiB read: %.0f us warm, %.0f us after %s of its lines (cold), %.0f us "
                "after one pass, %.0f us after 8 MiB chunks read twice: uses %s",
                warm * 1e6, cold * 1e6, kEvictName, one * 1e6, twice * 1e6, method_name(g_method));
  g_check = text;
  return g_method;
}

void release_cpu_flush_buffer() {
  g_buffer.reset();
  g_words = 0;
}

std::string cpu_cache_flush_description() {
  char text[240];
  std::snprintf(text, sizeof text,
                "before each CPU sample of 1 us or more: reads %.0f MiB (1.5x L3 + L2s of "
                "%.0f MiB) with all threads, %s",
                static_cast<double>(cpu_flush_bytes()) / (1 << 20),
                static_cast<double>(cpu_cache_bytes()) / (1 << 20), method_name(g_method));
  std::string out = text;
  if (g_last_pass_s > 0) {
    std::snprintf(text, sizeof text, "; last pass %.1f ms", g_last_pass_s * 1e3);
    out += text;
  }
  if (!g_check.empty()) out += "; check: " + g_check;
  out += std::string("; then every live HostArray (the rows' own data) is evicted line by line "
                     "with ") +
         kEvictName + " when they hold at most twice the caches";
  return out;
}

}  // namespace tb
