"""Conformance: the public samples in ../shared/corpus that a Thor host's read-back meets.

The corpus holds no Broadcom output; what applies is what any GPU server prints: `ethtool -i` of a
NIC of another make in a Thor server's rail (read as such and named by host.driver), lldpd tables,
and NVIDIA outputs that must not pass for bnxtqos or bnxt_re configfs read-back. Samples are read
in place, never copied.
"""

from __future__ import annotations

import pytest

from netcfg.checks.runner import run_checks
from netcfg.inventory import load_fabric
from netcfg.lab.devices import live_states
from netcfg.model import Device, Nic, Role
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator
from netcfg.policy import load_policy
from tests.conformance.test_corpus import NIC_OTHERS, read
from tests.conftest import ROOT

THOR = get_platform("thor")
HOST = Device("host", Role.HOST, "thor", nics=[Nic(1, "eth0", "bnxt_re0")])
THOR_COMMANDS = {c.file: c.cli for c in THOR.commands(HOST) if not c.file.startswith("lldpcli")}


@pytest.mark.parametrize(
    ("path", "driver", "firmware"),
    [
        ("nic/ethtool_i_i40e_xxv710_negative.txt", "i40e", "6.00 0x800036cb 1.1747.0"),
        ("nic/ethtool_i_mlx5_cx4lx_fw14.23.1020.txt", "mlx5_core", "14.23.1020"),
    ],
)
def test_a_nic_of_another_make_in_a_thor_host_is_named_by_host_driver(path, driver, firmware):
    fabric = load_fabric(ROOT / "tests" / "fixtures" / "thor" / "inventory")
    policy = load_policy(fabric.policy_ref)
    device = fabric.devices["gpu01"]
    rendered = simulator(THOR.name).render_outputs(live_states(fabric, policy)["gpu01"], device)
    outputs = {c.file: rendered[c.cli] for c in THOR.commands(device)}
    outputs["ethtool_eth0"] = read(path)
    state = THOR.parse_outputs(outputs, device)
    port = state.interfaces["eth0"]
    assert (port.driver, port.firmware) == (driver, firmware)
    findings = [f for f in run_checks(fabric, policy, {"gpu01": state}) if f.device == "gpu01"]
    assert [(f.rule, f.interface, f.expected, f.actual) for f in findings] == [
        ("host.driver", "eth0", "bnxt_en", driver)
    ]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("nic/lldpctl_sonic_mgmt_juniper_peer_mfs.txt", [("eth0", "###", "539")]),
        (
            "show/cumulus_lldpcli_show_neighbors.txt",
            [("eth0", "PIONEERMS22", "swp47"), ("swp1", "MSP-1", "swp1")],
        ),
    ],
)
def test_lldpd_tables_read_on_a_thor_host(path, expected):
    state = THOR.parse_outputs({"lldpcli_show_neighbors": read(path)}, HOST)
    assert [(n.local_interface, n.system_name, n.port) for n in state.lldp][: len(expected)] == expected
    assert "lldpcli show neighbors" not in state.unparsed


@pytest.mark.parametrize(
    "path", ["nic/mlnx_qos_trust_dscp_pfc3.txt", "nic/mlnx_qos_setup_transcript_netarbiter.md", *NIC_OTHERS]
)
@pytest.mark.parametrize("file", sorted(THOR_COMMANDS))
def test_nvidia_outputs_are_unreadable_as_what_a_thor_host_is_asked(path, file):
    state = THOR.parse_outputs({file: read(path)}, HOST)
    assert THOR_COMMANDS[file] in state.unparsed
