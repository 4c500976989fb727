#!/usr/bin/env bash
# kernel-progress as a user gets it: the wheel and sdist built from a copy of kernel-progress/,
# `twine check --strict`, the wheel installed by its plain command into a fresh venv outside
# the checkout, the package imported there without the simulator, and the sdist's own tests
# (the notebook executed by nbclient among them) run against the installed wheel under Numba's
# CUDA simulator. Needs python3 (3.10+) with venv, and PyPI; no GPU and no CUDA toolkit (the
# PTX test's NVVM comes from PyPI). Last, the README's install command, from the checkout.
#
#   scripts/test-kernel-progress.sh          # PYTHON=python3.12 for another interpreter
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
start=$(date +%s)
# The test venv alone is about 530 MB in 20,000 files: removing the work folder from the disk
# took 75 s on the 2-core test machine under load, from tmpfs 1 s. /dev/shm when TMPDIR is not set and it has
# 3 GB free (a container's default /dev/shm is 64 MB).
tmp=${TMPDIR:-/tmp}
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] &&
   [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -ge $((3 * 1024 * 1024)) ]; then
  tmp=/dev/shm
fi
work=$(mktemp -d "$tmp/kernel-progress-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
# pip's build folders and pytest's tmp_path go there too, and with it.
mkdir "$work/tmp"
export TMPDIR="$work/tmp"
step() { printf '\n== %s (%ss)\n' "$1" "$(($(date +%s) - start))"; }
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
# The notebook's kernel is this venv's python3, not a kernel spec of the user's.
export JUPYTER_DATA_DIR="$work/jupyter" JUPYTER_CONFIG_DIR="$work/jupyter-config"
export JUPYTER_PLATFORM_DIRS=1

step "a copy of kernel-progress/ (the build writes nothing into the checkout)"
mkdir "$work/src"
tar -C "$root/kernel-progress" --exclude=build --exclude=dist --exclude='*.egg-info' \
  --exclude=__pycache__ --exclude=.ipynb_checkpoints -cf - . | tar -C "$work/src" -xf -

step "build the sdist and the wheel (python -m build), twine check --strict"
"$python" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build twine
"$work/tools/bin/python" -m build -q --outdir "$work/dist" "$work/src"
"$work/tools/bin/twine" check --strict "$work/dist"/*
sdist=$(ls "$work/dist"/kernel_progress-*.tar.gz)
wheel=$(ls "$work/dist"/kernel_progress-*-py3-none-any.whl)
# What the sdist's tests need travels with it; the wheel carries the licence.
tar -tzf "$sdist" | sed 's|^[^/]*/||' | sort > "$work/sdist.txt"
for f in LICENSE README.md pyproject.toml tests/conftest.py tests/ptx_check.py \
  tests/readme_blocks.py examples/article_original.py examples/article_progress.py \
  examples/article_progress.ipynb examples/poisson_progress.py; do
  grep -qx "$f" "$work/sdist.txt" || { echo "the sdist lacks $f" >&2; exit 1; }
done
"$work/tools/bin/python" -m zipfile -l "$wheel" | grep -q 'dist-info/licenses/LICENSE' ||
  { echo "the wheel lacks its LICENSE" >&2; exit 1; }

step "a fresh venv: pip install $(basename "$wheel")"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$work/venv/bin/pip" install -q "$wheel"
# The plain install imports without the simulator (numba-cuda's target, no GPU needed to load).
(cd "$work" && env -u NUMBA_ENABLE_CUDASIM "$venv_python" -c \
  'import kernel_progress as kp, numba.cuda; assert not kp.device.SIMULATOR; print("kernel_progress", kp.__version__, "imports with numba-cuda", numba.cuda.__name__)')

step "the test tools (the [test] extra) and NVVM from PyPI for the PTX test"
"$work/venv/bin/pip" install -q "${wheel}[test]" "cuda-toolkit[nvvm]==13.*"

step "the sdist's tests against the installed wheel, under the simulator"
mkdir "$work/sdist"
tar -C "$work/sdist" -xzf "$sdist"
tests=$(ls -d "$work/sdist"/kernel_progress-*/tests)
(cd "$work" && KERNEL_PROGRESS_TEST_INSTALLED=1 "$venv_python" -m pytest -q "$tests")

step "the README's install command, from the checkout"
# shellcheck disable=SC2016  # the backticks are the fence sed looks for, not a command
readme_install=$(sed -n '/^```sh$/,/^```$/{/^```/d;p}' "$root/kernel-progress/README.md")
[ "$readme_install" = "pip install ./kernel-progress" ] ||
  { echo "the README's install block is not the command tested here: $readme_install" >&2; exit 1; }
(cd "$root" && "$work/venv/bin/pip" install -q --force-reinstall --no-deps ./kernel-progress)
rm -rf "$root/kernel-progress/build" "$root/kernel-progress/src/kernel_progress.egg-info"
(cd "$work" && env -u NUMBA_ENABLE_CUDASIM "$venv_python" -c 'import kernel_progress')

step "kernel-progress: all passed in $(($(date +%s) - start)) s"
