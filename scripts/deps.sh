#!/usr/bin/env bash
# Installs what twinbench needs on a Debian/Ubuntu machine: the C++ libraries from apt and a
# Python venv (.venv) with the report's packages from PyPI. Does nothing that is already done.
#   scripts/deps.sh [--python-only]   (--python-only: the venv alone, no apt)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python_only=0
if [ "${1:-}" = "--python-only" ]; then python_only=1; fi

apt_packages=(cmake g++ make git libbenchmark-dev nlohmann-json3-dev googletest libgtest-dev libomp-dev
              python3-venv)
missing=()
((python_only)) && apt_packages=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}" >&2
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
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
if ! "$venv/bin/python" -c 'import matplotlib, pytest' >/dev/null 2>&1; then
  echo "deps: installing Python packages (reports/requirements.txt)" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/reports/requirements.txt"
fi
