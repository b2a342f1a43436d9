"""The documentation's examples run, so that what the docs quote is produced, not typed.

THE CONVENTION (docs/contributing.md says the same, for authors of pages). It holds for README.md and
every page under docs/ (docs/hooks/ excepted). Every fenced block (``` or ~~~) has a language, and:

- ```console: a line starting with `$ ` is a command. Lines after it, up to the next `$ ` line or the
  end of the block, are its expected output. Commands run with bash, in order, in a scratch folder
  that holds a copy of the repository's inventories/ and policies/ (the repository itself is never
  written), with `netcfg` (this checkout) first on PATH, NETCFG_USERNAME=admin and
  NETCFG_PASSWORD=lab-only-secret (the lab's), HOME in the scratch folder and TZ=UTC. All console
  blocks of one page share one scratch folder, so a block sees the files earlier blocks wrote.
  - exit status: a command must exit 0, unless its line ends with `# exit N` (a shell comment, so the
    line still copies and pastes), which makes N the expected status;
  - a command line ending in `\\` continues on the next line;
  - expected output is compared with what the command printed (stdout and stderr as one stream),
    line by line, trailing blanks ignored: a line that is only `...` matches any number of lines
    (none too); `...` inside a line matches any text within that line. Without a `...` line the
    output must have exactly the expected lines. A command with no expected lines prints anything.
- ```yaml: every document is parsed (yaml.safe_load_all). A block whose first line is
  `# yaml-language-server: $schema=KIND.schema.json` (KIND: inventory, policy or waivers; the line an
  editor reads, as `netcfg init` writes it) is also validated as netcfg reads that file: against
  its pydantic model (netcfg.schema.SCHEMAS[KIND]), unknown keys refused.
- ```json: parsed (json.loads). ```csv: parsed (csv), every row as wide as the header.
- Any other language (sh, python, ini, cron, text, ...) and any block of the kinds above that must not
  run (a long benchmark, a recipe for a real cluster) is preceded by an HTML comment, on the line just
  before the fence: `<!-- not-run: REASON -->`. A block of another language without one fails the
  test, as does an empty reason. Where another test runs the block (the Slurm recipes, the Nornir
  script) the reason names it.

The site builds with `mkdocs build --strict` (a broken link or anchor, a page missing from disk,
a rule without its entry fails), and README.md's relative links resolve.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from netcfg.checks.catalogue import RULES
from netcfg.platforms import registry
from netcfg.schema import SCHEMAS
from tests.conftest import ROOT

DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)])
CHECKED = {"console", "yaml", "json", "csv"}
NOT_RUN = re.compile(r"^<!--\s*not-run:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
SCHEMA_LINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\w+)\.schema\.json\b")
EXIT = re.compile(r"#\s*exit\s+(\d+)\b[^#]*$")
# A console command's time budget: the lab demo is the longest, at a few seconds.
COMMAND_TIMEOUT_S = 120


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    not_run: str | None  # the reason, when the block is marked not-run

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, lang = match.groups()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        marker = NOT_RUN.match(lines[start - 1].strip()) if start else None
        reason = marker.group(1).strip() if marker else None
        found.append(Block(page, start + 1, lang.lower(), "\n".join(body) + "\n", reason))
        i += 1
    return found


BLOCKS = [b for page in PAGES for b in blocks_of(page)]


def test_every_block_is_checked_or_says_why_not():
    unmarked = [b.where for b in BLOCKS if b.lang not in CHECKED and b.not_run is None]
    assert not unmarked, f"blocks of a language no test runs, without <!-- not-run: reason -->: {unmarked}"
    empty = [b.where for b in BLOCKS if b.not_run == ""]
    assert not empty, f"<!-- not-run: --> without a reason: {empty}"
    assert any(b.lang == "console" and not b.not_run for b in BLOCKS)


# --- data examples ---------------------------------------------------------------------------------


DATA = [b for b in BLOCKS if b.lang in {"yaml", "json", "csv"} and not b.not_run]


@pytest.mark.parametrize("block", [pytest.param(b, id=b.where) for b in DATA])
def test_data_example_parses(block: Block):
    if block.lang == "json":
        json.loads(block.text)
    elif block.lang == "csv":
        rows = list(csv.reader(io.StringIO(block.text)))
        assert rows, f"{block.where}: an empty CSV example"
        widths = {len(row) for row in rows if row}
        assert widths == {len(rows[0])}, f"{block.where}: rows of {sorted(widths)} columns"
    else:
        documents = list(yaml.safe_load_all(block.text))
        kind = SCHEMA_LINE.match(block.text)
        if kind:
            assert kind.group(1) in SCHEMAS, f"{block.where}: no schema {kind.group(1)!r}"
            (document,) = documents
            SCHEMAS[kind.group(1)].model_validate(document)


def test_schema_examples_are_held_to_the_model():
    """The validation above can fail: a key the model does not know is refused."""
    with pytest.raises(ValueError, match="mtu_bytes"):
        SCHEMAS["policy"].model_validate({"name": "x", "mtu_bytes": 9000})
    assert any(SCHEMA_LINE.match(b.text) for b in BLOCKS if b.lang == "yaml" and not b.not_run)


# --- console examples ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    block: Block
    line: int
    shell: str
    status: int
    expected: tuple[str, ...]


def commands_of(block: Block) -> list[Command]:
    out: list[Command] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise AssertionError(f"{block.where}: console line {lines[i]!r} before any `$ ` command")
        first = block.line + 1 + i
        shell = lines[i][2:]
        while shell.endswith("\\") and i + 1 < len(lines):
            i += 1
            shell = shell[:-1] + "\n" + lines[i]
        i += 1
        expected: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i].rstrip())
            i += 1
        status = EXIT.search(shell.splitlines()[-1])
        out.append(Command(block, first, shell, int(status.group(1)) if status else 0, tuple(expected)))
    return out


def output_matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """`...` alone matches any run of lines; within a line, any text."""
    patterns = [
        None if line.strip() == "..." else re.compile(".*?".join(map(re.escape, line.split("..."))) + r"\Z")
        for line in expected
    ]
    memo: dict[tuple[int, int], bool] = {}

    def match(p: int, a: int) -> bool:
        key = (p, a)
        if key not in memo:
            if p == len(patterns):
                memo[key] = a == len(actual)
            elif patterns[p] is None:
                memo[key] = match(p + 1, a) or (a < len(actual) and match(p, a + 1))
            else:
                memo[key] = a < len(actual) and bool(patterns[p].match(actual[a])) and match(p + 1, a + 1)
        return memo[key]

    return match(0, 0)


def test_output_matching_can_fail():
    assert output_matches(("a", "...", "z"), ["a", "b", "c", "z"])
    assert output_matches(("took ... s",), ["took 1.2 s"])
    assert not output_matches(("a", "z"), ["a", "b", "z"])
    assert not output_matches(("18 devices checked: 0 error",), ["18 devices checked: 1 error"])
    assert not output_matches(("...", "done"), ["done", "more"])


def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder to run a page's commands in, and their environment."""
    work = tmp_path / "work"
    work.mkdir()
    for folder in ("inventories", "policies"):
        shutil.copytree(ROOT / folder, work / folder)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    netcfg = bin_dir / "netcfg"
    netcfg.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m netcfg "$@"\n')
    netcfg.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "NO_COLOR": "1",
        "NETCFG_USERNAME": "admin",
        "NETCFG_PASSWORD": "lab-only-secret",
    }
    return work, env


CONSOLE_PAGES = sorted({b.page for b in BLOCKS if b.lang == "console" and not b.not_run})


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_console_examples_run_as_shown(page: Path, tmp_path):
    work, env = scratch(tmp_path)
    for block in (b for b in blocks_of(page) if b.lang == "console" and not b.not_run):
        for command in commands_of(block):
            done = subprocess.run(
                ["bash", "-c", command.shell],
                cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=COMMAND_TIMEOUT_S,
            )  # fmt: skip
            where = f"{page.relative_to(ROOT)}:{command.line}: $ {command.shell}"
            assert done.returncode == command.status, (
                f"{where}\nexited {done.returncode}, the page says {command.status}:\n{done.stdout[-3000:]}"
            )
            actual = [line.rstrip() for line in done.stdout.splitlines()]
            if command.expected:
                assert output_matches(command.expected, actual), (
                    f"{where}\nexpected:\n" + "\n".join(command.expected) + "\nprinted:\n" + "\n".join(actual)
                )


# --- the site ---------------------------------------------------------------------------------------


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "NO_MKDOCS_2_WARNING": "1"}
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]
    return subprocess.run(
        [*build, "--site-dir", str(site)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_site_builds_strictly_with_every_rule_and_field(tmp_path):
    site = tmp_path / "site"
    done = mkdocs_build(ROOT / "mkdocs.yml", site)
    assert done.returncode == 0, done.stderr[-4000:]
    rules = (site / "rules.html").read_text(encoding="utf-8")
    missing = [rule for rule in RULES if f'id="{rule}"' not in rules]
    assert not missing, f"rules without an entry in the rule reference: {missing}"
    for kind, model in SCHEMAS.items():
        page = (site / "schema" / f"{kind}.html").read_text(encoding="utf-8")
        assert all(f"<code>{field}</code>" in page for field in model.model_fields), kind
    for name in registry():
        page = site / "platforms" / f"{name}.html"
        assert page.is_file(), f"platform {name} has no page under docs/platforms/"
        assert "netmiko device type" in page.read_text(encoding="utf-8"), f"{name}: no generated facts"


def test_a_broken_link_fails_the_build(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(DOCS, copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "README.md"):
        shutil.copy(ROOT / name, copy / name)
    (copy / "inventories").symlink_to(ROOT / "inventories")
    page = copy / "docs" / "getting-started.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [nothing](no-such-page.md).\n")
    done = mkdocs_build(copy / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stderr


def test_every_platform_page_carries_its_generated_facts():
    for name in registry():
        text = (DOCS / "platforms" / f"{name}.md").read_text(encoding="utf-8")
        assert f"<!-- generated: platform {name} -->" in text, name


def test_the_readme_is_a_front_door_whose_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 260
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links to no page of the docs"
    broken = [t for t in local if not (ROOT / t).exists()]
    assert not broken, f"README links to missing files: {broken}"
    assert "pip install netcfg-roce" in readme
    assert not re.search(r"pip install netcfg(?![-\w])", readme)
