#!/usr/bin/env bash
# The Python side on the GPU machine, in one call: run from the repository root there, with
# gpu-wheels/ (made here by scripts/gpu-python-bundle.sh) carried. Writes under ${OUT:-gpu-out}:
#
#   (a) install.log            a venv in /tmp (--system-site-packages), the plain
#                              `pip install --no-index --find-links gpu-wheels kernel_progress`,
#                              then `import kernel_progress` without the simulator; versions of
#                              python, numpy, numba, numba_cuda, tqdm, kernel_progress
#   (b) kernel-progress-cost.log, kernel-progress-cost.json
#                              kernel-progress/examples/article_cost.py with that venv's python:
#                              the article's 10M-sample program with and without the package,
#                              interleaved pairs, the excess in percent, distinct values seen
#   (c) pyapi-example.log, pyapi-example.json (docs/python.md's pair at the docs' sizes),
#       pyapi-example-quick.json (the docs' `twinbench-py run my_pairs.py --quick`),
#       pyapi-notebook.json (the docs' notebook blocks, run in order)
#                              twinbench.bench from the checkout (PYTHONPATH=reports/src); the
#                              report is rendered only where scipy, jinja2 and matplotlib import
#
# Each step logs to its file and the script goes on past a failed one; it exits 1 at the end if
# any failed. STEPS chooses among install, cost, profile, pyapi, bugs and peers (install, cost,
# pyapi and bugs by default; the install always runs: the other steps use its venv).
#   (b') kernel-progress-ncu.csv  the cost's six ways under Nsight Compute (STEPS=profile)
#   (d) planted-bugs.log     the docs' pair with a user's mistakes, each refused (twinbench.bench)
#   (e) peers.log, peers-run.json.gz
#                              the Numba peers on a committed run's C++ rows, beside its peer rows
#
#   bash scripts/gpu-python.sh            # PYTHON=... for another interpreter than python3
#   STEPS="install cost" bash scripts/gpu-python.sh
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-gpu-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=${PYTHON:-python3}
tmp=$(mktemp -d /tmp/gpu-python.XXXXXX)
venv="$tmp/venv"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off PIP_NO_INPUT=1
unset NUMBA_ENABLE_CUDASIM
failed=()
t0=$(date +%s)
steps=" ${STEPS:-install cost pyapi bugs} "
wants() { [[ "$steps" == *" $1 "* ]]; }

run_step() {   # run_step NAME LOG FUNCTION: the function's output to LOG, its tail shown
  local name=$1 log=$2 rc
  shift 2
  echo "== $name ($(($(date +%s) - t0)) s)"
  "$@" >"$log" 2>&1
  rc=$?
  tail -n 25 "$log"
  if [ "$rc" -ne 0 ]; then
    failed+=("$name (exit $rc, $(basename "$log"))")
    echo "-- $name FAILED (exit $rc)"
  else
    echo "-- $name ok"
  fi
}

# ---------------------------------------------------------------- (a) the plain install
install_kernel_progress() {
  set -x
  "$python" -c 'import sys; print(sys.executable, sys.version); print("prefix", sys.prefix, "base", sys.base_prefix)'
  ls -l gpu-wheels || return 1
  local pip_cmd=("$venv/bin/pip")
  if ! "$python" -m venv --system-site-packages "$venv"; then
    # ensurepip missing from the base interpreter: a venv without pip, driven by the outer pip.
    echo "venv with pip failed; a venv --without-pip, installed into with $python -m pip --python"
    rm -rf "$venv"
    "$python" -m venv --system-site-packages --without-pip "$venv" || return 1
    pip_cmd=("$python" -m pip --python "$venv/bin/python")
  fi
  # python3 there is itself a venv (/opt/torch/.venv): a venv made from it sees the base
  # interpreter's site-packages, not the outer venv's (numpy, numba, numba-cuda). A .pth file
  # adds the outer venv's site-packages after the new venv's own, as site dirs: their own .pth
  # files run too (numba-cuda's, which makes `numba.cuda` its target, not numba's old one).
  local outer
  outer=$("$python" -c 'import site, sys; print("\n".join(site.getsitepackages()) if sys.prefix != sys.base_prefix else "")')
  if [ -n "$outer" ]; then
    local sp dir
    sp=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    while IFS= read -r dir; do
      printf 'import site; site.addsitedir(%s)\n' "'$dir'"
    done <<<"$outer" >"$sp/outer-venv.pth"
    echo "python3 is a venv: $sp/outer-venv.pth:"
    cat "$sp/outer-venv.pth"
  fi
  "$venv/bin/python" -c 'import numpy, numba; print("the venv sees numpy", numpy.__version__, "numba", numba.__version__)'

  # The plain command: no extra, no --no-deps.
  "${pip_cmd[@]}" install --no-index --find-links gpu-wheels kernel_progress || return 1
  "${pip_cmd[@]}" list 2>/dev/null | grep -i -E '^(numpy|numba|numba-cuda|tqdm|kernel.progress|cuda-)' || true
  "${pip_cmd[@]}" check || echo "(pip check's complaints are logged, not fatal)"
  set +x
  # Imported outside the checkout, without the simulator.
  (cd "$tmp" && "$venv/bin/python" - <<'EOF'
import json, sys
from importlib.metadata import version
import kernel_progress as kp
import numba, numpy
from numba import cuda
assert not kp.device.SIMULATOR, "kernel_progress chose the simulator"
assert kp.__file__.startswith(sys.prefix), f"kernel_progress from {kp.__file__}, not the venv"
v = {"python": sys.version.split()[0], "numpy": numpy.__version__, "numba": numba.__version__,
     "numba_cuda": version("numba-cuda"), "tqdm": version("tqdm"),
     "kernel_progress": kp.__version__, "kernel_progress_file": kp.__file__,
     "numpy_file": numpy.__file__}
print("versions:", json.dumps(v))
print("cuda.is_available():", cuda.is_available())
dev = cuda.get_current_device()
print("device:", dev.name, dev.compute_capability)
EOF
  ) || return 1
  # A real compile and launch there: the article's program with its bar, at a small size.
  (cd "$tmp" && "$venv/bin/python" - "$root" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1] + "/kernel-progress/examples")
import article_progress
article_progress.main(1_000_000)
EOF
  ) || return 1
  # twinbench[numba] by its plain command: its reports' dependencies (scipy, jinja2, matplotlib) are
  # not carried, so this says whether the machine has them; twinbench.bench runs from the
  # checkout otherwise. Its kernels compiled to PTX with the venv's numpy either way.
  "${pip_cmd[@]}" install --no-index --find-links gpu-wheels "twinbench[numba]" ||
    echo "twinbench[numba]: not installable here from gpu-wheels (above: what is missing)"
  (cd "$tmp" && PYTHONPATH="$root/reports/src" "$venv/bin/python" "$root/tests/pyapi/ptx_driver.py")
}
run_step "install" "$out/install.log" install_kernel_progress

# The interpreter of (b) and (c): the venv's when the install worked, else python3 with the
# package from the checkout (said in the logs; the install's confirmation is then missing).
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import kernel_progress' >/dev/null 2>&1; then
  py=("$venv/bin/python")
  kp_from="the venv's installed wheel"
else
  py=(env "PYTHONPATH=$root/kernel-progress/src${PYTHONPATH:+:$PYTHONPATH}" "$python")
  kp_from="the checkout (kernel-progress/src): the install failed"
fi

# ---------------------------------------------------------------- (b) the cost
kernel_progress_cost() {
  echo "kernel_progress from $kp_from"
  # The machine code of kp.tally's add (an atomic whose result is unused: ptxas's RED), where
  # nvdisasm is on the PATH; not fatal.
  (cd "$tmp" && PATH="/usr/local/cuda/bin:$PATH" timeout 120 "${py[@]}" - "$root" <<'EOF'
import re, sys
sys.path.insert(0, sys.argv[1] + "/kernel-progress/examples")
import article_progress
from numba import float64, int32, uint64
from numba.cuda.random import xoroshiro128p_type
k = article_progress.generate_samples
k.compile((xoroshiro128p_type[::1], int32[::1], float64, uint64[::1]))
try:
    sass = next(iter(k.inspect_sass().values()))
    print("kp.tally's SASS:", [l.strip() for l in sass.splitlines()
                               if re.search(r"\b(RED|ATOM|ATOMG|VOTE|POPC|BAR)\b", l)])
except Exception as e:   # noqa: BLE001 - nvdisasm missing: said, not fatal
    print("no SASS:", type(e).__name__, e)
EOF
  )
  # Without the live way when the full run fails, so that the other ways are still measured.
  (cd "$tmp" && timeout 400 "${py[@]}" "$root/kernel-progress/examples/article_cost.py" \
    --out "$out/kernel-progress-cost.json") && return 0
  echo "article_cost.py failed: again without the way under LiveProgress"
  (cd "$tmp" && timeout 300 "${py[@]}" "$root/kernel-progress/examples/article_cost.py" \
    --ways article,load_store,store_only,tally_unread --bar-rounds 0 \
    --out "$out/kernel-progress-cost-unread.json")
  return 1
}
wants cost && run_step "kernel-progress-cost" "$out/kernel-progress-cost.log" kernel_progress_cost

# The six ways at the article's size under Nsight Compute, one launch each, in article_cost.py's
# first round's order (none, article, load_store, store_only, tally, tally_unread): duration,
# warp states (barrier, long-scoreboard and membar stalls say where each way waits). ncu replays
# each kernel, so the counts the script checks are off there (its exit status is not the step's).
kernel_progress_profile() {
  local ncu=/usr/local/cuda/bin/ncu
  [ -x "$ncu" ] || { echo "no $ncu"; return 1; }
  (cd "$tmp" && timeout 400 "$ncu" --kernel-name regex:'generate_samples|kernel' \
    --section SpeedOfLight --section WarpStateStats --section LaunchStats --csv --page details \
    "${py[@]}" "$root/kernel-progress/examples/article_cost.py" --pairs 1 --warmup 0 \
    --long-rounds 0 --bar-rounds 0 > "$out/kernel-progress-ncu.csv")
  grep -c . "$out/kernel-progress-ncu.csv"
}
wants profile && run_step "kernel-progress-profile" "$out/kernel-progress-profile.log" kernel_progress_profile

# ---------------------------------------------------------------- (c) the Python API's docs
pyapi_example() {
  echo "kernel_progress (for the docs' progress block) from $kp_from"
  mkdir -p "$tmp/pyapi"
  (cd "$tmp/pyapi" && PYTHONPATH="$root/reports/src${PYTHONPATH:+:$PYTHONPATH}" \
    timeout 420 "${py[@]}" - "$root" "$out" <<'EOF'
"""docs/python.md's blocks as tests/pyapi/test_docs.py runs them, on the GPU: the pair written
to my_pairs.py, its commands (twinbench-py by its module), the pair again at the docs' own sizes
(the GPU's figures), then the notebook's blocks in order in this folder."""
import faulthandler, importlib.util, json, os, re, shlex, shutil, subprocess, sys, time
from pathlib import Path

faulthandler.dump_traceback_later(400, exit=True)
root, out = Path(sys.argv[1]), Path(sys.argv[2])
here = Path.cwd()
sys.path.insert(0, str(here))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
page = [(m.group(1), m.group(2)) for m in FENCE.finditer((root / "docs/python.md").read_text())]
print("blocks:", [k for k, _ in page], flush=True)
failures = []
(here / "my_pairs.py").write_text(page[1][1])
env = dict(os.environ)
env.pop("NUMBA_ENABLE_CUDASIM", None)

def run(args, timeout):
    t = time.monotonic()
    print("$", " ".join(args), flush=True)
    r = subprocess.run(args, cwd=here, env=env, timeout=timeout)
    print(f"exit {r.returncode} in {time.monotonic() - t:.1f} s", flush=True)
    return r.returncode

modules = {"twinbench-py": "twinbench.bench.cli", "twinbench-report": "twinbench.report"}
renders = all(importlib.util.find_spec(m) for m in ("scipy", "jinja2", "matplotlib"))
for line in page[2][1].strip().splitlines():
    args = shlex.split(line)
    if args[0] == "twinbench-report" and not renders:
        print(f"skipped (scipy, jinja2 or matplotlib missing here): {line}", flush=True)
        continue
    if run([sys.executable, "-m", modules[args[0]]] + args[1:], 300) != 0:
        failures.append(line)
if (here / "twinbench-py.json").exists():
    shutil.copy(here / "twinbench-py.json", out / "pyapi-example-quick.json")

# The docs' declaration at its own sizes (2^20 and 2^28): what the GPU makes of the pair.
if run([sys.executable, "-m", "twinbench.bench.cli", "run", "my_pairs.py",
        "--out", str(out / "pyapi-example.json")], 300) != 0:
    failures.append("twinbench-py run my_pairs.py (the docs' sizes)")

for i, (kind, source) in enumerate(page[3:], start=3):
    if kind != "python":
        continue
    t = time.monotonic()
    print(f"-- block {i}: {source.strip().splitlines()[0]}", flush=True)
    try:
        exec(compile(source, f"docs/python.md block {i}", "exec"), {"__name__": "__docs__"})
        print(f"block {i} ok in {time.monotonic() - t:.1f} s", flush=True)
    except Exception as e:   # noqa: BLE001
        import traceback
        traceback.print_exc()
        failures.append(f"block {i}: {type(e).__name__}: {e}")
if (here / "notebook.json").exists():
    shutil.copy(here / "notebook.json", out / "pyapi-notebook.json")

for name in ("pyapi-example.json", "pyapi-example-quick.json", "pyapi-notebook.json"):
    p = out / name
    if not p.exists():
        print(f"{name}: not written", flush=True)
        continue
    run_ = json.loads(p.read_text())
    rows = run_["benchmarks"]
    bad = [r["name"] for r in rows if r.get("error_occurred")]
    print(f"{name}: {len(rows)} rows, {len(bad)} with an error; ceilings "
          f"{run_['context'].get('ceilings_source')}", flush=True)
    for r in rows:
        if r.get("mode") == "kernel" and "median_s" in r or r.get("error_occurred"):
            print(f"  {r['name']:70} {r.get('median_s', float('nan')) * 1e6:10.1f} us "
                  f"{r.get('pct_ceiling', '')} {r.get('error_message', '')}", flush=True)
print("failures:", failures, flush=True)
sys.exit(1 if failures else 0)
EOF
  )
}
wants pyapi && run_step "pyapi-example" "$out/pyapi-example.log" pyapi_example

# ---------------------------------------------------------------- (d) planted bugs refused
# The docs' pair with a user's mistakes, each refused with exit 1 and the message that names it:
# the kernel writing one element past its output (`<=` for `<`: the device guard), the kernel
# skipping its last element, a CPU version returning float64 for the float32 reference.
planted_bugs() {
  mkdir -p "$tmp/bugs"
  (cd "$tmp/bugs" && PYTHONPATH="$root/reports/src" timeout 300 "${py[@]}" - "$root" <<'EOF'
import re, subprocess, sys
from pathlib import Path
root = Path(sys.argv[1])
pair = re.findall(r"^```python\n(.*?)^```$", (root / "docs/python.md").read_text(), re.M | re.S)[0]
bugs = {
    "past_the_end": (pair.replace("    if i < c.size:", "    if i <= c.size:"),
                     "wrote past the end of output out0"),
    "skips_last": (pair.replace("    if i < c.size:", "    if i < c.size - 1:"),
                   "non-finite output at index 999"),
    "float64": (pair.replace("cpu=[add_cpu]", "cpu=[add_cpu, tb.Cpu(lambda a, b: "
                             "a.astype('float64') + b, name='wide')]"),
                "output 0 is float64, the reference's is float32"),
}
failures = []
for name, (source, expected) in bugs.items():
    assert source != pair, f"{name}: the bug was not planted"
    Path(f"{name}.py").write_text(source)
    r = subprocess.run([sys.executable, "-m", "twinbench.bench.cli", "run", f"{name}.py", "--quick",
                        "--ceilings=none", "--out", f"{name}.json"], capture_output=True, text=True,
                       timeout=240)
    refused = [l for l in r.stderr.splitlines() if l.startswith("VALIDATION FAILED")]
    print(f"{name}: exit {r.returncode}", *refused, sep="\n  ", flush=True)
    if r.returncode != 1 or not any(expected in l for l in refused):
        print(r.stderr[-3000:], flush=True)
        failures.append(name)
print("not refused as expected:", failures, flush=True)
sys.exit(1 if failures else 0)
EOF
  )
}
wants bugs && run_step "planted-bugs" "$out/planted-bugs.log" planted_bugs

# ---------------------------------------------------------------- (e) the peers, compared
# The Numba peers on the C++ rows of the newest committed run that has them (PEERS_FROM), merged
# into a copy, then each peer row's median beside the committed one. PEERS_WORKLOADS: which.
peers_compared() {
  local from=${PEERS_FROM:-results/nvidia-h200/2026-12-02b/run.json.gz}
  "${py[@]}" - "$from" "$tmp/peers-suite.json" <<'EOF'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]) if sys.argv[1].endswith(".gz") else open(sys.argv[1]))
doc["benchmarks"] = [r for r in doc["benchmarks"] if "/numba_" not in r["name"]]
doc["context"] = {k: v for k, v in doc["context"].items() if not k.startswith("numba_")}
json.dump(doc, open(sys.argv[2], "w"))
print(f"{sys.argv[1]}: {len(doc['benchmarks'])} C++ rows kept")
EOF
  PYTHON="${py[-1]}" timeout 420 bash "$root/scripts/peers.sh" "$tmp/peers-suite.json" \
    --workload="${PEERS_WORKLOADS:-vector_add,dot,grayscale,transpose,sgemm,conv2d,black_scholes,nested_loop,lucas,poisson,transfers}"
  local rc=$?
  gzip -c "$tmp/peers-suite.json" > "$out/peers-run.json.gz"
  "${py[@]}" - "$from" "$tmp/peers-suite.json" <<'EOF'
import gzip, json, sys
def rows(path):
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    return doc["context"], {r["name"]: r for r in doc["benchmarks"] if "/numba_" in r["name"]}
(c0, old), (c1, new) = rows(sys.argv[1]), rows(sys.argv[2])
print(f"committed: {c0.get('numba_gpu_name') or c0.get('gpu_name')}, now: "
      f"{c1.get('numba_gpu_name') or c1.get('gpu_name')} (times compare only on one model)")
for name in sorted(new):
    r, o = new[name], old.get(name, {})
    now = r.get("median_s") or r.get("real_time")
    then = o.get("median_s") or o.get("real_time")
    err = r.get("error_message", "") if r.get("error_occurred") else ""
    ratio = f"{now / then:6.2f}x" if now and then else "     -"
    print(f"{name[:90]:90} {then or 0:11.4g} {now or 0:11.4g} {ratio} {err}")
EOF
  return $rc
}
wants peers && run_step "peers" "$out/peers.log" peers_compared

# ---------------------------------------------------------------- the end
echo "== done in $(($(date +%s) - t0)) s; files in $out:"
ls -l "$out"
if [ -f "$out/kernel-progress-cost.json" ]; then
  "$python" - "$out/kernel-progress-cost.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print("kernel-progress checks:", json.dumps(s["checks"]))
for name, c in s["configs"].items():
    for way, w in c.get("ways", {}).items():
        print(f"  {name:8} {way:13} {w['t_ms_median']:9.3f} ms", *(
            [f"excess {w['excess_pct_median']:+.2f}% [{w['excess_pct_lo']:+.2f}, "
             f"{w['excess_pct_hi']:+.2f}]"] if "excess_pct_median" in w else []),
            *([f"distinct min {w['distinct_min']}"] if "distinct_min" in w else []))
    if "ways" not in c:
        print(f"  {name:8} tally {c['t_ms_median']:.1f} ms, distinct min {c['distinct_min']}")
EOF
fi
rm -rf "$tmp"
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all steps ok"
