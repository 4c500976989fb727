#include "common/device_select.hpp"

#include <algorithm>
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

namespace {

std::optional<int> device_number(std::string_view v) {
  int d = -1;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec == std::errc() && end == v.data() + v.size() && d >= 0) return d;
  return std::nullopt;
}

}  // namespace

DeviceChoice parse_devices(std::string_view value) {
  DeviceChoice c;
  if (value == "all") {
    c.all = true;
    return c;
  }
  for (const std::string& entry : entries(value)) {
    const std::optional<int> d = device_number(entry);
    if (!d)
      throw std::invalid_argument("--devices: expected a device number (0, 1, ...), a list of "
                                  "them (0,2) or all, got '" + std::string(value) + "'");
    if (std::find(c.ordinals.begin(), c.ordinals.end(), *d) != c.ordinals.end())
      throw std::invalid_argument("--devices: device " + entry + " is listed twice in '" +
                                  std::string(value) + "'");
    c.ordinals.push_back(*d);
  }
  return c;
}

std::string per_device_path(std::string_view out, int device) {
  const std::string tag = "-gpu" + std::to_string(device);
  constexpr std::string_view json = ".json";
  if (out.size() > json.size() && out.ends_with(json))
    return std::string(out.substr(0, out.size() - json.size())) + tag + std::string(json);
  return std::string(out) + tag;
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
