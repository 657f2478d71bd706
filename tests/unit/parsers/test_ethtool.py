from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.ethtool import parse_ethtool, parse_ethtool_driver
from tests.outputs import read_output


@pytest.mark.parametrize(
    ("name", "interface"),
    [("pyroute2_issue720_enp0s31f6.txt", "enp0s31f6"), ("dklog_issue33_eth0.txt", "eth0")],
    ids=["enp0s31f6", "eth0"],
)
def test_full_settings(output, name: str, interface: str) -> None:
    settings = parse_ethtool(output("ethtool", name)).facts
    assert (settings.interface, settings.speed_mbps, settings.duplex) == (interface, 1000, "Full")
    assert settings.link_detected is True and settings.auto_negotiation == "on"
    assert settings.fields["Port"] == "Twisted Pair"


def test_driver_without_speed_reports_none(output) -> None:
    settings = parse_ethtool(output("ethtool", "amzn_drivers_issue61_no_speed.txt")).facts
    assert settings.speed_mbps is None and settings.duplex is None and settings.link_detected is True


def test_grep_link_lines_without_header(output) -> None:
    settings = parse_ethtool(output("ethtool", "s1_grep_link.txt")).facts
    assert settings.interface is None and settings.link_detected is True and settings.speed_mbps is None


def test_unknown_speed_of_a_down_link() -> None:
    settings = parse_ethtool("Settings for ens1f0np0:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tLink detected: no\n").facts
    assert settings.speed_mbps is None and settings.link_detected is False


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("netlink error: no device matches name (offset 24)\n", "none of Speed"),
     ("Settings for eth0:\n\tSpeed: 400Gb/s\n", "is not '<n>Mb/s'"),
     ("Settings for eth0:\n\tLink detected: maybe\n", "neither yes nor no")],
    ids=["no-device", "bad-speed-unit", "bad-link"],
)
def test_malformed_settings(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ethtool, text, "ethtool", fragment)


def test_a_speed_in_another_unit_costs_only_the_speed(unread_line) -> None:
    """A real capture with its Speed line altered to a unit this ethtool never prints: the speed is not read (a
    missing measurement for the check, never a guess), the rest is."""
    text = read_output("ethtool", "pyroute2_issue720_enp0s31f6.txt").replace("Speed: 1000Mb/s", "Speed: 1Gb/s")
    parsed = parse_ethtool(text)
    assert parsed.facts.speed_mbps is None and parsed.facts.link_detected is True and parsed.facts.duplex == "Full"
    unread_line(parsed, "Speed: 1Gb/s", "is not '<n>Mb/s'")


@pytest.mark.parametrize(
    ("name", "bus"),
    [("s0_grep_bus_enp29s0np0.txt", "0000:1d:00.0"), ("s0_grep_bus_enp159s0np0.txt", "0000:9f:00.0")],
    ids=["nic0", "nic4"],
)
def test_driver_info_bus(output, name: str, bus: str) -> None:
    info = parse_ethtool_driver(output("ethtool-i", name)).facts
    assert info.bus_info == bus and info.driver is None and info.firmware_version is None


def test_malformed_driver_info(parse_error) -> None:
    parse_error(parse_ethtool_driver, "Cannot get driver information: No such device\n", "none of driver")


@pytest.mark.parametrize(
    ("name", "driver", "firmware", "bus"),
    [
        ("ethq_issue33_bnxt_en.txt", "bnxt_en", "220.0.59.0/pkg 220.0.83.0", "0000:c1:00.0"),
        ("ethq_issue8_mlx5_core.txt", "mlx5_core", "14.23.1020", "0000:af:00.0"),
    ],
    ids=["bnxt_en", "mlx5_core"],
)
def test_full_driver_info(output, name: str, driver: str, firmware: str, bus: str) -> None:
    info = parse_ethtool_driver(output("ethtool-i", name)).facts
    assert (info.driver, info.firmware_version, info.bus_info) == (driver, firmware, bus)
    assert info.fields["expansion-rom-version"] == ""
