#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/lucas.hpp"

namespace tb::gpu {
namespace {

constexpr int kMaxRecursiveN = 62;  // the pending-call set is one 64-bit mask
constexpr int kMaxN = 90;           // L(91) overflows int64

// The naive recursion L(k) = L(k-1) + L(k-2), one loop iteration per call, depth first with
// the L(k-1) call first. Device recursion would work too, but its stack frames live in local
// memory and depth ~n needs a larger per-thread stack limit (a context-wide setting). Here the
// calls still pending are L(k-2)s pushed on the way down; taken smallest first, they are always
// distinct indices below the current one, so the stack is a set: one bit per index, in a
// register. Same calls, same additions, exponential as in the articles.
__device__ std::int64_t lucas_call_tree(int n) {
  std::uint64_t pending = 0;  // bit k: a call L(k) still to make
  std::int64_t sum = 0;
  int k = n;
  for (;;) {
    if (k >= 2) {  // L(k): call L(k-1) now, L(k-2) later
      pending |= std::uint64_t{1} << (k - 2);
      --k;
      continue;
    }
    sum += k == 0 ? 2 : 1;  // a leaf: its value joins the running sum of the tree
    if (pending == 0) return sum;
    k = __ffsll(static_cast<long long>(pending)) - 1;
    pending &= pending - 1;
  }
}

__global__ void lucas_recursive_kernel(std::int64_t* __restrict__ out, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = lucas_call_tree(static_cast<int>(i));
}

__global__ void lucas_iterative_kernel(std::int64_t* __restrict__ out, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > n) return;
  std::int64_t a = 2, b = 1;  // L(0), L(1)
  for (long long k = 2; k <= i; ++k) {
    const std::int64_t c = a + b;
    a = b;
    b = c;
  }
  out[i] = i == 0 ? a : b;
}

long long grid_for(int n, int block) { return (static_cast<long long>(n) + block) / block; }

void check_n(int n, int limit, const char* what) {
  if (n < 0 || n > limit)
    throw std::invalid_argument(std::string(what) + ": n = " + std::to_string(n) +
                                " is outside 0.." + std::to_string(limit));
}

}  // namespace

void lucas_cuda_recursive(std::int64_t* out, int n, int block, cudaStream_t stream) {
  check_n(n, kMaxRecursiveN, "lucas_cuda_recursive");
  lucas_recursive_kernel<<<static_cast<unsigned>(grid_for(n, block)), block, 0, stream>>>(out, n);
  CUDA_CHECK_LAUNCH();
}

KernelStats lucas_cuda_recursive_stats(int n, int block) {
  return kernel_stats(lucas_recursive_kernel, block, grid_for(n, block));
}

void lucas_cuda_iterative(std::int64_t* out, int n, int block, cudaStream_t stream) {
  check_n(n, kMaxN, "lucas_cuda_iterative");
  lucas_iterative_kernel<<<static_cast<unsigned>(grid_for(n, block)), block, 0, stream>>>(out, n);
  CUDA_CHECK_LAUNCH();
}

KernelStats lucas_cuda_iterative_stats(int n, int block) {
  return kernel_stats(lucas_iterative_kernel, block, grid_for(n, block));
}

}  // namespace tb::gpu
