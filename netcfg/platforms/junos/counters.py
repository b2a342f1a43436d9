"""Link state and counters of Junos (QFX) ports: `show interfaces extensive` and `show interfaces
queue`, read, and printed the same way for the lab.

Two commands cover every port (one round trip each; the Junos CLI chains no commands):

`show interfaces extensive`, one block per physical interface (then its logical units):
    Physical interface: et-0/0/0, Enabled, Physical link is Up        -> oper_up
      Link-level type: Ethernet, MTU: 9216, ..., Speed: 400Gbps, ...  -> speed_gbps
      Input errors:
        Errors: 0, Drops: 0, ..., Resource errors: 0                  -> no_buffer_discards
      Output errors:
        Carrier transitions: 1, Errors: 0, ...                        -> link_downs
        FEC Corrected Errors                    0                     -> fec_corrected
        FEC Uncorrected Errors                  0                     -> fec_uncorrected
      MAC statistics:                      Receive         Transmit
        CRC/Align errors                         0                0   -> crc_errors (receive)
        Code violations                          0                    -> symbol_errors
      MAC Priority Flow Control Statistics:
        Priority :  3                             0                0   -> pause_rx, pause_tx
`show interfaces queue`, per physical interface and egress queue:
    Queue: 3, Forwarding classes: NO-LOSS
        Total-dropped packets:                     0                     0 pps  -> queue_drops
        ECN-CE packets       :                     0                     0 pps  -> ecn_marked

Sources (what each counter means): Juniper's `show interfaces extensive` field table ("Carrier
transitions: number of times the interface has gone from down to up"; "Code violations: ... 'Data
reception error' or 'invalid data symbol error'"), Juniper's QFX5K microburst techpost (ingress
admission drops are the input "Resource errors"; egress drops the queue's "Total-dropped packets",
"Tail-dropped packets : Not Available" on QFX5K), and public QFX samples of both commands.

Not read (left None / empty): the PFC watchdog's storms and stormed queues. Junos prints no per-queue
watchdog state in these outputs, and no public sample of a Junos command that does was found; a
pause storm still shows as pause frames rising.

Only physical Ethernet ports are read (et-, xe-, ge-, mge-, breakouts `:N`): management (em0,
re0:mgmt-0, fxp0), loopback, aggregate, IRB and the internal interfaces Junos also lists are not
fabric ports. Speed is the port's speed as Junos prints it, also while the link is down.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from netcfg.model import DeviceState, PortCounters, port_sort_key
from netcfg.platforms.junos import facts

# A physical Ethernet port: et-FPC/PIC/PORT, optionally a breakout channel.
_ETHERNET = re.compile(r"(?:et|xe|ge|mge)-\d+/\d+/\d+(?::\d+)?")
_HEADER = "Physical interface: "
_LOGICAL = "\n  Logical interface "
# The line every physical section of an Ethernet port ends with (before its logical units): the
# last block of an output without it was cut short.
_SECTION_END = "  Interface transmit statistics:"
# The line each queue of `show interfaces queue` ends with.
_QUEUE_END = "    Total-dropped bytes"


def _n(name: str) -> str:
    """A counter as Junos prints it, captured as `name` (digits; commas taken where printed)."""
    return rf"(?P<{name}>\d[\d,]*)"


_QUEUE_FIELDS = re.compile(
    rf"^Queue: (?P<queue>\d+),"
    rf"|^    Total-dropped packets: *{_n('drops')}"
    rf"|^    ECN-CE packets *: *{_n('ecn')}",
    re.M,
)


@dataclass(slots=True)
class PortReading:
    """What `show interfaces extensive` says of one physical Ethernet port."""

    oper_up: bool
    speed_gbps: int | None
    counters: PortCounters | None


@dataclass(slots=True)
class Readings:
    ports: dict[str, PortReading] = field(default_factory=dict)
    # Why the output cannot be read (None: it can).
    problem: str | None = None


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _blocks(text: str) -> Iterable[tuple[str, str]]:
    """(interface name, its physical section) of each physical interface in the output."""
    start = text.find(_HEADER)
    if start < 0:
        return
    for block in text[start + len(_HEADER) :].split("\n" + _HEADER):
        name, _, _ = block.partition(",")
        logical = block.find(_LOGICAL)
        yield name, block if logical < 0 else block[:logical]


def _ethernet_blocks(text: str) -> Iterable[tuple[str, str]]:
    """`_blocks` of the physical Ethernet ports only (not em0, lo0, ae0, irb)."""
    return ((name, section) for name, section in _blocks(text) if _ETHERNET.fullmatch(name))


def _no_ports(text: str) -> str | None:
    """Why an output with no Ethernet port block cannot be read (None: it lists other ports only)."""
    return None if _HEADER in text else "no 'Physical interface:' block"


def speed_gbps(text: str) -> int | None:
    """`400Gbps` -> 400, `1000mbps` -> 1; None for `Auto`, `Unspecified` or a fraction of a Gb/s."""
    text = text.strip()
    if text.endswith("Gbps") and text[:-4].isdigit():
        return int(text[:-4])
    if text.endswith("mbps") and text[:-4].isdigit() and int(text[:-4]) % 1000 == 0:
        return int(text[:-4]) // 1000
    return None


def read_extensive(text: str) -> Readings:
    """Each physical Ethernet port's link state and counters from `show interfaces extensive`."""
    readings = Readings()
    if not text.strip():
        return readings
    last = None
    for name, section in _ethernet_blocks(text):
        first_line = section.partition("\n")[0].rstrip()
        if not first_line.endswith((", Physical link is Up", ", Physical link is Down")):
            readings.problem = f"{name}: no 'Physical link is Up/Down'"
            return readings
        readings.ports[name] = _port(first_line.endswith("Up"), section)
        last = (name, section)
    if last is None:
        readings.problem = _no_ports(text)
        return readings
    if _SECTION_END not in last[1]:
        readings.problem = f"output cut short: the block of {last[0]} ends early"
    return readings


def _rest(section: str, label: str) -> str | None:
    """What follows `label` on its line (None: no such line)."""
    at = section.find(label)
    if at < 0:
        return None
    at += len(label)
    end = section.find("\n", at)
    return section[at : len(section) if end < 0 else end]


def _count(text: str | None) -> int | None:
    """The first number of a counter's text (`  12    0`, `1,204, Errors: 0`)."""
    if text is None:
        return None
    word = text.split(None, 1)[0].rstrip(",") if text.strip() else ""
    digits = word.replace(",", "")
    return int(digits) if digits.isdigit() else None


# Each counter of a port's physical section: the line it is on (where a label is printed on more
# than one line: `Resource errors` is on the input and the output errors line), and the text before
# its value. `str.find`, not a regular expression, keeps this cheap: a fabric's audit reads
# thousands of these blocks.
_FIELDS = (
    ("no_buffer_discards", "\n  Input errors:\n", "Resource errors: "),
    ("link_downs", "\n  Output errors:\n", "Carrier transitions: "),
    ("fec_corrected", "", "\n    FEC Corrected Errors "),
    ("fec_uncorrected", "", "\n    FEC Uncorrected Errors "),
    ("crc_errors", "", "\n    CRC/Align errors "),
    ("symbol_errors", "", "\n    Code violations "),
)
_PFC = "\n  MAC Priority Flow Control Statistics:\n"
_PRIORITY = "    Priority : "


# Scalar counters in `_FIELDS` order, then (priority, rx, tx) of each PFC line; None: no counter.
_Counted = tuple[tuple[int | None, ...], tuple[tuple[int, int, int], ...]] | None
_COUNTERS_FROM = _FIELDS[0][1]


def _port(up: bool, section: str) -> PortReading:
    speed_text = _rest(section, "\n  Link-level type: ")
    speed = None
    if speed_text is not None and "Speed: " in speed_text:
        speed = speed_gbps(speed_text.split("Speed: ", 1)[1].split(",", 1)[0])
    at = section.find(_COUNTERS_FROM)
    counted = _counted(section[at:]) if at >= 0 else _counted(section)
    if counted is None:
        return PortReading(up, speed, None)
    scalars, pauses = counted
    counters = PortCounters(**{name: value for (name, _, _), value in zip(_FIELDS, scalars, strict=True)})
    for priority, rx, tx in pauses:
        counters.pause_rx[priority] = rx
        counters.pause_tx[priority] = tx
    return PortReading(up, speed, counters)


@lru_cache(maxsize=4096)
def _counted(section: str) -> _Counted:
    """The counters of a port's section from its input errors on: ports whose counters read the
    same (a lab fabric's healthy ports) are read once."""
    scalars: list[int | None] = []
    for _, within, label in _FIELDS:
        if within:
            at = section.find(within)
            if at < 0:
                scalars.append(None)
                continue
            start = at + len(within)
            end = section.find("\n", start)
            value = _rest(section[start : end if end >= 0 else len(section)], label)
        else:
            value = _rest(section, label)
        scalars.append(_count(value))
    pauses = []
    at = section.find(_PFC)
    if at >= 0:
        for line in section[at + len(_PFC) :].split("\n"):
            if not line.startswith(_PRIORITY):
                break
            words = line[len(_PRIORITY) :].replace(",", "").split()
            if len(words) == 3 and all(w.isdigit() for w in words) and int(words[0]) < 8:
                pauses.append((int(words[0]), int(words[1]), int(words[2])))
    if not pauses and all(v is None for v in scalars):
        return None
    return tuple(scalars), tuple(pauses)


@dataclass(slots=True)
class QueueReadings:
    # port -> (ECN-CE packets by queue, dropped packets by queue)
    ports: dict[str, tuple[dict[int, int], dict[int, int]]] = field(default_factory=dict)
    problem: str | None = None


def read_queues(text: str) -> QueueReadings:
    """ECN-marked and dropped packets per egress queue of each physical Ethernet port."""
    readings = QueueReadings()
    if not text.strip():
        return readings
    last = None
    for name, section in _ethernet_blocks(text):
        at = section.find("\nQueue: ")
        ecn, drops = _queue_counts(section[at:]) if at >= 0 else ((), ())
        readings.ports[name] = (dict(ecn), dict(drops))
        last = (name, section)
    if last is None:
        readings.problem = _no_ports(text)
        return readings
    name, section = last
    in_use = _rest(section, "\nEgress queues: ")
    listed = section.count("\nQueue: ")
    whole = in_use is not None and in_use.endswith(f" {listed} in use")
    if not whole or (listed and _QUEUE_END not in section[section.rfind("\nQueue: ") :]):
        readings.problem = f"output cut short: the queues of {name} end early"
    return readings


@lru_cache(maxsize=4096)
def _queue_counts(queues: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """(ECN-CE, dropped) packets by queue of a port's queues; ports that read the same, once."""
    ecn: dict[int, int] = {}
    drops: dict[int, int] = {}
    queue = None
    for match in _QUEUE_FIELDS.finditer(queues):
        kind = match.lastgroup
        if kind == "queue":
            queue = int(match["queue"])
        elif queue is not None:
            (ecn if kind == "ecn" else drops)[queue] = _int(match[kind])
    return tuple(ecn.items()), tuple(drops.items())


def apply(state: DeviceState, links: Readings, queues: QueueReadings | None) -> None:
    """Link state onto the state's ports (adding the ports the config does not name), counters
    into `state.counters`; `queues` None: the queue output could not be read."""
    for name, reading in links.ports.items():
        port = state.interface(name)
        port.oper_up, port.speed_gbps = reading.oper_up, reading.speed_gbps
        if reading.counters is not None:
            state.counters[name] = reading.counters
    for name, (ecn, drops) in (queues.ports if queues is not None else {}).items():
        if not (ecn or drops) or name not in links.ports:
            continue
        counters = state.counters.setdefault(name, PortCounters())
        counters.ecn_marked, counters.queue_drops = ecn, drops


# --- printed for the lab ----------------------------------------------------------------------------


def _mac(name: str) -> str:
    digits = [int(n) for n in re.findall(r"\d+", name)] + [0, 0, 0, 0]
    return "3c:8c:93:{:02x}:{:02x}:{:02x}".format(*[d % 256 for d in digits[1:4]])


def _num(value: int, width: int) -> str:
    return str(value).rjust(width)


def _class_name(queue: int, lossless: frozenset[int]) -> str:
    if queue in lossless:
        return "NO-LOSS"
    for name, (q, _) in facts.DEFAULT_CLASSES.items():
        if q == queue:
            return name
    return f"queue-{queue}"


def _lossless_queues(state: DeviceState) -> frozenset[int]:
    """The queues of the lossless classes (their forwarding class is printed as NO-LOSS)."""
    return frozenset(
        state.queue_of(p) for port in state.interfaces.values() for p in (port.no_drop_priorities or ())
    )


def _printed_ports(state: DeviceState) -> list[str]:
    return sorted((n for n, p in state.interfaces.items() if p.oper_up is not None), key=port_sort_key)


def show_interfaces_extensive(state: DeviceState) -> str:
    """`show interfaces extensive` of the state's ports that have a link state (none: empty)."""
    lossless = _lossless_queues(state)
    return "".join(
        _extensive_block(state, name, index, lossless) for index, name in enumerate(_printed_ports(state))
    )


def _extensive_block(state: DeviceState, name: str, index: int, lossless: frozenset[int]) -> str:
    port = state.interfaces[name]
    c = state.counters.get(name)
    speed = f"{port.speed_gbps}Gbps" if port.speed_gbps is not None else "Auto"
    mtu = port.mtu if port.mtu is not None else 1514
    mac = _mac(name)
    described = f"  Description: {port.description}\n" if port.description else ""
    down = "" if port.oper_up else " Down"
    hardware_down = "" if port.oper_up else "Hardware-Down "
    return (
        f"{_HEADER}{name}, Enabled, Physical link is {'Up' if port.oper_up else 'Down'}\n"
        f"  Interface index: {1000 + index}, SNMP ifIndex: {510 + index}, Generation: {140 + index}\n"
        f"{described}"
        f"  Link-level type: Ethernet, MTU: {mtu}, LAN-PHY mode, Speed: {speed}, BPDU Error: None, "
        "Loop Detect PDU Error: None, Ethernet-Switching Error: None, MAC-REWRITE Error: None, "
        "Loopback: Disabled, Source filtering: Disabled, Flow control: Disabled, Media type: Fiber\n"
        f"  Device flags   : Present Running{down}\n"
        f"  Interface flags: {hardware_down}SNMP-Traps Internal: 0x4000\n"
        "  Link flags     : None\n"
        "  CoS queues     : 8 supported, 8 maximum usable queues\n"
        "  Hold-times     : Up 0 ms, Down 0 ms\n"
        f"  Current address: {mac}, Hardware address: {mac}\n"
        f"  Last flapped   : {_LAB_START} ({_ago(state.read_at)} ago)\n"
        "  Statistics last cleared: Never\n"
        + _extensive_tail(bool(port.oper_up), None if c is None else _key(c), lossless)
    )


# When the lab's links came up (netcfg.lab.health.EPOCH), as Junos prints a time.
_LAB_START = "2026-01-01 00:00:00 UTC"
_LAB_START_S = 1_767_225_600.0


def _ago(read_at: float | None) -> str:
    """Time since the lab's links came up, as Junos prints it (`8w6d 17:24`)."""
    seconds = max(0, int((read_at or _LAB_START_S) - _LAB_START_S))
    weeks, seconds = divmod(seconds, 7 * 86400)
    days, seconds = divmod(seconds, 86400)
    return f"{weeks}w{days}d {seconds // 3600:02d}:{seconds % 3600 // 60:02d}"


_Key = tuple[object, ...]


def _key(c: PortCounters) -> _Key:
    return (
        c.link_downs,
        c.fec_corrected,
        c.fec_uncorrected,
        c.crc_errors,
        c.symbol_errors,
        c.no_buffer_discards,
        tuple(sorted(c.pause_rx.items())),
        tuple(sorted(c.pause_tx.items())),
        tuple(sorted(c.ecn_marked.items())),
        tuple(sorted(c.queue_drops.items())),
    )


def _from_key(key: _Key) -> PortCounters:
    links, fec_c, fec_u, crc, symbol, resource, rx, tx, ecn, drops = key
    return PortCounters(
        link_downs=links,  # type: ignore[arg-type]
        fec_corrected=fec_c,  # type: ignore[arg-type]
        fec_uncorrected=fec_u,  # type: ignore[arg-type]
        crc_errors=crc,  # type: ignore[arg-type]
        symbol_errors=symbol,  # type: ignore[arg-type]
        no_buffer_discards=resource,  # type: ignore[arg-type]
        pause_rx=dict(rx),  # type: ignore[arg-type]
        pause_tx=dict(tx),  # type: ignore[arg-type]
        ecn_marked=dict(ecn),  # type: ignore[arg-type]
        queue_drops=dict(drops),  # type: ignore[arg-type]
    )


@lru_cache(maxsize=4096)
def _extensive_tail(up: bool, key: _Key | None, lossless: frozenset[int]) -> str:
    """A port's section from its counters on; ports that read the same (a lab fabric's healthy
    ports at one time) are printed once."""
    c = None if key is None else _from_key(key)
    lines = _extensive_counters(c, lossless) if c is not None else []
    alarm = "None" if up else "LINK"
    lines += [f"  Active alarms  : {alarm}", f"  Active defects : {alarm}"]
    if c is not None:
        lines += _extensive_mac(c)
    lines += ["  PRBS Mode : Disabled", f"{_SECTION_END} Disabled", ""]
    return "\n".join(lines) + "\n"


def _items(pairs: list[tuple[str, int | None]]) -> str:
    return ", ".join(f"{label}: {value}" for label, value in pairs if value is not None)


def _extensive_counters(c: PortCounters, lossless: frozenset[int]) -> list[str]:
    queues = sorted(set(c.queue_drops) | set(c.ecn_marked))
    drops = sum(c.queue_drops.values())
    lines = [
        "  Traffic statistics:",
        "   Input  bytes  :                    0                    0 bps",
        "   Output bytes  :                    0                    0 bps",
        "   Input  packets:                    0                    0 pps",
        "   Output packets:                    0                    0 pps",
        "  Input errors:",
        "    "
        + _items(
            [
                ("Errors", c.crc_errors),
                ("Drops", 0),
                ("Framing errors", c.crc_errors),
                ("Runts", 0),
                ("Policed discards", 0),
                ("L3 incompletes", 0),
                ("L2 channel errors", 0),
                ("L2 mismatch timeouts", 0),
                ("FIFO errors", 0),
                ("Resource errors", c.no_buffer_discards),
            ]
        ),
        "  Output errors:",
        "    "
        + _items(
            [
                ("Carrier transitions", c.link_downs),
                ("Errors", 0),
                ("Drops", drops),
                ("Collisions", 0),
                ("Aged packets", 0),
                ("FIFO errors", 0),
                ("HS link CRC errors", 0),
                ("MTU errors", 0),
                ("Resource errors", 0),
            ]
        ),
        f"  Egress queues: 8 supported, {len(queues)} in use",
        "  Queue counters:       Queued packets  Transmitted packets      Dropped packets",
    ]
    for q in queues:
        sent = c.ecn_marked.get(q, 0) * 50
        dropped = c.queue_drops.get(q, 0)
        lines.append(f"    {q}{_num(sent + dropped, 33)}{_num(sent, 21)}{_num(dropped, 21)}")
    lines.append("  Queue number:         Mapped forwarding classes")
    lines += [f"    {q:<20}{_class_name(q, lossless)}" for q in queues]
    return lines


def _extensive_mac(c: PortCounters) -> list[str]:
    lines = [
        "  PCS statistics                      Seconds",
        _row("Bit errors"),
        _row("Errored blocks"),
    ]
    if c.fec_corrected is not None or c.fec_uncorrected is not None:
        lines.append("  Ethernet FEC statistics              Errors")
        if c.fec_corrected is not None:
            lines.append(f"    FEC Corrected Errors{_num(c.fec_corrected, 21)}")
        if c.fec_uncorrected is not None:
            lines.append(f"    FEC Uncorrected Errors{_num(c.fec_uncorrected, 19)}")
        lines += [
            f"    FEC Corrected Errors Rate{_num(0, 16)}",
            f"    FEC Uncorrected Errors Rate{_num(0, 14)}",
        ]
    lines += [
        "  MAC statistics:                      Receive         Transmit",
        f"    Total octets{_num(0, 30)}{_num(0, 17)}",
        f"    Total packets{_num(0, 29)}{_num(0, 17)}",
    ]
    if c.crc_errors is not None:
        lines.append(f"    CRC/Align errors{_num(c.crc_errors, 26)}{_num(0, 17)}")
    lines += [
        f"    FIFO errors{_num(0, 31)}{_num(0, 17)}",
        f"    MAC control frames{_num(0, 24)}{_num(0, 17)}",
        f"    MAC pause frames{_num(0, 26)}{_num(0, 17)}",
        f"    Oversized frames{_num(0, 26)}",
        f"    Jabber frames{_num(0, 29)}",
        f"    Fragment frames{_num(0, 27)}",
        f"    VLAN tagged frames{_num(0, 24)}",
    ]
    if c.symbol_errors is not None:
        lines.append(f"    Code violations{_num(c.symbol_errors, 27)}")
    priorities = sorted(set(c.pause_rx) | set(c.pause_tx))
    if priorities:
        lines.append("  MAC Priority Flow Control Statistics:")
        lines += [
            f"    Priority :  {p}{_num(c.pause_rx.get(p, 0), 30)}{_num(c.pause_tx.get(p, 0), 17)}"
            for p in priorities
        ]
    return lines


def _row(label: str) -> str:
    return f"    {label}{_num(0, 40 - len(label))}"


def show_interfaces_queue(state: DeviceState) -> str:
    """`show interfaces queue` of the state's ports that have counters (none: empty)."""
    lossless = _lossless_queues(state)
    out = []
    for index, name in enumerate(_printed_ports(state)):
        c = state.counters.get(name)
        if c is None:
            continue
        link = "Up" if state.interfaces[name].oper_up else "Down"
        out.append(
            f"{_HEADER}{name}, Enabled, Physical link is {link}\n"
            f"  Interface index: {1000 + index}, SNMP ifIndex: {510 + index}\n"
            + _queues_body(
                tuple(sorted(c.ecn_marked.items())), tuple(sorted(c.queue_drops.items())), lossless
            )
        )
    return "\n".join(out)


def _items_of(counts: dict[int, int]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(counts.items()))


@lru_cache(maxsize=4096)
def _queues_body(
    ecn: tuple[tuple[int, int], ...], drops: tuple[tuple[int, int], ...], lossless: frozenset[int]
) -> str:
    """A port's queues; ports whose queues read the same are printed once."""
    marked, dropped = dict(ecn), dict(drops)
    queues = sorted(set(marked) | set(dropped))
    lines = [
        f"Forwarding classes: 12 supported, {len(queues)} in use",
        f"Egress queues: 12 supported, {len(queues)} in use",
    ]
    for q in queues:
        lines += _queue_lines(q, _class_name(q, lossless), marked.get(q), dropped.get(q))
    return "\n".join(lines) + "\n"


def _counter_line(label: str, value: int | None, unit: str) -> str:
    if value is None:
        return f"    {label:<21}: Not Available"
    return f"    {label:<21}:{_num(value, 22)}{_num(0, 22)} {unit}"


def _queue_lines(queue: int, fc: str, ecn: int | None, drops: int | None) -> list[str]:
    sent = (ecn or 0) * 50
    return [
        f"Queue: {queue}, Forwarding classes: {fc}",
        "  Queued:",
        _counter_line("Packets", sent + (drops or 0), "pps"),
        _counter_line("Bytes", (sent + (drops or 0)) * 4096, "bps"),
        "  Transmitted:",
        _counter_line("Packets", sent, "pps"),
        _counter_line("Bytes", sent * 4096, "bps"),
        _counter_line("Tail-dropped packets", None, "pps"),
        _counter_line("RL-dropped packets", 0, "pps"),
        _counter_line("RL-dropped bytes", 0, "bps"),
        _counter_line("Total-dropped packets", drops, "pps"),
        _counter_line("Total-dropped bytes", None if drops is None else drops * 4096, "bps"),
        _counter_line("ECN-CE packets", ecn, "pps"),
        _counter_line("ECN-CE bytes", None if ecn is None else ecn * 4096, "bps"),
    ]
