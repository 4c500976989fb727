"""Where kp.tally's cost on the article's program comes from: the article's kernel with variants
of the block's last step, each timed against the unchanged program (a GPU only; not the
simulator).

    python tally_variants.py [--samples N] [--rounds R] [--long-rate R] [--out FILE]

On the GPU machine, from the repository root with gpu-wheels/ carried (its numpy 2.4.x: numba-cuda
0.30.4 may fail its first compile on the machine's numpy 2.5):

    python3 -m zipfile -e gpu-wheels/numpy-2.4.6-*.whl /tmp/np
    cd kernel-progress/bench
    PYTHONPATH=/tmp/np:../src python3 tally_variants.py --out $OUT/variants.json

Variants (every one counts with kp.block_sum, then the block's thread 0 writes its slot):
- load_store:  `store(slots, b, load(slots, b) + done)`, what kp.tally does: a read of mapped
               host memory (a PCIe round trip) before the store;
- early_load:  the same read issued before the block's barriers (its latency under theirs);
- store_only:  `store(slots, b, done)` with no read: exact for one call per block only, the
               floor of any scheme without a read;
- barriers:    the count and no write (a store that never happens): the barriers' share;
- red_gpu:     `red.relaxed.gpu.global.add.u64` on the slot: a fire-and-forget add at device
               scope, exact for any number of calls; whether the host sees it while the kernel
               runs is what `distinct` says;
- shadow:      the running count kept in a device array (a read and a write of device memory)
               and stored to the slot: what a device-side copy of the count would cost;
- shared_tag:  the running count in shared memory under a tag of the launch (%gridid) and the
               block, stored to the slot: no read of host memory, the cost of a store-only scheme
               that keeps loops exact (as long as no stale shared memory matches the tag: a
               64-bit tag makes that unlikely, not impossible);
- package:     kp.tally itself, from whichever kernel_progress is imported (PYTHONPATH=../src
               for the checkout's): load_store while the package is unchanged, the check that
               the variants above reproduce it.

Each round times the article's program and every variant once, in an order that rotates, each
after an L2 flush and a sleeping kernel (article_cost.py's Timer), the variants inside a quiet
LiveProgress that reads the slots every --interval seconds. Per variant: median time, the median
of the rounds' excess over the article's program with its ~95% interval, the distinct values the
host read, whether every final count was exact, and the registers a thread.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import cuda, types, uint64
from numba.cuda.extending import intrinsic
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

import kernel_progress as kp

if kp.device.SIMULATOR:
    sys.exit("tally_variants.py times a GPU: run it without NUMBA_ENABLE_CUDASIM")

from kernel_progress.device import _is_slots, _slot_pointer  # noqa: E402 - the GPU target's

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


cost = _load("article_cost")
original = cost.original
progress = cost.progress
poisson_sample = progress.poisson_sample
TPB = cost.THREADS_PER_BLOCK


@intrinsic
def _red_gpu(typingctx, slots, index, value):
    if not (_is_slots(slots, index) and isinstance(value, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        slots_type, index_type, value_type = sig.args
        array, idx, val = args
        address = _slot_pointer(context, builder, slots_type, array, idx, index_type)
        val = context.cast(builder, val, value_type, types.uint64)
        i64 = ir.IntType(64)
        asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [i64, i64]),
                           "red.relaxed.gpu.global.add.u64 [$0], $1;", "l,l,~{memory}",
                           side_effect=True)
        builder.call(asm, [address, val])
        return context.get_dummy_value()

    return types.void(slots, index, value), codegen


@intrinsic
def _gridid(typingctx):
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        asm = ir.InlineAsm(ir.FunctionType(i64, []), "mov.u64 $0, %gridid;", "=l",
                           side_effect=True)
        return builder.call(asm, [])

    return types.uint64(), codegen


@cuda.jit(device=True)
def first_thread():
    return cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and cuda.threadIdx.z == 0


@cuda.jit(device=True)
def sample(rng_states, out, rate):
    thread_id = cuda.grid(1)
    if thread_id < out.size:
        out[thread_id] = poisson_sample(rate, xoroshiro128p_uniform_float32(rng_states, thread_id))
    return thread_id < out.size


@cuda.jit
def v_load_store(rng_states, out, rate, slots, shadow):
    done = kp.block_sum(sample(rng_states, out, rate))
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            kp.store(slots, b, kp.load(slots, b) + done)


@cuda.jit
def v_early_load(rng_states, out, rate, slots, shadow):
    c = sample(rng_states, out, rate)
    b = kp.block_index()
    prev = uint64(0)
    if first_thread() and b < slots.shape[0]:
        prev = kp.load(slots, b)
    done = kp.block_sum(c)
    if done != 0 and first_thread() and b < slots.shape[0]:
        kp.store(slots, b, prev + done)


@cuda.jit
def v_store_only(rng_states, out, rate, slots, shadow):
    done = kp.block_sum(sample(rng_states, out, rate))
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            kp.store(slots, b, done)


@cuda.jit
def v_barriers(rng_states, out, rate, slots, shadow):
    done = kp.block_sum(sample(rng_states, out, rate))
    if done == uint64(0xFFFFFFFFFFFF) and first_thread():   # never: the count kept, no write
        kp.store(slots, 0, done)


@cuda.jit
def v_red_gpu(rng_states, out, rate, slots, shadow):
    done = kp.block_sum(sample(rng_states, out, rate))
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            _red_gpu(slots, b, done)


@cuda.jit
def v_shadow(rng_states, out, rate, slots, shadow):
    done = kp.block_sum(sample(rng_states, out, rate))
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            v = shadow[b] + done
            shadow[b] = v
            kp.store(slots, b, v)


@cuda.jit
def v_shared_tag(rng_states, out, rate, slots, shadow):
    done = kp.block_sum(sample(rng_states, out, rate))
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            sh = cuda.shared.array(2, uint64)
            tag = ((_gridid() * uint64(0x9E3779B97F4A7C15))
                   ^ (uint64(b) + uint64(0x5851F42D4C957F2D)))
            prev = uint64(0)
            if sh[0] == tag:
                prev = sh[1]
            v = prev + done
            sh[0] = tag
            sh[1] = v
            kp.store(slots, b, v)


@cuda.jit
def v_package(rng_states, out, rate, slots, shadow):
    c = sample(rng_states, out, rate)
    kp.tally(slots, c)


VARIANTS = {"load_store": v_load_store, "early_load": v_early_load, "store_only": v_store_only,
            "barriers": v_barriers, "red_gpu": v_red_gpu, "shadow": v_shadow,
            "shared_tag": v_shared_tag, "package": v_package}


def run(n: int, rate: float, rounds: int, warmup: int, interval: float, log) -> dict:
    blocks = (n + TPB - 1) // TPB
    rng_states = create_xoroshiro128p_states(TPB * blocks, seed=1)
    out = cuda.device_array(n, dtype=np.int32)
    counter = cuda.to_device(np.zeros(1, dtype=np.uint64))
    zeros = np.zeros(blocks, dtype=np.uint64)
    shadow = cuda.to_device(zeros)
    timer = cost.Timer()
    live = kp.LiveProgress(blocks, total=n, display="quiet", interval=interval, check=False)
    names = ["none"] + list(VARIANTS)
    times = {k: [] for k in names}
    distinct = {k: [] for k in VARIANTS}
    exact = {k: True for k in VARIANTS}

    def one(name):
        if name == "none":
            timer.before()
            e0, e1 = timer.events()
            e0.record()
            original.generate_samples[blocks, TPB](rng_states, out, rate, counter)
            e1.record()
            cuda.synchronize()
            return e0.elapsed_time(e1)
        shadow.copy_to_device(zeros)
        with live:
            timer.before()
            e0, e1 = timer.events()
            e0.record()
            VARIANTS[name][blocks, TPB](rng_states, out, rate, live.slots, shadow)
            e1.record()
        cuda.synchronize()
        final = live.count
        # store_only is exact here only because the article's kernel calls tally once a block.
        ok = final == 0 if name == "barriers" else final == n
        exact[name] = exact[name] and ok
        distinct[name].append(live.stats.distinct)
        return e0.elapsed_time(e1)

    for r in range(warmup + rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        got = {k: one(k) for k in order}
        if r >= warmup:
            for k, v in got.items():
                times[k].append(v)
    base = times["none"]
    res = {"samples": n, "rate": rate, "blocks": blocks, "rounds": rounds,
           "none": {"t_ms_median": statistics.median(base),
                    "regs": regs_of(original.generate_samples)}}
    for k in VARIANTS:
        ex = [100.0 * (a - b) / b for a, b in zip(times[k], base)]
        med, lo, hi = cost.median_interval(ex)
        res[k] = {"t_ms_median": statistics.median(times[k]), "excess_pct_median": med,
                  "excess_pct_lo": lo, "excess_pct_hi": hi,
                  "distinct_min": min(distinct[k]),
                  "distinct_median": statistics.median(distinct[k]),
                  "distinct_max": max(distinct[k]), "counts_exact": exact[k],
                  "regs": regs_of(VARIANTS[k])}
        log(f"rate {rate}: {k:11s} {res[k]['t_ms_median']:.4f} ms vs "
            f"{res['none']['t_ms_median']:.4f}  {med:+.2f}% [{lo:+.2f}, {hi:+.2f}]  "
            f"distinct {res[k]['distinct_min']}-{res[k]['distinct_max']}  exact {exact[k]}  "
            f"regs {res[k]['regs']}")
    return res


def regs_of(dispatcher):
    try:
        return {str(sig): int(k.get_regs_per_thread()) for sig, k in dispatcher.overloads.items()}
    except Exception as e:   # noqa: BLE001
        return f"unknown ({type(e).__name__}: {e})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=10_000_000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--long-rate", type=float, default=100.0)
    ap.add_argument("--interval", type=float, default=2e-4)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    t0 = time.monotonic()
    summary = {"environment": cost.versions(), "configs": {}}
    for name, rate in (("article", cost.ARTICLE_RATE), ("long", args.long_rate)):
        summary["configs"][name] = run(args.samples, rate, args.rounds, args.warmup,
                                       args.interval, log)
    summary["wall_s"] = time.monotonic() - t0
    text = json.dumps(cost.finite(summary), indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
