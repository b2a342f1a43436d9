"""The CI recipes of docs/ci.md, run: each recipe's own commands, taken from the page, in a repository
laid out as the page says (the bundled lab's inventory, one config per device), and the files they
write read as the tool each is uploaded to reads them.

The tools' readers cannot run here (GitHub actions and GitLab's Rails app), so what each reads is
written below from its source, one function per tool, naming the file it follows:
mikepenz/action-junit-report src/testParser.ts, dorny/test-reporter src/parsers/java-junit/ and
src/parsers/jest-junit/ with src/utils/node-utils.ts and path-utils.ts, and gitlab-org/gitlab
lib/gitlab/ci/parsers/test/junit.rb and lib/gitlab/ci/reports/codequality_reports.rb.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
import xmlschema
import yaml

from tests.ci_schemas import GITLAB_SEVERITIES, codequality_validator, junit_schema, sarif_validator
from tests.conftest import LAB, ROOT

DOC = ROOT / "docs" / "ci.md"
FENCE = re.compile(r"(?P<before>[^\n]*)\n```(?P<lang>\w*)\n(?P<body>.*?)\n```", re.S)
# The seeded faults: a NIC trusting PCP (an error) and a PFC watchdog polling slower than it
# detects (a warning).
TRUST = ("mlnx_qos -i eth2 --trust dscp", "mlnx_qos -i eth2 --trust pcp")
POLLING = (
    "priority-flow-control pause watchdog default polling-interval 0.1",
    "priority-flow-control pause watchdog default polling-interval 0.5",
)


@pytest.fixture(scope="module")
def junit_xsd(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> xmlschema.XMLSchema:
    return junit_schema(pytestconfig, tmp_path_factory)


def doc_blocks(lang: str) -> list[str]:
    """The page's fenced blocks in `lang`, but those marked `<!-- not-run: ... -->`."""
    text = DOC.read_text(encoding="utf-8")
    return [
        m["body"]
        for m in FENCE.finditer(text)
        if m["lang"] == lang and not m["before"].startswith("<!-- not-run")
    ]


def yaml_docs() -> list[object]:
    return [yaml.safe_load(block) for block in doc_blocks("yaml")]


def github_workflow() -> dict:
    (workflow,) = [d for d in yaml_docs() if isinstance(d, dict) and "jobs" in d]
    return workflow


def gitlab_pipeline() -> dict:
    (pipeline,) = [
        d
        for d in yaml_docs()
        if isinstance(d, dict) and any(isinstance(job, dict) and "script" in job for job in d.values())
    ]
    return pipeline


def jenkinsfile() -> str:
    (text,) = doc_blocks("groovy")
    return text


@dataclass
class Repo:
    """A network repository as the recipes expect it, and a `netcfg` on PATH that runs this tree."""

    root: Path
    env: dict[str, str]

    def run(self, commands: list[str]) -> list[int]:
        """Each command as CI runs a step (`bash -e`), install steps left out: netcfg is this tree."""
        codes = []
        for command in commands:
            if "pip install" in command:
                continue
            done = subprocess.run(
                ["bash", "-e", "-c", command],
                cwd=self.root,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode in (0, 1), (command, done.stdout[-2000:], done.stderr[-2000:])
            assert "Traceback" not in done.stderr, done.stderr
            codes.append(done.returncode)
        return codes

    def findings(self) -> list[dict]:
        done = subprocess.run(
            ["netcfg", "check", "inventories/lab", "--configs", "configs", "--format", "json"],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        return json.loads(done.stdout)["findings"]

    def tracked(self) -> list[str]:
        """The files `git ls-files` lists once the repository is committed."""
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())


@pytest.fixture(params=[True, False], ids=["with-error", "warning-only"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Repo:
    root = tmp_path / "network"
    shutil.copytree(LAB, root / "inventories" / "lab", ignore=shutil.ignore_patterns("examples"))
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    shim = bin_dir / "netcfg"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m netcfg "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    repo = Repo(root, env)
    done = subprocess.run(
        ["netcfg", "render", "inventories/lab", "-o", "configs"], cwd=root, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    _edit(root / "configs" / "leaf-su1-r2.cfg", *POLLING)
    if request.param:
        _edit(root / "configs" / "gpu03.sh", *TRUST)
    return repo


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _expected(repo: Repo) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """(file, line) of the error findings and of the warnings, as netcfg's JSON report has them."""
    findings = repo.findings()
    assert {f["severity"] for f in findings} <= {"error", "warning"}
    warnings = {(f["file"], f["line"]) for f in findings if f["severity"] == "warning"}
    # The watchdog's settings are one block: the finding points at the block's first line.
    ((file, line),) = warnings
    assert (
        file == "configs/leaf-su1-r2.cfg"
        and "watchdog" in (repo.root / file).read_text().splitlines()[line - 1]
    )
    return {(f["file"], f["line"]) for f in findings if f["severity"] == "error"}, warnings


def _error_count(repo: Repo) -> int:
    return sum(f["severity"] == "error" for f in repo.findings())


def _line_of(path: Path, text: str) -> int:
    (number,) = [n for n, line in enumerate(path.read_text().splitlines(), 1) if line == text]
    return number


# --- the recipes -------------------------------------------------------------------------------


def test_the_github_workflow_uploads_sarif_and_annotates_junit_at_the_config_lines(repo, junit_xsd):
    workflow = github_workflow()
    assert {"security-events": "write", "checks": "write"}.items() <= workflow["permissions"].items()
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    codes = repo.run([s["run"] for s in steps if "run" in s])
    errors, warnings = _expected(repo)
    # Only the gating step fails, and only on an error: the SARIF step writes its report either way.
    assert codes == [0, 1 if errors else 0]
    sarif_step, junit_step = (
        next(s for s in steps if s.get("uses", "").startswith(action))
        for action in ("github/codeql-action/upload-sarif@", "mikepenz/action-junit-report@")
    )
    assert sarif_step["if"] == junit_step["if"] == "always()"

    log = json.loads((repo.root / sarif_step["with"]["sarif_file"]).read_text())
    sarif_validator().validate(log)
    placed = set()
    for result in log["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert (repo.root / uri).is_file()
        placed.add((uri, physical["region"]["startLine"]))
    assert placed == errors | warnings

    junit = repo.root / junit_step["with"]["report_paths"]
    junit_xsd.validate(str(junit))
    annotations = mikepenz_annotations(junit.read_text(), repo.root)
    assert {(path, line) for path, line, _ in annotations} == errors
    assert mikepenz_counts(junit.read_text())["failed"] == _error_count(repo)
    # The same file as dorny/test-reporter reads it, with either of its JUnit parsers.
    tracked = repo.tracked()
    for reader in (dorny_java_junit, dorny_jest_junit):
        assert set(reader(junit.read_text(), tracked)) == errors, reader.__name__


def test_the_gitlab_pipeline_reports_code_quality_and_junit_at_the_config_lines(repo, junit_xsd):
    pipeline = gitlab_pipeline()
    (job,) = [j for j in pipeline.values() if isinstance(j, dict) and "script" in j]
    codes = repo.run(job["script"])
    errors, warnings = _expected(repo)
    assert codes == [0, 1 if errors else 0]
    artifacts = job["artifacts"]
    assert artifacts["when"] == "always"

    entries = json.loads((repo.root / artifacts["reports"]["codequality"]).read_text())
    assert isinstance(entries, list)
    validator = codequality_validator()
    for entry in entries:
        validator.validate(entry)
        assert entry["severity"] in GITLAB_SEVERITIES and entry["check_name"]
        assert (repo.root / entry["location"]["path"]).is_file()
    # GitLab keeps one entry per fingerprint.
    assert len({e["fingerprint"] for e in entries}) == len(entries)
    by_severity = defaultdict(set)
    for e in entries:
        by_severity[e["severity"]].add((e["location"]["path"], e["location"]["lines"]["begin"]))
    assert dict(by_severity) == {k: v for k, v in {"critical": errors, "minor": warnings}.items() if v}

    junit = repo.root / artifacts["reports"]["junit"]
    junit_xsd.validate(str(junit))
    cases = gitlab_test_cases(junit.read_text())
    failed = {(c["file"], c["name"]) for c in cases if c["status"] == "failed"}
    assert {file for file, _ in failed} == {file for file, _ in errors}
    assert all((repo.root / c["file"]).is_file() for c in cases if c["file"])
    watchdog = [c for c in cases if c["suite_name"] == "pfc.watchdog_timers" and c["file"]]
    assert [c["status"] for c in watchdog] == ["success"]


def test_the_jenkinsfile_records_junit(repo, junit_xsd):
    text = jenkinsfile()
    commands = re.findall(r"\bsh '([^']*)'", text)
    assert commands and any("netcfg check" in c for c in commands)
    (report,) = re.findall(r"\bjunit '([^']*)'", text)
    assert re.search(r"post \{\s*always \{\s*junit '", text), (
        "the test report is recorded when the check fails"
    )
    codes = repo.run(commands)
    errors, _ = _expected(repo)
    assert codes == [1 if errors else 0]
    junit_xsd.validate(str(repo.root / report))
    root = ET.parse(repo.root / report).getroot()
    assert int(root.get("failures")) == _error_count(repo) and int(root.get("errors")) == 0
    for failure in root.iter("failure"):
        assert re.match(r"configs/\S+:\d+: ", failure.get("message"))


def test_findings_without_a_file_are_placed_at_the_devices_inventory_entry(tmp_path):
    root = tmp_path / "network"
    shutil.copytree(LAB, root / "inventories" / "lab")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = root / "netcfg-junit.xml"
    args = ["check", "inventories/lab", "--snapshot", "inventories/lab/examples/drifted"]
    done = subprocess.run(
        [sys.executable, "-m", "netcfg", *args, "--format", "junit", "--output", str(out)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    topology = _line_of(root / "inventories/lab/fabric.yaml", "topology:")
    annotations = mikepenz_annotations(out.read_text(), root)
    assert annotations and {(p, line) for p, line, _ in annotations} == {
        ("inventories/lab/fabric.yaml", topology)
    }
    assert set(dorny_jest_junit(out.read_text(), ["inventories/lab/fabric.yaml"])) == {
        ("inventories/lab/fabric.yaml", topology)
    }


# --- how each tool reads a report --------------------------------------------------------------


def _js_int(text: str | None) -> int | None:
    """JavaScript's parseInt: the leading digits, else nothing."""
    found = re.match(r"\s*([+-]?\d+)", text or "")
    return int(found.group(1)) if found else None


def mikepenz_annotations(xml_text: str, workspace: Path) -> list[tuple[str, int, str]]:
    """(path, line, test name) of each failure annotation, as mikepenz/action-junit-report makes them
    (src/testParser.ts: parseTestCases, createTestCaseAnnotation, resolveFileAndLine, resolvePath),
    run with the workspace as its working folder."""
    out = []
    for suite in ET.fromstring(xml_text).iter("testsuite"):
        for case in suite.findall("testcase"):
            issues = case.findall("failure") + case.findall("error")
            skipped = case.find("skipped") is not None or case.get("status") in ("disabled", "ignored")
            if not issues or skipped:
                continue
            for issue in issues:
                file = case.get("file") or issue.get("file") or suite.get("file")
                line = case.get("line") or issue.get("line") or suite.get("line")
                name = file or (case.get("classname") or case.get("name")).split(".")[-1]
                number = _js_int(line)
                if not (name and number):
                    trace = (issue.text or "").strip()
                    matches = re.findall(rf" [^ ]*{re.escape(name)}.*?:\d+", trace)
                    number = _js_int(matches[-1].split(":")[-1]) if matches else number or 1
                path = name
                if not (workspace / path).exists():
                    found = sorted(workspace.glob(f"**/{path.removeprefix('./')}.*"))
                    path = found[0].relative_to(workspace).as_posix() if found else path.removeprefix("./")
                out.append((path, number, case.get("name")))
    return out


def mikepenz_counts(xml_text: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for case in ET.fromstring(xml_text).iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        counts["skipped" if skipped else "failed" if failed else "passed"] += 1
    return counts


_JAVA_FRAME = re.compile(r"^\s*at (\S+\/\S*\/)?(.*)\((.*):(\d+)\)$")
_NODE_FRAME = re.compile(r"\((.*):(\d+):\d+\)$")


def _first_failures(xml_text: str) -> list[str]:
    """The text of each failed case's first <failure> (else <error>), which dorny reads."""
    out = []
    for case in ET.fromstring(xml_text).iter("testcase"):
        issue = case.find("failure") if case.find("failure") is not None else case.find("error")
        if issue is not None:
            out.append(issue.text or "")
    return out


def dorny_java_junit(xml_text: str, tracked: list[str]) -> list[tuple[str, int]]:
    """(path, line) of each failure, as dorny/test-reporter's java-junit parser finds them
    (src/parsers/java-junit/java-junit-parser.ts: exceptionThrowSource, getFilePath; the frame is
    java-stack-trace-element-parser.ts's)."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in tracked:
        by_name[posixpath.basename(path)].append(path)
    out = []
    for text in _first_failures(xml_text):
        for row in re.split(r"\r?\n", text):
            frame = _JAVA_FRAME.match(row)
            if frame is None or frame[3] not in by_name:
                continue
            parts = frame[2].split(".")
            # JavaScript: "" has no first character, and undefined <= "Z" is false.
            cut = next((i for i, p in enumerate(parts) if p and p[0] <= "Z"), -1)
            if cut != -1:
                parts = parts[:cut]
            if not parts:
                continue
            place = None
            for path in by_name[frame[3]]:
                dirs = posixpath.dirname(path).split("/") if posixpath.dirname(path) else ["."]
                if len(parts) > len(dirs):
                    continue
                if dirs[len(dirs) - len(parts) :] == parts:
                    place = (path, int(frame[4]))
                    break
            if place is not None:
                out.append(place)
                break
    return out


def dorny_jest_junit(xml_text: str, tracked: list[str]) -> list[tuple[str, int]]:
    """(path, line) of each failure, as dorny/test-reporter's jest-junit parser finds them
    (src/parsers/jest-junit/jest-junit-parser.ts: getTestCaseError, getRelativePath;
    src/utils/node-utils.ts: getExceptionSource; src/utils/path-utils.ts: getBasePath)."""
    out = []
    for text in _first_failures(xml_text):
        for row in re.split(r"\r?\n", text):
            frame = _NODE_FRAME.search(row)
            if frame is None:
                continue
            path = frame[1].strip().replace("\\", "/")
            if path.startswith("internal/") or "/node_modules/" in path:
                continue
            base = _base_path(path, tracked)
            if base is not None and path.startswith(base):
                path = path[len(base) :]
            if path and path in tracked:
                out.append((path, int(frame[2])))
                break
    return out


def _base_path(path: str, tracked: list[str]) -> str | None:
    if path in tracked:
        return ""
    longest = max((f for f in tracked if path.endswith(f)), key=len, default="")
    return path[: len(path) - len(longest)] if longest else None


def gitlab_test_cases(xml_text: str) -> list[dict[str, str | None]]:
    """Each test case as GitLab's JUnit parser records it (lib/gitlab/ci/parsers/test/junit.rb:
    all_cases, create_test_case): its suite, name, `file` and status, and the output shown."""
    out = []
    root = ET.fromstring(xml_text)
    assert root.tag == "testsuites"
    for suite in root.iter("testsuite"):
        for case in suite.findall("testcase"):
            out_text = case.findtext("system-out")
            shown = None
            if case.find("failure") is not None:
                status, shown = "failed", case.findtext("failure")
            elif case.find("error") is not None:
                status, shown = "error", case.findtext("error")
            elif case.find("skipped") is not None:
                status, shown = "skipped", case.findtext("skipped")
            else:
                status = "success"
            if status in ("failed", "error") and out_text:
                shown = f"{shown}\n\nSystem Out:\n\n{out_text}"
            out.append(
                {
                    "suite_name": suite.get("name"),
                    "name": case.get("name"),
                    "file": case.get("file"),
                    "status": status,
                    "output": shown,
                }
            )
    return out


def test_the_readers_find_nothing_in_a_junit_report_without_places(tmp_path):
    """The readers above are no pass-through: a report as netcfg wrote it before (no `file`/`line`,
    no frames) is placed at the class name's last part, `trust:1`, as issue 20 found."""
    old = (
        '<testsuites><testsuite name="qos.trust" tests="1" failures="1" errors="0">'
        '<testcase classname="qos.trust" name="gpu03.qos.trust.eth2">'
        '<failure type="error" message="configs/gpu03.sh:42: trust mode">configs/gpu03.sh:42\n'
        "expected: dscp\nactual: pcp</failure></testcase></testsuite></testsuites>"
    )
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "gpu03.sh").write_text("mlnx_qos -i eth2 --trust pcp\n")
    assert mikepenz_annotations(old, tmp_path) == [("trust", 1, "gpu03.qos.trust.eth2")]
    assert dorny_java_junit(old, ["configs/gpu03.sh"]) == []
    assert dorny_jest_junit(old, ["configs/gpu03.sh"]) == []
    assert [c["file"] for c in gitlab_test_cases(old)] == [None]


def test_codequality_entries_fail_gitlabs_schema_without_a_fingerprint():
    with pytest.raises(jsonschema.ValidationError):
        codequality_validator().validate({"description": "x", "severity": "minor", "location": {}})
