#pragma once
// alloc: what it costs to get memory inside a loop rather than reuse it. Device: cudaMalloc +
// cudaFree, the stream-ordered pool (cudaMallocAsync), a buffer reused; host: pinned
// (cudaHostAlloc), malloc, and malloc that touches every page (the page faults are the real
// cost of fresh host memory). Sizes 4 KiB to 1 GiB in powers of 4.
#include <cstddef>
#include <vector>

#include "common/workload.hpp"

namespace tb::alloc {

constexpr std::size_t kMinBytes = std::size_t{4} << 10;  // 4 KiB: one page
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;  // 1 GiB
constexpr std::size_t kQuickMaxBytes = std::size_t{16} << 20;

// --size if given, else 4 KiB, 16 KiB, ... up to 1 GiB (16 MiB in quick mode).
std::vector<std::size_t> sizes(const RunConfig& cfg);

std::size_t page_bytes();

// malloc + free with the pointer kept alive (a compiler may otherwise delete the pair). Returns
// whether malloc succeeded.
bool malloc_free(std::size_t bytes);
// malloc, write one byte in every page (and the last byte), free. Returns whether malloc
// succeeded.
bool malloc_touch_free(std::size_t bytes);

// What malloc_touch_free writes, for validation: pages of p whose marker byte is wrong.
void touch_pages(unsigned char* p, std::size_t bytes);
std::size_t untouched_pages(const unsigned char* p, std::size_t bytes);

}  // namespace tb::alloc
