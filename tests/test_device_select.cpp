#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_select.hpp"

namespace tb {
namespace {

TEST(DeviceSelect, OneNumberAListOrAll) {
  EXPECT_TRUE(parse_devices("0").single());
  EXPECT_EQ(parse_devices("7").ordinals, std::vector<int>{7});
  EXPECT_EQ(parse_devices("2,0").ordinals, (std::vector<int>{2, 0}));
  EXPECT_FALSE(parse_devices("0,2").single());
  EXPECT_TRUE(parse_devices("all").all);
  EXPECT_FALSE(parse_devices("all").single());
  for (const char* bad : {"", "-1", "x", "1x", "0,", ",1", "0,,1", " 1", "All", "0,all"})
    EXPECT_THROW(parse_devices(bad), std::invalid_argument) << bad;
}

TEST(DeviceSelect, ADeviceListedTwiceIsBadInput) {
  try {
    parse_devices("0,1,0");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelect, EachDeviceWritesItsOwnResultsFile) {
  EXPECT_EQ(per_device_path("run.json", 2), "run-gpu2.json");
  EXPECT_EQ(per_device_path("out.d/run.csv", 0), "out.d/run.csv-gpu0");
  EXPECT_EQ(per_device_path(".json", 1), ".json-gpu1");
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
