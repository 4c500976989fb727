#!/usr/bin/env bash
# The wheels the GPU machine needs for scripts/gpu-python.sh, made here (with network) into
# gpu-wheels/ at the repository root, which the device call carries (the GPU machine has no
# network and no package registry; its python3 has numpy, numba and numba-cuda):
#
#   - kernel_progress, built from kernel-progress/ with `python -m build` (a copy of the folder,
#     as scripts/test-kernel-progress.sh builds it: nothing is written into the checkout);
#   - twinbench, from a copy of reports/ (its dependencies are not carried);
#   - the pure-Python or binary wheels its dependencies need there and the machine may lack, for
#     CPython 3.12 (the machine's 3.12.3) on manylinux x86-64, without their own dependencies:
#       tqdm      (not known to be installed there; pure Python, ~80 kB)
#       numpy<2.5 (kernel-progress requires numpy>=1.24,<2.5: numba-cuda 0.30.4 fails its first
#                  compile on numpy 2.5, which the machine has, so the plain install takes a
#                  2.4.x wheel into its venv; ~16 MB, the bulk of the folder)
#     numba>=0.61 and numba-cuda>=0.30 (0.68 and 0.30.4 there) are the machine's own.
#
#   scripts/gpu-python-bundle.sh          # PYTHON=python3.12 for another interpreter to build with
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
dest="$root/gpu-wheels"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-python-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

echo "== a copy of kernel-progress/"
mkdir "$work/src"
tar -C "$root/kernel-progress" --exclude=build --exclude=dist --exclude='*.egg-info' \
  --exclude=__pycache__ --exclude=.ipynb_checkpoints -cf - . | tar -C "$work/src" -xf -

echo "== the build tool"
"$python" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build

rm -rf "$dest"
mkdir -p "$dest"
echo "== the kernel_progress wheel (python -m build --wheel)"
"$work/tools/bin/python" -m build -q --wheel --outdir "$dest" "$work/src"
echo "== the twinbench wheel (reports/, no dependencies), for the plain install's attempt there"
mkdir "$work/reports"
tar -C "$root/reports" --exclude=build --exclude=dist --exclude='*.egg-info' \
  --exclude=__pycache__ -cf - . | tar -C "$work/reports" -xf -
"$work/tools/bin/pip" wheel -q --no-deps -w "$dest" "$work/reports"

# The dependency specifiers the wheel declares, read from the built wheel's METADATA.
requires=$("$work/tools/bin/python" - "$dest"/kernel_progress-*.whl <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            print(line.split(":", 1)[1].strip())
EOF
)
echo "the wheel requires:"
while IFS= read -r r; do echo "  $r"; done <<<"$requires"
tqdm_req=$(grep -E '^tqdm' <<<"$requires" | tr -d ' ')
numpy_req=$(grep -E '^numpy' <<<"$requires" | tr -d ' ')
if [ -z "$tqdm_req" ] || [ -z "$numpy_req" ]; then
  echo "expected tqdm and numpy among the wheel's requirements" >&2
  exit 1
fi

echo "== $tqdm_req and $numpy_req for CPython 3.12, manylinux x86-64 (pip download, no deps)"
"$work/tools/bin/pip" download -q --only-binary=:all: --no-deps -d "$dest" \
  --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any \
  "$tqdm_req" "$numpy_req"

echo "== gpu-wheels/"
ls -l "$dest"
du -sh "$dest"
