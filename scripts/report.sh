#!/usr/bin/env bash
# Render or compare twinbench results with the twinbench package; see `twinbench-report --help`.
#   scripts/report.sh RESULT.json [MORE.json] --out DIR
#   scripts/report.sh compare A.json B.json --out DIR
# Runs the project's venv (.venv, made by scripts/deps.sh, which installs the package from
# reports/ into it); PYTHON picks another interpreter, run with the checkout's reports/src.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${PYTHON:-}" ]; then
  export PYTHONPATH="${repo_root}/reports/src${PYTHONPATH:+:${PYTHONPATH}}"
  exec "$PYTHON" -m twinbench.report "$@"
fi
if [ ! -x "$repo_root/.venv/bin/twinbench-report" ]; then
  bash "$repo_root/scripts/deps.sh" --python-only >&2
fi
exec "$repo_root/.venv/bin/twinbench-report" "$@"
