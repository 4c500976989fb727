#pragma once
// The run's "[k/N elapsed ~left]" progress lines: which rows will run and how long the rest
// should take. Rows differ by four orders of magnitude (alloc/serial_malloc/bytes:4096 takes
// milliseconds, sgemm/omp/n:4096 minutes on two cores), so "mean time per finished row x rows
// left" read "~0:48 left" with 2:50 to go. Here each row has an expected cost (its wall time in
// a previous run, row_wall_s, when one is given; else the mean of the known ones, else 1), and
// the time left is the expected cost left scaled by how this run compares with the expected
// costs of the rows it has finished (the previous run may be another machine).
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tb {

// The rows the run will measure, in order (common/run_main.cpp: the filter's selection, GPU rows
// left out where there is no GPU). Sets the progress total and the expected costs.
void set_progress_plan(const std::vector<std::string>& names);

namespace progress_eta {

// Previous wall times per row name (row_wall_s), the names as registered (Google Benchmark's
// "/manual_time" suffix removed) and the thread count left out (a reference run on another
// machine names its omp rows threads:16); a row's time is scaled by the ratio of its threads.
class CostModel {
 public:
  // Reads a twinbench results file. An unreadable file gives an empty model and, in `why`, the
  // reason (the progress lines then fall back to counting rows).
  static CostModel from_results_file(const std::string& path, std::string* why = nullptr);
  void add(const std::string& name, double seconds);
  std::optional<double> previous(const std::string& name) const;
  std::size_t size() const { return seconds_.size(); }

 private:
  struct Previous {
    double seconds;
    double threads;  // of the row then (0: the name has none)
  };
  std::unordered_map<std::string, Previous> seconds_;
};

// Registered name of a results row: "x/y/manual_time" -> "x/y".
std::string registered_name(const std::string& row_name);

// Each planned row's expected cost: its previous time, or the mean of the previous times of the
// planned rows that have one (a row new since then costs an average row), or 1 when none has.
std::vector<double> expected_costs(const std::vector<std::string>& plan, const CostModel& model);

// The time left, or nothing while it would be a guess: fewer than 3 rows finished, or the
// finished rows hold under 5% of the expected cost (the first rows are the small sizes; their
// rate said "~0:00 left" with minutes to go).
//   measured_s: wall time of the finished rows; expected_done / expected_left: their expected
//   cost and that of the rows not finished (the one starting now included).
std::optional<double> seconds_left(double measured_s, double expected_done, int finished,
                                   double expected_left);

// " ~m:ss left", or "" when seconds_left gives nothing. Never "~0:00" while rows remain.
std::string format_left(std::optional<double> seconds, bool rows_remain);

}  // namespace progress_eta
}  // namespace tb
