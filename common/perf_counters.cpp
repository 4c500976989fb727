#include "common/perf_counters.hpp"

#include <benchmark/benchmark.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tb::perf {
namespace {

// glibc has no wrapper for this system call.
int perf_event_open(perf_event_attr& attr, int group_fd) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0 /* this thread */,
                                  -1 /* any CPU */, group_fd, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr hardware_event(std::uint64_t config, bool leader) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = config;
  attr.disabled = leader ? 1 : 0;  // the leader starts and stops the whole group
  // User space only: perf_event_paranoid 2 (the usual default) allows that much unprivileged.
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING;
  return attr;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "unreadable";
  return line;
}

std::string paranoid_value() { return read_first_line("/proc/sys/kernel/perf_event_paranoid"); }

bool has_cpu_pmu() {
  std::error_code ec;
  // Intel hybrid parts name theirs cpu_core / cpu_atom.
  return std::filesystem::exists("/sys/bus/event_source/devices/cpu", ec) ||
         std::filesystem::exists("/sys/bus/event_source/devices/cpu_core", ec);
}

bool under_hypervisor() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return line.find(" hypervisor") != std::string::npos;
  return false;
}

const char* errno_name(int err) {
  switch (err) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case ENOSYS: return "ENOSYS";
    default: return "errno";
  }
}

// A loop the compiler cannot remove or vectorise away: a dependent chain of integer ops.
std::uint64_t busy_loop(std::uint64_t n) {
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (std::uint64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

}  // namespace

std::optional<Group> Group::open(std::string& why) {
  Group g;
  perf_event_attr cycles = hardware_event(PERF_COUNT_HW_CPU_CYCLES, true);
  const int leader = perf_event_open(cycles, -1);
  if (leader < 0) {
    why = unavailable_reason(errno, paranoid_value(), has_cpu_pmu(), under_hypervisor());
    return std::nullopt;
  }
  g.fds_.push_back(leader);
  perf_event_attr instructions = hardware_event(PERF_COUNT_HW_INSTRUCTIONS, false);
  const int fd = perf_event_open(instructions, leader);
  if (fd < 0) {
    why = "cycles open, instructions not: " +
          unavailable_reason(errno, paranoid_value(), has_cpu_pmu(), under_hypervisor());
    return std::nullopt;  // g's destructor closes the leader
  }
  g.fds_.push_back(fd);
  // The generic "cache misses" event is the last-level cache on Intel and AMD; optional.
  perf_event_attr llc = hardware_event(PERF_COUNT_HW_CACHE_MISSES, false);
  if (const int llc_fd = perf_event_open(llc, leader); llc_fd >= 0) g.fds_.push_back(llc_fd);
  return g;
}

Group::Group(Group&& other) noexcept : fds_(std::move(other.fds_)) { other.fds_.clear(); }

Group& Group::operator=(Group&& other) noexcept {
  if (this != &other) {
    for (int fd : fds_) ::close(fd);
    fds_ = std::move(other.fds_);
    other.fds_.clear();
  }
  return *this;
}

Group::~Group() {
  for (int fd : fds_) ::close(fd);
}

void Group::start() {
  ioctl(fds_[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
  ioctl(fds_[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

Reading Group::stop() {
  ioctl(fds_[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  // PERF_FORMAT_GROUP: nr, time_enabled, time_running, then one value per event.
  std::uint64_t buf[3 + 3] = {};
  const ssize_t got = ::read(fds_[0], buf, sizeof buf);
  const auto expected = static_cast<ssize_t>(sizeof(std::uint64_t) * (3 + fds_.size()));
  if (got < expected || buf[0] != fds_.size())
    throw std::runtime_error("perf_event read returned a short group");
  const std::uint64_t enabled = buf[1], running = buf[2];
  // Multiplexed: the group counted part of the time; scale to the whole, as perf stat does.
  const double scale = running && running < enabled ? static_cast<double>(enabled) / running : 1.0;
  auto scaled = [&](std::uint64_t v) { return static_cast<std::uint64_t>(v * scale); };
  Reading r;
  r.cycles = scaled(buf[3]);
  r.instructions = scaled(buf[4]);
  if (fds_.size() > 2) r.llc_misses = scaled(buf[5]);
  r.multiplexed = scale != 1.0;
  return r;
}

std::string unavailable_reason(int err, const std::string& paranoid, bool has_cpu_pmu,
                               bool hypervisor) {
  std::string why = std::string(errno_name(err)) + " (" + std::strerror(err) + ")";
  if (!has_cpu_pmu)
    why += hypervisor ? ": no CPU PMU (/sys/bus/event_source/devices has no cpu folder: a VM "
                        "without a virtual PMU)"
                      : ": no CPU PMU (/sys/bus/event_source/devices has no cpu folder)";
  else if (err == EACCES || err == EPERM)
    why += ": refused by kernel.perf_event_paranoid or a missing CAP_PERFMON";
  return why + "; kernel.perf_event_paranoid=" + paranoid;
}

Probe probe() {
  Probe p;
  std::string why;
  auto group = Group::open(why);
  if (!group) {
    p.detail = why;
    return p;
  }
  try {
    group->start();
    volatile std::uint64_t sink = busy_loop(2'000'000);
    (void)sink;
    const Reading r = group->stop();
    if (r.cycles == 0 || r.instructions == 0) {
      p.detail = "the counters open but read zero (a virtual PMU that does not count)";
      return p;
    }
    p.available = true;
    p.reading = r;
    char ipc[32];
    std::snprintf(ipc, sizeof ipc, "%.2f", r.ipc());
    p.detail = std::string("cycles, instructions") + (r.llc_misses ? ", LLC misses" : "") +
               " of the calling thread (user space); probe IPC " + ipc;
  } catch (const std::exception& e) {
    p.detail = e.what();
  }
  return p;
}

void record_context() {
  const Probe p = probe();
  benchmark::AddCustomContext("cpu_counters", (p.available ? "available (perf_event_open): "
                                                           : "not available: ") + p.detail);
  benchmark::AddCustomContext("cpu_counters_paranoid", paranoid_value());
  if (p.reading) {
    char ipc[32];
    std::snprintf(ipc, sizeof ipc, "%.3g", p.reading->ipc());
    benchmark::AddCustomContext("cpu_counters_probe_ipc", ipc);
  }
}

}  // namespace tb::perf
