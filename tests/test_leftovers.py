"""What a killed netcfg run leaves is removed by the next run that finds it, and nothing else is:
a snapshot moved aside for its successor (`.replaced`) or half removed (`.discarded`), a render's
hidden temporary file, a report's, a drain list's or the go-live baseline record's. Look-alikes of a
user's own, or of a run still alive, stay."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from netcfg.audit import BASELINE_FILE, record_baseline, write_reports
from netcfg.cli import main
from netcfg.errors import OutputError
from netcfg.report import Report
from netcfg.report.layout import fabric_layout
from tests.conftest import LAB, ROOT


def dead_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_render_leaves_a_temporary_file_the_next_render_removes(tmp_path, capsys):
    out = tmp_path / "configs"
    assert main(["render", str(LAB), "-o", str(out)]) == 0
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    # A render killed (SIGKILL) between writing its temporary file and renaming it into place.
    script = (
        "import os, signal, sys\n"
        "from netcfg import manifest\n"
        "real = os.replace\n"
        "def killed(src, dst, *a, **k):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "manifest.Path.replace = lambda self, target: killed(self, target)\n"
        "from netcfg.cli import main\n"
        f"sys.exit(main(['render', {str(LAB)!r}, '-o', {str(out)!r}, '--overwrite']))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False
    )
    assert run.returncode == -signal.SIGKILL
    left = [p for p in out.iterdir() if re.search(r"\.netcfg-\d", p.name)]
    assert len(left) == 1 and left[0].name.split(".netcfg-")[0][1:] in names, left
    name = left[0].name.split(".netcfg-")[0][1:]
    pid = dead_pid()
    lookalikes = [
        out / f".notes.txt.netcfg-{pid}-0123abcd",  # a name netcfg does not write here
        out / f".{name}.netcfg-{os.getpid()}-0123abcd",  # a run still alive
        out / f".{name}.netcfg-{pid}-not-hex",  # not netcfg's shape
    ]
    for path in lookalikes:
        path.write_text("mine\n")
    folder = out / f".{name}.netcfg-{pid}-89abcdef"
    folder.mkdir()
    assert main(["render", str(LAB), "-o", str(out)]) == 0
    assert not left[0].exists()
    assert all(p.exists() for p in lookalikes) and folder.is_dir()
    assert not [
        p for p in out.iterdir() if re.search(r"\.netcfg-\d", p.name) and p not in [*lookalikes, folder]
    ]


def plant_snapshot(folder, extra: str | None = None) -> None:
    (folder / "leaf1").mkdir(parents=True)
    (folder / "leaf1" / "show_version.txt").write_text("Arista vEOS\n")
    (folder / "meta.json").write_text("{}\n")
    if extra:
        (folder / extra).write_text("a user's notes\n")


def test_snapshots_moved_aside_by_a_killed_run_are_removed_by_the_next_collection(tmp_path, capsys):
    pid = dead_pid()
    replaced = tmp_path / f".snap.netcfg-{pid}-abc123.replaced"
    discarded = tmp_path / f".snap.netcfg-{pid}-def456.discarded"
    plant_snapshot(replaced)
    plant_snapshot(discarded)
    # Look-alikes: a user's file inside, a run still alive, a name without netcfg's pid.
    users = tmp_path / f".snap.netcfg-{pid}-0a0a0a.replaced"
    plant_snapshot(users, extra="notes.md")
    alive = tmp_path / f".snap.netcfg-{os.getpid()}-0b0b0b.replaced"
    plant_snapshot(alive)
    old_shape = tmp_path / ".snap.discarded"
    plant_snapshot(old_shape)
    assert main(["lab", "snapshot", str(LAB), "-o", str(tmp_path / "snap")]) == 0
    assert not replaced.exists() and not discarded.exists()
    assert users.is_dir() and (users / "notes.md").exists() and alive.is_dir() and old_shape.is_dir()
    # Replacing the snapshot moves the old one aside under a name a later run would know.
    assert main(["lab", "snapshot", str(LAB), "-o", str(tmp_path / "snap")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [users.name, alive.name, old_shape.name, "snap"]
    )


def test_a_report_killed_mid_write_leaves_a_temporary_file_the_next_report_removes(tmp_path, capsys):
    report = tmp_path / "report.txt"
    assert main(["check", str(LAB), "--output", str(report)]) in (0, 1)
    pid = dead_pid()
    left = tmp_path / f".report.txt.netcfg-{pid}-0123abcd"
    left.write_text("half a report")
    other = tmp_path / f".notes.txt.netcfg-{pid}-0123abcd"
    other.write_text("mine")
    assert main(["check", str(LAB), "--output", str(report)]) in (0, 1)
    assert not left.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([report.name, other.name])


def test_a_baseline_record_killed_mid_write_leaves_a_temporary_file_the_next_record_removes(tmp_path):
    snapshot = tmp_path / "20261202T180000Z"
    plant_snapshot(snapshot)
    pid = dead_pid()
    left = tmp_path / f".{BASELINE_FILE}.netcfg-{pid}-0123abcd"
    left.write_text('{"snapshot": "half')
    lookalikes = [
        tmp_path / f".notes.json.netcfg-{pid}-0123abcd",  # a name netcfg does not write here
        tmp_path / f".{BASELINE_FILE}.netcfg-{os.getpid()}-0123abcd",  # a run still alive
        tmp_path / f".{BASELINE_FILE}.{pid}",  # not netcfg's shape
    ]
    for path in lookalikes:
        path.write_text("mine\n")
    assert record_baseline(tmp_path, snapshot) == tmp_path / BASELINE_FILE
    assert not left.exists() and all(p.exists() for p in lookalikes)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [snapshot.name, BASELINE_FILE, *(p.name for p in lookalikes)]
    )


def test_audit_reports_are_written_whole_and_a_killed_audits_half_reports_are_removed(tmp_path, lab_fabric):
    folder = tmp_path / "reports" / "lab"
    folder.mkdir(parents=True)
    pid = dead_pid()
    left = [folder / f".20261202T170000.123456Z.{suffix}.netcfg-{pid}-0123abcd" for suffix in ("json", "md")]
    for path in left:
        path.write_text("half a rep")
    lookalikes = [
        folder / f".notes.json.netcfg-{pid}-0123abcd",  # not a report's name
        folder / f".20261202T170000.123456Z.json.netcfg-{os.getpid()}-0123abcd",  # an audit still running
        folder / "20261202T170000.123456Z.json",  # a report (or the user's file) in place
    ]
    for path in lookalikes:
        path.write_text("mine\n")
    report = Report("lab", "live audit", 18, [], layout=fabric_layout(lab_fabric, []))
    stamp = "20261202T180000.000000Z"
    written = write_reports(report, [], folder, stamp)
    assert sorted(written) == ["html", "json", "markdown"]
    assert json.loads(written["json"].read_text())["summary"]["fabric"] == "lab"
    assert not any(p.exists() for p in left) and all(p.read_text() == "mine\n" for p in lookalikes)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(p.name for p in lookalikes), *(p.name for p in written.values())]
    )
    # A report of that name already there is never replaced, and nothing is left beside it.
    with pytest.raises(OutputError):
        write_reports(report, [], folder, stamp)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(p.name for p in lookalikes), *(p.name for p in written.values())]
    )
