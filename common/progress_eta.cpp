#include "common/progress_eta.hpp"

#include <cmath>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "common/progress.hpp"

namespace tb::progress_eta {

std::string registered_name(const std::string& row_name) {
  for (const char* suffix : {"/manual_time", "/real_time"}) {
    const std::string s = suffix;
    if (row_name.size() > s.size() && row_name.compare(row_name.size() - s.size(), s.size(), s) == 0)
      return row_name.substr(0, row_name.size() - s.size());
  }
  return row_name;
}

namespace {

// Rows are matched by name with the thread count left out: the omp rows of a 16-core reference
// run are named threads:16, this machine's threads:2, and they are the same rows.
std::string cost_key(const std::string& name) {
  static const std::regex threads("/threads:[0-9]+");
  return std::regex_replace(registered_name(name), threads, "/threads:*");
}

}  // namespace

CostModel CostModel::from_results_file(const std::string& path, std::string* why) {
  CostModel m;
  std::ifstream in(path);
  if (!in) {
    if (why) *why = "cannot open " + path;
    return m;
  }
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& row : doc.at("benchmarks")) {
      const auto wall = row.find("row_wall_s");
      if (wall == row.end() || !wall->is_number() || !row.contains("name")) continue;
      m.add(registered_name(row["name"].get<std::string>()), wall->get<double>());
    }
  } catch (const std::exception& e) {
    if (why) *why = path + ": " + e.what();
    return CostModel{};
  }
  if (why && m.size() == 0) *why = path + " holds no row_wall_s";
  return m;
}

void CostModel::add(const std::string& name, double seconds) {
  if (std::isfinite(seconds) && seconds >= 0) seconds_[cost_key(name)] = seconds;
}

std::optional<double> CostModel::previous(const std::string& name) const {
  const auto it = seconds_.find(cost_key(name));
  if (it == seconds_.end()) return std::nullopt;
  return it->second;
}

std::vector<double> expected_costs(const std::vector<std::string>& plan, const CostModel& model) {
  double known_sum = 0.0;
  int known = 0;
  for (const auto& name : plan) {
    if (const auto s = model.previous(name)) {
      known_sum += *s;
      ++known;
    }
  }
  const double fallback = known > 0 ? known_sum / known : 1.0;
  std::vector<double> costs;
  costs.reserve(plan.size());
  // A row that took 0 s before still costs something: a floor keeps the sums meaningful.
  const double floor = fallback * 1e-3;
  for (const auto& name : plan) costs.push_back(std::max(model.previous(name).value_or(fallback), floor));
  return costs;
}

std::optional<double> seconds_left(double measured_s, double expected_done, int finished,
                                   double expected_left) {
  constexpr int kMinFinished = 3;
  constexpr double kMinCostFraction = 0.05;
  if (finished < kMinFinished || !(expected_done > 0) || !(expected_left >= 0)) return std::nullopt;
  if (expected_done < kMinCostFraction * (expected_done + expected_left)) return std::nullopt;
  return measured_s / expected_done * expected_left;
}

std::string format_left(std::optional<double> seconds, bool rows_remain) {
  if (!seconds) return "";
  // Rounded to 0:00 while a row is starting would read "done": say "<0:01" instead.
  if (rows_remain && *seconds < 0.5) return " ~<0:01 left";
  return " ~" + progress::format_eta(*seconds) + " left";
}

}  // namespace tb::progress_eta
