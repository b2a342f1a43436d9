"""Link state and counters of an EOS switch from its collected outputs ("link" and "counters" facets).

`show interfaces` gives each port's state, speed, link status changes, CRC/symbol errors and input
discards; `show interfaces phy detail` the FEC codewords; the two PFC commands (JSON) the pause frames
per priority and the watchdog's stuck/recovered counts per tx-queue. Plain regular expressions, not
TTP: these are the largest outputs of a switch and each fact sits on one line of a port's block.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from netcfg.model import DeviceState, InterfaceState, PortCounters
from netcfg.platforms.eos.commands import SHOW_INTERFACES, SHOW_PFC, SHOW_PFC_WATCHDOG, SHOW_PHY

# The lines read, one alternative each, matched over the whole output at once (the rest is skipped in
# the regex engine, not line by line in Python). Each match starts at the newline before its line
# (the text is read with one put in front): a literal start the engine searches for, where `^` is
# tried at every character of the output, a third of the time of the whole pass. Runs of spaces,
# words and digits are possessive (`++`, `*+`): what follows each can never be a character of the run,
# so giving one back (backtracking) could never make a line match.
# "Ethernet1 is up, line protocol is up (connected)", "... is administratively down, line protocol
# is notpresent (disabled)"; "  Full-duplex, 400Gb/s, auto negotiation: off"; "  3 link status
# changes since last clear"; "     0 input errors, 0 CRC, 0 alignment, 0 symbol, 0 input discards".
_INTERFACE_LINES = re.compile(
    r"\n(?:(?P<name>\S+) is [a-z][\w ]*?, line protocol is (?P<proto>\w+)(?: \(\w+\))?"
    r"|[ \t]++(?:[\w-]++, (?P<speed>\d[\d.]*+)(?P<unit>[GM])b/s\b.*"
    r"|(?P<changes>\d[\d,]*+) link status changes since last clear"
    r"|\d[\d,]*+ input errors, (?P<crc>\d[\d,]*+) CRC, \d[\d,]*+ alignment, (?P<symbol>\d[\d,]*+) symbol, "
    r"(?P<discards>\d[\d,]*+) input discards)"
    r"|(?P<other>\S.*))[ \t\r]*(?=\n|\Z)"
)
# A port's block ("Ethernet1" alone on a line) and its codeword counts.
_PHY_LINES = re.compile(
    r"\n(?:(?P<port>Ethernet\d\S*)"
    r"|[ \t]+FEC (?P<kind>corrected|uncorrected) codewords[ \t]+(?P<count>\d[\d,]*)\b.*"
    r"|(?P<other>\S.*))[ \t\r]*(?=\n|\Z)"
)
# Front-panel ports: management, loopback, port-channel and VLAN interfaces carry no fabric link.
FABRIC_PORT = re.compile(r"Ethernet\d")


@dataclass(slots=True)
class _Port:
    up: bool
    speed_gbps: int | None = None
    changes: int | None = None
    crc: int | None = None
    symbol: int | None = None
    discards: int | None = None


@dataclass(slots=True)
class _Read:
    """What the counter outputs said, and why any of them could not be read (command -> reason)."""

    ports: dict[str, _Port] = field(default_factory=dict)
    fec: dict[str, dict[str, int]] = field(default_factory=dict)
    pause: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)
    stuck: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)


def read_counters(outputs: dict[str, str], state: DeviceState) -> None:
    """Fill the ports' link state and `state.counters` from the outputs, and the facets they carry.

    A snapshot without these files (taken before netcfg collected them) leaves both facets out
    silently; an output that is there but unreadable is reported in `state.unparsed` and drops them.
    """
    text = outputs.get(SHOW_INTERFACES.file)
    if text is None:
        return
    read = _Read()
    _read_interfaces(text, read)
    if SHOW_INTERFACES.cli in read.unreadable:
        state.unparsed.update(read.unreadable)
        return
    fabric = {name: port for name, port in read.ports.items() if FABRIC_PORT.match(name)}
    if not fabric:
        # Nothing but management ports: no link state to judge (and nothing wrong with the output).
        return
    for name, port in fabric.items():
        iface = state.interface(name)
        iface.oper_up, iface.speed_gbps = port.up, port.speed_gbps
    state.facets |= {"link"}
    _read_phy(outputs.get(SHOW_PHY.file), read)
    read.pause = _read_json(outputs.get(SHOW_PFC.file), SHOW_PFC.cli, "priorities", _PAUSE_KEYS, read)
    read.stuck = _read_json(
        outputs.get(SHOW_PFC_WATCHDOG.file), SHOW_PFC_WATCHDOG.cli, "txQueues", _STUCK_KEYS, read
    )
    for name, port in fabric.items():
        if port.up and None in (port.changes, port.crc, port.symbol, port.discards):
            read.unreadable.setdefault(
                SHOW_INTERFACES.cli, f"{name} is up but its error counters are missing"
            )
    if read.unreadable:
        state.unparsed.update(read.unreadable)
        return
    state.counters = {
        name: _port_counters(name, port, read, state.interfaces[name])
        for name, port in fabric.items()
        if port.up
    }
    state.facets |= {"counters"}


def _port_counters(name: str, port: _Port, read: _Read, iface: InterfaceState) -> PortCounters:
    fec = read.fec.get(name, {})
    pause = read.pause.get(name, {})
    # EOS lists a port in the watchdog counters only from its first event on: a port it leaves out
    # has had none on the queues the watchdog watches (those of its no-drop priorities).
    stuck = {queue: (0, 0) for queue in _watched_queues(iface)} | read.stuck.get(name, {})
    return PortCounters(
        # Every down-and-up is two changes; the first change is the link coming up at boot.
        link_downs=None if port.changes is None else port.changes // 2,
        fec_corrected=fec.get("corrected"),
        fec_uncorrected=fec.get("uncorrected"),
        crc_errors=port.crc,
        symbol_errors=port.symbol,
        pause_rx={p: rx for p, (rx, _) in pause.items()},
        pause_tx={p: tx for p, (_, tx) in pause.items()},
        no_buffer_discards=port.discards,
        watchdog_storms={q: n for q, (n, _) in stuck.items()},
        stormed=frozenset(q for q, (n, recovered) in stuck.items() if n > recovered),
    )


def _watched_queues(iface: InterfaceState) -> list[int]:
    if not iface.watchdog or iface.pfc_enabled is False:
        return []
    return sorted(iface.no_drop_priorities or ())


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _read_interfaces(text: str, read: _Read) -> None:
    port: _Port | None = None
    ports = read.ports
    # `findall`'s tuples ('' for a group that took no part: each group that does matches something).
    for name, proto, speed, unit, changes, crc, symbol, discards, _ in _INTERFACE_LINES.findall("\n" + text):
        if name:
            port = ports[name] = _Port(up=proto == "up")
        elif port is None:
            continue
        elif speed:
            port.speed_gbps = _gbps(speed, unit)
        elif changes:
            port.changes = _number(changes)
        elif crc:
            port.crc, port.symbol, port.discards = _number(crc), _number(symbol), _number(discards)
        else:
            # A line that is not part of a port's indented block ends the block.
            port = None
    if not read.ports:
        why = "output empty" if not text.strip() else "no 'NAME is up, line protocol is up' lines"
        read.unreadable[SHOW_INTERFACES.cli] = why


def _gbps(value: str, unit: str) -> int | None:
    try:
        gbps = float(value) / (1000 if unit == "M" else 1)
    except ValueError:
        return None
    return int(gbps) if gbps.is_integer() and gbps > 0 else None


def _read_phy(text: str | None, read: _Read) -> None:
    if text is None:
        read.unreadable[SHOW_PHY.cli] = "output missing"
        return
    port: str | None = None
    seen = False
    for name, kind, count, other in _PHY_LINES.findall("\n" + text):
        if name:
            port, seen = name, True
        elif other:
            port = None if not other.startswith("Current System Time") else port
        elif port is not None:
            read.fec.setdefault(port, {})[kind] = _number(count)
    if not seen and "Current System Time" not in text:
        read.unreadable[SHOW_PHY.cli] = "no port blocks (a line with the port's name alone)"


_PAUSE_KEYS = ("rxFrames", "txFrames")
_STUCK_KEYS = ("stuckCount", "recoveryCount")


def _read_json(
    text: str | None, cli: str, inner: str, keys: tuple[str, str], read: _Read
) -> dict[str, dict[int, tuple[int, int]]]:
    """{port: {priority or queue: (first key, second key)}} of `{"interfaces": {port: {inner: ...}}}`."""
    if text is None:
        read.unreadable[cli] = "output missing"
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        read.unreadable[cli] = "not JSON (EOS refused `| json`, or the output was cut short)"
        return {}
    ports = data.get("interfaces") if isinstance(data, dict) else None
    if not isinstance(ports, dict):
        read.unreadable[cli] = "no 'interfaces' object"
        return {}
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for port, entry in ports.items():
        values = entry.get(inner, {}) if isinstance(entry, dict) else None
        if not isinstance(values, dict):
            read.unreadable[cli] = f"interfaces.{port}: no '{inner}' object"
            return {}
        for number, counts in values.items():
            pair = tuple(counts.get(k) for k in keys) if isinstance(counts, dict) else (None, None)
            if not (number.isdigit() and all(_is_count(v) for v in pair)):
                read.unreadable[cli] = f"interfaces.{port}.{inner}.{number}: expected {' and '.join(keys)}"
                return {}
            out.setdefault(port, {})[int(number)] = (pair[0], pair[1])
    return out


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
