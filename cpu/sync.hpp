#pragma once
// sync: what launching work and waiting for it costs. The GPU variants launch a one-thread
// kernel K times with different synchronisation patterns (see bench/sync.cpp); the CPU lines
// are the host's analogues: a plain function call and an OpenMP fork/join per "launch".
#include <cstdint>

namespace tb::sync {

constexpr int kLaunches = 1000;  // K: launches per iteration of the batched variants

// `count` calls of a function that adds 1 to a counter, through a pointer the compiler cannot
// see through (so no inlining). Returns the counter.
std::uint64_t serial_calls(int count);
// `count` OpenMP parallel regions in which one thread adds 1 to a counter: the fork/join (and
// barrier) an OpenMP "launch and wait" costs. Returns the counter.
std::uint64_t omp_fork_join(int count);

}  // namespace tb::sync
