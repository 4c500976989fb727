#!/usr/bin/env bash
# The articles' Numba programs beside the C++ (peers/numba/): runs them on the sizes of a suite
# results file and merges their rows into it.
#
#   scripts/peers.sh RESULTS_JSON [--workload=a,b] [--no-gpu] [--list]
#
# The interpreter: the project's .venv when numba imports there, else the system python3 when it
# does there (the H200 machine has no network; its python3 has numba and numba-cuda). When
# neither has numba, the peers are skipped: the results file records why (the runner's skip path
# needs only the standard library) and this script exits 0, so the suite's results stand.
# Exit status: the runner's (python -m peers.numba --help): 0 ok or skipped, 1 a validation
# failed, 2 bad input, 3 the results could not be written, 130/143 interrupted.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ] && exit 0
  exit 2
fi
json=$1
shift

has_numba() { "$1" -c 'import numba, numba.cuda' >/dev/null 2>&1; }

python=""
for candidate in "$root/.venv/bin/python" python3; do
  if command -v "$candidate" >/dev/null 2>&1 && has_numba "$candidate"; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  if ! command -v python3 >/dev/null 2>&1; then
    echo "peers: skipped: no python3 on this machine (the Numba peers need numba and numba-cuda)" >&2
    exit 0
  fi
  # The runner's skip path: says why in one line and records it in the results file.
  python=python3
fi
# From the caller's directory (RESULTS_JSON may be relative), with the repository and the
# package the peers run on (twinbench.bench, reports/src) importable, installed or not.
PYTHONPATH="$root:$root/reports/src${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m peers.numba --suite-json "$json" "$@"
