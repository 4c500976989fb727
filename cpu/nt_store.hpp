#pragma once
// Streamed (non-temporal) stores for the CPU kernels whose output is not read again before the
// caches evict it (vector_add, black_scholes, scan at their large sizes).
//
// Why: a plain store first reads the line it writes into the cache (read for ownership), so a
// kernel that writes w bytes moves w more than it counts: vector_add's 12 B an element become
// 16, Black-Scholes' 20 B an option 28. The CPU ceilings (common/host_ceilings.cpp) take the best
// of a plain and a streamed pass for the write and copy patterns and of a three-array and an
// in-place pass for add and triad, i.e. they measure what memory gives without that extra read;
// a row held to them has to skip it too, or it can reach at most 75% (vector_add) or 71%
// (Black-Scholes) of its ceiling whatever its loop does. On the H200 host (plain
// stores): vector_add 256M 77%, black_scholes 10M 60%, scan 256M 52-55% of their ceilings.
//
// How: the kernel computes a block into a small buffer that stays in L1, then copies it out with
// streamed stores of whole 64-byte lines; partial lines at either end of the destination take
// plain stores (two threads may share such a line: plain stores keep it coherent). Each level
// streams at its width; SSE2's 16-byte streamed stores still fill whole lines in the core's
// write-combining buffers, since the four of a line are issued back to back.
// A thread ends its streamed stores with fence() (they are weakly ordered): the other threads
// then see them after the parallel region's barrier.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/cpu_isa.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace tb::nt {

constexpr std::size_t kLine = 64;

#if defined(__x86_64__) && defined(__GNUC__)
inline void stream_line(cpu_isa::tag::Baseline, char* d, const char* s) {
  for (int k = 0; k < 4; ++k)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16 * k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * k)));
}
[[gnu::target("avx2")]] inline void stream_line(cpu_isa::tag::Avx2, char* d, const char* s) {
  for (int k = 0; k < 2; ++k)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 32 * k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32 * k)));
}
[[gnu::target("avx512f")]] inline void stream_line(cpu_isa::tag::Avx512, char* d,
                                                   const char* s) {
  _mm512_stream_si512(reinterpret_cast<__m512i*>(d),
                      _mm512_loadu_si512(reinterpret_cast<const void*>(s)));
}
inline void fence() { _mm_sfence(); }
#else
template <class Tag>
inline void stream_line(Tag, char* d, const char* s) {
  std::memcpy(d, s, kLine);
}
inline void fence() {}
#endif

// Copies `bytes` from src to dst: dst's whole 64-byte lines streamed, its partial end lines plain.
template <class Tag>
[[gnu::always_inline]] inline void store(Tag tag, void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t to_line = (kLine - reinterpret_cast<std::uintptr_t>(d) % kLine) % kLine;
  const std::size_t head = to_line < bytes ? to_line : bytes;
  std::memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  for (; bytes >= kLine; bytes -= kLine, d += kLine, s += kLine) stream_line(tag, d, s);
  std::memcpy(d, s, bytes);
}

}  // namespace tb::nt
