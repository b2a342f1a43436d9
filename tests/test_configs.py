"""Config files and snapshots as users keep them, read end to end through the CLI: what is a device
file, what is refused (and where), and where each finding points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netcfg.cli import main
from tests.conftest import LAB

FIXTURES = Path(__file__).parent / "fixtures"
NOT_EOS = sorted(p.name for p in (FIXTURES / "other").iterdir())


def render_lab(folder: Path, capsys) -> Path:
    """The lab's configs as `netcfg render inventories/lab -o DIR` writes them."""
    assert main(["render", str(LAB), "-o", str(folder)]) == 0
    capsys.readouterr()
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path: Path, line: str) -> int:
    (number,) = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text == line]
    return number


def check_json(capsys, *args: str) -> tuple[int, list[dict]]:
    rc = main(["check", str(LAB), *args, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)["findings"]


def error_of(capsys, *args: str) -> str:
    assert main(["check", str(LAB), *args]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    return err


def test_findings_point_at_the_file_and_line_of_each_setting(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    leaf, host = configs / "leaf-su1-r2.cfg", configs / "gpu03.sh"
    # PFC no-drop on priority 4 instead of 3 on one port, ECN gone from the shared profile...
    edit(
        leaf,
        "   description gpu02:eth1\n   mtu 9214\n   no switchport\n   service-profile ROCE_LOSSLESS\n",
        "   description gpu02:eth1\n   mtu 9214\n   no switchport\n   service-profile ROCE_LOSSLESS\n"
        "   priority-flow-control priority 3 drop\n   priority-flow-control priority 4 no-drop\n",
    )
    edit(
        leaf,
        "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes"
        " max-mark-probability 100\n",
        "",
    )
    # ... and one NIC of a host trusting PCP.
    edit(host, "mlnx_qos -i eth2 --trust dscp", "mlnx_qos -i eth2 --trust pcp")
    rc, findings = check_json(capsys, "--configs", str(configs))
    assert rc == 1
    at = {(f["rule"], f["device"], f["interface"]): (f["file"], f["line"]) for f in findings}
    pfc_line = line_of(leaf, "   priority-flow-control priority 4 no-drop")
    trust_line = line_of(host, "mlnx_qos -i eth2 --trust pcp --pfc 0,0,0,1,0,0,0,0 --cable_len 3")
    assert at[("pfc.no_drop_priorities", "leaf-su1-r2", "Ethernet2")] == (str(leaf), pfc_line)
    assert at[("link.pfc_mismatch", "leaf-su1-r2", "Ethernet2")] == (str(leaf), pfc_line)
    # ECN is missing on every port: it belongs in the profile the ports take their QoS from.
    assert at[("ecn.enabled", "leaf-su1-r2", "Ethernet1-4,31-32")] == (
        str(leaf),
        line_of(leaf, "qos profile ROCE_LOSSLESS"),
    )
    assert at[("qos.trust", "gpu03", "eth2")] == (str(host), trust_line)
    assert at[("link.trust_mismatch", "gpu03", "eth2")] == (str(host), trust_line)
    assert {f["device"] for f in findings} == {"leaf-su1-r2", "gpu03"}
    assert all(f["file"] and isinstance(f["line"], int) for f in findings)


def test_files_that_are_not_device_configs_are_left_alone(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    (configs / "README.md").write_text("# Configs\n\nRendered by netcfg; edit the inventory instead.\n")
    (configs / "cabling.json").write_text('{"links": []}\n')
    (configs / "notes.txt").write_text("interface Ethernet1\n")
    rc, findings = check_json(capsys, "--configs", str(configs))
    assert (rc, findings) == (0, [])


def test_a_folder_of_only_other_files_is_empty(tmp_path, capsys):
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "README.md").write_text("# nothing here\n")
    err = error_of(capsys, "--configs", str(folder))
    assert f"{folder}: configs folder is empty" in err and "<device>.cfg" in err


@pytest.mark.parametrize("name", NOT_EOS)
def test_a_non_eos_file_named_like_a_switch_config_is_refused_once(tmp_path, capsys, name):
    configs = render_lab(tmp_path / "configs", capsys)
    (configs / "leaf-su1-r1.cfg").write_bytes((FIXTURES / "other" / name).read_bytes())
    err = error_of(capsys, "--configs", str(configs))
    assert f"{configs / 'leaf-su1-r1.cfg'}:" in err
    assert "not an Arista EOS config" in err and "expected" in err


def test_a_host_script_with_crlf_line_endings_names_its_line(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    script = configs / "gpu02.sh"
    script.write_bytes(script.read_bytes().replace(b"\n", b"\r\n"))
    err = error_of(capsys, "--configs", str(configs))
    assert f"{script}:1: " in err and "CRLF line ending; expected LF" in err


@pytest.mark.parametrize("name", ["leaf_notes.md", "nxos_running_config.cfg", "cumulus_nvue_startup.yaml"])
def test_a_snapshot_holding_another_format_is_one_unreadable_output(tmp_path, capsys, name):
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(LAB), "-o", str(snapshot)]) == 0
    capsys.readouterr()
    (snapshot / "leaf-su2-r3" / "show_running-config.txt").write_bytes(
        (FIXTURES / "other" / name).read_bytes()
    )
    rc, findings = check_json(capsys, "--snapshot", str(snapshot))
    assert rc == 1
    assert [(f["device"], f["rule"], f["expected"]) for f in findings] == [
        ("leaf-su2-r3", "parse.unknown_output", "readable output of 'show running-config'")
    ]
    assert findings[0]["actual"].startswith("not an Arista EOS config")


def test_a_folder_that_leaves_out_devices_of_the_inventory_is_refused_unless_allowed(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    # The switches' configs saved as .txt (an export, a rename): only the hosts' scripts remain.
    switches = sorted(p.stem for p in configs.glob("*.cfg"))
    for path in configs.glob("*.cfg"):
        path.rename(path.with_suffix(".txt"))
    edit(configs / "gpu03.sh", "mlnx_qos -i eth2 --trust dscp", "mlnx_qos -i eth2 --trust pcp")
    err = error_of(capsys, "--configs", str(configs))
    assert err.startswith(f"netcfg: error: {configs}: no config for {len(switches)} of the 18 devices")
    assert f"{', '.join(switches[:5])} and {len(switches) - 5} more" in err
    assert "(looked for <device>.cfg)" in err and "--allow-missing" in err

    # Allowed, the hosts are checked and the switches listed as not checked; the summary says so.
    assert main(["check", str(LAB), "--configs", str(configs), "--allow-missing"]) == 1
    out = capsys.readouterr().out
    hosts = 18 - len(switches)
    assert f"{hosts} of 18 devices checked from config files in {configs}: 1 error, 0 warning, 1 info" in out
    rc, findings = check_json(capsys, "--configs", str(configs), "--allow-missing")
    assert rc == 1
    assert {f["rule"] for f in findings} == {"qos.trust", "state.missing"}
    missing = next(f for f in findings if f["rule"] == "state.missing")
    assert missing["actual"] == f"{len(switches)} without state" and switches[0] in missing["message"]


def test_the_summary_says_the_devices_were_checked_from_files(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    assert main(["check", str(LAB), "--configs", str(configs)]) == 0
    assert f"18 devices checked from config files in {configs}: 0 error" in capsys.readouterr().out
    assert main(["check", str(LAB), "--configs", str(configs), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["devices_checked"], summary["devices_planned"]) == (18, 18)


def test_allow_missing_without_a_config_folder_is_refused(capsys):
    err = error_of(capsys, "--allow-missing")
    assert "--allow-missing" in err and "--configs" in err


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("pause watchdog default timeout 0.2", "pause watchdog default timeout 0.3"),
        ("pause watchdog default recovery-time 0.2", "pause watchdog default recovery-time 0.4"),
        ("pause watchdog default polling-interval 0.1", "pause watchdog default polling-interval 0.05"),
        ("pause watchdog action drop", "pause watchdog action errdisable"),
    ],
)
def test_a_watchdog_finding_points_at_the_line_that_is_wrong(tmp_path, capsys, old, new):
    """The watchdog's four lines are one setting to the rules, but each finding stands on the line a
    user must change: pfc.watchdog against the policy and rail.qos_consistency against the rail."""
    configs = render_lab(tmp_path / "configs", capsys)
    leaf = configs / "leaf-su1-r2.cfg"
    edit(leaf, f"priority-flow-control {old}\n", f"priority-flow-control {new}\n")
    rc, findings = check_json(capsys, "--configs", str(configs))
    assert rc == 1
    wrong = line_of(leaf, f"priority-flow-control {new}")
    placed = {(f["rule"], f["file"], f["line"]) for f in findings}
    assert placed == {(rule, str(leaf), wrong) for rule in ("pfc.watchdog", "rail.qos_consistency")}
