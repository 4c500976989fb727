"""twinbench reports: charts, tables and run comparisons from Google Benchmark JSON.

Entry points: `python -m reports render RUN.json --out DIR` and
`python -m reports compare A.json B.json --out DIR` (see reports/cli.py).
"""

from .loader import LoadError, Row, Run, TUNING_ARGS, load_run, merge_runs

__all__ = ["LoadError", "Row", "Run", "TUNING_ARGS", "load_run", "merge_runs"]
