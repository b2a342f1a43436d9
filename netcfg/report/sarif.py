"""SARIF 2.1.0 as GitHub code scanning ingests it: every result located in a file of the repository.

Findings from config files point at the file and line of the setting. Findings without a file (live
audits, rendered intent) point at the device's entry in the inventory, since code scanning drops a
result without a physical location; the device itself stays in `logicalLocations`.
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from netcfg import __version__
from netcfg.checks.catalogue import RULES
from netcfg.report.base import Report
from netcfg.report.identity import fingerprints
from netcfg.report.locations import Places
from netcfg.rules import Finding, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
# Code scanning resolves %SRCROOT% to the checkout: the URIs below are relative to it.
SRCROOT = "%SRCROOT%"
# v2: the identity leaves out the line and tells apart findings of one device, rule and ports.
FINGERPRINT = "netcfgFinding/v2"


def sarif_report(report: Report) -> str:
    root = report.repo_root or Path.cwd()
    rules = sorted(RULES.values(), key=lambda r: r.id)
    index = {r.id: i for i, r in enumerate(rules)}
    places = Places(root, report.inventory)
    driver: dict[str, object] = {
        "name": "netcfg",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [_rule(r) for r in rules],
    }
    home = _information_uri()
    if home:
        driver["informationUri"] = home
    run = {
        "tool": {"driver": driver},
        # One category per fabric: uploads for two fabrics do not replace each other's alerts.
        "automationDetails": {"id": f"netcfg/{report.fabric}/"},
        "results": [
            _result(f, index[f.rule], places.of(f), fingerprint)
            for f, fingerprint in zip(report.findings, fingerprints(report.findings), strict=True)
        ],
    }
    return json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def _rule(r: Rule) -> dict[str, object]:
    short = r.doc.split(". ")[0].rstrip(".")
    about = f"Severity {r.severity.value}; checked per {r.scope}."
    return {
        "id": r.id,
        "name": "".join(part.capitalize() for part in r.id.replace("_", ".").split(".")),
        "shortDescription": {"text": short},
        "fullDescription": {"text": r.doc},
        "help": {
            "text": f"{r.doc}\n\n{about} `netcfg rules` lists every rule.",
            "markdown": f"**{r.id}**: {r.doc}\n\n{about} `netcfg rules` lists every rule.",
        },
        "defaultConfiguration": {"level": LEVELS[r.severity.value]},
        "properties": {"tags": ["netcfg", r.scope, *([r.facet] if r.facet else [])]},
    }


def _result(
    f: Finding, rule_index: int, place: tuple[str, int] | None, fingerprint: str
) -> dict[str, object]:
    where = f"{f.device} {f.interface}" if f.interface else f.device
    location: dict[str, object] = {
        "logicalLocations": [
            {
                "name": f.device,
                "fullyQualifiedName": f"{f.device}/{f.interface}" if f.interface else f.device,
                "kind": "resource",
            }
        ]
    }
    if place is not None:
        location["physicalLocation"] = _physical(*place)
    return {
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[f.severity.value],
        "message": {"text": f"{where}: {f.message}"},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: fingerprint},
        "properties": {
            "device": f.device,
            "interface": f.interface,
            "expected": f.expected,
            "actual": f.actual,
        },
    }


def _physical(uri: str, line: int) -> dict[str, object]:
    return {"artifactLocation": {"uri": uri, "uriBaseId": SRCROOT}, "region": {"startLine": line}}


def _information_uri() -> str | None:
    """The project's home page as the installed package declares it (`[project.urls]`)."""
    try:
        meta = metadata.metadata("netcfg")
    except metadata.PackageNotFoundError:
        return None
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in {"homepage", "documentation", "source"} and url.strip():
            return url.strip()
    return meta.get("Home-page") or None
