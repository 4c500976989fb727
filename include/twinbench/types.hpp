#pragma once
// The plain types of twinbench's public API (twinbench.hpp): what a row does, how its outputs
// are checked, how its inputs are filled, its shapes and axes. No dependencies: the suite's CPU
// and GPU headers use them too.
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace twinbench {

// ---- What a row does, for its rates and its limit.
// The link a host-device transfer row moves its bytes over: such a row is held to that link's
// bandwidth, measured at start.
enum class Link { none, h2d, d2h };

// Bytes read and written and FLOPs of one call (items: what items_per_second counts). A row is
// held to the limit its work binds (bandwidth of its mix of reads and writes, or the roof of
// its precision) unless held_to_ceiling is false.
struct Work {
  double read_bytes = 0.0;
  double written_bytes = 0.0;
  double flops = 0.0;
  double items = 0.0;
  bool held_to_ceiling = true;
  Link link = Link::none;
  double bytes() const { return read_bytes + written_bytes; }
};

// An output passes when |got - expected| <= rel * max(|expected|, scale_floor) everywhere.
struct Tolerance {
  double rel = 0.0;
  double scale_floor = 0.0;
};

// How an input is filled: uniform in [lo, hi) from the case's seed and the input's position,
// exact zeros replaced.
struct Uniform {
  double lo = -1.0;
  double hi = 1.0;
};
constexpr Uniform uniform(double lo, double hi) { return {lo, hi}; }

struct Dims {
  int w = 0;
  int h = 0;
  std::size_t pixels() const { return static_cast<std::size_t>(w) * static_cast<std::size_t>(h); }
  // Written out (not `= default`): a project's .cu files may compile this header as C++17.
  bool operator==(const Dims& o) const { return w == o.w && h == o.h; }
};

struct Block2 {
  int x = 0;
  int y = 0;
  int threads() const { return x * y; }
  bool operator==(const Block2& o) const { return x == o.x && y == o.y; }
};

// One named parameter of a row: `n:1048576`, `dtype:float32`, `block:16x16`.
struct Axis {
  std::string key;
  std::string value;
  Axis(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  Axis(std::string k, const char* v) : key(std::move(k)), value(v) {}
  template <class Int, class = std::enable_if_t<std::is_integral_v<Int>>>
  Axis(std::string k, Int v) : key(std::move(k)), value(std::to_string(v)) {}
  Axis(std::string k, Block2 b)
      : key(std::move(k)), value(std::to_string(b.x) + "x" + std::to_string(b.y)) {}
};

}  // namespace twinbench
