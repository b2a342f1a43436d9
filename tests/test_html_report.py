"""The HTML report: what its cells show for real findings, that device text stays text, and what a
person sees when the lab's seeded faults are opened in headless Chromium."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from netcfg.cli import main
from netcfg.drift import Change
from netcfg.model import expand_ports, port_ranges
from netcfg.report import FORMATS, Report
from netcfg.report.layout import fabric_layout
from netcfg.rules import Finding, Severity
from tests.browser import Browser

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


def test_the_lab_with_its_seeded_faults_as_chromium_shows_it(tmp_path, capsys, browser):
    assert main(["demo", "--format", "json", "--out", str(tmp_path)]) == 1
    capsys.readouterr()
    # The demo's second audit is the nightly one (the first is its go-live baseline).
    _, page = sorted((tmp_path / "reports" / "lab").glob("*.html"))
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
