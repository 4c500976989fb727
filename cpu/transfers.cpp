#include "cpu/transfers.hpp"

#include <cstring>

#include "common/random.hpp"

namespace tb::transfers {

std::vector<std::size_t> sizes(bool quick, bool full) {
  const std::size_t last = quick  ? (std::size_t{16} << 20)
                           : full ? (std::size_t{1} << 30)
                                  : (std::size_t{256} << 20);
  std::vector<std::size_t> out;
  for (std::size_t b = 4096; b <= last; b *= 4) out.push_back(b);
  return out;
}

void fill_bytes(std::span<unsigned char> out, std::uint64_t seed) {
  const std::uint64_t base = mix64(seed);
  const auto n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<unsigned char>(mix64(base + static_cast<std::uint64_t>(i)) >> 56);
    out[static_cast<std::size_t>(i)] = v == kPoison ? static_cast<unsigned char>(0x7F) : v;
  }
}

void serial_memcpy(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}

ErrorStats compare_bytes(const unsigned char* got, const unsigned char* ref, std::size_t bytes) {
  ErrorStats s;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (got[i] != ref[i]) {
      if (bad == 0) s.worst_index = i;
      ++bad;
    }
  }
  s.max_abs = static_cast<double>(bad);
  s.max_rel = bad > 0 ? 1.0 : 0.0;
  return s;
}

}  // namespace tb::transfers
