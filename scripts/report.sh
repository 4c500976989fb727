#!/usr/bin/env bash
# Render or compare twinbench results; see `python -m reports --help`.
#   scripts/report.sh RESULT.json [MORE.json] --out DIR
#   scripts/report.sh compare A.json B.json --out DIR
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Run from anywhere without installing the package.
export PYTHONPATH="${repo_root}${PYTHONPATH:+:${PYTHONPATH}}"
exec "${PYTHON:-python3}" -m reports "$@"
