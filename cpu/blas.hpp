#pragma once
// OpenBLAS, loaded at run time: the CPU's BLAS peer (as cuBLAS is the GPU's). Loaded with dlopen
// rather than linked so that
//  - its core can be chosen before it loads: OpenBLAS reads OPENBLAS_CORETYPE once, when loaded;
//    Debian's 0.3.21 does not know Sapphire or Emerald Rapids and falls back to Prescott (SSE3,
//    ~20 GFLOP/s on 2 cores where SkylakeX's kernels reach ~130; measured on a Xeon
//    with AVX-512 and AMX), so, unless the user set OPENBLAS_CORETYPE, the core is named from the
//    level common/cpu_isa.hpp runs (avx512: SkylakeX, avx2: Haswell, baseline: Prescott);
//  - a machine without it only skips the BLAS rows.
// The library is the OpenMP build (libopenblas0-openmp): its threads are the suite's OpenMP
// threads, pinned the same way, rather than a pthread pool spinning beside the next row.
#include <string>

namespace tb::blas {

struct OpenBlas {
  // cblas_sgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
  void (*sgemm)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                float*, int) = nullptr;
  std::string path;      // the file loaded
  std::string corename;  // openblas_get_corename(): the kernels it runs, e.g. "SkylakeX"
  std::string config;    // openblas_get_config()
  std::string coretype_source;  // "chosen by twinbench (...)" or "the user's OPENBLAS_CORETYPE"
};

// Loads OpenBLAS once (the first call decides its core); nullptr, with why_not set, when it
// cannot be found.
const OpenBlas* openblas(std::string& why_not);

// CblasRowMajor, CblasNoTrans.
constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;

}  // namespace tb::blas
