#include <gtest/gtest.h>

#include "common/gpu_links.hpp"

namespace tb::links {
namespace {

// NVML's NVLink version is an enum (hwloc was caught by it: an A100 reports 5, NVLink 3.1).
TEST(GpuLinks, NvlinkVersionIsNvmlsEnumNotTheNumber) {
  EXPECT_EQ(nvlink_version_name(4), "3.0");
  EXPECT_EQ(nvlink_version_name(6), "4.0");
  EXPECT_EQ(nvlink_version_name(7), "5.0");
  EXPECT_EQ(nvlink_version_name(0), "");
  EXPECT_EQ(nvlink_version_name(99), "");
}

TEST(GpuLinks, TopologyLevelsAreNvidiaSmiTopoWords) {
  EXPECT_EQ(topology_name(0), "X");
  EXPECT_EQ(topology_name(10), "PIX");
  EXPECT_EQ(topology_name(20), "PXB");
  EXPECT_EQ(topology_name(30), "PHB");
  EXPECT_EQ(topology_name(40), "NODE");
  EXPECT_EQ(topology_name(50), "SYS");
  EXPECT_EQ(topology_name(5), "");
}

TEST(GpuLinks, DescriptionNamesPcieAndNvlinks) {
  DeviceLinks l{.pcie = "gen5 x16 (max gen5 x16)", .nvlinks = 18, .nvlink_version = "4.0",
                .nvlinks_to_switch = true, .why = ""};
  EXPECT_EQ(l.describe(), "PCIe gen5 x16 (max gen5 x16); NVLink 18 active (4.0) to NVSwitch");
  l.nvlinks = 0;
  EXPECT_EQ(l.describe(), "PCIe gen5 x16 (max gen5 x16)");
  l.why = "NVML not available";
  EXPECT_EQ(l.describe(), "");
}

// Without a driver (CI) or with a bus id no device has, an empty answer and a reason.
TEST(GpuLinks, UnknownDeviceIsAReasonNotACrash) {
  const DeviceLinks l = device_links("ffff:ff:1f.0");
  EXPECT_FALSE(l.why.empty());
  EXPECT_EQ(pair_link("ffff:ff:1f.0", "ffff:fe:1f.0"), "");
}

}  // namespace
}  // namespace tb::links
