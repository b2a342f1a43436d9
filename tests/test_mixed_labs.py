"""The mixed labs, audited live over SSH through Nornir and netmiko, rendered, checked as configs and
remediated per platform: inventories/lab-nvidia (Cumulus and SONiC leaves, EOS spines, ConnectX hosts)
and inventories/lab-multi (EOS, Cumulus, SONiC and NX-OS leaves, Junos and EOS spines, ConnectX and
Thor hosts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netcfg.cli import main
from tests.conftest import ROOT
from tests.demo_run import demo_report, device_rules
from tests.live_lab import drain_list

LAB_NVIDIA = ROOT / "inventories" / "lab-nvidia"
LAB_MULTI = ROOT / "inventories" / "lab-multi"
# Each seeded fault of each lab's faults.yaml and every rule it trips; nothing else, on no other device.
SEEDED_NVIDIA = {
    # ConnectX: NIC trusts PCP.
    ("gpu01", "link.trust_mismatch"),
    ("gpu01", "qos.trust"),
    # A cabling swap between two servers' NICs of rail 2: one finding, on the leaf whose two ports
    # hold each other's cables.
    ("leaf-su2-r2", "cabling.swapped"),
    # Cumulus: one port at MTU 1500.
    ("leaf-su1-r1", "link.mtu_mismatch"),
    ("leaf-su1-r1", "mtu.switch"),
    # Cumulus: ECN thresholds applied but not what the hardware runs.
    ("leaf-su1-r2", "config.not_operational"),
    # SONiC: one PFC port without the watchdog.
    ("leaf-su2-r1", "pfc.watchdog"),
    ("leaf-su2-r1", "rail.qos_consistency"),
    ("leaf-su2-r1", "sonic.pfcwd_coverage"),
    # SONiC: the stock AZURE QoS (RoCE rides TC 1 and queue 1, which marks no ECN).
    ("leaf-su2-r3", "cnp.strict_queue"),
    ("leaf-su2-r3", "ecn.enabled"),
    ("leaf-su2-r3", "link.dscp_mismatch"),
    ("leaf-su2-r3", "link.pfc_mismatch"),
    ("leaf-su2-r3", "lossless.path"),
    ("leaf-su2-r3", "pfc.cable_length"),
    ("leaf-su2-r3", "pfc.no_drop_priorities"),
    ("leaf-su2-r3", "pfc.watchdog"),
    ("leaf-su2-r3", "qos.dscp_map"),
    ("leaf-su2-r3", "rail.qos_consistency"),
    ("leaf-su2-r3", "sonic.azure_dscp_map"),
    # EOS: a NOS the policy does not allow.
    ("spine2", "firmware.allowed"),
}


SEEDED_MULTI = {
    # Thor: Broadcom's defaults, CNPs on priority 7 in a priority-6 fabric (and its TOS's ECN bits).
    ("(fabric)", "host.cnp_agreement"),
    ("gpu06", "host.roce"),
    ("gpu06", "qos.dscp_map"),
    # ConnectX: NIC trusts PCP.
    ("gpu02", "link.trust_mismatch"),
    ("gpu02", "qos.trust"),
    # SONiC: one PFC port without the watchdog.
    ("leaf-su1-r3", "pfc.watchdog"),
    ("leaf-su1-r3", "rail.qos_consistency"),
    ("leaf-su1-r3", "sonic.pfcwd_coverage"),
    # NX-OS: the RoCE qos-group's network-qos class pauses CoS 4 (and its ports pause 4: said once,
    # by qos.dscp_map).
    ("leaf-su1-r4", "link.pfc_mismatch"),
    ("leaf-su1-r4", "lossless.path"),
    ("leaf-su1-r4", "qos.dscp_map"),
    ("leaf-su1-r4", "rail.qos_consistency"),
    # EOS: ECN off on the lossless queue.
    ("leaf-su2-r1", "ecn.enabled"),
    ("leaf-su2-r1", "rail.qos_consistency"),
    # Cumulus: ECN applied but not running.
    ("leaf-su2-r2", "config.not_operational"),
    # NX-OS: one port at MTU 1500.
    ("leaf-su2-r4", "link.mtu_mismatch"),
    ("leaf-su2-r4", "mtu.switch"),
    # Junos: the classifier misses DSCP 26.
    ("spine1", "link.dscp_mismatch"),
    ("spine1", "qos.dscp_map"),
    # EOS: a spine without the PFC watchdog.
    ("spine2", "pfc.watchdog"),
    # Health, one fault per platform, judged by the nightly audit against the go-live one (a cable's
    # speed and flaps show on both of its ends, whatever their platforms).
    ("leaf-su1-r2", "pfc.pause_storm"),  # Cumulus
    ("leaf-su1-r2", "pfc.watchdog_storms"),
    ("leaf-su2-r3", "link.fec_uncorrected"),  # SONiC
    ("leaf-su2-r3", "link.fec_corrected"),
    ("leaf-su2-r4", "link.degraded"),  # NX-OS, and its Thor end
    ("gpu07", "link.degraded"),
    ("spine1", "link.flapping"),  # Junos, and its SONiC end
    ("leaf-su1-r3", "link.flapping"),
    ("gpu08", "host.pcie_degraded"),  # Thor
    ("gpu03", "host.cnp_loop"),  # ConnectX
}
LABS = {"lab-nvidia": (LAB_NVIDIA, SEEDED_NVIDIA), "lab-multi": (LAB_MULTI, SEEDED_MULTI)}
# The demo's drain list: the hosts with faults of their own (NIC settings, their own cable at either
# end), and those only behind a switch-wide fault (a leaf's QoS on every port, a spine, a leaf whose
# hardware does not run its config), named as impacted.
DRAIN = {
    "lab-nvidia": (["gpu01", "gpu03", "gpu06", "gpu07"], ["gpu02", "gpu04", "gpu05", "gpu08"]),
    "lab-multi": (["gpu02", "gpu03", "gpu06", "gpu07", "gpu08"], ["gpu01", "gpu04", "gpu05"]),
}


@pytest.mark.parametrize("lab", sorted(LABS))
def test_the_demo_of_a_mixed_lab_names_exactly_the_seeded_faults_on_every_run(tmp_path, lab):
    inventory, seeded = LABS[lab]
    for run in range(2):
        out = tmp_path / f"run{run}"
        report = demo_report(inventory, out)
        found = device_rules(report)
        assert found == seeded, f"run {run}: {sorted(found ^ seeded)}"
        assert report["summary"]["devices_checked"] == 18
        assert drain_list(out / "drain-list.sh") == DRAIN[lab]
    # The applied-but-not-running ECN names both values.
    by_key = {(f["device"], f["rule"]): f for f in report["findings"]}
    cumulus = next(d for d, r in seeded if r == "config.not_operational")
    assert "applied" in by_key[cumulus, "config.not_operational"]["message"]


def test_the_stock_sonic_map_is_named_as_sonic_names_it(tmp_path, capsys):
    assert main(["demo", str(LAB_NVIDIA), "--format", "json", "--out", str(tmp_path)]) == 1
    by_key = {(f["device"], f["rule"]): f for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "AZURE" in by_key["leaf-su2-r3", "sonic.azure_dscp_map"]["actual"]


@pytest.mark.parametrize(
    ("lab", "forms"),
    [
        ("lab-nvidia", {"leaf-su1-r1": ".nvue", "leaf-su2-r1": ".json", "spine1": ".cfg", "gpu01": ".sh"}),
        (
            "lab-multi",
            {"leaf-su1-r1": ".cfg", "leaf-su1-r2": ".nvue", "leaf-su1-r3": ".json", "leaf-su1-r4": ".cfg"}
            | {"spine1": ".set", "gpu01": ".sh", "gpu05": ".sh"},
        ),
    ],
)
def test_a_mixed_lab_renders_each_platform_in_its_form_and_its_configs_check_clean(
    tmp_path, capsys, lab, forms
):
    inventory, _ = LABS[lab]
    assert main(["render", str(inventory), "-o", str(tmp_path)]) == 0
    suffixes = {p.stem: p.suffix for p in tmp_path.iterdir()}
    assert {name: suffixes[name] for name in forms} == forms
    capsys.readouterr()
    assert main(["check", str(inventory), "--configs", str(tmp_path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_diff_restores_each_platform_in_its_own_form(tmp_path, capsys):
    assert main(["demo", str(LAB_NVIDIA), "--format", "json", "--out", str(tmp_path)]) == 1
    snapshot = newest_snapshot(tmp_path / "snapshots" / "lab-nvidia")
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


def test_diff_restores_nxos_and_junos_with_their_own_commands(tmp_path, capsys):
    assert main(["demo", str(LAB_MULTI), "--format", "json", "--out", str(tmp_path)]) == 1
    snapshot = newest_snapshot(tmp_path / "snapshots" / "lab-multi")
    capsys.readouterr()
    main(
        ["diff", str(LAB_MULTI), "--snapshot", str(snapshot), "--device", "leaf-su1-r4", "--device", "spine1"]
    )
    out = capsys.readouterr().out
    # NX-OS: the network-qos class pauses CoS 3 again, and nothing else changes.
    assert "no pause pfc-cos 4" in out and "pause pfc-cos 3" in out
    # Junos: DSCP 26 (011010) back in the classifier of the no-loss class.
    classifier = "set class-of-service classifiers dscp ROCE-DSCP forwarding-class NO-LOSS"
    assert f"{classifier} loss-priority low code-points 011010" in out


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
    found = {(f["device"], f["rule"]) for f in demo_report(inventory, tmp_path / "o")["findings"]}
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


def newest_snapshot(root: Path) -> Path:
    """The nightly audit's snapshot of a demo (the first one is its go-live baseline)."""
    first, second = sorted(p for p in root.iterdir() if p.is_dir())
    assert json.loads((root / "baseline.json").read_text())["snapshot"] == first.name
    return second
