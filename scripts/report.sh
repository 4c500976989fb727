#!/usr/bin/env bash
# Render or compare twinbench results; see `python -m reports --help`.
#   scripts/report.sh RESULT.json [MORE.json] --out DIR
#   scripts/report.sh compare A.json B.json --out DIR
# Runs the project's venv (.venv, made by scripts/deps.sh): the system Python may lack matplotlib.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python=${PYTHON:-$repo_root/.venv/bin/python}
if [ -z "${PYTHON:-}" ] && ! "$python" -c 'import matplotlib' >/dev/null 2>&1; then
  bash "$repo_root/scripts/deps.sh" --python-only >&2
fi
# Run from anywhere without installing the package.
export PYTHONPATH="${repo_root}${PYTHONPATH:+:${PYTHONPATH}}"
exec "$python" -m reports "$@"
