"""Peers: the articles' own programs, run beside the C++ suite and written into its results."""
