#include "cpu/sgemm_libs.hpp"

#include <climits>
#include <stdexcept>

#include "common/cpu_isa.hpp"

#if TWINBENCH_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace tb::sgemm {
namespace {

// BLAS and oneDNN take int dimensions.
int checked_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX) / 2) throw std::invalid_argument("sgemm: n too large");
  return static_cast<int>(n);
}

}  // namespace

void openblas(const blas::OpenBlas& lib, const float* a, const float* b, float* c, std::size_t n) {
  if (n == 0) return;
  const int m = checked_int(n);
  lib.sgemm(blas::kRowMajor, blas::kNoTrans, blas::kNoTrans, m, m, m, 1.f, a, m, b, m, 0.f, c, m);
}

#if TWINBENCH_HAVE_DNNL

const std::string& onednn_unavailable_reason() {
  static const std::string none;
  return none;
}

const std::string& onednn_bf16_unavailable_reason() {
  static const std::string why = [] {
    try {
      OnednnMatmul probe(16, true);
      return std::string();
    } catch (const std::exception& e) {
      return std::string("no oneDNN BF16 matmul for this CPU: ") + e.what();
    }
  }();
  return why;
}

// --cpu-isa lowers oneDNN too, as it lowers OpenBLAS's core (cpu/blas.cpp): oneDNN reads its
// limit once, before its first primitive, so the level active then decides (the tests change the
// level later; they run the libraries at the host's).
void limit_onednn_isa() {
  static const bool once = [] {
    switch (cpu_isa::active_level()) {
      case cpu_isa::Level::avx512:
        break;
      case cpu_isa::Level::avx2:
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
        break;
      default:
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::sse41);
        break;
    }
    return true;
  }();
  (void)once;
}

// oneDNN 2.x API (Debian's 2.6): matmul::desc, then a primitive descriptor on the CPU engine.
// The memory objects are created here once; run() only points them at the caller's buffers.
// Why Debian's 2.6 and not a newer oneDNN: Intel's 3.2 wheel (PyPI) was tried (in git
// history, reverted) and measured on the H200 host in the same bundle's run: BF16 4096 32.8 ms against
// 34.1 ms for 2.6 in the committed run (4%, within the CPU rows' between-run moves), FP32 4096
// 121.4 against 120.7 ms: nothing that pays for a 54 MB library from outside Debian. What limits
// the BF16 row (~4.2 TFLOP/s, 30% of the AMX roof the suite measures, 14.2-14.9 TFLOP/s) is not
// the library's version; see README.md's results section.
struct OnednnMatmul::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
  dnnl::memory a, b, c;
  std::string impl;
};

OnednnMatmul::OnednnMatmul(std::size_t n, bool bf16) : state_(std::make_unique<State>()) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::dim m = checked_int(n);
  const dt in = bf16 ? dt::bf16 : dt::f32;
  limit_onednn_isa();
  try {
    const dnnl::memory::desc a_md({m, m}, in, tag::ab), b_md({m, m}, in, tag::ab),
        c_md({m, m}, dt::f32, tag::ab);
    State& s = *state_;
    s.pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), s.engine);
    s.primitive = dnnl::matmul(s.pd);
    s.a = dnnl::memory(a_md, s.engine, DNNL_MEMORY_NONE);
    s.b = dnnl::memory(b_md, s.engine, DNNL_MEMORY_NONE);
    s.c = dnnl::memory(c_md, s.engine, DNNL_MEMORY_NONE);
    s.impl = s.pd.impl_info_str();
  } catch (const dnnl::error& e) {
    throw std::runtime_error(std::string("oneDNN matmul (") + (bf16 ? "bf16" : "f32") +
                             "): " + e.what());
  }
}

void OnednnMatmul::run(const void* a, const void* b, float* c) const {
  State& s = *state_;
  s.a.set_data_handle(const_cast<void*>(a));
  s.b.set_data_handle(const_cast<void*>(b));
  s.c.set_data_handle(c);
  s.primitive.execute(s.stream,
                      {{DNNL_ARG_SRC, s.a}, {DNNL_ARG_WEIGHTS, s.b}, {DNNL_ARG_DST, s.c}});
  s.stream.wait();
}

const std::string& OnednnMatmul::impl() const { return state_->impl; }

#else

const std::string& onednn_unavailable_reason() {
  static const std::string why = "oneDNN not found at build time (install libdnnl-dev)";
  return why;
}

struct OnednnMatmul::State {
  std::string impl;
};

const std::string& onednn_bf16_unavailable_reason() { return onednn_unavailable_reason(); }

OnednnMatmul::OnednnMatmul(std::size_t, bool) {
  throw std::runtime_error(onednn_unavailable_reason());
}
void OnednnMatmul::run(const void*, const void*, float*) const {}
const std::string& OnednnMatmul::impl() const { return state_->impl; }

#endif

OnednnMatmul::~OnednnMatmul() = default;
OnednnMatmul::OnednnMatmul(OnednnMatmul&&) noexcept = default;
OnednnMatmul& OnednnMatmul::operator=(OnednnMatmul&&) noexcept = default;

}  // namespace tb::sgemm
