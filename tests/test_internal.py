"""netcfg's own failures: never blamed on a device, never dependent on thread timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from netcfg import cli
from tests.conftest import LAB

# The demo's seeded faults (inventories/lab/faults.yaml) and every rule each one must trip; nothing else.
DEMO_FINDINGS = {
    ("gpu05", "link.trust_mismatch"),
    ("gpu05", "qos.trust"),
    ("gpu06", "firmware.rail_skew"),
    ("gpu07", "cabling.wrong_neighbor"),
    ("gpu08", "collect.unreachable"),
    ("leaf-su1-r3", "link.pfc_mismatch"),
    ("leaf-su1-r3", "lossless.path"),
    ("leaf-su1-r3", "pfc.no_drop_priorities"),
    ("leaf-su1-r3", "rail.qos_consistency"),
    ("leaf-su2-r2", "ecn.enabled"),
    ("leaf-su2-r2", "rail.qos_consistency"),
    ("spine2", "firmware.allowed"),
    # Health faults, found by the nightly audit against the go-live one: a cable's speed and flaps
    # show on both of its ends; a cable that is down is one finding, from its lower end.
    ("gpu01", "link.degraded"),
    ("leaf-su1-r2", "link.degraded"),
    ("spine1", "link.flapping"),
    ("leaf-su1-r4", "link.flapping"),
    ("leaf-su2-r4", "link.fec_uncorrected"),
    ("leaf-su2-r4", "link.fec_corrected"),
    ("leaf-su2-r1", "pfc.pause_storm"),
    ("leaf-su2-r1", "pfc.watchdog_storms"),
    ("leaf-su1-r1", "queue.lossless_drops"),
    ("gpu06", "link.down"),
    ("gpu03", "host.cnp_loop"),
    ("gpu04", "host.pcie_degraded"),
    ("gpu02", "link.crc_errors"),
}


def test_first_runs_without_a_usable_ttp_cache_find_exactly_the_seeded_faults(tmp_path):
    # TTP rebuilds its function table with `ast` whenever it has no usable cache (always on a
    # read-only install, modelled by a cache folder that does not exist). CPython 3.11 < 3.11.8
    # fails that in two threads at once, and TTP's module globals are shared by every parser: the
    # demo's collector threads then reported random devices as unreadable and lost their findings.
    env = {**os.environ, "TTPCACHEFOLDER": str(tmp_path / "absent")}
    for run in range(3):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "netcfg",
                "demo",
                str(LAB),
                "--format",
                "json",
                "--out",
                str(tmp_path / f"{run}"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert out.returncode == 1, out.stderr
        found = {(f["device"], f["rule"]) for f in json.loads(out.stdout)["findings"]}
        assert found == DEMO_FINDINGS, f"run {run}: {sorted(found ^ DEMO_FINDINGS)}"


def test_a_bug_in_netcfg_exits_3_with_one_line_and_a_saved_traceback(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)

    def broken(args, console):
        raise KeyError("no such port")

    monkeypatch.setitem(cli.COMMANDS, "rules", broken)
    assert cli.main(["rules"]) == cli.EXIT_INTERNAL == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("netcfg: internal error: KeyError")
    assert "bug in netcfg" in err[0]
    saved = Path(err[0].rsplit("traceback in ", 1)[1].rstrip(")"))
    assert saved.parent == tmp_path
    assert "Traceback" in saved.read_text() and "no such port" in saved.read_text()


@pytest.mark.parametrize("exc", [InterruptedError, KeyboardInterrupt])
def test_interrupts_are_not_reported_as_bugs(monkeypatch, capsys, tmp_path, exc):
    # The InterruptedError run saves its traceback: here, not in the machine's /tmp.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)

    def interrupted(args, console):
        raise exc()

    monkeypatch.setitem(cli.COMMANDS, "rules", interrupted)
    code = cli.main(["rules"])
    if exc is KeyboardInterrupt:
        assert code == 130
        assert "internal error" not in capsys.readouterr().err
    else:
        # Any other exception is netcfg's own.
        assert code == 3
        assert [p.name.startswith("netcfg-crash-") for p in tmp_path.iterdir()] == [True]


def test_a_ttp_result_stays_with_its_text_when_another_thread_parses_right_after(monkeypatch):
    """Collector threads parse side by side. TTP clears and refills one results list per template in
    place, so a result read after the lock is released can already be the next thread's: one leaf's
    LLDP table once came out as a spine's. Here the next parse runs the moment the lock is free."""
    import threading

    from netcfg import parsing

    header = "Port          Neighbor Device ID       Neighbor Port ID    TTL\n" + "-" * 60 + "\n"

    def table(peer: str) -> str:
        return header + f"Et1        {peer}                 Ethernet1         120\n"

    class NextThreadFirst:
        """A lock after whose release another thread's parse runs at once."""

        def __init__(self) -> None:
            self.lock = threading.Lock()
            self.waiting = [table("spine2")]

        def __enter__(self) -> None:
            self.lock.acquire()

        def __exit__(self, *exc: object) -> None:
            self.lock.release()
            while self.waiting:
                parsing.ttp_parse.__wrapped__("eos", "show_lldp_neighbors", self.waiting.pop())

    monkeypatch.setattr(parsing, "_lock", NextThreadFirst())
    mine = parsing.ttp_parse.__wrapped__("eos", "show_lldp_neighbors", table("gpu01"))
    assert [n["system_name"] for n in parsing.many(mine.get("neighbors"))] == ["gpu01"]
