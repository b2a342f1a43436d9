"""GitLab Code Quality: the JSON array of issues that merge requests show in the diff, beside the
line of the config file a finding is about (`artifacts:reports:codequality`).

GitLab validates each entry against its schema (app/validators/json_schemas/codeclimate.json in
gitlab-org/gitlab) and stops reading at the first one that fails; it keeps one entry per
fingerprint, so every finding has its own (`identity.fingerprints`). Paths are relative to the
repository root, as GitLab links them to the commit's files.
"""

from __future__ import annotations

import json
from pathlib import Path

from netcfg.report.base import Report
from netcfg.report.identity import fingerprints
from netcfg.report.locations import Places
from netcfg.rules import Finding, Severity

# GitLab ranks info < minor < major < critical < blocker. An error breaks the fabric's RoCE
# guarantees (or leaves a device unjudged); a warning costs performance; a note is for reading.
SEVERITIES = {Severity.ERROR: "critical", Severity.WARNING: "minor", Severity.INFO: "info"}


def codequality_report(report: Report) -> str:
    places = Places(report.repo_root or Path.cwd(), report.inventory)
    # One fingerprint space per fabric: GitLab merges the reports of a pipeline's jobs by it.
    prints = fingerprints(report.findings, scope=report.fabric)
    issues = [
        _issue(f, places.of(f), fingerprint) for f, fingerprint in zip(report.findings, prints, strict=True)
    ]
    return json.dumps(issues, indent=2) + "\n"


def _issue(f: Finding, place: tuple[str, int] | None, fingerprint: str) -> dict[str, object]:
    where = f"{f.device} {f.interface}" if f.interface else f.device
    location: dict[str, object] = {"lines": {"begin": 1}}
    if place is not None:
        location = {"path": place[0], "lines": {"begin": place[1]}}
    return {
        "type": "issue",
        "check_name": f.rule,
        "description": f"{where}: {f.message}",
        "fingerprint": fingerprint,
        "severity": SEVERITIES[f.severity],
        "location": location,
    }
