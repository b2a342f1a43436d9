"""The lossless domain across devices: the planned NIC-to-NIC paths, judged on real configs."""

from __future__ import annotations

import json
import re

from netcfg.cli import main
from tests.conftest import ROOT

LAB = ROOT / "inventories" / "lab-deadlock" / "shared-asn.yaml"


def _lossless(capsys, configs) -> tuple[int, list[dict]]:
    capsys.readouterr()
    code = main(["lossless", str(LAB), "--configs", str(configs), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def _edit(path, block: str, new: str) -> None:
    """Replace one interface block of an EOS config (up to its `!`)."""
    text = path.read_text(encoding="utf-8")
    edited, count = re.subn(rf"interface {block}\n(   .*\n)*!\n", new, text)
    assert count == 1
    path.write_text(edited, encoding="utf-8")


def test_one_lossy_spine_port_is_one_path_finding_naming_both_ends(tmp_path, capsys):
    assert main(["render", str(LAB), "-o", str(tmp_path)]) == 0
    assert _lossless(capsys, tmp_path) == (0, [])
    # The port keeps its routed config and the RoCE class, with PFC turned off on it.
    _edit(
        tmp_path / "spine1.cfg",
        "Ethernet3",
        "interface Ethernet3\n   mtu 9214\n   no switchport\n   service-profile ROCE_LOSSLESS\n"
        "   priority-flow-control off\n!\n",
    )
    code, findings = _lossless(capsys, tmp_path)
    assert code == 1
    paths = [f for f in findings if f["rule"] == "lossless.path"]
    assert [(f["device"], f["interface"], f["actual"]) for f in paths] == [("spine1", "Ethernet3", "PFC off")]
    assert "spine1:Ethernet3 -- leaf-su1-r3:Ethernet31" in paths[0]["message"]
    assert "lossless at leaf-su1-r3:Ethernet31" in paths[0]["message"]


def test_a_port_the_config_does_not_show_gives_no_path_verdict(tmp_path, capsys):
    assert main(["render", str(LAB), "-o", str(tmp_path)]) == 0
    _edit(tmp_path / "spine1.cfg", "Ethernet4", "")
    code, findings = _lossless(capsys, tmp_path)
    assert "lossless.path" not in {f["rule"] for f in findings}
    # What is unknown is said by the rule for it, once, and is not a pass.
    assert code == 1 and {f["rule"] for f in findings} <= {"parse.incomplete", "state.missing"}
