"""Snapshots as netcfg writes them (one JSON Lines file per device) and as users make them (a folder
per device of a file per command): `netcfg snapshot convert` goes both ways keeping every byte, a
check reads both alike, a killed write is never a snapshot, a device file with a stray byte is that
output's problem only, and hostile device files are one located line (exit 2)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg import snapshot as snapshot_module
from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.lab.devices import load_faults
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.policy import load_policy
from netcfg.snapshot import (
    DEVICE_FILES,
    decode_device,
    encode_device,
    meta_text,
    raw_bytes,
    raw_text,
    snapshot_meta,
)
from tests.test_bad_input import error_of

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "inventories" / "lab" / "fabric.yaml"
# What devices and tools leave in outputs that a text round trip would lose: a BOM, CR line ends, a
# NUL, bytes that are not UTF-8, characters that are line breaks to str.splitlines, a lone CR.
AWKWARD = (
    b"\xef\xbb\xbfhostname leaf\r\n   mtu 9214\r\n"
    + b"caf\xc3\xa9 \xe2\x80\xa8 \x1c\x85 \xff\xfe bad \x00 nul\rlone cr\n\x1b[0m"
)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def lab() -> tuple:
    fabric = load_fabric(LAB)
    return fabric, load_policy(fabric.policy_ref)


@pytest.fixture
def folders(lab: tuple, tmp_path: Path) -> Path:
    """The lab's snapshot as a folder per device, with awkward outputs added by hand."""
    fabric, policy = lab
    path = write_simulated_snapshot(fabric, policy, {}, tmp_path / "folders", time.time(), 0)
    (path / "gpu01" / "awkward.txt").write_bytes(AWKWARD)
    (path / "leaf-su1-r1" / "show_lldp_neighbors_detail.json").write_bytes(b'{"lldpNeighbors": []}\n')
    (path / "leaf-su1-r1" / "empty.txt").write_bytes(b"")
    return path


def test_convert_both_ways_keeps_every_byte_of_every_output(folders: Path, tmp_path: Path) -> None:
    assert main(["snapshot", "convert", str(folders), "-o", str(tmp_path / "device")]) == 0
    device = tmp_path / "device"
    names = sorted(p.name for p in device.iterdir())
    assert "gpu01.jsonl" in names and "meta.json" in names and not any((device / n).is_dir() for n in names)
    assert main(["snapshot", "convert", str(device), "-o", str(tmp_path / "back")]) == 0
    assert _files(tmp_path / "back") == _files(folders)
    assert main(["snapshot", "convert", str(tmp_path / "back"), "-o", str(tmp_path / "again")]) == 0
    assert _files(tmp_path / "again") == _files(device)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_-]{0,20}\.(txt|json)", fullmatch=True),
        st.binary(max_size=300),
        max_size=5,
    )
)
def test_a_device_file_gives_back_the_bytes_of_any_outputs(outputs: dict[str, bytes]) -> None:
    stems = [name.rpartition(".")[0] for name in outputs]
    if len(set(stems)) < len(stems):
        return  # one command saved both ways is refused, as in a folder
    data = encode_device({name: raw_text(b) for name, b in outputs.items()})
    back = decode_device(data, "dev.jsonl")
    assert {name: raw_bytes(text, name) for name, text in back.items()} == outputs


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=10), _JSON, max_size=5),
    st.dictionaries(st.text(max_size=12), _JSON, max_size=5),
)
def test_meta_json_reads_back_as_written_with_each_device_on_a_line(meta: dict, devices: dict) -> None:
    meta = meta | {"devices": devices}
    text = meta_text(meta)
    assert json.loads(text) == meta
    if devices:
        lines = text.splitlines()
        start = lines.index('  "devices": {') + 1
        one_each = [
            json.loads("{" + line.strip().removesuffix(",") + "}")
            for line in lines[start : start + len(devices)]
        ]
        assert {name: entry for line in one_each for name, entry in line.items()} == devices
        assert all(len(line) == 1 for line in one_each)


def test_a_check_reads_both_layouts_alike(
    lab: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fabric, policy = lab
    faults = LAB.parent / "faults.yaml"
    results = {}
    for layout in ("folders", DEVICE_FILES):
        start = time.time() - 300
        for reading, name in enumerate(("before", "after")):
            write_simulated_snapshot(
                fabric,
                policy,
                load_faults(faults, fabric),
                tmp_path / layout / name,
                start + 300 * reading,
                reading,
                layout=layout,
            )
        rc = main(
            [
                "check",
                str(LAB),
                "--snapshot",
                str(tmp_path / layout / "after"),
                "--previous",
                str(tmp_path / layout / "before"),
                "--format",
                "json",
            ]
        )
        out = capsys.readouterr().out.replace(str(tmp_path / layout), "SNAP")
        results[layout] = (rc, json.loads(out)["findings"])
    assert results["folders"][0] == 1
    assert results["folders"][1]
    assert results[DEVICE_FILES] == results["folders"]


def _plant(path: Path, command: str, old: bytes, new: bytes) -> None:
    """Replace `old` with `new` in one output line of a device file, as raw bytes of the file."""
    lines = path.read_bytes().split(b"\n")
    for i, line in enumerate(lines):
        if json.loads(line or b"{}").get("file") == command:
            assert old in line
            lines[i] = line.replace(old, new, 1)
            path.write_bytes(b"\n".join(lines))
            return
    raise AssertionError(f"{command} not in {path}")


@pytest.mark.parametrize(("byte", "why"), [(b"\x00", "NUL byte"), (b"\xff", "byte 0xff is not UTF-8")])
def test_a_stray_byte_in_a_device_file_is_that_output_unreadable_and_nothing_else(
    lab: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str], byte: bytes, why: str
) -> None:
    fabric, policy = lab
    snap = write_simulated_snapshot(fabric, policy, {}, tmp_path / "s", time.time(), 0, layout=DEVICE_FILES)
    _plant(snap / "leaf-su1-r1.jsonl", "show_running-config.txt", b"   mtu 9214", b"   mtu 92" + byte + b"14")
    rc = main(["check", str(LAB), "--snapshot", str(snap), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert rc == 1
    assert [(f["device"], f["rule"]) for f in findings] == [("leaf-su1-r1", "parse.unknown_output")]
    assert "could not read 'show running-config'" in findings[0]["message"]
    assert why in findings[0]["message"]


def _device_file(lab: tuple, tmp_path: Path) -> Path:
    fabric, policy = lab
    return write_simulated_snapshot(fabric, policy, {}, tmp_path / "s", time.time(), 0, layout=DEVICE_FILES)


@pytest.mark.parametrize(
    ("damage", "where", "expected"),
    [
        (lambda f: f.write_bytes(f.read_bytes() + b"{not json\n"), r"gpu01\.jsonl:\d+", "not JSON"),
        (
            lambda f: f.write_bytes(f.read_bytes() + b"[" * 100_000 + b"\n"),
            r"gpu01\.jsonl:\d+",
            "not JSON|deeply",
        ),
        (
            lambda f: f.write_bytes(f.read_bytes() + b'{"file": "../../etc/x.txt", "output": ""}\n'),
            r"gpu01\.jsonl:\d+: file",
            "expected a command output's name",
        ),
        (
            lambda f: f.write_bytes(f.read_bytes() + b'{"file": "a.txt", "output": 5}\n'),
            r"gpu01\.jsonl:\d+",
            'expected \\{"file"',
        ),
        (
            lambda f: f.write_bytes(f.read_bytes() + f.read_bytes().split(b"\n")[0] + b"\n"),
            r"gpu01\.jsonl:\d+",
            "the same command as line 1",
        ),
    ],
)
def test_a_device_file_netcfg_would_not_write_is_one_located_line(
    lab: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage, where: str, expected: str
) -> None:
    snap = _device_file(lab, tmp_path)
    damage(snap / "gpu01.jsonl")
    for argv in (["check", LAB, "--snapshot", snap], ["snapshot", "convert", snap, "-o", tmp_path / "out"]):
        err = error_of(capsys, *argv)
        assert re.search(rf"{where}: .*({expected})", err), err
    assert not (tmp_path / "out").exists()


def test_a_huge_line_is_refused_naming_it(
    lab: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = _device_file(lab, tmp_path)
    # A command's output may be 64 MiB: the lab's longest output stands for that bound here.
    longest = max(len(line) for f in snap.glob("*.jsonl") for line in f.read_bytes().split(b"\n"))
    monkeypatch.setattr(snapshot_module, "MAX_TEXT_BYTES", longest)
    line = json.dumps({"file": "huge.txt", "output": "x" * (2 * longest)}).encode()
    (snap / "gpu02.jsonl").write_bytes((snap / "gpu02.jsonl").read_bytes() + line + b"\n")
    err = error_of(capsys, "check", LAB, "--snapshot", snap)
    assert re.search(rf"gpu02\.jsonl:\d+: a line of {len(line):,} characters; expected at most", err), err


def test_symlinks_fifos_and_a_device_kept_twice_are_refused_naming_them(
    lab: tuple, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = _device_file(lab, tmp_path)
    secret = tmp_path / "secret.jsonl"
    (snap / "gpu01.jsonl").rename(secret)
    (snap / "gpu01.jsonl").symlink_to(secret)
    err = error_of(capsys, "check", LAB, "--snapshot", snap)
    assert f"{snap / 'gpu01.jsonl'}: is a symbolic link" in err
    (snap / "gpu01.jsonl").unlink()
    os.mkfifo(snap / "gpu01.jsonl")
    err = error_of(capsys, "check", LAB, "--snapshot", snap)
    assert f"{snap / 'gpu01.jsonl'}: is a FIFO" in err
    (snap / "gpu01.jsonl").unlink()
    secret.rename(snap / "gpu01.jsonl")
    (snap / "gpu02").mkdir()
    (snap / "gpu02" / "show_version.txt").write_text("x\n")
    for argv in (["check", LAB, "--snapshot", snap], ["snapshot", "convert", snap, "-o", tmp_path / "o"]):
        err = error_of(capsys, *argv)
        assert "gpu02" in err and "device gpu02 is also kept as gpu02" in err, err


def test_convert_refuses_links_and_mixed_layouts(
    folders: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "shadow.txt"
    outside.write_text("root:x:0:0\n")
    (folders / "gpu02" / "stolen.txt").symlink_to(outside)
    err = error_of(capsys, "snapshot", "convert", folders, "-o", tmp_path / "o")
    assert f"{folders / 'gpu02' / 'stolen.txt'}: is a symbolic link" in err
    (folders / "gpu02" / "stolen.txt").unlink()
    assert main(["snapshot", "convert", str(folders), "-o", str(tmp_path / "d")]) == 0
    (tmp_path / "d" / "gpu03.jsonl").unlink()
    (tmp_path / "d" / "gpu03").mkdir()
    (tmp_path / "d" / "gpu03" / "show_version.txt").write_text("x\n")
    err = error_of(capsys, "snapshot", "convert", tmp_path / "d", "-o", tmp_path / "m")
    assert "holds both device files and device folders; give --to" in err
    assert not (tmp_path / "m").exists() and not (tmp_path / "o").exists()


WRITER = """
import sys, time
from pathlib import Path
from netcfg.snapshot import SnapshotWriter
writer = SnapshotWriter(Path(sys.argv[1]))
for i in range(100_000):
    writer.write_device(f"dev{i}", {"show_version": "x" * 2000, "show_interfaces": "y" * 2000})
    if i == 50:
        print("writing", flush=True)
writer.commit({"netcfg_version": "0", "devices": {}})
"""


def test_a_write_killed_midway_never_reads_as_a_snapshot_and_the_next_one_sweeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "snap"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".snap.netcfg-")]
    assert any(p.name.endswith(".jsonl") for p in left.iterdir())
    assert not target.exists() and snapshot_meta(left) is None
    err = error_of(capsys, "check", LAB, "--snapshot", target)
    assert str(target) in err
    # The next write into the same folder removes what the killed one left, and nothing else.
    (tmp_path / "mine.jsonl").write_text("kept\n")
    from netcfg.snapshot import SnapshotWriter

    writer = SnapshotWriter(target)
    writer.write_device("leaf1", {"show_version": "Arista\n"})
    writer.commit({"netcfg_version": "0", "devices": {"leaf1": {}}})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.jsonl", "snap"]
    assert sorted(p.name for p in target.iterdir()) == ["leaf1.jsonl", "meta.json"]
