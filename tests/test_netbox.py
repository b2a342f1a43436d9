"""`netcfg inventory from-netbox` against NetBox 4.6 API responses recorded for the five-vendor lab
(inventories/lab-multi: 2 scalable units, 18 devices, 48 fabric cables plus management and console
cabling), replayed by a real HTTP server on 127.0.0.1: pynetbox and requests run as in production."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.policy import load_policy
from tests.conftest import ROOT
from tests.netbox_server import load_recording, netbox_server

HAND_WRITTEN = ROOT / "inventories" / "lab-multi"
TOKEN = "6f1c0a2be39d47c8a5b1e0d2c4f6a8b0c2d4e6f8"
ENV = "NETCFG_TEST_NETBOX_TOKEN"
COMMAND = ("inventory", "from-netbox")
WANTED = "expected a NetBox API token"
HEADROOM_RULES = {"pfc.headroom", "pfc.cable_length", "host.receive_buffer"}


def named(out: Path) -> list[str]:
    return ["--name", "lab-multi", "-o", str(out)]


def responses(recording: dict, path: str) -> list[dict]:
    return next(r["results"] for r in recording["responses"] if r["path"] == path)


def cable_between(recording: dict, *ends: tuple[str, str]) -> dict:
    for cable in responses(recording, "/api/dcim/cables/"):
        found = {
            (t["object"]["device"]["name"], t["object"]["name"])
            for t in cable["a_terminations"] + cable["b_terminations"]
        }
        if found == set(ends):
            return cable
    raise AssertionError(f"no cable between {ends}")


def device(recording: dict, name: str) -> dict:
    return next(d for d in responses(recording, "/api/dcim/devices/") if d["name"] == name)


def import_fabric(
    recording: dict, out: Path, monkeypatch, capsys, token: str = TOKEN
) -> tuple[int, str, list]:
    """Run the command against the recording; (exit code, stdout + stderr, requests the server saw)."""
    monkeypatch.setenv(ENV, TOKEN)
    with netbox_server(recording, token) as (url, seen):
        code = main([*COMMAND, url, "--token-env", ENV, "--filter", "tag=ai-fabric", *named(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err, seen


def test_import_gives_the_hand_written_inventory(tmp_path, monkeypatch, capsys):
    code, output, seen = import_fabric(load_recording(), tmp_path / "inv", monkeypatch, capsys)
    assert code == 0, output
    assert "18 devices, 48 links; 28 cable(s) left out" in output
    imported, hand = load_fabric(tmp_path / "inv"), load_fabric(HAND_WRITTEN)
    assert (imported.name, imported.rails, imported.credentials) == (hand.name, hand.rails, hand.credentials)
    assert imported.devices == hand.devices
    assert imported.links == hand.links
    assert load_policy(imported.policy_ref, tmp_path / "inv") == load_policy(hand.policy_ref, HAND_WRITTEN)
    # As YAML too: the same document, plus where the management addresses are.
    written = yaml.safe_load((tmp_path / "inv" / "fabric.yaml").read_text())
    assert written.pop("connection") == {"connections_file": "connections.json"}
    assert written == yaml.safe_load((HAND_WRITTEN / "fabric.yaml").read_text())
    assert (tmp_path / "inv" / "cabling.csv").read_text() == (HAND_WRITTEN / "cabling.csv").read_text()
    connections = json.loads((tmp_path / "inv" / "connections.json").read_text())
    assert connections["gpu01"] == {"hostname": "127.0.10.1"}  # primary_ip4 127.0.10.1/24
    assert set(connections) == set(hand.devices)
    # Every list took several pages, followed through NetBox's `next` links.
    assert any("offset=" in s for s in seen if s.startswith("/api/dcim/interfaces/"))
    assert any("offset=" in s for s in seen if s.startswith("/api/dcim/devices/"))


def test_the_token_is_sent_and_never_printed_or_written(tmp_path, monkeypatch, capsys):
    code, output, seen = import_fabric(load_recording(), tmp_path / "inv", monkeypatch, capsys)
    assert code == 0
    assert all(s.endswith(f"| Token {TOKEN}") for s in seen)
    assert TOKEN not in output
    for path in (tmp_path / "inv").rglob("*"):
        assert TOKEN not in path.read_text(), path
    # A token NetBox refuses: named as such, not echoed.
    code, output, _ = import_fabric(load_recording(), tmp_path / "other", monkeypatch, capsys, token="x" * 40)
    assert code == 2
    assert "NetBox refused the token (HTTP 403)" in output
    assert TOKEN not in output
    assert not (tmp_path / "other").exists()


def test_an_unset_token_variable_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(ENV, raising=False)
    code = main([*COMMAND, "http://127.0.0.1:9", "--token-env", ENV, "--filter", "site=a", *named(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"netcfg: error: --token-env {ENV}: the variable is not set or empty; {WANTED}\n"


def test_without_pynetbox_it_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV, TOKEN)
    monkeypatch.setitem(__import__("sys").modules, "pynetbox", None)
    code = main([*COMMAND, "http://127.0.0.1:9", "--token-env", ENV, "--filter", "site=a", *named(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "pip install 'pynetbox>=7.4,<8'" in err


def findings(inventory: Path, configs: Path, capsys) -> set[tuple[str, str, str | None, str]]:
    code = main(["check", str(inventory), "--configs", str(configs), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    return {(f["rule"], f["device"], f["interface"], f["expected"]) for f in report["findings"]}


def test_one_longer_cable_changes_exactly_that_links_headroom(tmp_path, monkeypatch, capsys):
    recording = load_recording()
    code, output, _ = import_fabric(recording, tmp_path / "before", monkeypatch, capsys)
    assert code == 0, output
    # The configs as deployed: rendered for the cables NetBox held then.
    assert main(["render", str(tmp_path / "before"), "-o", str(tmp_path / "configs")]) == 0
    capsys.readouterr()
    longer = copy.deepcopy(recording)
    cable = cable_between(longer, ("gpu05", "eth2"), ("leaf-su2-r3", "Ethernet1"))
    cable["length"], cable["length_unit"] = 0.3, {"value": "km", "label": "Kilometers"}
    code, output, _ = import_fabric(longer, tmp_path / "after", monkeypatch, capsys)
    assert code == 0, output
    before = findings(tmp_path / "before", tmp_path / "configs", capsys)
    after = findings(tmp_path / "after", tmp_path / "configs", capsys)
    assert before == set()
    changed = after - before
    assert {(rule, dev, port) for rule, dev, port, _ in changed} >= {
        ("pfc.headroom", "leaf-su2-r3", "Ethernet1")
    }
    assert {(dev, port) for _, dev, port, _ in changed} <= {("leaf-su2-r3", "Ethernet1"), ("gpu05", "eth2")}
    assert {rule for rule, *_ in changed} <= HEADROOM_RULES
    assert any("300 m" in expected for *_, expected in changed)


def _leaf_without_rail(rec: dict) -> None:
    device(rec, "leaf-su1-r2")["custom_fields"]["rail"] = None


def _unknown_role(rec: dict) -> None:
    role = device(rec, "spine1")["role"]
    device(rec, "spine1")["role"] = {**role, "slug": "border-router", "name": "Border router"}


def _patch_panel(rec: dict) -> None:
    cable = cable_between(rec, ("gpu01", "eth0"), ("leaf-su1-r1", "Ethernet1"))
    cable["b_terminations"][0]["object_type"] = "dcim.frontport"


def _no_length(rec: dict) -> None:
    cable = cable_between(rec, ("leaf-su1-r1", "Ethernet31"), ("spine1", "et-0/0/1"))
    cable["length"], cable["length_unit"] = None, None


def _gpu_off_rail(rec: dict) -> None:
    iface = next(
        i
        for i in responses(rec, "/api/dcim/interfaces/")
        if (i["device"]["name"], i["name"]) == ("gpu03", "eth2")
    )
    iface["custom_fields"]["gpu_index"] = 0


def _unknown_platform(rec: dict) -> None:
    device(rec, "leaf-su2-r4")["platform"]["slug"] = "cisco-ios-xr"


@pytest.mark.parametrize(
    ("break_it", "names", "expected"),
    [
        (_leaf_without_rail, "NetBox device 'leaf-su1-r2' (id ", "a leaf without custom field rail"),
        (
            _unknown_role,
            "NetBox device 'spine1' (id ",
            "'border-router'; expected leaf, spine, superspine or host",
        ),
        (_patch_panel, "NetBox cable id ", "is a dcim.frontport; expected dcim.interface at both ends"),
        (_no_length, "NetBox cable id ", ": length: not set; expected length and length_unit"),
        (_gpu_off_rail, "NetBox interface gpu03:eth2 (id ", "custom fields gpu_index 0 and rail 3 disagree"),
        (
            _unknown_platform,
            "NetBox device 'leaf-su2-r4' (id ",
            "'cisco-ios-xr' is no netcfg switch platform",
        ),
    ],
)
def test_what_cannot_be_placed_is_refused_by_name(break_it, names, expected, tmp_path, monkeypatch, capsys):
    recording = load_recording()
    break_it(recording)
    code, output, _ = import_fabric(recording, tmp_path / "inv", monkeypatch, capsys)
    assert code == 2
    assert output.count("\n") == 1 and output.startswith("netcfg: error: " + names), output
    assert expected in output
    assert TOKEN not in output
    assert not (tmp_path / "inv").exists()


def test_an_answer_that_is_not_netbox_is_refused(tmp_path, monkeypatch, capsys):
    recording = load_recording()
    recording["responses"][0]["results"] = [42, "gpu01"]
    code, output, _ = import_fabric(recording, tmp_path / "inv", monkeypatch, capsys)
    assert code == 2
    assert output.startswith("netcfg: error: http://127.0.0.1:") and output.count("\n") == 1
    assert "not NetBox's paginated list of objects" in output
    # Nothing listening: named as such (exit 2), not netcfg's crash.
    monkeypatch.setenv(ENV, TOKEN)
    with netbox_server(recording, TOKEN) as (url, _):
        pass  # the port is free again once the server is closed
    code = main([*COMMAND, url, "--token-env", ENV, "--filter", "site=a", *named(tmp_path / "inv")])
    assert code == 2
    assert "cannot reach NetBox (ConnectionError)" in capsys.readouterr().err
