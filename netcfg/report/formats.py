"""Machine-readable report formats: JSON, JUnit XML and Markdown (SARIF has its own module)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from netcfg.checks.catalogue import RULES
from netcfg.report.base import Report
from netcfg.report.identity import case_names
from netcfg.report.locations import Places, file_line
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
    """One test suite per rule, one case per finding (named by `case_names`: unique, stable).

    The shape is the Jenkins/Surefire JUnit schema that Jenkins, GitLab and the GitHub JUnit actions
    read, with the `file` and `line` attributes on each case that pytest's xunit1 family and
    jest-junit also write: GitLab links a case to its `file`, and mikepenz/action-junit-report
    annotates `file`:`line` (without them it guesses the file from the class name). A rule with no
    finding is one passing case; a rule the source could not check is one skipped case saying why,
    never a pass.

    A finding fails its case only at or above `--fail-on`, so the report agrees with the exit code.
    Below it (warnings and notes by default) the case passes, its finding in `system-out`: skipped
    would say the rule was not checked, which is what skipped means in this report.
    """
    stamp = report.created.strftime("%Y-%m-%dT%H:%M:%S")
    places = Places(report.repo_root or Path.cwd(), report.inventory, strict=False)
    suites = ET.Element(
        "testsuites", name=f"netcfg {report.fabric}", time="0", tests="0", failures="0", errors="0"
    )
    by_rule: dict[str, list[tuple[Finding, str]]] = defaultdict(list)
    for f, name in zip(report.findings, case_names(report.findings), strict=True):
        by_rule[f.rule].append((f, name))
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
        for f, name in findings:
            place = places.of(f)
            case = ET.SubElement(suite, "testcase", classname=rule_id, name=name, time="0")
            if place is not None:
                case.set("file", place[0])
                case.set("line", str(place[1]))
            counts["tests"] += 1
            text = _located(place, f"{f.severity.value}: {f.message}")
            if not report.fails(f):
                ET.SubElement(case, "system-out").text = "\n".join(
                    [text, f"expected: {f.expected}", f"actual: {f.actual}"]
                )
                continue
            kind = "error" if rule_id.startswith(UNCHECKED_RULES) else "failure"
            counts["errors" if kind == "error" else "failures"] += 1
            element = ET.SubElement(case, kind, type=f.severity.value, message=_located(place, f.message))
            element.text = "\n".join(
                [text, f"expected: {f.expected}", f"actual: {f.actual}", *_frames(place)]
            )
        for key, value in counts.items():
            suite.set(key, str(value))
        for key in totals:
            totals[key] += counts[key]
    for key, value in totals.items():
        suites.set(key, str(value))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _located(place: tuple[str, int] | None, text: str) -> str:
    """`file:line: text`, the form CI logs, editors and people jump to."""
    return f"{place[0]}:{place[1]}: {text}" if place else text


def _frames(place: tuple[str, int] | None) -> list[str]:
    """The place again as stack frames, for dorny/test-reporter, which reads a failure's file only
    from a stack trace: its jest-junit parser from a Node frame `(path:line:column)` naming a file
    git tracks, its java-junit parser from a Java frame `at package.Class(File:line)` whose package
    is the file's folders (src/parsers/jest-junit/jest-junit-parser.ts, src/utils/node-utils.ts,
    src/parsers/java-junit/java-junit-parser.ts). A Java package can spell only folders that are
    lower-case names without dots, so the Java frame is left out for any other."""
    if place is None:
        return []
    path, line = place
    frames = [f"    at netcfg ({path}:{line}:1)"]
    folder, _, name = path.rpartition("/")
    parts = folder.split("/") if folder else []
    if parts and all(_java_package_part(p) for p in parts) and not set("()") & set(name):
        frames.insert(0, f"    at {'.'.join(parts)}.Netcfg({name}:{line})")
    return frames


def _java_package_part(part: str) -> bool:
    # dorny's java-junit parser ends the package at the first part starting at or below "Z" (a class
    # name); parts are split on dots and the frame on white space.
    return bool(part) and part[0] > "Z" and "." not in part and not any(c.isspace() for c in part)


def markdown_report(report: Report) -> str:
    s = report.summary()
    counts = s["findings"]
    lines = [
        f"# netcfg report: {markdown_text(report.fabric)}",
        "",
        f"Source: {markdown_text(report.source)}. {markdown_text(report.checked_line())}. "
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
