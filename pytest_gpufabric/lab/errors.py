"""Errors of the lab builder."""

from __future__ import annotations

from pytest_gpufabric.errors import GpufabricError


class LabError(GpufabricError):
    """Building, changing or removing the lab failed; the message carries the command and its stderr."""


class LabUnavailable(LabError):
    """This machine cannot host a lab at all (not root, or network namespaces cannot be created)."""
