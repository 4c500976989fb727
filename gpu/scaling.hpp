#pragma once
// The scaling workload's GPU side (host code, in scaling.cu): work spread over G GPUs of one
// process, each share on its own device's stream, launched together and waited for together.
#include <cstddef>
#include <memory>
#include <string>

#include "common/validate.hpp"

namespace tb::gpu::scaling {

enum class Mode { strong, weak };
inline const char* mode_name(Mode m) { return m == Mode::strong ? "strong" : "weak"; }

// Items of GPU g of G: strong splits `total`, the last GPU taking the remainder; weak gives
// every GPU all of them.
std::size_t share(Mode m, std::size_t total, int g, int gpus);

// Poisson sampling (the poisson workload's cuda kernel): GPU g draws its share from seed
// poisson::kSeed + g into an output of its own.
class PoissonShares {
 public:
  PoissonShares(Mode m, std::size_t total, int gpus);
  ~PoissonShares();
  // Every share launched, then every GPU waited for: the host's seconds.
  double run();
  // Every share against the CPU sampler for its seed: "" or the worst share's failure.
  std::string check();
  const ErrorStats& checked() const;  // the last check's errors (the worst share's)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A and B of the sgemm workload (its seeds) and the float64 reference of C = A B: made once.
class GemmInputs {
 public:
  explicit GemmInputs(std::size_t n);
  ~GemmInputs();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// C = A B in FP32 (cuBLAS) split by rows: GPU g holds B and its rows of A and computes its rows
// of C (strong: n/G rows each; weak: every GPU the whole product).
class GemmShares {
 public:
  GemmShares(Mode m, const GemmInputs& in, int gpus);
  ~GemmShares();
  double run();
  // The rows each GPU computed in their place in C (poisoned with NaN first), against the
  // reference with the sgemm workload's tolerance: strong assembles C from the shares, weak
  // checks every GPU's whole C. "" or the failure.
  std::string check();
  const ErrorStats& checked() const;  // the last check's errors

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tb::gpu::scaling
