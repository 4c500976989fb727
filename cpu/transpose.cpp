#include "cpu/transpose.hpp"

#include <algorithm>

namespace tb::transpose {

void serial(const float* in, float* out, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

void omp(const float* in, float* out, std::size_t rows, std::size_t cols) {
  const auto tiles_r = static_cast<std::int64_t>((rows + kCpuTile - 1) / kCpuTile);
  const auto tiles_c = static_cast<std::int64_t>((cols + kCpuTile - 1) / kCpuTile);
  // Tiles are independent; collapse(2) gives enough of them to balance even a tall matrix.
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t tr = 0; tr < tiles_r; ++tr) {
    for (std::int64_t tc = 0; tc < tiles_c; ++tc) {
      const std::size_t r0 = static_cast<std::size_t>(tr) * kCpuTile;
      const std::size_t c0 = static_cast<std::size_t>(tc) * kCpuTile;
      const std::size_t r1 = std::min(r0 + kCpuTile, rows);
      const std::size_t c1 = std::min(c0 + kCpuTile, cols);
      // Inner loop over r: the writes are contiguous, the strided reads hit lines that the
      // tile's other rows keep in L1.
      for (std::size_t c = c0; c < c1; ++c)
        for (std::size_t r = r0; r < r1; ++r) out[c * rows + r] = in[r * cols + c];
    }
  }
}

}  // namespace tb::transpose
