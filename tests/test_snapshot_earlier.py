"""An earlier reading (`--previous`, `--baseline`) is parsed for its counters only
(`Platform.parse_counters`): on every platform those counters, and whether the reading counts as
counted, are exactly what the full parse gives, whatever outputs are missing or broken, and a check
of two readings finds exactly what it found when both were parsed whole."""

from __future__ import annotations

import errno
import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg import sources
from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, load_faults
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.model import DeviceState
from netcfg.policy import load_policy
from netcfg.snapshot import DEVICE_FILES, read_device_outputs
from netcfg.sources import device_state, snapshot_states
from tests.test_bad_input import error_of

ROOT = Path(__file__).resolve().parent.parent
MULTI = ROOT / "inventories" / "lab-multi"


@pytest.fixture(scope="module")
def readings(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The all-platform lab with its demo faults and a counter fault on each platform that has none
    there, read twice five minutes apart (fabric, policy, before, after)."""
    fabric = load_fabric(MULTI / "fabric.yaml")
    policy = load_policy(fabric.policy_ref, MULTI)
    faults = dict(load_faults(MULTI / "faults.yaml", fabric))
    # An EOS leaf whose watchdog counts storms on its no-drop queues (the config decides which).
    faults["leaf-su1-r1"] = DeviceFaults(pause_storm=["Ethernet1"], crc_errors=["Ethernet2"])
    faults["gpu01"] = DeviceFaults(pcie_width={"eth0": 8})
    folder = tmp_path_factory.mktemp("earlier")
    start = time.time() - 300
    before, after = folder / "before", folder / "after"
    for reading, path in enumerate((before, after)):
        write_simulated_snapshot(fabric, policy, faults, path, start + 300 * reading, reading, DEVICE_FILES)
    return fabric, policy, before, after


def _counted(state: DeviceState) -> tuple:
    return state.counters, "counters" in state.facets, state.collection_error


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_counters_of_an_earlier_reading_are_those_of_the_full_parse(
    readings: tuple, data: st.DataObject
) -> None:
    fabric, _, before, _ = readings
    name = data.draw(st.sampled_from(sorted(fabric.devices)), label="device")
    device = fabric.devices[name]
    outputs = read_device_outputs(before / f"{name}.jsonl")
    files = sorted(outputs)
    # Outputs missing (a snapshot taken before netcfg collected them) or broken in the ways devices
    # and transports break them: cut short, emptied, another command's text, a NUL.
    for file in data.draw(st.lists(st.sampled_from(files), unique=True, max_size=3), label="dropped"):
        del outputs[file]
    for file in data.draw(st.lists(st.sampled_from(files), unique=True, max_size=2), label="broken"):
        text = outputs.get(file, "")
        how = data.draw(st.sampled_from(["cut", "empty", "other", "nul"]), label=f"how {file}")
        cut = data.draw(st.integers(0, len(text)), label=f"at {file}")
        outputs[file] = {
            "cut": text[:cut],
            "empty": "",
            "other": outputs.get(files[(files.index(file) + 1) % len(files)], ""),
            "nul": text[:cut] + "\0" + text[cut:],
        }[how]
    full = device_state(device, dict(outputs), None)
    earlier = device_state(device, dict(outputs), None, counters_only=True)
    assert _counted(earlier) == _counted(full)


def test_each_platform_reads_counters_from_its_earlier_reading(readings: tuple) -> None:
    fabric, _, before, _ = readings
    earlier = snapshot_states(fabric, before, counters_only=True)
    counted = {
        fabric.devices[n].platform for n, s in earlier.items() if s.counters and "counters" in s.facets
    }
    assert counted == {d.platform for d in fabric.devices.values()}


def test_a_check_finds_what_it_found_with_the_earlier_reading_parsed_whole(
    readings: tuple, tmp_path: Path
) -> None:
    fabric, policy, before, after = readings
    now = snapshot_states(fabric, after)
    whole = run_checks(fabric, policy, now, previous=snapshot_states(fabric, before))
    health = {(f.device, f.rule) for f in whole if f.rule.split(".")[0] in ("link", "pfc", "queue", "host")}
    # The planted counter faults are found at all, so the comparison below compares something.
    assert {("leaf-su1-r1", "link.crc_errors"), ("leaf-su1-r1", "pfc.pause_storm")} <= health
    assert ("leaf-su1-r2", "pfc.pause_storm") in health and ("spine1", "link.flapping") in health
    report = tmp_path / "report.json"
    argv = ["check", str(MULTI / "fabric.yaml"), "--snapshot", str(after), "--previous", str(before)]
    main([*argv, "--baseline", str(before), "--format", "json", "--output", str(report)])
    found = json.loads(report.read_text(encoding="utf-8"))["findings"]
    both = run_checks(
        fabric,
        policy,
        now,
        previous=snapshot_states(fabric, before),
        baseline=snapshot_states(fabric, before),
    )
    assert [(f["device"], f["rule"], f.get("interface"), f["message"]) for f in found] == [
        (f.device, f.rule, f.interface, f.message) for f in both
    ]


def test_a_broken_snapshot_is_named_before_its_broken_earlier_reading(
    readings: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The earlier reading is read beside the snapshot (a worker process), yet errors come as reading
    them one after the other gives them: the snapshot's first, then the earlier one's, each one line."""
    _, _, before, after = readings
    now, then = tmp_path / "after", tmp_path / "before"
    shutil.copytree(after, now)
    shutil.copytree(before, then)
    (then / "gpu02.jsonl").write_text("not json\n", encoding="utf-8")
    (now / "leaf-su1-r1.jsonl").write_text('{"file": "../x.txt", "output": ""}\n', encoding="utf-8")
    inventory = str(MULTI / "fabric.yaml")
    argv = ["check", inventory, "--snapshot", str(now), "--previous", str(then)]
    err = error_of(capsys, *argv)
    assert err.startswith(f"netcfg: error: {now / 'leaf-su1-r1.jsonl'}:1: file: ")
    shutil.copy(after / "leaf-su1-r1.jsonl", now / "leaf-su1-r1.jsonl")
    err = error_of(capsys, *argv)
    assert err.startswith(f"netcfg: error: {then / 'gpu02.jsonl'}:1: not JSON")


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("where", ["no temporary file", "disk full in the worker"])
def test_earlier_readings_are_read_without_a_temporary_file_to_spool_them(
    readings: tuple, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    _, _, before, after = readings
    argv = ["check", str(MULTI / "fabric.yaml"), "--snapshot", str(after), "--previous", str(before)]
    main([*argv, "--format", "json", "--output", str(tmp_path / "spooled.json")])
    if where == "no temporary file":
        monkeypatch.setattr(sources.tempfile, "TemporaryFile", _no_space)
    else:  # the forked worker inherits the patch
        monkeypatch.setattr(sources.pickle, "dump", _no_space)
    main([*argv, "--format", "json", "--output", str(tmp_path / "here.json")])
    spooled, here = (
        json.loads((tmp_path / f).read_text(encoding="utf-8")) for f in ("spooled.json", "here.json")
    )
    assert here["findings"] == spooled["findings"] and any(
        f["rule"] == "link.flapping" for f in here["findings"]
    )
