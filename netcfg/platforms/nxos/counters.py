"""Link state and counters of a Nexus 9000's front-panel ports, from four show commands.

- `show interface`: `Ethernet1/1 is up` (or `is down (...)`), the speed (`full-duplex, 400 Gb/s`),
  `N interface resets` (NX-OS counts a reset each time the link goes down: the flap count) and the
  CRC count of the RX section (`N CRC`, `N CRC/FCS` on older releases).
- `show interface counters errors`: the `Symbol-Err` column (mgmt0 prints `--`, unknown).
- `show queuing interface`: per qos-group (= egress queue N on NX-OS) the `WRED/AFD & Tail Drop
  Pkts` (unicast + multicast), the port's `Ingress Overflow Drop Pkts` (ingress drops for want of
  buffer: the lossless class's discards) and, per PFC CoS, the pause frames sent (TxCount) and
  received (RxCount).
- `show queuing pfc-queue detail`: per port and paused qos-group, how often the PFC watchdog shut it
  (`Shutdown` row) and whether it holds it shut now (`QOS GROUP 3 [Shutdown]`), keyed by its PFC CoS.

NX-OS prints no FEC codeword counts and no ECN-marked count in these outputs: those stay unknown.
Counters are kept for ports that are up (a down port's counters say nothing about its traffic);
ports that are not front-panel Ethernet (mgmt0, loopbacks, VLANs, port-channels, subinterfaces) are
left out. Each output must list every port `show interface` shows up, or it was cut short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netcfg.model import DeviceState, PortCounters
from netcfg.platforms.nxos.commands import SHOW_ERRORS, SHOW_INTERFACE, SHOW_QUEUING, SHOW_WATCHDOG
from netcfg.platforms.nxos.text import normal_name

_NUMBER = r"\d[\d,]*"
_HEADER = re.compile(r"^(?P<name>\S+) is (?P<state>up|down|administratively down)\b", re.M)
_SPEED = re.compile(r"^[ \t]*(?:full|half|auto)-duplex, (?P<value>\d+) (?P<unit>[GM])b/s", re.M)
_RESETS = re.compile(rf"^[ \t]*(?P<n>{_NUMBER}) interface resets", re.M)
_CRC = re.compile(rf"(?:^|[ \t])(?P<n>{_NUMBER}) CRC(?:/FCS)?(?=[ \t]|$)", re.M)
_TX_PAUSE = re.compile(rf"^[ \t]*{_NUMBER} Tx pause[ \t]*$", re.M)
# The lines of a port's block netcfg reads: (key, a word the line holds, its pattern).
_LINK_LINES = (
    ("speed", "duplex", _SPEED),
    ("resets", "interface resets", _RESETS),
    ("crc", "CRC", _CRC),
    ("tx_pause", "Tx pause", _TX_PAUSE),
)
_RULE = re.compile(r"^-{20,}[ \t]*$", re.M)
_QUEUING_FOR = re.compile(r"^(?:Egress|Ingress) Queuing for (?P<name>\S+)", re.M)
_GROUP = re.compile(r"^\|[ \t]*QOS GROUP (?P<group>\d+)[ \t]*\|", re.M)
_GROUP_DROPS = re.compile(
    rf"^\|[ \t]*WRED(?:/AFD)? & Tail Drop Pkts \|[ \t]*(?P<uc>{_NUMBER})\|[ \t]*(?P<mc>{_NUMBER})\|", re.M
)
_OVERFLOW = re.compile(rf"^[ \t]*Ingress Overflow Drop Pkts[ \t]+(?P<n>{_NUMBER})[ \t]*$", re.M)
_COS_ROW = re.compile(
    rf"^[ \t]*(?P<cos>[0-7])[ \t]+(?:\S+[ \t]+)*?(?:Active|Inactive)[ \t]+(?P<tx>{_NUMBER})"
    rf"[ \t]+(?:Active|Inactive)[ \t]+(?P<rx>{_NUMBER})[ \t]*$",
    re.M,
)
_SLOT = re.compile(r"^slot[ \t]+\d+[ \t]*$", re.M)
_WD_GLOBAL = re.compile(r"^Global watch-dog interval \[(?:Enabled|Disabled)\]", re.M)
_WD_PORT = re.compile(r"^(?P<name>\S+) Interface PFC watchdog: \[(?P<state>\w+)\]", re.M)
_WD_GROUP = re.compile(
    r"^\|[ \t]*QOS GROUP (?P<group>\d+) \[(?P<state>[^\]]*)\] PFC \[\w+\] PFC-COS \[(?P<cos>[\d,]*)\]", re.M
)
_WD_SHUTDOWNS = re.compile(rf"^\|[ \t]*Shutdown\|[ \t]*(?P<n>{_NUMBER})\|", re.M)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


@dataclass(slots=True)
class PortLink:
    """What `show interface` says of one front-panel port."""

    up: bool
    speed_gbps: int | None
    resets: int | None
    crc: int | None


@dataclass(slots=True)
class _Queuing:
    drops: dict[int, int] = field(default_factory=dict)
    overflow: int | None = None
    pause_tx: dict[int, int] = field(default_factory=dict)
    pause_rx: dict[int, int] = field(default_factory=dict)


def _front_panel(name: str) -> bool:
    return name.startswith("Ethernet") and "." not in name


def _sections(pattern: re.Pattern[str], text: str) -> list[tuple[re.Match[str], str]]:
    """Each match of `pattern` with the text up to the next match."""
    found = list(pattern.finditer(text))
    ends = [m.start() for m in found[1:]] + [len(text)]
    return [(m, text[m.end() : end]) for m, end in zip(found, ends, strict=False)]


def read_links(text: str | None) -> tuple[dict[str, PortLink], str | None]:
    """Front-panel ports of `show interface`, or why the output cannot be read. Read line by line."""
    if text is None:
        return {}, "output missing"
    blocks: list[tuple[re.Match[str], list[str]]] = []
    for line in text.replace("\r", "").splitlines():
        header = _HEADER.match(line) if line[:1] not in ("", " ") else None
        if header is not None:
            blocks.append((header, []))
        elif blocks:
            blocks[-1][1].append(line)
    if not blocks:
        return {}, "no '<interface> is up|down' line"
    links: dict[str, PortLink] = {}
    for header, body in blocks:
        name = normal_name(header.group("name"))
        if not _front_panel(name):
            continue
        found: dict[str, re.Match[str]] = {}
        for line in body:
            for key, word, pattern in _LINK_LINES:
                if word in line and key not in found:
                    match = pattern.search(line)
                    if match is not None:
                        found[key] = match
        # Every port's block ends with its TX section: one without it was cut short.
        if "tx_pause" not in found:
            return {}, f"output cut short: the block of {name} has no 'Tx pause' line"
        gbps = None
        if "speed" in found:
            value, unit = int(found["speed"].group("value")), found["speed"].group("unit")
            gbps = value if unit == "G" else value // 1000 if value % 1000 == 0 else None
        links[name] = PortLink(
            up=header.group("state") == "up",
            speed_gbps=gbps,
            resets=_int(found["resets"].group("n")) if "resets" in found else None,
            crc=_int(found["crc"].group("n")) if "crc" in found else None,
        )
    return links, None


def read_symbol_errors(text: str | None) -> tuple[dict[str, int | None], str | None]:
    """The Symbol-Err column of `show interface counters errors` by port (`--` is None)."""
    if text is None:
        return {}, "output missing"
    lines = text.replace("\r", "").splitlines()
    # Tables: a rule, the header (`Port ...`), a rule, rows. Symbol-Err stands in one of them.
    for i, line in enumerate(lines):
        words = line.split()
        if words[:1] == ["Port"] and "Symbol-Err" in words:
            column = words.index("Symbol-Err")
            found: dict[str, int | None] = {}
            for row in lines[i + 2 :]:
                cells = row.split()
                if not cells or _RULE.match(row):
                    break
                if len(cells) != len(words):
                    return {}, f"a row of the Symbol-Err table has {len(cells)} columns, not {len(words)}"
                value = cells[column]
                if value != "--" and not value.replace(",", "").isdigit():
                    return {}, f"Symbol-Err of {cells[0]} is {value!r}, not a count"
                found[normal_name(cells[0])] = None if value == "--" else _int(value)
            if not any(w.split()[:1] == ["Port"] and "InDiscards" in w.split() for w in lines[i:]):
                return {}, "output cut short: no InDiscards table after the Symbol-Err table"
            return found, None
    return {}, "no 'Port ... Symbol-Err' table"


def read_queuing(text: str | None) -> tuple[dict[str, _Queuing], str | None]:
    """Per port: drops per qos-group, the port's ingress overflow drops, pause frames per CoS. Read
    line by line (a 64-port switch prints some 10,000 lines)."""
    if text is None:
        return {}, "output missing"
    lines = text.replace("\r", "").splitlines()
    ports: dict[str, _Queuing] = {}
    port: _Queuing | None = None
    egress = per_port = False
    group: int | None = None
    for line in lines:
        heading = _QUEUING_FOR.match(line) if "Queuing for" in line else None
        if heading is not None:
            port = ports.setdefault(normal_name(heading.group("name")), _Queuing())
            egress, per_port, group = line.startswith("Egress"), False, None
        elif port is None:
            continue
        elif egress:
            if "QOS GROUP" in line:
                # `CONTROL QOS GROUP` and `SPAN QOS GROUP` are no egress queue of the port's own.
                found = _GROUP.match(line)
                group = int(found.group("group")) if found else None
            elif group is not None and "Drop Pkts" in line:
                drops = _GROUP_DROPS.match(line)
                if drops is not None:
                    port.drops[group] = _int(drops.group("uc")) + _int(drops.group("mc"))
        elif line.startswith("Per Port Ingress Statistics"):
            per_port = True
        elif line.startswith("Per Slice"):
            per_port = False  # the slice's counts, not the port's
        elif per_port and "Ingress Overflow Drop Pkts" in line:
            overflow = _OVERFLOW.match(line)
            port.overflow = _int(overflow.group("n")) if overflow else None
        elif line.lstrip()[:1].isdigit():
            row = _COS_ROW.match(line)
            if row is not None:
                port.pause_tx[int(row.group("cos"))] = _int(row.group("tx"))
                port.pause_rx[int(row.group("cos"))] = _int(row.group("rx"))
    if not ports and not any(_SLOT.match(line) for line in lines):
        return {}, "no 'slot N' line and no 'Egress Queuing for <interface>' section"
    for name, found in ports.items():
        if _front_panel(name) and (len(found.pause_rx) != 8 or len(found.drops) != 8):
            return {}, f"output cut short: {name} lacks some of the 8 qos-groups or PFC CoS rows"
    return ports, None


@dataclass(slots=True)
class _Watchdog:
    storms: dict[int, int] = field(default_factory=dict)
    stormed: set[int] = field(default_factory=set)


def read_watchdog(text: str | None) -> tuple[dict[str, _Watchdog], str | None]:
    if text is None:
        return {}, "output missing"
    text = text.replace("\r", "")
    sections = _sections(_WD_PORT, text)
    if not sections and not _WD_GLOBAL.search(text):
        return {}, "no 'Global watch-dog' line and no '<interface> Interface PFC watchdog: [...]' line"
    ports: dict[str, _Watchdog] = {}
    for heading, body in sections:
        port = ports.setdefault(normal_name(heading.group("name")), _Watchdog())
        for group, block in _sections(_WD_GROUP, body):
            shutdowns = _WD_SHUTDOWNS.search(block)
            if shutdowns is None:
                return {}, f"output cut short: QOS GROUP {group.group('group')} has no 'Shutdown' row"
            # Keyed by the PFC priority that pauses the group, as the other PFC counters are.
            listed = group.group("cos").split(",")[0]
            cos = int(listed) if listed else int(group.group("group"))
            port.storms[cos] = _int(shutdowns.group("n"))
            if group.group("state").strip().lower() == "shutdown":
                port.stormed.add(cos)
    return ports, None


def read(state: DeviceState, outputs: dict[str, str]) -> None:
    """Fill the link state of the front-panel ports and the counters of those up; set the facets
    "link" and "counters" only where their outputs were read, and name each output that could not be."""
    links, why = read_links(outputs.get(SHOW_INTERFACE.file))
    if why is not None:
        state.unparsed[SHOW_INTERFACE.cli] = why
    for name, link in links.items():
        port = state.interface(name)
        port.oper_up, port.speed_gbps = link.up, link.speed_gbps
    if links:
        state.facets |= {"link"}
    up = [name for name, link in links.items() if link.up]
    symbols, why_symbols = read_symbol_errors(outputs.get(SHOW_ERRORS.file))
    queuing, why_queuing = read_queuing(outputs.get(SHOW_QUEUING.file))
    watchdog, why_watchdog = read_watchdog(outputs.get(SHOW_WATCHDOG.file))
    problems = {
        SHOW_ERRORS.cli: _lacking(why_symbols, symbols, up),
        SHOW_QUEUING.cli: _lacking(why_queuing, queuing, up),
        SHOW_WATCHDOG.cli: _lacking(why_watchdog, watchdog, up),
    }
    problems = {cli: why for cli, why in problems.items() if why is not None}
    state.unparsed |= problems
    if problems or why is not None:
        return
    for name in up:
        link, queues, wd = links[name], queuing[name], watchdog[name]
        state.counters[name] = PortCounters(
            link_downs=link.resets,
            crc_errors=link.crc,
            symbol_errors=symbols[name],
            pause_rx=queues.pause_rx,
            pause_tx=queues.pause_tx,
            queue_drops=queues.drops,
            no_buffer_discards=queues.overflow,
            watchdog_storms=wd.storms,
            stormed=frozenset(wd.stormed),
        )
    if state.counters:
        state.facets |= {"counters"}


def _lacking(why: str | None, listed: dict, up: list[str]) -> str | None:
    if why is not None:
        return why
    missing = [name for name in up if name not in listed]
    return (
        f"output cut short: no entry for {missing[0]}, which 'show interface' shows up" if missing else None
    )
