"""The fleet view of a run, beyond each value's threshold: statistics per check, metric and rail, values that
stand out from their peers (outliers), and what changed between two runs (comparison)."""
