"""Parsers: pure functions from one tool's raw text output to typed facts (one module per tool)."""
