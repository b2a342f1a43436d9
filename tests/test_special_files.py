"""Special files where netcfg expects a user file: a FIFO, /dev/zero, a huge sparse file, a symlink
loop, a folder, and files and folders the user may not read. Each is one line naming the file and
what was expected, exit 2, and never a hang or an unbounded read.

The cases run through the real CLI in a child interpreter with a timeout, so a read that blocks fails
the test instead of hanging it. Permissions mean nothing to root: as root (as in CI), the child drops
to `nobody` once netcfg is imported (the interpreter lives where `nobody` cannot read) and the tree is
chmod-ed so that `nobody` can reach every file but not read the one under test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from netcfg.cli import main
from netcfg.errors import InputError
from netcfg.files import read_bytes
from tests.test_bad_input import CABLING, EXPLICIT, INVENTORY, write_inventory

NOBODY = 65534
# Runs each argv through netcfg.cli.main and prints one JSON line per case as soon as it is done, so a
# case that hangs is named by the cases before it.
CHILD = """
import contextlib, io, json, os, sys
import netcfg.cli, netcfg.collect, netcfg.drift, netcfg.lab.devices, netcfg.lab.snapshot
warmup, cases, uid = *json.loads(sys.stdin.read()), int(sys.argv[1])
with contextlib.redirect_stdout(io.StringIO()):
    assert all(netcfg.cli.main(argv) in (0, 1) for argv in warmup)  # lazy imports, while they can happen
if uid >= 0:
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
for argv in cases:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = netcfg.cli.main(argv)
    print(json.dumps([rc, err.getvalue()]), flush=True)
"""


def run_cases(
    cases: list[list[str]],
    uid: int = -1,
    warmup: tuple[list[str], ...] = (),
    timeout: float = 30,
) -> list[tuple[int, str]]:
    """(exit code, stderr) of each argv; `uid` >= 0 runs them as that user, after `warmup` ran as root
    (the interpreter's own lazy imports come from where that user may not read)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(uid)],
            input=json.dumps([list(warmup), cases]),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tempfile.gettempdir(),
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        finished = (out.decode() if isinstance(out, bytes) else out).count("\n")
        pytest.fail(
            f"netcfg blocked: no answer within {timeout} s after {finished} case(s): {cases[finished]}"
        )
    assert done.returncode == 0, done.stderr
    return [tuple(json.loads(line)) for line in done.stdout.splitlines()]  # type: ignore[misc]


def _open_to_all(root: Path) -> None:
    for folder, _, _ in os.walk(root):
        Path(folder).chmod(0o755)


@pytest.fixture
def tree() -> Iterator[Path]:
    """A folder anyone may traverse (pytest's own tmp_path is private to its user)."""
    path = Path(tempfile.mkdtemp(prefix="netcfg-special-"))
    path.chmod(0o755)
    yield path
    _open_to_all(path)
    shutil.rmtree(path)


def _assert_answered(results: list[tuple[int, str]], cases: list[tuple[list[str], list[str]]]) -> None:
    for (rc, err), (argv, needles) in zip(results, cases, strict=True):
        assert rc == 2, (argv, err)
        assert err.startswith("netcfg: error: ") and err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err
        for needle in needles:
            assert needle in err, (argv, err)


def _make(path: Path, kind: str) -> None:
    """Put a special file of this kind at path (replacing what is there)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with path.open("wb") as fh:
            fh.truncate(20 * 1024**3)  # sparse: no disk used
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "folder":
        path.mkdir()


KIND_NEEDLES = {
    "fifo": ["is a FIFO", "regular file"],
    "zero": ["is a character device", "regular file"],
    "huge": ["21,474,836,480 bytes", "expected at most"],
    "loop": ["symbolic links"],
    "folder": ["is a folder", "regular file"],
}
KINDS = list(KIND_NEEDLES)


def _targets(root: Path, kind: str) -> list[tuple[list[str], Path, str]]:
    """(argv, file to replace, what the error says) for each user file netcfg reads."""
    out = []
    inv = write_inventory(root / f"{kind}-inventory")
    out.append((["check", str(inv)], inv / "fabric.yaml", "inventory"))
    text = INVENTORY.replace("policy: roce-lossless", "policy: policy.yaml")
    inv = write_inventory(root / f"{kind}-policy", text, policy_yaml="name: p\n")
    out.append((["check", str(inv)], inv / "policy.yaml", "policy"))
    inv = write_inventory(root / f"{kind}-cabling", EXPLICIT, cabling_csv=CABLING)
    out.append((["check", str(inv)], inv / "cabling.csv", "cabling CSV"))
    inv = write_inventory(root / f"{kind}-faults", faults_yaml="devices: {}\n")
    argv = [
        "lab",
        "snapshot",
        str(inv),
        "--faults",
        str(inv / "faults.yaml"),
        "-o",
        str(root / f"{kind}-out"),
    ]
    out.append((argv, inv / "faults.yaml", ""))
    text = INVENTORY + "credentials: {file: creds.yaml}\n"
    inv = write_inventory(root / f"{kind}-creds", text, creds_yaml="username: a\npassword: b\n")
    argv = ["collect", str(inv), "-o", str(root / f"{kind}-snap"), "--no-host-key-check"]
    out.append((argv, inv / "creds.yaml", "credentials file"))
    return out


def _snapshot(root: Path, name: str) -> tuple[Path, Path]:
    """(inventory, snapshot) of the small inventory as the lab prints it."""
    inv = write_inventory(root / f"{name}-inv")
    snap = root / f"{name}-snap"
    assert main(["lab", "snapshot", str(inv), "-o", str(snap)]) == 0
    return inv, snap


SNAPSHOT_FILES = ("meta.json", "leaf-su1-r1/show_running-config.txt")


def test_special_file_where_a_user_file_belongs(tree: Path):
    """Every kind of special file in the place of every user file, in one child interpreter."""
    cases: list[tuple[list[str], list[str]]] = []
    inv, pristine = _snapshot(tree, "special")
    for kind in KINDS:
        for argv, target, what in _targets(tree, kind):
            _make(target, kind)
            cases.append((argv, [target.name, *KIND_NEEDLES[kind], what]))
        for i, rel in enumerate(SNAPSHOT_FILES):
            snap = tree / f"{kind}-snap-{i}"
            shutil.copytree(pristine, snap)
            _make(snap / rel, kind)
            cases.append(
                (["check", str(inv), "--snapshot", str(snap)], [str(snap / rel), *KIND_NEEDLES[kind]])
            )
    # A device's folder that is a symlink loop is not silently skipped.
    snap = tree / "loop-device"
    shutil.copytree(pristine, snap)
    _make(snap / "gpu01", "loop")
    cases.append((["check", str(inv), "--snapshot", str(snap)], [str(snap / "gpu01"), "not a folder"]))
    _assert_answered(run_cases([argv for argv, _ in cases]), cases)


def _unreadable_cases(root: Path) -> tuple[list[tuple[list[str], list[str]]], list[Path], list[str]]:
    """Cases whose file or folder the user may not read, the paths to chmod 000, and a clean run."""
    cases, locked = [], []
    for argv, target, _ in _targets(root, "locked"):
        cases.append((argv, [target.name, "ermission denied"]))
        locked.append(target)
    folder = write_inventory(root / "locked-folder")
    cases.append((["check", str(folder)], ["locked-folder", "ermission denied"]))
    locked.append(folder)
    inv, snap = _snapshot(root, "locked")
    for i, rel in enumerate([*SNAPSHOT_FILES, "gpu01", ""]):
        copy = root / f"locked-snap-{i}"
        shutil.copytree(snap, copy)
        _open_to_all(copy)  # snapshots are private to their writer: open this one up but for its target
        target = copy / rel
        cases.append((["check", str(inv), "--snapshot", str(copy)], [str(target), "ermission denied"]))
        locked.append(target)
    readonly = root / "readonly"
    readonly.mkdir()
    cases.append((["inventory", "generate", "-o", str(readonly / "gen")], ["--output", "writable folder"]))
    return cases, [*locked, readonly], ["check", str(inv), "--snapshot", str(snap)]


def test_unreadable_files_and_folders(tree: Path):
    cases, locked, warmup = _unreadable_cases(tree)
    for path in locked:
        path.chmod(0o555 if path.name == "readonly" else 0)
    uid = NOBODY if os.geteuid() == 0 else -1
    results = run_cases([argv for argv, _ in cases], uid=uid, warmup=(warmup,))
    _assert_answered(results, cases)


def test_a_file_the_kernel_sizes_as_empty_is_read_whole_and_still_bounded():
    """Reads are sized to the file, but procfs reports size 0 for files that hold text: they are read
    whole all the same, and one larger than the bound is still refused."""
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    data = read_bytes(status, "process status")
    assert data.startswith(b"Name:") and b"\nPid:" in data
    with pytest.raises(InputError, match="larger than 10 bytes"):
        read_bytes(status, "process status", max_bytes=10)
