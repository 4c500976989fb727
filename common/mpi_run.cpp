#include "common/mpi_run.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#if TWINBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace tb::mpi {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

bool g_initialized = false;
int g_rank = 0, g_size = 1;

}  // namespace

bool launched() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
         std::getenv("PMIX_RANK");
}

int launcher_rank() {
  return env_int("OMPI_COMM_WORLD_RANK", env_int("PMI_RANK", env_int("PMIX_RANK", 0)));
}

int local_rank() {
  return env_int("OMPI_COMM_WORLD_LOCAL_RANK",
                 env_int("MPI_LOCALRANKID", env_int("PMI_LOCAL_RANK", 0)));
}

std::string init(int* argc, char*** argv) {
  if (!launched()) return "";
#if TWINBENCH_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_initialized = true;
  return "";
#else
  (void)argc;
  (void)argv;
  return "started by mpirun, but this build has no MPI (libopenmpi-dev was not found when it "
         "was configured): each process runs alone as rank 0 of 1";
#endif
}

void finalize() {
#if TWINBENCH_HAVE_MPI
  if (g_initialized) MPI_Finalize();
#endif
  g_initialized = false;
}

bool active() { return g_initialized && g_size >= 2; }
int rank() { return g_rank; }
int size() { return g_size; }

void barrier() {
#if TWINBENCH_HAVE_MPI
  if (g_initialized) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

double max_over_ranks(double v) {
#if TWINBENCH_HAVE_MPI
  if (g_initialized) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return v;
}

double sum_over_ranks(double v) {
#if TWINBENCH_HAVE_MPI
  if (g_initialized) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return v;
}

double from_root(double v) {
#if TWINBENCH_HAVE_MPI
  if (g_initialized) MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
#endif
  return v;
}

void from_root(void* bytes, std::size_t n) {
  if (n > INT_MAX)
    throw std::invalid_argument("MPI counts are int: " + std::to_string(n) + " bytes");
#if TWINBENCH_HAVE_MPI
  if (g_initialized) MPI_Bcast(bytes, static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD);
#else
  (void)bytes;
#endif
}

void collective(collectives::Op op, const float* send, float* recv, const collectives::Counts& c) {
  if (!active()) throw std::logic_error("an MPI collective outside an MPI job of 2 ranks or more");
  if (c.send > INT_MAX || c.recv > INT_MAX)
    throw std::invalid_argument("MPI counts are int: " + std::to_string(c.send) + " elements");
#if TWINBENCH_HAVE_MPI
  using collectives::Op;
  const int n_send = static_cast<int>(c.send), n_recv = static_cast<int>(c.recv);
  const int n_chunk = static_cast<int>(c.chunk);
  switch (op) {
    case Op::all_reduce:
      MPI_Allreduce(send, recv, n_send, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      return;
    case Op::all_gather:
      MPI_Allgather(send, n_send, MPI_FLOAT, recv, n_send, MPI_FLOAT, MPI_COMM_WORLD);
      return;
    case Op::reduce_scatter:
      MPI_Reduce_scatter_block(send, recv, n_recv, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      return;
    case Op::broadcast:
      if (g_rank == collectives::kRoot) std::memcpy(recv, send, c.send * sizeof(float));
      MPI_Bcast(recv, n_send, MPI_FLOAT, collectives::kRoot, MPI_COMM_WORLD);
      return;
    case Op::all_to_all:
      MPI_Alltoall(send, n_chunk, MPI_FLOAT, recv, n_chunk, MPI_FLOAT, MPI_COMM_WORLD);
      return;
  }
#else
  (void)op;
  (void)send;
  (void)recv;
#endif
}

}  // namespace tb::mpi
