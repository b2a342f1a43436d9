"""Machine-readable report formats: JSON, JUnit XML, Markdown and SARIF."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict

from netcfg import __version__
from netcfg.checks import RULES
from netcfg.report.base import Report


def json_report(report: Report) -> str:
    return (
        json.dumps(
            {"summary": report.summary(), "findings": [f.as_dict() for f in report.findings]}, indent=2
        )
        + "\n"
    )


def junit_report(report: Report) -> str:
    """One test suite per rule, one failing case per finding, named device.rule.item (unique, stable)."""
    suites = ET.Element("testsuites", name=f"netcfg {report.fabric}")
    by_rule = defaultdict(list)
    for f in report.findings:
        by_rule[f.rule].append(f)
    for rule_id in sorted(RULES):
        findings = by_rule.get(rule_id, [])
        failing = [f for f in findings if f.severity.value != "info"]
        suite = ET.SubElement(
            suites, "testsuite", name=rule_id, tests=str(max(len(findings), 1)), failures=str(len(failing))
        )
        if not findings:
            ET.SubElement(suite, "testcase", classname=rule_id, name=f"{report.fabric}.{rule_id}")
        for f in findings:
            case = ET.SubElement(suite, "testcase", classname=rule_id, name=f.item)
            if f.severity.value == "info":
                ET.SubElement(case, "system-out").text = f.message
            else:
                failure = ET.SubElement(case, "failure", type=f.severity.value, message=f.message)
                failure.text = f"expected: {f.expected}\nactual: {f.actual}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _md(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def markdown_report(report: Report) -> str:
    s = report.summary()
    counts = s["findings"]
    lines = [
        f"# netcfg report: {report.fabric}",
        "",
        f"Source: {report.source}. Devices checked: {report.devices_checked}. "
        + ", ".join(f"{k}: {v}" for k, v in counts.items()),  # type: ignore[union-attr]
        "",
    ]
    if not report.findings:
        return "\n".join([*lines, "No findings.", ""])
    lines += [
        "| severity | rule | device | interface | expected | actual | message |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in report.findings:
        lines.append(
            f"| {f.severity.value} | `{f.rule}` | {_md(f.device)} | {_md(f.interface)} | {_md(f.expected)} "
            f"| {_md(f.actual)} | {_md(f.message)} |"
        )
    return "\n".join([*lines, ""])


def sarif_report(report: Report) -> str:
    levels = {"error": "error", "warning": "warning", "info": "note"}
    run = {
        "tool": {
            "driver": {
                "name": "netcfg",
                "version": __version__,
                "rules": [
                    {
                        "id": r.id,
                        "shortDescription": {"text": r.doc},
                        "defaultConfiguration": {"level": levels[r.severity]},
                    }
                    for r in RULES.values()
                ],
            }
        },
        "results": [
            {
                "ruleId": f.rule,
                "level": levels[f.severity.value],
                "message": {"text": f"{f.device}{' ' + f.interface if f.interface else ''}: {f.message}"},
                "locations": [{"logicalLocations": [{"name": f.device, "kind": "device"}]}],
            }
            for f in report.findings
        ],
    }
    return json.dumps({"version": "2.1.0", "runs": [run]}, indent=2) + "\n"
