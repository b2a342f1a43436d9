"""The CLI end to end: every exit code, every format, the drifted example."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from netcfg import __version__
from netcfg.cli import main
from netcfg.render import render_fabric
from tests.conftest import LAB, ROOT

DRIFTED = LAB / "examples" / "drifted"
SEEDED = {
    ("leaf-su1-r3", "pfc.no_drop_priorities"),
    ("leaf-su2-r2", "ecn.enabled"),
    ("gpu05", "qos.trust"),
    ("leaf-su1-r1", "mtu.switch"),
}


def run_json(capsys, *args: str) -> tuple[int, dict]:
    rc = main([*args, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_intent_is_clean_exit_0(capsys):
    rc, report = run_json(capsys, "check", str(LAB))
    assert rc == 0
    assert report["findings"] == []
    assert report["summary"]["devices_checked"] == 18


def test_drifted_snapshot_names_exactly_the_seeded_faults(capsys):
    rc, report = run_json(capsys, "check", str(LAB), "--snapshot", str(DRIFTED))
    assert rc == 1
    found = {(f["device"], f["rule"]) for f in report["findings"]}
    assert found >= SEEDED
    assert {d for d, _ in found} == {d for d, _ in SEEDED}, "a healthy device got a finding"
    mtu = next(f for f in report["findings"] if f["rule"] == "mtu.switch")
    assert (mtu["interface"], mtu["expected"], mtu["actual"]) == ("Ethernet2", "9214", "1500")
    for f in report["findings"]:
        assert set(f) >= {"rule", "severity", "device", "interface", "expected", "actual", "message"}
        assert f["severity"] in {"error", "warning", "info"}
    assert report["summary"]["findings"]["error"] == len(report["findings"])


def test_fail_on_threshold(capsys, tmp_path):
    rc, report = run_json(capsys, "check", str(LAB), "--configs", str(_configs(tmp_path, only=["spine1"])))
    assert rc == 0
    assert [f["rule"] for f in report["findings"]] == ["state.missing"]
    assert main(["check", str(LAB), "--configs", str(tmp_path / "configs"), "--fail-on", "info"]) == 1


def _configs(tmp_path, only=None, mutate=None):
    from netcfg.inventory import load_fabric
    from netcfg.policy import load_policy

    fabric = load_fabric(LAB)
    files = render_fabric(fabric, load_policy(fabric.policy_ref), only)
    folder = tmp_path / "configs"
    folder.mkdir()
    for name, text in files.items():
        if mutate and name in mutate:
            text = mutate[name](text)
        (folder / name).write_text(text)
    return folder


def test_premerge_configs_catch_an_edited_leaf(capsys, tmp_path):
    edit = {
        "leaf-su2-r4.cfg": lambda t: t.replace(
            "priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop"
        )
    }
    folder = _configs(tmp_path, mutate=edit)
    rc, report = run_json(capsys, "check", str(LAB), "--configs", str(folder))
    assert rc == 1
    assert {(f["device"], f["rule"]) for f in report["findings"]} == {
        ("leaf-su2-r4", "pfc.no_drop_priorities"),
        ("leaf-su2-r4", "link.pfc_mismatch"),
        ("leaf-su2-r4", "rail.qos_consistency"),
    }


def test_junit_names_are_unique_and_stable(tmp_path, capsys):
    out = tmp_path / "r.xml"
    assert (
        main(["check", str(LAB), "--snapshot", str(DRIFTED), "--format", "junit", "--output", str(out)]) == 1
    )
    root = ET.parse(out).getroot()
    names = [c.get("name") for c in root.iter("testcase")]
    assert len(names) == len(set(names))
    assert "leaf-su1-r3.pfc.no_drop_priorities.Ethernet1-4,31-32" in names
    failures = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert len(failures) == 9
    main(
        [
            "check",
            str(LAB),
            "--snapshot",
            str(DRIFTED),
            "--format",
            "junit",
            "--output",
            str(tmp_path / "b.xml"),
        ]
    )
    assert (tmp_path / "b.xml").read_text() == out.read_text()


@pytest.mark.parametrize(
    "fmt,marker", [("markdown", "| error | `qos.trust` | gpu05 |"), ("sarif", '"ruleId": "qos.trust"')]
)
def test_text_formats(capsys, fmt, marker):
    assert main(["check", str(LAB), "--snapshot", str(DRIFTED), "--format", fmt]) == 1
    assert marker in capsys.readouterr().out


def test_table_is_default(capsys):
    assert main(["check", str(LAB), "--snapshot", str(DRIFTED)]) == 1
    out = capsys.readouterr().out
    assert "pfc.no_drop_priorities" in out and "18 devices checked: 9 error" in out


def test_rules_lists_ids_and_docs(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule in ("pfc.no_drop_priorities", "link.pfc_mismatch", "rail.qos_consistency", "rail.cabling"):
        assert rule in out
    assert "exactly the lossless priority" in out


def test_render_writes_one_file_per_device(tmp_path, capsys):
    assert main(["render", str(LAB), "-o", str(tmp_path), "--device", "gpu03", "--explain"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gpu03.sh"]
    assert "headroom" in capsys.readouterr().out


def test_version_and_module_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "netcfg", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0 and done.stdout.strip() == f"netcfg {__version__}"


def test_policy_schema_documents_defaults(capsys):
    assert main(["policy-schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$defs"]["EcnPolicy"]["properties"]["min_kbytes"]["default"] == 150
