#pragma once
// The rows of a twinbench::Workload (include/twinbench/twinbench.hpp): its inputs and buffers
// as harness-owned data, one CPU row per variant and size, and GPU rows per variant, size, mode
// and block size, each validated once before it is timed.
#include <algorithm>
#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/detail/cpu_run.hpp"
#include "common/harness.hpp"
#include "common/host_array.hpp"
#include "common/random.hpp"
#include "common/workload.hpp"
#if TWINBENCH_HAVE_CUDA
#include "bench/detail/gpu_run.hpp"
#endif

namespace twinbench::detail {

template <class W>
struct Types;
template <class Out, class... In>
struct Types<Workload<Out(In...)>> {
  using Output = Out;
  template <template <class> class Array>
  using Inputs = std::tuple<Array<In>...>;
};

template <class T>
void fill_input(std::span<T> in, std::uint64_t seed, std::pair<double, double> range) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::int32_t>,
                "inputs are float, double or int32 (common/random.hpp)");
  tb::fill_uniform(in, seed, static_cast<T>(range.first), static_cast<T>(range.second));
}

template <auto& W>
std::size_t output_size(std::size_t n) {
  return W.output_size ? W.output_size(n) : n;
}

// The host side: the inputs, the reference output and the output the CPU variants write.
template <auto& W>
struct HostData {
  using T = Types<std::remove_cvref_t<decltype(W)>>;
  typename T::template Inputs<tb::HostArray> in;
  tb::HostArray<typename T::Output> ref, out;

  explicit HostData(std::size_t n) : ref(output_size<W>(n)), out(output_size<W>(n)) {
    std::uint64_t seed = W.seed;
    std::apply([&](auto&... a) { ((a = std::remove_cvref_t<decltype(a)>(n), fill_input(a.span(), seed++, W.input_range)), ...); }, in);
    tb::poison(out.span());  // the first touch, from OpenMP's threads
    call(W.reference, ref.data(), n);
  }
  template <class Fn>
  void call(Fn fn, typename T::Output* dst, std::size_t n) const {
    std::apply([&](const auto&... a) { fn(a.data()..., dst, n); }, in);
  }
  static tb::Footprint weight(std::size_t n) {
    double bytes = 2.0 * sizeof(typename T::Output) * output_size<W>(n);
    std::apply([&](const auto&... a) { ((bytes += 1.0 * sizeof(*a.data()) * n), ...); },
               typename T::template Inputs<tb::HostArray>{});
    return {.host_bytes = bytes};
  }
};

template <auto& W, class Cpu>
void add_cpu_row(const tb::RunConfig& cfg, const Cpu& v, std::size_t n) {
  const tb::CpuKernel<decltype(v.run)> k{v.impl, v.run, v.threaded};
  tb::add_cpu_benchmark(cfg, k.spec(W.name, {{"n", n}}), W.work(n), [n, k](benchmark::State& s) {
    HostData<W>& d = tb::inputs<HostData<W>>(n);
    tb::run_cpu(s, W.tolerance, d.out.span(), d.ref.span(), [&] { d.call(k.run, d.out.data(), n); });
  });
}

#if TWINBENCH_HAVE_CUDA
// The device side: the inputs and output on the device and their pinned host copies.
template <auto& W>
struct DeviceData {
  using T = Types<std::remove_cvref_t<decltype(W)>>;
  tb::Stream stream;
  typename T::template Inputs<tb::DeviceBuffer> din;
  typename T::template Inputs<tb::PinnedBuffer> hin;
  tb::DeviceBuffer<typename T::Output> dout;
  tb::PinnedBuffer<typename T::Output> hout;

  explicit DeviceData(std::size_t n) : dout(output_size<W>(n)), hout(output_size<W>(n)) {
    const HostData<W>& h = tb::inputs<HostData<W>>(n);
    copy_inputs(h, n, std::make_index_sequence<std::tuple_size_v<decltype(din)>>{});
  }
  template <std::size_t... I>
  void copy_inputs(const HostData<W>& h, std::size_t n, std::index_sequence<I...>) {
    ((std::get<I>(din) = std::tuple_element_t<I, decltype(din)>(n),
      std::get<I>(hin) = tb::pinned(std::get<I>(h.in))), ...);
  }
  std::vector<tb::Upload> uploads() const {
    std::vector<tb::Upload> ups;
    std::apply([&](const auto&... d) {
      std::apply([&](const auto&... h) { (ups.push_back(tb::to_device(d, h)), ...); }, hin);
    }, din);
    return ups;
  }
  template <class Fn>
  void launch(Fn fn, std::size_t n, int block) const {
    std::apply([&](const auto&... d) { fn(d.data()..., dout.data(), n, block, stream); }, din);
  }
  // Inputs and output, on the device and again pinned.
  static tb::Footprint weight(std::size_t n) {
    const double bytes = HostData<W>::weight(n).host_bytes -
                         sizeof(typename T::Output) * 1.0 * output_size<W>(n);
    return {.host_bytes = bytes, .device_bytes = bytes};
  }
};

template <auto& W, class Gpu>
void add_gpu_row(const tb::RunConfig& cfg, const Gpu& v, std::size_t n, int block, tb::Mode mode) {
  const tb::GpuKernel<decltype(v.launch), decltype(v.stats)> k{v.impl, v.launch, v.stats};
  const auto spec = tb::bench_spec(W.name, k.impl, {{"n", n}}).with_block(block).in_mode(mode);
  tb::add_gpu_benchmark(cfg, spec, W.work(n), [=](benchmark::State& state) {
    DeviceData<W>& d = tb::inputs<DeviceData<W>>(n);
    const auto launch = [&d, n, block, k] { d.launch(k.launch, n, block); };
    tb::run_kernel(state, k, block, mode, d.stream, W.tolerance,
                   tb::io_stages(d.stream, d.uploads(), d.dout, d.hout,
                                 tb::inputs<HostData<W>>(n).ref.span(), W.tolerance, launch),
                   n, block);
  });
}
#endif

// The rows in the suite's order: for each size, the CPU variants, then for each mode the
// swept block sizes of the kernels that take one, then the library calls.
template <auto& W>
void register_rows(const tb::RunConfig& cfg) {
  for (std::size_t n : tb::sizes_1d(cfg, W.sizes, W.quick_size)) {
    for (const auto& v : W.cpu) add_cpu_row<W>(cfg, v, n);
#if TWINBENCH_HAVE_CUDA
    for (tb::Mode mode : tb::kModes) {
      for (int block : tb::blocks_1d(cfg, mode))
        for (const auto& v : W.gpu)
          if (!v.picks_own_block) add_gpu_row<W>(cfg, v, n, block, mode);
      for (const auto& v : W.gpu)
        if (v.picks_own_block) add_gpu_row<W>(cfg, v, n, 0, mode);
    }
#endif
  }
}

}  // namespace twinbench::detail
