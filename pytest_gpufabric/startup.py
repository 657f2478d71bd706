"""The start-up checks of a run, in one place. ``pytest --cluster=FILE`` and ``gpufabric inventory validate
FILE`` both call ``prepare_run``, so they give the same verdict with the same lines: the inventory (the
catalog's check ids for threshold overrides), the profiles it names, the overrides against those profiles'
comparisons, and the recording settings (secret patterns of the inventory and of ``--scrub``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_gpufabric.catalog import Catalog, load_catalog
from pytest_gpufabric.errors import ProblemsError, UsageError
from pytest_gpufabric.expectations import Profile, apply_site_overrides, known_profiles, load_profile, override_problems
from pytest_gpufabric.inventory import Inventory, InventoryError, load_inventory
from pytest_gpufabric.recording.scrub import Scrubber


@dataclass(frozen=True)
class RunSetup:
    """What a run starts from once every start-up check passed."""

    inventory: Inventory
    profiles: dict[str, Profile]  # every profile the site names, with the site's overrides applied
    catalog: Catalog
    scrubber: Scrubber  # the built-in secret patterns, the inventory's and those of --scrub


class StartupError(ProblemsError):
    """The run cannot start; ``problems`` lists every reason, one line each."""


def prepare_run(cluster: Path, thresholds_dir: Path, scrub: Sequence[str] = ()) -> RunSetup:
    """Run every start-up check on ``cluster``; ``StartupError`` lists all problems found."""
    catalog = load_catalog()
    problems = _scrub_problems(scrub)
    try:
        inventory = load_inventory(
            cluster, known_profiles(thresholds_dir), known_checks=frozenset(c.id for c in catalog)
        )
    except InventoryError as exc:
        raise StartupError([*exc.problems, *problems]) from None
    names = sorted({inventory.profile} | {node.profile for node in inventory.nodes if node.profile})
    profiles: dict[str, Profile] = {}
    for name in names:
        try:
            profiles[name] = load_profile(thresholds_dir, name)
        except UsageError as exc:
            problems.append(str(exc))
    if len(profiles) == len(names):  # overrides are judged against every profile of the site
        problems += override_problems(profiles, inventory.thresholds, origin=str(cluster))
    if problems:
        raise StartupError(problems)
    return RunSetup(
        inventory=inventory,
        profiles=apply_site_overrides(profiles, inventory.thresholds, origin=str(cluster)),
        catalog=catalog,
        scrubber=Scrubber((*inventory.scrub_patterns, *scrub)),
    )


def _scrub_problems(patterns: Sequence[str]) -> list[str]:
    problems = []
    for pattern in patterns:
        try:
            Scrubber([pattern], defaults=False)
        except UsageError as exc:
            problems.append(f"--scrub: {exc}")
    return problems
