"""twinbench's Python side; each subpackage stands alone (twinbench.report: reports from runs)."""
