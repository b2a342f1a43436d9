"""Per-port counters of a Cumulus switch, as its read-only `nv show interface <port> ...` commands print them.

NVUE prints none of these for every port at once (5.14's `nv show interface qos-roce-counters` does,
for the RoCE counters only, in a shape its documentation does not show), so each command runs for
every port whose link is up (`/sys/class/net/swp*/operstate`), one shell pipeline per command; `echo
interface <port>` heads each port's output. The pipelines hold no `;`, `"` or `$`, so a `Batch` line
carries them like any other command. Down ports are skipped: a down link is judged by its link state.
NVUE prints plain integers here (no thousands separators); anything else is not a count.

What is read, by command (NVIDIA Cumulus Linux user guide and NVUE command reference, 5.5 to 5.18):
- `counters qos -o json`: `pfc-stats` per switch priority (`rx-pause-frames`, `tx-pause-frames`) and
  `egress-queue-stats` per traffic class (`tx-uc-buffer-discards`, and `ecn-marked-frames` where the
  release prints it). JSON, because the table prints the discard count with a byte unit ("75.19 KB").
- `counters errors`: `FCS Errors` and `Symbol Errors`, receive column.
- `qos roce counters`: `rx-stats.rx-roce-stats.no-buffer-discard`, RoCE packets the port dropped on
  ingress for want of buffer.
- `qos pfc-watchdog`: the `PFC WD Status` table, per traffic class: `DEADLOCK` is a queue the watchdog
  holds stormed now, `deadlock-count` the storms it detected.
- `link phy health` (Cumulus 5.15 and later; `link phy-detail` from 5.10 to 5.14; Spectrum-2 and
  later): `effective-errors` (left after FEC: uncorrected) and the lanes' `phy-raw-errors` (seen before
  FEC, which corrected them).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from netcfg.model import DeviceState, PortCounters
from netcfg.platforms.base import Command
from netcfg.platforms.cumulus.show import format_rows, json_object, parse_show

# A port's section starts with this line (what `echo interface %` prints).
_SECTION = re.compile(r"interface (swp\d+(?:s\d+)?)")
_INT = re.compile(r"\d+")
_QUEUES = range(16)
WATCHDOG_TABLE = "PFC WD Status"
LANE_TABLE = "Lane Stats"
LANES = 4


def _up_ports(show: str) -> str:
    return (
        "grep -lx up /sys/class/net/swp*/operstate | cut -d/ -f5 | "
        f"xargs -I% sh -c 'echo interface % && nv show interface % {show}'"
    )


@dataclass(frozen=True, slots=True)
class PortCommand:
    """One per-port `nv show interface <port> ...` command: how to read a port's output into counters,
    and how the switch prints a port's counters."""

    command: Command
    read: Callable[[str, PortCounters], str | None]
    render: Callable[[str, PortCounters, DeviceState], str]


# --- counters qos -o json ------------------------------------------------------------------------


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _per_class(table: object, field: str) -> dict[int, int]:
    """{class: value} of one field of a per-class object (keyed by class, as NVUE prints it) or list (rows
    naming their class, as some releases print it)."""
    if isinstance(table, list):
        rows = [(_class_of(row), row) for row in table if isinstance(row, dict)]
    elif isinstance(table, dict):
        rows = [(str(key), row) for key, row in table.items()]
    else:
        return {}
    out = {}
    for key, row in rows:
        value = _number(row.get(field)) if isinstance(row, dict) else None
        if key.isdigit() and int(key) in _QUEUES and value is not None:
            out[int(key)] = value
    return out


def _class_of(row: dict) -> str:
    for selector in ("traffic-class", "switch-priority"):
        if selector in row:
            return str(row[selector])
    return ""


def read_qos(text: str, into: PortCounters) -> str | None:
    data = json_object(text)
    if isinstance(data, str):
        return data
    if not ({"pfc-stats", "egress-queue-stats"} & set(data)):
        return "no 'pfc-stats' or 'egress-queue-stats'; expected 'nv show interface <port> counters qos' JSON"
    pfc, queues = data.get("pfc-stats"), data.get("egress-queue-stats")
    into.pause_rx = _per_class(pfc, "rx-pause-frames")
    into.pause_tx = _per_class(pfc, "tx-pause-frames")
    into.queue_drops = _per_class(queues, "tx-uc-buffer-discards")
    into.ecn_marked = _per_class(queues, "ecn-marked-frames")
    return None


def render_qos(port: str, counters: PortCounters, state: DeviceState) -> str:
    def rows(fields: dict[str, dict[int, int]]) -> dict[str, dict[str, int]]:
        keys = sorted({k for values in fields.values() for k in values})
        return {str(k): {name: v[k] for name, v in fields.items() if k in v} for k in keys}

    queues = rows({"ecn-marked-frames": counters.ecn_marked, "tx-uc-buffer-discards": counters.queue_drops})
    pfc = rows({"rx-pause-frames": counters.pause_rx, "tx-pause-frames": counters.pause_tx})
    return json.dumps({"egress-queue-stats": queues, "pfc-stats": pfc}, indent=2) + "\n"


# --- counters errors -----------------------------------------------------------------------------

_ERROR_HEADER = re.compile(r"\s*Counter\s+Receive\s+Transmit\s*")
_ERROR_ROWS = {"crc_errors": "FCS Errors", "symbol_errors": "Symbol Errors"}


def _count(text: str) -> int | None:
    return int(text) if _INT.fullmatch(text.strip()) else None


def read_errors(text: str, into: PortCounters) -> str | None:
    if not any(_ERROR_HEADER.fullmatch(line) for line in text.splitlines()):
        return "no 'Counter Receive Transmit' header; expected 'nv show interface <port> counters errors'"
    rows = parse_show(text).rows
    for field_name, row in _ERROR_ROWS.items():
        if row in rows:
            setattr(into, field_name, _count(rows[row][0]))
    return None


def render_errors(port: str, counters: PortCounters, state: DeviceState) -> str:
    rows = [
        (row, str(getattr(counters, field_name)), "n/a")
        for field_name, row in _ERROR_ROWS.items()
        if getattr(counters, field_name) is not None
    ]
    return _header_table(("Counter", "Receive", "Transmit"), rows)


def _header_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A table with no title, as `nv show ... counters errors` prints it: header, dashes, rows."""
    widths = [max([len(r[c]) for r in rows] + [len(header[c])]) for c in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines) + "\n"


# --- qos roce counters ---------------------------------------------------------------------------

_NO_BUFFER = "rx-stats.rx-roce-stats.no-buffer-discard"


def read_roce(text: str, into: PortCounters) -> str | None:
    rows = parse_show(text).rows
    if "rx-stats" not in rows and "tx-stats" not in rows:
        return "no 'rx-stats' or 'tx-stats'; expected 'nv show interface <port> qos roce counters'"
    if _NO_BUFFER in rows:
        into.no_buffer_discards = _count(rows[_NO_BUFFER][0])
    return None


def render_roce_counters(port: str, counters: PortCounters, state: DeviceState) -> str:
    rows: list[tuple[str, ...]] = [("rx-stats", "", "", ""), ("  rx-roce-stats", "", "", "")]
    if counters.no_buffer_discards is not None:
        rows.append(
            (
                "    no-buffer-discard",
                str(counters.no_buffer_discards),
                "",
                "Rx buffer discards for RoCE traffic",
            )
        )
    return format_rows(rows, ("operational", "applied", "description"))


# --- qos pfc-watchdog ----------------------------------------------------------------------------


def read_watchdog(text: str, into: PortCounters) -> str | None:
    show = parse_show(text)
    if "state" not in show.rows:
        return "no 'state' row; expected 'nv show interface <port> qos pfc-watchdog'"
    storms, stormed = {}, set()
    for row in show.tables.get(WATCHDOG_TABLE, []):
        tc = row.get("traffic-class", "")
        if not tc.isdigit() or int(tc) not in _QUEUES:
            continue
        count = _count(row.get("deadlock-count", ""))
        if count is not None:
            storms[int(tc)] = count
        if row.get("status", "").upper() == "DEADLOCK":
            stormed.add(int(tc))
    into.watchdog_storms, into.stormed = storms, frozenset(stormed)
    return None


def render_watchdog(port: str, counters: PortCounters, state: DeviceState) -> str:
    settings = state.interfaces.get(port)
    on = (
        settings.watchdog
        if settings is not None and settings.watchdog is not None
        else bool(counters.watchdog_storms)
    )
    word = "enabled" if on else "disabled"
    text = format_rows([("state", word, word)])
    classes = sorted(set(counters.watchdog_storms) | counters.stormed)
    if not classes:
        return text
    table = [
        (
            str(tc),
            "DEADLOCK" if tc in counters.stormed else "OK",
            str(counters.watchdog_storms[tc]) if tc in counters.watchdog_storms else "-",
        )
        for tc in classes
    ]
    lines = [f"{WATCHDOG_TABLE}", "=" * 27]
    header = ("traffic-class", "status", "deadlock-count")
    widths = [max([len(r[c]) for r in table] + [len(header[c])]) for c in range(3)]
    lines.append("    " + "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    lines.append("    " + "  ".join("-" * w for w in widths))
    # NVUE prints a blank line between the dashes and the rows of this table.
    lines.append("")
    lines += ["    " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table]
    return text + "\n" + "\n".join(lines) + "\n"


# --- link phy health -----------------------------------------------------------------------------


_RAW_LANE = re.compile(r"phy-raw-errors-lane\d+")


def read_phy(text: str, into: PortCounters) -> str | None:
    """`link phy health` (5.15 and later: the lanes in a `Lane Stats` table), or, where that command does
    not exist and the pipeline fell back to it, `link phy-detail` (5.10 to 5.14: a `phy-raw-errors-laneN`
    row per lane, after the first command's error line)."""
    show = parse_show(text)
    if not {"effective-errors", "time-since-last-clear-min"} & set(show.rows):
        return (
            "no 'effective-errors' row; expected 'nv show interface <port> link phy health' or 'phy-detail'"
        )
    if "effective-errors" in show.rows:
        into.fec_uncorrected = _count(show.rows["effective-errors"][0])
    lanes = [_count(row.get("phy-raw-errors", "")) for row in show.tables.get(LANE_TABLE, [])]
    lanes += [_count(value) for key, (value, _) in show.rows.items() if _RAW_LANE.fullmatch(key)]
    if lanes and all(n is not None for n in lanes):
        into.fec_corrected = sum(n for n in lanes if n is not None)
    return None


def render_phy(port: str, counters: PortCounters, state: DeviceState) -> str:
    rows: list[tuple[str, ...]] = [("time-since-last-clear-min", "1440")]
    if counters.symbol_errors is not None:
        rows.append(("symbol-errors", str(counters.symbol_errors)))
    rows += [("symbol-ber", "15E-255"), ("raw-ber", "15E-255"), ("phy-received-bits", "0")]
    if counters.fec_uncorrected is not None:
        rows.append(("effective-errors", str(counters.fec_uncorrected)))
    rows.append(("effective-ber", "15E-255"))
    text = format_rows(rows, ("operational",))
    if counters.fec_corrected is None:
        return text
    share, rest = divmod(counters.fec_corrected, LANES)
    lanes = [
        (str(n), "15E-255", "22.32 dB", "23.14 dB", str(share + (rest if n == 0 else 0)))
        for n in range(LANES)
    ]
    header = ("Lane", "raw-ber", "snr-host", "snr-media", "phy-raw-errors")
    table = _header_table(header, lanes)
    return text + f"\n{LANE_TABLE}\n=============\n" + "".join(f"    {line}\n" for line in table.splitlines())


PORT_COMMANDS = (
    PortCommand(
        Command(_up_ports("counters qos -o json"), "nv_show_interface_counters_qos_json", counters=True),
        read_qos,
        render_qos,
    ),
    PortCommand(
        Command(_up_ports("counters errors"), "nv_show_interface_counters_errors", counters=True),
        read_errors,
        render_errors,
    ),
    PortCommand(
        Command(_up_ports("qos roce counters"), "nv_show_interface_qos_roce_counters", counters=True),
        read_roce,
        render_roce_counters,
    ),
    PortCommand(
        Command(_up_ports("qos pfc-watchdog"), "nv_show_interface_qos_pfc_watchdog", counters=True),
        read_watchdog,
        render_watchdog,
    ),
    PortCommand(
        # Renamed in 5.15; where `phy health` does not exist, nv fails and `phy-detail` answers.
        Command(
            _up_ports("link phy health || nv show interface % link phy-detail"),
            "nv_show_interface_link_phy_health",
            counters=True,
        ),
        read_phy,
        render_phy,
    ),
)


def sections(text: str) -> dict[str, str] | str:
    """Each port's output in a per-port command's output; or why the text is not such an output."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        found = _SECTION.fullmatch(line.strip())
        if found:
            current = out.setdefault(found.group(1), [])
        elif current is not None:
            current.append(line)
        elif line.strip():
            return f"text before the first 'interface <port>' line: {line.strip()[:60]!r}"
    return {port: "\n".join(lines) + "\n" for port, lines in out.items()}


def read_counters(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], dict[str, str]]:
    """Counters by port from the per-port commands' outputs (by snapshot file), and why each unreadable
    command could not be read (by command line)."""
    counters: dict[str, PortCounters] = {}
    unreadable: dict[str, str] = {}
    for each in PORT_COMMANDS:
        text = outputs.get(each.command.file)
        found = sections(text) if text is not None else "output missing"
        if isinstance(found, str):
            unreadable[each.command.cli] = found
            continue
        for port, section in found.items():
            why = each.read(section, counters.setdefault(port, PortCounters()))
            if why is not None:
                unreadable[each.command.cli] = f"{port}: {why}"
                break
    return counters, unreadable


def render_counters(state: DeviceState) -> dict[str, str]:
    """Each per-port command's output for the ports with counters (those whose link is up), in the order
    the shell's glob lists them."""
    ports = sorted(state.counters)
    return {
        each.command.cli: "".join(
            f"interface {port}\n{each.render(port, state.counters[port], state)}" for port in ports
        )
        for each in PORT_COMMANDS
    }


def with_link_downs(counters: dict[str, PortCounters], downs: dict[str, int]) -> dict[str, PortCounters]:
    """The counters with each port's link-down count (`nv show interface -o json`) where it is printed."""
    return {
        port: dataclasses.replace(c, link_downs=downs[port]) if port in downs else c
        for port, c in counters.items()
    }
