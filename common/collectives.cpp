#include "common/collectives.hpp"

namespace tb::collectives {

const char* op_name(Op op) {
  switch (op) {
    case Op::all_reduce:
      return "all_reduce";
    case Op::all_gather:
      return "all_gather";
    case Op::reduce_scatter:
      return "reduce_scatter";
    case Op::broadcast:
      return "broadcast";
    case Op::all_to_all:
      return "all_to_all";
  }
  return "?";
}

std::optional<Op> op_from_name(std::string_view name) {
  for (Op op : kOps)
    if (name == op_name(op)) return op;
  return std::nullopt;
}

double bus_factor(Op op, int ranks) {
  if (ranks < 1) return 0.0;
  const double n = ranks;
  switch (op) {
    case Op::all_reduce:
      return 2.0 * (n - 1) / n;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::all_to_all:
      return (n - 1) / n;
    case Op::broadcast:
      return 1.0;
  }
  return 0.0;
}

Counts counts(Op op, std::size_t bytes, int ranks) {
  const std::size_t elements = bytes / sizeof(float);
  const auto n = static_cast<std::size_t>(ranks < 1 ? 1 : ranks);
  const std::size_t chunk = elements / n;
  switch (op) {
    case Op::all_reduce:
    case Op::broadcast:
      return {.send = elements, .recv = elements, .chunk = elements};
    case Op::all_gather:
      return {.send = chunk, .recv = chunk * n, .chunk = chunk};
    case Op::reduce_scatter:
      return {.send = chunk * n, .recv = chunk, .chunk = chunk};
    case Op::all_to_all:
      return {.send = chunk * n, .recv = chunk * n, .chunk = chunk};
  }
  return {};
}

std::size_t effective_bytes(Op op, std::size_t bytes, int ranks) {
  const Counts c = counts(op, bytes, ranks);
  switch (op) {
    case Op::all_gather:
      return c.recv * sizeof(float);
    default:
      return c.send * sizeof(float);
  }
}

std::vector<std::size_t> sizes(bool quick, bool full) {
  const std::size_t last = quick  ? std::size_t{2} << 20
                           : full ? std::size_t{8} << 30
                                  : std::size_t{1} << 30;
  std::vector<std::size_t> out;
  for (std::size_t b = 8; b <= last; b *= 8) out.push_back(b);
  return out;
}

}  // namespace tb::collectives
