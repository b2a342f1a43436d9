"""Machine-readable report formats: JSON, JUnit XML and Markdown (SARIF has its own module)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict

from netcfg.checks.catalogue import RULES
from netcfg.report.base import Report
from netcfg.report.locations import file_line
from netcfg.report.text import markdown_code, markdown_text
from netcfg.rules import Finding

# Findings that mean a device's settings could not be checked at all: JUnit calls that an error
# (the test could not run), not a failure (the test ran and the setting is wrong).
UNCHECKED_RULES = ("collect.", "parse.unknown_output")


def json_report(report: Report) -> str:
    return (
        json.dumps(
            {"summary": report.summary(), "findings": [f.as_dict() for f in report.findings]}, indent=2
        )
        + "\n"
    )


def junit_report(report: Report) -> str:
    """One test suite per rule, one case per finding (named device.rule.ports: unique, stable).

    The shape is the Jenkins/Surefire JUnit schema that Jenkins, GitLab and the GitHub JUnit actions
    read. A rule with no finding is one passing case; a rule the source could not check is one
    skipped case saying why, never a pass.
    """
    stamp = report.created.strftime("%Y-%m-%dT%H:%M:%S")
    suites = ET.Element(
        "testsuites", name=f"netcfg {report.fabric}", time="0", tests="0", failures="0", errors="0"
    )
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        by_rule[f.rule].append(f)
    totals = dict.fromkeys(("tests", "failures", "errors"), 0)
    for rule_id in sorted(RULES.keys() | by_rule.keys()):
        findings = by_rule.get(rule_id, [])
        suite = ET.SubElement(suites, "testsuite", name=rule_id, timestamp=stamp, time="0")
        counts = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
        if not findings:
            case = ET.SubElement(
                suite, "testcase", classname=rule_id, name=f"{report.fabric}.{rule_id}", time="0"
            )
            if rule_id in report.not_run:
                ET.SubElement(case, "skipped", message=f"not checked: {report.not_run[rule_id]}")
                counts["skipped"] += 1
            counts["tests"] += 1
        for f in findings:
            case = ET.SubElement(suite, "testcase", classname=rule_id, name=f.item, time="0")
            counts["tests"] += 1
            if f.severity.value == "info":
                ET.SubElement(case, "system-out").text = _located(f, f.message)
                continue
            kind = "error" if rule_id.startswith(UNCHECKED_RULES) else "failure"
            counts["errors" if kind == "error" else "failures"] += 1
            element = ET.SubElement(case, kind, type=f.severity.value, message=_located(f, f.message))
            element.text = "\n".join(
                filter(None, [file_line(f), f"expected: {f.expected}", f"actual: {f.actual}"])
            )
        for key, value in counts.items():
            suite.set(key, str(value))
        for key in totals:
            totals[key] += counts[key]
    for key, value in totals.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _located(f: Finding, text: str) -> str:
    """`file:line: text`, the form CI annotators and editors jump to."""
    where = file_line(f)
    return f"{where}: {text}" if where else text


def markdown_report(report: Report) -> str:
    s = report.summary()
    counts = s["findings"]
    lines = [
        f"# netcfg report: {markdown_text(report.fabric)}",
        "",
        f"Source: {markdown_text(report.source)}. Devices checked: {report.devices_checked}. "
        + ", ".join(f"{k}: {v}" for k, v in counts.items()),  # type: ignore[union-attr]
        "",
    ]
    if not report.findings:
        return "\n".join([*lines, "No findings.", ""])
    lines += [
        "| severity | rule | device | interface | file:line | expected | actual | message |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in report.findings:
        where = f"`{markdown_code(file_line(f))}`" if f.file else ""
        text = [markdown_text(t) for t in (f.expected, f.actual, f.message)]
        cells = [f.severity.value, f"`{f.rule}`", markdown_text(f.device), markdown_text(f.interface or "")]
        lines.append("| " + " | ".join([*cells, where, *text]) + " |")
    return "\n".join([*lines, ""])
