"""Waiting for a descriptor above 1,023 (a controller of 1,024 nodes holds such), where ``select`` refuses."""

from __future__ import annotations

import os
import resource
import select
from collections.abc import Iterator

import pytest

from pytest_gpufabric.readable import readable_within

HIGH_FD = 1500


@pytest.fixture
def high_pipe() -> Iterator[tuple[int, int]]:
    """A pipe whose read end is descriptor ``HIGH_FD``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= HIGH_FD:
        pytest.skip(f"the hard limit on open files ({hard}) is below {HIGH_FD + 1}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, HIGH_FD + 1), hard))
    read_end, write_end = os.pipe()
    os.dup2(read_end, HIGH_FD)
    os.close(read_end)
    try:
        yield HIGH_FD, write_end
    finally:
        os.close(HIGH_FD)
        os.close(write_end)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_descriptor_above_1023_is_waited_on(high_pipe: tuple[int, int]) -> None:
    read_end, write_end = high_pipe
    with pytest.raises(ValueError, match="filedescriptor out of range"):
        select.select([read_end], [], [], 0)  # what the stop watcher and the report's browser pipe used
    assert not readable_within(read_end, 0.05)
    os.write(write_end, b"x")
    assert readable_within(read_end, 0.05)
