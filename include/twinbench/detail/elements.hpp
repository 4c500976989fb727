#pragma once
// Internals of twinbench.hpp: what the harness does with a buffer of one element type, behind
// one table of functions per type (filled in the library for every standard arithmetic type),
// so that a buffer's handle is typed for the author and untyped for the harness.
#include <cstddef>
#include <cstdint>
#include <string>

namespace twinbench::detail {

// What the comparison of an output with its reference found: the first element that is wrong
// in kind (never written, accumulated onto the poison, not finite), else the worst relative
// error, with the values got and expected there.
struct Mismatch {
  enum class Kind { none, out_of_tolerance, not_finite, poison, accumulated };
  Kind kind = Kind::none;
  std::size_t index = 0;
  std::size_t bad_elements = 0;  // elements outside the tolerance, or wrong in kind
  double got = 0.0, expected = 0.0;
  double max_abs = 0.0, max_rel = 0.0;
  bool ok() const { return kind == Kind::none; }
};

struct ElementOps {
  const char* dtype;  // "float32", "int8", "uint64", ...
  std::size_t bytes;
  // Floating point is poisoned with NaN and checked once; a type without NaN twice, with two
  // byte patterns (the harness's rule), so that an unwritten element or an accumulator never
  // reset fails in at least one of the passes.
  bool poisoned_with_nan;
  // Uniform in [lo, hi) from (seed, index), with exact zeros replaced (a zero input hides an
  // unwritten output); integers round toward lo.
  void (*fill)(void* dst, std::size_t n, std::uint64_t seed, double lo, double hi);
  // got against ref: |got - ref| / max(|ref|, floor) <= rel for every element; `poison` is the
  // byte the output was filled with, to say which elements were never written.
  Mismatch (*compare)(const void* got, const void* ref, std::size_t n, double rel, double floor,
                      unsigned char poison);
  // The reference's own output: an element that is not finite, or still holds `poison`, is the
  // reference's error.
  Mismatch (*check_reference)(const void* ref, std::size_t n, unsigned char poison);
  // Whether a and b hold the same bytes (the two passes of a reference without NaN).
  Mismatch (*same)(const void* a, const void* b, std::size_t n);
};

template <class T>
const ElementOps& element_ops();

}  // namespace twinbench::detail
