"""An audit: collect the fabric into a timestamped snapshot, check it, and compare with the last one.

An audit either ends with its snapshot and its reports written, or leaves neither: a later audit
must never drift against a snapshot whose findings nobody saw.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from netcfg.checks import Finding, run_checks
from netcfg.collect import CollectOptions, DeviceCollection, Selection, collect, selected_devices
from netcfg.drift import Change, drift
from netcfg.errors import OutputError
from netcfg.model import DeviceState, Fabric
from netcfg.nornir_inventory import Login
from netcfg.policy import Policy
from netcfg.report import FORMATS, Report
from netcfg.report.layout import fabric_layout
from netcfg.snapshot import discard, snapshot_meta
from netcfg.sources import device_state, snapshot_states, unchanged_devices


@dataclass(slots=True)
class AuditResult:
    snapshot: Path
    previous: Path | None
    report: Report
    changes: list[Change]
    collected: dict[str, DeviceCollection]
    reports: dict[str, Path]

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings


def previous_snapshot(root: Path, current: Path, devices: Collection[str] | None = None) -> Path | None:
    """The newest complete snapshot before `current` (names sort by time) holding any of `devices`.

    Complete means netcfg's `meta.json` is there: it is written last, so a folder without it (an
    interrupted collection, or something netcfg did not write) is never compared against.
    """
    wanted = set(devices) if devices is not None else None
    earlier = sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name < current.name),
        reverse=True,
    )
    for path in earlier:
        meta = snapshot_meta(path)
        if meta is not None and (wanted is None or wanted & set(meta["devices"])):
            return path
    return None


def selection_drift(
    fabric: Fabric, previous: Path, current: Path, states: dict[str, DeviceState]
) -> list[Change]:
    """Drift of the devices in `states` (the audited selection) since `previous`.

    Devices of the previous snapshot outside the selection are not compared: an audit of one rail
    says nothing about the others, so they are not "present -> absent". Devices whose outputs did
    not change are not parsed again.
    """
    same = unchanged_devices(previous, current)
    elsewhere = {p.name for p in previous.iterdir() if p.is_dir()} - set(states)
    before = snapshot_states(fabric, previous, skip=same | elsewhere)
    return drift(before, {name: state for name, state in states.items() if name not in same})


def run_audit(
    fabric: Fabric,
    policy: Policy,
    login: Login,
    snapshots: Path,
    reports: Path,
    opts: CollectOptions,
    selection: Selection | None = None,
    connections: dict[str, dict] | None = None,
) -> AuditResult:
    root = snapshots / fabric.name
    folder = reports / fabric.name
    selected_devices(fabric, selection)  # an empty selection is refused before anything is written
    try:
        # Before any device is contacted: a reports folder that cannot be made fails the audit now.
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError.from_os_error(exc.filename or folder, exc) from None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    parsing = dataclasses.replace(opts, parse=True)
    snapshot, collected = collect(fabric, login, root / stamp, parsing, selection, connections)
    written: dict[str, Path] = {}
    try:
        states = {
            name: c.state or device_state(fabric.devices[name], c.outputs, c.error)
            for name, c in sorted(collected.items())
        }
        findings = run_checks(fabric, policy, states)
        previous = previous_snapshot(root, snapshot, states)
        changes = selection_drift(fabric, previous, snapshot, states) if previous is not None else []
        extra = {
            "snapshot": str(snapshot),
            "drift_against": str(previous) if previous else None,
            "drift_changes": len(changes),
        }
        report = Report(
            fabric.name,
            f"live audit, snapshot {snapshot}",
            len(states),
            findings,
            extra,
            layout=fabric_layout(fabric, states),
            drift=changes if previous is not None else None,
        )
        written = write_reports(report, changes, folder, stamp)
    except BaseException:
        for path in written.values():
            path.unlink(missing_ok=True)
        discard(snapshot)
        raise
    return AuditResult(snapshot, previous, report, changes, collected, written)


def write_reports(report: Report, changes: list[Change], folder: Path, stamp: str) -> dict[str, Path]:
    """`<stamp>.json`, `<stamp>.md` and `<stamp>.html` in `folder`; on any failure none is left
    (OutputError). The HTML page shows the report's own drift (`report.drift`)."""
    paths: dict[str, Path] = {}
    path = folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for fmt, suffix in (("json", "json"), ("markdown", "md"), ("html", "html")):
            path = folder / f"{stamp}.{suffix}"
            text = FORMATS[fmt](report)
            if fmt == "json":
                data = json.loads(text)
                data["drift"] = [c.as_dict() for c in changes]
                text = json.dumps(data, indent=2) + "\n"
            elif fmt == "markdown" and changes:
                text += "\n## Drift since the previous audit\n\n"
                text += "| device | setting | before | after |\n|---|---|---|---|\n"
                text += "".join(f"| {c.device} | {c.setting} | {c.before} | {c.after} |\n" for c in changes)
            # "x": a file of that name that netcfg did not write is never overwritten.
            with path.open("x", encoding="utf-8") as out:
                paths[fmt] = path
                out.write(text)
    except BaseException as exc:
        for written in paths.values():
            written.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError.from_os_error(path, exc) from None
        raise
    return paths
