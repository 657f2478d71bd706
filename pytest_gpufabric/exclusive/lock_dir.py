"""Where the locks of a run live: by default one folder per site on a controller, shared by every run against that
site (two runs on one controller then never use a NIC at once), and inside it one folder per run (its rounds, its
stop flag, the nodes and NICs it found down)."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_gpufabric.errors import UsageError

if TYPE_CHECKING:
    from pytest_gpufabric.inventory import Inventory

PREFIX = "gpufabric-locks-"
RUNS = "runs"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def site_key(inventory: Inventory) -> str:
    """A name for the site's machines: its name and a digest of every node's and switch's name and address (two
    copies of one site.yaml share it; another cluster of the same site name does not)."""
    machines = sorted(f"{machine.name}@{machine.address}" for machine in (*inventory.nodes, *inventory.switches))
    digest = hashlib.sha256("\n".join([inventory.site, *machines]).encode("utf-8")).hexdigest()[:12]
    return f"{_UNSAFE.sub('_', inventory.site)[:40]}-{digest}"


def default_lock_dir(inventory: Inventory, base: Path | None = None) -> Path:
    """The lock folder every run of this user against ``inventory`` on this controller shares:
    ``<tmp>/gpufabric-locks-<site>-uid<uid>`` (another user's runs have their own: a folder is private to its user)."""
    return (base or Path(tempfile.gettempdir())) / f"{PREFIX}{site_key(inventory)}-uid{os.geteuid()}"


def prepare_lock_dir(path: Path) -> Path:
    """Create ``path`` (private to this user) when missing; a folder another user owns, or a link, is refused: runs
    of other users do not share it (the node leases still keep their traffic apart)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(path)
    except OSError as exc:
        raise UsageError(f"lock folder {path}: {exc.strerror or exc}; choose another with --lock-dir") from None
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        raise UsageError(f"lock folder {path} is not a folder; choose another with --lock-dir")
    if found.st_uid != os.geteuid() or not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"lock folder {path} belongs to user id {found.st_uid}; choose another with --lock-dir")
    return path


def run_dir(lock_dir: Path, run_id: str) -> Path:
    """The folder of one run inside the lock folder (its processes share it; removed when the run ends)."""
    return lock_dir / RUNS / run_id
