#!/usr/bin/env bash
# Installs what twinbench needs on a Debian/Ubuntu machine: the C++ libraries from apt and a
# Python venv (.venv) with the twinbench package (reports/) and its dependencies from PyPI.
# Does nothing that is already done.
#   scripts/deps.sh [--python-only] [--tests] [--peers]
#     --python-only: the venv alone, no apt
#     --tests: also what scripts/test.sh needs beyond a build: Debian's chromium, for the
#              browser tests of report.html (tests/browser), and numba (tests/peers)
#     --peers: numba for the articles' Numba programs; installed anyway where a GPU is present
#              (scripts/run.sh runs them there by default), skipped otherwise (a minute or more of
#              downloads that a run without the peers does not use)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python_only=0
tests=0
peers=0
for arg in "$@"; do
  case "$arg" in
    --python-only) python_only=1 ;;
    --tests) tests=1; peers=1 ;;
    --peers) peers=1 ;;
    *) echo "deps: unknown option '$arg' (use --python-only, --tests, --peers)" >&2; exit 2 ;;
  esac
done
if nvidia-smi -L >/dev/null 2>&1; then peers=1; fi

# The CPU libraries: OpenBLAS (its OpenMP build, so that its threads are the suite's OpenMP
# threads, not a second pool spinning beside them; loaded at run time, cpu/blas.hpp) and oneDNN.
# ccache: the build folders of run.sh and test.sh share compiled objects.
apt_packages=(cmake g++ make git libbenchmark-dev nlohmann-json3-dev googletest libgtest-dev libomp-dev
              python3-venv libopenblas0-openmp libdnnl-dev ccache)
# The browser tests' packages, installed without Recommends: chromium pulls ~25 packages (~35 s
# with apt-get update), with its Recommends ~130. A font, so that the page lays out with text.
test_packages=(chromium fonts-dejavu-core)
# Open MPI, also without Recommends (~15 s here): twinbench under mpirun and its MPI rows.
mpi_packages=(libopenmpi-dev openmpi-bin)
((python_only)) && apt_packages=() mpi_packages=()
((python_only || !tests)) && test_packages=()

missing_in() {  # prints the packages among "$@" that are not installed
  local p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || echo "$p"
  done
}
mapfile -t missing < <(missing_in "${apt_packages[@]}")
mapfile -t missing_tests < <(missing_in "${test_packages[@]}" "${mpi_packages[@]}")
if ((${#missing[@]} + ${#missing_tests[@]})); then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  if ((${#missing[@]})); then
    echo "deps: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if ((${#missing_tests[@]})); then
    echo "deps: installing ${missing_tests[*]} (without Recommends)" >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
      "${missing_tests[@]}" >/dev/null
  fi
fi

venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    echo "deps: python3 cannot make a venv here (install python3-venv, or run scripts/deps.sh without --python-only)" >&2
    exit 2
  fi
  echo "deps: creating $venv" >&2
  python3 -m venv "$venv"
fi
# The reports: the twinbench package from reports/ (its pyproject), editable so that the venv
# runs the checkout's code, with pytest for the tests; `twinbench-report` lands in .venv/bin.
# Installed again when its dependencies changed (the check imports them all).
if [ ! -x "$venv/bin/twinbench-report" ] || ! "$venv/bin/python" -c \
    'import twinbench.report, matplotlib, scipy, pandas, jinja2, pytest' >/dev/null 2>&1; then
  echo "deps: installing the twinbench package (reports/pyproject.toml) into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$root/reports[test]"
fi
# The articles' Numba code (peers/numba/, run by scripts/peers.sh) is optional: without a
# network the install fails, the suite runs without the peers and its results say why. Short
# pip timeouts, so that an offline machine is not held up for minutes.
if ((peers)) && ! "$venv/bin/python" -c 'import numba, numba.cuda' >/dev/null 2>&1; then
  echo "deps: installing the Numba peers' packages (peers/numba/requirements.txt)" >&2
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check --timeout 30 --retries 1 \
      -r "$root/peers/numba/requirements.txt"; then
    echo "deps: could not install numba and numba-cuda (no network?): the suite runs without" \
         "the Numba peers (scripts/peers.sh says so and records why in the results)" >&2
  fi
fi
