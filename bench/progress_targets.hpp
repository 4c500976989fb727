#pragma once
// progress's targets (bench/progress.cpp, its only includer): for each workload whose kernel the
// progress rows instrument, its buffers, the instrumented and uninstrumented launches, and the
// check of its output; made and released as the harness's inputs.
#if TWINBENCH_HAVE_CUDA
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/gpu_context.hpp"
#include "common/progress.hpp"
#include "cpu/black_scholes.hpp"
#include "cpu/nested_loop.hpp"
#include "cpu/poisson.hpp"
#include "cpu/sgemm.hpp"
#include "cpu/vector_add.hpp"

#include "bench/progress_rows.hpp"
#include "gpu/poisson.hpp"
#include "gpu/progress_bench.hpp"
#include "gpu/progress_live.hpp"
#include "gpu/sgemm.hpp"
#include "gpu/vector_add.hpp"

namespace tb::progress {

// One GPU target: its buffers, the instrumented launch, the uninstrumented baseline, and the
// check of its output.
struct Target {
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
inline constexpr std::size_t kSgemmChecked = 256;

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

// What each target's constructor allocates: its pageable host arrays and device buffers.
inline Footprint target_footprint(TargetKind kind, std::size_t n) {
  const double f = sizeof(float), i32 = sizeof(std::int32_t), f64 = sizeof(double);
  const double count = static_cast<double>(n);
  switch (kind) {
    case TargetKind::vector_add:  // a, b, out; da, db, dc
      return {.host_bytes = 3 * f * count, .device_bytes = 3 * f * count};
    case TargetKind::poisson:  // ref, out; dout
      return {.host_bytes = 2 * i32 * count, .device_bytes = i32 * count};
    case TargetKind::black_scholes:  // 5 float inputs/outputs + 2 double references; 5 on device
      return {.host_bytes = (5 * f + 2 * f64) * count, .device_bytes = 5 * f * count};
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:  // ref, out; dout
      return {.host_bytes = 2 * f64 * count, .device_bytes = f64 * count};
    case TargetKind::sgemm:  // a, b, c, twin; da, db, dc (n x n each)
      return {.host_bytes = 4 * f * count * count, .device_bytes = 3 * f * count * count};
  }
  return {};
}

inline std::unique_ptr<Target> make_target(TargetKind kind, std::size_t n) {
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

// A target as the harness's inputs: one alive at a time, released with the workload.
struct TargetInputs {
  std::unique_ptr<Target> target;
  TargetInputs(TargetKind kind, std::size_t n) : target(make_target(kind, n)) {}
  static Footprint weight(TargetKind kind, std::size_t n) { return target_footprint(kind, n); }
};

inline Target& target(TargetKind kind, std::size_t n) { return *inputs<TargetInputs>(kind, n).target; }

}  // namespace tb::progress
#endif  // TWINBENCH_HAVE_CUDA
