#pragma once
// transfers: moving bytes between host and device memory, by every kind of host memory CUDA
// offers (pageable, pinned, mapped zero-copy, managed with and without prefetch), beside the
// CPU's own memcpy of the same size. Bytes model: the bytes transferred, once (a link's GB/s);
// items = transfers, so items_per_second is transfers per second.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::transfers {

constexpr std::uint64_t kSeed = 0x5eed7a45;
// The destination of a validation run is filled with this byte first; the source never holds
// it (fill_bytes), so any byte the transfer missed is found.
constexpr unsigned char kPoison = 0xFF;
constexpr Tolerance kExact{0.0};  // a copy is bit-exact or wrong

// 4 KiB to 1 GiB in powers of 4 (quick: to 16 MiB).
// 4 KiB to 256 MiB by factors of 4 (quick: to 16 MiB; full: to 1 GiB). PCIe bandwidth has
// levelled off by 64 MiB; the 1 GiB rows cost 28 s of the default run on the H200 (pageable
// and managed copies, validated byte by byte), so they are in --full.
std::vector<std::size_t> sizes(bool quick, bool full = false);

inline WorkModel work(std::size_t bytes) {
  // The size of the transfer once, as bandwidth figures for PCIe are quoted; no memory ceiling
  // applies (the GPU rows cross PCIe, and the CPU row is their memcpy analog).
  return {.read_bytes = static_cast<double>(bytes), .items = 1.0, .held_to_ceiling = false};
}

// Seeded random bytes in [0, 0xFE]: never kPoison.
void fill_bytes(std::span<unsigned char> out, std::uint64_t seed);

// The CPU analog of a transfer: one host memcpy of the same size.
void serial_memcpy(unsigned char* dst, const unsigned char* src, std::size_t bytes);

// max_abs = how many bytes differ, max_rel = 1 if any does, worst_index = the first of them.
ErrorStats compare_bytes(const unsigned char* got, const unsigned char* ref, std::size_t bytes);

// A check's verdict in words: "" when `e` passes `tol`, else what is wrong.
inline std::string verdict(const ErrorStats& e, const Tolerance& tol = kExact) {
  return passes(e, tol) ? std::string() : describe(e, tol);
}

}  // namespace tb::transfers
