#include "common/gpu_links.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>

namespace tb::links {
namespace {

// NVML's C API as the driver's libnvidia-ml.so.1 exports it (the toolkit here has no nvml.h):
// every call returns 0 (NVML_SUCCESS) on success.
using nvml_device = struct nvml_device_opaque*;
constexpr unsigned kMaxLinks = 18;     // NVML_NVLINK_MAX_LINKS
constexpr unsigned kRemoteSwitch = 2;  // nvmlIntNvLinkDeviceType_t NVML_NVLINK_DEVICE_TYPE_SWITCH

struct PciInfo {  // nvmlPciInfo_t
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

struct Nvml {
  std::string why;
  int (*handle_by_bus)(const char*, nvml_device*) = nullptr;
  int (*pcie_gen)(nvml_device, unsigned*) = nullptr;
  int (*pcie_width)(nvml_device, unsigned*) = nullptr;
  int (*pcie_max_gen)(nvml_device, unsigned*) = nullptr;
  int (*pcie_max_width)(nvml_device, unsigned*) = nullptr;
  int (*nvlink_state)(nvml_device, unsigned, unsigned*) = nullptr;
  int (*nvlink_version)(nvml_device, unsigned, unsigned*) = nullptr;
  int (*nvlink_remote_pci)(nvml_device, unsigned, PciInfo*) = nullptr;
  int (*nvlink_remote_type)(nvml_device, unsigned, unsigned*) = nullptr;
  int (*common_ancestor)(nvml_device, nvml_device, int*) = nullptr;
};

template <class Fn>
void bind(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

Nvml open() {
  Nvml n;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);  // kept for the process
  if (!lib) {
    n.why = "NVML not available (libnvidia-ml.so.1 comes with the NVIDIA driver)";
    return n;
  }
  int (*init)() = nullptr;
  bind(lib, "nvmlInit_v2", init);
  if (!init || init() != 0) {
    n.why = "nvmlInit failed";
    return n;
  }
  bind(lib, "nvmlDeviceGetHandleByPciBusId_v2", n.handle_by_bus);
  bind(lib, "nvmlDeviceGetCurrPcieLinkGeneration", n.pcie_gen);
  bind(lib, "nvmlDeviceGetCurrPcieLinkWidth", n.pcie_width);
  bind(lib, "nvmlDeviceGetMaxPcieLinkGeneration", n.pcie_max_gen);
  bind(lib, "nvmlDeviceGetMaxPcieLinkWidth", n.pcie_max_width);
  bind(lib, "nvmlDeviceGetNvLinkState", n.nvlink_state);
  bind(lib, "nvmlDeviceGetNvLinkVersion", n.nvlink_version);
  bind(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2", n.nvlink_remote_pci);
  bind(lib, "nvmlDeviceGetNvLinkRemoteDeviceType", n.nvlink_remote_type);
  bind(lib, "nvmlDeviceGetTopologyCommonAncestor", n.common_ancestor);
  if (!n.handle_by_bus) n.why = "NVML has no nvmlDeviceGetHandleByPciBusId_v2";
  return n;
}

const Nvml& nvml() {
  static const Nvml n = open();
  return n;
}

nvml_device handle(const std::string& bus, std::string& why) {
  nvml_device d = nullptr;
  if (!nvml().why.empty()) {
    why = nvml().why;
    return nullptr;
  }
  if (const int rc = nvml().handle_by_bus(bus.c_str(), &d); rc != 0) {
    why = "NVML finds no device " + bus + " (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  return d;
}

std::string pcie(nvml_device d) {
  const Nvml& n = nvml();
  unsigned gen = 0, width = 0, max_gen = 0, max_width = 0;
  if (!n.pcie_gen || n.pcie_gen(d, &gen) != 0 || !n.pcie_width || n.pcie_width(d, &width) != 0)
    return "";
  std::string s = "gen" + std::to_string(gen) + " x" + std::to_string(width);
  if (n.pcie_max_gen && n.pcie_max_gen(d, &max_gen) == 0 && n.pcie_max_width &&
      n.pcie_max_width(d, &max_width) == 0)
    s += " (max gen" + std::to_string(max_gen) + " x" + std::to_string(max_width) + ")";
  return s;
}

bool link_active(nvml_device d, unsigned link) {
  unsigned on = 0;
  return nvml().nvlink_state && nvml().nvlink_state(d, link, &on) == 0 && on == 1;
}

// "0000:19:00.0" (CUDA) and NVML's "00000000:19:00.0" name one device: compared as numbers.
struct BusAddress {
  unsigned domain = 0, bus = 0, device = 0;
  bool operator==(const BusAddress&) const = default;
};

BusAddress parse_bus(const std::string& id) {
  BusAddress a;
  if (std::sscanf(id.c_str(), "%x:%x:%x", &a.domain, &a.bus, &a.device) != 3) return {};
  return a;
}

// Active links of `d` that end at device `peer` (direct NVLink).
int links_to(nvml_device d, const BusAddress& peer) {
  if (!nvml().nvlink_remote_pci) return 0;
  int n = 0;
  for (unsigned link = 0; link < kMaxLinks; ++link) {
    PciInfo remote{};
    if (link_active(d, link) && nvml().nvlink_remote_pci(d, link, &remote) == 0 &&
        BusAddress{remote.domain, remote.bus, remote.device} == peer)
      ++n;
  }
  return n;
}

}  // namespace

std::string nvlink_version_name(unsigned v) {
  static const char* const names[] = {"", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0"};
  return v < std::size(names) ? names[v] : "";
}

std::string topology_name(int level) {
  switch (level) {
    case 0: return "X";
    case 10: return "PIX";
    case 20: return "PXB";
    case 30: return "PHB";
    case 40: return "NODE";
    case 50: return "SYS";
    default: return "";
  }
}

std::string DeviceLinks::describe() const {
  if (!why.empty()) return "";
  std::string s = pcie.empty() ? "" : "PCIe " + pcie;
  if (nvlinks > 0)
    s += (s.empty() ? "" : "; ") + std::string("NVLink ") + std::to_string(nvlinks) + " active" +
         (nvlink_version.empty() ? "" : " (" + nvlink_version + ")") +
         (nvlinks_to_switch ? " to NVSwitch" : "");
  return s;
}

DeviceLinks device_links(const std::string& bus) {
  DeviceLinks out;
  const nvml_device d = handle(bus, out.why);
  if (!d) return out;
  out.pcie = pcie(d);
  for (unsigned link = 0; link < kMaxLinks; ++link) {
    if (!link_active(d, link)) continue;
    ++out.nvlinks;
    unsigned v = 0, type = 0;
    if (out.nvlink_version.empty() && nvml().nvlink_version &&
        nvml().nvlink_version(d, link, &v) == 0)
      out.nvlink_version = nvlink_version_name(v);
    if (nvml().nvlink_remote_type && nvml().nvlink_remote_type(d, link, &type) == 0 &&
        type == kRemoteSwitch)
      out.nvlinks_to_switch = true;
  }
  return out;
}

std::string pair_link(const std::string& bus_a, const std::string& bus_b) {
  std::string why;
  const nvml_device a = handle(bus_a, why), b = handle(bus_b, why);
  if (!a || !b) return "";
  if (const int direct = links_to(a, parse_bus(bus_b)); direct > 0)
    return "NV" + std::to_string(direct);
  const DeviceLinks la = device_links(bus_a), lb = device_links(bus_b);
  if (la.nvlinks_to_switch && lb.nvlinks_to_switch)
    return "NV" + std::to_string(std::min(la.nvlinks, lb.nvlinks));
  int level = -1;
  if (nvml().common_ancestor && nvml().common_ancestor(a, b, &level) == 0)
    return topology_name(level);
  return "";
}

}  // namespace tb::links
