#pragma once
// What connects the GPUs, as NVML reports it (loaded at run time, as the telemetry's NVML is):
// each device's PCIe link and active NVLinks, and for a pair of devices the path between them in
// nvidia-smi topo -m's words (NV<n>, PIX, PXB, PHB, NODE, SYS). Recorded in the run's context
// and on the peer_copy rows, so that a link's measured GB/s sits beside what the link is. Host
// code only; without NVML every answer is "" and `why` says so.
#include <string>

namespace tb::links {

// nvmlNvlinkVersion_t (an enum, not the version: 6 is NVLink 4.0) as "4.0"; "" when unknown.
std::string nvlink_version_name(unsigned nvml_value);

// nvmlGpuTopologyLevel_t as nvidia-smi topo -m names it: 0 "X" (one board), 10 "PIX" (one PCIe
// switch), 20 "PXB" (several PCIe switches), 30 "PHB" (a host bridge), 40 "NODE" (host bridges of
// one NUMA node), 50 "SYS" (across NUMA nodes); "" for other values.
std::string topology_name(int nvml_level);

// One device's links: "PCIe gen5 x16 (max gen5 x16); NVLink 18 active (4.0)" or "" with `why`.
struct DeviceLinks {
  std::string pcie;    // "gen5 x16 (max gen5 x16)"
  int nvlinks = 0;     // active NVLinks
  std::string nvlink_version;
  bool nvlinks_to_switch = false;  // the active links end at an NVSwitch
  std::string why;     // why NVML could not say ("" when it could)
  std::string describe() const;
};
DeviceLinks device_links(const std::string& pci_bus_id);

// The path from device a to device b (CUDA's PCI bus ids): "NV18" when NVLinks join them (direct,
// or both through NVSwitches: the fewer of the two's active links), else the PCIe path's word;
// "" when NVML cannot say.
std::string pair_link(const std::string& bus_a, const std::string& bus_b);

}  // namespace tb::links
