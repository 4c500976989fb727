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
// impl mpi (registered under mpirun with 2 ranks or more, in a build with MPI): the same five
// collectives over the ranks' host memory (common/mpi_run.hpp), the CPU's counterpart, the same
// sizes, validation and counters (axis ranks). Every rank takes them together: each sample is
// the slowest rank's time from a barrier to the end of its call, and the stopping rule runs on
// rank 0's clock, so that all ranks stop after the same sample.
// impl nccl with axis ranks (registered under mpirun with 2 ranks or more): NCCL across
// processes, one rank per process and GPU (each rank's GPU is its local rank's, common/run_main.cpp),
// the communicator bootstrapped through MPI as nccl-tests does it (rank 0's ncclGetUniqueId
// broadcast, ncclCommInitRank on every rank), timed and stopped in step as the MPI rows are.
// Every rank first agrees whether all of them have a GPU and NCCL, so that none waits in NCCL's
// bootstrap for a rank that skipped.
#include "bench/twinbench.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "common/collectives.hpp"
#include "common/host_api_timing.hpp"
#include "common/mpi_run.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_context.hpp"
#include "gpu/collectives.hpp"
#include "gpu/nccl.hpp"
#endif

namespace tb::collectives {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Samples of `call` taken by every rank in step: each sample is the slowest rank's time from a
// barrier to the end of its call, and the stopping rule runs on rank 0's clock, broadcast, so
// that every rank stops after the same sample.
template <class Call>
SampleStats measure_in_step(benchmark::State& state, Call&& call) {
  return measure(
      state,
      [&] {
        mpi::barrier();
        const double t0 = steady_seconds();
        call();
        return mpi::max_over_ranks(steady_seconds() - t0);
      },
      [] { return mpi::from_root(steady_seconds()); });
}

// Why a size cannot be split among the ranks ("" when it can).
std::string too_small(Op op, std::size_t bytes, int ranks) {
  if (counts(op, bytes, ranks).send > 0) return "";
  return std::to_string(bytes) + " bytes is under one float32 per rank of " +
         std::to_string(ranks);
}

// The bytes a collective moves (nccl-tests' size column), held to no ceiling: links are.
WorkModel link_work(double moved) {
  return {.read_bytes = moved, .items = 1.0, .held_to_ceiling = false};
}

// A collectives row's counters from its median time: nccl-tests' algbw and busbw.
void record_bandwidth(benchmark::State& state, Op op, double moved, int ranks, double median) {
  const double algbw = median > 0 ? moved / median / 1e9 : 0.0;
  state.counters["us_per_op"] = median * 1e6;
  state.counters["algbw_GBps"] = algbw;
  state.counters["busbw_GBps"] = algbw * bus_factor(op, ranks);
  state.counters["ranks"] = ranks;
}

#if TWINBENCH_HAVE_CUDA
namespace nccl = gpu::nccl;

// Every device the process sees, as ranks 0..n-1.
std::vector<int> all_devices() {
  std::vector<int> d(static_cast<std::size_t>(std::max(gpu_info().device_count, 1)));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

struct CommData {  // the communicators of every device: made once, their set-up untimed
  nccl::Comms comms{all_devices()};
  static Footprint weight() { return {}; }
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
  const WorkModel w = link_work(moved);
  add_host_timed_gpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (!nccl::api().ok()) return skip(state, nccl::api().error);
    if (const std::string why = too_small(op, bytes, ranks); !why.empty()) return skip(state, why);
    const nccl::Comms& comms = inputs<CommData>().comms;
    auto& b = inputs<BufferData>(op, bytes, ranks).buffers;
    const auto check = [&] { return count_errors(static_cast<double>(b.mismatches(comms))); };
    run_checked(state, Tolerance{0.0}, check, [&] {
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
  });
}

// Why this rank cannot take part in NCCL across processes ("" when it can).
std::string rank_problem() {
  if (!nccl::api().ok()) return nccl::api().error;
  if (!gpu_info().available) return gpu_info().status;
  return "";
}

// Whether every rank can: "" or, on every rank, why not (this rank's reason, or how many others
// have one). Called by every rank at the same point.
std::string ranks_problem() {
  const std::string mine = rank_problem();
  const int failing = static_cast<int>(mpi::sum_over_ranks(mine.empty() ? 0.0 : 1.0));
  if (failing == 0) return "";
  const std::string count = std::to_string(failing) + " of " + std::to_string(mpi::size()) +
                            " ranks cannot run NCCL (each rank needs a GPU of its own: mpirun -np "
                            "N with N at most the GPUs per node)";
  return mine.empty() ? count : "rank " + std::to_string(mpi::rank()) + ": " + mine + "; " + count;
}

struct RankCommData {  // this rank's communicator across processes, bootstrapped through MPI
  std::string problem = ranks_problem();
  std::optional<nccl::Comms> comms;
  RankCommData() {
    if (!problem.empty()) return;
    nccl::UniqueId id{};
    if (mpi::rank() == 0) id = nccl::unique_id();
    mpi::from_root(&id, sizeof id);
    comms.emplace(id, mpi::rank(), mpi::size());
  }
  static Footprint weight() { return {}; }
};

struct RankBufferData {  // this rank's buffers on its one device
  gpu::collectives::Buffers buffers;
  RankBufferData(Op op, std::size_t bytes, int ranks)
      : buffers({0}, mpi::rank(), ranks, op, bytes) {}
  static Footprint weight(Op op, std::size_t bytes, int ranks) {
    return BufferData::weight(op, bytes, ranks);
  }
};

void add_nccl_ranks(const RunConfig& cfg, Op op, std::size_t bytes, int ranks) {
  auto spec = bench_spec("collectives", "nccl",
                         {{"op", op_name(op)}, {"bytes", bytes}, {"ranks", ranks}});
  spec.side = Side::gpu;
  spec.host_timed = true;
  spec.in_step = true;
  const double moved = static_cast<double>(effective_bytes(op, bytes, ranks));
  const WorkModel w = link_work(moved);
  // add_cpu_benchmark: no GPU check of its own before the ranks agree (ranks_problem).
  add_cpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (const std::string why = too_small(op, bytes, ranks); !why.empty()) return skip(state, why);
    const RankCommData& rc = inputs<RankCommData>();
    if (!rc.problem.empty()) return skip(state, rc.problem);
    auto& b = inputs<RankBufferData>(op, bytes, ranks).buffers;
    const auto bad = [&] {
      return count_errors(mpi::sum_over_ranks(static_cast<double>(b.mismatches(*rc.comms))));
    };
    run_checked(state, Tolerance{0.0}, bad, [&] {
      b.launch(*rc.comms);  // warm-up
      b.synchronize();
      const SampleStats st = measure_in_step(state, [&] {
        b.launch(*rc.comms);
        b.synchronize();
      });
      record_bandwidth(state, op, moved, ranks, st.median);
      state.counters["nccl_version"] = nccl::api().version;
    });
  });
}
#endif

struct HostData {  // one rank's send and receive buffers for the MPI rows
  Counts c;
  HostArray<float> send, recv;
  HostData(Op op, std::size_t bytes, int ranks)
      : c(counts(op, bytes, ranks)), send(c.send), recv(c.recv) {
    for (std::size_t i = 0; i < c.send; ++i) send[i] = input_value(mpi::rank(), i);
  }
  static Footprint weight(Op op, std::size_t bytes, int ranks) {
    const Counts c = counts(op, bytes, ranks);
    return {.host_bytes = 4.0 * static_cast<double>(c.send + c.recv)};
  }
  // Every rank's received elements against what they must hold, summed over the ranks (so that
  // every rank reaches the same verdict).
  double mismatches(Op op) {
    std::fill(recv.begin(), recv.end(), std::numeric_limits<float>::quiet_NaN());
    mpi::collective(op, send.data(), recv.data(), c);
    double bad = 0;
    for (std::size_t i = 0; i < c.recv; ++i)
      bad += recv[i] != expected_value(op, mpi::rank(), mpi::size(), i, c.chunk);
    return mpi::sum_over_ranks(bad);
  }
};

void add_mpi(const RunConfig& cfg, Op op, std::size_t bytes, int ranks) {
  auto spec = bench_spec("collectives", "mpi",
                         {{"op", op_name(op)}, {"bytes", bytes}, {"ranks", ranks}});
  spec.in_step = true;
  const double moved = static_cast<double>(effective_bytes(op, bytes, ranks));
  const WorkModel w = link_work(moved);
  add_cpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (const std::string why = too_small(op, bytes, ranks); !why.empty()) return skip(state, why);
    HostData& d = inputs<HostData>(op, bytes, ranks);
    const auto check = [&] { return count_errors(d.mismatches(op)); };
    run_checked(state, Tolerance{0.0}, check, [&] {
      mpi::collective(op, d.send.data(), d.recv.data(), d.c);  // warm-up
      const SampleStats st = measure_in_step(
          state, [&] { mpi::collective(op, d.send.data(), d.recv.data(), d.c); });
      record_bandwidth(state, op, moved, ranks, st.median);
    });
  });
}

void register_benchmarks(const RunConfig& cfg) {
  if (mpi::active()) {
    const std::vector<std::size_t> all =
        cfg.size ? std::vector<std::size_t>{*cfg.size} : sizes(cfg.quick, cfg.full);
    for (Op op : kOps)
      for (std::size_t bytes : all) add_mpi(cfg, op, bytes, mpi::size());
#if TWINBENCH_HAVE_CUDA
    for (Op op : kOps)
      for (std::size_t bytes : all) add_nccl_ranks(cfg, op, bytes, mpi::size());
#endif
  }
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
