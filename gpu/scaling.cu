// The scaling workload's host code: per-device buffers, streams and cuBLAS handles.
#include "gpu/scaling.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

#include "common/cuda_raii.hpp"
#include "common/host_array.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/poisson.hpp"
#include "cpu/sgemm.hpp"
#include "gpu/poisson.hpp"
#include "gpu/sgemm.hpp"

namespace tb::gpu::scaling {
namespace {

constexpr int kBlock = 256;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string verdict(const ErrorStats& e, const Tolerance& tol) {
  return passes(e, tol) ? std::string() : describe(e, tol);
}

struct RowRange {
  std::size_t first, count;
};

// The rows of C that GPU g computes.
RowRange rows_of(Mode m, std::size_t n, int g, int gpus) {
  if (m == Mode::weak) return {0, n};
  return {n / static_cast<std::size_t>(gpus) * static_cast<std::size_t>(g), share(m, n, g, gpus)};
}

}  // namespace

std::size_t share(Mode m, std::size_t total, int g, int gpus) {
  if (m == Mode::weak) return total;
  const std::size_t base = total / static_cast<std::size_t>(gpus);
  return g + 1 == gpus ? total - base * static_cast<std::size_t>(gpus - 1) : base;
}

// ---- Poisson.
struct PoissonShares::Impl {
  ErrorStats checked;
  std::vector<std::size_t> n;
  std::vector<DeviceBuffer<std::int32_t>> out;
  std::vector<Stream> streams;
  Impl(Mode m, std::size_t total, int gpus) {
    for (int g = 0; g < gpus; ++g) {
      const DeviceScope scope(g);
      n.push_back(share(m, total, g, gpus));
      out.emplace_back(n.back());
      streams.emplace_back();
    }
  }
  void launch_all() {
    for (std::size_t g = 0; g < out.size(); ++g) {
      const DeviceScope scope(static_cast<int>(g));
      gpu::poisson_cuda(out[g].data(), n[g], poisson::kSeed + g, poisson::default_table(), kBlock,
                        streams[g]);
    }
  }
  void wait_all() {
    for (auto& s : streams) s.synchronize();
  }
};

PoissonShares::PoissonShares(Mode m, std::size_t total, int gpus)
    : impl_(std::make_unique<Impl>(m, total, gpus)) {}
PoissonShares::~PoissonShares() = default;

double PoissonShares::run() {
  const auto t0 = std::chrono::steady_clock::now();
  impl_->launch_all();
  impl_->wait_all();
  return seconds_since(t0);
}

std::string PoissonShares::check() {
  Impl& d = *impl_;
  d.launch_all();
  d.wait_all();
  ErrorStats worst;
  for (std::size_t g = 0; g < d.out.size(); ++g) {
    HostArray<std::int32_t> got(d.n[g]), ref(d.n[g]);
    CUDA_CHECK(cudaMemcpy(got.data(), d.out[g].data(), d.n[g] * sizeof(std::int32_t),
                          cudaMemcpyDeviceToHost));
    poisson::omp(ref.data(), d.n[g], poisson::kSeed + g, poisson::default_table());
    const ErrorStats e = poisson::check_samples(got.span(), ref.span(), poisson::kRate);
    if (!passes(e, poisson::kTolerance)) return verdict(d.checked = e, poisson::kTolerance);
    if (e.max_abs > worst.max_abs) worst = e;
  }
  return verdict(d.checked = worst, poisson::kTolerance);
}
const ErrorStats& PoissonShares::checked() const { return impl_->checked; }

// ---- sgemm.
struct GemmInputs::Impl {
  std::size_t n;
  HostArray<float> a, b;
  sgemm::Reference ref;
  explicit Impl(std::size_t n_) : n(n_), a(n * n), b(n * n) {
    fill_uniform(a.span(), sgemm::kSeed, -1.f, 1.f);
    fill_uniform(b.span(), sgemm::kSeed + 1, -1.f, 1.f);
    ref = sgemm::reference(a.data(), b.data(), n);
  }
};

GemmInputs::GemmInputs(std::size_t n) : impl_(std::make_unique<Impl>(n)) {}
GemmInputs::~GemmInputs() = default;

struct GemmShares::Impl {
  ErrorStats checked;
  Mode mode;
  const GemmInputs::Impl& in;
  std::size_t n;
  std::vector<RowRange> rows;
  std::vector<DeviceBuffer<float>> a, b, c;
  std::vector<Stream> streams;
  std::vector<std::unique_ptr<gpu::CublasSgemm>> blas;
  Impl(Mode m, const GemmInputs::Impl& h, int gpus) : mode(m), in(h), n(h.n) {
    for (int g = 0; g < gpus; ++g) {
      const DeviceScope scope(g);
      const RowRange r = rows_of(m, n, g, gpus);
      rows.push_back(r);
      a.emplace_back(r.count * n);
      b.emplace_back(n * n);
      c.emplace_back(r.count * n);
      streams.emplace_back();
      blas.push_back(std::make_unique<gpu::CublasSgemm>(streams.back(), false));
      CUDA_CHECK(cudaMemcpy(a.back().data(), h.a.data() + r.first * n, r.count * n * sizeof(float),
                            cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(b.back().data(), h.b.data(), n * n * sizeof(float),
                            cudaMemcpyHostToDevice));
    }
  }
  void launch_all() {
    for (std::size_t g = 0; g < c.size(); ++g) {
      const DeviceScope scope(static_cast<int>(g));
      blas[g]->run_rows(a[g].data(), b[g].data(), c[g].data(), rows[g].count, n);
    }
  }
  void wait_all() {
    for (auto& s : streams) s.synchronize();
  }
};

GemmShares::GemmShares(Mode m, const GemmInputs& in, int gpus)
    : impl_(std::make_unique<Impl>(m, *in.impl_, gpus)) {}
GemmShares::~GemmShares() = default;

double GemmShares::run() {
  const auto t0 = std::chrono::steady_clock::now();
  impl_->launch_all();
  impl_->wait_all();
  return seconds_since(t0);
}

std::string GemmShares::check() {
  Impl& d = *impl_;
  for (std::size_t g = 0; g < d.c.size(); ++g) {
    const DeviceScope scope(static_cast<int>(g));
    CUDA_CHECK(cudaMemset(d.c[g].data(), 0xFF, d.c[g].bytes()));  // NaN: a row never written fails
  }
  d.launch_all();
  d.wait_all();
  HostArray<float> got(d.n * d.n);
  const Tolerance tol = sgemm::tolerance(d.n);
  ErrorStats worst;
  for (std::size_t g = 0; g < d.c.size(); ++g) {
    CUDA_CHECK(cudaMemcpy(got.data() + d.rows[g].first * d.n, d.c[g].data(), d.c[g].bytes(),
                          cudaMemcpyDeviceToHost));
    if (d.mode == Mode::weak || g + 1 == d.c.size()) {
      const ErrorStats e = sgemm::check(got.span(), d.in.ref);
      if (!passes(e, tol)) return verdict(d.checked = e, tol);
      if (e.max_rel > worst.max_rel) worst = e;
    }
  }
  return verdict(d.checked = worst, tol);
}
const ErrorStats& GemmShares::checked() const { return impl_->checked; }

}  // namespace tb::gpu::scaling
