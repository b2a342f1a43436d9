"""The mixed NVIDIA lab (inventories/lab-nvidia): Cumulus and SONiC leaves, EOS spines, ConnectX hosts,
audited live over SSH through Nornir and netmiko; rendered, checked as configs and remediated per
platform."""

from __future__ import annotations

import json
import subprocess
import sys

from netcfg.cli import main
from tests.conftest import ROOT

LAB_NVIDIA = ROOT / "inventories" / "lab-nvidia"
# Each seeded fault of faults.yaml and every rule it trips; nothing else, on no other device.
SEEDED = {
    # ConnectX: NIC trusts PCP.
    ("gpu01", "link.trust_mismatch"),
    ("gpu01", "qos.trust"),
    # A cabling swap between two servers' NICs of rail 2.
    ("gpu06", "rail.cabling"),
    ("gpu07", "rail.cabling"),
    # Cumulus: one port at MTU 1500.
    ("leaf-su1-r1", "link.mtu_mismatch"),
    ("leaf-su1-r1", "mtu.switch"),
    # Cumulus: ECN thresholds applied but not what the hardware runs.
    ("leaf-su1-r2", "config.not_operational"),
    # SONiC: one PFC port without the watchdog.
    ("leaf-su2-r1", "pfc.watchdog"),
    ("leaf-su2-r1", "rail.qos_consistency"),
    ("leaf-su2-r1", "sonic.pfcwd_coverage"),
    # SONiC: the stock AZURE QoS.
    ("leaf-su2-r3", "cnp.strict_queue"),
    ("leaf-su2-r3", "ecn.thresholds"),
    ("leaf-su2-r3", "link.dscp_mismatch"),
    ("leaf-su2-r3", "link.pfc_mismatch"),
    ("leaf-su2-r3", "pfc.cable_length"),
    ("leaf-su2-r3", "pfc.no_drop_priorities"),
    ("leaf-su2-r3", "pfc.watchdog"),
    ("leaf-su2-r3", "qos.dscp_map"),
    ("leaf-su2-r3", "rail.qos_consistency"),
    ("leaf-su2-r3", "sonic.azure_dscp_map"),
    # EOS: a NOS the policy does not allow.
    ("spine2", "firmware.allowed"),
}


def test_the_demo_of_the_mixed_lab_names_exactly_the_seeded_faults_on_every_run(tmp_path):
    for run in range(2):
        out = tmp_path / f"run{run}"
        done = subprocess.run(
            [sys.executable, "-m", "netcfg", "demo", str(LAB_NVIDIA), "--format", "json", "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 1, done.stderr
        report = json.loads(done.stdout)
        found = {(f["device"], f["rule"]) for f in report["findings"]}
        assert found == SEEDED, f"run {run}: {sorted(found ^ SEEDED)}"
        assert report["summary"]["devices_checked"] == 18
    # The applied-but-not-running ECN names both values; the stock map is named as SONiC names it.
    by_key = {(f["device"], f["rule"]): f for f in report["findings"]}
    assert "applied" in by_key["leaf-su1-r2", "config.not_operational"]["message"]
    assert "AZURE" in by_key["leaf-su2-r3", "sonic.azure_dscp_map"]["actual"]


def test_the_mixed_lab_renders_each_platform_in_its_form_and_its_configs_check_clean(tmp_path, capsys):
    assert main(["render", str(LAB_NVIDIA), "-o", str(tmp_path)]) == 0
    suffixes = {p.stem: p.suffix for p in tmp_path.iterdir()}
    assert (suffixes["leaf-su1-r1"], suffixes["leaf-su2-r1"], suffixes["spine1"], suffixes["gpu01"]) == (
        ".nvue",
        ".json",
        ".cfg",
        ".sh",
    )
    capsys.readouterr()
    assert main(["check", str(LAB_NVIDIA), "--configs", str(tmp_path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_diff_restores_each_platform_in_its_own_form(tmp_path, capsys):
    assert main(["demo", str(LAB_NVIDIA), "--format", "json", "--out", str(tmp_path)]) == 1
    (snapshot,) = (tmp_path / "snapshots" / "lab-nvidia").iterdir()
    capsys.readouterr()
    main(
        [
            "diff",
            str(LAB_NVIDIA),
            "--snapshot",
            str(snapshot),
            "--device",
            "leaf-su1-r1",
            "--device",
            "leaf-su2-r1",
        ]
    )
    out = capsys.readouterr().out
    # Cumulus: the nv set line that puts the port back, then apply.
    assert "nv set interface swp3 link mtu 9214" in out and "nv config apply" in out
    # SONiC: an RFC 6902 patch that adds the missing watchdog entry.
    assert '"path": "/PFC_WD/Ethernet2"' in out and '"op": "add"' in out


def test_lossy_mode_end_to_end_on_the_mixed_lab_names_only_the_switches_that_still_pause(tmp_path):
    import shutil

    inventory = tmp_path / "lab-nvidia-lossy"
    shutil.copytree(LAB_NVIDIA, inventory)
    lossy = (ROOT / "policies" / "roce-lossy.yaml").read_text()
    firmware = (LAB_NVIDIA / "policy.yaml").read_text()
    (inventory / "policy.yaml").write_text(
        lossy[: lossy.index("firmware:")] + firmware[firmware.index("firmware:") :]
    )
    # One Cumulus and one SONiC leaf still pause the RoCE priority.
    (inventory / "faults.yaml").write_text(
        "devices:\n  leaf-su2-r2: {pfc_priority: 3}\n  leaf-su1-r3: {pfc_priority: 3}\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "netcfg",
            "demo",
            str(inventory),
            "--format",
            "json",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 1, done.stderr
    found = {(f["device"], f["rule"]) for f in json.loads(done.stdout)["findings"]}
    assert {d for d, _ in found} == {"leaf-su1-r3", "leaf-su2-r2"}
    assert {r for _, r in found} <= {
        "pfc.enabled",
        "pfc.no_drop_priorities",
        "link.pfc_mismatch",
        "rail.qos_consistency",
    }
    assert ("leaf-su1-r3", "pfc.no_drop_priorities") in found and (
        "leaf-su2-r2",
        "pfc.no_drop_priorities",
    ) in found
