#pragma once
// Global-to-shared copies for the tiled kernels: cp.async from sm_80, plain loads and shared
// stores below it. cp.async is absent from compute_75 PTX, and an instruction the PTX JIT
// rejects fails the whole module, not only the kernel that uses it: on an H200 running a
// compute_75-only build, every kernel of conv2d.cu and sgemm.cu (the naive ones too) failed to
// load with cudaErrorInvalidPtx until these copies were guarded. The fallback keeps the kernels'
// structure: the copy completes at once, so commit and wait are empty and the __syncthreads
// that follows each wait is still what makes the tile visible to the block.
//
// The shared-memory destination is a 32-bit shared-window address (__cvta_generic_to_shared).
#include <cuda_runtime.h>

namespace tb::gpu::async_copy {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
inline constexpr bool kHardware = true;
#else
inline constexpr bool kHardware = false;
#endif

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void store_shared(unsigned dst, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(dst), "f"(v) : "memory");
}
__device__ __forceinline__ void store_shared(unsigned dst, float4 v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "f"(v.x), "f"(v.y),
               "f"(v.z), "f"(v.w)
               : "memory");
}

// 4 bytes, cached in L1 (.ca).
__device__ __forceinline__ void copy4(unsigned dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
#else
  store_shared(dst, *src);
#endif
}

// 16 bytes, bypassing L1 (.cg); src is 16-byte aligned.
__device__ __forceinline__ void copy16(unsigned dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
#else
  store_shared(dst, *reinterpret_cast<const float4*>(src));
#endif
}

// With `inside` false the copy reads nothing (src-size 0) and writes zeros.
__device__ __forceinline__ void copy4_or_zero(unsigned dst, const float* src, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(inside ? 4 : 0)
               : "memory");
#else
  store_shared(dst, inside ? *src : 0.0f);
#endif
}

__device__ __forceinline__ void copy16_or_zero(unsigned dst, const float* src, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(inside ? 16 : 0)
               : "memory");
#else
  store_shared(dst, inside ? *reinterpret_cast<const float4*>(src) : make_float4(0, 0, 0, 0));
#endif
}

__device__ __forceinline__ void commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's newest commit groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

__device__ __forceinline__ void wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace tb::gpu::async_copy
