#include "common/cpu_isa.hpp"

#include <algorithm>
#include <atomic>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

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

#if defined(__aarch64__)
constexpr const char* kBaselineName = "neon";
constexpr const char* kBaselineArch = "armv8-a";
#else
constexpr const char* kBaselineName = "baseline";
constexpr const char* kBaselineArch = "x86-64";
#endif

const char* name(Level level) {
  switch (level) {
    case Level::avx512: return "avx512";
    case Level::avx2: return "avx2";
    default: return kBaselineName;
  }
}

const char* arch(Level level) {
  switch (level) {
    case Level::avx512: return "x86-64-v4";
    case Level::avx2: return "x86-64-v3";
    default: return kBaselineArch;
  }
}

std::optional<Level> parse(std::string_view text) {
  if (text == "baseline") return Level::baseline;
  for (Level l : {Level::baseline, Level::avx2, Level::avx512})
    if (text == name(l) || text == arch(l)) return l;
  return std::nullopt;
}

std::vector<Level> runnable_levels() {
  std::vector<Level> out;
  for (int l = 0; l <= static_cast<int>(host_level()); ++l) out.push_back(static_cast<Level>(l));
  return out;
}

namespace {
#if defined(__aarch64__) && defined(__linux__)
// The kernel's HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h), spelled out so the build does not
// depend on how new the installed headers are.
struct ArmHwcap {
  const char* name;
  int auxv;  // AT_HWCAP or AT_HWCAP2
  unsigned long bit;
};
constexpr ArmHwcap kArmHwcaps[] = {
    {"sve", AT_HWCAP, 1UL << 22},     {"asimddp", AT_HWCAP, 1UL << 20},
    {"asimdhp", AT_HWCAP, 1UL << 10}, {"sve2", AT_HWCAP2, 1UL << 1},
    {"i8mm", AT_HWCAP2, 1UL << 13},   {"bf16", AT_HWCAP2, 1UL << 14},
    {"sme", AT_HWCAP2, 1UL << 23},
};
bool arm_hwcap(std::string_view feature) {
  for (const ArmHwcap& h : kArmHwcaps)
    if (feature == h.name) return (getauxval(h.auxv) & h.bit) != 0;
  return false;
}
// PR_SVE_GET_VL: the vector length in bytes in the low 16 bits (negative without SVE).
int sve_vector_bits() {
  constexpr int kPrSveGetVl = 51;
  constexpr int kPrSveVlLenMask = 0xffff;
  const int vl = prctl(kPrSveGetVl, 0, 0, 0, 0);
  return vl < 0 ? 0 : 8 * (vl & kPrSveVlLenMask);
}
#endif
}  // namespace

ArmVectors arm_vectors() {
  ArmVectors v;
#if defined(__aarch64__) && defined(__linux__)
  v.sve = arm_hwcap("sve");
  v.sve2 = arm_hwcap("sve2");
  v.sve_bits = v.sve ? sve_vector_bits() : 0;
#endif
  return v;
}

std::string describe_arm_vectors(const ArmVectors& v) {
  if (!v.sve) return "neon";
  std::string out = v.sve2 ? "sve2" : "sve";
  if (v.sve_bits > 0) out += " vl=" + std::to_string(v.sve_bits);
  return out;
}

std::string dispatch_description() {
#if defined(__aarch64__)
  return "one version, armv8-a with NEON (no SVE version is built); vector math: scalar libm "
         "calls (glibc before 2.38 has no aarch64 libmvec)";
#else
  return std::string("GCC function multiversioning (target x86-64-v4 with 512-bit vectors, "
                     "x86-64-v3, x86-64), chosen at run time") +
         (limit() ? std::string(", limited by --cpu-isa=") + name(*limit()) : std::string()) +
         "; vector math: glibc libmvec";
#endif
}

std::string vector_extension() {
#if defined(__aarch64__)
  return describe_arm_vectors(arm_vectors());
#else
  return name(host_level());
#endif
}

bool has_feature(const char* gcc_feature_name) {
#if defined(__aarch64__) && defined(__linux__)
  return arm_hwcap(gcc_feature_name);
#elif defined(__x86_64__) && defined(__GNUC__)
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
#if defined(__aarch64__)
  out = vector_extension();
  for (const char* f : {"asimddp", "asimdhp", "bf16", "i8mm", "sme"}) {
#else
  for (const char* f : {"avx512fp16", "avx512bf16", "avx512vnni", "avxvnni", "amx-tile", "amx-bf16",
                        "amx-int8"}) {
#endif
    if (!has_feature(f)) continue;
    if (!out.empty()) out += ' ';
    out += f;
  }
  return out.empty() ? "none" : out;
}

}  // namespace tb::cpu_isa
