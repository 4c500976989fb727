"""The article's program with a live progress bar (kernel_progress): each warp adds its
finished samples to its block's slot, and a tqdm bar drawn from the slots' sum, copied while the
kernel runs, moves. The final count is checked against the total.

    python article_progress.py [N]
"""

import math
import sys

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

import kernel_progress as kp


@cuda.jit(device=True)
def poisson_sample(rate, u):
    k = 0
    cdf = 0.0
    while k < 100:
        cdf += math.exp(-rate) * rate ** k / math.gamma(k + 1.0)
        if u < cdf:
            break
        k += 1
    return k


@cuda.jit
def generate_samples(rng_states, out, rate, counter):
    thread_id = cuda.grid(1)
    if thread_id < out.size:
        out[thread_id] = poisson_sample(rate, xoroshiro128p_uniform_float32(rng_states, thread_id))
    kp.tally(counter, thread_id < out.size)


def main(n):
    rate = 5.0
    threads_per_block = 512
    blocks = (n + threads_per_block - 1) // threads_per_block
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    out = cuda.device_array(n, dtype=np.int32)
    with kp.LiveProgress(blocks, total=n, desc="samples") as progress:
        generate_samples[blocks, threads_per_block](rng_states, out, rate, progress.slots)
    print(f"{progress.count} of {n} samples")
    samples = out.copy_to_host()
    print(f"mean {samples.mean():.3f} (rate {rate})")
    return samples


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000)
