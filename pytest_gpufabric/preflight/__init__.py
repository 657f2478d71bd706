"""Preflight: what the selected checks need on every node (programs, privileges, kernel interfaces, files), probed
on all nodes at once before a run, with one line per missing prerequisite."""
