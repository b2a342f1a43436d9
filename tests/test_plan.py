"""Cabling plans: an explicit inventory's cabling CSV checked against the rail-optimised design, and
NetBox cable exports read as NetBox writes them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.sources import intent_states

PLAN = """\
name: plan
rails: 3
devices:
  - {name: leaf-su1-r1, role: leaf, su: 1, rail: 1}
  - {name: leaf-su1-r2, role: leaf, su: 1, rail: 2}
  - {name: leaf-su2-r1, role: leaf, su: 2, rail: 1}
  - {name: spine1, role: spine}
  - name: gpu01
    role: host
    su: 1
    nics:
      - {rail: 1, netdev: eth0, rdma_device: mlx5_0}
      - {rail: 2, netdev: eth1, rdma_device: mlx5_1}
  - name: gpu02
    role: host
    su: 1
    nics:
      - {rail: 1, netdev: eth0, rdma_device: mlx5_0}
      - {rail: 2, netdev: eth1, rdma_device: mlx5_1}
      - {rail: 3, netdev: eth2, rdma_device: mlx5_2}
  - name: gpu03
    role: host
    su: 2
    nics:
      - {rail: 1, netdev: eth0, rdma_device: mlx5_0}
      - {rail: 2, netdev: eth1, rdma_device: mlx5_1}
cabling: cabling.csv
"""
# One fault per row, the line in the comment column (kept out of the CSV itself).
FAULTY = [
    "device_a,interface_a,device_b,interface_b,speed_gbps,cable_m",
    "gpu01,eth0,leaf-su1-r2,Ethernet1,400,3",  # 2: NIC of rail 1 on the rail-2 leaf
    "leaf-su1-r1,Ethernet1,gpu01,eth1,400,3",  # 3: NIC of rail 2 on the rail-1 leaf (leaf first)
    "gpu02,eth0,spine1,Ethernet9,400,3",  # 4: host cabled to a spine
    "gpu02,eth1,gpu01,eth7,400,3",  # 5: host NIC to another host's non-NIC port
    "leaf-su1-r1,Ethernet31,spine1,Ethernet1,400,30",
    "spine1,Ethernet1,leaf-su1-r1,Ethernet31,400,30",  # 7: the row above again, ends swapped
    "leaf-su1-r2,Ethernet31,spine1,Ethernet2,400,30",
    "leaf-su1-r2,Ethernet31,spine1,Ethernet2,400,20",  # 9: again, with another length
    "gpu03,eth0,leaf-su1-r1,Ethernet3,400,3",  # 10: SU-2 server on an SU-1 leaf
    "gpu03,eth1,leaf-su1-r2,Ethernet3,400,3",  # 11: and again (a warning per NIC)
    "leaf-su2-r1,Ethernet31,spine1,Ethernet3,400,30",
    # gpu02:eth2 (rail 3) has no cable; rail 3 has no leaf at all
]
EXPECTED_PLAN = {
    ("plan.rail_mismatch", "error", "gpu01", "eth0", "cabling.csv:2"),
    ("plan.rail_mismatch", "error", "gpu01", "eth1", "cabling.csv:3"),
    ("plan.tier", "error", "gpu02", "eth0", "cabling.csv:4"),
    ("plan.tier", "error", "gpu02", "eth1", "cabling.csv:5"),
    ("plan.host_port", "error", "gpu01", "eth7", "cabling.csv:5"),
    ("plan.duplicate_link", "warning", "leaf-su1-r1", "Ethernet31", "cabling.csv:7"),
    ("plan.duplicate_link", "error", "leaf-su1-r2", "Ethernet31", "cabling.csv:9"),
    ("plan.su_mismatch", "warning", "gpu03", "eth0", "cabling.csv:10"),
    ("plan.su_mismatch", "warning", "gpu03", "eth1", "cabling.csv:11"),
    ("plan.nic_uncabled", "error", "gpu02", "eth2", None),
    ("plan.rail_without_leaf", "error", "(fabric)", None, None),
}
SOUND = [
    "device_a,interface_a,device_b,interface_b,speed_gbps,cable_m",
    "gpu01,eth0,leaf-su1-r1,Ethernet1,400,3",
    "leaf-su1-r2,Ethernet1,gpu01,eth1,400,3",  # either end first
    "gpu02,eth0,leaf-su1-r1,Ethernet2,400,3",
    "gpu02,eth1,leaf-su1-r2,Ethernet2,400,3",
    "gpu02,eth2,leaf-su1-r3,Ethernet2,400,3",
    "gpu03,eth0,leaf-su2-r1,Ethernet1,400,3",
    "gpu03,eth1,leaf-su2-r2,Ethernet1,400,3",
    "leaf-su1-r1,Ethernet31,spine1,Ethernet1,400,30",
    "leaf-su1-r2,Ethernet31,spine1,Ethernet2,400,30",
    "leaf-su1-r3,Ethernet31,spine1,Ethernet3,400,30",
    "leaf-su2-r1,Ethernet31,spine1,Ethernet4,400,30",
    "leaf-su2-r2,Ethernet31,spine1,Ethernet5,400,30",
]
SOUND_PLAN = PLAN.replace(
    "  - {name: spine1, role: spine}\n",
    "  - {name: leaf-su1-r3, role: leaf, su: 1, rail: 3}\n"
    "  - {name: leaf-su2-r2, role: leaf, su: 2, rail: 2}\n"
    "  - {name: spine1, role: spine}\n",
)


def write_plan(folder: Path, rows: list[str], text: str = PLAN) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fabric.yaml").write_text(text, encoding="utf-8")
    (folder / "cabling.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def findings_of(capsys: pytest.CaptureFixture[str], inventory: Path) -> tuple[int, list[dict]]:
    rc = main(["check", str(inventory), "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)["findings"]


def _row(message: str) -> str | None:
    """The cabling CSV row a finding's message names first."""
    match = re.search(r"cabling\.csv:\d+", message)
    return match.group(0) if match else None


def test_each_plan_fault_is_a_plan_finding_first_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    rc, findings = findings_of(capsys, write_plan(tmp_path, FAULTY))
    assert rc == 1
    plan = [f for f in findings if f["rule"].startswith("plan.")]
    got = {(f["rule"], f["severity"], f["device"], f["interface"], _row(f["message"])) for f in plan}
    assert got == EXPECTED_PLAN
    assert len(plan) == len(EXPECTED_PLAN)
    assert findings[: len(plan)] == plan, "plan findings lead the report"
    # Every format points at the CSV row to fix, as the message names it.
    for f in plan:
        where = f"{Path(f['file']).name}:{f['line']}" if f["file"] else None
        assert where == _row(f["message"]), f
    conflict = next(f for f in plan if f["rule"] == "plan.duplicate_link" and f["severity"] == "error")
    assert "disagree on length (30 vs 20 m)" in conflict["message"]


def test_a_sound_explicit_plan_has_no_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    rc, findings = findings_of(capsys, write_plan(tmp_path, SOUND, SOUND_PLAN))
    assert (rc, findings) == (0, [])


def test_the_compact_form_passes_every_plan_rule(lab_fabric, lab_policy):
    findings = run_checks(lab_fabric, lab_policy, intent_states(lab_fabric, lab_policy))
    assert [f for f in findings if f.rule.startswith("plan.")] == []


# --- NetBox cable exports -------------------------------------------------------------------------

EXPLICIT = """\
name: nb
rails: 2
devices:
  - {name: leaf1, role: leaf, su: 1, rail: 1}
  - {name: leaf2, role: leaf, su: 1, rail: 2}
  - name: gpu01
    role: host
    su: 1
    nics:
      - {rail: 1, netdev: eth0, rdma_device: mlx5_0}
      - {rail: 2, netdev: eth1, rdma_device: mlx5_1}
cabling: cabling.csv
cabling_defaults: {speed_gbps: 400}
"""
NETCFG_ROWS = [
    "device_a,interface_a,device_b,interface_b,speed_gbps,cable_m",
    "gpu01,eth0,leaf1,Ethernet1,400,3",
    "gpu01,eth1,leaf2,Ethernet1,400,3.048",
]
# NetBox's CSV format (what its cable import takes and its CSV export writes), as a spreadsheet saved it.
NETBOX_CSV = (
    "\ufeffside_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name,type,status,label,color,length,length_unit\r\n"
    "leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,dac-passive,connected,C-001,,300,cm\r\n"
    "gpu01,dcim.interface,eth1,leaf2,dcim.interface,Ethernet1,dac-passive,planned,C-002,00ff00,10,ft\r\n"
)
# The cable list as NetBox's table export writes it: 4.x ("3 m"), and 3.x ("Side A", "3.00 Meters").
NETBOX_TABLE_4 = (
    "ID,Label,Termination A,Termination B,Device A,Device B,Status,Type,Length\n"
    "11,C-001,eth0,Ethernet1,gpu01,leaf1,Connected,DAC (Passive),3 m\n"
    '12,C-002,Ethernet1,eth1,leaf2,gpu01,Connected,DAC (Passive),"10 ft"\n'
)
NETBOX_TABLE_3 = (
    "ID,Label,Side A,Termination A,Side B,Termination B,Status,Type,Length\n"
    "11,C-001,gpu01,eth0,leaf1,Ethernet1,Connected,DAC (Passive),3.00 Meters\n"
    "12,C-002,leaf2,Ethernet1,gpu01,eth1,Connected,DAC (Passive),10 Feet\n"
)


@pytest.mark.parametrize("export", [NETBOX_CSV, NETBOX_TABLE_4, NETBOX_TABLE_3])
def test_netbox_exports_read_as_they_come(tmp_path: Path, export: str):
    ours = write_plan(tmp_path / "ours", NETCFG_ROWS, EXPLICIT)
    theirs = tmp_path / "netbox"
    theirs.mkdir()
    (theirs / "fabric.yaml").write_text(EXPLICIT, encoding="utf-8")
    (theirs / "cabling.csv").write_bytes(export.encode("utf-8"))
    expected = load_fabric(ours).links
    got = load_fabric(theirs).links
    assert [(link.a, link.b, link.speed_gbps) for link in got] == [
        (link.a, link.b, link.speed_gbps) for link in expected
    ]
    assert [link.cable_m for link in got] == pytest.approx([link.cable_m for link in expected])


@pytest.mark.parametrize(
    ("row", "needles"),
    [
        (
            "leaf1,dcim.frontport,Front1,gpu01,dcim.interface,eth0,,,,,3,m",
            ["side_a_type", "'dcim.frontport'", "dcim.interface"],
        ),
        (
            'leaf1,dcim.interface,"Ethernet1,Ethernet2",gpu01,dcim.interface,eth0,,,,,3,m',
            ["interface_a", "several terminations"],
        ),
        ("leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,,,,,3,", ["length_unit", "missing"]),
        (
            "leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,,,,,3,parsecs",
            ["length_unit", "'parsecs'", "Meters"],
        ),
        ("leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,,,,,3 m,ft", ["length", "disagree"]),
        ("leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,,,,,0,m", ["length", "above 0"]),
        (
            "leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,,,,,20,km",
            ["length", "at most 10,000 m"],
        ),
        ("leaf1,dcim.interface,Ethernet1,gpu01,dcim.interface,eth0,,,,,,", ["cable_m", "missing value"]),
    ],
)
def test_netbox_rows_netcfg_cannot_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, needles: list[str]
):
    header = NETBOX_CSV.splitlines()[0].lstrip("\ufeff")
    inventory = write_plan(tmp_path, [header, row], EXPLICIT)
    assert main(["check", str(inventory)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cabling.csv:2: " in err
    for needle in needles:
        assert needle in err


def test_netbox_export_without_speed_needs_a_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_plan(
        tmp_path, NETBOX_TABLE_4.splitlines(), EXPLICIT.replace("cabling_defaults: {speed_gbps: 400}\n", "")
    )
    assert main(["check", str(inventory)]) == 2
    err = capsys.readouterr().err
    assert "cabling.csv:1: no speed_gbps column" in err and "cabling_defaults.speed_gbps" in err


def test_netbox_export_without_lengths_uses_the_default(tmp_path: Path):
    rows = [
        "ID,Label,Termination A,Termination B,Device A,Device B,Status,Type,Length",
        "11,C-001,eth0,Ethernet1,gpu01,leaf1,Connected,DAC (Passive),",
        "12,C-002,Ethernet1,eth1,leaf2,gpu01,Connected,DAC (Passive),\u2014",  # NetBox's dash: no length
    ]
    text = EXPLICIT.replace("{speed_gbps: 400}", "{speed_gbps: 400, cable_m: 5}")
    assert [link.cable_m for link in load_fabric(write_plan(tmp_path, rows, text)).links] == [5, 5]
