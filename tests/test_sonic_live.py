"""A live audit of the lab with SONiC switches, through Nornir and netmiko over real SSH (no mocked
connections): it names exactly the seeded faults, each with the rules that must see it."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import with_counters
from netcfg.lab.snapshot import simulated_devices
from netcfg.model import PortCounters
from netcfg.nornir_inventory import Login
from netcfg.platforms import get_platform
from netcfg.policy import load_policy
from netcfg.resources import data_path
from netcfg.sources import snapshot_states
from tests.conftest import LAB
from tests.live_lab import live_audit
from tests.test_sonic_counters import shown

PASSWORD = "s0nic-Lab-pass"
LOGIN = Login("admin", PASSWORD)
RAIL = {"rail.qos_consistency"}
# Each fault on its own device, and every rule that must name that device (and no other rule).
FAULTS = {
    # SONiC stock AZURE map on one leaf: DSCP 26 in lossy TC1 (whose queue 1 marks no ECN and
    # priority 1 pauses nothing), PFC on 3 and 4, no strict CNP queue, stock watchdog timers and
    # cable lengths.
    "leaf-su1-r1": (
        DeviceFaults(factory_qos=True),
        {
            "sonic.azure_dscp_map",
            "qos.dscp_map",
            "pfc.no_drop_priorities",
            "ecn.enabled",
            "cnp.strict_queue",
            "pfc.watchdog",
            "pfc.cable_length",
            "link.dscp_mismatch",
            "link.pfc_mismatch",
            "lossless.path",
            *RAIL,
        },
    ),
    # SONiC watchdog missing on a port.
    "leaf-su2-r1": (
        DeviceFaults(watchdog_off=["Ethernet4"]),
        {"pfc.watchdog", "sonic.pfcwd_coverage", *RAIL},
    ),
    "leaf-su1-r2": (DeviceFaults(mtu={"Ethernet2": 1500}), {"mtu.switch", "link.mtu_mismatch"}),
    "leaf-su2-r2": (DeviceFaults(lldp={"Ethernet1": "gpu07:eth0"}), {"cabling.wrong_neighbor"}),
    # Its rail peer leaf-su2-r3 cannot be read, so there is no rail to be inconsistent with.
    "leaf-su1-r3": (
        DeviceFaults(pfc_priority=4),
        {"pfc.no_drop_priorities", "link.pfc_mismatch", "lossless.path"},
    ),
    "leaf-su2-r3": (DeviceFaults(transport="truncate"), {"parse.unknown_output"}),
    "spine2": (DeviceFaults(os_version="201911.7-a1b2c3d4"), {"firmware.allowed"}),
}


@pytest.fixture(scope="module")
def sonic_lab(tmp_path_factory):
    """An all-SONiC-switch copy of the bundled lab, with a policy that names allowed SONiC versions."""
    folder = tmp_path_factory.mktemp("lab-sonic")
    text = (LAB / "fabric.yaml").read_text()
    assert text.count("platforms: {switch: eos, host: connectx}") == 1
    (folder / "fabric.yaml").write_text(
        text.replace(
            "platforms: {switch: eos, host: connectx}", "platforms: {switch: sonic, host: connectx}"
        ).replace("policy: roce-lossless", "policy: policy.yaml")
    )
    shutil.copy(data_path("policies") / "roce-lossless.yaml", folder / "policy.yaml")
    with (folder / "policy.yaml").open("a") as policy:
        policy.write("  sonic:\n    allowed: [202311.4-0d2e1f3a, 202405.12-3f2b1a9c]\n")
    fabric = load_fabric(folder)
    return fabric, load_policy(fabric.policy_ref, folder)


@pytest.fixture(scope="module")
def audit(sonic_lab, tmp_path_factory):
    fabric, policy = sonic_lab
    faults = {name: fault for name, (fault, _) in FAULTS.items()}
    return live_audit(fabric, policy, faults, LOGIN, tmp_path_factory, timeout_s=3.0)


def test_the_audit_names_exactly_the_seeded_faults(audit):
    found: dict[str, set[str]] = {}
    for finding in audit.findings:
        found.setdefault(finding.device, set()).add(finding.rule)
    assert found == {device: rules for device, (_, rules) in FAULTS.items()}


def test_the_stock_leaf_is_named_by_its_azure_map(audit):
    (finding,) = [f for f in audit.findings if f.rule == "sonic.azure_dscp_map"]
    assert finding.device == "leaf-su1-r1" and "DSCP_TO_TC_MAP|AZURE" in finding.message
    cables = {f.interface: f.actual for f in audit.findings if f.rule == "pfc.cable_length"}
    assert cables == {
        "Ethernet1-4": "5 m (the platform default)",
        "Ethernet31-32": "5 m (the platform default)",
    }


def test_every_switch_was_collected_with_one_batch_and_snapshots_read_the_same(sonic_lab, audit):
    fabric, _ = sonic_lab
    collected = audit.collected["leaf-su1-r2"]
    assert collected.error is None
    assert set(collected.outputs) == {
        c.file for c in get_platform("sonic").commands(fabric.devices["leaf-su1-r2"])
    }
    assert {name: c.state for name, c in audit.collected.items()} == snapshot_states(fabric, audit.snapshot)


# --- link state and counters over SSH ------------------------------------------------------------

LINK_FAULTS = {
    "leaf-su1-r2": DeviceFaults(speed_gbps={"Ethernet3": 200}),
    "leaf-su1-r3": DeviceFaults(link_down=["Ethernet4"]),
    "leaf-su2-r3": DeviceFaults(pause_storm=["Ethernet1"], fec_errors=["Ethernet2"]),
}


@pytest.fixture(scope="module")
def link_audit(sonic_lab, tmp_path_factory):
    fabric, policy = sonic_lab
    return live_audit(fabric, policy, LINK_FAULTS, LOGIN, tmp_path_factory, timeout_s=3.0)


def close(collected: PortCounters, played: PortCounters) -> bool:
    """The same counters, read a moment apart: counts that grow with time may differ by a few
    seconds' worth (the lab and netcfg each take their own clock)."""
    for field in dataclasses.fields(PortCounters):
        a, b = getattr(collected, field.name), getattr(played, field.name)
        if isinstance(a, dict):
            if a.keys() != b.keys() or not all(_near(a[k], b[k]) for k in a):
                return False
        elif not (a == b or (isinstance(a, int) and isinstance(b, int) and _near(a, b))):
            return False
    return True


def _near(a: int, b: int) -> bool:
    return abs(a - b) <= max(2, b * 1e-6)


def test_collected_link_state_and_counters_are_the_labs_with_its_faults(sonic_lab, link_audit):
    fabric, policy = sonic_lab
    simulated = simulated_devices(fabric, policy, LINK_FAULTS)
    switches = [n for n, d in fabric.devices.items() if d.is_switch]
    for name in switches:
        collected = link_audit.collected[name]
        assert collected.error is None and collected.state.unparsed == {}, name
        assert {"link", "counters"} <= collected.state.facets
        sim = simulated[name]
        played = with_counters(sim.state, sim.rates, sim.roce_queue, collected.read_at, reads=0)
        assert collected.state.interfaces == shown(played).interfaces, name
        assert collected.state.counters.keys() == played.counters.keys(), name
        for port, counters in collected.state.counters.items():
            assert close(counters, played.counters[port]), (name, port, counters, played.counters[port])
    states = {n: link_audit.collected[n].state for n in switches}
    # The seeded faults, as the parsed snapshot shows them (and on the cable's other end).
    assert states["leaf-su1-r2"].interfaces["Ethernet3"].speed_gbps == 200
    assert states["leaf-su1-r3"].interfaces["Ethernet4"].oper_up is False
    assert "Ethernet4" not in states["leaf-su1-r3"].counters
    storm = states["leaf-su2-r3"].counters["Ethernet1"]
    assert (
        storm.stormed == frozenset({3})
        and storm.pause_rx[3] > 1000 * states["leaf-su2-r3"].counters["Ethernet3"].pause_rx[3]
    )
    fec = states["leaf-su2-r3"].counters["Ethernet2"]
    assert fec.fec_uncorrected > 0 == states["leaf-su2-r3"].counters["Ethernet3"].fec_uncorrected
