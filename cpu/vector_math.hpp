#pragma once
// Vector math for `#pragma omp simd` loops: glibc's libmvec. Declaring expf, logf, erff, ... as
// `declare simd` lets GCC call libmvec's vector versions, one per ISA level (_ZGVbN4v_expf for
// SSE, _ZGVdN8v_expf for AVX2, _ZGVeN16v_expf for AVX-512), inside each version that
// common/cpu_isa.hpp compiles; glibc's own math.h declares them so only under -ffast-math, which
// would also drop NaN and infinity checks. Needs -fno-math-errno (CMakeLists.txt) and -lmvec. Only functions libmvec has may be
// declared here (no sqrtf: it is an instruction).
//
// Why libmvec rather than SLEEF or Highway: it comes with the C library (nothing to carry), its
// dispatch is the compiler's own, so the teaching code stays a plain loop calling expf, and its
// functions are within 4 ulp (glibc's manual); SLEEF or Highway would mean intrinsics-style code
// or a second dispatcher beside GCC's. The accuracy of each function is in its workload's
// tolerance.
#include <cmath>

// x86-64 only: aarch64's libmvec (AdvSIMD and SVE names) is in glibc from 2.38, and Debian 12 has
// 2.36; there the loops call the scalar functions (correct, not vectorised) and the build does not
// link -lmvec (CMakeLists.txt).
#if defined(__x86_64__)
extern "C" {
#pragma omp declare simd notinbranch
float expf(float) noexcept;
#pragma omp declare simd notinbranch
float logf(float) noexcept;
#pragma omp declare simd notinbranch
float erff(float) noexcept;
#pragma omp declare simd notinbranch
float erfcf(float) noexcept;
#pragma omp declare simd notinbranch
double exp(double) noexcept;
#pragma omp declare simd notinbranch
double log(double) noexcept;
}
#endif
