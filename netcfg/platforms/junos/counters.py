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

from netcfg.model import DeviceState, PortCounters

# A physical Ethernet port: et-FPC/PIC/PORT, optionally a breakout channel.
_ETHERNET = re.compile(r"(?:et|xe|ge|mge)-\d+/\d+/\d+(?::\d+)?")
HEADER = "Physical interface: "
_LOGICAL = "\n  Logical interface "
# The line every physical section of an Ethernet port ends with (before its logical units): the
# last block of an output without it was cut short.
SECTION_END = "  Interface transmit statistics:"
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
    start = text.find(HEADER)
    if start < 0:
        return
    for block in text[start + len(HEADER) :].split("\n" + HEADER):
        name, _, _ = block.partition(",")
        logical = block.find(_LOGICAL)
        yield name, block if logical < 0 else block[:logical]


def _ethernet_blocks(text: str) -> Iterable[tuple[str, str]]:
    """`_blocks` of the physical Ethernet ports only (not em0, lo0, ae0, irb)."""
    return ((name, section) for name, section in _blocks(text) if _ETHERNET.fullmatch(name))


def _no_ports(text: str) -> str | None:
    """Why an output with no Ethernet port block cannot be read (None: it lists other ports only)."""
    return None if HEADER in text else "no 'Physical interface:' block"


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
    if SECTION_END not in last[1]:
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
