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
#include <twinbench/twinbench.hpp>

#include <chrono>

#include "cpu/collectives.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/collectives.hpp"
#include "gpu/nccl.hpp"
#endif

namespace tb::collectives {
namespace {

using twinbench::Counter;
using twinbench::Row;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A collectives row's counters, from its median time: nccl-tests' algbw and busbw.
void record_bandwidth(Row& r, Op op, std::size_t bytes, int ranks) {
  const double moved = static_cast<double>(effective_bytes(op, bytes, ranks));
  r.counter("us_per_op", 1e-6, Counter::seconds_per);
  r.counter("algbw_GBps", moved / 1e9, Counter::per_second);
  r.counter("busbw_GBps", moved / 1e9 * bus_factor(op, ranks), Counter::per_second);
  r.counter("ranks", ranks);
}

// The samples of a row taken in step are the slowest rank's, from a barrier, and every rank
// stops after the same sample (Options::in_step).
void collectives(twinbench::Bench& b) {
  const std::vector<std::size_t> all = b.size_given() ? b.sizes({}, 0) : sizes(b.quick(), b.full());
  const int ranks = b.ranks(), rank = b.rank();
  if (ranks >= 2) {
    for (Op op : kOps)
      for (std::size_t bytes : all) {
        twinbench::Case& c = b.add_case({{"op", op_name(op)}, {"bytes", bytes}, {"ranks", ranks}});
        const Counts n = counts(op, bytes, ranks);
        auto send = c.input_from<float>("send", n.send, [rank](float* p, std::size_t m) {
          for (std::size_t i = 0; i < m; ++i) p[i] = input_value(rank, i);
        });
        auto recv = c.scratch<float>("recv", n.recv);
        c.work(link_work(op, bytes, ranks));
        c.sampled("mpi", [=](Row& r) {
          if (const std::string why = too_small(op, bytes, ranks); !why.empty()) return r.skip(why), 0.0;
          record_bandwidth(r, op, bytes, ranks);
          const auto t0 = std::chrono::steady_clock::now();
          mpi_collective(op, send.host(), recv.host(), n);
          return seconds_since(t0);
        }, {.check = [=] {
              const double bad = mpi_mismatches(op, send.host(), recv.host(), n);
              mpi_collective(op, send.host(), recv.host(), n);  // warm-up
              return wrong_elements(bad);
            }, .in_step = true});
      }
  }
#if TWINBENCH_HAVE_CUDA
  namespace nccl = gpu::nccl;
  using gpu::collectives::Buffers;
  // NCCL across processes (under mpirun): this rank's communicator, made at the first such row.
  const auto rank_comms = b.shared<gpu::collectives::RankComms>(
      [] { return std::make_unique<gpu::collectives::RankComms>(); });
  if (ranks >= 2)
    for (Op op : kOps)
      for (std::size_t bytes : all) {
        twinbench::Case& c = b.add_case({{"op", op_name(op)}, {"bytes", bytes}, {"ranks", ranks}});
        c.work(link_work(op, bytes, ranks));
        // One rank's send and receive buffers on its device.
        const Counts n = counts(op, bytes, ranks);
        c.extra_memory(0, 4.0 * static_cast<double>(n.send + n.recv));
        auto buffers = c.shared<Buffers>(
            [=] { return std::make_unique<Buffers>(std::vector<int>{0}, rank, ranks, op, bytes); });
        c.sampled("nccl", [=](Row& r) {
          if (const std::string why = too_small(op, bytes, ranks); !why.empty()) return r.skip(why), 0.0;
          const auto& rc = rank_comms.get();
          if (!rc.problem.empty()) return r.skip(rc.problem), 0.0;
          record_bandwidth(r, op, bytes, ranks);
          r.counter("nccl_version", nccl::api().version);
          const auto t0 = std::chrono::steady_clock::now();
          buffers.get().launch(*rc.comms);
          buffers.get().synchronize();
          return seconds_since(t0);
        }, {.check = [=] {
              const nccl::Comms& comms = *rank_comms.get().comms;
              const double bad = over_ranks(static_cast<double>(buffers.get().mismatches(comms)));
              buffers.get().launch(comms);  // warm-up
              buffers.get().synchronize();
              return wrong_elements(bad);
            }, .side = twinbench::Side::gpu, .gpus = 0, .in_step = true});
      }
  // Every GPU of this process as one rank each (ncclCommInitAll), the communicators made once.
  const int gpus = std::max(b.gpus(), 1);
  const auto comms = b.shared<nccl::Comms>(
      [] { return std::make_unique<nccl::Comms>(gpu::collectives::all_devices()); });
  for (Op op : kOps)
    for (std::size_t bytes : all) {
      twinbench::Case& c = b.add_case({{"op", op_name(op)}, {"bytes", bytes}, {"gpus", gpus}});
      c.work(link_work(op, bytes, gpus));
      // One rank's send and receive buffers on its device (device 0's free memory is checked,
      // the others alike).
      const Counts n = counts(op, bytes, gpus);
      c.extra_memory(0, 4.0 * static_cast<double>(n.send + n.recv));
      auto buffers = c.shared<Buffers>(
          [=] { return std::make_unique<Buffers>(gpu::collectives::all_devices(), op, bytes); });
      c.sampled("nccl", [=](Row& r) {
        if (!nccl::api().ok()) return r.skip(nccl::api().error), 0.0;
        if (const std::string why = too_small(op, bytes, gpus); !why.empty()) return r.skip(why), 0.0;
        const nccl::Comms& cm = comms.get();  // the communicators first, then the buffers
        Buffers& bf = buffers.get();
        record_bandwidth(r, op, bytes, gpus);
        r.counter("nccl_version", nccl::api().version);
        const auto t0 = std::chrono::steady_clock::now();
        bf.launch(cm);
        bf.synchronize();
        return seconds_since(t0);
      }, {.check = [=] {
            const double bad = static_cast<double>(buffers.get().mismatches(comms.get()));
            buffers.get().launch(comms.get());  // warm-up
            buffers.get().synchronize();
            return wrong_elements(bad);
          }, .side = twinbench::Side::gpu});
    }
#endif
}

}  // namespace

TWINBENCH_BENCH("collectives",
                "NCCL all_reduce, all_gather, reduce_scatter, broadcast, all_to_all over every "
                "GPU (algbw, busbw)",
                collectives);

}  // namespace tb::collectives
