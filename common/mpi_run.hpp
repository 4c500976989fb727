#pragma once
// The run under mpirun: one process per rank, each measuring its own GPU (the rank's local
// number, as --devices would pick it), the MPI rows taken by all ranks in step, and rank 0 alone
// printing and writing the results file. Without MPI in the build, or without mpirun, the run
// is one process of rank 0 of 1 and everything here is a no-op.
#include <cstddef>
#include <string>

#include "common/collectives.hpp"

namespace tb::mpi {

// Whether a launcher started this process as a rank (Open MPI's, or a PMI launcher's,
// environment), whether or not the build has MPI.
bool launched();
// The launcher's rank of this process (0 without a launcher).
int launcher_rank();
// This process's rank among those on its node (0 without a launcher): the GPU it measures.
int local_rank();

// MPI_Init_thread when launched and the build has MPI; MPI_Finalize at exit. Returns "" or why
// the process runs alone (a build without MPI under mpirun: there only the launcher's rank 0
// should run, main() ends the others).
std::string init(int* argc, char*** argv);
void finalize();

bool active();  // MPI is initialized and there are 2 ranks or more
int rank();
int size();

// Collective helpers, each called by every rank (no-ops alone):
void barrier();
double max_over_ranks(double v);
double sum_over_ranks(double v);
double from_root(double v);  // rank 0's value on every rank
void from_root(void* bytes, std::size_t n);  // rank 0's n bytes on every rank

// One collective of float32 over every rank's host buffers, the collectives workload's CPU
// counterpart (counts as tb::collectives::counts gives them; broadcast from kRoot's send
// buffer into every rank's receive buffer). Throws std::invalid_argument for counts over
// INT_MAX, std::logic_error when MPI is not active.
void collective(collectives::Op op, const float* send, float* recv, const collectives::Counts& c);

}  // namespace tb::mpi
