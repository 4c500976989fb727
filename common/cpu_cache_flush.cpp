#include "common/cpu_cache_flush.hpp"

#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "common/harness.hpp"

namespace tb {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
std::unique_ptr<std::uint64_t[], FreeDeleter> g_buffer;
std::size_t g_words = 0;
double g_last_pass_s = 0.0;
volatile std::uint64_t g_sink = 0;  // keeps the reads from being optimised away

constexpr std::size_t kLineWords = 64 / sizeof(std::uint64_t);

long cache_level_bytes(int name) {
  const long v = sysconf(name);
  return v > 0 ? v : 0;
}

void allocate() {
  static const bool registered = [] {
    on_workload_release(release_cpu_flush_buffer);
    return true;
  }();
  (void)registered;
  const std::size_t bytes = cpu_flush_bytes();
  g_words = bytes / sizeof(std::uint64_t) / kLineWords * kLineWords;
  g_buffer.reset(static_cast<std::uint64_t*>(std::aligned_alloc(64, g_words * sizeof(std::uint64_t))));
  if (!g_buffer) {
    g_words = 0;
    return;
  }
  // First touch by the threads that read it (the same static partition), so that each pass reads
  // local pages and every page is really allocated, not the shared zero page.
  std::uint64_t* p = g_buffer.get();
  const auto n = static_cast<std::ptrdiff_t>(g_words);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = static_cast<std::uint64_t>(i);
}

}  // namespace

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
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t* p = g_buffer.get();
  const auto lines = static_cast<std::ptrdiff_t>(g_words / kLineWords);
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::ptrdiff_t l = 0; l < lines; ++l) sum += p[static_cast<std::size_t>(l) * kLineWords];
  g_sink = sum;
  g_last_pass_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void release_cpu_flush_buffer() {
  g_buffer.reset();
  g_words = 0;
}

std::string cpu_cache_flush_description() {
  char text[200];
  std::snprintf(text, sizeof text,
                "before each CPU sample of 100 us or more: reads %.0f MiB (1.5x L3 + L2s of "
                "%.0f MiB) with all threads",
                static_cast<double>(cpu_flush_bytes()) / (1 << 20),
                static_cast<double>(cpu_cache_bytes()) / (1 << 20));
  std::string out = text;
  if (g_last_pass_s > 0) {
    std::snprintf(text, sizeof text, "; last pass %.1f ms", g_last_pass_s * 1e3);
    out += text;
  }
  return out;
}

}  // namespace tb
