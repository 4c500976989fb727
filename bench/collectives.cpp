// collectives benchmarks: NCCL's all_reduce, all_gather, reduce_scatter, broadcast and all_to_all
// of float32 over every GPU the process sees (one rank per device, one process:
// ncclCommInitAll), at nccl-tests' sizes from 8 B (common/collectives.hpp has the size and
// bandwidth definitions). Timed as nccl-tests times them: the host's clock around the group
// launch and the wait for every rank's stream, so a small size's time is NCCL's launch and
// synchronisation cost. Counters: algbw_GBps = bytes / time and busbw_GBps = algbw x the op's
// bus factor (0 with one GPU, where nothing crosses a link: those rows measure NCCL's local copy
// and its overhead), ranks. Validated once per row, exactly: every received element of every
// rank against the expected integer-valued sum or copy (the receive buffers poisoned with NaN
// first). NCCL is loaded at run time: without libnccl.so.2 the rows skip with the loader's
// reason.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "bench/twinbench.hpp"
#include "common/collectives.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_context.hpp"
#include "common/host_api_timing.hpp"
#include "gpu/collectives.hpp"
#include "gpu/nccl.hpp"
#endif

namespace tb::collectives {
namespace {

#if TWINBENCH_HAVE_CUDA
namespace nccl = gpu::nccl;

// Every device the process sees, as ranks 0..n-1.
std::vector<int> all_devices() {
  std::vector<int> d(static_cast<std::size_t>(std::max(gpu_info().device_count, 1)));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

struct CommData {  // the communicators: made once for the workload, their set-up untimed
  nccl::Comms comms;
  explicit CommData(int ranks) : comms(all_devices()) { (void)ranks; }
  static Footprint weight(int) { return {}; }
};

struct BufferData {
  gpu::collectives::Buffers buffers;
  BufferData(Op op, std::size_t bytes, int) : buffers(all_devices(), op, bytes) {}
  // One rank's send and receive buffers on its device (each device has its own; the check is
  // against device 0's free memory, the others alike).
  static Footprint weight(Op op, std::size_t bytes, int ranks) {
    const Counts c = counts(op, bytes, ranks);
    return {.device_bytes = 4.0 * static_cast<double>(c.send + c.recv)};
  }
};


void add_nccl(const RunConfig& cfg, Op op, std::size_t bytes, int ranks) {
  const auto spec = bench_spec("collectives", "nccl",
                               {{"op", op_name(op)}, {"bytes", bytes}, {"gpus", ranks}});
  const double moved = static_cast<double>(effective_bytes(op, bytes, ranks));
  const WorkModel w{.read_bytes = moved, .items = 1.0, .held_to_ceiling = false};
  add_host_timed_gpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (!nccl::api().ok()) return skip(state, nccl::api().error);
    if (counts(op, bytes, ranks).send == 0)
      return skip(state, std::to_string(bytes) + " bytes is under one float32 per rank of " +
                             std::to_string(ranks));
    const nccl::Comms& comms = inputs<CommData>(ranks).comms;
    auto& b = inputs<BufferData>(op, bytes, ranks).buffers;
    if (!validate_once(state, Tolerance{0.0},
                       [&] { return count_errors(static_cast<double>(b.mismatches(comms))); }))
      return;
    b.launch(comms);  // warm-up
    b.synchronize();
    timed_loop(state, "us_per_op", 1.0, [&] {
      b.launch(comms);
      b.synchronize();
    });
    const double seconds = state.counters["us_per_op"] * 1e-6;
    const double algbw = seconds > 0 ? moved / seconds / 1e9 : 0.0;
    state.counters["algbw_GBps"] = algbw;
    state.counters["busbw_GBps"] = algbw * bus_factor(op, ranks);
    state.counters["ranks"] = ranks;
    state.counters["nccl_version"] = nccl::api().version;
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
#if TWINBENCH_HAVE_CUDA
  const int ranks = std::max(gpu_info().device_count, 1);
  const std::vector<std::size_t> all =
      cfg.size ? std::vector<std::size_t>{*cfg.size} : sizes(cfg.quick, cfg.full);
  for (Op op : kOps)
    for (std::size_t bytes : all) add_nccl(cfg, op, bytes, ranks);
#else
  (void)cfg;
#endif
}

}  // namespace

TWINBENCH_WORKLOAD("collectives",
                   "NCCL all_reduce, all_gather, reduce_scatter, broadcast, all_to_all over every "
                   "GPU (algbw, busbw)",
                   register_benchmarks);

}  // namespace tb::collectives
