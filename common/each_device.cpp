#include "common/each_device.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "common/gpu_context.hpp"
#include "common/mpi_run.hpp"

namespace tb {
namespace {

constexpr int kBadInput = 2;

std::vector<int> devices_of(const DeviceChoice& choice) {
  if (!choice.all) return choice.ordinals;
  std::vector<int> all;
  for (int d = 0; d < cuda_device_count(); ++d) all.push_back(d);
  return all;
}

std::string joined(const std::vector<int>& devices) {
  std::string s;
  for (int d : devices) {
    if (!s.empty()) s += ',';
    s += std::to_string(d);
  }
  return s;
}

// Runs the binary with `args` and waits: its exit status, or 128 + the signal that ended it.
int run_child(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("twinbench: fork");
    return 1;
  }
  if (pid == 0) {
    execv("/proc/self/exe", argv.data());
    std::perror("twinbench: exec");
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

std::vector<std::string> device_args(const std::vector<std::string>& args, int device) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    const std::string_view v = a;
    if (v.starts_with("--devices=")) continue;
    if (v.starts_with("--benchmark_out=")) {
      out.push_back("--benchmark_out=" +
                    per_device_path(v.substr(std::string_view("--benchmark_out=").size()), device));
      continue;
    }
    out.push_back(a);
  }
  out.insert(out.begin() + (out.empty() ? 0 : 1), "--devices=" + std::to_string(device));
  return out;
}

int run_each_device(const DeviceChoice& choice, const std::vector<std::string>& args) {
  if (mpi::launched()) {
    std::fprintf(stderr, "twinbench: --devices: under mpirun each rank measures its own GPU (its "
                         "local rank's): give one device or none\n");
    return kBadInput;
  }
  const std::vector<int> devices = devices_of(choice);
  if (devices.empty()) {
    std::fprintf(stderr, "twinbench: --devices=all: CUDA shows this process no GPU\n");
    return kBadInput;
  }
  int status = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    std::fprintf(stderr, "twinbench: device %d (%zu of %zu: --devices=%s), a run of its own\n",
                 devices[i], i + 1, devices.size(), joined(devices).c_str());
    const int rc = run_child(device_args(args, devices[i]));
    if (rc != 0 && status == 0) status = rc;
  }
  return status;
}

}  // namespace tb
