"""An audit: collect the fabric into a timestamped snapshot, check it, and compare with the last one."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from netcfg.checks import Finding, run_checks
from netcfg.collect import CollectOptions, DeviceCollection, Selection, collect
from netcfg.drift import Change, snapshot_drift
from netcfg.model import Fabric
from netcfg.nornir_inventory import Login
from netcfg.policy import Policy
from netcfg.report import FORMATS, Report
from netcfg.sources import device_state


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


def previous_snapshot(root: Path, current: Path) -> Path | None:
    """The newest complete snapshot of the same fabric before `current` (names sort by time)."""
    earlier = sorted(
        p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name < current.name
    )
    return earlier[-1] if earlier else None


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
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    parsing = dataclasses.replace(opts, parse=True)
    snapshot, collected = collect(fabric, login, root / stamp, parsing, selection, connections)
    states = {
        name: c.state or device_state(fabric.devices[name], c.outputs, c.error)
        for name, c in sorted(collected.items())
    }
    findings = run_checks(fabric, policy, states)
    previous = previous_snapshot(root, snapshot)
    changes = snapshot_drift(fabric, previous, snapshot, states) if previous is not None else []
    extra = {
        "snapshot": str(snapshot),
        "drift_against": str(previous) if previous else None,
        "drift_changes": len(changes),
    }
    report = Report(fabric.name, f"live audit, snapshot {snapshot}", len(states), findings, extra)
    written = write_reports(report, changes, reports / fabric.name, stamp)
    return AuditResult(snapshot, previous, report, changes, collected, written)


def write_reports(report: Report, changes: list[Change], folder: Path, stamp: str) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for fmt, suffix in (("json", "json"), ("markdown", "md")):
        path = folder / f"{stamp}.{suffix}"
        text = FORMATS[fmt](report)
        if fmt == "json":
            data = json.loads(text)
            data["drift"] = [c.as_dict() for c in changes]
            text = json.dumps(data, indent=2) + "\n"
        elif changes:
            text += "\n## Drift since the previous audit\n\n"
            text += "| device | setting | before | after |\n|---|---|---|---|\n"
            text += "".join(f"| {c.device} | {c.setting} | {c.before} | {c.after} |\n" for c in changes)
        path.write_text(text, encoding="utf-8")
        paths[fmt] = path
    return paths
