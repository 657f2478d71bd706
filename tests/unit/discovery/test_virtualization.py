"""The deployment of a node, one test per rule (parsers/virt.py and discovery/virtualization.py name each rule's
source). Every answer is a real output (fixtures/outputs/*/SOURCES.md); a command a test does not answer
is absent (exit 127), as on a node without that tool."""

from __future__ import annotations

import pytest

from pytest_gpufabric.discovery.assemble import Declared, assemble_site, deployment_of
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import FoundPlatform, NodeFacts
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.discovery.virtualization import CPU_FLAGS, DETECT_VIRT, DMI_FIELDS, KERNEL_LOG, detect_virtualization
from pytest_gpufabric.inventory import SshConfig
from pytest_gpufabric.transport.base import CommandResult
from tests.outputs import read_output

NOT_FOUND = (127, "bash: line 1: {}: command not found\n")
NO_FILE = (1, "cat: /sys/class/dmi/id/{}: No such file or directory\n")


class Node:
    """A node answering commands from real outputs (exit 0), ``dmi_absent`` as a guest without DMI answers."""

    def __init__(self, answers: dict[str, str], *, dmi_absent: bool = False) -> None:
        self.answers = answers
        self.dmi_absent = dmi_absent
        self.asked: list[str] = []

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None) -> CommandResult:
        self.asked.append(command)
        if command in self.answers:
            code = 1 if command == DETECT_VIRT and self.answers[command].strip() == "none" else 0
            return CommandResult(node, command, self.answers[command], "", code, 0.0)
        field = next((name for name, dmi in DMI_FIELDS.items() if dmi == command), None)
        code, stderr = NO_FILE if field and self.dmi_absent else NOT_FOUND
        return CommandResult(node, command, "", stderr.format(field or command.split()[0]), code, 0.0)

    def close(self) -> None:
        pass


def detect(node: Node):  # type: ignore[no-untyped-def]
    return detect_virtualization(NodeReader(node, "n1", 10.0))


def virt(name: str) -> str:
    return read_output("systemd-detect-virt", name)


def dmi(prefix: str) -> dict[str, str]:
    return {DMI_FIELDS[f]: read_output("sysfs-dmi-id", f"{prefix}_{f}.txt") for f in ("product_name", "sys_vendor")}


def test_systemd_detect_virt_names_the_vm_and_nothing_else_is_asked() -> None:
    node = Node({DETECT_VIRT: virt("devhost_vm.txt")})
    found = detect(node)
    assert (found.word, found.guest, found.steps) == ("kvm", True, ("systemd-detect-virt: kvm",))
    assert node.asked == [DETECT_VIRT]


def test_systemd_detect_virt_none_is_bare_metal() -> None:
    found = detect(Node({DETECT_VIRT: virt("systemd_issue23116_arm_openstack_none.txt")}))
    assert (found.word, found.guest, found.describe()) == ("none", False, "bare metal (systemd-detect-virt: none)")


def test_systemd_detect_virt_word_is_taken_as_it_says() -> None:
    """uyuni-project/uyuni#2112: a Nutanix AHV (KVM) guest that systemd calls microsoft is still a guest."""
    found = detect(Node({DETECT_VIRT: virt("uyuni_issue2112_nutanix_ahv_microsoft.txt")}))
    assert (found.word, deployment_of(found.word)) == ("microsoft", "guest")


@pytest.mark.parametrize(("prefix", "word", "told"), [
    ("ansible_pr18383_rhel6_kvm", "kvm", "DMI product_name 'KVM'"),
    ("risu_issue538_rhel7_qemu", "qemu", "DMI sys_vendor 'QEMU'"),
])
def test_dmi_names_the_hypervisor_where_systemd_detect_virt_is_absent(prefix: str, word: str, told: str) -> None:
    node = Node(dmi(prefix))
    found = detect(node)
    assert (found.word, found.steps) == (word, ("systemd-detect-virt did not answer", told))
    assert CPU_FLAGS not in node.asked


def test_dmi_product_name_of_an_openstack_guest_is_kvm() -> None:
    """systemd/systemd#23116: an ARM OpenStack Nova guest; systemd's table reads 'OpenStack' as KVM."""
    node = Node({DMI_FIELDS["product_name"]: read_output("sysfs-dmi-id", "systemd_issue23116_arm_openstack_product_name.txt")})
    assert detect(node).word == "kvm"


def test_a_container_word_goes_on_to_the_cpu_flag_of_the_vm_below() -> None:
    """The development host: a container (docker) in a KVM guest without DMI, whose kernel log no longer holds
    its boot lines: a guest whose hypervisor is not named."""
    node = Node({DETECT_VIRT: virt("devhost_container.txt"), CPU_FLAGS: read_output("proc-cpuinfo-flags", "devhost_kvm_guest.txt")},
                dmi_absent=True)  # fmt: skip
    found = detect(node)
    assert (found.word, found.guest) == ("vm-other", True)
    assert found.steps == ("systemd-detect-virt: docker, a container", "no DMI identification read",
                           "the CPU flags include hypervisor", "no 'Hypervisor detected' line in the kernel log")
    assert node.asked[-1] == KERNEL_LOG


def test_no_hypervisor_flag_is_bare_metal_where_dmi_names_no_hypervisor() -> None:
    node = Node({**dmi("netbox_agent_dell_m630"), CPU_FLAGS: read_output("proc-cpuinfo-flags", "amdsev_issue1_ryzen_laptop_bare_metal.txt")})
    found = detect(node)
    assert found.word == "none"
    assert found.steps[1:] == ("DMI names no hypervisor (product_name 'PowerEdge M630', sys_vendor 'Dell Inc.')",
                               "no hypervisor flag among the CPU flags")
    assert KERNEL_LOG not in node.asked


def test_a_dmi_vendor_outside_the_table_tells_nothing_and_nothing_else_answers() -> None:
    found = detect(Node(dmi("uyuni_issue2112_nutanix_ahv")))
    assert (found.word, found.guest) == ("unknown", False)
    assert found.describe().startswith("not seen (no 'Hypervisor detected' line in the kernel log; CPU flags not read;")


def test_an_unknown_deployment_is_written_as_baremetal_with_a_review_line_of_its_own() -> None:
    found = detect(Node({}))
    platform = FoundPlatform("nvidia", "H200", "other", found.word, found.steps)
    site = assemble_site([NodeFacts("h200", "127.0.0.1", platform, (), ())], Declared("s", "local", SshConfig()), ["hgx-h100-thor2"])
    assert site.nodes[0].platform.deployment == "baremetal"
    text = render_site(site, "test")
    review = ("  # REVIEW deployment: written as baremetal, the deployment was not seen (no 'Hypervisor detected' line "
              "in the kernel log; CPU flags not read; no DMI identification read; systemd-detect-virt did not answer)\n")
    assert review in text.splitlines(keepends=True)  # a line of its own, ended, even as the file's last line
