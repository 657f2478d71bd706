"""Scheduling of pair tests: pair selection, rounds of disjoint pairs, resource locks and the schedule log."""

from pytest_gpufabric.scheduling.locks import ResourceLocks, ResourceLockTimeout, lock_file_name
from pytest_gpufabric.scheduling.ordering import group_in_rounds, order_items_in_rounds
from pytest_gpufabric.scheduling.pairs import (
    POLICIES,
    all_pairs,
    explicit_pairs,
    round_robin_pairs,
    same_leaf_pairs,
    select_pairs,
)
from pytest_gpufabric.scheduling.rounds import circle_rounds, directed_rounds, lower_bound_rounds, rail_rounds
from pytest_gpufabric.scheduling.schedule_log import (
    Overlap,
    ScheduleLog,
    ScheduleLogError,
    ScheduleRecord,
    find_overlaps,
    parse_schedule_lines,
)

__all__ = [
    "POLICIES", "Overlap", "ResourceLockTimeout", "ResourceLocks", "ScheduleLog", "ScheduleLogError",
    "ScheduleRecord", "all_pairs", "circle_rounds", "directed_rounds", "explicit_pairs", "find_overlaps",
    "group_in_rounds", "lock_file_name", "lower_bound_rounds", "order_items_in_rounds", "parse_schedule_lines",
    "rail_rounds", "round_robin_pairs", "same_leaf_pairs", "select_pairs",
]
