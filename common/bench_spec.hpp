#pragma once
// A benchmark as data: what a row runs (workload, impl, algorithm, precision), where
// (side, mode, OpenMP threads), its parameters as named axes in order, and the work one
// iteration does. The harness and the reports read these fields; the name
// `<workload>/<impl>/<axis>:<value>/...` is generated from them (bench_spec.cpp) and nothing
// else reads a name to decide anything (tests/cli/test_name_parsing.py greps for it), so
// renaming an impl changes a label, not behaviour.
// No Google Benchmark here: cpu/ headers and tests include this, the run machinery is behind
// common/harness.hpp.
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <twinbench/types.hpp>

#include "common/workload.hpp"

namespace tb {

// Which processor does the work: reports pair CPU rows with GPU rows, and a GPU row is left out
// of the plan where there is no GPU.
enum class Side { cpu, gpu };
// A GPU row's timed region: the kernel alone, or end to end with the host-to-device and
// device-to-host copies (e2e rows are PCIe-bound and held to no ceiling). none: not a GPU
// kernel row (CPU rows, host API costs, transfers), and no `mode` axis in the name.
enum class Mode { none, kernel, e2e };

const char* side_name(Side s);
const char* mode_name(Mode m);

// Work done by one iteration, declared with the description before anything is timed; becomes
// bytes_per_second, items_per_second, flop_per_s and pct_ceiling: % of the row's one limit, chosen
// by the run from this model (common/row_limit.hpp: the bandwidth of its mix of reads and writes,
// the roof of its precision, whichever binds, its link, or none). GPU kernel rows are held to the
// GPU's limits, CPU rows on OpenMP's threads to the CPU's with all threads, single-thread rows to
// one thread's; e2e rows (PCIe), GPU rows timed on the host and rows with held_to_ceiling = false
// to none, unless they name a link.
// A host-device transfer row names the direction of its link: it is held to that link's
// bandwidth, measured at start with pinned copies (common/row_limit.hpp).
using Link = twinbench::Link;
using WorkModel = twinbench::Work;
using Axis = twinbench::Axis;

struct BenchSpec {
  std::string workload;
  std::string impl;
  std::vector<Axis> axes;  // the problem and tuning parameters, in name order
  // Set by the registration (add_cpu_benchmark / add_gpu_benchmark / host-timed GPU rows).
  Side side = Side::cpu;
  bool host_timed = false;  // a GPU row timed with the host's wall clock (API costs)
  Mode mode = Mode::none;   // named last: `.../mode:e2e`
  // OpenMP threads a CPU row runs on (omp kernels and the CPU libraries): named after the axes,
  // `.../threads:16`, and held to the ceilings of all threads; unset: one thread.
  std::optional<int> threads;
  // Taken by every rank of an MPI job together (the MPI rows, common/mpi_run.hpp): the other
  // rows run on rank 0 alone. Not part of the name.
  bool in_step = false;
  // Rows of one workload and one algorithm are compared with each other ("" is the workload's
  // plain algorithm; "recursive", "aos", ... where variants solve it differently).
  std::string algorithm;
  // The arithmetic, where it is not the workload's own ("fp32", "bf16", "tf32"): rows pair only
  // within one precision.
  std::string precision;

  BenchSpec on_threads(int n) const;
  BenchSpec in_mode(Mode m) const;
  BenchSpec of_algorithm(std::string a) const;
  BenchSpec in_precision(std::string p) const;
  BenchSpec with_axis(Axis a) const;
  // The `block` axis of a GPU row; none for block 0 (a library that picks its own launch).
  BenchSpec with_block(int block) const;

  // The generator: `<workload>/<impl>/<axis>:<value>/.../threads:<t>/mode:<m>`.
  std::string name() const;
  // The text fields written into the row of the results file.
  std::map<std::string, std::string> fields() const;
};

BenchSpec bench_spec(std::string_view workload, std::string_view impl,
                     std::initializer_list<Axis> axes = {});

// The registered name inside Google Benchmark's name for a row: it appends segments without a
// ':' ("manual_time"), ours all have one.
std::string registered_name_of(std::string gb_name);

}  // namespace tb
