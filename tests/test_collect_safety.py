"""Nothing lost, nothing leaked: what collection, audits and the lab do with the operator's files,
with write errors, with signals, with changed host keys, with bad options, and with commands that
would change a device. Real SSH to the lab, real signals, real files; no mocks."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from netmiko import ConnectHandler

from netcfg.audit import previous_snapshot, run_audit
from netcfg.cli import main
from netcfg.collect import CollectOptions, Selection, collect, collected_batches
from netcfg.errors import InputError, Interrupted
from netcfg.interrupt import raise_on_signals
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, read_only_responder, shell_responder, write_connection_files
from netcfg.lab.profile import LabDevice
from netcfg.lab.snapshot import simulated_outputs
from netcfg.lab.sshserver import LabServer
from netcfg.nornir_inventory import Login
from netcfg.platforms import get_platform, platform_names
from netcfg.platforms.base import is_read_only
from netcfg.platforms.simulator import simulator
from netcfg.snapshot import SnapshotWriter
from tests.conftest import LAB, ROOT

USER, PASSWORD = "auditor", "Safety-lab-pass-1"
LOGIN = Login(USER, PASSWORD)
ENV = os.environ | {"NETCFG_USERNAME": USER, "NETCFG_PASSWORD": PASSWORD}
SPINES = Selection(role="spine")


@pytest.fixture
def credentials(monkeypatch):
    monkeypatch.setenv("NETCFG_USERNAME", USER)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)


@pytest.fixture
def nowhere(tmp_path_factory, lab_fabric) -> list[str]:
    """`--connections` to a closed port on the loopback: a run that should be refused before it
    contacts a device never reaches out of 127.0.0.1 even if it is not."""
    path = tmp_path_factory.mktemp("nowhere") / "connections.json"
    path.write_text(json.dumps({name: {"hostname": "127.0.0.1", "port": 9} for name in lab_fabric.devices}))
    return ["--connections", str(path)]


def _conns(server: LabServer) -> dict[str, dict]:
    return {name: {"hostname": server.host, "port": port} for name, port in server.ports.items()}


def _netcfg(*args: str) -> list[str]:
    return [sys.executable, "-m", "netcfg", *args]


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- 1. an existing target is never removed ---------------------------------------------------------


def _foreign_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "fabric.yaml").write_text("name: mine\n")
    return folder


def _fake_meta(tmp_path: Path) -> Path:
    folder = tmp_path / "other-tool"
    (folder / "spine1").mkdir(parents=True)
    (folder / "meta.json").write_text('{"tool": "not netcfg"}\n')
    return folder


def _a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("keep me\n")
    return path


def _inside_a_file(tmp_path: Path) -> Path:
    return _a_file(tmp_path) / "snap"


def _a_symlink(tmp_path: Path) -> Path:
    link = tmp_path / "link"
    link.symlink_to(_foreign_folder(tmp_path))
    return link


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (_foreign_folder, "not a netcfg snapshot"),
        (_fake_meta, "not a netcfg snapshot"),
        (_a_file, "not a folder"),
        (_a_symlink, "symbolic link"),
        (_inside_a_file, "is not a folder, so"),
    ],
)
def test_collect_never_writes_over_what_netcfg_did_not_write(
    tmp_path, credentials, nowhere, capsys, make, expected
):
    target = make(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code = main(["collect", str(LAB), "-o", str(target), "--no-host-key-check", "--overwrite", *nowhere])
    line = _one_line(capsys.readouterr().err)
    assert code == 2
    assert str(target) in line and expected in line
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_collect_into_the_working_folder_is_refused(tmp_path, credentials, nowhere, capsys, monkeypatch):
    work = _foreign_folder(tmp_path)
    monkeypatch.chdir(work)
    assert main(["collect", str(LAB), "-o", ".", "--no-host-key-check", *nowhere]) == 2
    assert str(work) in _one_line(capsys.readouterr().err)
    assert sorted(p.name for p in work.iterdir()) == ["fabric.yaml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]


def test_an_earlier_snapshot_is_replaced_only_with_overwrite_and_only_if_netcfg_wrote_all_of_it(
    lab_fabric, lab_policy, tmp_path
):
    target = tmp_path / "snap"
    opts = CollectOptions(workers=2, timeout_s=3.0)
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        connections = _conns(server)
        collect(lab_fabric, LOGIN, target, opts, SPINES, connections)
        first = (target / "meta.json").read_text()
        with pytest.raises(InputError, match="earlier netcfg snapshot; give --overwrite"):
            collect(lab_fabric, LOGIN, target, opts, SPINES, connections)
        assert (target / "meta.json").read_text() == first

        collect(lab_fabric, LOGIN, target, opts, SPINES, connections, replace=True)
        assert (target / "meta.json").read_text() != first
        assert sorted(p.name for p in target.iterdir()) == ["meta.json", "spine1.jsonl", "spine2.jsonl"]

        (target / "spine1").mkdir()
        (target / "spine1" / "my-notes.md").write_text("mine\n")
        with pytest.raises(InputError, match=r"my-notes\.md: was not written by netcfg"):
            collect(lab_fabric, LOGIN, target, opts, SPINES, connections, replace=True)
    assert (target / "spine1" / "my-notes.md").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]


# --- 2. write errors: one line, exit 4, nothing committed ----------------------------------------------


def _limited(limit: int, *args: str) -> list[str]:
    """The CLI with files capped at `limit` bytes: a larger write fails with EFBIG, a real OS error
    (Python ignores SIGXFSZ, so the process is not killed by it)."""
    script = (
        "import resource, runpy, sys\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, resource.RLIM_INFINITY))\n"
        f"sys.argv = ['netcfg', *{list(args)!r}]\n"
        "runpy.run_module('netcfg', run_name='__main__')\n"
    )
    return [sys.executable, "-c", script]


@pytest.mark.parametrize(
    ("limit", "processes"),
    [
        (1000, 1),  # device outputs (up to 1.8 KB) fail while devices are being collected
        (1000, 2),  # ... in collector processes
        (2500, 1),  # every output fits; meta.json (about 15 KB), written last, does not
    ],
)
def test_a_write_error_stops_collection_with_exit_4_and_leaves_nothing(
    lab_fabric, lab_policy, tmp_path, limit, processes
):
    out = tmp_path / "out"
    out.mkdir()
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        run = subprocess.run(
            _limited(
                limit,
                *("collect", str(LAB), "-o", str(out / "snap"), "--processes", str(processes)),
                *("--workers", "4", "--connections", str(conns), "--known-hosts", str(known)),
            ),
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
    line = _one_line(run.stderr)
    assert run.returncode == 4, run.stderr
    assert "could not write output: File too large" in line and str(out) in line
    assert "timeout" not in run.stdout + run.stderr
    assert list(out.iterdir()) == []


def test_an_audit_whose_report_cannot_be_written_keeps_no_snapshot(lab_fabric, lab_policy, tmp_path):
    """The report is written after the snapshot: if it fails, the snapshot goes too, so the next
    audit drifts against the last audit somebody could read."""
    snapshots, reports = tmp_path / "snapshots", tmp_path / "reports"
    leaves = Selection(role="leaf")
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        first = run_audit(
            lab_fabric,
            lab_policy,
            LOGIN,
            snapshots,
            reports,
            CollectOptions(workers=8),
            leaves,
            _conns(server),
        )
    # Every leaf drifts on every port: the report (about 29 KB) outgrows the 24 KB cap, which every
    # snapshot file (a leaf's outputs about 17 KB, meta.json about 3 KB) stays under.
    drifted = DeviceFaults(
        pfc_priority=4, ecn=False, mtu={f"Ethernet{p}": 1500 for p in (1, 2, 3, 4, 31, 32)}
    )
    faults = {name: drifted for name, d in lab_fabric.devices.items() if d.role == "leaf"}
    with lab_server(lab_fabric, lab_policy, faults, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        run = subprocess.run(
            _limited(
                24_000,
                *("audit", str(LAB), "--role", "leaf", "--snapshots", str(snapshots)),
                *("--reports", str(reports), "--connections", str(conns), "--known-hosts", str(known)),
            ),
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 4, run.stderr
    line = _one_line(run.stderr)
    assert f"{reports / 'lab'}/" in line and ".json: could not write output: File too large" in line
    assert list((snapshots / "lab").iterdir()) == [first.snapshot]
    assert sorted((reports / "lab").iterdir()) == sorted(first.reports.values())
    assert previous_snapshot(snapshots / "lab", snapshots / "lab" / "99999999") == first.snapshot


@pytest.mark.parametrize("processes", [1, 2])
def test_an_unreadable_previous_snapshot_fails_the_audit_after_collection_and_keeps_no_new_one(
    lab_fabric, lab_policy, tmp_path, processes
):
    """The previous snapshot is parsed while the devices are collected; a file of it that cannot be
    read fails the audit as it did when read afterwards (naming the file), and the new snapshot goes."""
    snapshots, reports = tmp_path / "snapshots", tmp_path / "reports"
    leaves = Selection(role="leaf")
    opts = CollectOptions(workers=8, processes=processes)
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        first = run_audit(lab_fabric, lab_policy, LOGIN, snapshots, reports, opts, leaves, _conns(server))
        # A device's output with a bad byte is that output unreadable (one finding); an entry of the
        # snapshot's own metadata that netcfg never writes makes the snapshot unreadable.
        damaged = first.snapshot / "meta.json"
        meta = json.loads(damaged.read_text())
        meta["devices"]["leaf-su1-r1"]["error"] = {"kind": "bogus", "message": "?"}
        damaged.write_text(json.dumps(meta))
        with pytest.raises(InputError) as raised:
            run_audit(lab_fabric, lab_policy, LOGIN, snapshots, reports, opts, leaves, _conns(server))
    assert str(damaged) in str(raised.value)
    assert list((snapshots / "lab").iterdir()) == [first.snapshot]
    assert sorted((reports / "lab").iterdir()) == sorted(first.reports.values())


def test_an_audit_whose_reports_folder_cannot_be_made_contacts_no_device(
    tmp_path, credentials, nowhere, capsys
):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "lab").write_text("a file where the folder goes\n")
    code = main(
        [
            "audit",
            str(LAB),
            "--no-host-key-check",
            "--snapshots",
            str(tmp_path / "s"),
            "--reports",
            str(reports),
            *nowhere,
        ]
    )
    line = _one_line(capsys.readouterr().err)
    assert code == 4
    assert f"{reports / 'lab'}: could not write output" in line
    assert not (tmp_path / "s").exists()


# --- 3. SIGINT and SIGTERM ------------------------------------------------------------------------------


def _as_at_a_terminal() -> None:
    """Ctrl-C at its default in the child, as a shell at a terminal starts a command: a test suite
    run as a background job (`make test &`) starts with SIGINT ignored, every child inherits that,
    and netcfg rightly leaves an ignored signal ignored (`nohup`)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_signal_the_run_was_started_with_ignored_stays_ignored():
    """`nohup netcfg audit ...`, or an audit a script starts in the background: Ctrl-C at the
    terminal is not for them. SIGTERM still stops them, and the ignored signal stays ignored after."""
    started_with = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with raise_on_signals():
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        with pytest.raises(Interrupted) as stopped, raise_on_signals():
            signal.raise_signal(signal.SIGTERM)
        assert stopped.value.signal_name == "SIGTERM"
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, started_with)


def _group(pgid: int) -> list[int]:
    """Live processes of process group `pgid`, from /proc."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the collection did not get going"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("command", "signum", "processes"),
    [
        ("collect", signal.SIGINT, 1),
        ("collect", signal.SIGTERM, 2),
        ("audit", signal.SIGINT, 2),
        ("audit", signal.SIGTERM, 1),
    ],
)
def test_a_signal_stops_collection_at_once_and_leaves_nothing(
    lab_fabric, lab_policy, tmp_path, command, signum, processes
):
    # Every command of every device takes 0.2 s: the whole collection would take 8 s or more, the first
    # device is saved after about 2 s.
    slow = {name: DeviceFaults(slow_s=0.2) for name in lab_fabric.devices}
    snapshots, reports = tmp_path / "snapshots", tmp_path / "reports"
    parent = snapshots / "lab" if command == "audit" else snapshots
    where = ["--snapshots", str(snapshots), "--reports", str(reports)] if command == "audit" else []
    where = where or ["-o", str(snapshots / "snap")]
    with lab_server(lab_fabric, lab_policy, slow, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        cli = _netcfg(command, str(LAB), *where, "--processes", str(processes), "--workers", "2")
        cli += ["--connections", str(conns), "--known-hosts", str(known)]
        with subprocess.Popen(
            cli,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_as_at_a_terminal,
        ) as proc:
            # Signalled mid-collection: a device is saved in the hidden temporary folder, others are not.
            _wait_for(lambda: any(p.suffix == ".jsonl" for t in parent.glob(".*") for p in t.iterdir()))
            assert len(_group(proc.pid)) == 1 + (processes if processes > 1 else 0)
            if signum == signal.SIGINT:
                os.killpg(proc.pid, signum)  # as Ctrl-C at a terminal: the whole process group
            else:
                proc.send_signal(signum)  # as `kill`: the netcfg process only
            signalled = time.monotonic()
            _, err = proc.communicate(timeout=20)
            stopped_after = time.monotonic() - signalled
    assert proc.returncode == 128 + signum, err
    assert f"interrupted by {signal.Signals(signum).name}" in _one_line(err)
    assert stopped_after < 5, f"took {stopped_after:.1f} s to stop"
    assert _group(proc.pid) == []
    assert list(parent.iterdir()) == []  # no snapshot, no hidden temporary or known_hosts folder
    if command == "audit":
        assert previous_snapshot(parent, parent / "99999999") is None
        assert list((reports / "lab").iterdir()) == []


def test_collectors_die_with_a_killed_audit_and_the_next_audit_removes_its_leftovers(
    lab_fabric, lab_policy, tmp_path
):
    """SIGKILL leaves netcfg no chance to clean up: the kernel ends its collectors, the hidden
    half-written folder it leaves is not a snapshot to the next audit, and that audit removes it
    (and the folder of per-device known_hosts files) before it collects."""
    slow = {name: DeviceFaults(slow_s=0.2) for name in lab_fabric.devices}
    root = tmp_path / "snapshots" / "lab"
    with lab_server(lab_fabric, lab_policy, slow, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        cli = _netcfg("audit", str(LAB), "--snapshots", str(tmp_path / "snapshots"), "--processes", "2")
        cli += [
            "--reports",
            str(tmp_path / "reports"),
            "--connections",
            str(conns),
            "--known-hosts",
            str(known),
        ]
        with subprocess.Popen(cli, env=ENV, stderr=subprocess.PIPE, start_new_session=True) as proc:
            _wait_for(lambda: any(p.suffix == ".jsonl" for t in root.glob(".*") for p in t.iterdir()))
            assert len(_group(proc.pid)) == 3
            proc.kill()
            proc.wait(timeout=10)
            _wait_for(lambda: _group(proc.pid) == [], seconds=5)
    left = sorted(p.name for p in root.iterdir())
    assert [name.startswith(".") for name in left] == [True, True], left  # snapshot and known_hosts
    assert all(f".netcfg-{proc.pid}-" in name for name in left), left
    assert previous_snapshot(root, root / "99999999") is None
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        opts = CollectOptions(workers=4, timeout_s=5.0, known_hosts=known)
        result = run_audit(
            lab_fabric,
            lab_policy,
            LOGIN,
            tmp_path / "snapshots",
            tmp_path / "reports",
            opts,
            SPINES,
            _conns(server),
        )
    assert result.previous is None
    assert list(root.iterdir()) == [result.snapshot]


def _leftover(parent: Path, pid: int, files: dict[str, str], tag: str = "abc123_x") -> Path:
    """A working folder as a collection of process `pid` leaves it when killed."""
    folder = parent / f".20250101T000000Z.netcfg-{pid}-{tag}"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def _dead_pid() -> int:
    with subprocess.Popen([sys.executable, "-c", "pass"]) as proc:
        proc.wait()
    return proc.pid


def test_only_leftovers_of_dead_collections_holding_only_netcfg_files_are_removed(
    lab_fabric, lab_policy, tmp_path
):
    dead = _dead_pid()
    outputs = {"spine1/show_version.txt": "x\n", "meta.json": "{}\n"}
    gone = _leftover(tmp_path, dead, outputs)
    mine = _leftover(tmp_path, dead, {**outputs, "spine1/notes.md": "mine\n"}, "mine")
    live = _leftover(tmp_path, os.getpid(), outputs)
    locked = _leftover(tmp_path, dead, outputs, "locked")
    # A writer whose pid means nothing here (another host or container on a shared folder) still
    # holds its folder's lock.
    hold = "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
    hold += "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()"
    with subprocess.Popen(
        [sys.executable, "-c", hold, str(locked)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        writer = SnapshotWriter(tmp_path / "running")  # a live writer's own working folder
        with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
            collect(lab_fabric, LOGIN, tmp_path / "snap", CollectOptions(workers=2), SPINES, _conns(server))
        holder.communicate("")
    assert not gone.exists()
    assert (mine / "spine1" / "notes.md").read_text() == "mine\n"
    assert live.is_dir() and locked.is_dir() and writer.tmp.is_dir()
    writer.abort()
    assert (tmp_path / "snap" / "meta.json").is_file()


def test_an_incomplete_folder_is_never_the_previous_snapshot(tmp_path):
    root = tmp_path / "lab"
    complete, incomplete = root / "20250101T000000.000000Z", root / "20250102T000000.000000Z"
    for folder in (complete, incomplete):
        (folder / "spine1").mkdir(parents=True)
        (folder / "spine1" / "show_running-config.txt").write_text("hostname spine1\n")
    (complete / "meta.json").write_text(json.dumps({"netcfg_version": "0.1.0", "devices": {"spine1": {}}}))
    current = root / "20250103T000000.000000Z"
    assert previous_snapshot(root, current) == complete
    assert previous_snapshot(root, current, {"spine1"}) == complete
    assert previous_snapshot(root, current, {"leaf-su1-r1"}) is None


# --- 5. read-only, provably -----------------------------------------------------------------------------


# The bundled inventories, and test inventories of the platforms no bundled one runs yet: together
# they run every platform.
INVENTORIES = {
    "lab": ROOT / "inventories" / "lab",
    "example-1024": ROOT / "inventories" / "example-1024",
    "lab-nvidia": ROOT / "inventories" / "lab-nvidia",
    "lab-multi": ROOT / "inventories" / "lab-multi",
    "thor": ROOT / "tests" / "fixtures" / "thor" / "inventory",
    "sonic": ROOT / "tests" / "fixtures" / "sonic" / "inventory",
    "cumulus": ROOT / "tests" / "fixtures" / "cumulus" / "lab",
    "nxos": ROOT / "tests" / "fixtures" / "nxos" / "inventory",
    "junos": ROOT / "tests" / "fixtures" / "junos" / "inventory",
}


@pytest.mark.parametrize("inventory", sorted(INVENTORIES))
def test_every_collected_command_is_on_its_platforms_read_only_list(inventory):
    fabric = load_fabric(INVENTORIES[inventory])
    for device in fabric.devices.values():
        platform = get_platform(device.platform)
        lines = [b.cli for b in collected_batches(platform, device, CollectOptions(routes=True))]
        for cli in (
            [c.cli for c in platform.commands(device)] + [b.cli for b in platform.batches(device)] + lines
        ):
            assert is_read_only(platform, cli), f"{device.name} ({platform.name}) would send {cli!r}"


def test_those_inventories_run_every_platform():
    seen = {device.platform for path in INVENTORIES.values() for device in load_fabric(path).devices.values()}
    assert seen == set(platform_names())


WRITES = {
    "connectx": [
        "mlnx_qos -i eth0 --trust pcp",
        "mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0",
        "mlnx_qos -i --trust=pcp",
        "ethtool -s eth0 speed 100000",
        "lldpcli configure system hostname x",
        "grep -rH . /sys/../etc/shadow",
        "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3",
        'echo "=== mlnx_qos -i eth0 ==="; mlnx_qos -i eth0 --trust pcp',
        'echo "=== mlnx_qos -i eth0; reboot ==="; mlnx_qos -i eth0',
    ],
    "eos": [
        "configure terminal",
        "show running-config | redirect flash:x",
        "copy running-config startup-config",
        "reload now",
    ],
}


@pytest.mark.parametrize(("platform_name", "cli"), [(p, c) for p, cs in WRITES.items() for c in cs])
def test_commands_that_change_a_device_are_not_read_only(platform_name, cli):
    assert not is_read_only(get_platform(platform_name), cli)


@given(suffix=st.text(alphabet=";&|`$><()\n\"'\\*? ", min_size=1))
def test_nothing_can_be_appended_to_a_read_only_command(suffix):
    platform = get_platform("connectx")
    assert is_read_only(platform, "mlnx_qos -i eth0")
    assert not is_read_only(platform, f"mlnx_qos -i eth0{suffix}") or suffix.strip() == ""


def test_the_lab_refuses_a_command_that_would_set_pfc_over_ssh(lab_fabric, lab_policy):
    """A script in the field read PFC state with an `mlnx_qos` call that sets it. The lab's host
    knows the line (as a real mlnx_qos would) and still answers only what is on the read-only list."""
    host = lab_fabric.devices["gpu01"]
    platform = get_platform(host.platform)
    outputs = simulated_outputs(lab_fabric, lab_policy, {})["gpu01"] | {"mlnx_qos -i eth0 --trust pcp": ""}
    device = LabDevice(
        "gpu01",
        simulator(platform.name).cli_profile,
        read_only_responder(simulator(platform.name), shell_responder(outputs)),
    )
    with LabServer([device], username=USER, password=PASSWORD) as server:
        conn = ConnectHandler(
            device_type=platform.netmiko_device_type,
            host=server.host,
            port=server.ports["gpu01"],
            username=USER,
            password=PASSWORD,
            ssh_strict=False,
            system_host_keys=False,
        )
        try:
            refused = conn.send_command("mlnx_qos -i eth0 --trust pcp")
            after = conn.send_command("mlnx_qos -i eth0")
        finally:
            conn.disconnect()
    assert refused.strip() == simulator(platform.name).cli_profile.invalid_input.format(
        command="mlnx_qos -i eth0 --trust pcp"
    )
    assert "Priority trust state: dscp" in after


def test_the_lab_fabric_refuses_configuration_over_ssh(lab_fabric, lab_policy):
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        conn = ConnectHandler(
            device_type="arista_eos",
            host=server.host,
            port=server.ports["leaf-su1-r1"],
            username=USER,
            password=PASSWORD,
            ssh_strict=False,
            system_host_keys=False,
        )
        try:
            replies = [conn.send_command(c, expect_string="#") for c in ("configure terminal", "reload now")]
        finally:
            conn.disconnect()
    assert [r.strip() for r in replies] == ["% Invalid input", "% Invalid input"]


# --- 6. options out of range ----------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


BAD_OPTIONS = [
    (["--workers", "0"], "--workers: '0': expected a whole number from 1 to 10,000"),
    (["--processes", "0"], "--processes: '0': expected a whole number from 1 to 256"),
    (["--processes", "-2"], "--processes: '-2': expected a whole number from 1 to 256"),
    (["--timeout", "-1"], "--timeout: expected a number of seconds above 0"),
    (["--timeout", "0"], "--timeout: expected a number of seconds above 0"),
    (["--jitter", "-0.5"], "--jitter: expected a number of seconds of at least 0"),
    (["--jitter", "inf"], "--jitter: expected a number of seconds of at least 0"),
    (["--rail", "0"], "--rail: '0': expected a whole number from 1 to 64"),
    (["--rail", "9"], "--rail 9: matches no device of the inventory"),
    (["--device", "nosuch*"], "--device nosuch*: matches no device of the inventory"),
    (["--role", "superspine"], "--role superspine: matches no device of the inventory"),
]


@pytest.mark.parametrize("command", ["collect", "audit"])
@pytest.mark.parametrize(("options", "expected"), BAD_OPTIONS)
def test_options_out_of_range_are_refused_and_nothing_is_written(
    tmp_path, credentials, nowhere, capsys, command, options, expected
):
    where = ["-o", str(tmp_path / "out" / "snap")] if command == "collect" else []
    where = where or ["--snapshots", str(tmp_path / "out"), "--reports", str(tmp_path / "reports")]
    assert main([command, str(LAB), *where, "--no-host-key-check", *nowhere, *options]) == 2
    assert expected in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.txt"))
    assert not any(p.name.startswith(".") for p in tmp_path.rglob("*"))


GOOD = {"hostname": "127.0.0.1", "port": 2222}
BAD_CONNECTIONS = [
    ("missing", None, "connections file not found"),
    ("a folder", "", "not a regular file"),
    ("not json", "spine1: 2222\n", "not JSON"),
    ("a list", "[1, 2]", "expected a JSON object mapping device"),
    ("port text", {**GOOD, "port": "22"}, "spine1.port: expected a TCP port 1-65535, got '22'"),
    ("port 0", {**GOOD, "port": 0}, "spine1.port: expected a TCP port 1-65535, got 0"),
    ("port true", {**GOOD, "port": True}, "spine1.port: expected a TCP port 1-65535, got True"),
    ("port too big", {**GOOD, "port": 70000}, "spine1.port: expected a TCP port 1-65535"),
    ("hostname number", {**GOOD, "hostname": 127}, "spine1.hostname: expected a host name or address"),
    ("unknown key", {**GOOD, "user": "x"}, "spine1: expected an object with 'hostname' and/or 'port' only"),
]


@pytest.mark.parametrize(("case", "content", "expected"), BAD_CONNECTIONS)
def test_a_bad_connections_file_is_named(tmp_path, credentials, capsys, case, content, expected):
    if content is None:
        path = str(tmp_path / "nope.json")
    elif content == "":
        path = str(tmp_path)
    else:
        text = content if isinstance(content, str) else json.dumps({"spine1": content})
        path = _write(tmp_path, "connections.json", text)
    code = main(
        ["collect", str(LAB), "-o", str(tmp_path / "snap"), "--no-host-key-check", "--connections", path]
    )
    line = _one_line(capsys.readouterr().err)
    assert code == 2
    assert path in line and expected in line
    assert not (tmp_path / "snap").exists()


KNOWN_HOSTS = [
    ("a folder", None, "not a regular file"),
    ("binary", b"\x00\xff\xfe garbage\n", ":1: not UTF-8 text"),
    ("json", '{"spine1": "ssh-ed25519 AAAA"}\n', ":1: expected 'HOSTS KEY-TYPE BASE64-KEY'"),
    ("bad key", "# lab\n[127.0.0.1]:2222 ssh-ed25519 not*base64!\n", ":2: the key is not a valid base64"),
    ("revoked", "@revoked * ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE\n", ":1: @revoked is not supported"),
]


@pytest.mark.parametrize(("case", "content", "expected"), KNOWN_HOSTS)
def test_a_file_that_is_not_known_hosts_is_named(
    tmp_path, credentials, nowhere, capsys, case, content, expected
):
    path = str(tmp_path) if content is None else _write(tmp_path, "known_hosts", content)
    code = main(["collect", str(LAB), "-o", str(tmp_path / "snap"), "--known-hosts", path, *nowhere])
    line = _one_line(capsys.readouterr().err)
    assert code == 2
    assert f"--known-hosts {path}" in line and expected in line
    assert not (tmp_path / "snap").exists()


# --- 7. an audit of a selection drifts only over the selection ------------------------------------------


def test_an_audit_of_one_rail_compares_only_that_rail(lab_fabric, lab_policy, tmp_path):
    snapshots, reports = tmp_path / "snapshots", tmp_path / "reports"
    opts = CollectOptions(workers=8)
    faults = {"leaf-su1-r1": DeviceFaults(mtu={"Ethernet2": 1500}), "leaf-su1-r2": DeviceFaults(ecn=False)}
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        full = run_audit(lab_fabric, lab_policy, LOGIN, snapshots, reports, opts, connections=_conns(server))
    # A newer folder without netcfg's meta.json (an interrupted run): never the one compared against.
    stray = snapshots / "lab" / f"{full.snapshot.name}-incomplete"
    (stray / "leaf-su1-r1").mkdir(parents=True)
    with lab_server(lab_fabric, lab_policy, faults, USER, PASSWORD) as server:
        rail = run_audit(
            lab_fabric, lab_policy, LOGIN, snapshots, reports, opts, Selection(rail=1), _conns(server)
        )
    selected = {"leaf-su1-r1", "leaf-su2-r1", *(f"gpu0{i}" for i in range(1, 9))}
    assert set(rail.collected) == selected
    assert rail.previous == full.snapshot
    assert {(c.device, c.setting, c.before, c.after) for c in rail.changes} == {
        ("leaf-su1-r1", "Ethernet2.mtu", "9214", "1500")
    }


# --- 8. the lab stops on a signal and takes its files with it -------------------------------------------


@pytest.mark.parametrize(("signum", "fresh"), [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_lab_serve_stops_on_a_signal_and_removes_what_it_wrote(tmp_path, signum, fresh):
    """A fresh state dir (two levels) goes entirely; an existing one keeps what was there before."""
    state = tmp_path / "new" / "state" if fresh else tmp_path / "mine"
    if not fresh:
        state.mkdir()
        (state / "notes.txt").write_text("mine\n")
    with _serving(state) as proc:
        port = json.loads((state / "connections.json").read_text())["spine1"]["port"]
        assert (state / "known_hosts").read_text().count(f"[127.0.0.1]:{port} ") == 1
        with socket.create_connection(("127.0.0.1", port), timeout=3) as sock:
            assert sock.recv(64).startswith(b"SSH-2.0-")
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # Ctrl-C at the terminal
        else:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert err == ""
    if fresh:
        assert list(tmp_path.iterdir()) == []
    else:
        assert [p.name for p in state.iterdir()] == ["notes.txt"]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_lab_serve_refuses_a_state_dir_that_is_a_file(tmp_path, credentials, capsys):
    state = _a_file(tmp_path)
    assert main(["lab", "serve", str(LAB), "--state-dir", str(state)]) == 2
    assert f"--state-dir {state}: exists and is not a folder" in _one_line(capsys.readouterr().err)
    assert state.read_text() == "keep me\n"


# --- 9. one lab, one demo per folder -------------------------------------------------------------------


@contextmanager
def _serving(state: Path) -> Iterator[subprocess.Popen]:
    """`netcfg lab serve` on `state`, once it says it serves; killed if the test leaves it running."""
    with subprocess.Popen(
        _netcfg("lab", "serve", str(LAB), "--state-dir", str(state)),
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if "Ctrl-C stops the lab." in line:
                    break
            else:
                raise AssertionError(f"the lab did not start: {proc.communicate()}")
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()


def _refused(*args: str) -> subprocess.CompletedProcess:
    """A netcfg run that must be refused at once (exit 2), not run alongside another."""
    run = subprocess.run(_netcfg(*args), env=ENV, capture_output=True, text=True, timeout=30)
    assert run.returncode == 2, run.stderr
    return run


def test_a_second_lab_on_a_state_dir_is_refused_naming_the_first(tmp_path):
    state = tmp_path / "state"
    with _serving(state) as first:
        files = {p.name: p.read_bytes() for p in state.iterdir() if p.name != ".netcfg.lock"}
        second = _refused("lab", "serve", str(LAB), "--state-dir", str(state))
        line = _one_line(second.stderr)
        assert f"--state-dir {state}: is in use by netcfg lab serve (pid {first.pid}, started 20" in line
        assert {p.name: p.read_bytes() for p in state.iterdir() if p.name != ".netcfg.lock"} == files
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=15)
    assert first.returncode == 0, err
    assert list(tmp_path.iterdir()) == []


def test_the_lock_of_a_killed_lab_is_taken_over(tmp_path):
    state = tmp_path / "state"
    with _serving(state) as killed:
        killed.kill()
        killed.communicate(timeout=10)
    assert json.loads((state / ".netcfg.lock").read_text())["pid"] == killed.pid
    with _serving(state) as second:
        assert json.loads((state / ".netcfg.lock").read_text())["pid"] == second.pid
        second.send_signal(signal.SIGINT)
        _, err = second.communicate(timeout=15)
    assert second.returncode == 0, err
    assert list(state.iterdir()) == []


def test_a_lock_file_netcfg_did_not_write_is_refused_and_kept(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / ".netcfg.lock").write_text("my notes\n")
    refused = _refused("lab", "serve", str(LAB), "--state-dir", str(state))
    assert "was not written by netcfg" in _one_line(refused.stderr)
    assert [p.name for p in state.iterdir()] == [".netcfg.lock"]
    assert (state / ".netcfg.lock").read_text() == "my notes\n"


def test_a_second_demo_in_a_folder_is_refused_and_a_signal_releases_the_first(tmp_path):
    out = tmp_path / "demo"
    # Every device answers slowly: the first demo is still auditing when the second starts.
    faults = tmp_path / "faults.yaml"
    faults.write_text(
        "devices:\n" + "".join(f"  {name}: {{slow_s: 1}}\n" for name in load_fabric(LAB).devices)
    )
    with subprocess.Popen(
        _netcfg("demo", "--out", str(out), "--faults", str(faults)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as first:
        try:
            _wait_for(lambda: (out / "lab" / "connections.json").is_file())
            line = _one_line(_refused("demo", "--out", str(out)).stderr)
            assert f"--out {out}: is in use by netcfg demo (pid {first.pid}, started 20" in line
            first.send_signal(signal.SIGTERM)
            _, err = first.communicate(timeout=20)
        finally:
            if first.poll() is None:
                first.kill()
    assert first.returncode == 143, err
    assert not (out / ".netcfg.lock").exists()
