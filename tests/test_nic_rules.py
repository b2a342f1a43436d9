"""The host NIC rules (netcfg.checks.nic) on the lab fabric: the receive buffer of the lossless
priority, the GID jobs use, DCBX across a host link; each silent where its data is unknown."""

from __future__ import annotations

import dataclasses

import pytest

from netcfg.checks.nic import dcbx_disagrees
from netcfg.checks.runner import run_checks
from netcfg.lab.devices import DcbxFault, DeviceFaults, live_states
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.model import DeviceState, Endpoint, Fabric, Gid, PgBuffer
from netcfg.policy import Policy
from netcfg.sources import snapshot_states

HOST, NIC, LEAF = "gpu01", "eth0", "leaf-su1-r1"


@pytest.fixture()
def states(lab_fabric: Fabric, lab_policy: Policy) -> dict[str, DeviceState]:
    return live_states(lab_fabric, lab_policy)


def findings(fabric: Fabric, policy: Policy, states: dict[str, DeviceState], rule: str) -> list:
    return [(f.device, f.interface, f.actual) for f in run_checks(fabric, policy, states) if f.rule == rule]


def test_the_lab_is_clean_of_nic_rules(lab_fabric, lab_policy, states):
    for rule in ("host.receive_buffer", "host.gid", "link.dcbx_mismatch"):
        assert findings(lab_fabric, lab_policy, states, rule) == []


def test_an_896_byte_receive_buffer_is_a_finding(lab_fabric, lab_policy, states):
    port = states[HOST].interfaces[NIC]
    lossless = lab_policy.roce.priority
    buffer = port.priority_buffers[lossless]
    port.pg_buffers = {**port.pg_buffers, buffer: PgBuffer(size=896)}
    assert findings(lab_fabric, lab_policy, states, "host.receive_buffer") == [
        (HOST, NIC, f"receive buffer {buffer}: 896 B")
    ]


def test_a_lossless_priority_in_the_lossy_buffer_is_a_finding(lab_fabric, lab_policy, states):
    port = states[HOST].interfaces[NIC]
    port.priority_buffers = dict.fromkeys(range(8), 2)  # buffer 2 has size 0
    assert findings(lab_fabric, lab_policy, states, "host.receive_buffer") == [
        (HOST, NIC, "receive buffer 2: 0 B")
    ]


def test_unknown_receive_buffers_say_nothing(lab_fabric, lab_policy, states):
    port = states[HOST].interfaces[NIC]
    port.priority_buffers, port.pg_buffers = None, {}
    assert findings(lab_fabric, lab_policy, states, "host.receive_buffer") == []


def test_no_receive_buffer_is_needed_in_lossy_mode(lab_fabric, lab_policy, states):
    states[HOST].interfaces[NIC].pg_buffers = {}
    lossy = lab_policy.model_copy(update={"mode": "lossy"})
    assert findings(lab_fabric, lossy, states, "host.receive_buffer") == []


@pytest.mark.parametrize(
    ("gid", "actual"),
    [
        (None, "no GID"),
        (Gid("0000:0000:0000:0000:0000:ffff:0a01:0207", "IB/RoCE v1", NIC), "IB/RoCE v1 "),
        (Gid("fe80:0000:0000:0000:a088:c2ff:fe31:7e4a", "RoCE v2", "eth0.100"), "RoCE v2 fe80:"),
    ],
)
def test_gid_index_without_a_routable_roce_v2_gid(lab_fabric, lab_policy, states, gid, actual):
    port = states[HOST].interfaces[NIC]
    index = lab_policy.host.gid_index
    port.gids = {n: g for n, g in (port.gids or {}).items() if n != index} | ({index: gid} if gid else {})
    (found,) = findings(lab_fabric, lab_policy, states, "host.gid")
    assert found[:2] == (HOST, NIC) and found[2].startswith(actual)


def test_the_gid_index_comes_from_the_policy(lab_fabric, lab_policy, states):
    # Index 0 of the lab's table is link-local RoCE v1: a policy naming it fails every NIC.
    policy = lab_policy.model_copy(update={"host": lab_policy.host.model_copy(update={"gid_index": 0})})
    nics = sum(len(d.nics) for d in lab_fabric.devices.values())
    assert len(findings(lab_fabric, policy, states, "host.gid")) == nics
    assert lab_policy.host.gid_index == 3


def test_an_unread_gid_table_says_nothing(lab_fabric, lab_policy, states):
    states[HOST].interfaces[NIC].gids = None
    assert findings(lab_fabric, lab_policy, states, "host.gid") == []


def _leaf_port(lab_fabric: Fabric):
    from netcfg.model import Endpoint

    peer = lab_fabric.peer(Endpoint(HOST, NIC))
    assert peer is not None and peer.device == LEAF
    return peer


def test_dcbx_dialects_that_differ_are_a_finding(lab_fabric, lab_policy, states):
    peer = _leaf_port(lab_fabric)
    states[HOST].interfaces[NIC].dcbx_mode = "ieee"
    leaf = states[LEAF].interfaces[peer.interface]
    states[LEAF].interfaces[peer.interface] = dataclasses.replace(leaf, dcbx_mode="cee")
    assert findings(lab_fabric, lab_policy, states, "link.dcbx_mismatch") == [(HOST, NIC, "DCBX ieee")]


def test_both_ends_willing_is_a_finding(lab_fabric, lab_policy, states):
    peer = _leaf_port(lab_fabric)
    states[HOST].interfaces[NIC].dcbx_willing = True
    states[LEAF].interfaces[peer.interface].dcbx_willing = True
    assert findings(lab_fabric, lab_policy, states, "link.dcbx_mismatch") == [(HOST, NIC, "willing")]


@pytest.mark.parametrize(("host_mode", "leaf_mode"), [("ieee", None), (None, "cee"), ("ieee", "ieee")])
def test_dcbx_says_nothing_where_an_end_is_unknown_or_they_agree(
    lab_fabric, lab_policy, states, host_mode, leaf_mode
):
    peer = _leaf_port(lab_fabric)
    states[HOST].interfaces[NIC].dcbx_mode = host_mode
    states[HOST].interfaces[NIC].dcbx_willing = True
    states[LEAF].interfaces[peer.interface].dcbx_mode = leaf_mode
    states[LEAF].interfaces[peer.interface].dcbx_willing = None
    assert findings(lab_fabric, lab_policy, states, "link.dcbx_mismatch") == []


def test_dcbx_read_from_what_the_lab_prints_names_the_one_mismatched_link(lab_fabric, lab_policy, tmp_path):
    """End to end through the printed outputs: the NIC firmware's agent (`mlxconfig -e q`, run by the
    firmware per mlnx_qos) speaking CEE against an EOS port with `dcbx mode ieee` is one finding; a
    NIC in IEEE against another such port, and NICs whose OS runs DCBX, are none."""
    peer = _leaf_port(lab_fabric)
    other = lab_fabric.link_at(Endpoint("gpu02", NIC))
    assert other is not None and other.b.device == LEAF
    faults = {
        HOST: DeviceFaults(dcbx={NIC: DcbxFault(mode="cee", willing=True)}),
        "gpu02": DeviceFaults(dcbx={NIC: DcbxFault(mode="ieee", willing=True)}),
        LEAF: DeviceFaults(dcbx={p: DcbxFault(mode="ieee") for p in (peer.interface, other.b.interface)}),
    }
    folder = write_simulated_snapshot(lab_fabric, lab_policy, faults, tmp_path / "snap")
    states = snapshot_states(lab_fabric, folder)
    assert states[LEAF].interfaces[peer.interface].dcbx_mode == "ieee"
    assert (states[HOST].interfaces[NIC].dcbx_mode, states["gpu03"].interfaces[NIC].dcbx_mode) == (
        "cee",
        None,
    )
    assert findings(lab_fabric, lab_policy, states, "link.dcbx_mismatch") == [(HOST, NIC, "DCBX cee")]


@pytest.mark.parametrize(
    ("a", "b", "disagree"),
    [("ieee", "cee", True), ("auto", "cee", False), ("auto", "ieee", False), ("off", "cee", False)],
)
def test_dcbx_dialects(a, b, disagree):
    assert dcbx_disagrees(a, b) is disagree
    assert dcbx_disagrees(b, a) is disagree
    assert dcbx_disagrees(a, None) is dcbx_disagrees(None, b) is False
