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
from ruamel.yaml import YAML

from tests.ci_schemas import GITLAB_SEVERITIES, codequality_validator, junit_schema, sarif_validator
from tests.conftest import LAB, ROOT

DOC = ROOT / "docs" / "ci.md"
FENCE = re.compile(r"(?P<before>[^\n]*)\n```(?P<lang>\w*)\n(?P<body>.*?)\n```", re.S)
# The seeded faults. Always a NIC whose DCQCN increase rate is not the policy's (host.dcqcn, a
# warning only). With an error: a NIC trusting PCP (qos.trust and link.trust_mismatch) and a leaf's
# PFC watchdog polling every 500 ms (pfc.watchdog and rail.qos_consistency against the policy's
# 100 ms, and pfc.watchdog_timers, a warning, as it polls slower than its 200 ms detection time).
DCQCN = (
    "set_params /sys/class/net/eth2/ecn/roce_rp dce_tcp_g=1019 initial_alpha_value=1023 rpg_ai_rate=5 ",
    "set_params /sys/class/net/eth2/ecn/roce_rp dce_tcp_g=1019 initial_alpha_value=1023 rpg_ai_rate=8 ",
)
TRUST = ("mlnx_qos -i eth2 --trust dscp", "mlnx_qos -i eth2 --trust pcp")
POLLING = (
    "priority-flow-control pause watchdog default polling-interval 0.1",
    "priority-flow-control pause watchdog default polling-interval 0.5",
)


@pytest.fixture(scope="module")
def junit_xsd(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> xmlschema.XMLSchema:
    return junit_schema(pytestconfig, tmp_path_factory)


def doc_blocks(lang: str) -> list[str]:
    """The page's fenced blocks in `lang`, those marked `<!-- not-run: ... -->` too: the mark tells
    tests/test_docs.py that this file, not it, runs them."""
    text = DOC.read_text(encoding="utf-8")
    return [m["body"] for m in FENCE.finditer(text) if m["lang"] == lang]


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
    seeded_error: bool

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
        """What dorny/test-reporter matches frames against: `git ls-files` of the repository with its
        inventory and configs added (the reports and the tool's own files are not committed)."""
        git = ["git", "-C", str(self.root)]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "inventories", "configs"], check=True)
        done = subprocess.run([*git, "ls-files"], check=True, capture_output=True, text=True)
        return done.stdout.splitlines()


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
    repo = Repo(root, env, request.param)
    done = subprocess.run(
        ["netcfg", "render", "inventories/lab", "-o", "configs"], cwd=root, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    _edit(root / "configs" / "gpu03.sh", *DCQCN)
    if request.param:
        _edit(root / "configs" / "gpu03.sh", *TRUST)
        _edit(root / "configs" / "leaf-su1-r2.cfg", *POLLING)
    return repo


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


Places = Counter[tuple[str, int]]


def _expected(repo: Repo) -> tuple[Places, Places]:
    """(file, line) of each error and of each warning: the lines the seeded faults stand on, two
    rules' findings on each error's line. netcfg's JSON report must give the same."""
    nic, leaf = "configs/gpu03.sh", "configs/leaf-su1-r2.cfg"
    warnings = Counter([(nic, _line_of(repo.root / nic, DCQCN[1]))])
    errors: Places = Counter()
    if repo.seeded_error:
        polling = (leaf, _line_of(repo.root / leaf, POLLING[1]))
        warnings[polling] += 1
        errors = Counter({(nic, _line_of(repo.root / nic, TRUST[1])): 2, polling: 2})
    findings = repo.findings()
    assert {f["severity"] for f in findings} <= {"error", "warning"}
    for severity, places in (("error", errors), ("warning", warnings)):
        assert Counter((f["file"], f["line"]) for f in findings if f["severity"] == severity) == places, (
            severity
        )
    return errors, warnings


def _line_of(path: Path, text: str) -> int:
    """The line holding `text`, which stands on one line only."""
    (number,) = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
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
    placed: Places = Counter()
    for result in log["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert (repo.root / uri).is_file()
        placed[uri, physical["region"]["startLine"]] += 1
    assert placed == errors + warnings

    junit = repo.root / junit_step["with"]["report_paths"]
    junit_xsd.validate(str(junit))
    annotations = mikepenz_annotations(junit.read_text(), repo.root)
    assert Counter((path, line) for path, line, _ in annotations) == errors
    assert mikepenz_counts(junit.read_text())["failed"] == errors.total()
    # The same file as dorny/test-reporter reads it, with either of its JUnit parsers.
    tracked = repo.tracked()
    for reader in (dorny_java_junit, dorny_jest_junit):
        assert Counter(reader(junit.read_text(), tracked)) == errors, reader.__name__


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
    by_severity: defaultdict[str, Places] = defaultdict(Counter)
    for e in entries:
        by_severity[e["severity"]][e["location"]["path"], e["location"]["lines"]["begin"]] += 1
    assert dict(by_severity) == {k: v for k, v in {"critical": errors, "minor": warnings}.items() if v}

    junit = repo.root / artifacts["reports"]["junit"]
    junit_xsd.validate(str(junit))
    cases = gitlab_test_cases(junit.read_text())
    failed = {(c["file"], c["name"]) for c in cases if c["status"] == "failed"}
    assert {file for file, _ in failed} == {file for file, _ in errors}
    assert all((repo.root / c["file"]).is_file() for c in cases if c["file"])
    # The warning passes its case, placed at its file, with the finding in its output.
    dcqcn = [c for c in cases if c["suite_name"] == "host.dcqcn" and c["file"]]
    assert [(c["file"], c["status"]) for c in dcqcn] == [("configs/gpu03.sh", "success")]


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
    assert int(root.get("failures")) == errors.total() and int(root.get("errors")) == 0
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


def _check_jsonschema(schema: str, doc: object, path: Path) -> subprocess.CompletedProcess[str]:
    path.write_text(json.dumps(doc), encoding="utf-8")
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_the_recipes_are_valid_for_their_ci(tmp_path):
    """The recipes are what GitHub and GitLab accept: their YAML read as YAML 1.2 (as both read it:
    `on` stays a key) and checked against the workflow and pipeline schemas check-jsonschema ships
    from SchemaStore; the dorny/test-reporter step as a step of the workflow. A misspelt key fails."""
    docs = [YAML(typ="safe", pure=True).load(block) for block in doc_blocks("yaml")]
    (workflow,) = [d for d in docs if isinstance(d, dict) and "jobs" in d]
    (extra_steps,) = [d for d in docs if isinstance(d, list)]
    (pipeline,) = [d for d in docs if isinstance(d, dict) and d is not workflow]
    assert "on" in workflow
    (job,) = workflow["jobs"].values()
    job["steps"] += extra_steps
    for schema, doc in (("vendor.github-workflows", workflow), ("vendor.gitlab-ci", pipeline)):
        done = _check_jsonschema(schema, doc, tmp_path / "recipe.json")
        assert done.returncode == 0, (schema, done.stdout, done.stderr)
    job["step"] = job.pop("steps")
    (gitlab_job,) = pipeline.values()
    gitlab_job["scripts"] = gitlab_job.pop("script")
    for schema, doc in (("vendor.github-workflows", workflow), ("vendor.gitlab-ci", pipeline)):
        done = _check_jsonschema(schema, doc, tmp_path / "broken.json")
        assert done.returncode == 1 and "Schema validation errors" in done.stdout, (schema, done.stderr)


# Groovy's own parser taken to the phase that builds the syntax tree: what Jenkins does first with a
# Jenkinsfile (Jenkins runs Groovy 2.4, the version Debian's groovy package is).
GROOVY_PARSE = """\
def unit = new org.codehaus.groovy.control.CompilationUnit()
unit.addSource(new File(args[0]))
unit.compile(org.codehaus.groovy.control.Phases.CONVERSION)
"""


def _groovy_parse(text: str, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "parse.groovy").write_text(GROOVY_PARSE, encoding="utf-8")
    (folder / "Jenkinsfile").write_text(text, encoding="utf-8")
    env = dict(os.environ)
    java = shutil.which("java")
    if "JAVA_HOME" not in env and java is not None:
        # Debian's groovy wrapper looks in /usr/lib/jvm/default-java, which not every JDK install links.
        env["JAVA_HOME"] = str(Path(java).resolve().parent.parent)
    return subprocess.run(
        ["groovy", str(folder / "parse.groovy"), str(folder / "Jenkinsfile")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_jenkinsfile_is_groovy_that_parses(tmp_path):
    text = jenkinsfile()
    done = _groovy_parse(text, tmp_path)
    assert done.returncode == 0, done.stderr
    broken = _groovy_parse(text.rsplit("}", 1)[0], tmp_path)
    assert broken.returncode != 0 and "startup failed" in broken.stderr, broken.stderr


def test_the_pages_refusal_and_summary_are_what_netcfg_prints(tmp_path):
    """The page's two quoted outputs, produced: the switches' configs saved as `.txt`, one NIC
    trusting PCP, in the repository layout of the recipes."""
    root = tmp_path / "network"
    shutil.copytree(LAB, root / "inventories" / "lab", ignore=shutil.ignore_patterns("examples"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def netcfg(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "netcfg", *args]
        return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)

    assert netcfg("render", "inventories/lab", "-o", "configs").returncode == 0
    for path in (root / "configs").glob("*.cfg"):
        path.rename(path.with_suffix(".txt"))
    _edit(root / "configs" / "gpu03.sh", *TRUST)
    refusal, summary = doc_blocks("text")
    refused = netcfg("check", "inventories/lab", "--configs", "configs")
    assert (refused.returncode, refused.stderr) == (2, refusal + "\n")
    allowed = netcfg("check", "inventories/lab", "--configs", "configs", "--allow-missing")
    assert allowed.returncode == 1 and allowed.stdout.splitlines()[-1] == summary, allowed.stdout[-500:]


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
    # The parser assumes its work folder from the first frame that gives one, and keeps it.
    work_dir: str | None = None
    for text in _first_failures(xml_text):
        for row in re.split(r"\r?\n", text):
            frame = _NODE_FRAME.search(row)
            if frame is None:
                continue
            path = frame[1].strip().replace("\\", "/")
            if path.startswith("internal/") or "/node_modules/" in path:
                continue
            if work_dir is None:
                work_dir = _base_path(path, tracked)
            if work_dir is not None and path.startswith(work_dir):
                path = path[len(work_dir) :]
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
