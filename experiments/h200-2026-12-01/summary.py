"""Prints the rows issues 17 and 18 are judged on, from a results file: python3 summary.py run.json"""
import json
import re
import sys

rows = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}


def us(pattern):
    for name, b in rows.items():
        if re.search(pattern, name) and "real_time" in b and not b.get("error_occurred"):
            return b["real_time"], name, b
    return None, None, None


def ratio(label, mine, ref, invert=False):
    a, na, _ = us(mine)
    r, nr, _ = us(ref)
    if a is None or r is None:
        print(f"{label}: missing ({mine if a is None else ref})")
        return
    print(f"{label}: {a:.1f} vs {r:.1f} us -> {100 * r / a:.1f}% ({na} | {nr})")


ratio("vector_add 256M vs thrust", r"^vector_add/cuda/n:268435456/block:256/mode:kernel", r"^vector_add/thrust/n:268435456/mode:kernel")
ratio("sgemm 1024 vs cublas", r"^sgemm/cuda_optimized/n:1024/.*mode:kernel", r"^sgemm/cublas/n:1024/mode:kernel")
ratio("sgemm 4096 vs cublas", r"^sgemm/cuda_optimized/n:4096/.*mode:kernel", r"^sgemm/cublas/n:4096/mode:kernel")
ratio("transpose swizzle vs copy", r"^transpose/cuda_tiled64_swizzle/.*8192", r"^transpose/cuda_copy/.*8192")
for n in ("10000000", "100000000"):
    for s in ("none", "per_warp", "per_block", "strided"):
        _, name, b = us(rf"^progress/cuda/target:poisson/strategy:{s}/counter:device/n:{n}/")
        if b:
            print(f"progress poisson {n} {s}: overhead {b.get('overhead_pct', float('nan')):.2f}% "
                  f"median pair {b.get('overhead_median_pct', float('nan')):.2f}% t_none {b.get('t_none_us', 0):.2f} us")
    ratio(f"poisson article C++ vs numba {n}", rf"^poisson/cuda_article/n:{n}/.*mode:kernel", rf"^poisson/numba_cuda/.*n:{n}/.*mode:kernel")
for name, b in rows.items():
    if re.match(r"dtypes/cuda/kernel:fma/dtype:(fp16|int8|fp32)/.*block:128/", name):
        print(name, round(b["real_time"], 2), "us")
bad = [n for n, b in rows.items() if b.get("error_occurred") and "skip" not in str(b.get("error_message", "")).lower()]
print(f"rows {len(rows)}, errors {len(bad)}", bad[:5])
