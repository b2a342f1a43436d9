"""An all-Cumulus copy of the lab audited live: Nornir and netmiko's cumulus_linux driver over real SSH to
the in-process lab, which plays NVUE switches (prompt, every collected command, applied and operational
values, faults). No mocked connections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netcfg.audit import run_audit
from netcfg.cli import main
from netcfg.collect import CollectOptions, send
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.nornir_inventory import Login, read_connections
from netcfg.policy import load_policy
from netcfg.sources import snapshot_states
from tests.conftest import ROOT
from tests.live_lab import cli_session

PASSWORD = "s3cret-Cumulus-pass"
LOGIN = Login("auditor", PASSWORD)
FAULTS = {
    "leaf-su1-r1": (DeviceFaults(mtu={"swp2": 1500}), "mtu.switch"),
    "leaf-su1-r2": (DeviceFaults(dscp_map={26: 1}), "qos.dscp_map"),
    "leaf-su1-r3": (DeviceFaults(pfc_priority=4), "pfc.no_drop_priorities"),
    "leaf-su1-r4": (DeviceFaults(not_operational=["ecn"]), "config.not_operational"),
    "leaf-su2-r1": (DeviceFaults(transport="garble"), "parse.unknown_output"),
    "leaf-su2-r2": (DeviceFaults(ecn=False), "ecn.enabled"),
    "leaf-su2-r3": (DeviceFaults(factory_qos=True), "qos.trust"),
    "leaf-su2-r4": (DeviceFaults(transport="truncate"), "parse.unknown_output"),
    "spine1": (DeviceFaults(os_version="5.4.0"), "firmware.allowed"),
    "spine2": (DeviceFaults(watchdog_off=["swp3"]), "pfc.watchdog"),
    "gpu02": (DeviceFaults(transport="silent"), "collect.timeout"),
    "gpu03": (DeviceFaults(lldp={"eth1": "leaf-su1-r1:swp9"}), "cabling.wrong_neighbor"),
    "gpu04": (DeviceFaults(transport="unreachable"), "collect.unreachable"),
}
HEALTHY = {"gpu01", "gpu05", "gpu06", "gpu07", "gpu08"}


def write_inventory(folder: Path) -> Path:
    """inventories/lab/fabric.yaml with Cumulus switches (ports named swp as Cumulus names them), and a
    policy NVUE can run: its PFC watchdog restores after one polling interval."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "inventories" / "lab" / "fabric.yaml").read_text()
    text = text.replace(
        "platforms: {switch: eos, host: connectx}", "platforms: {switch: cumulus, host: connectx}"
    )
    text = text.replace('"Ethernet{port}"', '"swp{port}"').replace(
        "policy: roce-lossless", "policy: policy.yaml"
    )
    assert "cumulus" in text and "Ethernet" not in text
    (folder / "fabric.yaml").write_text(text)
    (folder / "policy.yaml").write_text(
        (ROOT / "tests" / "fixtures" / "cumulus" / "lab" / "policy.yaml").read_text()
    )
    return folder


@pytest.fixture(scope="module")
def inventory(tmp_path_factory):
    return write_inventory(tmp_path_factory.mktemp("cumulus-lab"))


@pytest.fixture(scope="module")
def fabric(inventory):
    return load_fabric(inventory)


@pytest.fixture(scope="module")
def lab(fabric, inventory, tmp_path_factory):
    policy = load_policy(fabric.policy_ref, inventory)
    faults = {name: f for name, (f, _) in FAULTS.items()}
    with lab_server(fabric, policy, faults, LOGIN.username, PASSWORD) as server:
        connections, known_hosts = write_connection_files(server, tmp_path_factory.mktemp("state"))
        yield read_connections(connections), known_hosts


@pytest.fixture(scope="module")
def audit(fabric, inventory, lab, tmp_path_factory):
    connections, known_hosts = lab
    out = tmp_path_factory.mktemp("audit")
    opts = CollectOptions(workers=20, timeout_s=2.0, known_hosts=known_hosts)
    policy = load_policy(fabric.policy_ref, inventory)
    return run_audit(fabric, policy, LOGIN, out / "snapshots", out / "reports", opts, connections=connections)


def test_the_audit_names_exactly_the_seeded_faults(audit):
    found = {(f.device, f.rule) for f in audit.findings}
    for device, (_, rule) in FAULTS.items():
        assert (device, rule) in found, (
            f"{device}: expected {rule}, got {sorted(r for d, r in found if d == device)}"
        )
    assert {f.device for f in audit.findings} == set(FAULTS)
    assert not {f.device for f in audit.findings} & HEALTHY


def test_applied_but_not_running_is_one_finding_that_says_both(audit):
    (finding,) = [f for f in audit.findings if f.device == "leaf-su1-r4"]
    assert finding.rule == "config.not_operational"
    assert "enabled-tc applied 0,3, runs 0" in finding.message


def test_broken_output_is_one_unknown_per_device_and_no_guess(audit):
    for name in ("leaf-su2-r1", "leaf-su2-r4"):
        assert {f.rule for f in audit.findings if f.device == name} == {"parse.unknown_output"}, name


def test_states_parsed_during_collection_equal_the_saved_snapshot_parsed_again(fabric, audit):
    assert {n: c.state for n, c in audit.collected.items()} == snapshot_states(fabric, audit.snapshot)
    leaf = audit.collected["leaf-su1-r2"]
    assert set(leaf.outputs) == {
        "nv_show_system",
        "nv_config_show_commands",
        "nv_show_qos_roce",
        "nv_show_interface_json",
        "lldpcli_show_neighbors",
        "nv_show_interface_counters_qos_json",
        "nv_show_interface_counters_errors",
        "nv_show_interface_qos_roce_counters",
        "nv_show_interface_qos_pfc_watchdog",
        "nv_show_interface_link_phy_health",
    }
    assert leaf.state is not None and leaf.state.os_version == "5.16.0"
    assert audit.collected["spine1"].state.os_version == "5.4.0"  # the flat `nv show system` of 5.4


def test_nothing_secret_reaches_the_snapshot_or_reports(audit):
    files = [p for p in audit.snapshot.rglob("*") if p.is_file()] + list(audit.reports.values())
    assert files
    for path in files:
        assert PASSWORD not in path.read_text(errors="replace"), path


def test_the_lab_plays_nvue_and_refuses_what_is_not_read_only(lab):
    connections, _ = lab
    with cli_session("cumulus_linux", connections["leaf-su1-r1"]["port"], LOGIN) as conn:
        assert conn.base_prompt == "auditor@leaf-su1-r1:mgmt:~"
        assert "nv set qos roce mode lossless" in send(conn, "nv config show -o commands", 5)
        assert "command not found" in send(conn, "nv set qos roce mode lossy", 5)
        assert "command not found" in send(conn, "nv config apply", 5)


def test_diff_gives_the_nv_lines_that_restore_intent(inventory, audit, capsys):
    assert main(["diff", str(inventory), "--snapshot", str(audit.snapshot)]) == 1
    out = capsys.readouterr().out
    assert "nv unset qos pfc default-global switch-priority 4" in out  # leaf-su1-r3
    assert "nv set interface swp2 link mtu 9214" in out  # leaf-su1-r1
    assert "nv set qos roce mode lossless" in out  # leaf-su2-r3, stock QoS
    assert out.count("nv config apply") >= 5


def test_reports_carry_the_audit(audit):
    data = json.loads(audit.reports["json"].read_text())
    assert data["summary"]["devices_checked"] == 18
