"""A live audit of the lab with SONiC switches, through Nornir and netmiko over real SSH (no mocked
connections): it names exactly the seeded faults, each with the rules that must see it."""

from __future__ import annotations

import shutil

import pytest

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.nornir_inventory import Login
from netcfg.policy import load_policy
from netcfg.resources import data_path
from netcfg.sources import snapshot_states
from tests.conftest import LAB
from tests.live_lab import live_audit

PASSWORD = "s0nic-Lab-pass"
LOGIN = Login("admin", PASSWORD)
RAIL = {"rail.qos_consistency"}
# Each fault on its own device, and every rule that must name that device (and no other rule).
FAULTS = {
    # SONiC stock AZURE map on one leaf: DSCP 26 in lossy TC1, PFC on 3 and 4, AZURE_LOSSLESS ECN,
    # no strict CNP queue, stock watchdog timers and cable lengths.
    "leaf-su1-r1": (
        DeviceFaults(factory_qos=True),
        {
            "sonic.azure_dscp_map",
            "qos.dscp_map",
            "pfc.no_drop_priorities",
            "ecn.thresholds",
            "cnp.strict_queue",
            "pfc.watchdog",
            "pfc.cable_length",
            "link.dscp_mismatch",
            "link.pfc_mismatch",
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
    "leaf-su1-r3": (DeviceFaults(pfc_priority=4), {"pfc.no_drop_priorities", "link.pfc_mismatch"}),
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
        "show_runningconfiguration_all",
        "show_version",
        "show_lldp_table",
        "pfcwd_show_config",
        "show_interfaces_status",
    }
    assert {name: c.state for name, c in audit.collected.items()} == snapshot_states(fabric, audit.snapshot)
