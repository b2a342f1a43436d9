"""A live audit of the lab with Thor2 servers: collected over real SSH (Nornir + netmiko) from the
in-process lab on 127.0.0.1, and named exactly the faults seeded into it."""

from __future__ import annotations

import json

import pytest
import yaml

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.nornir_inventory import Login
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.policy import load_policy
from netcfg.snapshot import read_device_file
from netcfg.sources import snapshot_states
from tests.conftest import LAB
from tests.live_lab import live_audit

PASSWORD = "thor-Lab-pass-7"
LOGIN = Login("auditor", PASSWORD)
# Each fault on its own device, with every finding it must give there (and nothing else).
FAULTS = {
    "gpu01": (DeviceFaults(trust="pcp"), {"qos.trust", "link.trust_mismatch"}),
    "gpu02": (DeviceFaults(firmware="231.0.154.0"), {"firmware.rail_skew"}),
    "gpu03": (DeviceFaults(lldp={"eth1": "leaf-su1-r1:Ethernet9"}), {"cabling.wrong_neighbor"}),
    "gpu04": (DeviceFaults(transport="unreachable"), {"collect.unreachable"}),
    # Broadcom's defaults: CNP priority 7 (and DSCP 48 on 7) in a priority-6 fabric, TOS with ECT(1).
    "gpu05": (DeviceFaults(factory_qos=True), {"host.roce", "qos.dscp_map"}),
    "gpu06": (DeviceFaults(ecn=False), {"host.roce"}),
    "gpu07": (DeviceFaults(mtu={"eth2": 1500}), {"mtu.host"}),
    "leaf-su1-r3": (
        DeviceFaults(pfc_priority=4),
        {"pfc.no_drop_priorities", "link.pfc_mismatch", "rail.qos_consistency", "lossless.path"},
    ),
}


@pytest.fixture(scope="module")
def thor_lab(tmp_path_factory):
    """The bundled lab's inventory, its servers on Thor NICs, written where the test runs."""
    spec = yaml.safe_load((LAB / "fabric.yaml").read_text(encoding="utf-8"))
    spec["name"] = "lab-thor"
    spec["platforms"] = {"switch": "eos", "host": "thor"}
    spec["topology"]["names"]["rdma_device"] = "bnxt_re{nic0}"
    folder = tmp_path_factory.mktemp("inventory")
    (folder / "fabric.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    fabric = load_fabric(folder)
    return fabric, load_policy(fabric.policy_ref)


@pytest.fixture(scope="module")
def audit(thor_lab, tmp_path_factory):
    fabric, policy = thor_lab
    faults = {name: f for name, (f, _) in FAULTS.items()}
    return live_audit(fabric, policy, faults, LOGIN, tmp_path_factory, timeout_s=3.0)


def test_the_audit_names_exactly_the_seeded_faults(audit):
    found: dict[str, set[str]] = {}
    for f in audit.findings:
        if f.device != "(fabric)":
            found.setdefault(f.device, set()).add(f.rule)
    assert found == {device: rules for device, (_, rules) in FAULTS.items()}
    # A fabric-wide finding names its hosts in its message: only the host on Broadcom's CNP priority.
    assert all(
        "gpu05" in f.message and "gpu0" not in f.message.replace("gpu05", "") for f in fabric_wide(audit)
    )


def fabric_wide(audit) -> list:
    return [f for f in audit.findings if f.device == "(fabric)"]


def test_the_thor_host_on_broadcoms_defaults_is_named_for_its_cnp_priority(audit):
    cnp = {(f.interface, f.expected, f.actual) for f in audit.findings if f.device == "gpu05"}
    assert ("eth0-3", "6", "7") in cnp


def test_hosts_were_collected_whole_and_parse_again_the_same(thor_lab, audit):
    fabric, _ = thor_lab
    assert {name: c.state for name, c in audit.collected.items()} == snapshot_states(fabric, audit.snapshot)
    # Four NICs x (get_qos, configfs dump, ethtool -i, GID table, ethtool, ethtool -S, PCIe and
    # hw_counters) + LLDP, each a line of the device's one file.
    assert len(read_device_file(audit.snapshot / "gpu08.jsonl")) == 29
    meta = json.loads((audit.snapshot / "meta.json").read_text())
    thor = get_platform("thor")
    for name in ("gpu01", "gpu08"):
        assert meta["devices"][name]["platform"] == "thor"
        assert all(is_read_only(thor, cli) for cli in meta["devices"][name]["commands"])
    state = audit.collected["gpu08"].state
    assert state.interfaces["eth0"].driver == "bnxt_en"
    assert state.interfaces["eth0"].cnp_priority == 6


def test_no_secret_in_the_snapshot_or_reports(audit):
    files = [p for p in audit.snapshot.rglob("*") if p.is_file()] + list(audit.reports.values())
    assert files
    for path in files:
        assert PASSWORD not in path.read_text(errors="replace"), path
