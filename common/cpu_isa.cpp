#include "common/cpu_isa.hpp"

#include <algorithm>
#include <atomic>

namespace tb::cpu_isa {
namespace {

// -1: no limit. Atomic: OpenMP threads read the level while the main thread may set it in tests.
std::atomic<int> g_limit{-1};

Level detect() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return Level::avx512;
  if (__builtin_cpu_supports("x86-64-v3")) return Level::avx2;
#endif
  return Level::baseline;
}

}  // namespace

Level host_level() {
  static const Level level = detect();
  return level;
}

Level active_level() {
  const int lim = g_limit.load(std::memory_order_relaxed);
  const Level host = host_level();
  if (lim < 0) return host;
  return static_cast<Level>(std::min(lim, static_cast<int>(host)));
}

void set_limit(Level limit) { g_limit.store(static_cast<int>(limit)); }
void clear_limit() { g_limit.store(-1); }
std::optional<Level> limit() {
  const int lim = g_limit.load();
  if (lim < 0) return std::nullopt;
  return static_cast<Level>(lim);
}

const char* name(Level level) {
  switch (level) {
    case Level::avx512: return "avx512";
    case Level::avx2: return "avx2";
    default: return "baseline";
  }
}

const char* arch(Level level) {
  switch (level) {
    case Level::avx512: return "x86-64-v4";
    case Level::avx2: return "x86-64-v3";
    default: return "x86-64";
  }
}

std::optional<Level> parse(std::string_view text) {
  for (Level l : {Level::baseline, Level::avx2, Level::avx512})
    if (text == name(l) || text == arch(l)) return l;
  return std::nullopt;
}

std::vector<Level> runnable_levels() {
  std::vector<Level> out;
  for (int l = 0; l <= static_cast<int>(host_level()); ++l) out.push_back(static_cast<Level>(l));
  return out;
}

bool has_feature(const char* gcc_feature_name) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  // __builtin_cpu_supports needs a literal; the features asked about are few.
  const std::string_view f(gcc_feature_name);
  if (f == "avx512fp16") return __builtin_cpu_supports("avx512fp16");
  if (f == "avx512bf16") return __builtin_cpu_supports("avx512bf16");
  if (f == "avx512vnni") return __builtin_cpu_supports("avx512vnni");
  if (f == "avxvnni") return __builtin_cpu_supports("avxvnni");
  if (f == "amx-bf16") return __builtin_cpu_supports("amx-bf16");
  if (f == "amx-tile") return __builtin_cpu_supports("amx-tile");
  if (f == "amx-int8") return __builtin_cpu_supports("amx-int8");
  if (f == "f16c") return __builtin_cpu_supports("f16c");
#else
  (void)gcc_feature_name;
#endif
  return false;
}

std::string extra_features() {
  std::string out;
  for (const char* f : {"avx512fp16", "avx512bf16", "avx512vnni", "avxvnni", "amx-tile", "amx-bf16",
                        "amx-int8"}) {
    if (!has_feature(f)) continue;
    if (!out.empty()) out += ' ';
    out += f;
  }
  return out.empty() ? "none" : out;
}

}  // namespace tb::cpu_isa
