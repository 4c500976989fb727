#pragma once
// Launchers for aos_soa (host-callable; kernels live in aos_soa.cu). xyz holds 3n floats,
// point i at xyz[3i .. 3i+2]; x, y, z and out hold n floats.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// One point per thread, three 4-byte loads 12 bytes apart: a warp's loads cover 384
// contiguous bytes, but each load instruction touches 3x the sectors it uses (L1 serves the
// rest), so it costs load instructions and L1 traffic rather than DRAM bytes.
void aos_soa_cuda_aos(const float* xyz, float* out, std::size_t n, int block, cudaStream_t stream);
KernelStats aos_soa_cuda_aos_stats(std::size_t n, int block);

// One point per thread from three arrays: three fully coalesced loads, one coalesced store.
void aos_soa_cuda_soa(const float* x, const float* y, const float* z, float* out, std::size_t n,
                      int block, cudaStream_t stream);
KernelStats aos_soa_cuda_soa_stats(std::size_t n, int block);

// AoS read with 16-byte loads: four points per thread are 48 bytes = three float4 loads, and
// their norms one float4 store. Falls back to cuda_aos for pointers not 16-byte aligned.
void aos_soa_cuda_aos_vec(const float* xyz, float* out, std::size_t n, int block,
                          cudaStream_t stream);
KernelStats aos_soa_cuda_aos_vec_stats(std::size_t n, int block);

}  // namespace tb::gpu
