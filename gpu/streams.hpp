#pragma once
// The compute stage of the streams pipeline (host-callable; the kernel lives in streams.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// out[i] = `fma` chained fmaf(x, a, b) starting from x = in[i], for i in [0, n). Grid-stride,
// grid sized to fill the GPU once (or less for a small chunk).
void streams_compute(const float* in, float* out, std::size_t n, int fma, float a, float b,
                     int block, cudaStream_t stream);
KernelStats streams_compute_stats(std::size_t n, int block);

// Elements per chunk when n is cut into `chunks` pieces (the last may be shorter or empty).
std::size_t streams_chunk_len(std::size_t n, int chunks);

// Buffers and streams of the chunked pipeline. streams[0] is the one the caller times and waits
// on: the other streams start after what streams[0] has enqueued so far (the `fork` event) and
// streams[0] waits for them at the end (`joins[i]`, i >= 1), so events on streams[0] bracket the
// whole pipeline. h_in and h_out should be pinned, or the copies do not overlap anything.
struct PipelineBuffers {
  const float* h_in;
  float* h_out;
  float* d_in;
  float* d_out;
  std::size_t n;
};
struct PipelineStreams {
  const cudaStream_t* streams;  // nstreams of them
  int nstreams;
  cudaEvent_t fork;
  const cudaEvent_t* joins;  // nstreams of them; joins[0] is unused
};

// Chunk c (of `chunks`) goes to streams[c % nstreams]: copy in, compute, copy out.
void streams_pipeline(const PipelineBuffers& buf, const PipelineStreams& ps, int chunks, int fma,
                      float a, float b, int block);

}  // namespace tb::gpu

// ---- The pipeline rows' state (host code, moved from bench/streams.cpp), one per (n, fma):
// pinned host buffers, the device output, kMaxStreams streams with their fork and join events,
// the serial pipeline's output (every variant must match it) and the stages' times.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "common/cuda_raii.hpp"
#include "common/host_array.hpp"
#include "common/validate.hpp"
#include "cpu/streams.hpp"

namespace tb::gpu {

class StreamsRig {
 public:
  static constexpr int kBlock = 256;  // the compute kernel's block; the subject here is overlap
  static constexpr int kMaxStreams = 8;
  static constexpr int kStageReps = 3;  // serial and stage times: best of this many runs
  static constexpr std::size_t kSamples = 16384;  // outputs checked against the CPU at this many points
  static constexpr int kChunkCounts[] = {1, 4, 16, 64};

  double serial_s = 0, h2d_s = 0, kernel_s = 0, d2h_s = 0;

  // `in`: the host input; `d_in`: its device copy (n floats each).
  StreamsRig(const float* in, float* d_in, std::size_t n, int fma)
      : n_(n), fma_(fma), d_in_(d_in), h_in_(n), h_out_(n), d_out_(n), baseline_(n) {
    for (int i = 0; i < kMaxStreams; ++i) {
      streams_.emplace_back();
      joins_.emplace_back(cudaEventDisableTiming);
    }
    for (int i = 0; i < kMaxStreams; ++i) {
      handles_.push_back(streams_[i].get());
      join_handles_.push_back(joins_[i].get());
    }
    std::memcpy(h_in_.data(), in, n * sizeof(float));
    CUDA_CHECK(cudaDeviceSynchronize());  // d_in's upload (on the case's stream) done
    // The serial reference at sample points: evenly spread, plus the first and last element of
    // every chunk of every chunk count, where an off-by-one in the chunking would show.
    const std::size_t step = std::max<std::size_t>(1, n / kSamples);
    for (std::size_t i = 0; i < n; i += step) sample_index_.push_back(i);
    for (int chunks : kChunkCounts) {
      const std::size_t len = streams_chunk_len(n, chunks);
      for (std::size_t begin = 0; begin < n; begin += len) {
        sample_index_.push_back(begin);
        sample_index_.push_back(std::min(begin + len, n) - 1);
      }
    }
    std::sort(sample_index_.begin(), sample_index_.end());
    sample_index_.erase(std::unique(sample_index_.begin(), sample_index_.end()), sample_index_.end());
    for (std::size_t i : sample_index_) sample_ref_.push_back(streams::element(in[i], fma));
    run_poisoned(1, 1);
    std::memcpy(baseline_.data(), h_out_.data(), n * sizeof(float));
    baseline_check_ = check_samples(baseline_.data());
    serial_s = best_time([&] { enqueue(handles_[0], 1, 1); });
    h2d_s = best_time([&] { copy_to_device(d_in_, h_in_.data(), n, handles_[0]); });
    kernel_s = best_time([&] { streams_compute(d_in_, d_out_.data(), n, fma, streams::kA, streams::kB, kBlock, handles_[0]); });
    d2h_s = best_time([&] { copy_to_host(h_out_.data(), d_out_.data(), n, handles_[0]); });
  }

  // The pipeline with `first` as streams[0] (the stream the caller times and waits on).
  void enqueue(cudaStream_t first, int nstreams, int chunks) {
    handles_[0] = first;
    streams_pipeline({h_in_.data(), h_out_.data(), d_in_, d_out_.data(), n_},
                     {handles_.data(), nstreams, fork_.get(), join_handles_.data()}, chunks, fma_,
                     streams::kA, streams::kB, kBlock);
    handles_[0] = streams_[0].get();
  }

  // Both sides of the output poisoned, the pipeline run, its output checked against the serial
  // pipeline's (exactly, within the tolerance) and the CPU's at the sample points: "" when right.
  std::string check(int nstreams, int chunks) {
    run_poisoned(nstreams, chunks);
    ErrorStats s = compare(std::span<const float>(h_out_.data(), n_), std::span<const float>(baseline_.data(), n_));
    for (const ErrorStats& o : {check_samples(h_out_.data()), baseline_check_}) {
      if (o.max_rel > s.max_rel) s = o;
      s.finite = s.finite && o.finite;
    }
    return passes(s, streams::kTolerance) ? "" : describe(s, streams::kTolerance);
  }

 private:
  void run_poisoned(int nstreams, int chunks) {
    poison(std::span<float>(h_out_.data(), n_));
    CUDA_CHECK(cudaMemsetAsync(d_out_.data(), poison_byte<float>(), n_ * sizeof(float), handles_[0]));
    enqueue(handles_[0], nstreams, chunks);
    streams_[0].synchronize();
  }

  ErrorStats check_samples(const float* got) const {
    std::vector<float> g(sample_index_.size());
    for (std::size_t k = 0; k < g.size(); ++k) g[k] = got[sample_index_[k]];
    ErrorStats s = compare(std::span<const float>(g), std::span<const float>(sample_ref_));
    if (s.worst_index < sample_index_.size()) s.worst_index = sample_index_[s.worst_index];
    return s;
  }

  template <class Work>
  double best_time(Work&& work) {
    Event start, stop;
    double best = 0;
    for (int r = 0; r < kStageReps; ++r) {
      start.record(handles_[0]);
      work();
      stop.record(handles_[0]);
      stop.synchronize();
      const double t = stop.seconds_since(start);
      if (r == 0 || t < best) best = t;
    }
    return best;
  }

  std::size_t n_;
  int fma_;
  float* d_in_;
  PinnedBuffer<float> h_in_, h_out_;
  DeviceBuffer<float> d_out_;
  std::vector<Stream> streams_;
  Event fork_{cudaEventDisableTiming};
  std::vector<Event> joins_;
  std::vector<cudaStream_t> handles_;
  std::vector<cudaEvent_t> join_handles_;
  HostArray<float> baseline_;
  ErrorStats baseline_check_;
  std::vector<std::size_t> sample_index_;
  std::vector<float> sample_ref_;
};

}  // namespace tb::gpu
