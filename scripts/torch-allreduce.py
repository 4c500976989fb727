"""The reference for the collectives rows: PyTorch's torch.distributed all_reduce (NCCL backend)
of float32 at the suite's sizes, timed as nccl-tests and the suite time it (the host clock around
the call and the wait), with algbw and busbw as nccl-tests defines them.

    torchrun --nproc_per_node=N scripts/torch-allreduce.py [--out FILE.json] [--max-bytes N]

Rank 0 prints a table and, with --out, writes {"rows": [{"bytes", "us", "algbw_GBps",
"busbw_GBps"}], "ranks", "torch", "nccl"}. Each size is checked first: every rank adds
rank + 1, so every element must end at ranks * (ranks + 1) / 2. Exit status: 0 ok, 1 a check
failed, 2 no GPU, no torch.distributed with NCCL, or one rank (there torch's all_reduce returns
without moving anything: its time is flat in the size; --one-rank runs it anyway).
"""
import argparse
import json
import os
import statistics
import sys
import time


def sizes(max_bytes):
    b = 8
    while b <= max_bytes:
        yield b
        b *= 8


def time_size(torch, dist, nbytes, rank, ranks, samples):
    n = max(nbytes // 4, 1)
    x = torch.full((n,), float(rank + 1), device="cuda", dtype=torch.float32)
    dist.all_reduce(x)
    torch.cuda.synchronize()
    if not bool((x == ranks * (ranks + 1) / 2).all()):
        return None
    times = []
    for _ in range(samples):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(x)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), n * 4


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out")
    p.add_argument("--max-bytes", type=int, default=1 << 30)
    p.add_argument("--samples", type=int, default=50)
    p.add_argument("--one-rank", action="store_true",
                   help="run with one rank although it measures no transfer")
    args = p.parse_args()
    try:
        import torch
        import torch.distributed as dist
    except ImportError as e:
        print(f"torch-allreduce: no torch here: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available() or not dist.is_nccl_available():
        print("torch-allreduce: needs a GPU and torch.distributed with NCCL", file=sys.stderr)
        return 2
    rank = int(os.environ.get("RANK", "0"))
    ranks = int(os.environ.get("WORLD_SIZE", "1"))
    if ranks < 2 and not args.one_rank:
        # On the H200 machine one rank's all_reduce took 44-48 us from 8 B to 1 GiB: no NCCL
        # kernel ran, so its "bandwidth" (22,774 GB/s at 1 GiB) is no reference for anything.
        print("torch-allreduce: needs 2 ranks or more (torchrun --nproc_per_node=N): with one "
              "rank torch.distributed's all_reduce moves nothing (--one-rank runs it anyway)",
              file=sys.stderr)
        return 2
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off on lent machines
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl", rank=rank, world_size=ranks)
    rows, failed = [], False
    for nbytes in sizes(args.max_bytes):
        r = time_size(torch, dist, nbytes, rank, ranks, args.samples)
        if r is None:
            print(f"torch-allreduce: {nbytes} bytes: the sum is wrong", file=sys.stderr)
            failed = True
            continue
        seconds, moved = r
        algbw = moved / seconds / 1e9
        rows.append({"bytes": moved, "us": seconds * 1e6, "algbw_GBps": algbw,
                     "busbw_GBps": algbw * 2 * (ranks - 1) / ranks})
    if rank == 0:
        print(f"{'bytes':>12} {'us':>10} {'algbw GB/s':>11} {'busbw GB/s':>11}")
        for r in rows:
            print(f"{r['bytes']:>12} {r['us']:>10.2f} {r['algbw_GBps']:>11.2f} {r['busbw_GBps']:>11.2f}")
        if args.out:
            nccl = ".".join(map(str, torch.cuda.nccl.version()))
            with open(args.out, "w") as f:
                json.dump({"rows": rows, "ranks": ranks, "torch": torch.__version__, "nccl": nccl}, f,
                          indent=1)
    dist.destroy_process_group()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
