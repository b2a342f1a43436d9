"""What a Cumulus switch runs, as its read-only `nv show` commands print it, and how that is compared with
its applied configuration.

`nv show qos roce` prints what the hardware runs in its `operational` column, and in its `applied` column
what `nv set qos roce` itself set (most rows show none there). Each row is compared with what is applied:
the `applied` column where it shows a value, else what the configuration implies. A row that differs is
a setting the hardware did not take, kept in `not_operational` as (applied, running), both as NVUE
prints them. Thresholds count as taken within
10 %: Spectrum ASICs program them in buffer cells, and NVIDIA documents 150,000 B programmed as
159,744 B (+6.5 %) on Spectrum-4 as expected (RDMA-over-Converged-Ethernet-RoCE.md, "Verify RoCE
Configuration").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from netcfg.model import DeviceState, InterfaceState, PortCounters, port_sort_key
from netcfg.platforms.cumulus.defaults import LOSSLESS_MODES, PRIORITIES, Globals
from netcfg.platforms.cumulus.names import compact_numbers, expand_numbers
from netcfg.platforms.cumulus.show import Show, format_rows, format_table, json_object, size_bytes, size_text

ROCE_PREFIX = "qos roce"
DSCP_TABLE = "RoCE PCP/DSCP->SP mapping configurations"
TC_TABLE = "RoCE SP->TC mapping and ETS configurations"
PROGRAMMED_TOLERANCE = 0.10
STRICT = "strict-priority"
DWRR = "DWRR-50%"
# Printed, but not a setting of the configuration (`ECN`, or `ecn, absolute` per port).
_DISPLAY_ONLY = ("congestion-control.congestion-mode",)
# Rows of `nv show qos roce` read as numbers lists, so that `0,3` and `0, 3` are the same.
_NUMBER_ROWS = ("pfc.pfc-priority", "congestion-control.enabled-tc")


def roce_rows(g: Globals) -> dict[str, str]:
    """The key/value rows of `nv show qos roce` for switch-wide settings `g`, operational column."""
    if g.roce is None:
        return {"mode": ""}
    queue = g.sp_tc[min(g.pfc.priorities, default=3)]
    ecn = g.ecn.get(queue)
    return {
        "mode": g.roce,
        "pfc.pfc-priority": compact_numbers(g.pfc.priorities),
        "pfc.rx-enabled": "enabled" if g.pfc.enabled else "disabled",
        "pfc.tx-enabled": "enabled" if g.pfc.enabled else "disabled",
        "pfc.cable-length": str(g.pfc.cable_m or ""),
        "congestion-control.congestion-mode": "ECN",
        "congestion-control.enabled-tc": compact_numbers(g.ecn),
        "congestion-control.min-threshold": size_text(ecn.min_bytes) if ecn else "",
        "congestion-control.max-threshold": size_text(ecn.max_bytes) if ecn else "",
        "congestion-control.probability": str(ecn.probability) if ecn else "",
        "trust.trust-mode": g.trust or "",
    }


def _table_cells(g: Globals) -> dict[str, str]:
    """Per switch priority: the DSCPs that reach it, its traffic class and its scheduling."""
    cells = {}
    for sp in PRIORITIES:
        cells[f"switch-prio {sp} dscp"] = (
            ",".join(str(d) for d, p in sorted(g.dscp_map.items()) if p == sp) or "-"
        )
        cells[f"switch-prio {sp} traffic-class"] = str(g.sp_tc[sp])
        cells[f"switch-prio {sp} scheduler-weight"] = STRICT if g.sp_tc[sp] in g.strict else DWRR
    return cells


def render_roce(g: Globals, gap: dict[str, tuple[str, str]]) -> str:
    """`nv show qos roce` of a switch running `g`, except where `gap` says the hardware runs otherwise."""

    def running(key: str, value: str) -> str:
        return gap[f"{ROCE_PREFIX} {key}"][1] if f"{ROCE_PREFIX} {key}" in gap else value

    rows: list[tuple[str, ...]] = [("enable", "", "on" if g.roce else "off")]
    sections: set[str] = set()
    for path, value in roce_rows(g).items():
        section, _, leaf = path.rpartition(".")
        if section and section not in sections:
            sections.add(section)
            rows.append((section, "", ""))
        applied = value if path == "mode" else ""
        rows.append((f"  {leaf}" if section else leaf, running(path.replace(".", " "), value), applied))
    if g.roce is not None:
        priority = str(min(g.pfc.priorities, default=3))
        rows += [("lldp-app-tlv", "", ""), ("  priority", priority, ""), ("  protocol-id", "4791", "")]
        rows.append(("  selector", "UDP", ""))
    text = format_rows(rows)
    if not running("mode", g.roce or ""):
        return text  # RoCE does not run: no RoCE tables
    cells = {k: running(k, v) for k, v in _table_cells(g).items()}
    dscp = [(str(sp), cells[f"switch-prio {sp} dscp"], str(sp)) for sp in PRIORITIES]
    text += format_table(DSCP_TABLE, ("pcp", "dscp", "switch-prio"), dscp)
    tcs = [
        (str(sp), cells[f"switch-prio {sp} traffic-class"], cells[f"switch-prio {sp} scheduler-weight"])
        for sp in PRIORITIES
    ]
    text += format_table(TC_TABLE, ("switch-prio", "traffic-class", "scheduler-weight"), tcs)
    lossless = g.pfc.priorities if g.roce in LOSSLESS_MODES else frozenset()
    pools = [
        ("lossy-default-ingress", "Dynamic", "100%", compact_numbers(set(PRIORITIES) - lossless), "-"),
        ("lossy-default-egress", "Dynamic", "100%", "-", compact_numbers({0, *g.strict})),
    ]
    if lossless:
        pools.insert(1, ("roce-reserved-ingress", "Dynamic", "100%", compact_numbers(lossless), "-"))
        pools.append(
            ("roce-reserved-egress", "Dynamic", "inf", "-", compact_numbers(g.sp_tc[p] for p in lossless))
        )
    text += format_table(
        "RoCE pool config", ("name", "mode", "size", "switch-priorities", "traffic-class"), pools
    )
    return text + "Exception List\n=================\nNo Data\n"


def roce_problem(show: Show) -> str | None:
    """Why an output is not a readable `nv show qos roce` (or `... qos roce status`); None when it is."""
    if "mode" not in show.rows:
        return "no 'mode' row; expected the 'nv show qos roce' table"
    if show.rows["mode"][0] and (DSCP_TABLE not in show.tables or TC_TABLE not in show.tables):
        return "RoCE mapping tables missing (output cut short?)"
    return None


def roce_gap(expected: Globals, show: Show) -> dict[str, tuple[str, str]]:
    """Rows of a readable `nv show qos roce` whose operational value is not what `expected` implies."""
    gap = {}
    for path, implied in roce_rows(expected).items():
        if path not in show.rows or path in _DISPLAY_ONLY:
            continue
        running, applied = show.rows[path]
        # What the switch itself shows as applied comes first; most rows show none, and then the
        # configuration says what is applied.
        want = applied or implied
        if not _same(path, want, running):
            gap[f"{ROCE_PREFIX} {path.replace('.', ' ')}"] = (want, running)
    if expected.roce is None:
        return gap
    want_cells = _table_cells(expected)
    for key, have in _shown_cells(show).items():
        want = want_cells.get(key)
        if want is None:
            continue
        if key.endswith(" dscp"):
            # The switch-wide table lists every DSCP of a priority, a port's status only RoCE's and
            # CNP's: each DSCP shown must reach the priority it is shown under.
            shown, priority = _numbers(have), int(key.split()[1])
            taken = isinstance(shown, frozenset) and all(expected.dscp_map.get(d) == priority for d in shown)
        else:
            taken = _same(key, want, have)
        if not taken:
            gap[f"{ROCE_PREFIX} {key}"] = (want, have)
    return gap


def _shown_cells(show: Show) -> dict[str, str]:
    cells = {}
    for row in show.tables.get(DSCP_TABLE, []):
        if row.get("switch-prio", "").isdigit():
            cells[f"switch-prio {row['switch-prio']} dscp"] = row.get("dscp", "")
    for row in show.tables.get(TC_TABLE, []):
        if row.get("switch-prio", "").isdigit():
            sp = row["switch-prio"]
            cells[f"switch-prio {sp} traffic-class"] = row.get("traffic-class", "")
            cells[f"switch-prio {sp} scheduler-weight"] = row.get("scheduler-weight", "")
    return cells


def _same(key: str, want: str, have: str) -> bool:
    if key.endswith("threshold"):
        w, h = size_bytes(want), size_bytes(have)
        if w is None or h is None:
            return w == h and want.strip() == have.strip()
        return abs(w[0] - h[0]) <= max(h[1], w[1], round(w[0] * PROGRAMMED_TOLERANCE))
    if key.endswith("scheduler-weight"):
        return ("strict" in want.lower()) == ("strict" in have.lower())
    if key in _NUMBER_ROWS:
        return _numbers(want) == _numbers(have)
    yes = {"yes": "enabled", "no": "disabled"}
    return yes.get(have.strip().lower(), have.strip().lower()) == want.strip().lower()


def _numbers(text: str) -> frozenset[int] | str:
    cleaned = text.replace(" ", "")
    if cleaned in ("", "-"):
        return frozenset()
    found = expand_numbers(cleaned, 63)
    return frozenset(found) if found is not None else cleaned


# --- nv show system ---------------------------------------------------------------------------------

_VERSION_LINES = (
    re.compile(r"\s*product-release\s+(\S+)"),
    re.compile(r"\s*build\s+Cumulus Linux\s+(\S+)"),
    re.compile(r"Build:\s*Cumulus Linux\s+(\S+)"),
    re.compile(r"Cumulus Version\s+(\S+)"),
    re.compile(r'DISTRIB_RELEASE="?([^"\s]+)"?'),
)


def parse_version(text: str) -> str | None:
    """The Cumulus Linux release: `product-release` (5.15 and later), `build Cumulus Linux X` (earlier
    5.x), or what NCLU and /etc/lsb-release print on 3.x/4.x. A build stamp (`3.3.0~1493169975.94`)
    is not part of the release."""
    for pattern in _VERSION_LINES:
        for line in text.splitlines():
            found = pattern.fullmatch(line.rstrip())
            if found:
                return found.group(1).split("~")[0]
    return None


def render_system(version: str | None, hostname: str) -> str:
    """`nv show system`: nested under `version` from Cumulus Linux 5.15, a flat list before."""
    uptime = "12 days, 3:04:11"
    if version is not None and tuple(int(x) for x in re.findall(r"\d+", version)[:2]) >= (5, 15):
        rows = [
            ("hostname", hostname),
            ("product-name", "Cumulus Linux"),
            ("version", ""),
            ("  kernel", "6.1.0-cl-1-amd64"),
            ("  build-date", "Tue Jun 10 07:51:09 UTC 2025"),
            ("  image", version),
            ("  onie", "2019.11-5.2.0020-115200"),
            ("  product-release", version),
            ("uptime", uptime),
            ("timezone", "Etc/UTC"),
            ("health", ""),
            ("  status", "OK"),
            ("  status-changes", "0"),
        ]
        return format_rows(rows, ("operational",))
    flat = [
        ("hostname", hostname, hostname),
        ("build", f"Cumulus Linux {version}" if version else "", ""),
        ("uptime", uptime, ""),
        ("timezone", "Etc/UTC", "Etc/UTC"),
    ]
    return format_rows(flat)


# --- nv show interface -o json ----------------------------------------------------------------------


def render_interfaces(state: DeviceState, gap: dict[str, tuple[str, str]]) -> str:
    """`nv show interface -o json`: every interface with its link (operational state, speed, MTU and
    carrier counts) and LLDP neighbours."""
    out: dict[str, dict] = {
        "eth0": {
            "type": "eth",
            "link": {"admin-status": "up", "oper-status": "up", "mtu": 1500, "speed": "1G"},
            "ip": {"address": {"192.0.2.10/24": {}}, "vrf": "mgmt"},
        },
        "lo": {"type": "loopback", "link": {"admin-status": "up", "oper-status": "unknown", "mtu": 65536}},
    }
    neighbours: dict[str, dict] = {}
    for n in state.lldp:
        neighbours.setdefault(n.local_interface, {})[n.system_name] = {
            "age": "120",
            "chassis": {"system-name": n.system_name},
            "port": {"name": n.port, "type": "ifname"},
        }
    for name in sorted(set(state.interfaces) | set(neighbours), key=port_sort_key):
        port = state.interfaces.get(name)
        link = _link(port, state.counters.get(name))
        key = f"{name}.mtu"
        if key in gap:
            link["mtu"] = int(gap[key][1])
        elif port is not None and port.mtu is not None:
            link["mtu"] = port.mtu
        entry: dict[str, object] = {"type": "swp", "link": link}
        if name in neighbours:
            entry["lldp"] = {"neighbor": neighbours[name]}
        out[name] = entry
    return json.dumps(out, indent=2) + "\n"


def _link(port: InterfaceState | None, counters: PortCounters | None) -> dict[str, object]:
    """A port's `link` object: what the state says of its link, and nothing it leaves unknown."""
    link: dict[str, object] = {"admin-status": "up"}
    up = port.oper_up if port is not None else None
    if up is not None:
        link["oper-status"] = "up" if up else "down"
    if up and port is not None and port.speed_gbps is not None:
        link["speed"] = f"{port.speed_gbps}G"
    if counters is not None and counters.link_downs is not None:
        # Up as often as down, once more while the link is up now.
        ups = counters.link_downs + (1 if up else 0)
        link["stats"] = {
            "carrier-transitions": ups + counters.link_downs,
            "carrier-up-count": ups,
            "carrier-down-count": counters.link_downs,
        }
    return link


@dataclass(slots=True)
class InterfaceTable:
    """What `nv show interface -o json` says of the ports: running MTU, link state and speed, and
    link-down counts, by interface (only what it prints)."""

    mtus: dict[str, int] = field(default_factory=dict)
    oper_up: dict[str, bool] = field(default_factory=dict)
    speed_gbps: dict[str, int] = field(default_factory=dict)
    link_downs: dict[str, int] = field(default_factory=dict)


# NVUE prints an operational speed as "400G", "1G", "1.6T" (or "100M", which is no whole Gb/s).
_SPEED = re.compile(r"(\d+(?:\.\d+)?)([GT])")
# Linux operational states NVUE passes on; "unknown" (loopbacks, VRFs) says nothing of a link.
_OPER = {"up": True, "down": False, "lowerlayerdown": False, "dormant": False, "notpresent": False}


def _speed_gbps(text: object) -> int | None:
    found = _SPEED.fullmatch(text.strip()) if isinstance(text, str) else None
    if found is None:
        return None
    gbps = float(found.group(1)) * (1000 if found.group(2) == "T" else 1)
    return int(gbps) if gbps.is_integer() and gbps > 0 else None


def parse_interfaces(text: str) -> InterfaceTable | str:
    """What the ports' `link` objects say; or why the text is not that JSON."""
    data = json_object(text)
    if isinstance(data, str):
        return data
    if not all(isinstance(v, dict) for v in data.values()):
        return "not an object of interfaces"
    table = InterfaceTable()
    for name, entry in data.items():
        link = entry.get("link")
        if isinstance(link, dict):
            _read_link(name, link, table)
    return table


def _read_link(name: str, link: dict, table: InterfaceTable) -> None:
    if isinstance(link.get("mtu"), int):
        table.mtus[name] = link["mtu"]
    up = _OPER.get(str(link.get("oper-status", "")).lower())
    if up is not None:
        table.oper_up[name] = up
    speed = _speed_gbps(link.get("speed"))
    if up and speed is not None:
        table.speed_gbps[name] = speed
    stats = link.get("stats")
    downs = stats.get("carrier-down-count") if isinstance(stats, dict) else None
    # Before 5.11 NVUE printed only `carrier-transitions`, ups and downs together: no down count.
    if isinstance(downs, int) and not isinstance(downs, bool) and downs >= 0:
        table.link_downs[name] = downs
