"""Cabling at bring-up: each kind of cabling fault is its own rule, named once per cable whichever
ends' LLDP (switch side, host side or both) show it. States are the lab's healthy ones (intent, LLDP
from the plan, every cabled port up) with the faults written into them."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.checks.runner import run_checks
from netcfg.lab.devices import DeviceFaults, apply_faults, cable_faults, live_states
from netcfg.lab.health import with_link_state
from netcfg.model import DeviceState, LldpNeighbor, port_ranges

CABLING = ("cabling.", "link.down")


@pytest.fixture
def states(lab_fabric, lab_policy) -> dict[str, DeviceState]:
    return healthy(lab_fabric, lab_policy)


def healthy(fabric, policy) -> dict[str, DeviceState]:
    return {n: with_link_state(s, fabric.devices[n], fabric) for n, s in live_states(fabric, policy).items()}


def hears(states: dict[str, DeviceState], device: str, port: str, remote: str | None) -> None:
    """Port `port` of `device` hears `remote` ("device:port") instead of what it heard; None: nobody."""
    state = states[device]
    state.lldp = [n for n in state.lldp if n.local_interface != port]
    if remote is not None:
        state.lldp.append(LldpNeighbor(port, *remote.split(":")))


def link_down(states: dict[str, DeviceState], device: str, port: str) -> None:
    state = states[device]
    state.interfaces[port] = dataclasses.replace(state.interfaces[port], oper_up=False)
    hears(states, device, port, None)


def cabling(fabric, policy, states) -> dict[tuple[str, str, str | None], object]:
    return {
        (f.rule, f.device, f.interface): f
        for f in run_checks(fabric, policy, states)
        if f.rule.startswith(CABLING)
    }


def test_the_healthy_lab_has_no_cabling_finding(lab_fabric, lab_policy, states):
    assert cabling(lab_fabric, lab_policy, states) == {}


@pytest.mark.parametrize("side", ["hosts", "leaf", "both"])
def test_two_servers_swapped_on_a_leaf_are_one_finding_on_the_leaf(lab_fabric, lab_policy, states, side):
    # gpu01:eth0 belongs on leaf-su1-r1:Ethernet1 and gpu02:eth0 on Ethernet2; the cables are crossed.
    if side in ("hosts", "both"):
        hears(states, "gpu01", "eth0", "leaf-su1-r1:Ethernet2")
        hears(states, "gpu02", "eth0", "leaf-su1-r1:Ethernet1")
    if side in ("leaf", "both"):
        hears(states, "leaf-su1-r1", "Ethernet1", "gpu02:eth0")
        hears(states, "leaf-su1-r1", "Ethernet2", "gpu01:eth0")
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.swapped", "leaf-su1-r1", "Ethernet1-2")]
    (swap,) = found.values()
    assert swap.severity == "error"
    assert swap.expected == "Ethernet1 to gpu01:eth0, Ethernet2 to gpu02:eth0"
    assert swap.actual == "Ethernet1 to gpu02:eth0, Ethernet2 to gpu01:eth0"
    assert "Ethernet1 reaches gpu02:eth0 and Ethernet2 reaches gpu01:eth0" in swap.message


def test_two_nics_of_a_server_swapped_are_one_finding_on_the_server(lab_fabric, lab_policy, states):
    hears(states, "gpu03", "eth0", "leaf-su1-r2:Ethernet3")
    hears(states, "gpu03", "eth1", "leaf-su1-r1:Ethernet3")
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.swapped", "gpu03", "eth0-1")]


def test_two_cables_crossed_between_four_devices_are_one_finding(lab_fabric, lab_policy, states):
    # gpu01:eth0 belongs on leaf-su1-r1:Ethernet1 and gpu02:eth1 on leaf-su1-r2:Ethernet2; a patch
    # panel crossed them.
    hears(states, "gpu01", "eth0", "leaf-su1-r2:Ethernet2")
    hears(states, "gpu02", "eth1", "leaf-su1-r1:Ethernet1")
    hears(states, "leaf-su1-r1", "Ethernet1", "gpu02:eth1")
    hears(states, "leaf-su1-r2", "Ethernet2", "gpu01:eth0")
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.swapped", "gpu01", "eth0")]
    assert found["cabling.swapped", "gpu01", "eth0"].message == (
        "two cables crossed: gpu01:eth0 reaches leaf-su1-r2:Ethernet2 and gpu02:eth1 reaches "
        "leaf-su1-r1:Ethernet1, each the other's planned peer"
    )


@pytest.mark.parametrize("side", ["host", "both", "host silent", "host not collected"])
def test_a_nic_on_a_spare_port_of_another_rail_is_one_wrong_neighbour(lab_fabric, lab_policy, states, side):
    # gpu07:eth1 (rail 2) belongs on leaf-su2-r2:Ethernet3; its cable is in leaf-su2-r1:Ethernet5, a
    # port the plan does not use. Wherever it is seen from, that is one finding on the NIC.
    if side in ("host", "both"):
        hears(states, "gpu07", "eth1", "leaf-su2-r1:Ethernet5")
    if side != "host":
        hears(states, "leaf-su2-r1", "Ethernet5", "gpu07:eth1")
        hears(states, "leaf-su2-r2", "Ethernet3", None)
    if side == "host silent":
        hears(states, "gpu07", "eth1", None)
    if side == "host not collected":
        states["gpu07"] = DeviceState("gpu07", "connectx", collection_error=("unreachable", "refused"))
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.wrong_neighbor", "gpu07", "eth1")]
    (wrong,) = found.values()
    assert wrong.expected == "leaf-su2-r2:Ethernet3"
    if side in ("host", "both"):
        assert wrong.actual == "leaf-su2-r1:Ethernet5"
        assert "(a leaf of rail 1, not rail 2)" in wrong.message
    else:
        assert wrong.actual == "seen by leaf-su2-r1:Ethernet5"


def test_a_leaf_port_hearing_another_server_is_named_on_the_leaf(lab_fabric, lab_policy, states):
    hears(states, "leaf-su1-r2", "Ethernet3", "gpu04:eth1")
    found = cabling(lab_fabric, lab_policy, states)
    assert [(k, f.expected, f.actual) for k, f in found.items()] == [
        (("cabling.wrong_neighbor", "leaf-su1-r2", "Ethernet3"), "gpu03:eth1", "gpu04:eth1")
    ]


def test_a_down_link_is_named_down_and_nothing_else(lab_fabric, lab_policy, states):
    link_down(states, "gpu04", "eth2")
    link_down(states, "leaf-su1-r3", "Ethernet4")
    # A down port whose LLDP still lists another neighbour (a stale entry) is still only down.
    link_down(states, "leaf-su2-r1", "Ethernet2")
    hears(states, "leaf-su2-r1", "Ethernet2", "gpu08:eth0")
    found = cabling(lab_fabric, lab_policy, states)
    assert set(found) == {("link.down", "gpu04", "eth2"), ("link.down", "leaf-su2-r1", "Ethernet2")}
    assert found["link.down", "gpu04", "eth2"].actual == "down on both ends"
    assert found["link.down", "leaf-su2-r1", "Ethernet2"].actual == "down"


def test_the_labs_link_faults_are_named_as_the_lab_plays_them(lab_fabric, lab_policy, states):
    # `link_down` takes both ends of the cable down and silences LLDP; `lldp: {port: ""}` silences the
    # neighbour of a port that stays up.
    faults = cable_faults(
        lab_fabric,
        {"leaf-su1-r3": DeviceFaults(link_down=["Ethernet4"]), "gpu01": DeviceFaults(lldp={"eth3": ""})},
    )
    for name, fault in faults.items():
        states[name] = apply_faults(states[name], fault, lab_fabric.devices[name])
    found = cabling(lab_fabric, lab_policy, states)
    assert {k: f.actual for k, f in found.items()} == {
        ("link.down", "gpu04", "eth2"): "down on both ends",
        ("cabling.no_neighbor", "gpu01", "eth3"): "no neighbour (link up)",
    }


def test_link_state_unknown_is_not_down(lab_fabric, lab_policy, states):
    # Until a platform prints link state, a silent port is a missing neighbour with its state unknown.
    for name in ("gpu04", "leaf-su1-r3"):
        states[name].facets -= {"link"}
        link_down(states, name, "eth2" if name == "gpu04" else "Ethernet4")
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.no_neighbor", "gpu04", "eth2")]
    (silent,) = found.values()
    assert silent.actual == "no neighbour (link state unknown)"
    assert "link state is not known" in silent.message


def test_an_up_port_without_neighbour_says_its_link_is_up(lab_fabric, lab_policy, states):
    hears(states, "gpu05", "eth3", None)
    hears(states, "leaf-su2-r4", "Ethernet1", None)
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.no_neighbor", "gpu05", "eth3")]
    assert found["cabling.no_neighbor", "gpu05", "eth3"].actual == "no neighbour (link up)"


def test_an_unplanned_cable_between_fabric_devices_is_named_once_on_its_lower_end(
    lab_fabric, lab_policy, states
):
    hears(states, "leaf-su1-r1", "Ethernet9", "spine1:Ethernet40")
    hears(states, "spine1", "Ethernet40", "leaf-su1-r1:Ethernet9")
    # The management switch on a spare port is not a fabric device: not a cabling fault.
    hears(states, "leaf-su1-r2", "Ethernet48", "oob-switch1:Gi1/0/7")
    found = cabling(lab_fabric, lab_policy, states)
    assert list(found) == [("cabling.unexpected", "leaf-su1-r1", "Ethernet9")]
    unexpected = found["cabling.unexpected", "leaf-su1-r1", "Ethernet9"]
    assert unexpected.severity == "warning" and unexpected.actual == "spine1:Ethernet40"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_swapped_pair_is_one_finding_from_any_side(lab_fabric, lab_policy, data):
    """For any set of leaves, each with two of its server ports crossed, seen from the servers, the
    leaf or both: exactly one `cabling.swapped` per leaf, naming both ports, and nothing else."""
    states = healthy(lab_fabric, lab_policy)
    leaves = data.draw(
        st.sets(st.sampled_from(sorted(d.name for d in lab_fabric.by_role("leaf"))), min_size=1)
    )
    expected = set()
    for leaf in sorted(leaves):
        hosts = [
            (local, remote)
            for local, _, remote in lab_fabric.links_of(leaf)
            if remote.device.startswith("gpu")
        ]
        (p, x), (q, y) = data.draw(st.permutations(hosts))[:2]
        side = data.draw(st.sampled_from(["hosts", "leaf", "both"]))
        if side != "leaf":
            hears(states, x.device, x.interface, str(q))
            hears(states, y.device, y.interface, str(p))
        if side != "hosts":
            hears(states, leaf, p.interface, str(y))
            hears(states, leaf, q.interface, str(x))
        expected.add(("cabling.swapped", leaf, port_ranges([p.interface, q.interface])))
    assert set(cabling(lab_fabric, lab_policy, states)) == expected
