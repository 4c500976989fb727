#!/usr/bin/env bash
# The articles' Numba programs beside the C++ (peers/numba/): runs them on the sizes of a suite
# results file and merges their rows into it.
#
#   scripts/peers.sh RESULTS_JSON [--workload=a,b] [--no-gpu] [--list]
#
# The interpreter: $PYTHON when set, else the first of the project's .venv and python3 where numba
# imports and the installed versions meet peers/numba/requirements.txt. When none does, the peers
# are skipped: the results file records why (the runner's skip path needs only the standard
# library) and this script exits 0, so the suite's results stand. (The GPU machine's python3 has
# numba but a numpy the requirements exclude: scripts/gpu-python.sh passes its venv's as PYTHON.)
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

unmet() {  # prints what of requirements.txt the interpreter $1 does not meet (nothing: all met)
  "$1" - "$root/peers/numba/requirements.txt" <<'EOF' 2>&1
import sys
from importlib.metadata import PackageNotFoundError, version
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
unmet = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        req = Requirement(line)
        try:
            have = version(req.name)
        except PackageNotFoundError:
            unmet.append(f"{req.name} is not installed")
            continue
        if not req.specifier.contains(have, prereleases=True):
            unmet.append(f"{req.name} {have} is not {req.specifier}")
print("; ".join(unmet))
EOF
}

python=""
why_not=()
first_unmet=""
candidates=("$root/.venv/bin/python" python3)
[ -n "${PYTHON:-}" ] && candidates=("$PYTHON")
for candidate in "${candidates[@]}"; do
  if command -v "$candidate" >/dev/null 2>&1 && has_numba "$candidate"; then
    missing=$(unmet "$candidate")
    if [ -z "$missing" ]; then
      python=$candidate
      break
    fi
    why_not+=("$candidate ($missing)")
    first_unmet=${first_unmet:-$candidate}
  fi
done
if [ -z "$python" ] && [ -n "$first_unmet" ]; then
  # numba imports but the versions are not the requirements' (numba-cuda's first compile fails
  # with numpy 2.5): the runner records this reason instead of failing every row.
  export NUMBA_PEERS_UNMET="peers/numba/requirements.txt is not met: ${why_not[*]}"
  python=$first_unmet
fi
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
