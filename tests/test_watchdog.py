"""`pfc.watchdog_timers`: a watchdog that polls less often than its detection time, on any platform,
named at the watchdog's config line; timers a source does not show are no verdict."""

from __future__ import annotations

import json
from pathlib import Path

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.platforms import get_platform
from netcfg.render import render_fabric

SONIC = Path(__file__).parent / "fixtures" / "sonic"
RULE = "pfc.watchdog_timers"


def _eos_findings(fabric, policy, old, new):
    """The findings of the lab with spine1's rendered config edited as a person would edit it."""
    text = render_fabric(fabric, policy, None)["spine1.cfg"]
    assert old in text
    device = fabric.devices["spine1"]
    state = get_platform(device.platform).parse_config(text.replace(old, new), device)
    return [f for f in run_checks(fabric, policy, {"spine1": state}) if f.rule == RULE]


def test_eos_polling_longer_than_the_timeout_is_named(lab_fabric, lab_policy):
    poll = "priority-flow-control pause watchdog default polling-interval 0.1"
    found = _eos_findings(lab_fabric, lab_policy, poll, poll.replace("0.1", "0.5"))
    assert [(f.device, f.interface, f.actual) for f in found] == [
        ("spine1", None, "poll 500 ms, detect 200 ms")
    ]
    assert found[0].severity.value == "warning"


def test_eos_polling_equal_to_the_timeout_is_consistent(lab_fabric, lab_policy):
    poll = "priority-flow-control pause watchdog default polling-interval 0.1"
    assert _eos_findings(lab_fabric, lab_policy, poll, poll.replace("0.1", "0.2")) == []


def test_eos_polling_the_config_leaves_out_is_no_verdict(lab_fabric, lab_policy):
    # Without its polling line the interval is unknown: nothing to compare, not a finding.
    poll = "priority-flow-control pause watchdog default polling-interval 0.1\n"
    assert _eos_findings(lab_fabric, lab_policy, poll, "") == []


def test_sonic_poll_interval_over_detection_time_points_at_pfc_wd_global(tmp_path, capsys):
    configs = tmp_path / "configs"
    assert main(["render", str(SONIC / "inventory"), "-o", str(configs)]) == 0
    path = configs / "leaf-su1-r1.json"
    doc = json.loads(path.read_text())
    doc["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "400"
    path.write_text(json.dumps(doc, indent=4, sort_keys=True) + "\n")
    capsys.readouterr()
    main(["check", str(SONIC / "inventory"), "--configs", str(configs), "--format", "json"])
    findings = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == RULE]
    lines = path.read_text().splitlines()
    pfc_wd = next(i for i, line in enumerate(lines) if line.strip().startswith('"PFC_WD"'))
    glob = next(i for i in range(pfc_wd, len(lines)) if lines[i].strip().startswith('"GLOBAL"'))
    assert [(f["device"], f["file"], f["line"], f["actual"]) for f in findings] == [
        ("leaf-su1-r1", str(path), glob + 1, "poll 400 ms, detect 200 ms")
    ]
