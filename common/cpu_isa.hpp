#pragma once
// One binary, the host's best vector ISA: the CPU kernels are compiled three times (GCC function
// multiversioning through the `target` attribute: x86-64-v4 = AVX-512, x86-64-v3 = AVX2 + FMA,
// and the x86-64 baseline) and the version run is chosen at run time from what this CPU and its
// OS support, lowered by `--cpu-isa` (to measure what each level buys, and to test every level
// on one machine). Vector math (expf, logf, erff, ... inside `#pragma omp simd` loops) comes from
// glibc's libmvec, which has an entry point per level (`_ZGVeN16v_expf` for AVX-512, ...):
// cpu/vector_math.hpp says why libmvec rather than SLEEF or Highway.
//
// Why explicit dispatch rather than `target_clones`: a target_clones resolver picks once, from
// the CPU alone, so a lower level could not be forced for a test or an A/B row. Why the parallel
// loop stays outside the versioned body: GCC outlines an `omp parallel` region before inlining,
// so a region inside an always_inline body would be compiled once, at the baseline.
//
//   [[gnu::always_inline]] inline void price_range(const float* s, ..., std::size_t b,
//                                                   std::size_t e) {
//   #pragma omp simd
//     for (std::size_t i = b; i < e; ++i) ...
//   }
//   TB_ISA_CLONES(price_range_isa, price_range)   // price_range_isa(...) runs the best level
//
// aarch64: one version, the armv8-a baseline, whose Advanced SIMD (NEON, 128-bit) every
// aarch64 CPU has; GCC vectorises the same loops for it. The level is named "neon" there, and
// vector_extension() names what the host has beyond it (sve or sve2 with its vector length,
// from getauxval(AT_HWCAP/AT_HWCAP2) and prctl(PR_SVE_GET_VL)), recorded in the run context.
// The kernels do not use SVE: no Arm machine is at hand to measure an SVE version against the
// NEON one (the aarch64 build is tested under qemu-user, which checks results, not speed).
//
// This header has no Google Benchmark: cpu/ includes it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::cpu_isa {

enum class Level : int { baseline = 0, avx2 = 1, avx512 = 2 };

// The best level this CPU and its OS support (libgcc's __builtin_cpu_supports, which checks the
// OS's XSAVE state too).
Level host_level();
// The level the CPU kernels run: host_level() lowered by set_limit().
Level active_level();
// --cpu-isa: run no higher than `limit` (a limit above the host's is the host's).
void set_limit(Level limit);
void clear_limit();
std::optional<Level> limit();
// Puts back, when it goes out of scope, the limit in force when it was made: for code (the tests)
// that walks the levels with set_limit.
class RestoreLimit {
 public:
  RestoreLimit() : saved_(limit()) {}
  ~RestoreLimit() { saved_ ? set_limit(*saved_) : clear_limit(); }
  RestoreLimit(const RestoreLimit&) = delete;
  RestoreLimit& operator=(const RestoreLimit&) = delete;

 private:
  std::optional<Level> saved_;
};

// "baseline", "avx2", "avx512"; and the x86-64 micro-architecture level each stands for. On
// aarch64 the baseline is "neon" (armv8-a), and parse() takes "baseline" for it too.
const char* name(Level level);
const char* arch(Level level);
std::optional<Level> parse(std::string_view text);
// Every level this host can run, lowest first (the tests run each kernel at each).
std::vector<Level> runnable_levels();

// CPU features beyond the levels that some kernels use when present (AVX512_FP16, AVX512_BF16,
// AVX512_VNNI, AMX): as text for the run context, e.g. "avx512_fp16 avx512_bf16 amx_bf16".
// On aarch64: the vector extension first, then "asimddp", "asimdhp", "bf16", "i8mm", "sme" as
// the kernel's HWCAP names them, e.g. "sve2 vl=128 asimddp asimdhp bf16 i8mm".
std::string extra_features();
bool has_feature(const char* gcc_feature_name);

// How the kernels' version is chosen and where vector math comes from, for the run context's
// cpu_dispatch (with the --cpu-isa limit when one is set).
std::string dispatch_description();

// The host's widest vector extension: on x86-64 the name of host_level(); on aarch64 "neon",
// "sve vl=N" or "sve2 vl=N" (N: the SVE vector length in bits this process runs with).
std::string vector_extension();

// aarch64's vector facts from the kernel (all false / 0 elsewhere).
struct ArmVectors {
  bool sve = false;
  bool sve2 = false;
  int sve_bits = 0;  // the process's SVE vector length; 0 without SVE
};
ArmVectors arm_vectors();
// The text vector_extension() gives for `v` (pure: the tests feed it HWCAP-like facts).
std::string describe_arm_vectors(const ArmVectors& v);

// Which level a TB_ISA_CLONES_TAGGED body was compiled for.
namespace tag {
struct Baseline {};
struct Avx2 {};
struct Avx512 {};
}  // namespace tag

}  // namespace tb::cpu_isa

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define TB_ISA_TARGET_AVX512 [[gnu::target("arch=x86-64-v4,prefer-vector-width=512")]]
#define TB_ISA_TARGET_AVX2 [[gnu::target("arch=x86-64-v3")]]
#define TB_ISA_COMMA ,
// Defines name_avx512, name_avx2 and name_baseline, each `body` compiled for its level (called
// with the level's tag first when `tag_avx512` etc. are given, with nothing extra when empty), and
// name(...), which runs the one of the active level.
#define TB_ISA_CLONES_WITH(name, body, tag_avx512, tag_avx2, tag_baseline)                 \
  template <class... A>                                                                   \
  TB_ISA_TARGET_AVX512 auto name##_avx512(A... a) {                                       \
    return body(tag_avx512 a...);                                                         \
  }                                                                                       \
  template <class... A>                                                                   \
  TB_ISA_TARGET_AVX2 auto name##_avx2(A... a) {                                           \
    return body(tag_avx2 a...);                                                           \
  }                                                                                       \
  template <class... A>                                                                   \
  auto name##_baseline(A... a) {                                                          \
    return body(tag_baseline a...);                                                       \
  }                                                                                       \
  template <class... A>                                                                   \
  auto name(A... a) {                                                                     \
    switch (::tb::cpu_isa::active_level()) {                                              \
      case ::tb::cpu_isa::Level::avx512:                                                  \
        return name##_avx512(a...);                                                       \
      case ::tb::cpu_isa::Level::avx2:                                                    \
        return name##_avx2(a...);                                                         \
      default:                                                                            \
        return name##_baseline(a...);                                                     \
    }                                                                                     \
  }
// `body` must be always_inline so that its loops are compiled inside each version.
#define TB_ISA_CLONES(name, body) TB_ISA_CLONES_WITH(name, body, , , )
// As TB_ISA_CLONES, but `body` gets the level's tag (tb::cpu_isa::tag::...) as its first argument:
// for bodies that call code written per level with intrinsics (e.g. cpu/nt_store.hpp's streamed
// stores), which a body compiled three times from one source cannot name otherwise.
#define TB_ISA_CLONES_TAGGED(name, body)                                                  \
  TB_ISA_CLONES_WITH(name, body, ::tb::cpu_isa::tag::Avx512{} TB_ISA_COMMA,               \
                     ::tb::cpu_isa::tag::Avx2{} TB_ISA_COMMA,                             \
                     ::tb::cpu_isa::tag::Baseline{} TB_ISA_COMMA)
#else
#define TB_ISA_TARGET_AVX512
#define TB_ISA_TARGET_AVX2
#define TB_ISA_CLONES(name, body) \
  template <class... A>           \
  auto name(A... a) {             \
    return body(a...);            \
  }
#define TB_ISA_CLONES_TAGGED(name, body)                \
  template <class... A>                                 \
  auto name(A... a) {                                   \
    return body(::tb::cpu_isa::tag::Baseline{}, a...);  \
  }
#endif
