#include "common/bench_spec.hpp"

#include <utility>

namespace tb {

const char* side_name(Side s) { return s == Side::cpu ? "cpu" : "gpu"; }

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kernel:
      return "kernel";
    case Mode::e2e:
      return "e2e";
    case Mode::none:
      break;
  }
  return "none";
}

BenchSpec BenchSpec::on_threads(int n) const {
  BenchSpec s = *this;
  s.threads = n;
  return s;
}

BenchSpec BenchSpec::in_mode(Mode m) const {
  BenchSpec s = *this;
  s.mode = m;
  return s;
}

BenchSpec BenchSpec::of_algorithm(std::string a) const {
  BenchSpec s = *this;
  s.algorithm = std::move(a);
  return s;
}

BenchSpec BenchSpec::in_precision(std::string p) const {
  BenchSpec s = *this;
  s.precision = std::move(p);
  return s;
}

BenchSpec BenchSpec::with_axis(Axis a) const {
  BenchSpec s = *this;
  s.axes.push_back(std::move(a));
  return s;
}

BenchSpec BenchSpec::with_block(int block) const {
  return block == 0 ? *this : with_axis({"block", block});
}

// Threads and mode come last, as every name has had them since the first results file: old
// results load against new names.
std::string BenchSpec::name() const {
  std::string out = workload + "/" + impl;
  for (const Axis& a : axes) out += "/" + a.key + ":" + a.value;
  if (threads) out += "/threads:" + std::to_string(*threads);
  if (mode != Mode::none) out += std::string("/mode:") + mode_name(mode);
  return out;
}

// Every field on every row, empty ones included: a field present and empty ("the workload's
// plain algorithm") is an answer, where a missing one (an old file) sends the reports back to
// the names.
std::map<std::string, std::string> BenchSpec::fields() const {
  return {
      {"workload", workload},
      {"impl", impl},
      {"algorithm", algorithm},
      {"side", side_name(side)},
      {"mode", mode == Mode::none ? "" : mode_name(mode)},
      {"precision", precision},
  };
}

BenchSpec bench_spec(std::string_view workload, std::string_view impl,
                     std::initializer_list<Axis> axes) {
  BenchSpec s;
  s.workload = std::string(workload);
  s.impl = std::string(impl);
  s.axes.assign(axes.begin(), axes.end());
  return s;
}

// `<workload>/<impl>` is never a suffix, even for a row without axes.
std::string registered_name_of(std::string gb_name) {
  while (true) {
    const std::size_t slash = gb_name.rfind('/');
    const bool impl_next = slash == gb_name.find('/');
    if (slash == std::string::npos || impl_next || gb_name.find(':', slash) != std::string::npos)
      break;
    gb_name.erase(slash);
  }
  return gb_name;
}

}  // namespace tb
