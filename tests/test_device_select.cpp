#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/device_select.hpp"

namespace tb {
namespace {

TEST(DeviceSelect, OneDeviceNumber) {
  EXPECT_EQ(parse_device("0"), 0);
  EXPECT_EQ(parse_device("7"), 7);
  for (const char* bad : {"", "-1", "x", "1x", "0,1", "all", " 1"})
    EXPECT_THROW(parse_device(bad), std::invalid_argument) << bad;
}

TEST(DeviceSelect, ListsAndAllSayWhatToDoInstead) {
  try {
    parse_device("0,2");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/run-devices.sh"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelect, PicksFromTheVisibleList) {
  EXPECT_EQ(visible_devices_for(2, std::nullopt), "2");
  EXPECT_EQ(visible_devices_for(0, std::string("")), "0");
  EXPECT_EQ(visible_devices_for(1, std::string("3,5")), "5");
  EXPECT_EQ(visible_devices_for(0, std::string("GPU-1234abcd,3")), "GPU-1234abcd");
  EXPECT_THROW(visible_devices_for(2, std::string("3,5")), std::invalid_argument);
  EXPECT_THROW(visible_devices_for(1, std::string("3,")), std::invalid_argument);
}

}  // namespace
}  // namespace tb
