#include "common/workload.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

namespace tb {
namespace {
std::vector<WorkloadInfo>& registry() {
  static std::vector<WorkloadInfo> r;
  return r;
}
std::set<std::string>& declared() {
  static std::set<std::string> names;
  return names;
}

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

int parse_axis_int(const std::string& name, const std::string& text) {
  int v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw std::invalid_argument("--axis=" + name + ": '" + text + "' is not an integer");
  return v;
}
}  // namespace

bool add_workload(WorkloadInfo info) {
  if (find_workload(info.name)) throw std::logic_error("workload registered twice: " + info.name);
  registry().push_back(std::move(info));
  std::sort(registry().begin(), registry().end(),
            [](const WorkloadInfo& a, const WorkloadInfo& b) { return a.name < b.name; });
  return true;
}

const std::vector<WorkloadInfo>& workloads() { return registry(); }

const WorkloadInfo* find_workload(std::string_view name) {
  for (const auto& w : registry())
    if (w.name == name) return &w;
  return nullptr;
}

std::vector<std::size_t> sizes_1d(const RunConfig& cfg, std::vector<std::size_t> defaults,
                                  std::size_t quick_size) {
  if (cfg.size) return {*cfg.size};
  if (cfg.quick) return {quick_size};
  return defaults;
}

Dims2 image_dims(const RunConfig& cfg, Dims2 defaults, Dims2 quick_dims) {
  if (cfg.image) return *cfg.image;
  return cfg.quick ? quick_dims : defaults;
}

std::vector<int> block_sweep_1d(const RunConfig& cfg) {
  if (!cfg.blocks.empty()) return cfg.blocks;
  std::vector<int> out;
  if (cfg.all_blocks) {
    for (int b = 32; b <= 1024; b += 32) out.push_back(b);
  } else {
    for (int b = 64; b <= 1024; b *= 2) out.push_back(b);
  }
  return out;
}

std::vector<Block2> block_sweep_2d(const RunConfig& cfg) {
  if (!cfg.blocks2d.empty()) return cfg.blocks2d;
  if (cfg.all_blocks)
    return {{8, 8}, {16, 8}, {16, 16}, {32, 4}, {32, 8}, {32, 16}, {32, 32}, {64, 4}, {128, 2}, {256, 1}};
  return {{8, 8}, {16, 16}, {32, 32}};
}

std::vector<int> int_axis(const RunConfig& cfg, const std::string& name, std::vector<int> defaults,
                          const std::vector<int>& allowed) {
  declared().insert(name);
  const auto given = cfg.axes.find(name);
  if (given == cfg.axes.end()) return defaults;
  std::vector<int> out;
  for (const std::string& text : given->second) {
    const int v = parse_axis_int(name, text);
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      throw std::invalid_argument("--axis=" + name + ": " + text + " is not one of " + join(allowed));
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> name_axis(const RunConfig& cfg, const std::string& name,
                                   std::vector<std::string> values) {
  declared().insert(name);
  const auto given = cfg.axes.find(name);
  if (given == cfg.axes.end()) return values;
  for (const std::string& v : given->second)
    if (std::find(values.begin(), values.end(), v) == values.end()) {
      std::string all;
      for (const auto& a : values) all += (all.empty() ? "" : ", ") + a;
      throw std::invalid_argument("--axis=" + name + ": " + v + " is not one of " + all);
    }
  return given->second;
}

std::string undeclared_axes(const RunConfig& cfg) {
  std::string out;
  for (const auto& [name, values] : cfg.axes)
    if (!declared().count(name)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace tb
