"""The thresholds profile that best matches a discovered platform, among the installed profiles."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from pytest_gpufabric.inventory.model import Platform


@dataclass(frozen=True)
class ProfileRule:
    """A profile and the platforms it was written for (its title and documents say the same)."""

    profile: str
    describes: str
    matches: Callable[[Platform], bool]


RULES: tuple[ProfileRule, ...] = (
    ProfileRule("mi300x-thor2", "AMD Instinct GPUs on bare metal",
                lambda p: p.gpu_vendor == "amd" and p.deployment == "baremetal"),
    ProfileRule("mi300x-thor2", "AMD Instinct GPUs on bare metal; in a guest each node check takes its guest meaning",
                lambda p: p.gpu_vendor == "amd" and p.deployment == "guest"),
    ProfileRule("h100-thor2-vmware", "NVIDIA HGX GPUs in a VMware guest",
                lambda p: p.gpu_vendor == "nvidia" and p.deployment == "vmware"),
    ProfileRule("hgx-h100-thor2", "NVIDIA HGX H100/H200 GPUs on bare metal",
                lambda p: p.gpu_vendor == "nvidia" and p.deployment == "baremetal"),
    ProfileRule("hgx-h100-thor2", "NVIDIA HGX H100/H200 GPUs on bare metal; in a guest each node check takes its guest meaning",
                lambda p: p.gpu_vendor == "nvidia" and p.deployment == "guest"),
    ProfileRule("lab-linux", "plain Linux hosts without GPUs",
                lambda p: p.gpu_vendor == "none"),
)  # fmt: skip


@dataclass(frozen=True)
class ProfileChoice:
    profile: str | None
    reason: str


def best_profile(platform: Platform, installed: Collection[str]) -> ProfileChoice:
    """The first installed profile written for ``platform``; None (with the reason) when none is."""
    for rule in RULES:
        if rule.matches(platform) and rule.profile in installed:
            return ProfileChoice(rule.profile, f"written for {rule.describes}")
    wanted = [rule.profile for rule in RULES if rule.matches(platform)]
    missing = f" ({', '.join(wanted)} is not installed)" if wanted else ""
    return ProfileChoice(None, f"no installed profile is written for {platform.gpu_vendor} GPUs, {platform.deployment}{missing}")
