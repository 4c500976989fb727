#pragma once
// Bandwidth ceilings per access pattern and measured compute roofs, the way BabelStream does:
// a row's "% of ceiling" is taken against the bandwidth the suite's own kernels reach with the
// same mix of reads and writes, measured in the same run. A read-mostly stream beats a copy
// (HBM and DRAM turn around between reads and writes), so one copy figure for every row made
// dot and vector_add read above 100%.
#include <array>
#include <cstddef>
#include <string>

#include "common/bench_spec.hpp"

namespace tb {

// The six streams (BabelStream's copy, mul = scale, add, triad; gpu-benches' read-only and
// write-only). Arrays of double, one element per index:
//   read:  s += a[i] * b[i]    (16 read: BabelStream's dot; two streams, as dot has, reached
//                               more than one on the H200)
//   write: a[i] = k            (8 written)
//   copy:  c[i] = a[i]         (8 read, 8 written)
//   scale: b[i] = k * c[i]     (8 read, 8 written)
//   add:   c[i] = a[i] + b[i]  (16 read, 8 written)
//   triad: a[i] = b[i] + k*c[i](16 read, 8 written)
enum class Pattern { read = 0, write = 1, copy = 2, scale = 3, add = 4, triad = 5 };
inline constexpr int kPatterns = 6;
inline constexpr std::array<Pattern, kPatterns> kAllPatterns = {
    Pattern::read, Pattern::write, Pattern::copy, Pattern::scale, Pattern::add, Pattern::triad};

const char* pattern_name(Pattern p);
// Arrays read and written per element (bytes = that x 8 x n).
int pattern_reads(Pattern p);
int pattern_writes(Pattern p);

// Measured bandwidth (bytes read + written per second) of each pattern; 0 = not measured.
struct BandwidthSet {
  std::array<double, kPatterns> bytes_per_s{};
  double& operator[](Pattern p) { return bytes_per_s[static_cast<int>(p)]; }
  double operator[](Pattern p) const { return bytes_per_s[static_cast<int>(p)]; }
  // The same patterns moved over arrays whose output fits the caches (the CPU's sets in a cold
  // run; all 0 elsewhere), and the most bytes a row may write to be held to them too. Why: a cold
  // sample starts after a flush that wrote back every dirty line, and a row whose output fits
  // the L3 leaves its own dirty lines there when its timer stops, so it pays no write-back in the
  // timed region; measured over arrays several times the L3, a ceiling pays most of its own.
  std::array<double, kPatterns> fitting_bytes_per_s{};
  double fitting_written_bytes = 0.0;
  // fitting_written_bytes is the large arrays' size: a row that writes less leaves a larger
  // share of its output in the caches than the large arrays' passes do.
  // The set a row that writes `written_bytes` is held to: each pattern's faster figure of the
  // two where written_bytes <= fitting_written_bytes, else the large arrays'.
  BandwidthSet for_written_bytes(double written_bytes) const;
};

// The ceiling a row is held to: the measured pattern whose read share of the bytes is nearest
// the row's (read-only 1, add/triad 2/3, copy/scale 1/2, write-only 0). Of two patterns with
// the same mix the faster is the ceiling (it is what the hardware reached). Rows between two
// mixes (Black-Scholes reads 12 and writes 8 bytes: 0.6) take the nearer; an exact tie goes to
// the faster of the two, so that the percentage never flatters the row.
struct Ceiling {
  Pattern pattern = Pattern::copy;
  double bytes_per_s = 0.0;  // 0 when the set holds no measured pattern
};
Ceiling choose_ceiling(const BandwidthSet& set, double read_bytes, double written_bytes);

// The run's measured sets, set once at start (common/run_context.cpp): the GPU's, the CPU's
// with every OpenMP thread (omp rows) and with one thread (serial rows).
enum class CeilingSet { gpu = 0, cpu_all = 1, cpu_one = 2 };
void set_ceilings(CeilingSet which, const BandwidthSet& set);
const BandwidthSet& ceilings(CeilingSet which);

// The compute roofs measured in the same run (FLOP/s; int8 in operations/s), by set and
// precision ("fp32", "fp64", "fp16", "bf16", "tf32", "int8"), and the physical peak of each (the
// GPU's datasheet figure, the CPU's ISA width x clock: common/cpu_peak.hpp). 0 = not measured.
void set_roof(CeilingSet which, const std::string& precision, double per_s);
double roof(CeilingSet which, const std::string& precision);
void set_peak(CeilingSet which, const std::string& precision, double per_s);
double peak(CeilingSet which, const std::string& precision);

// The host-device link's bandwidth in each direction, measured at start with pinned copies
// (bytes/s; 0 = not measured).
void set_link_bandwidth(Link direction, double bytes_per_s);
double link_bandwidth(Link direction);

// Why a set's figures may be low ("" when nothing is known against them): e.g. measured while
// the machine was busy. A row above a limit of that set says so.
void set_ceilings_caveat(CeilingSet which, const std::string& caveat);
const std::string& ceilings_caveat(CeilingSet which);

}  // namespace tb
