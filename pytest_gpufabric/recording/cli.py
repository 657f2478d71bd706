"""``gpufabric recording check DIR`` and ``gpufabric recording seal DIR``: the integrity of a recording's files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pytest_gpufabric.recording.store import RecordingStore


def _cmd_check(args: argparse.Namespace) -> int:
    store = RecordingStore(args.directory)
    problems = store.check()
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        return 1
    state = "sealed" if store.meta().integrity else "not sealed (made before integrity lines: `gpufabric recording seal`)"
    print(f"{args.directory}: {len(store.nodes())} node files read whole, none cut or changed; {state}")
    return 0


def _cmd_seal(args: argparse.Namespace) -> int:
    for line in RecordingStore(args.directory).seal():
        print(line)
    print(f"{args.directory}: sealed (every node file ends with its integrity line)")
    return 0


def add_recording_parser(sub: Any) -> None:
    """The ``recording`` command of ``gpufabric``."""
    recording = sub.add_parser("recording", help="recording tools").add_subparsers(dest="action", required=True)
    check = recording.add_parser("check", help="read every node file whole: refuse a cut or changed one with its line")
    check.add_argument("directory", metavar="DIR")
    check.set_defaults(func=_cmd_check)
    seal = recording.add_parser("seal", help="give every node file its integrity line (recordings made before them)")
    seal.add_argument("directory", metavar="DIR")
    seal.set_defaults(func=_cmd_seal)
