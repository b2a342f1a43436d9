"""`make demo`: the lab fabric with its seeded faults, audited live over SSH, then stopped."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from netcfg.audit import AuditResult, run_audit
from netcfg.collect import CollectOptions
from netcfg.drain import DrainLimit, DrainTarget
from netcfg.errors import InputError, OutputError
from netcfg.folder_lock import folder_lock
from netcfg.lab.devices import faults_named, load_faults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.model import Fabric
from netcfg.nornir_inventory import Login, read_connections
from netcfg.policy import Policy


def run_demo(
    fabric: Fabric,
    policy: Policy,
    faults_file: Path | None,
    out: Path,
    notes: Console,
    routes: bool = False,
) -> AuditResult:
    """Start the lab with its faults, audit it twice over SSH, stop it; `notes` gets the narration.

    The first audit is recorded as the go-live baseline; the second is the nightly audit whose
    result is returned: counter rates (flaps, FEC, pause storms, CNPs) need two readings. Its drain
    list is `<out>/drain-list.sh`: the hosts with faults of their own, and those a switch-wide fault
    only impacts. `routes`: the audits also collect the switches' route tables."""
    started = time.monotonic()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"--out {out}", "is, or is inside, a file; expected a folder") from None
    except OSError as exc:
        raise OutputError.from_os_error(exc.filename or out, exc) from None
    # Two demos in one folder would write over each other's lab files, snapshots and reports.
    with folder_lock(out, "demo", f"--out {out}"):
        return _demo(fabric, policy, faults_file, out, notes, started, routes)


def _demo(
    fabric: Fabric,
    policy: Policy,
    faults_file: Path | None,
    out: Path,
    notes: Console,
    started: float,
    routes: bool,
) -> AuditResult:
    drain = DrainTarget(out / "drain-list.sh", "slurm")
    drain.check()  # refused before the lab starts
    faults_path = faults_file or Path(fabric.source).parent / "faults.yaml"
    faults_file = faults_path if faults_path.is_file() else None
    faults = load_faults(faults_file, fabric)
    # A throwaway login for this run only: the lab and the collector share it in memory, nothing stores it.
    login = Login("netcfg-demo", secrets.token_urlsafe(18))
    # Text, not markup: paths are the user's and may hold `[...]`.
    notes.print(
        Text(
            f"lab: starting {len(fabric.devices)} simulated devices on 127.0.0.1 "
            f"with {len(faults)} seeded faults from {faults_path}"
        )
    )
    with faults_named(faults_file):
        lab = lab_server(fabric, policy, faults, login.username, login.password)
    with lab as server:
        connections, known_hosts = write_connection_files(server, out / "lab")
        notes.print(
            Text(
                f"audit: netcfg audit {fabric.source} over SSH (Nornir + netmiko), "
                f"host keys from {known_hosts}"
            )
        )
        opts = CollectOptions(workers=20, timeout_s=5.0, known_hosts=known_hosts, routes=routes)
        audits = []
        for baseline in (True, False):
            audits.append(
                run_audit(
                    fabric,
                    policy,
                    login,
                    out / "snapshots",
                    out / "reports",
                    opts,
                    connections=read_connections(connections),
                    baseline=baseline,
                )
            )
            if baseline:
                notes.print(
                    Text(f"audit 1 is the go-live baseline: {audits[0].snapshot}; audit 2, the nightly one:")
                )
    notes.print(Text(f"lab stopped; audits took {time.monotonic() - started:.1f} s"))
    nightly = audits[-1]
    # The lab seeds a fault on most of its hosts on purpose: audit's default breaker (10%) would
    # withhold this list, as it should on a real fabric.
    plan = drain.write(fabric, nightly.findings, nightly.report.source, nightly.collected, limit=_ALL)
    notes.print(
        Text(
            f"drain list: {drain.path}: {len(plan.drain)} host(s) with faults of their own to drain, "
            f"{len(plan.impacted)} impacted by a switch-wide fault and not drained "
            f"(--max-drain 100%: the lab seeds faults on most hosts)"
        )
    )
    return nightly


_ALL = DrainLimit("100%")
