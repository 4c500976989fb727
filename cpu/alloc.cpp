#include "cpu/alloc.hpp"

#include <unistd.h>

#include <cstdlib>

namespace tb::alloc {
namespace {

constexpr unsigned char kMarker = 0x5a;

// An empty asm that "reads" the pointer and memory: malloc/free pairs cannot be elided.
inline void keep(void* p) { asm volatile("" : : "r"(p) : "memory"); }

}  // namespace

std::vector<std::size_t> sizes(const RunConfig& cfg) {
  if (cfg.size) return {*cfg.size};
  std::vector<std::size_t> out;
  const std::size_t max = cfg.quick ? kQuickMaxBytes : kMaxBytes;
  for (std::size_t b = kMinBytes; b <= max; b *= 4) out.push_back(b);
  return out;
}

std::size_t page_bytes() {
  static const std::size_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return page;
}

void touch_pages(unsigned char* p, std::size_t bytes) {
  if (bytes == 0) return;
  const std::size_t page = page_bytes();
  for (std::size_t i = 0; i < bytes; i += page) p[i] = kMarker;
  p[bytes - 1] = kMarker;
}

std::size_t untouched_pages(const unsigned char* p, std::size_t bytes) {
  if (bytes == 0) return 0;
  std::size_t bad = 0;
  const std::size_t page = page_bytes();
  for (std::size_t i = 0; i < bytes; i += page) bad += p[i] != kMarker;
  return bad + (p[bytes - 1] != kMarker);
}

bool malloc_free(std::size_t bytes) {
  void* p = std::malloc(bytes);
  keep(p);
  std::free(p);
  return p != nullptr;
}

bool malloc_touch_free(std::size_t bytes) {
  auto* p = static_cast<unsigned char*>(std::malloc(bytes));
  if (!p) return false;
  touch_pages(p, bytes);
  keep(p);
  std::free(p);
  return true;
}

}  // namespace tb::alloc
