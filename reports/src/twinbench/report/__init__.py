"""twinbench reports: charts, tables and run comparisons from Google Benchmark JSON.

Entry points: `twinbench-report render RUN.json --out DIR` and
`twinbench-report compare A.json B.json --out DIR` (see twinbench/report/cli.py).
"""

from .loader import LoadError, Row, Run, TUNING_ARGS, load_run, merge_runs

__all__ = ["LoadError", "Row", "Run", "TUNING_ARGS", "load_run", "merge_runs"]
