#!/usr/bin/env bash
# Installs what twinbench needs on a Debian/Ubuntu machine: the C++ libraries from apt and a
# Python venv (.venv) with the report's packages from PyPI. Does nothing that is already done.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

apt_packages=(cmake g++ make git libbenchmark-dev nlohmann-json3-dev googletest libgtest-dev libomp-dev
              python3-venv)
missing=()
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
  echo "deps: creating $venv" >&2
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import matplotlib, pytest' >/dev/null 2>&1; then
  echo "deps: installing Python packages (reports/requirements.txt)" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/reports/requirements.txt"
fi
