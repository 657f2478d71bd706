"""Project tooling (not shipped in the package)."""
