"""Reports as CI systems read them: SARIF against the OASIS schema, JUnit against the Jenkins schema,
file and line in every format, and device text printed as it is."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import xmlschema
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.checks.catalogue import RULES
from netcfg.cli import main
from netcfg.render import render_fabric
from netcfg.report import FORMATS, Report
from netcfg.report.table import print_table
from netcfg.rules import Finding, Severity
from tests.ci_schemas import junit_schema, sarif_validator
from tests.conftest import LAB, ROOT
from tests.test_internal import DEMO_FINDINGS

DRIFTED = LAB / "examples" / "drifted"
# The explicit inventory form: each device has its own entry, and SARIF points at its line.
EXPLICIT = """\
name: dc1
rails: 1
devices:
  - {name: leaf-a1, role: leaf, rail: 1, su: 1}
  - name: gpu001
    role: host
    su: 1
    nics: [{rail: 1, netdev: eth0, rdma_device: mlx5_0}]
cabling: cabling.csv
"""


@pytest.fixture(scope="session")
def sarif_schema() -> jsonschema.protocols.Validator:
    return sarif_validator()


@pytest.fixture(scope="session")
def junit_xsd(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> xmlschema.XMLSchema:
    return junit_schema(pytestconfig, tmp_path_factory)


def _findings(config: Path) -> list[Finding]:
    return [
        Finding(
            "pfc.no_drop_priorities",
            Severity.ERROR,
            "leaf-a1",
            "Ethernet1-4",
            "{3}",
            "{4}",
            "PFC no-drop priorities: expected {3}, found {4} (on 4 ports)",
            file=str(config),
            line=42,
        ),
        Finding(
            "collect.unreachable",
            Severity.ERROR,
            "gpu001",
            None,
            "collected",
            "unreachable",
            "not collected (unreachable): 127.0.0.1:2222: Connection refused; not checked",
        ),
        Finding("state.missing", Severity.INFO, "(fabric)", None, "state", "1 without", "not checked: x"),
    ]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with an explicit inventory and one config file."""
    (tmp_path / "inv").mkdir()
    (tmp_path / "inv" / "fabric.yaml").write_text(EXPLICIT)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "leaf-a1.cfg").write_text("! device: leaf-a1\n")
    return tmp_path


def _report(repo: Path) -> Report:
    return Report(
        "dc1",
        "configs configs",
        2,
        _findings(repo / "configs" / "leaf-a1.cfg"),
        inventory=str(repo / "inv" / "fabric.yaml"),
        repo_root=repo,
    )


def test_sarif_validates_and_locates_every_result_in_the_repository(repo, sarif_schema):
    log = json.loads(FORMATS["sarif"](_report(repo)))
    sarif_schema.validate(log)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for descriptor in rules:
        rule = RULES[descriptor["id"]]
        assert descriptor["fullDescription"]["text"] == rule.doc
        assert rule.doc.startswith(descriptor["shortDescription"]["text"])
        assert rule.doc in descriptor["help"]["text"] and rule.doc in descriptor["help"]["markdown"]
        assert descriptor["name"] and descriptor["defaultConfiguration"]["level"] in {
            "error",
            "warning",
            "note",
        }
    located = {}
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not uri.startswith("/") and "\\" not in uri and ":" not in uri
        located[location["logicalLocations"][0]["name"]] = (uri, physical["region"]["startLine"])
    # gpu001 is on line 5 of the inventory; "(fabric)" has no entry of its own.
    assert located == {
        "leaf-a1": ("configs/leaf-a1.cfg", 42),
        "gpu001": ("inv/fabric.yaml", 5),
        "(fabric)": ("inv/fabric.yaml", 1),
    }
    assert [r["level"] for r in run["results"]] == ["error", "error", "note"]


def test_sarif_names_the_project_home_page_the_package_declares(repo, monkeypatch, sarif_schema):
    from email.message import Message

    meta = Message()
    meta["Name"] = "netcfg"
    meta["Project-URL"] = "Homepage, https://example.org/netcfg"
    monkeypatch.setattr("netcfg.report.sarif.metadata.metadata", lambda name: meta)
    log = json.loads(FORMATS["sarif"](_report(repo)))
    sarif_schema.validate(log)
    assert log["runs"][0]["tool"]["driver"]["informationUri"] == "https://example.org/netcfg"


def test_sarif_fingerprints_are_stable_and_distinct(repo):
    def prints() -> list[str]:
        log = json.loads(FORMATS["sarif"](_report(repo)))
        return [r["partialFingerprints"]["netcfgFinding/v2"] for r in log["runs"][0]["results"]]

    first = prints()
    assert first == prints()
    assert len(set(first)) == len(first)


def test_a_file_outside_the_repository_root_is_refused_not_written_absolute(repo, tmp_path_factory, capsys):
    report = _report(repo)
    report.repo_root = tmp_path_factory.mktemp("elsewhere")
    with pytest.raises(Exception, match="outside the repository root"):
        FORMATS["sarif"](report)


def _copy_lab(repo: Path) -> Path:
    lab = repo / "inventories" / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns("examples"))
    return lab


def _write_configs(folder: Path, edit: dict[str, tuple[str, str]]) -> None:
    from netcfg.inventory import load_fabric
    from netcfg.policy import load_policy

    fabric = load_fabric(LAB)
    folder.mkdir()
    for name, text in render_fabric(fabric, load_policy(fabric.policy_ref)).items():
        if name in edit:
            old, new = edit[name]
            assert old in text
            text = text.replace(old, new)
        (folder / name).write_text(text)


def test_premerge_sarif_points_at_the_config_files_as_json_does(tmp_path, monkeypatch, capsys, sarif_schema):
    repo = tmp_path / "repo"
    _copy_lab(repo)
    old, new = "priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop"
    _write_configs(repo / "configs", {"leaf-su2-r4.cfg": (old, new)})
    monkeypatch.chdir(repo)
    args = ["check", "inventories/lab", "--configs", "configs"]
    assert main([*args, "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["file"] for f in findings} == {"configs/leaf-su2-r4.cfg"}
    assert main([*args, "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    sarif_schema.validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == len(findings)
    for finding, result in zip(findings, results, strict=True):
        physical = result["locations"][0]["physicalLocation"]
        assert result["ruleId"] == finding["rule"]
        assert physical["artifactLocation"]["uri"] == finding["file"]
        # Once the parser knows where the setting is, SARIF carries that line; line 1 until then.
        assert physical["region"]["startLine"] == (finding["line"] or 1)
    pfc = next(f for f in findings if f["rule"] == "pfc.no_drop_priorities")
    if pfc["line"] is not None:
        edited = (repo / pfc["file"]).read_text().splitlines()[pfc["line"] - 1]
        assert "priority-flow-control" in edited, edited
    # Run from elsewhere, --repo-root still gives repository-relative paths.
    monkeypatch.chdir(tmp_path)
    elsewhere = ["check", "repo/inventories/lab", "--configs", "repo/configs", "--format", "sarif"]
    assert main(elsewhere) == 1
    assert _uris(capsys) == {"repo/configs/leaf-su2-r4.cfg"}
    assert main([*elsewhere, "--repo-root", "repo"]) == 1
    assert _uris(capsys) == {"configs/leaf-su2-r4.cfg"}
    assert main([*elsewhere, "--repo-root", "repo/configs"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "outside the repository root" in err[0] and "fabric.yaml" in err[0]


def _uris(capsys) -> set[str]:
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    return {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}


def _demo(out: Path, fmt: str, capsys, *extra: str) -> tuple[int, str]:
    code = main(["demo", "--format", fmt, "--out", str(out), *extra])
    return code, capsys.readouterr().out


def test_live_sarif_locates_devices_in_the_inventory(tmp_path, monkeypatch, capsys, sarif_schema):
    monkeypatch.chdir(ROOT)
    code, text = _demo(tmp_path, "sarif", capsys)
    assert code == 1
    log = json.loads(text)
    sarif_schema.validate(log)
    topology = 1 + (LAB / "fabric.yaml").read_text().splitlines().index("topology:")
    by_device = {}
    for result in log["runs"][0]["results"]:
        location = result["locations"][0]
        physical = location["physicalLocation"]
        by_device[(location["logicalLocations"][0]["name"], result["ruleId"])] = (
            physical["artifactLocation"]["uri"],
            physical["region"]["startLine"],
        )
    assert by_device[("gpu08", "collect.unreachable")] == ("inventories/lab/fabric.yaml", topology)
    assert {uri for uri, _ in by_device.values()} == {"inventories/lab/fabric.yaml"}


def _cases(root: ET.Element) -> dict[str, list[ET.Element]]:
    suites: dict[str, list[ET.Element]] = {}
    for suite in root.iter("testsuite"):
        suites[suite.get("name")] = list(suite.iter("testcase"))
    return suites


def _passed(cases: list[ET.Element]) -> list[ET.Element]:
    return [c for c in cases if not any(c.find(k) is not None for k in ("failure", "error", "skipped"))]


def test_offline_junit_validates_and_never_passes_a_rule_it_could_not_check(tmp_path, capsys, junit_xsd):
    out = tmp_path / "snapshot.xml"
    assert (
        main(["check", str(LAB), "--snapshot", str(DRIFTED), "--format", "junit", "--output", str(out)]) == 1
    )
    junit_xsd.validate(str(out))
    root = ET.parse(out).getroot()
    suites = _cases(root)
    assert set(suites) == set(RULES)
    for rule_id, cases in suites.items():
        if rule_id.startswith("collect."):
            assert not _passed(cases), f"{rule_id} listed as passed by an offline check"
            assert all(c.find("skipped") is not None for c in cases)
    assert int(root.get("failures")) == 10 and int(root.get("errors")) == 0
    assert sum(len(s) for s in suites.values()) == int(root.get("tests"))
    for suite in root.iter("testsuite"):
        assert suite.get("timestamp") and suite.get("time") is not None
        assert int(suite.get("tests")) == len(list(suite.iter("testcase")))

    # Config files hold no LLDP table: the cabling rule is skipped, not passed.
    configs = tmp_path / "configs"
    _write_configs(configs, {})
    out = tmp_path / "configs.xml"
    assert (
        main(["check", str(LAB), "--configs", str(configs), "--format", "junit", "--output", str(out)]) == 0
    )
    junit_xsd.validate(str(out))
    suites = _cases(ET.parse(out).getroot())
    (cabling,) = suites["cabling.wrong_neighbor"]
    assert "no lldp data" in cabling.find("skipped").get("message")
    assert _passed(suites["pfc.no_drop_priorities"])


def test_live_junit_validates_and_lists_collection_as_tests(tmp_path, monkeypatch, capsys, junit_xsd):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "live.xml"
    code, _ = _demo(tmp_path / "demo", "junit", capsys, "--output", str(out))
    assert code == 1
    junit_xsd.validate(str(out))
    root = ET.parse(out).getroot()
    suites = _cases(root)
    (unreachable,) = suites["collect.unreachable"]
    assert unreachable.get("name") == "gpu08.collect.unreachable"
    error = unreachable.find("error")
    assert error is not None and "Connection refused" in error.get("message")
    assert _passed(suites["collect.auth"]) and _passed(suites["collect.timeout"])
    # One failing case per seeded finding at or above --fail-on (error); the unreachable server is
    # the one error. A warning passes its case, the finding in its output: the demo's job passes
    # on warnings, and its test report must not show a failed test.
    warned = {(d, r) for d, r in DEMO_FINDINGS if RULES[r].severity is Severity.WARNING}
    assert warned
    assert int(root.get("errors")) == 1
    assert int(root.get("failures")) == len(DEMO_FINDINGS) - 1 - len(warned)
    for device, rule_id in warned:
        (case,) = [c for c in suites[rule_id] if c.get("name").startswith(f"{device}.{rule_id}")]
        assert _passed([case]) and "warning: " in case.find("system-out").text
    code, _ = _demo(tmp_path / "demo2", "junit", capsys, "--output", str(out), "--fail-on", "warning")
    assert code == 1
    root = ET.parse(out).getroot()
    assert int(root.get("failures")) == len(DEMO_FINDINGS) - 1


def test_file_and_line_in_every_format(repo, capsys, junit_xsd):
    report = _report(repo)
    where = f"{repo / 'configs' / 'leaf-a1.cfg'}:42"
    data = json.loads(FORMATS["json"](report))
    assert (data["findings"][0]["file"], data["findings"][0]["line"]) == (
        str(repo / "configs/leaf-a1.cfg"),
        42,
    )
    assert data["findings"][1]["file"] is None and data["findings"][1]["line"] is None

    junit = FORMATS["junit"](report)
    junit_xsd.validate(junit)
    case = ET.fromstring(junit).find(".//testcase[@name='leaf-a1.pfc.no_drop_priorities.Ethernet1-4']")
    # Paths in JUnit are relative to the repository root, as GitLab and the annotators resolve them.
    assert (case.get("file"), case.get("line")) == ("configs/leaf-a1.cfg", "42")
    failure = case.find("failure")
    assert failure.get("message").startswith("configs/leaf-a1.cfg:42: PFC no-drop")
    assert failure.text.splitlines()[0].startswith("configs/leaf-a1.cfg:42: error: PFC no-drop")

    markdown = FORMATS["markdown"](report)
    assert "| file:line |" in markdown
    assert f"| `{where}` |" in markdown

    # Without the fabric's layout the page is the findings alone, each row ending in its file:line.
    html = FORMATS["html"](report)
    assert "id=rail-map" not in html
    assert f"found {{4}} (on 4 ports)<td>{where}<tr data-s=" in html

    print_table(report, _console())
    rows = table_rows(capsys.readouterr().out)
    assert [row["file:line"].replace(" ", "") for row in rows] == [where, "", ""]


def _console():
    from netcfg.cli import plain_console

    return plain_console()


def test_table_has_no_location_column_without_files(capsys):
    assert main(["check", str(LAB), "--snapshot", str(DRIFTED)]) == 1
    assert "file:line" not in capsys.readouterr().out


def test_device_text_is_never_read_as_markup(tmp_path, capsys):
    snapshot = tmp_path / "snap[bold]"
    assert main(["lab", "snapshot", str(LAB), "-o", str(snapshot)]) == 0
    capsys.readouterr()
    versions = {"spine1": "4.2[/]F", "spine2": "[bold]4.2F", "leaf-su1-r1": "[link=x]4.2F"}
    for device, version in versions.items():
        config = snapshot / device / "show_running-config.txt"
        text = config.read_text()
        assert "EOS-4.32.1F)" in text
        config.write_text(text.replace("EOS-4.32.1F)", f"EOS-{version})", 1))
    assert main(["check", str(LAB), "--snapshot", str(snapshot)]) == 1
    captured = capsys.readouterr()
    assert "internal error" not in captured.err
    for version in versions.values():
        assert version in captured.out
    assert "snap[bold]" in captured.out


def test_the_table_says_why_a_device_was_not_collected(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out = _demo(tmp_path / "out[red]", "table", capsys)
    assert code == 1
    rows = {(row["device"], row["rule"]): row for row in table_rows(out)}
    message = rows[("gpu08", "collect.unreachable")]["message"]
    assert message.startswith("not collected (unreachable): 127.0.0.1:")
    assert "Connection refused" in message
    assert "out[red]" in out


def table_rows(out: str) -> list[dict[str, str]]:
    """The rows of a printed findings table, cells folded over several lines joined again."""
    lines = [line for line in out.splitlines() if line.startswith(("┃", "│"))]
    header = [cell.strip() for cell in lines[0].strip("┃").split("┃")]
    rows: list[list[str]] = []
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [" ".join(filter(None, pair)) for pair in zip(rows[-1], cells, strict=True)]
    return [dict(zip(header, row, strict=True)) for row in rows]


HOSTILE = "\x1b[31mred\x1b[0m\x00nul\rcr\x07bel\u202eevil\u2066iso <b>bold</b> *em* [link](x) `code` | pipe"
RAW = ("\x1b", "\x00", "\r", "\x07", "\u202e", "\u2066")


def test_control_characters_and_markup_from_devices_never_reach_a_reader_raw(tmp_path, capfd, junit_xsd):
    # Device text in every field a device fills: its name in an LLDP table, a port description, the
    # reason an output could not be read.
    report = Report(
        "dc1",
        f"snapshot {HOSTILE}",
        1,
        [
            Finding(
                "cabling.wrong_neighbor",
                Severity.ERROR,
                "leaf-a1",
                f"Ethernet1 {HOSTILE}",
                "gpu001",
                HOSTILE,
                HOSTILE,
            ),
            Finding(
                "parse.unknown_output",
                Severity.ERROR,
                "leaf-a1",
                None,
                "readable",
                HOSTILE,
                f"could not read: {HOSTILE}",
            ),
        ],
    )
    for fmt, render in FORMATS.items():
        text = render(report)
        assert not any(raw in text for raw in RAW), fmt
    junit = FORMATS["junit"](report)
    junit_xsd.validate(junit)
    assert "\\x1b[31mred" in ET.fromstring(junit).find(".//failure").get("message")
    markdown = FORMATS["markdown"](report)
    assert "<b>" not in markdown and "[link](x)" not in markdown and "\\<b\\>bold" in markdown
    row = next(line for line in markdown.splitlines() if "unknown_output" in line)
    assert row.count(" | ") == 7  # the device's `|` stays inside its cell
    print_table(report, _console())
    out = capfd.readouterr().out
    assert not any(raw in out for raw in RAW)
    assert "\\u202eevil" in out


def test_a_devices_control_characters_never_reach_the_terminal_or_junit_end_to_end(
    tmp_path, capfd, junit_xsd
):
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(LAB), "-o", str(snapshot)]) == 0
    lldp = snapshot / "gpu01" / "lldpcli_show_neighbors.txt"
    text = lldp.read_text()
    name = re.search(r"SysName: +(\S+)", text).group(1)
    lldp.write_text(
        text.replace(f"SysName:      {name}", "SysName:      evil\x1b]0;owned\x07\u202e<i>x</i>", 1)
    )
    capfd.readouterr()
    assert main(["check", str(LAB), "--snapshot", str(snapshot)]) == 1
    junit = tmp_path / "report.xml"
    assert (
        main(["check", str(LAB), "--snapshot", str(snapshot), "--format", "junit", "--output", str(junit)])
        == 1
    )
    markdown = tmp_path / "report.md"
    assert (
        main(
            [
                "check",
                str(LAB),
                "--snapshot",
                str(snapshot),
                "--format",
                "markdown",
                "--output",
                str(markdown),
            ]
        )
        == 1
    )
    out, err = capfd.readouterr()
    assert "evil\\x1b]0;owned\\x07\\u202e" in out
    junit_xsd.validate(str(junit))
    for text in (out, err, junit.read_text(), markdown.read_text()):
        assert not any(raw in text for raw in RAW)
    assert "\\<i\\>x\\</i\\>" in markdown.read_text()


# Few values per field, so generated findings often share a device, rule and ports.
_RULE_IDS = ["pfc.no_drop_priorities", "qos.trust", "state.missing", "plan.duplicate_link"]
_TEXT = st.sampled_from(["{3}", "{4}", "dscp", "pcp", "1 without", "9214", "a\x1fb", "a", "b"])
_FINDINGS = st.lists(
    st.builds(
        Finding,
        st.sampled_from(_RULE_IDS),
        st.sampled_from(list(Severity)),
        st.sampled_from(["leaf-a1", "gpu001", "(fabric)"]),
        st.sampled_from([None, "Ethernet1", "Ethernet1-4", "eth0"]),
        _TEXT,
        _TEXT,
        _TEXT,
        file=st.sampled_from([None, str(ROOT / "configs" / "leaf-a1.cfg")]),
        line=st.sampled_from([None, 1, 7, 42]),
    ),
    max_size=12,
)


def _ci_identities(findings: list[Finding]) -> tuple[list[str], list[str], list[str]]:
    """(JUnit case names of the findings, SARIF fingerprints, Code Quality fingerprints), read back
    from the reports as the tools read them."""
    report = Report("dc1", "configs", 1, findings, inventory=str(LAB / "fabric.yaml"), repo_root=ROOT)
    root = ET.fromstring(FORMATS["junit"](report))
    names = [c.get("name") for c in root.iter("testcase") if c.get("file")]
    results = json.loads(FORMATS["sarif"](report))["runs"][0]["results"]
    sarif = [r["partialFingerprints"]["netcfgFinding/v2"] for r in results]
    quality = [i["fingerprint"] for i in json.loads(FORMATS["codequality"](report))]
    return names, sarif, quality


@settings(max_examples=150, deadline=None)
@given(_FINDINGS, st.randoms(use_true_random=False), st.integers(1, 500))
def test_no_two_findings_share_a_case_name_or_fingerprint_and_a_finding_keeps_its_own(findings, rng, shift):
    names, sarif, quality = _ci_identities(findings)
    # Every finding is placed (its file, else its device's inventory entry), so each has a case.
    assert len(names) == len(sarif) == len(quality) == len(findings)
    for values in (names, sarif, quality):
        assert len(set(values)) == len(values)

    # The next run: the rules ran in another order, an edit above the settings moved their lines,
    # and counters on ports read higher. Each finding keeps its fingerprint.
    keys = Counter(_key(f) for f in findings)
    order = list(range(len(findings)))
    rng.shuffle(order)
    again = [
        dataclasses.replace(
            findings[i],
            line=None if findings[i].line is None else findings[i].line + shift,
            actual=findings[i].actual + "0"
            if findings[i].interface and keys[_key(findings[i])] == 1
            else findings[i].actual,
        )
        for i in order
    ]
    _, sarif_again, quality_again = _ci_identities(again)
    # Findings equal in every field cannot be told apart: only their set of fingerprints can be kept.
    for before, after in ((sarif, sarif_again), (quality, quality_again)):
        kept = Counter((findings[i], value) for i, value in zip(order, after, strict=True))
        assert kept == Counter(zip(findings, before, strict=True))


def _key(f: Finding) -> tuple[object, ...]:
    return (f.rule, f.device, f.interface, f.expected)
