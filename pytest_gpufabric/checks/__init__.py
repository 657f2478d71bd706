"""Pure evaluation helpers of the checks: facts in, the value a check judges out."""
