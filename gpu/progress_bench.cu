#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <thread>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/gpu_timing.hpp"
#include "common/host_array.hpp"
#include "common/pair_stats.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "gpu/black_scholes_kernel.cuh"
#include "gpu/kernel_stats.cuh"
#include "gpu/nested_loop_kernel.cuh"
#include "gpu/poisson.hpp"
#include "gpu/poisson_kernel.cuh"
#include "gpu/progress.cuh"
#include "gpu/progress_bench.hpp"
#include "gpu/progress_live.hpp"
#include "gpu/sgemm.hpp"
#include "gpu/vector_add.hpp"
#include "gpu/vector_add_kernel.cuh"

namespace tb::gpu {
namespace {

using tb::progress::Strategy;

__global__ void vadd_article_kernel(const float* a, const float* b, float* c, std::size_t n,
                                    tb::progress::CounterRef counter) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
    progress::add(counter, 1ull);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Warp sums shuffle across all 32 lanes and block sums count whole warps.
void check_block_for(Strategy s, int block) {
  if (block <= 0 || block > 1024)
    throw std::invalid_argument("progress: block size must be 1..1024");
  if (block % 32 != 0 && s != Strategy::none && s != Strategy::per_thread)
    throw std::invalid_argument(
        "progress: per_warp, per_block and strided need a block size that is a multiple of 32");
}

template <class Progress>
long long poisson_grid(std::size_t n, int block) {
  return persistent_grid(poisson_detail::fast_kernel<Progress>, block,
                         static_cast<long long>(poisson_detail::stream_blocks(n, block)));
}

// gpu/nested_loop.cu's grids: one thread, or one warp, per i.
long long blocks_for(std::size_t threads, int block) {
  return static_cast<long long>((threads + static_cast<std::size_t>(block) - 1) / block);
}

void check_warp_block(int block) {
  if (block <= 0 || block % nested_loop_detail::kWarp != 0)
    throw std::invalid_argument("progress_nested_loop_warp: block must be a multiple of 32");
}

}  // namespace

void progress_vector_add(Strategy s, tb::progress::CounterRef counter, const float* a,
                         const float* b, float* c, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(a) || !aligned16(b) || !aligned16(c))
    throw std::invalid_argument("progress_vector_add: a, b and c must be 16-byte aligned");
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    vector_add_detail::launch(a, b, c, n, block, stream, policy);
  });
}

KernelStats progress_vector_add_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    // The grid launch() runs: one block per tile, so n = 1..3 is one block, not none. The
    // occupancy query passes no dynamic shared memory, which changes nothing here: the tiles
    // take 24 bytes per thread, 48 KiB for a full SM of 2048 threads.
    out = kernel_stats(vector_add_detail::tile_kernel<Policy>, block,
                       n > 0 ? vector_add_detail::tile_grid(n, block) : 0);
  });
  return out;
}

void progress_vector_add_article(tb::progress::CounterRef counter, const float* a, const float* b,
                                 float* c, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned>((n + block - 1) / block);
  vadd_article_kernel<<<grid, block, 0, stream>>>(a, b, c, n, counter);
  CUDA_CHECK_LAUNCH();
}

void progress_poisson(Strategy s, tb::progress::CounterRef counter, std::int32_t* out,
                      std::size_t n, std::uint64_t seed, const tb::poisson::CdfTable& table,
                      int block, unsigned rows_per_report, cudaStream_t stream) {
  if (n == 0) return;
  if (rows_per_report == 0) rows_per_report = 1;
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    using Policy = decltype(policy);
    poisson_detail::fast_kernel<Policy>
        <<<static_cast<unsigned>(poisson_grid<Policy>(n, block)), block, 0, stream>>>(
            out, n, seed, table, rows_per_report, policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_poisson_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(poisson_detail::fast_kernel<Policy>, block, poisson_grid<Policy>(n, block));
  });
  return out;
}

void progress_poisson_article(tb::progress::CounterRef counter, std::int32_t* out, std::size_t n,
                              std::uint64_t seed, double rate, int block, cudaStream_t stream) {
  if (n == 0) return;
  check_block_for(Strategy::per_thread, block);
  poisson_detail::article_kernel<progress::PerThread>
      <<<poisson_detail::article_grid(n, block), block, 0, stream>>>(
          out, n, seed, rate, 1u, progress::PerThread{counter});
  CUDA_CHECK_LAUNCH();
}

void progress_black_scholes(Strategy s, tb::progress::CounterRef counter, const float* spot,
                            const float* strike, const float* years, float* call, float* put,
                            std::size_t n, BlackScholesMarket market, int block,
                            cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(spot) || !aligned16(strike) || !aligned16(years) || !aligned16(call) ||
      !aligned16(put))
    throw std::invalid_argument("progress_black_scholes: all arrays must be 16-byte aligned");
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    using Policy = decltype(policy);
    black_scholes_detail::black_scholes_vec4_full_kernel<black_scholes_detail::FastPrice, Policy>
        <<<static_cast<unsigned>(black_scholes_detail::vec4_grid(n, block)), block, 0, stream>>>(
            reinterpret_cast<const float4*>(spot), reinterpret_cast<const float4*>(strike),
            reinterpret_cast<const float4*>(years), reinterpret_cast<float4*>(call),
            reinterpret_cast<float4*>(put), n, black_scholes_detail::coefficients(market), policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_black_scholes_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(
        black_scholes_detail::black_scholes_vec4_full_kernel<black_scholes_detail::FastPrice,
                                                             Policy>,
        block, black_scholes_detail::vec4_grid(n, block));
  });
  return out;
}

void progress_nested_loop(Strategy s, tb::progress::CounterRef counter, double* results,
                          std::size_t n, std::size_t m, int block, cudaStream_t stream) {
  if (n == 0) return;
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    nested_loop_detail::
        thread_kernel<<<static_cast<unsigned>(blocks_for(n, block)), block, 0, stream>>>(
            results, static_cast<std::int64_t>(n), static_cast<std::int64_t>(m), policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_nested_loop_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(nested_loop_detail::thread_kernel<Policy>, block, blocks_for(n, block));
  });
  return out;
}

void progress_nested_loop_warp(Strategy s, tb::progress::CounterRef counter, double* results,
                               std::size_t n, std::size_t m, int block, cudaStream_t stream) {
  check_warp_block(block);
  if (n == 0) return;
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    nested_loop_detail::
        warp_kernel<<<static_cast<unsigned>(blocks_for(n * nested_loop_detail::kWarp, block)),
                      block, 0, stream>>>(results, static_cast<std::int64_t>(n),
                                          static_cast<std::int64_t>(m), policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_nested_loop_warp_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(nested_loop_detail::warp_kernel<Policy>, block,
                       blocks_for(n * nested_loop_detail::kWarp, block));
  });
  return out;
}

}  // namespace tb::gpu

// ---- The rows' host side (bench/progress.cpp): the targets, on buffers of their own, and the
// A/B pairs timed against each other while a poller reads the count.
namespace tb::progress {

// The host's poison rule on the device (common/gpu_run.hpp poison_device).
template <class T>
void poison_device(const DeviceBuffer<T>& d, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(d.data(), poison_byte<T>(), d.bytes(), stream));
}

// One GPU target: its buffers, the instrumented launch, the uninstrumented baseline, and the
// check of its output.
class Target {
 public:
  virtual ~Target() = default;
  virtual std::size_t n() const = 0;
  // What the counter ends at after one instrumented kernel.
  virtual std::uint64_t items() const { return n(); }
  virtual Tolerance tolerance() const = 0;
  virtual void launch(Strategy s, CounterRef counter, cudaStream_t stream) = 0;
  // The article's kernel (one atomic per thread), and its shape without the atomic: by default
  // the target's own kernel with per_thread, against none.
  virtual void launch_article(CounterRef counter, cudaStream_t stream) {
    launch(Strategy::per_thread, counter, stream);
  }
  virtual void launch_article_baseline(cudaStream_t stream) {
    launch(Strategy::none, CounterRef{}, stream);
  }
  virtual void poison(cudaStream_t stream) = 0;
  virtual ErrorStats check() = 0;  // after the stream is synchronised
  // After launch_article, where its output differs from the target's own kernel's.
  virtual ErrorStats check_article() { return check(); }
  virtual gpu::KernelStats stats(Strategy s) const = 0;
  // Live progress (gpu/progress_live.hpp): the suite's kernel with a live policy (impl cuda;
  // none is that kernel itself), or the kernel written for it (impl cuda_live; none its twin).
  virtual void launch_live(Impl impl, Strategy s, const SlotBoard& board, cudaStream_t stream) {
    (void)impl;
    (void)board;
    if (s != Strategy::none) throw std::logic_error("progress: no live rows for this target");
    launch(Strategy::none, CounterRef{}, stream);
  }
  // The suite's fastest kernel for the target, which a cuda_live twin is timed against.
  virtual void launch_fastest(cudaStream_t stream) { launch(Strategy::none, CounterRef{}, stream); }
  // Before a live row's validation and samples: what the target needs of the board first (the
  // sgemm target computes its twin's output, which the live kernels must match bit for bit).
  virtual void prepare_live(const SlotBoard& board, cudaStream_t stream) {
    (void)board;
    (void)stream;
  }
  // The slots a live launch takes.
  virtual std::size_t live_writers(Impl impl, Strategy s) const = 0;
};

namespace {

class VectorAddTarget : public Target {
 public:
  explicit VectorAddTarget(std::size_t n) : n_(n), a_(n), b_(n), out_(n), da_(n), db_(n), dc_(n) {
    fill_uniform(a_.span(), vector_add::kSeed, -1.f, 1.f);
    fill_uniform(b_.span(), vector_add::kSeed + 1, -1.f, 1.f);
    CUDA_CHECK(cudaMemcpy(da_.data(), a_.data(), da_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db_.data(), b_.data(), db_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  }
  std::size_t n() const override { return n_; }
  Tolerance tolerance() const override { return vector_add::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    gpu::progress_vector_add(s, counter, da_.data(), db_.data(), dc_.data(), n_, kBlock, stream);
  }
  void launch_article(CounterRef counter, cudaStream_t stream) override {
    gpu::progress_vector_add_article(counter, da_.data(), db_.data(), dc_.data(), n_, kBlock,
                                     stream);
  }
  void launch_article_baseline(cudaStream_t stream) override {
    gpu::vector_add_cuda_article(da_.data(), db_.data(), dc_.data(), n_, kBlock, stream);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dc_, stream);
    tb::poison(out_.span());
  }
  ErrorStats check() override {
    tb::download(out_.span(), dc_);
    // Every element is one float add, as in vector_add: the sum must be exact.
    ErrorStats e;
    for (std::size_t i = 0; i < n_; ++i) {
      const float want = a_[i] + b_[i];
      if (!(out_[i] == want)) {
        const double err = std::fabs(static_cast<double>(out_[i]) - want);
        if (!(err <= e.max_abs)) {
          e.max_abs = std::isfinite(err) ? err : 1e30;
          e.max_rel = std::isfinite(err) ? err / std::fmax(std::fabs(want), 1e-30) : 1e30;
          e.worst_index = i;
        }
      }
    }
    return e;
  }
  gpu::KernelStats stats(Strategy s) const override {
    return gpu::progress_vector_add_stats(s, n_, kBlock);
  }
  void launch_live(Impl impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    if (impl != Impl::cuda_live)
      throw std::logic_error("progress: vector_add's live rows are cuda_live");
    gpu::live_vector_add(s, board, da_.data(), db_.data(), dc_.data(), n_, kBlock, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return s == Strategy::none ? 0
                               : static_cast<std::size_t>(gpu::live_vector_add_grid(n_, kBlock));
  }

 private:
  std::size_t n_;
  HostArray<float> a_, b_, out_;
  DeviceBuffer<float> da_, db_, dc_;
};

class PoissonTarget : public Target {
 public:
  explicit PoissonTarget(std::size_t n) : n_(n), ref_(n), out_(n), dout_(n) {
    poisson::serial(ref_.data(), n_, poisson::kSeed, poisson::default_table());
  }
  std::size_t n() const override { return n_; }
  Tolerance tolerance() const override { return poisson::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    gpu::progress_poisson(s, counter, dout_.data(), n_, poisson::kSeed, poisson::default_table(),
                          kBlock, gpu::kPoissonRowsPerReport, stream);
  }
  // The article's kernel (its walk, gpu::poisson_cuda_article) with its counter, an atomic per
  // sample, against the same kernel without it: the pair the Numba peer measures
  // (peers/numba/workloads/progress.py). It was the fast kernel with per_thread reporting every
  // sample: 7.34 ms at 10M on the H200 against the kernel's 28 us and the Numba peer's 1.25 ms.
  // Not the language: there the count added is a variable (the rows of a report chunk), so each
  // lane makes its own atomic, 10M on one word; where the added value is the constant 1 (this
  // kernel, vadd_article_kernel) the compiler aggregates the warp's adds: VOTEU.ANY + UPOPC, one
  // ATOMG by the leader (SASS, CUDA 13.0, sm_90). Numba's cuda.atomic.add(progress, 0, 1) is
  // aggregated the same way (its PTX from compile_ptx through ptxas 13.0: VOTEU.ANY, UPOPC, one
  // REDG.E.ADD.64 by the leader), hence its 1.25 ms against its kernel's 1.22 ms. This pair,
  // H200, block 256 (results/nvidia-h200/2026-12-01): 1220.1 us at 10M, +0.02% over the kernel
  // without the counter; Numba 1281.3 us, +0.56%.
  void launch_article(CounterRef counter, cudaStream_t stream) override {
    gpu::progress_poisson_article(counter, dout_.data(), n_, poisson::kSeed, poisson::kRate, kBlock,
                                  stream);
  }
  void launch_article_baseline(cudaStream_t stream) override {
    gpu::poisson_cuda_article(dout_.data(), n_, poisson::kSeed, poisson::kRate, kBlock, stream);
  }
  // The article's samples are not the fast kernel's: statistics only, as poisson/cuda_article.
  ErrorStats check_article() override {
    tb::download(out_.span(), dout_);
    return poisson::check_samples(out_.span(), {}, poisson::kRate);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dout_, stream);
    tb::poison(out_.span());
  }
  ErrorStats check() override {
    tb::download(out_.span(), dout_);
    return poisson::check_samples(out_.span(), ref_.span(), poisson::kRate);
  }
  gpu::KernelStats stats(Strategy s) const override {
    return gpu::progress_poisson_stats(s, n_, kBlock);
  }
  void launch_live(Impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_poisson(s, board, dout_.data(), n_, poisson::kSeed, poisson::default_table(), kBlock,
                      gpu::kPoissonRowsPerReport, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return gpu::live_writers(s, gpu::live_poisson_grid(s, n_, kBlock), kBlock);
  }

 private:
  std::size_t n_;
  HostArray<std::int32_t> ref_, out_;
  DeviceBuffer<std::int32_t> dout_;
};

// The cuda variant's kernel (black_scholes_vec4_full_kernel<FastPrice>); each thread reports
// once, at its end. The article's shape: per_thread on this kernel (an atomic per thread).
class BlackScholesTarget : public Target {
 public:
  explicit BlackScholesTarget(std::size_t n)
      : n_(n),
        spot_(n),
        strike_(n),
        years_(n),
        call_(n),
        put_(n),
        ref_call_(n),
        ref_put_(n),
        dspot_(n),
        dstrike_(n),
        dyears_(n),
        dcall_(n),
        dput_(n) {
    using namespace black_scholes;
    fill_uniform(spot_.span(), kSeed, kSpotLo, kSpotHi);
    fill_uniform(strike_.span(), kSeed + 1, kStrikeLo, kStrikeHi);
    fill_uniform(years_.span(), kSeed + 2, kYearsLo, kYearsHi);
    serial(spot_.data(), strike_.data(), years_.data(), ref_call_.data(), ref_put_.data(), n_);
    CUDA_CHECK(cudaMemcpy(dspot_.data(), spot_.data(), dspot_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(
        cudaMemcpy(dstrike_.data(), strike_.data(), dstrike_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dyears_.data(), years_.data(), dyears_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  }
  std::size_t n() const override { return n_; }
  Tolerance tolerance() const override { return black_scholes::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    gpu::progress_black_scholes(s, counter, dspot_.data(), dstrike_.data(), dyears_.data(),
                                dcall_.data(), dput_.data(), n_, market(), kBlock, stream);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dcall_, stream);
    poison_device(dput_, stream);
    tb::poison(call_.span());
    tb::poison(put_.span());
  }
  ErrorStats check() override {
    tb::download(call_.span(), dcall_);
    tb::download(put_.span(), dput_);
    return black_scholes::compare_prices(call_.data(), put_.data(), ref_call_.data(),
                                         ref_put_.data(), n_);
  }
  gpu::KernelStats stats(Strategy s) const override {
    return gpu::progress_black_scholes_stats(s, n_, kBlock);
  }
  void launch_live(Impl impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_black_scholes(s, board, dspot_.data(), dstrike_.data(), dyears_.data(), dcall_.data(),
                            dput_.data(), n_, market(), kBlock, impl == Impl::cuda_live, stream);
  }
  std::size_t live_writers(Impl impl, Strategy s) const override {
    return gpu::live_writers(s, gpu::live_black_scholes_grid(n_, kBlock, impl == Impl::cuda_live),
                             kBlock);
  }

 private:
  static gpu::BlackScholesMarket market() {
    return {black_scholes::kRiskFree, black_scholes::kVolatility};
  }
  std::size_t n_;
  HostArray<float> spot_, strike_, years_, call_, put_;
  HostArray<double> ref_call_, ref_put_;
  DeviceBuffer<float> dspot_, dstrike_, dyears_, dcall_, dput_;
};

// nested_loop's cuda (one thread per i) or cuda_warp (one warp per i) kernel, N = M = n; the
// counter counts inner iterations. The article's shape: per_thread on the kernel.
class NestedLoopTarget : public Target {
 public:
  NestedLoopTarget(std::size_t n, bool warp) : n_(n), warp_(warp), ref_(n), out_(n), dout_(n) {
    nested_loop::serial(ref_.data(), n_, n_);
  }
  std::size_t n() const override { return n_; }
  std::uint64_t items() const override { return static_cast<std::uint64_t>(n_) * n_; }
  Tolerance tolerance() const override { return nested_loop::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    if (warp_)
      gpu::progress_nested_loop_warp(s, counter, dout_.data(), n_, n_, kBlock, stream);
    else
      gpu::progress_nested_loop(s, counter, dout_.data(), n_, n_, kBlock, stream);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dout_, stream);
    tb::poison(out_.span());
  }
  ErrorStats check() override {
    tb::download(out_.span(), dout_);
    return compare(std::span<const double>(out_.span()), std::span<const double>(ref_.span()));
  }
  gpu::KernelStats stats(Strategy s) const override {
    return warp_ ? gpu::progress_nested_loop_warp_stats(s, n_, kBlock)
                 : gpu::progress_nested_loop_stats(s, n_, kBlock);
  }
  void launch_live(Impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_nested_loop(s, board, dout_.data(), n_, n_, kBlock, warp_, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return gpu::live_writers(s, gpu::live_nested_loop_grid(n_, kBlock, warp_), kBlock);
  }

 private:
  std::size_t n_;
  bool warp_;
  HostArray<double> ref_, out_;
  DeviceBuffer<double> dout_;
};

// C = A B at n x n with the suite's sgemm/cuda_optimized, only as live rows: live_block is the
// kernel counting its finished tiles (gpu/sgemm.hpp sgemm_cuda_optimized_counted), none the
// kernel itself. Its check samples kSgemmChecked elements of C against a float64 dot product on
// the host (the full reference is 1.1 TFLOP at 8192), held to sgemm's tolerance (cpu/sgemm.hpp:
// the probabilistic bound of a K-deep fp32 chain, relative to sum |a b|), and requires the
// counting kernel's C to equal the uncounted one's bit for bit (same mainloop, same order),
// which catches a counting kernel that breaks even one element.
constexpr std::size_t kSgemmChecked = 256;

class SgemmTarget : public Target {
 public:
  explicit SgemmTarget(std::size_t n)
      : n_(n), a_(n * n), b_(n * n), c_(n * n), twin_(n * n), da_(n * n), db_(n * n), dc_(n * n) {
    fill_uniform(a_.span(), 4242, -1.f, 1.f);
    fill_uniform(b_.span(), 4243, -1.f, 1.f);
    CUDA_CHECK(cudaMemcpy(da_.data(), a_.data(), da_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db_.data(), b_.data(), db_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::size_t n() const override { return n_; }
  std::uint64_t items() const override { return gpu::sgemm_optimized_tiles(n_); }
  Tolerance tolerance() const override { return sgemm::tolerance(n_); }
  void launch(Strategy, CounterRef, cudaStream_t) override {
    throw std::logic_error("progress: sgemm has live rows only");
  }
  void launch_live(Impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    if (s == Strategy::none)
      gpu::sgemm_cuda_optimized(da_.data(), db_.data(), dc_.data(), n_, stream);
    else if (s == Strategy::live_block)
      gpu::sgemm_cuda_optimized_counted(da_.data(), db_.data(), dc_.data(), n_,
                                        board.ref(live_writers(Impl::cuda, s)), stream);
    else
      throw std::logic_error("progress: sgemm counts tiles per block (live_block) only");
  }
  // One slot a tile of C.
  std::size_t live_writers(Impl, Strategy s) const override {
    return s == Strategy::none ? 0 : gpu::sgemm_optimized_tiles(n_);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dc_, stream);
    tb::poison(c_.span());
  }
  // The uncounted kernel's C, computed once, for the bitwise comparison.
  void prepare_live(const SlotBoard& board, cudaStream_t stream) override {
    if (have_twin_) return;
    poison(stream);
    launch_live(Impl::cuda, Strategy::none, board, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    tb::download(twin_.span(), dc_);
    have_twin_ = true;
  }
  ErrorStats check() override {
    tb::download(c_.span(), dc_);
    ErrorStats e;
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    for (std::size_t s = 0; s < kSgemmChecked; ++s) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const std::size_t idx = (state >> 11) % (n_ * n_);
      const std::size_t i = idx / n_, j = idx % n_;
      double c = 0, bound = 0;
      for (std::size_t k = 0; k < n_; ++k) {
        const double p = static_cast<double>(a_[i * n_ + k]) * b_[k * n_ + j];
        c += p;
        bound += std::fabs(p);
      }
      const double err = std::fabs(static_cast<double>(c_[idx]) - c);
      const double rel = std::isfinite(err) ? err / std::max(bound, 1e-30) : 1e30;
      if (!(rel <= e.max_rel)) {
        e.max_rel = rel;
        e.max_abs = std::isfinite(err) ? err : 1e30;
        e.worst_index = idx;
      }
    }
    if (have_twin_)
      for (std::size_t k = 0; k < n_ * n_; ++k)
        if (!(c_[k] == twin_[k]) && !(std::isnan(c_[k]) && std::isnan(twin_[k]))) {
          std::fprintf(stderr, "progress: sgemm C[%zu] differs from the uncounted kernel's\n", k);
          e.max_rel = 1e30;
          e.worst_index = k;
          break;
        }
    return e;
  }
  gpu::KernelStats stats(Strategy) const override { return {}; }

 private:
  std::size_t n_;
  HostArray<float> a_, b_, c_, twin_;
  DeviceBuffer<float> da_, db_, dc_;
  bool have_twin_ = false;
};

std::unique_ptr<Target> make_target(TargetKind kind, std::size_t n) {
  switch (kind) {
    case TargetKind::vector_add:
      return std::make_unique<VectorAddTarget>(n);
    case TargetKind::poisson:
      return std::make_unique<PoissonTarget>(n);
    case TargetKind::black_scholes:
      return std::make_unique<BlackScholesTarget>(n);
    case TargetKind::nested_loop:
      return std::make_unique<NestedLoopTarget>(n, false);
    case TargetKind::nested_loop_warp:
      return std::make_unique<NestedLoopTarget>(n, true);
    case TargetKind::sgemm:
      return std::make_unique<SgemmTarget>(n);
  }
  throw std::logic_error("progress: unknown target");
}

Counter& counter(CounterKind kind) {
  static std::unique_ptr<Counter> counters[2];
  auto& c = counters[kind == CounterKind::mapped ? 0 : 1];
  if (!c) c = std::make_unique<Counter>(kind);
  return *c;
}

// The slot boards of the live rows, one per slot stride and placement, grown to the largest
// launch asked for.
SlotBoard& board(const LiveRow& row, std::size_t writers) {
  static std::unique_ptr<SlotBoard> boards[2][2];
  auto& b = boards[row.stride_words == 1 ? 0 : 1][row.where == Placement::device ? 1 : 0];
  if (!b || b->capacity() < writers)
    b = std::make_unique<SlotBoard>(std::max<std::size_t>(writers, 1024), row.stride_words,
                                    row.where);
  return *b;
}

Stream& bench_stream() {
  static Stream s;
  return s;
}

// What one row runs: the instrumented kernel, its baseline, the stream, and the read.
struct Setup {
  std::function<void()> instrumented;
  std::function<void()> baseline;
  std::function<std::uint64_t()> read;
  std::function<void()> reset;  // the count to 0 once the kernels before it are done
  cudaStream_t stream;
  std::uint64_t expected_count;  // the counter after one instrumented kernel
  // Queue each pair behind a launch gate. Not for the article's setup: its poller's cudaMemcpy
  // on the legacy stream waits behind the closed gate and can hold up the thread that would
  // open it (on the H200 the gate then timed out).
  bool gated = true;
  bool article = false;  // validated with Target::check_article
  // The poller's period: the live rows read faster than the 1 ms of the others, so that a kernel
  // of 20 ms can show 50 values and more (a read of ~10,000 slots takes some microseconds).
  std::chrono::microseconds poll{1000};
};

// One instrumented run from poisoned outputs and a zeroed count: the output must match the
// reference and the count (`s.read`: a counter's value, or the sum of a board's slots) the
// items exactly.
ErrorStats validate(Target& t, const Setup& s) {
  t.poison(s.stream);
  s.reset();
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  ErrorStats e = s.article ? t.check_article() : t.check();
  const std::uint64_t count = s.read();
  if (count != s.expected_count) {
    std::fprintf(stderr, "progress: the count ended at %llu, expected %llu\n",
                 static_cast<unsigned long long>(count),
                 static_cast<unsigned long long>(s.expected_count));
    e.max_rel = 1e30;
    e.max_abs = std::fabs(static_cast<double>(count) - static_cast<double>(s.expected_count));
  }
  return e;
}

// A row's samples, from before_samples to after_samples: the A/B measurement of
// common/gpu_timing.hpp time_gpu_ab (cold, gated, the order alternating) with a poller on the
// count. Cold matters here: without the flushes the pair ran back to back on whatever the
// previous kernel left in the L2 (the Poisson target's 40 MB output fits in it), and on the
// H200 the `none` row timed against itself read +1.76% at 10M samples (a run since replaced, in
// git history); flushed, +0.40% at 10M and +0.06% at 100M (H200, another run), and -0.33% /
// +0.05% in a third run (also in git history).
struct Window {
  explicit Window(Setup setup) : s(std::move(setup)) {}
  Setup s;
  std::unique_ptr<Poller> poller;
  std::chrono::steady_clock::time_point wall_start;
  Event e0, e1, e2, e3;
  LaunchGate gate;
  bool cold = false;
  PairRecorder pairs;

  double pair() {
    const bool a_first = pairs.count() % 2 == 0;
    if (s.gated) gate.close(s.stream);
    if (cold) flush_l2(s.stream);
    e0.record(s.stream);
    a_first ? s.baseline() : s.instrumented();
    e1.record(s.stream);
    if (cold) flush_l2(s.stream);
    e2.record(s.stream);
    a_first ? s.instrumented() : s.baseline();
    const cudaError_t err = cudaEventRecord(e3.get(), s.stream);
    if (s.gated) gate.open();  // before any throw, or the GPU waits for the gate's timeout
    CUDA_CHECK(err);
    e3.synchronize();
    if (s.gated && gate.timed_out())
      throw std::runtime_error("the kernels waited behind the launch gate until it timed out");
    const double first = e1.seconds_since(e0), second = e3.seconds_since(e2);
    const double t_a = a_first ? first : second, t_b = a_first ? second : first;
    pairs.add(t_a, t_b);
    return t_b;
  }
};

// One row: its setup, made where it runs (the target's buffers are the case's), the check's
// errors and the samples' window.
struct PairState {
  TargetRef target;
  std::function<Setup(Target&)> make;
  std::function<void(Target&, twinbench::Row&)> record;  // the row's own counters
  ErrorStats errors;
  bool checked = false;
  std::unique_ptr<Window> window;
};

PairRow pair_row(TargetRef target, std::function<Setup(Target&)> make,
                 std::function<void(Target&, twinbench::Row&)> record) {
  auto st = std::make_shared<PairState>();
  st->target = std::move(target);
  st->make = std::move(make);
  st->record = std::move(record);
  PairRow r;
  r.check = [st] {
    Target& t = st->target.get();
    const Setup s = st->make(t);
    const Tolerance tol = t.tolerance();
    st->errors = validate_poisoned([&] { return validate(t, s); }, tol);
    st->checked = true;
    return passes(st->errors, tol) ? std::string() : describe(st->errors, tol);
  };
  r.before = [st](twinbench::Row&) {
    auto w = std::make_unique<Window>(st->make(st->target.get()));
    const Setup& s = w->s;
    s.baseline();
    s.instrumented();
    CUDA_CHECK(cudaStreamSynchronize(s.stream));
    w->poller = std::make_unique<Poller>(
        s.read, Poller::Options{.interval = s.poll, .display = Display::quiet, .out = nullptr});
    // Let the poller see the warm-up's final value, so that it is not counted in the window.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    w->poller->reset_counts();
    w->wall_start = std::chrono::steady_clock::now();
    w->cold = cold_caches();
    st->window = std::move(w);
  };
  // Outside the window, the check's run: the check runs the row itself.
  r.sample = [st](twinbench::Row&) { return st->window ? st->window->pair() : 0.0; };
  r.after = [st](twinbench::Row& row) {
    const std::unique_ptr<Window> w = std::move(st->window);
    if (!w) return;
    row.counter("l2_flushed", w->cold ? 1 : 0);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - w->wall_start).count();
    w->poller->stop();
    const PollStats ps = w->poller->stats();
    if (!ps.error.empty())
      std::fprintf(stderr, "progress: the poller stopped: %s\n", ps.error.c_str());
    if (st->checked) {  // the check's own errors (the row has no outputs of the harness's)
      row.counter("max_abs_err", st->errors.max_abs);
      row.counter("max_rel_err", st->errors.max_rel);
    }
    const PairStats p = w->pairs.stats();
    if (p.pairs > 0 && p.a_sum > 0) {
      row.counter("overhead_pct", p.excess_pct);
      if (p.has_median) {
        row.counter("overhead_median_pct", p.median_pct);
        row.counter("overhead_lo_pct", p.lo_pct);
        row.counter("overhead_hi_pct", p.hi_pct);
      }
      row.counter("t_none_us", p.a_sum / p.pairs * 1e6);
      row.counter("distinct_updates", static_cast<double>(ps.changes) / p.pairs);
      row.counter("updates_per_s", p.b_sum > 0 ? static_cast<double>(ps.changes) / p.b_sum : 0.0);
      row.counter("polls_per_s", wall > 0 ? static_cast<double>(ps.polls) / wall : 0.0);
    }
    st->record(st->target.get(), row);
  };
  return r;
}

}  // namespace

TargetRef declare_target(twinbench::Case& c, TargetKind kind, std::size_t n) {
  const TargetMemory m = target_memory(kind, n);
  c.extra_memory(m.host_bytes, m.device_bytes);
  return c.shared<Target>([kind, n] { return make_target(kind, n); });
}

PairRow cuda_row(const TargetRef& target, Strategy strategy, CounterKind ck) {
  return pair_row(
      target,
      [strategy, ck](Target& t) {
        Counter& ctr = counter(ck);
        const cudaStream_t stream = bench_stream();
        return Setup{
            .instrumented = [&t, &ctr, strategy, stream] { t.launch(strategy, ctr.ref(), stream); },
            .baseline = [&t, stream] { t.launch(Strategy::none, CounterRef{}, stream); },
            .read = [&ctr] { return ctr.read(); },
            .reset = [&ctr, stream] { ctr.reset(stream); },
            .stream = stream,
            .expected_count = strategy == Strategy::none ? 0 : t.items(),
        };
      },
      [strategy](Target& t, twinbench::Row& row) { row.stats(t.stats(strategy)); });
}

// The article's approach: kernel and reads on the legacy default stream, device counter.
PairRow article_row(const TargetRef& target) {
  return pair_row(
      target,
      [](Target& t) {
        Counter& ctr = counter(CounterKind::device);
        const cudaStream_t stream = cudaStreamLegacy;
        return Setup{
            .instrumented = [&t, &ctr, stream] { t.launch_article(ctr.ref(), stream); },
            .baseline = [&t, stream] { t.launch_article_baseline(stream); },
            .read = [&ctr] { return ctr.read_legacy(); },
            .reset = [&ctr, stream] { ctr.reset(stream); },
            .stream = stream,
            .expected_count = t.items(),
            .gated = false,
            .article = true,
        };
      },
      [](Target&, twinbench::Row&) {});
}

// A live row: the instrumented kernel against its twin (impl cuda: the suite's kernel; cuda_live:
// the same kernel with the reporting compiled out), or, for cuda_live's strategy:none, the twin
// against the suite's fastest kernel (how far the twin is from it). The poller reads the slots
// every 50 us.
PairRow live_row(const TargetRef& target, const LiveRow& row) {
  return pair_row(
      target,
      [row](Target& t) {
        const cudaStream_t stream = bench_stream();
        SlotBoard& b = board(row, t.live_writers(row.impl, row.strategy));
        t.prepare_live(b, stream);
        const bool twin_row = row.impl == Impl::cuda_live && row.strategy == Strategy::none;
        return Setup{
            .instrumented = [&t, &b, row,
                             stream] { t.launch_live(row.impl, row.strategy, b, stream); },
            .baseline =
                [&t, &b, row, stream, twin_row] {
                  if (twin_row)
                    t.launch_fastest(stream);
                  else
                    t.launch_live(row.impl, Strategy::none, b, stream);
                },
            .read = [&b] { return b.read(); },
            .reset = [&b, stream] { b.reset(stream); },
            .stream = stream,
            .expected_count = row.strategy == Strategy::none ? 0 : t.items(),
            .poll = std::chrono::microseconds(50),
        };
      },
      [row](Target& t, twinbench::Row& r) {
        r.counter("slots", static_cast<double>(t.live_writers(row.impl, row.strategy)));
        r.counter("slot_bytes", 8.0 * row.stride_words);
      });
}

}  // namespace tb::progress
