"""Exclusive resources, the low room below scheduling, measuring and switches: the names of what a traffic test
occupies (NICs, GPUs, perftest ports), the locks that keep one use at a time, and the schedule log that proves it."""

from pytest_gpufabric.exclusive.locks import ResourceLocks, ResourceLockTimeout, lock_file_name
from pytest_gpufabric.exclusive.names import is_exclusive, is_traffic, port_for, rail_resources, resource_node, resources_of
from pytest_gpufabric.exclusive.schedule_log import (
    Overlap,
    ScheduleLog,
    ScheduleLogError,
    ScheduleRecord,
    find_overlaps,
    parse_schedule_lines,
)

__all__ = [
    "Overlap", "ResourceLockTimeout", "ResourceLocks", "ScheduleLog", "ScheduleLogError", "ScheduleRecord",
    "find_overlaps", "is_exclusive", "is_traffic", "lock_file_name", "parse_schedule_lines", "port_for",
    "rail_resources", "resource_node", "resources_of",
]
