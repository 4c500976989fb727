#include "common/rapl.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace tb::rapl {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kJoulesPerMicrojoule = 1e-6;

// A counter file's value, or the errno that stopped the read (EINVAL: not a number).
struct Counter {
  std::optional<std::uint64_t> value;
  int err = 0;
};

// POSIX rather than a stream: the errno is the reason we report (EACCES on a kernel >= 5.10).
Counter read_counter(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {std::nullopt, errno};
  char buf[32];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  const int err = errno;
  ::close(fd);
  if (got < 0) return {std::nullopt, err};
  buf[got] = '\0';
  char* end = nullptr;
  const unsigned long long v = std::strtoull(buf, &end, 10);
  if (end == buf) return {std::nullopt, EINVAL};
  return {static_cast<std::uint64_t>(v), 0};
}

std::string read_name(const std::filesystem::path& zone) {
  std::ifstream f(zone / "name");
  std::string name;
  if (f >> name) return name;
  return zone.filename().string();
}

// N of a package zone's folder "intel-rapl:N"; nullopt for sub-zones (intel-rapl:N:M), the
// control type folder (intel-rapl) and intel-rapl-mmio:N.
std::optional<int> package_index(const std::string& folder) {
  const std::string prefix = "intel-rapl:";
  if (folder.size() <= prefix.size() || folder.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  const std::string digits = folder.substr(prefix.size());
  if (digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return std::nullopt;
  return std::stoi(digits);
}

// psys (the whole platform) is also a top-level zone on some Intel laptops: not a package.
bool is_package_name(const std::string& name) { return name.rfind("package", 0) == 0; }

std::string unreadable_reason(const std::string& path, int err) {
  std::string why = "not readable: ";
  if (err == EACCES || err == EPERM)
    why +=
        "energy_uj is root-only since Linux 5.10 (PLATYPUS, CVE-2020-8694); run as root or "
        "chmod it";
  else
    why += "energy_uj could not be read";
  return why + " (" + path + ": " + std::strerror(err) + ")";
}

struct Zone {
  int index = 0;
  Domain domain;
};

std::vector<Zone> find_package_zones(const std::filesystem::path& root) {
  std::vector<Zone> zones;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto index = package_index(it->path().filename().string());
    if (!index) continue;
    const std::string name = read_name(it->path());
    if (!is_package_name(name)) continue;
    Domain d;
    d.name = name;
    d.energy_path = (it->path() / "energy_uj").string();
    d.max_range_uj = read_counter((it->path() / "max_energy_range_uj").string()).value.value_or(0);
    zones.push_back({*index, std::move(d)});
  }
  std::sort(zones.begin(), zones.end(),
            [](const Zone& a, const Zone& b) { return a.index < b.index; });
  return zones;
}

}  // namespace

double energy_delta_j(std::uint64_t before_uj, std::uint64_t after_uj, std::uint64_t max_range_uj) {
  if (max_range_uj > 0 && (before_uj > max_range_uj || after_uj > max_range_uj)) return kNaN;
  if (after_uj >= before_uj)
    return static_cast<double>(after_uj - before_uj) * kJoulesPerMicrojoule;
  if (max_range_uj == 0) return kNaN;
  // One wrap: up to the top of the range, then from 0. (The counter steps in RAPL energy units,
  // ~15-61 uJ, so whether max itself is a value the counter takes does not matter.) Two wraps
  // cannot be told from one: read more often than the range lasts (minutes at full power).
  return static_cast<double>(max_range_uj - before_uj + after_uj) * kJoulesPerMicrojoule;
}

std::unique_ptr<Reader> Reader::open(std::string& why, const std::string& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    why = "not available here: " + root + " does not exist (a VM usually hides RAPL)";
    return nullptr;
  }
  std::vector<Zone> zones = find_package_zones(root);
  if (zones.empty()) {
    why = "no package domain (intel-rapl:N named package-N) in " + root;
    return nullptr;
  }
  std::vector<Domain> domains;
  for (Zone& z : zones) {
    const Counter c = read_counter(z.domain.energy_path);
    if (!c.value) {
      why = unreadable_reason(z.domain.energy_path, c.err);
      return nullptr;
    }
    domains.push_back(std::move(z.domain));
  }
  why.clear();
  return std::unique_ptr<Reader>(new Reader(std::move(domains)));
}

std::string Reader::describe() const {
  std::string s = "rapl: ";
  for (std::size_t i = 0; i < domains_.size(); ++i) s += (i ? ", " : "") + domains_[i].name;
  return s;
}

Snapshot Reader::snapshot() const {
  Snapshot s;
  s.energy_uj.reserve(domains_.size());
  for (const Domain& d : domains_) {
    const Counter c = read_counter(d.energy_path);
    if (!c.value) throw std::runtime_error(unreadable_reason(d.energy_path, c.err));
    s.energy_uj.push_back(*c.value);
  }
  return s;
}

double Reader::joules_between(const Snapshot& a, const Snapshot& b) const {
  if (a.energy_uj.size() != domains_.size() || b.energy_uj.size() != domains_.size()) return kNaN;
  double joules = 0.0;
  for (std::size_t i = 0; i < domains_.size(); ++i)
    joules += energy_delta_j(a.energy_uj[i], b.energy_uj[i], domains_[i].max_range_uj);
  return joules;
}

double Reader::read_joules() const {
  double joules = 0.0;
  for (std::uint64_t uj : snapshot().energy_uj)
    joules += static_cast<double>(uj) * kJoulesPerMicrojoule;
  return joules;
}

double energy_per_iteration(double joules, double window_s, double seconds_per_iter) {
  if (!(window_s > 0)) return kNaN;
  return joules / window_s * seconds_per_iter;
}

double energy_per_item(double joules_per_iter, double items_per_iter) {
  if (!(items_per_iter > 0)) return kNaN;
  return joules_per_iter / items_per_iter;
}

}  // namespace tb::rapl
