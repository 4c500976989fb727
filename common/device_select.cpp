#include "common/device_select.hpp"

#include <charconv>
#include <stdexcept>
#include <vector>

namespace tb {
namespace {

std::vector<std::string> entries(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = list.find(',', start);
    out.emplace_back(list.substr(start, end == std::string_view::npos ? list.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

int parse_device(std::string_view value) {
  int d = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), d);
  if (ec == std::errc() && end == value.data() + value.size() && d >= 0) return d;
  if (value == "all" || value.find(',') != std::string_view::npos)
    throw std::invalid_argument(
        "--devices: one device per run (got '" + std::string(value) +
        "'); for several, scripts/run-devices.sh runs one after another, and CUDA_VISIBLE_DEVICES "
        "lists those the collectives and peer_copy workloads use together");
  throw std::invalid_argument("--devices: expected a device number (0, 1, ...), got '" +
                              std::string(value) + "'");
}

std::string visible_devices_for(int ordinal, const std::optional<std::string>& current) {
  if (!current || current->empty()) return std::to_string(ordinal);
  const auto list = entries(*current);
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= list.size() || list[ordinal].empty())
    throw std::invalid_argument("--devices=" + std::to_string(ordinal) +
                                ": CUDA_VISIBLE_DEVICES='" + *current + "' shows " +
                                std::to_string(list.size()) + " device(s), numbered from 0");
  return list[ordinal];
}

}  // namespace tb
