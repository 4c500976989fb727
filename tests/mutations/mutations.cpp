// Workloads with one planted bug each, declared through the public API, for the messages of the
// harness's validation (tests/cli/test_mutations.py runs them): a bug in the reference is the
// reference's error and no row is blamed; a row's failure names the output, the position (x, y
// for a shaped output), the value got and the value expected, and says when the element was
// never written or was added to without being reset. Each workload has one correct row beside
// the wrong one, so a message that blames the wrong row shows.
#include <twinbench/twinbench.hpp>

#include <cmath>
#include <cstdint>

namespace {

constexpr std::size_t kN = 1000;

void add(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// The reference writes a NaN at [7]: the reference is at fault, the rows are not blamed.
void reference_nan(twinbench::Bench& b) {
  twinbench::Case& c = b.add_case({{"n", kN}});
  auto x = c.input<float>("a", kN), y = c.input<float>("b", kN);
  auto z = c.output<float>("c", kN, {.rel = 1e-6});
  c.reference([=] {
    add(x.host(), y.host(), z.ref(), kN);
    z.ref()[7] = std::nanf("");
  });
  c.cpu("serial", [=] { add(x.host(), y.host(), z.host(), kN); });
}
TWINBENCH_BENCH("reference_nan", "the reference writes a NaN", reference_nan);

// The reference stops one short: its last element still holds the poison.
void reference_unwritten(twinbench::Bench& b) {
  twinbench::Case& c = b.add_case({{"n", kN}});
  auto x = c.input<float>("a", kN), y = c.input<float>("b", kN);
  auto z = c.output<float>("c", kN, {.rel = 1e-6});
  c.reference([=] { add(x.host(), y.host(), z.ref(), kN - 1); });
  c.cpu("serial", [=] { add(x.host(), y.host(), z.host(), kN); });
}
TWINBENCH_BENCH("reference_unwritten", "the reference skips its last element", reference_unwritten);

// A histogram's reference that never zeroes its bins: integer outputs run it twice, into two
// poison patterns, and the runs differ.
void count(const std::int32_t* keys, std::uint32_t* bins, std::size_t n, bool reset) {
  if (reset)
    for (int i = 0; i < 16; ++i) bins[i] = 0;
  for (std::size_t i = 0; i < n; ++i) ++bins[keys[i]];
}
void reference_not_reset(twinbench::Bench& b) {
  twinbench::Case& c = b.add_case({{"n", kN}});
  auto keys = c.input<std::int32_t>("keys", kN, twinbench::uniform(0, 16));
  auto bins = c.output<std::uint32_t>("bins", 16);
  c.reference([=] { count(keys.host(), bins.ref(), kN, false); });
  c.cpu("serial", [=] { count(keys.host(), bins.host(), kN, true); });
}
TWINBENCH_BENCH("reference_not_reset", "the reference never zeroes its bins", reference_not_reset);

// A row that never zeroes its bins: 0xFF.. + count wraps around to count - 1.
void accumulator_not_reset(twinbench::Bench& b) {
  twinbench::Case& c = b.add_case({{"n", kN}});
  auto keys = c.input<std::int32_t>("keys", kN, twinbench::uniform(0, 16));
  auto bins = c.output<std::uint32_t>("bins", 16);
  c.reference([=] { count(keys.host(), bins.ref(), kN, true); });
  c.cpu("serial", [=] { count(keys.host(), bins.host(), kN, true); });
  c.cpu("no_reset", [=] { count(keys.host(), bins.host(), kN, false); });
}
TWINBENCH_BENCH("accumulator_not_reset", "a row never zeroes its bins", accumulator_not_reset);

// A row that skips the last element, and one off by one in its index.
void row_bugs(twinbench::Bench& b) {
  twinbench::Case& c = b.add_case({{"n", kN}});
  auto x = c.input<float>("a", kN), y = c.input<float>("b", kN);
  auto z = c.output<float>("c", kN, {.rel = 1e-6});
  c.reference([=] { add(x.host(), y.host(), z.ref(), kN); });
  c.cpu("serial", [=] { add(x.host(), y.host(), z.host(), kN); });
  c.cpu("short", [=] { add(x.host(), y.host(), z.host(), kN - 1); });
  c.cpu("shifted", [=] {
    add(x.host(), y.host(), z.host(), kN);
    z.host()[500] = x.host()[500] + y.host()[501];
  });
}
TWINBENCH_BENCH("row_bugs", "a row short by one, a row reading the wrong element", row_bugs);

// A 6x4 image whose wrong row writes (x=3, y=2) wrong: the failure names (x, y).
void image_bug(twinbench::Bench& b) {
  const twinbench::Dims img{6, 4};
  twinbench::Case& c = b.add_case({{"w", img.w}, {"h", img.h}});
  auto in = c.input<double>("in", img.pixels());
  auto out = c.output<double>("out", img.pixels(), {.rel = 1e-12}).shape(img);
  const auto twice = [](const double* a, double* o, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) o[i] = 2 * a[i];
  };
  c.reference([=] { twice(in.host(), out.ref(), img.pixels()); });
  c.cpu("serial", [=] { twice(in.host(), out.host(), img.pixels()); });
  c.cpu("wrong_pixel", [=] {
    twice(in.host(), out.host(), img.pixels());
    out.host()[2 * img.w + 3] += 1.0;
  });
}
TWINBENCH_BENCH("image_bug", "a row writes one pixel wrong", image_bug);

}  // namespace
