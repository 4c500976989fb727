#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "common/mpi_run.hpp"

namespace tb::mpi {
namespace {

// Outside mpirun the run is rank 0 of 1 and the collective helpers return their input; an MPI
// collective row cannot run there. (Under mpirun: tests/cli/test_binary.py.)
TEST(MpiRun, AloneIsRankZeroOfOne) {
  if (launched()) GTEST_SKIP() << "the test binary was started by a launcher";
  EXPECT_FALSE(active());
  EXPECT_EQ(rank(), 0);
  EXPECT_EQ(size(), 1);
  EXPECT_EQ(launcher_rank(), 0);
  EXPECT_DOUBLE_EQ(max_over_ranks(2.5), 2.5);
  EXPECT_DOUBLE_EQ(sum_over_ranks(2.5), 2.5);
  EXPECT_DOUBLE_EQ(from_root(2.5), 2.5);
  char id[4] = {1, 2, 3, 4};
  from_root(id, sizeof id);
  EXPECT_EQ(id[3], 4);
  EXPECT_EQ(local_rank(), 0);
  float x = 1.f, y = 0.f;
  const collectives::Counts c{.send = 1, .recv = 1, .chunk = 1};
  EXPECT_THROW(collective(collectives::Op::all_reduce, &x, &y, c), std::logic_error);
}

}  // namespace
}  // namespace tb::mpi
