#include "common/build_fit.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace tb {
namespace {

std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

// One entry of the list: "90", "90-real", "90-virtual" (suffixes such as "90a" are taken as 90).
bool parse_entry(const std::string& entry, CudaArch& out) {
  std::size_t digits = 0;
  while (digits < entry.size() && std::isdigit(static_cast<unsigned char>(entry[digits]))) ++digits;
  if (digits == 0) return false;
  out.arch = std::stoi(entry.substr(0, digits));
  const std::size_t dash = entry.find('-');
  const std::string kind = dash == std::string::npos ? "" : entry.substr(dash + 1);
  out.sass = kind.empty() || kind == "real";
  out.ptx = kind.empty() || kind == "virtual";
  return true;
}

}  // namespace

std::vector<CudaArch> parse_cuda_architectures(const std::string& list) {
  std::vector<CudaArch> out;
  std::stringstream in(list);
  std::string entry;
  while (std::getline(in, entry, ';')) {
    CudaArch a;
    if (parse_entry(entry, a)) out.push_back(a);
  }
  return out;
}

BuildFit build_fit(const std::string& architectures, int device_cc) {
  const std::vector<CudaArch> archs = parse_cuda_architectures(architectures);
  BuildFit fit;
  if (archs.empty()) {
    fit.text = "built for '" + architectures + "' (resolved by the compiler)";
    return fit;
  }
  int best_sass = 0, best_ptx = 0;
  for (const CudaArch& a : archs) {
    if (a.sass && a.arch / 10 == device_cc / 10 && a.arch <= device_cc)
      best_sass = std::max(best_sass, a.arch);
    if (a.ptx && a.arch <= device_cc) best_ptx = std::max(best_ptx, a.arch);
  }
  const std::string device = "sm_" + std::to_string(device_cc);
  if (best_sass != 0) {
    fit = {CodeFit::sass, best_sass, "sm_" + std::to_string(best_sass) + " SASS"};
    if (best_sass != device_cc) fit.text += " (runs on " + device + ")";
  } else if (best_ptx != 0) {
    fit = {CodeFit::jit, best_ptx,
           "compute_" + std::to_string(best_ptx) + " PTX, JIT-compiled by the driver for " + device};
  } else {
    fit = {CodeFit::none, 0, "no code for " + device};
  }
  return fit;
}

std::string no_code_message(const std::string& architectures, const std::string& gpu_name,
                            int device_cc) {
  return "this binary has no GPU code for " + gpu_name + " (compute capability " +
         cc_text(device_cc) + "): it was built for CUDA architectures '" + architectures +
         "'. Rebuild for this GPU: CUDA_ARCH=native scripts/run.sh (or cmake -DCMAKE_CUDA_ARCHITECTURES=" +
         std::to_string(device_cc) + "). Every GPU row skips; the CPU rows run.";
}

}  // namespace tb
