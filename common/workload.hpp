#pragma once
// The workload registry and the run configuration. Each bench/<workload>.cpp adds itself with
// TWINBENCH_WORKLOAD; main() parses the command line into a RunConfig and then registers the
// benchmarks of the selected workloads only, so sizes and block lists come from the user.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twinbench/types.hpp>

namespace tb {

using Dims2 = twinbench::Dims;
using Block2 = twinbench::Block2;

// The command line names an axis's values with --axis=NAME:V[,V...] (nvbench's -a). The axes
// every workload shares have fields of their own, and shorthands: n (--size=N, one value),
// image (--image=WxH, one value) and block (--block=B,... for 1D kernels, --block2d=XxY,... for
// 2D ones: --axis=block:64,16x16 sets both). Any other axis is a workload's own, declared where
// its rows are registered (int_axis) and kept in `axes` until then.
struct RunConfig {
  bool quick = false;                 // small sizes and short minimum times
  std::optional<std::size_t> size;    // axis n: replaces the 1D sizes of every workload
  std::optional<Dims2> image;         // axis image: replaces the image size of 2D workloads
  std::vector<int> blocks;            // axis block (1D): replaces the threads-per-block sweep
  std::vector<Block2> blocks2d;       // axis block (2D): replaces the block-shape sweep
  std::map<std::string, std::vector<std::string>> axes;  // the other axes named: NAME -> values
  bool all_blocks = false;            // --sweep=all: every multiple of 32 from 32 to 1024
  // --full: the rows left out of the default run to keep it within minutes (each says which
  // and why where it is registered): the 1 GiB transfers and streams, the GPU recursion at
  // n = 40, per-thread PCIe atomics on large targets, block sweeps of contention-bound kernels.
  bool full = false;
};

struct WorkloadInfo {
  std::string name;
  std::string summary;
  std::function<void(const RunConfig&)> register_benchmarks;
};

bool add_workload(WorkloadInfo info);
const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(std::string_view name);

// The sizes a 1D workload runs: --size if given, the quick size in quick mode, else the
// defaults (the article's size and one several times the GPU's L2).
std::vector<std::size_t> sizes_1d(const RunConfig& cfg, std::vector<std::size_t> defaults,
                                  std::size_t quick_size);
Dims2 image_dims(const RunConfig& cfg, Dims2 defaults, Dims2 quick_dims);
// Threads per block to sweep for 1D kernels: --block, or powers of two 64..1024, or
// (--sweep=all) every multiple of 32.
std::vector<int> block_sweep_1d(const RunConfig& cfg);
std::vector<Block2> block_sweep_2d(const RunConfig& cfg);

// A workload's own integer axis, declared once where its rows are registered: the values of
// --axis=NAME:... where given, else `defaults`. A value that is not an integer, or not one of
// `allowed` (when given), throws std::invalid_argument naming the axis.
std::vector<int> int_axis(const RunConfig& cfg, const std::string& name, std::vector<int> defaults,
                          const std::vector<int>& allowed = {});
// A workload's own axis of names (a kernel, an element type): the values of --axis=NAME:...
// where given, each one of `values`, else all of `values`.
std::vector<std::string> name_axis(const RunConfig& cfg, const std::string& name,
                                   std::vector<std::string> values);
// The axes in cfg.axes that no registered workload declared, comma-separated ("" if none): a
// misspelt --axis is an error, not a run of the defaults.
std::string undeclared_axes(const RunConfig& cfg);

}  // namespace tb

#define TWINBENCH_CONCAT_INNER(a, b) a##b
#define TWINBENCH_CONCAT(a, b) TWINBENCH_CONCAT_INNER(a, b)
// Registers a workload at static-initialisation time; bench/ is an object library so these
// registrars are always linked.
#define TWINBENCH_WORKLOAD(name, summary, fn)                                   \
  [[maybe_unused]] static const bool TWINBENCH_CONCAT(tb_workload_, __LINE__) = \
      ::tb::add_workload({name, summary, fn})
