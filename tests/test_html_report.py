"""The HTML report: what its cells show for real findings, that device text stays text, and what a
person sees when the lab's seeded faults are opened in headless Chromium."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from netcfg.cli import main
from netcfg.drift import Change
from netcfg.inventory import load_fabric
from netcfg.model import expand_ports, port_ranges
from netcfg.report import FORMATS, Report
from netcfg.report.html import status_of
from netcfg.report.layout import fabric_layout
from netcfg.report.where import ORDER, where_section
from netcfg.rules import Finding, Severity
from tests.browser import Browser
from tests.conftest import LAB, ROOT

# Screenshots a person can look at after a run (gitignored): docs/html-report.md says where.
ARTIFACTS = ROOT / "test-artifacts" / "html-report"
# axe-core is installed at test time (.ci/run does it first), never committed.
AXE_PREFIX = ROOT / ".cache" / "node"
AXE_JS = AXE_PREFIX / "node_modules" / "axe-core" / "axe.min.js"

HOSTILE = """</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">'"&amp;"""


class Page(HTMLParser):
    """What the page holds: the class of every rail-map chip and NIC cell, its scripts, and every
    attribute that could name a resource."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.chips: dict[str, str] = {}
        self.nics: dict[tuple[str, int], str] = {}
        self.hosts: dict[str, str] = {}
        self.scripts: list[dict[str, str | None]] = []
        self.resources: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self._row: str | None = None
        self._cells = 0
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.resources += [(k, v) for k, v in attrs if k in {"src", "href", "action", "srcset", "data"}]
        if tag == "script":
            self.scripts.append(a)
        elif tag == "b" and "data-k" in a:
            self.chips[a["data-k"] or ""] = a["class"] or ""
        elif tag == "tr":
            self._row, self._cells = a.get("data-h"), 0
        elif tag == "th" and self._row is not None:
            self.hosts[self._row] = a["class"] or ""
        elif tag == "td" and self._row is not None:
            self._cells += 1
            self.nics[(self._row, self._cells)] = a["class"] or ""

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _finding(
    device: str, interface: str | None, severity: Severity = Severity.ERROR, rule: str = "qos.trust"
):
    return Finding(rule, severity, device, interface, "dscp", "pcp", f"{rule} on {device}")


def _page(findings: list[Finding], lab_fabric, checked=None, **kw) -> Page:
    layout = fabric_layout(lab_fabric, lab_fabric.devices if checked is None else checked)
    return Page(FORMATS["html"](Report("lab", "test", 18, findings, layout=layout, **kw)))


def test_nic_cells_take_the_hosts_findings_on_them_and_the_leaf_port_they_are_cabled_to(lab_fabric):
    page = _page(
        [
            _finding("gpu01", "eth0-1"),  # a port range on the host: rails 1 and 2
            _finding("gpu02", "mlx5_3", Severity.WARNING),  # named by its RDMA device: rail 4
            _finding("gpu03", None, Severity.INFO),  # the whole host
            _finding("leaf-su2-r3", "Ethernet2,31", Severity.WARNING),  # gpu06's rail-3 NIC, an uplink
            _finding("gpu04", None, rule="collect.unreachable"),
            _finding("gpu04", "eth2", Severity.WARNING),
        ],
        lab_fabric,
    )
    assert {k for k, v in page.nics.items() if v == "e"} == {("gpu01", 1), ("gpu01", 2)}
    assert {k for k, v in page.nics.items() if v == "w"} == {("gpu02", 4), ("gpu06", 3)}
    assert {k for k, v in page.nics.items() if v == "i"} == {("gpu03", r) for r in range(1, 5)}
    # Not collected is grey, whatever else the host says: unknown is not pass, nor a warning.
    assert {k for k, v in page.nics.items() if v == "u"} == {("gpu04", r) for r in range(1, 5)}
    assert len(page.nics) == 8 * 4 and sum(v == "o" for v in page.nics.values()) == 32 - 12
    assert page.chips["leaf-su2-r3"] == "w" and page.chips["leaf-su1-r1"] == "o"
    assert page.hosts == {f"gpu{n:02d}": c for n, c in zip(range(1, 9), "ewiuoooo", strict=True)}


def test_devices_without_state_are_not_checked_rather_than_clean(lab_fabric):
    leaves = {n for n, d in lab_fabric.devices.items() if d.role == "leaf" and d.rail == 1}
    page = _page([], lab_fabric, checked=leaves)
    assert {n for n, c in page.chips.items() if c == "o"} == leaves
    assert set(page.chips.values()) == {"o", "n"} and set(page.nics.values()) == {"n"}


def test_device_text_stays_text_and_the_page_names_no_resource(lab_fabric):
    findings = [
        Finding("qos.trust", Severity.ERROR, "leaf-su1-r1", 'Ethernet1"><b>', HOSTILE, HOSTILE, HOSTILE),
    ]
    drift = [Change("leaf-su1-r1", "Ethernet1.description", "uplink", HOSTILE)]
    text = FORMATS["html"](
        Report("lab", f"snapshot {HOSTILE}", 18, findings, layout=fabric_layout(lab_fabric, []), drift=drift)
    )
    page = Page(text)
    assert page.resources == []
    assert [s.get("type") for s in page.scripts] == ["application/json", "application/json", None]
    # Every copy of the hostile text is data: in the source line, the first screen's device list,
    # the findings table and the drift.
    assert "".join(page.text).count(HOSTILE) == 6
    assert "<img" not in text and text.count("<script") == 3
    for needle in ("url(", "@import", "http:", "https:", "//"):
        assert needle not in text


def test_drift_is_listed_and_a_first_audit_says_there_was_nothing_to_compare(lab_fabric):
    changes = [Change("leaf-su1-r4", "Ethernet1.mtu", "9214", "1500")]
    text = "".join(_page([], lab_fabric, drift=changes).text)
    assert "Drift since the last audit: 1 change(s)" in text and "leaf-su1-r4Ethernet1.mtu92141500" in text
    assert "No earlier audit to compare with." in "".join(_page([], lab_fabric).text)
    assert "No changes." in "".join(_page([], lab_fabric, drift=[]).text)


UNIT = re.compile(r"<li><details><summary><span class='sev \w'>[^<]*</span> <b>")
ROW = re.compile(r"<tr><td><span class='sev (\w)'>")


@given(
    st.lists(
        st.tuples(
            st.sampled_from([*sorted(load_fabric(LAB).devices), "(fabric)", "not-in-inventory"]),
            st.sampled_from([None, "Ethernet1", "eth0-2", "mlx5_3", "Ethernet31"]),
            st.sampled_from(list(Severity)),
            st.sampled_from(["qos.trust", "collect.unreachable", "parse.unknown_output", "pfc.watchdog"]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_the_first_screen_lists_every_finding_once_worst_unit_first(lab_fabric, cases):
    findings = [Finding(rule, sev, device, port, "a", "b", "m") for device, port, sev, rule in cases]
    statuses = [status_of(f) for f in findings]
    text = where_section(findings, statuses, fabric_layout(lab_fabric, lab_fabric.devices))
    units = UNIT.split(text.split("<div class=counts>")[0])[1:]
    per_unit = [[ROW.findall(u).count(s) for s in ORDER] for u in units]
    assert sum(map(sum, per_unit)) == len(findings)
    assert sorted(s for u in units for s in ROW.findall(u)) == sorted(statuses)
    # Unit after unit, the errors, then the not checked, warnings and notes never grow.
    assert per_unit == sorted(per_unit, reverse=True)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Ethernet", "Ethernet1/", "et-0/0/", "eth", "swp1s", "ens1np"]),
            st.integers(0, 600),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_expanding_port_ranges_gives_back_every_port(ports):
    names = [f"{head}{n}" for head, n in ports]
    assert sorted(expand_ports(port_ranges(names))) == sorted(set(names))


# --- in a real browser ------------------------------------------------------------------------------


# What a person reads as the colour of a cell, from its pixels.
def _colour(rgb: tuple[int, int, int]) -> str:
    r, g, b = rgb
    if max(rgb) - min(rgb) < 30:
        return "grey"
    if r > 170 and g < 90 and b < 90:
        return "red"
    if r > 190 and 120 < g < 200 and b < 90:
        return "amber"
    if g > 130 and r < 100 and b < 130:
        return "green"
    if b > 190 and r < 100:
        return "blue"
    return f"other {rgb}"


BOXES = """JSON.stringify(Object.fromEntries([
  ...[...document.querySelectorAll('[data-k]')].map(e => [e.dataset.k, e.getBoundingClientRect()]),
  ...[...document.querySelectorAll('tr[data-h] > td')].map(
      e => [e.parentNode.dataset.h + '#' + e.cellIndex, e.getBoundingClientRect()])]))"""


@pytest.fixture(scope="module")
def browser():
    with Browser() as b:
        yield b


def _boxes(browser: Browser) -> dict[str, tuple[float, float, float, float]]:
    return {
        k: (r["x"], r["y"], r["width"], r["height"]) for k, r in json.loads(browser.evaluate(BOXES)).items()
    }


def _seen(shot: Image.Image, box: tuple[float, float, float, float]) -> str:
    """The colour covering most of a cell (its text is drawn over the rest)."""
    x, y, w, h = box
    crop = shot.crop((round(x) + 1, round(y) + 1, round(x + w) - 1, round(y + h) - 1)).convert("RGB")
    _count, rgb = max(crop.getcolors(crop.width * crop.height))
    return _colour(rgb)


def _centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    x, y, w, h = box
    return x + w / 2, y + h / 2


@pytest.fixture(scope="module")
def nightly(tmp_path_factory) -> Path:
    """The HTML report of the demo's nightly audit of the lab and its seeded faults."""
    out = tmp_path_factory.mktemp("demo")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["demo", "--format", "json", "--out", str(out)]) == 1
    # The demo's second audit is the nightly one (the first is its go-live baseline).
    _, page = sorted((out / "reports" / "lab").glob("*.html"))
    return page


def test_the_lab_with_its_seeded_faults_as_chromium_shows_it(nightly, browser):
    page = nightly
    findings = json.loads(page.with_suffix(".json").read_text())["findings"]
    browser.open(page, 1280, 900)
    # The first screen is the list of what is wrong; the rail map and the NIC grid follow it.
    browser.fit_page(1280)
    boxes = _boxes(browser)
    shot = Image.open(io.BytesIO(browser.screenshot()))
    seen = {key: _seen(shot, box) for key, box in boxes.items()}

    # Every switch a fault of faults.yaml is on (a cable that is down is named on its host end).
    faulty = {"leaf-su1-r3", "leaf-su2-r2", "spine2", "leaf-su1-r2", "spine1", "leaf-su1-r4"}
    faulty |= {"leaf-su2-r4", "leaf-su2-r1", "leaf-su1-r1"}
    switches = {k for k in boxes if "#" not in k}
    healthy = switches - {f["device"] for f in findings}
    assert healthy == switches - faulty == {"leaf-su2-r3"}
    assert {k: seen[k] for k in switches} == {k: "red" if k in faulty else "green" for k in switches}
    expected = {
        # PCP trust on every NIC of gpu05; the NICs cabled to leaf-su1-r3's wrong PFC ports.
        **{f"gpu05#{r}": "red" for r in range(1, 5)},
        **{f"gpu0{h}#3": "red" for h in range(1, 5)},
        # gpu06's old firmware, except where its NICs reach a pause storm (rail 1), ECN off (rail 2)
        # or a cable that is down (rail 3).
        "gpu06#4": "amber",
        **{f"gpu06#{r}": "red" for r in (1, 2, 3)},
        "gpu07#2": "red",  # cabled to the rail-1 leaf
        "gpu01#2": "red",  # its link runs at half speed
        **{f"gpu03#{r}": "red" for r in range(1, 5)},  # no CNP leaves any of its NICs
        "gpu04#4": "red",  # PCIe x8
        "gpu02#4": "red",  # CRC errors
        **{f"gpu08#{r}": "grey" for r in (1, 3, 4)},  # unreachable: not checked
        "gpu01#1": "green",
        "gpu07#4": "green",
    }
    differ = {k: (seen[k], want) for k, want in expected.items() if seen[k] != want}
    hosts = {k.split("#")[0] for k in differ}
    assert not differ, (
        differ,
        [(f["device"], f["rule"], f["interface"]) for f in findings if f["device"] in hosts],
    )

    browser.hover(*_centre(boxes["gpu07#2"]))
    title = browser.evaluate("document.querySelector('tr[data-h=gpu07] > td:nth-child(3)').title")
    assert title.startswith("gpu07 eth1 (mlx5_1, rail 2)") and "cabling.wrong_neighbor" in title

    browser.click(*_centre(boxes["leaf-su1-r3"]))
    panel = json.loads(
        browser.evaluate(
            "JSON.stringify({hidden: document.getElementById('panel').hidden,"
            " title: document.getElementById('panel-title').textContent,"
            " rows: [...document.querySelectorAll('#panel-rows tr')].map("
            "  tr => [...tr.children].map(td => td.textContent))})"
        )
    )
    assert not panel["hidden"] and panel["title"] == "leaf-su1-r3"
    assert sorted(row[1] for row in panel["rows"]) == sorted(
        f["rule"] for f in findings if f["device"] == "leaf-su1-r3"
    )
    pfc = next(row for row in panel["rows"] if row[1] == "pfc.no_drop_priorities")
    assert pfc[3:6] == ["Ethernet1-4,31-32", "{3}", "{4}"]

    assert browser.requested_urls() == [page.resolve().as_uri()]
    assert not [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]


def test_hostile_device_text_neither_runs_nor_loads_in_chromium(tmp_path, lab_fabric, browser):
    findings = [Finding("qos.trust", Severity.ERROR, "leaf-su1-r1", "Ethernet1", HOSTILE, HOSTILE, HOSTILE)]
    report = Report("lab", f"snapshot {HOSTILE}", 18, findings, layout=fabric_layout(lab_fabric, []))
    page = tmp_path / "hostile.html"
    page.write_text(FORMATS["html"](report))
    browser.open(page, 1280, 900)
    browser.click(*_centre(_boxes(browser)["leaf-su1-r1"]))
    state = json.loads(
        browser.evaluate(
            "JSON.stringify({pwned: typeof window.pwned, scripts: document.scripts.length,"
            " message: document.querySelector('#panel-rows td:nth-child(7)').textContent,"
            " cell: document.querySelector('#findings tbody td:nth-child(7)').textContent})"
        )
    )
    assert state == {"pwned": "undefined", "scripts": 3, "message": HOSTILE, "cell": HOSTILE}
    assert browser.requested_urls() == [page.resolve().as_uri()]


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's script, installed from the npm registry when it is not there yet: a machine that
    cannot install it fails this test, it does not skip the accessibility check."""
    if not AXE_JS.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install axe-core for the accessibility check (apt-get install npm)")
        done = subprocess.run(
            [npm, "install", "--prefix", str(AXE_PREFIX), "--no-audit", "--no-fund", "axe-core@4"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode or not AXE_JS.exists():
            pytest.fail(f"could not install axe-core into {AXE_PREFIX}: {done.stderr[-2000:]}")
    return AXE_JS.read_text()


AXE_RUN = """axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}).then(r =>
  r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.length, where: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))"""


def _violations(browser: Browser, axe: str) -> list[dict]:
    # Evaluated over the DevTools protocol, as an extension would: the page's own policy still
    # allows no script but its own.
    browser.evaluate(axe + "\n;0")
    return [v for v in browser.run_async(AXE_RUN, timeout=240) if v["impact"] in {"serious", "critical"}]


def _save(browser: Browser, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    path.write_bytes(browser.screenshot())
    return path


FOCUSED = "document.activeElement.outerHTML.slice(0, 200)"


def _tab_to(browser: Browser, selector: str, limit: int = 400) -> None:
    """Press Tab until the element `selector` names has the focus, as a keyboard user gets there."""
    for _ in range(limit):
        browser.press("Tab")
        if browser.evaluate(f"document.activeElement === document.querySelector({json.dumps(selector)})"):
            return
    raise AssertionError(f"{selector} never took the focus; last focused: {browser.evaluate(FOCUSED)}")


def test_the_lab_reads_at_a_glance_by_keyboard_and_passes_axe(nightly, browser, axe):
    findings = json.loads(nightly.with_suffix(".json").read_text())["findings"]
    browser.open(nightly, 1280, 900)
    _save(browser, "lab-first-screen.png")
    first = json.loads(
        browser.evaluate(
            "JSON.stringify({units: [...document.querySelectorAll('.where > li > details > summary')]"
            ".map(s => s.textContent), top: document.getElementById('where').getBoundingClientRect().top})"
        )
    )
    # The first screen says what is wrong and where, worst first, each severity in words.
    assert first["top"] < 450
    assert first["units"][0].startswith("✖ error SU 1:") and first["units"][-1].startswith("✖ error")
    errors = [
        sum(int(n) for n in u.split(": ")[1].split(" errors")[:1] if n.isdigit()) for u in first["units"]
    ]
    assert errors == sorted(errors, reverse=True)

    _tab_to(browser, ".where > li > details > summary")
    browser.press("Enter")
    assert browser.evaluate("document.querySelector('.where > li > details').open") is True
    _tab_to(browser, ".where > li > details > ul > li > details > summary")
    browser.press("Enter")
    ports = browser.evaluate(
        "[...document.querySelector('.where details details tbody').rows].map(r => r.cells[0].textContent)"
    )
    assert ports and all(p.startswith(("✖ error", "▲ warning", "ℹ info", "? not checked")) for p in ports)
    _save(browser, "lab-unit-opened.png")

    # Filter by severity: the error button hides every error, and says so to a screen reader.
    _tab_to(browser, "button[data-sev=e]")
    browser.press("Enter")
    shown = json.loads(
        browser.evaluate(
            "JSON.stringify({"
            " pressed: document.querySelector('button[data-sev=e]').getAttribute('aria-pressed'),"
            " rows: [...document.querySelectorAll('#findings tbody tr:not([hidden])')].map(r => r.dataset.s),"
            " said: document.getElementById('findings-shown').textContent})"
        )
    )
    not_errors = [f for f in findings if f["severity"] != "error" or f["rule"].startswith("collect.")]
    assert shown["pressed"] == "false" and "e" not in shown["rows"]
    assert len(shown["rows"]) == len(not_errors) and shown["said"].startswith(f"{len(not_errors)} of ")
    browser.press("Enter")
    assert browser.evaluate("document.querySelectorAll('#findings tbody tr[hidden]').length") == 0

    # Sort by rule from its column header; the header tells a screen reader the order.
    _tab_to(browser, "#findings thead th:nth-child(2) button")
    browser.press("Enter")
    rules = browser.evaluate(
        "[...document.querySelectorAll('#findings tbody tr')].map(r => r.cells[1].textContent)"
    )
    assert rules == sorted(f["rule"] for f in findings)
    order = browser.evaluate("document.querySelector('#findings thead th:nth-child(2)').ariaSort")
    assert order == "ascending"

    # Back up the page to a rail-map chip: Enter opens its findings and Escape gives the focus back.
    for _ in range(80):
        browser.press("Tab", shift=True)
        if browser.evaluate("document.activeElement.dataset.k") == "leaf-su1-r3":
            break
    browser.press("Enter")
    panel = json.loads(
        browser.evaluate(
            "JSON.stringify({hidden: document.getElementById('panel').hidden,"
            " title: document.getElementById('panel-title').textContent, focus: document.activeElement.id,"
            " rules: [...document.querySelectorAll('#panel-rows tr')].map(tr => tr.cells[1].textContent)})"
        )
    )
    assert panel == {
        "hidden": False,
        "title": "leaf-su1-r3",
        "focus": "panel-close",
        "rules": [f["rule"] for f in findings if f["device"] == "leaf-su1-r3"],
    }
    browser.press("Escape")
    assert browser.evaluate(
        "[document.getElementById('panel').hidden, document.activeElement.dataset.k]"
    ) == [
        True,
        "leaf-su1-r3",
    ]

    assert _violations(browser, axe) == []
    assert browser.console_errors() == []
    assert browser.requested_urls() == [nightly.resolve().as_uri()]


def test_a_32768_gpu_fabric_opens_on_what_is_wrong_and_where(tmp_path, browser, axe):
    inventory, configs, page = tmp_path / "inventory", tmp_path / "configs", tmp_path / "report.html"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["inventory", "generate", "-o", str(inventory)]) == 0
        assert main(["render", str(inventory), "-o", str(configs)]) == 0
        # Two edits a person might make to the rendered configs: PFC moved off the lossless
        # priority on one leaf, one server's NICs trusting PCP.
        leaf = configs / "leaf-su90-r3.cfg"
        leaf.write_text(leaf.read_text().replace("priority 3 no-drop", "priority 4 no-drop"))
        host = configs / "gpu205.sh"
        host.write_text(host.read_text().replace("--trust dscp", "--trust pcp"))
        assert (
            main(
                [
                    "check",
                    str(inventory),
                    "--configs",
                    str(configs),
                    "--format",
                    "html",
                    "--output",
                    str(page),
                ]
            )
            == 1
        )
    # The page stays a size a browser and a mail attachment take.
    assert page.stat().st_size < 1_500_000
    browser.open(page, 1280, 900)
    _save(browser, "gpu32768-first-screen.png")
    first = json.loads(
        browser.evaluate(
            "JSON.stringify({units: [...document.querySelectorAll('.where > li > details > summary')].map("
            "s => [s.textContent, s.getBoundingClientRect().bottom]),"
            " cells: document.querySelectorAll('#nic-grid td').length})"
        )
    )
    assert first["cells"] == 32768
    # Both units with findings are named on the first screen, the worse one first.
    (su90, su90_at), (su7, su7_at) = first["units"]
    assert su90.startswith("✖ error SU 90:") and "rails 3" in su90 and su90_at < 900
    assert su7.startswith("✖ error SU 7:") and su7_at < 900
    assert _violations(browser, axe) == []
    assert browser.console_errors() == []
    assert browser.requested_urls() == [page.resolve().as_uri()]
