// RAPL energy (common/rapl.hpp) from fake powercap trees: which zones count, every reason open()
// gives, the counter's wraparound, and the energy arithmetic shared with the GPU side.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "common/rapl.hpp"
#include "tests/test_util.hpp"

namespace tb::rapl {
namespace {

namespace fs = std::filesystem;

// A fake /sys/class/powercap.
class FakePowercap : public tb::test::TempDir {
 public:
  FakePowercap() : TempDir("tb_rapl") {}

  void zone(const std::string& folder, const std::string& name, std::uint64_t energy_uj,
            std::uint64_t max_range_uj = kMaxRange) const {
    fs::create_directories(path(folder));
    write(folder + "/name", name);
    set_energy(folder, energy_uj);
    write(folder + "/max_energy_range_uj", std::to_string(max_range_uj));
  }
  void set_energy(const std::string& folder, std::uint64_t energy_uj) const {
    write(folder + "/energy_uj", std::to_string(energy_uj));
  }
  // sysfs files end with a newline.
  void write(const std::string& rel, const std::string& text) const {
    TempDir::write(rel, text + "\n");
  }

  static constexpr std::uint64_t kMaxRange = 262143328850;  // a real Xeon's value
};

// What /sys/class/powercap holds on a two-socket Intel machine, plus what must not count.
void two_packages_and_decoys(const FakePowercap& fake) {
  fake.zone("intel-rapl:0", "package-0", 1'000'000);
  fake.zone("intel-rapl:1", "package-1", 2'000'000);
  fake.zone("intel-rapl:0:0", "core", 5'000'000);          // sub-zone: inside package-0
  fake.zone("intel-rapl:0:1", "dram", 6'000'000);          // sub-zone
  fake.zone("intel-rapl-mmio:0", "package-0", 7'000'000);  // package-0 again, through MMIO
  fake.zone("intel-rapl:2", "psys", 9'000'000);            // the whole platform
  fs::create_directories(fake.path("intel-rapl"));         // the control type folder
  fake.write("intel-rapl/enabled", "1");
}

TEST(Rapl, FindsPackagesAndIgnoresSubZones) {
  FakePowercap fake;
  two_packages_and_decoys(fake);
  std::string why = "stale";
  const auto reader = Reader::open(why, fake.root());
  ASSERT_NE(reader, nullptr) << why;
  EXPECT_TRUE(why.empty());
  EXPECT_EQ(reader->describe(), "rapl: package-0, package-1");
  ASSERT_EQ(reader->domains().size(), 2u);
  EXPECT_EQ(reader->domains()[0].max_range_uj, FakePowercap::kMaxRange);
  EXPECT_DOUBLE_EQ(reader->read_joules(), 3.0);  // 1 J + 2 J, nothing from the decoys
}

TEST(Rapl, PackagesInNumericOrder) {
  FakePowercap fake;
  fake.zone("intel-rapl:10", "package-10", 1);
  fake.zone("intel-rapl:2", "package-2", 1);
  std::string why;
  const auto reader = Reader::open(why, fake.root());
  ASSERT_NE(reader, nullptr) << why;
  EXPECT_EQ(reader->describe(), "rapl: package-2, package-10");
}

TEST(Rapl, JoulesBetweenSumsDomainsAcrossAWrap) {
  FakePowercap fake;
  fake.zone("intel-rapl:0", "package-0", 1'000'000, 10'000'000);
  fake.zone("intel-rapl:1", "package-1", 9'500'000, 10'000'000);
  std::string why;
  const auto reader = Reader::open(why, fake.root());
  ASSERT_NE(reader, nullptr) << why;
  const Snapshot before = reader->snapshot();
  fake.set_energy("intel-rapl:0", 4'000'000);  // +3 J
  fake.set_energy("intel-rapl:1", 500'000);    // wrapped: +0.5 J to the top, +0.5 J after
  const Snapshot after = reader->snapshot();
  EXPECT_DOUBLE_EQ(reader->joules_between(before, after), 4.0);
  EXPECT_TRUE(std::isnan(reader->joules_between(before, Snapshot{})));
}

TEST(Rapl, MissingFolderSaysRaplIsHidden) {
  FakePowercap fake;
  const std::string root = fake.path("no-such-folder");
  std::string why;
  EXPECT_EQ(Reader::open(why, root), nullptr);
  EXPECT_EQ(why, "not available here: " + root + " does not exist (a VM usually hides RAPL)");
}

TEST(Rapl, NoPackageDomain) {
  FakePowercap fake;
  fake.zone("intel-rapl:0:0", "core", 1);
  fake.zone("intel-rapl:1", "psys", 1);
  std::string why;
  EXPECT_EQ(Reader::open(why, fake.root()), nullptr);
  EXPECT_EQ(why.rfind("no package domain", 0), 0u) << why;
}

// A read that fails (here energy_uj is a folder: EISDIR) is a reason, not a crash or a zero.
TEST(Rapl, UnreadableEnergyFile) {
  FakePowercap fake;
  fake.zone("intel-rapl:0", "package-0", 1);
  fs::remove(fake.path("intel-rapl:0/energy_uj"));
  fs::create_directories(fake.path("intel-rapl:0/energy_uj"));
  std::string why;
  EXPECT_EQ(Reader::open(why, fake.root()), nullptr);
  EXPECT_EQ(why.rfind("not readable: ", 0), 0u) << why;
  EXPECT_NE(why.find(fake.path("intel-rapl:0/energy_uj")), std::string::npos) << why;
}

// The kernel's own case: energy_uj mode 0400, read by someone else than root. As root, one
// thread drops its effective uid (the raw syscall changes only the calling thread, unlike
// glibc's setresuid) so root's permission override does not apply.
TEST(Rapl, RootOnlyEnergyFileNamesPlatypus) {
  FakePowercap fake;
  fake.zone("intel-rapl:0", "package-0", 1);
  fs::permissions(fake.root(), fs::perms(0755));
  fs::permissions(fake.path("intel-rapl:0/energy_uj"), fs::perms(0400));
  std::string why;
  bool opened = false;
  if (geteuid() != 0) {
    opened = Reader::open(why, fake.root()) != nullptr;
  } else {
    bool dropped = false;
    std::thread([&] {
      constexpr long kNobody = 65534;
      dropped = syscall(SYS_setresuid, -1L, kNobody, -1L) == 0;
      if (dropped) opened = Reader::open(why, fake.root()) != nullptr;
    }).join();
    if (!dropped) GTEST_SKIP() << "cannot drop root in a thread here (no CAP_SETUID?)";
  }
  EXPECT_FALSE(opened);
  EXPECT_EQ(why.rfind("not readable: energy_uj is root-only since Linux 5.10 (PLATYPUS, "
                      "CVE-2020-8694); run as root or chmod it",
                      0),
            0u)
      << why;
}

TEST(Rapl, DeltaWithAndWithoutWrap) {
  EXPECT_DOUBLE_EQ(energy_delta_j(100, 300, 1000), 200e-6);
  EXPECT_DOUBLE_EQ(energy_delta_j(900, 100, 1000), 200e-6);  // 100 to the top, 100 after 0
  EXPECT_DOUBLE_EQ(energy_delta_j(500, 500, 1000), 0.0);
  EXPECT_DOUBLE_EQ(energy_delta_j(100, 300, 0), 200e-6);     // no range needed without a wrap
  EXPECT_TRUE(std::isnan(energy_delta_j(900, 100, 0)));      // backwards, range unknown
  EXPECT_TRUE(std::isnan(energy_delta_j(1500, 100, 1000)));  // outside the range
  EXPECT_TRUE(std::isnan(energy_delta_j(100, 1500, 1000)));
}

TEST(Energy, PerIterationFromMeanPower) {
  EXPECT_DOUBLE_EQ(energy_per_iteration(100.0, 10.0, 0.5), 5.0);  // 10 W for 0.5 s
  EXPECT_DOUBLE_EQ(energy_per_iteration(0.0, 10.0, 0.5), 0.0);
  EXPECT_TRUE(std::isnan(energy_per_iteration(100.0, 0.0, 0.5)));
  EXPECT_TRUE(std::isnan(energy_per_iteration(100.0, -1.0, 0.5)));
  EXPECT_TRUE(std::isnan(energy_per_iteration(100.0, std::nan(""), 0.5)));
}

TEST(Energy, PerItem) {
  EXPECT_DOUBLE_EQ(energy_per_item(5.0, 1000.0), 0.005);
  EXPECT_TRUE(std::isnan(energy_per_item(5.0, 0.0)));
  EXPECT_TRUE(std::isnan(energy_per_item(5.0, -3.0)));
  EXPECT_TRUE(std::isnan(energy_per_item(std::nan(""), 10.0)));
}

}  // namespace
}  // namespace tb::rapl
