"""The articles' Numba programs as peers of the C++ rows (`python -m peers.numba --help`).

Importing this package does not import numba: the runner imports it lazily, so that a machine
without numba can still say why the peers were skipped and record it in the results file.
"""
