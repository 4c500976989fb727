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
const std::regex& threads_arg() {
  static const std::regex re("/threads:([0-9]+)");
  return re;
}

std::string cost_key(const std::string& name) {
  return std::regex_replace(registered_name(name), threads_arg(), "/threads:*");
}

// The row's thread count, or 0 when its name has none.
double threads_of(const std::string& name) {
  std::smatch m;
  return std::regex_search(name, m, threads_arg()) ? std::stod(m[1].str()) : 0.0;
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
  if (std::isfinite(seconds) && seconds >= 0) seconds_[cost_key(name)] = {seconds, threads_of(name)};
}

// A row that ran on 16 threads there and runs on 2 here is expected to take 8x its time: ideal
// scaling, right for the compute-bound rows (sgemm/omp/n:4096: 17 s on the 16-core H200 host,
// minutes on 2 cores) and an overestimate for the memory-bound ones, which the estimate's
// scaling by the rows already finished corrects in part.
std::optional<double> CostModel::previous(const std::string& name) const {
  const auto it = seconds_.find(cost_key(name));
  if (it == seconds_.end()) return std::nullopt;
  const auto [seconds, then_threads] = it->second;
  const double now_threads = threads_of(name);
  if (then_threads > 0 && now_threads > 0) return seconds * then_threads / now_threads;
  return seconds;
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
