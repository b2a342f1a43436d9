"""`--format golden-config`: findings as Nautobot Golden Config ConfigCompliance records, per device and
feature, checked as Golden Config checks a custom compliance result and recomputed with DeepDiff as
its JSON compliance computes missing and extra."""

from __future__ import annotations

import json
import shutil

import pytest
from deepdiff import DeepDiff

from netcfg.checks.catalogue import RULES
from netcfg.cli import main
from netcfg.report.golden_config import FEATURE_OF, FEATURES
from tests.conftest import ROOT

LAB_MULTI = ROOT / "inventories" / "lab-multi"
# ConfigCompliance's fields (nautobot_golden_config/models.py), without the primary key and the
# remediation netcfg diff computes per switch rather than per feature.
MODEL_FIELDS = {
    "device",
    "rule",
    "compliance",
    "actual",
    "intended",
    "missing",
    "extra",
    "ordered",
    "compliance_int",
}


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """The five-vendor lab's configs as rendered for its cables, and a copy of its inventory in which
    one cable (gpu05 eth2 to leaf-su2-r3 Ethernet1, a SONiC leaf) is now 300 m long."""
    root = tmp_path_factory.mktemp("gc")
    assert main(["render", str(LAB_MULTI), "-o", str(root / "configs")]) == 0
    shutil.copytree(LAB_MULTI, root / "inv")
    csv = root / "inv" / "cabling.csv"
    text = csv.read_text()
    row = "gpu05,eth2,leaf-su2-r3,Ethernet1,400,3\n"
    assert row in text
    csv.write_text(text.replace(row, "gpu05,eth2,leaf-su2-r3,Ethernet1,400,300\n"))
    return root


def golden_config(capsys, *args: str) -> list[dict]:
    code = main(["check", *args, "--format", "golden-config"])
    records = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    return records


def test_records_have_the_compliance_models_shape(deployed, capsys):
    records = golden_config(capsys, str(deployed / "inv"), "--configs", str(deployed / "configs"))
    for r in records:
        assert set(r) >= MODEL_FIELDS
        # What Golden Config refuses from a custom compliance function.
        assert r["compliance"] in (True, False) and r["ordered"] in (True, False)
        assert r["compliance_int"] == int(r["compliance"])
        for key in ("missing", "extra"):
            assert isinstance(r[key], str) or json.loads(json.dumps(r[key])) == r[key]
        assert r["rule"] == r["feature"] in FEATURES
        # Golden Config's JSON compliance from the same actual and intended gives the same verdict.
        diff = DeepDiff(r["actual"], r["intended"], ignore_order=r["ordered"], report_repetition=True)
        assert (not diff) == r["compliance"]
        changed = sorted(diff.get("values_changed", {}))
        assert (r["missing"] or []) == changed == (r["extra"] or [])
    wrong = [r for r in records if not r["compliance"]]
    assert [(r["device"], r["feature"]) for r in wrong] == [("leaf-su2-r3", "pfc")]
    assert set(wrong[0]["intended"]["Ethernet1"]) == {"pfc.headroom", "pfc.cable_length"}
    assert "300 m" in wrong[0]["intended"]["Ethernet1"]["pfc.cable_length"]
    assert wrong[0]["actual"]["Ethernet1"]["pfc.cable_length"] == "3 m"
    # Every device was checked: each has a record for every feature of its kind.
    by_device = {}
    for r in records:
        by_device.setdefault(r["device"], set()).add(r["feature"])
    assert len(by_device) == 18
    assert by_device["leaf-su2-r3"] == {"qos", "pfc", "ecn", "watchdog", "mtu", "load_balancing"}
    assert "roce" in by_device["gpu01"]


def test_what_was_not_checked_has_no_record(deployed, capsys, tmp_path):
    configs = tmp_path / "configs"
    shutil.copytree(deployed / "configs", configs)
    (configs / "leaf-su1-r1.cfg").unlink()
    records = golden_config(capsys, str(LAB_MULTI), "--configs", str(configs), "--allow-missing")
    assert records and all(r["compliance"] for r in records)
    assert "leaf-su1-r1" not in {r["device"] for r in records}


def test_every_configuration_rule_has_a_feature():
    configuration = {r.id for r in RULES.values() if r.facet == "qos"}
    assert configuration == set(FEATURE_OF)
    assert set(FEATURE_OF.values()) == set(FEATURES)
