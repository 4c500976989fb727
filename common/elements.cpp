// The element-type table behind twinbench's buffers (include/twinbench/detail/elements.hpp),
// for every standard arithmetic type: seeded fills, the comparison with the reference that says
// what it found, and the reference's own check.
#include <twinbench/detail/elements.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/random.hpp"

namespace twinbench::detail {
namespace {

template <class T>
constexpr const char* name_of() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, long double>) return "float128";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_signed_v<T>) {
    switch (sizeof(T)) {
      case 1: return "int8";
      case 2: return "int16";
      case 4: return "int32";
      default: return "int64";
    }
  } else {
    switch (sizeof(T)) {
      case 1: return "uint8";
      case 2: return "uint16";
      case 4: return "uint32";
      default: return "uint64";
    }
  }
}

template <class T>
void fill(void* dst, std::size_t n, std::uint64_t seed, double lo, double hi) {
  T* out = static_cast<T*>(dst);
  // float, double and int32 keep the generator the suite's inputs always had (common/random.hpp).
  if constexpr (std::is_same_v<T, float>) {
    tb::fill_uniform({out, n}, seed, static_cast<float>(lo), static_cast<float>(hi));
  } else if constexpr (std::is_same_v<T, double>) {
    tb::fill_uniform({out, n}, seed, lo, hi);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    tb::fill_uniform({out, n}, seed, static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi));
  } else {
    const auto m = static_cast<long long>(n);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < m; ++i) {
      const double u = static_cast<double>(tb::mix64(seed ^ tb::mix64(static_cast<std::uint64_t>(i))) >> 11) * 0x1.0p-53;
      double v = lo + (hi - lo) * u;
      if constexpr (std::is_integral_v<T>) v = std::floor(v);
      T t = static_cast<T>(v);
      if (t == T(0)) t = static_cast<T>(lo + 1 < hi ? lo + 1 : hi > 0 ? 1 : -1);
      out[i] = t;
    }
  }
}

template <class T>
T pattern(unsigned char byte) {
  T t;
  std::memset(&t, byte, sizeof t);
  return t;
}

template <class T>
bool holds(const T& v, unsigned char byte) {
  const T p = pattern<T>(byte);
  return std::memcmp(&v, &p, sizeof(T)) == 0;
}

using Kind = Mismatch::Kind;

// Which wrong element a failure names: one added to without being reset (the whole output is
// then suspect: its zero elements merely look unwritten) before one never written, before one
// not finite, before the worst out of tolerance; within a kind, the first.
int rank(Kind k) {
  switch (k) {
    case Kind::accumulated: return 4;
    case Kind::poison: return 3;
    case Kind::not_finite: return 2;
    case Kind::out_of_tolerance: return 1;
    default: return 0;
  }
}

void merge(Mismatch& into, const Mismatch& m) {
  into.bad_elements += m.bad_elements;
  into.max_abs = std::fmax(into.max_abs, m.max_abs);
  const double rel = into.max_rel;
  into.max_rel = std::fmax(into.max_rel, m.max_rel);
  if (m.kind == Kind::none) return;
  const int a = rank(m.kind), b = rank(into.kind);
  const bool better = a > b || (a == b && (m.kind == Kind::out_of_tolerance ? m.max_rel > rel
                                                                             : m.index < into.index));
  if (!better) return;
  into.kind = m.kind;
  into.index = m.index;
  into.got = m.got;
  into.expected = m.expected;
}

template <class T>
Mismatch compare(const void* got_p, const void* ref_p, std::size_t n, double rel, double floor,
                 unsigned char poison) {
  const T* got = static_cast<const T*>(got_p);
  const T* ref = static_cast<const T*>(ref_p);
  const double tiny = floor > 0 ? floor : 1e-300;
  Mismatch total;
  const auto m = static_cast<long long>(n);
#pragma omp parallel
  {
    Mismatch local;
#pragma omp for schedule(static) nowait
    for (long long i = 0; i < m; ++i) {
      const double g = static_cast<double>(got[i]);
      const double r = static_cast<double>(ref[i]);
      Mismatch e;
      e.index = static_cast<std::size_t>(i);
      e.got = g;
      e.expected = r;
      if (holds(got[i], poison) && !holds(ref[i], poison)) {
        e.kind = Kind::poison;
      } else if constexpr (std::is_floating_point_v<T>) {
        if (!std::isfinite(g) && std::isfinite(r)) e.kind = Kind::not_finite;
      } else {
        // An accumulator never reset ends at pattern + expected, wrapping around.
        using U = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>>;
        const U sum = static_cast<U>(static_cast<U>(pattern<T>(poison)) + static_cast<U>(ref[i]));
        if (got[i] != ref[i] && static_cast<U>(got[i]) == sum) e.kind = Kind::accumulated;
      }
      if (e.kind == Kind::none) {
        e.max_abs = std::fabs(g - r);
        e.max_rel = e.max_abs / std::fmax(std::fabs(r), tiny);
        if (!(e.max_rel <= rel) && !(g == r)) e.kind = Kind::out_of_tolerance;
        if (e.max_rel != e.max_rel) e.max_rel = std::numeric_limits<double>::infinity();
      }
      if (e.kind != Kind::none) e.bad_elements = 1;
      merge(local, e);
    }
#pragma omp critical(twinbench_compare_merge)
    merge(total, local);
  }
  return total;
}

template <class T>
Mismatch check_reference(const void* ref_p, std::size_t n, unsigned char poison) {
  const T* ref = static_cast<const T*>(ref_p);
  Mismatch total;
  const auto m = static_cast<long long>(n);
#pragma omp parallel
  {
    Mismatch local;
#pragma omp for schedule(static) nowait
    for (long long i = 0; i < m; ++i) {
      Mismatch e;
      if constexpr (std::is_floating_point_v<T>) {
        if (holds(ref[i], poison)) e.kind = Kind::poison;
        else if (!std::isfinite(static_cast<double>(ref[i]))) e.kind = Kind::not_finite;
      }
      if (e.kind == Kind::none) continue;
      e.index = static_cast<std::size_t>(i);
      e.got = static_cast<double>(ref[i]);
      e.bad_elements = 1;
      merge(local, e);
    }
#pragma omp critical(twinbench_compare_merge)
    merge(total, local);
  }
  return total;
}

template <class T>
Mismatch same(const void* a_p, const void* b_p, std::size_t n) {
  const T* a = static_cast<const T*>(a_p);
  const T* b = static_cast<const T*>(b_p);
  Mismatch total;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) == 0) continue;
    if (total.kind == Kind::none) {
      total.kind = Kind::poison;
      total.index = i;
      total.got = static_cast<double>(b[i]);
      total.expected = static_cast<double>(a[i]);
    }
    ++total.bad_elements;
  }
  return total;
}

}  // namespace

template <class T>
const ElementOps& element_ops() {
  static const ElementOps ops{name_of<T>(),       sizeof(T),       std::numeric_limits<T>::has_quiet_NaN,
                              &fill<T>,           &compare<T>,     &check_reference<T>,
                              &same<T>};
  return ops;
}

#define TWINBENCH_ELEMENT(T) template const ElementOps& element_ops<T>();
TWINBENCH_ELEMENT(float)
TWINBENCH_ELEMENT(double)
TWINBENCH_ELEMENT(signed char)
TWINBENCH_ELEMENT(unsigned char)
TWINBENCH_ELEMENT(char)
TWINBENCH_ELEMENT(short)
TWINBENCH_ELEMENT(unsigned short)
TWINBENCH_ELEMENT(int)
TWINBENCH_ELEMENT(unsigned)
TWINBENCH_ELEMENT(long)
TWINBENCH_ELEMENT(unsigned long)
TWINBENCH_ELEMENT(long long)
TWINBENCH_ELEMENT(unsigned long long)
#undef TWINBENCH_ELEMENT

}  // namespace twinbench::detail
