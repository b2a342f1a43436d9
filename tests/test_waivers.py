"""Waivers: a file beside the inventory turns the findings it matches into info until it expires,
for every rule and every command that reports; bad waiver files are one line, exit 2."""

from __future__ import annotations

import json
import shutil
from datetime import date

import pytest

from netcfg.cli import main
from tests.conftest import LAB

DRIFTED = LAB / "examples" / "drifted"
TODAY = date(2026, 12, 1)

WAIVERS = """\
# yaml-language-server: $schema=waivers.schema.json
waivers:
  - device: leaf-su1-r1
    rule: mtu.switch
    interface: Ethernet2
    owner: netops
    reason: "RMA 4411: optic swap on Friday"
    expires: 2026-12-01
  - device: "leaf-su2-*"
    rule: "ecn.*"
    owner: qos-team
    reason: ECN rollout paused
    expires: "2026-11-30"
  - device: leaf-su1-r3
    rule: pfc.no_drop_priorities
    interface: "Ethernet3[12]"
    owner: netops
    reason: spine uplinks move to priority 3 in change 88
    expires: 2027-01-15
  - device: "gpu0*"
    rule: "cabling.*"
    owner: dc-ops
    reason: bring-up of SU 2
    expires: 2027-01-15
"""


@pytest.fixture
def inventory(tmp_path, monkeypatch):
    """A copy of the lab inventory with a waivers.yaml beside it, judged on TODAY."""
    folder = tmp_path / "lab"
    folder.mkdir()
    shutil.copy(LAB / "fabric.yaml", folder / "fabric.yaml")
    (folder / "waivers.yaml").write_text(WAIVERS)
    monkeypatch.setattr("netcfg.waivers.today", lambda: TODAY)
    return folder


def check(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", *args, "--snapshot", str(DRIFTED), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_waivers_beside_the_inventory_turn_matching_findings_into_info(inventory, capsys):
    code, report = check(capsys, str(inventory))
    found = {(f["device"], f["rule"], f["interface"]): f for f in report["findings"]}

    # Holds through its expiry date: info, naming owner, reason and date.
    mtu = found["leaf-su1-r1", "mtu.switch", "Ethernet2"]
    assert mtu["severity"] == "info"
    assert mtu["message"].endswith("; waived until 2026-12-01 by netops: RMA 4411: optic swap on Friday")

    # Expired yesterday: back at its own severity, saying so.
    ecn = found["leaf-su2-r2", "ecn.enabled", "Ethernet1-4,31-32"]
    assert ecn["severity"] == "error"
    assert "waiver by qos-team expired on 2026-11-30 (ECN rollout paused): failing again" in ecn["message"]

    # A waiver of some ports of a finding splits it: the waived ports are info, the rest still fail.
    pfc = {
        k[2]: f["severity"] for k, f in found.items() if k[:2] == ("leaf-su1-r3", "pfc.no_drop_priorities")
    }
    assert pfc == {"Ethernet1-4": "error", "Ethernet31-32": "info"}

    # A waiver that matches nothing is named at its line of the waivers file.
    unused = [f for f in report["findings"] if f["rule"] == "waiver.unused"]
    assert [(u["severity"], u["file"], u["line"]) for u in unused] == [
        ("info", str(inventory / "waivers.yaml"), 20)
    ]
    assert "gpu0* / cabling.* by dc-ops matches no finding" in unused[0]["message"]

    # The unwaived faults still fail the run.
    assert code == 1
    assert found["gpu05", "qos.trust", "eth0-3"]["severity"] == "error"


def test_the_day_after_expiry_the_finding_fails_again(inventory, capsys, monkeypatch):
    monkeypatch.setattr("netcfg.waivers.today", lambda: date(2026, 12, 2))
    _, report = check(capsys, str(inventory))
    mtu = next(f for f in report["findings"] if f["rule"] == "mtu.switch")
    assert mtu["severity"] == "error"
    assert "expired on 2026-12-01" in mtu["message"]


def test_a_waivers_option_replaces_the_file_beside_the_inventory(inventory, capsys, tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("waivers: []\n")
    _, report = check(capsys, str(inventory), "--waivers", str(other))
    assert {f["severity"] for f in report["findings"]} == {"error"}


def test_every_rule_can_be_waived(inventory, capsys):
    (inventory / "waivers.yaml").write_text(
        "waivers:\n  - {device: '*', rule: '*', owner: me, reason: lab, expires: 2026-12-31}\n"
    )
    code, report = check(capsys, str(inventory))
    assert code == 0
    assert report["findings"] and {f["severity"] for f in report["findings"]} == {"info"}


@pytest.mark.parametrize(
    ("entry", "where", "expected"),
    [
        ("expires: 2026-13-01", "waivers.0.expires", "a date YYYY-MM-DD that exists (got '2026-13-01')"),
        ("expires: 20261231", "waivers.0.expires", "a date YYYY-MM-DD (got 20261231)"),
        ("expires: 2026-12-31T10:00", "waivers.0.expires", "YYYY-MM-DD (got '2026-12-31T10:00')"),
        ("expires: 2026-12-31, owner_email: x@y", "waivers.0.owner_email", "unknown key 'owner_email'"),
        ("expires: 2026-12-31, rule: cabling.swaped", "waivers.0.rule", "matches no rule"),
        ("expires: 2026-12-31, device: gpu99", "waivers.0.device", "matches no device of the inventory"),
        ("expires: 2026-12-31, device: 'gpu 1'", "waivers.0.device", "expected a name or glob"),
        ('expires: 2026-12-31, reason: "two\\nlines"', "waivers.0.reason", "expected one line of text"),
        ("expires: 2026-12-31, owner: 7", "waivers.0.owner", "Input should be a valid string (got 7)"),
    ],
)
def test_a_bad_waiver_is_one_line_naming_file_field_and_expectation(
    inventory, capsys, entry, where, expected
):
    base = {"device": "gpu01", "rule": "qos.trust", "owner": "me", "reason": "lab"}
    given = dict(part.split(": ", 1) for part in entry.split(", "))
    fields = ", ".join(f"{k}: {v}" for k, v in {**base, **given}.items())
    (inventory / "waivers.yaml").write_text(f"waivers:\n  - {{{fields}}}\n")
    assert main(["check", str(inventory)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert str(inventory / "waivers.yaml") in err[0] and where in err[0] and expected in err[0], err[0]


def test_a_missing_waivers_file_is_named(inventory, capsys):
    assert main(["check", str(inventory), "--waivers", str(inventory / "nope.yaml")]) == 2
    assert "nope.yaml: waivers file not found" in capsys.readouterr().err


def test_schema_prints_the_waivers_file_schema(capsys):
    assert main(["schema", "waivers"]) == 0
    schema = json.loads(capsys.readouterr().out)
    waiver = schema["$defs"]["Waiver"]
    assert set(waiver["required"]) == {"device", "rule", "owner", "reason", "expires"}
    assert all(p.get("description") for p in waiver["properties"].values())
