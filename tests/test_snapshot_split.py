"""A check's `--snapshot` and its earlier readings are read by two processes, device by device
(`sources.snapshot_readings`): on every platform the states are exactly those reading each snapshot
whole in one process gives, whichever process reads which device, and so are the findings. An EOS
switch's current reading takes the running config its earlier reading parsed only where the text
is the same. Device files are decoded by orjson where netcfg wrote them, else by the standard
library's decoder: both give the same outputs, or the same refusal, for any bytes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg import snapshot as snapshot_module
from netcfg import sources
from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.errors import InputError
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, load_faults
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.policy import load_policy
from netcfg.snapshot import DEVICE_FILES, decode_device, encode_device
from netcfg.sources import snapshot_readings, snapshot_states

ROOT = Path(__file__).resolve().parent.parent
MULTI = ROOT / "inventories" / "lab-multi"


@pytest.fixture(scope="module")
def readings(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The all-platform lab with its demo faults and counter faults, read three times five minutes
    apart (fabric, policy, baseline, before, after); in the reading before the last, an EOS leaf
    prints another running config than in the last (an MTU changed since)."""
    fabric = load_fabric(MULTI / "fabric.yaml")
    policy = load_policy(fabric.policy_ref, MULTI)
    faults = dict(load_faults(MULTI / "faults.yaml", fabric))
    faults["leaf-su1-r1"] = DeviceFaults(pause_storm=["Ethernet1"], crc_errors=["Ethernet2"])
    folder = tmp_path_factory.mktemp("split")
    start = time.time() - 600
    paths = [folder / name for name in ("baseline", "before", "after")]
    for reading, path in enumerate(paths):
        write_simulated_snapshot(fabric, policy, faults, path, start + 300 * reading, reading, DEVICE_FILES)
    leaf = paths[1] / "leaf-su1-r1.jsonl"
    lines = leaf.read_text(encoding="utf-8").splitlines()
    changed = []
    for line in lines:
        record = json.loads(line)
        if record["file"] == "show_running-config.txt":
            assert " mtu 9214\n" in record["output"]
            record["output"] = record["output"].replace(" mtu 9214\n", " mtu 9000\n", 1)
        changed.append(json.dumps(record, ensure_ascii=False))
    leaf.write_text("\n".join(changed) + "\n", encoding="utf-8")
    return fabric, policy, *paths


def _serial(fabric: object, baseline: Path, before: Path, after: Path) -> list[dict]:
    return [
        snapshot_states(fabric, after),
        snapshot_states(fabric, before, counters_only=True),
        snapshot_states(fabric, baseline, counters_only=True),
    ]


def _no_device(self: object) -> None:
    return None


@pytest.mark.parametrize("who", ["both", "the worker alone", "the check alone"])
def test_split_reading_gives_the_states_of_each_snapshot_read_whole(
    readings: tuple, monkeypatch: pytest.MonkeyPatch, who: str
) -> None:
    fabric, _, baseline, before, after = readings
    if who == "the worker alone":
        monkeypatch.setattr(sources._Claims, "last", _no_device)
    elif who == "the check alone":  # the forked worker inherits the patch
        monkeypatch.setattr(sources._Claims, "first", _no_device)
    earlier = [("previous", before), ("baseline", baseline)]
    with snapshot_readings(fabric, after, earlier) as split:
        assert split is not None and split._worker is not None  # read by two processes
        found = [split.current(), split.states("previous"), split.states("baseline")]
    serial = _serial(fabric, baseline, before, after)
    for got, whole in zip(found, serial, strict=True):
        assert list(got) == list(whole)  # the same devices in the same order
        for name, state in whole.items():
            # Equal in every field (a set's repr may list it in another order).
            assert got[name] == state, name
            assert got[name].read_at == state.read_at and got[name].locations == state.locations
    # Every platform's counters are there to compare, so the comparison compares them.
    counted = {fabric.devices[n].platform for n, s in found[1].items() if "counters" in s.facets}
    assert counted == {d.platform for d in fabric.devices.values()}
    assert found[0]["leaf-su1-r1"].interfaces["Ethernet1"].mtu == 9214


def test_a_check_read_by_two_processes_finds_what_one_finds(readings: tuple, tmp_path: Path) -> None:
    fabric, policy, baseline, before, after = readings
    report = tmp_path / "report.json"
    argv = ["check", str(MULTI / "fabric.yaml"), "--snapshot", str(after), "--previous", str(before)]
    main([*argv, "--baseline", str(baseline), "--format", "json", "--output", str(report)])
    found = json.loads(report.read_text(encoding="utf-8"))["findings"]
    now, previous, first = _serial(fabric, baseline, before, after)
    whole = run_checks(fabric, policy, now, previous=previous, baseline=first)
    assert {("leaf-su1-r1", "link.crc_errors"), ("leaf-su1-r1", "pfc.pause_storm")} <= {
        (f.device, f.rule) for f in whole
    }
    assert [(f["device"], f["rule"], f.get("interface"), f["message"]) for f in found] == [
        (f.device, f.rule, f.interface, f.message) for f in whole
    ]


def test_a_device_broken_in_either_process_is_named_as_reading_one_after_the_other_names_it(
    readings: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both ends of the device list broken: whichever process meets its broken device first, the
    error is the first reading them in order meets."""
    from tests.test_bad_input import error_of

    _, _, _, before, after = readings
    now, then = tmp_path / "after", tmp_path / "before"
    shutil.copytree(after, now)
    shutil.copytree(before, then)
    names = sorted(p.name for p in now.glob("*.jsonl"))
    (now / names[-1]).write_text("not json\n", encoding="utf-8")
    (then / names[0]).write_text("not json\n", encoding="utf-8")
    argv = ["check", str(MULTI / "fabric.yaml"), "--snapshot", str(now), "--previous", str(then)]
    assert error_of(capsys, *argv).startswith(f"netcfg: error: {now / names[-1]}:1: not JSON")


def _decoded(data: bytes) -> dict[str, str] | str:
    try:
        return decode_device(data, "device.jsonl")
    except InputError as exc:
        return str(exc)


_TEXT = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ["a\0b", "tab\there", "\udc80raw", "é\r\nline", "\u2028", "\ufeffbom"]
)


@settings(max_examples=300, deadline=None)
@given(
    files=st.dictionaries(st.sampled_from(["a.txt", "b.json", "show_x.txt", "../x.txt", ".h.txt"]), _TEXT),
    cut=st.integers(0, 10_000),
    insert=st.sampled_from([b"", b"\n", b"\xff", b"\x00", b" ", b"{", b'"', b"\\", b"\x0c", b"\xef\xbb\xbf"]),
    data=st.data(),
)
def test_device_files_decode_alike_with_orjson_and_without(
    files: dict[str, str], cut: int, insert: bytes, data: st.DataObject
) -> None:
    try:
        encoded = encode_device(files)
    except InputError:
        return  # a lone surrogate no file holds: nothing to decode
    if data.draw(st.booleans(), label="duplicate a line"):
        encoded += encoded.split(b"\n", 1)[0] + b"\n"
    at = cut % (len(encoded) + 1)
    broken = encoded[:at] + insert + encoded[at:]
    fast = _decoded(broken)
    original = snapshot_module._decoded_as_written
    snapshot_module._decoded_as_written = lambda _: None  # the standard library's decoder alone
    try:
        assert fast == _decoded(broken)
    finally:
        snapshot_module._decoded_as_written = original
