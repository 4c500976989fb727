// dtypes benchmarks: one memory-bound kernel (axpy, y = a*x + y) and one compute-bound kernel
// (fma: kChains chains of K = 1024 dependent FMAs per element) in fp64, fp32, fp16 and int8.
// axpy bytes model: 3 * sizeof(T) per element (read x, y; write y), 2 ops per element.
// fma bytes model: read x once, write one output; 2 ops per FMA (fp16 half2: 4 per
// instruction), 8 per dp4a (int8; the flop_per_s counter then counts integer ops).
// What to expect on an H200 is in cpu/dtypes.hpp: axpy at the same GB/s for every type; fma at
// fp64 : fp32 : fp16 : int8 ~ 1 : 2 : 4 : 8 by the published rates.
#include "cpu/dtypes.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <twinbench/twinbench.hpp>
#include <type_traits>
#if TWINBENCH_HAVE_CUDA
#include "gpu/dtypes.hpp"
#endif

namespace tb::dtypes {
namespace {

#if TWINBENCH_HAVE_CUDA
static_assert(gpu::kDtypesChains == kChains);

template <class T>
constexpr gpu::DtypeId dtype_id() {
  if constexpr (std::is_same_v<T, double>) return gpu::DtypeId::fp64;
  if constexpr (std::is_same_v<T, float>) return gpu::DtypeId::fp32;
  if constexpr (std::is_same_v<T, f16>) return gpu::DtypeId::fp16;
  return gpu::DtypeId::int8;
}
#endif

// Inputs from fill_input and the seed; fp16 outputs are held to their tolerance as halves.
template <class T, class S = Stored<T>>
auto filler(std::uint64_t seed) {
  return [seed](S* p, std::size_t m) { fill_input(std::span<T>(as<T>(p), m), seed); };
}
template <class S>
twinbench::Output<S> checked(twinbench::Output<S> out, std::size_t count, Tolerance tol) {
  if constexpr (std::is_same_v<S, std::uint16_t>)
    out.checked_by([=](const S* got) {
      const ErrorStats e = compare_fp16(got, out.ref(), count, tol);
      return twinbench::Found{passes(e, tol) ? "" : describe(e, tol), e.max_abs, e.max_rel};
    });
  return out;
}

// axpy: the CPU rows are checked from y's initial values, then timed in place (y keeps
// accumulating a*x, harmless to the time: no type here slows down on large values); the GPU
// rows are kernel time, y restored before the check only.
template <class T>
void axpy(twinbench::Bench& b, std::size_t n) {
  twinbench::Case& c =
      b.add_case({{"kernel", "axpy"}, {"dtype", std::string(Dtype<T>::name)}, {"n", n}});
  auto x = c.input_from<Stored<T>>("x", n, filler<T>(kSeed));
  auto y = checked(c.inout_from<Stored<T>>("y", n, filler<T>(kSeed + 1), axpy_tolerance<T>()), n,
                   axpy_tolerance<T>());
  c.work(axpy_work<T>(n));
  c.reference([=] { axpy_serial(as<T>(x.host()), as<T>(y.ref()), n); });
  c.cpu("serial", [=] { axpy_serial(as<T>(x.host()), as<T>(y.host()), n); });
  // The fp16 omp path is F16C or AVX512_FP16 where the host has them: the row says which ran.
  c.cpu("omp",
        [=, isa = axpy_omp_path<T>()](twinbench::Row& r) {
          r.field("cpu_isa", isa);
          axpy_omp(as<T>(x.host()), as<T>(y.host()), n);
        },
        {.threaded = true});
#if TWINBENCH_HAVE_CUDA
  c.gpu("cuda",
        [=](twinbench::Launch& l) {
          gpu::dtypes_axpy_cuda(axpy_a<T>(), x.device(), y.device(), n, l.block(), l.stream());
        },
        {.modes = twinbench::Modes::unnamed, .stats = [n](const twinbench::Launch& l) {
           return gpu::dtypes_axpy_cuda_stats(dtype_id<T>(), n, l.block());
         }});
#endif
}

// fma chains: 2 * kChains * K ops per element (8 per dp4a of 4 bytes); GPU rows kernel time.
template <class T>
void fma(twinbench::Bench& b, std::size_t n, bool cpu) {
  using Out = Stored<typename Dtype<T>::fma_out>;
  twinbench::Case& c = b.add_case(
      {{"kernel", "fma"}, {"dtype", std::string(Dtype<T>::name)}, {"n", n}, {"k", kChainLength}});
  auto x = c.input_from<Stored<T>>("x", n, filler<T>(kSeed + 2));
  auto out = checked(c.output<Out>("out", fma_outputs<T>(n), fma_tolerance<T>()), fma_outputs<T>(n),
                     fma_tolerance<T>());
  using O = typename Dtype<T>::fma_out;
  const auto o = [](Out* p) { return reinterpret_cast<O*>(p); };
  c.work(fma_work<T>(n));
  c.reference([=] { fma_reference(as<T>(x.host()), o(out.ref()), n); });
  if (cpu) {
    c.cpu("serial", [=] { fma_serial(as<T>(x.host()), o(out.host()), n, kChainLength); });
    // The fp16 / int8 omp paths are AVX512_FP16 / AVX512_VNNI where the host has them.
    c.cpu("omp",
          [=, isa = fma_omp_path<T>()](twinbench::Row& r) {
            r.field("cpu_isa", isa);
            fma_omp(as<T>(x.host()), o(out.host()), n, kChainLength);
          },
          {.threaded = true});
  }
#if TWINBENCH_HAVE_CUDA
  if (!cpu)
    c.gpu("cuda",
          [=](twinbench::Launch& l) {
            gpu::dtypes_fma_cuda(fma_a<T>(), x.device(), out.device(), n, kChainLength, l.block(),
                                 l.stream());
          },
          {.modes = twinbench::Modes::unnamed, .stats = [n](const twinbench::Launch& l) {
             return gpu::dtypes_fma_cuda_stats(dtype_id<T>(), n, l.block());
           }});
#endif
}

template <class T>
void add_dtype(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kAxpySize}, kAxpyQuickSize)) axpy<T>(b, n);
  for (std::size_t n : b.sizes({kFmaCpuSize}, kFmaCpuQuickSize)) fma<T>(b, n, true);
#if TWINBENCH_HAVE_CUDA
  for (std::size_t n : b.sizes({kFmaGpuSize}, kFmaGpuQuickSize)) fma<T>(b, n, false);
#endif
}

void dtypes(twinbench::Bench& b) {
  add_dtype<double>(b);
  add_dtype<float>(b);
  add_dtype<f16>(b);
  add_dtype<std::int8_t>(b);
}

}  // namespace

TWINBENCH_BENCH("dtypes", "axpy and FMA chains in fp64, fp32, fp16 and int8", dtypes);

}  // namespace tb::dtypes
