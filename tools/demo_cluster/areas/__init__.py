"""One module per area of checks: the demo outputs of its commands, with the faults it injects."""
