// scan: inclusive prefix sum of int32 and float32. Bytes model: read the input once, write the
// output once (2 * sizeof(T) per element); 1 add per element. n = 1M (4 MB per array, inside the
// L2: launch and look-back latency dominate) and 256M (1 GiB per array: bandwidth). Thrust is the
// library line: the hand-written cuda scan aims for >= 80% of its bytes/s. Kernel time only: a
// scan's transfers are those of any copy and would hide the algorithm.
#include <twinbench/twinbench.hpp>

#include <cstdint>
#include <span>
#include <type_traits>

#include "cpu/scan.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/scan.hpp"
#endif

namespace tb::scan {
namespace {

// int32 is exact; float32 is held to a float64 reference with a bound per element that grows
// with sum |in_j| (cpu/scan.hpp: compare_float).
template <class T>
twinbench::Output<T> checked_output(twinbench::Case& c, twinbench::Input<T> in, std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    auto ref64 = c.scratch<double>("ref_f64", n);
    c.reference([=] { reference_f64(in.host(), ref64.host(), n); });
    return c.output<float>("out", n).checked_by([=](const float* got) {
      const ErrorStats e = compare_float({got, n}, {ref64.host(), n}, {in.host(), n});
      return passes(e, float_tolerance(n)) ? std::string() : describe(e, float_tolerance(n));
    });
  } else {
    auto out = c.output<T>("out", n, kIntTolerance);
    c.reference([=] { serial(in.host(), out.ref(), n); });
    return out;
  }
}

template <class T>
void add_dtype(twinbench::Bench& b, std::size_t n) {
  twinbench::Case& c = b.add_case({{"dtype", twinbench::dtype_name<T>()}, {"n", n}});
  auto in = c.input_from<T>("in", n, [n](T* p, std::size_t m) { fill_input(std::span<T>(p, m), n); });
  auto out = checked_output<T>(c, in, n);
  c.work(work<T>(n));
  c.cpu("serial", [=] { serial(in.host(), out.host(), n); });
  c.cpu("omp", [=] { omp(in.host(), out.host(), n); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
  // Sized for the smallest block (the most tiles), so every block size shares it.
  auto lookback = c.scratch<unsigned char>("lookback", gpu::scan_cuda_scratch_bytes(n, 32));
  c.gpu("cuda", [=](twinbench::Launch& l) {
    gpu::scan_cuda(in.device(), out.device(), n, l.block(), lookback.device(), l.stream());
  }, {.modes = twinbench::Modes::unnamed, .stats = [n](const twinbench::Launch& l) {
    return std::is_same_v<T, float> ? gpu::scan_cuda_stats_float(n, l.block())
                                    : gpu::scan_cuda_stats_int32(n, l.block());
  }});
  // Thrust's scan allocates its own temporary storage per call.
  c.gpu("thrust", [=](twinbench::Launch& l) {
    gpu::scan_thrust(in.device(), out.device(), n, l.stream());
  }, {.blocks = twinbench::own_launch(), .modes = twinbench::Modes::unnamed});
#endif
}

void scan(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kArticleSize, kLargeSize}, kQuickSize)) {
    add_dtype<std::int32_t>(b, n);
    add_dtype<float>(b, n);
  }
}

}  // namespace

TWINBENCH_BENCH("scan", "inclusive prefix sum, int32 and float32: a serial dependence at copy speed",
                scan);

}  // namespace tb::scan
