"""Link state and counters from SONiC's `show` tables (sonic-utilities intfutil, portstat, pfcstat,
pfcwd, queuestat, wredstat, pg-drop), read by column name so older and newer layouts read alike.

- `show interfaces status`: Oper, and Speed, which intfutil takes from STATE_DB (the negotiated
  speed) only while the port is up; for a port that is down it prints the configured speed, so a
  down port's speed is left unknown.
- `show interfaces flap` (sonic-utilities 2025+): orchagent counts every oper-status change in
  `flap_count`, the first coming-up included, so link-downs are half of it, rounded down; `Never`
  is no change since boot.
- `show interfaces counters errors`: RX_ERR (SAI IF_IN_ERRORS, frames received with errors: FCS
  errors on a physical link), SONiC's nearest to a CRC count; there is no CRC column of its own.
- `show interfaces counters fec-stats`: FEC_CORR, FEC_UNCORR, FEC_SYMBOL_ERR.
- `show pfc counters`: pause frames per priority, an Rx table then a Tx table.
- `pfcwd show stats --empty`: every queue with its watchdog STATUS (`operational`, `stormed`, or
  N/A where no watchdog runs) and STORM DETECTED/RESTORED; without `--empty` pfcwd leaves out the
  queues whose counts are all zero, which would make "no storm" unknown.
- `show queue counters` / `show queue wredcounters`: Drop/pkts and EcnMarked/pkts of the unicast
  queues (UC<n>), one table per port.
- `show priority-group drop counters`: ingress drops per priority group, summed per port as its
  no-buffer discards.

Counters print N/A where COUNTERS_DB has no value: a port gets a PortCounters entry only where
some table gives it a number. A command the release does not have, or whose counters are not
polled (or a snapshot without it), leaves its fields None; anything else unreadable goes in `unparsed`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from netcfg.model import DeviceState, PortCounters, port_sort_key
from netcfg.platforms.base import Command
from netcfg.platforms.sonic import show
from netcfg.platforms.sonic.commands import ERRORS, FEC, FLAP, PFC, PFCWD_STATS, PG_DROP, QUEUE, WRED

WATCHED = {"operational": False, "stormed": True}
# What a release without the command (click) or without the counters polled prints instead.
_NOT_SHOWN = re.compile(
    r"""No such (?:command|option)|counters are disabled|NAME_MAP is empty|not enabled""", re.I
)
_QUEUE = re.compile(r"UC(\d+)")
_PFC_COLUMNS = [f"PFC{p}" for p in range(8)]


class Unreadable(Exception):
    """An output that is none of the tables its command prints."""


def read_link(state: DeviceState, text: str | None) -> bool:
    """Oper and (while up) Speed of the state's ports from `show interfaces status`; True where
    some port's oper status was shown."""
    found = show.read_table(text or "")
    if found is None or not {"Interface", "Oper", "Speed"} <= set(found[0]):
        return False
    shown = False
    for row in found[1]:
        port = state.interfaces.get(row["Interface"])
        if port is None:
            continue
        port.oper_up = {"up": True, "down": False}.get(row["Oper"])
        port.speed_gbps = _gbps(row["Speed"]) if port.oper_up else None
        shown = shown or port.oper_up is not None
    return shown


def read_counters(state: DeviceState, outputs: dict[str, str]) -> dict[str, str]:
    """The state's `counters` from the counter commands' outputs; returns {command: why} for the
    outputs that could not be read."""
    counts = _Counts(set(state.interfaces))
    unread = {}
    for command, reader in _READERS:
        text = outputs.get(command.file)
        # Missing: a snapshot taken before netcfg collected it. Not shown: the release or its
        # counter polling does not count it. Either way its fields stay unknown, nothing to report.
        if text is None:
            continue
        try:
            reader(text, counts)
        except Unreadable as exc:
            if not _NOT_SHOWN.search(text) or show.read_tables(text):
                unread[command.cli] = str(exc)
    for port, downs in counts.flaps.items():
        if port in counts.by_port:
            counts.by_port[port].link_downs = downs
    state.counters = {p: counts.by_port[p] for p in sorted(counts.by_port, key=port_sort_key)}
    return unread


class _Counts:
    def __init__(self, ports: set[str]) -> None:
        self.ports = ports
        self.by_port: dict[str, PortCounters] = {}
        self.flaps: dict[str, int] = {}

    def of(self, port: str) -> PortCounters:
        found = self.by_port.get(port)
        if found is None:
            found = self.by_port[port] = PortCounters()
        return found


def _tables(text: str, *columns: str) -> list[list[dict[str, str]]]:
    tables = [rows for names, rows in show.read_tables(text) if set(columns) <= set(names)]
    if not tables:
        raise Unreadable(f"no {' / '.join(columns)} table")
    return tables


def _rows(text: str, *columns: str) -> list[tuple[str, ...]]:
    """The columns' cells of every row of the tables that have them."""
    tables = show.columns(text, *columns)
    if not tables:
        raise Unreadable(f"no {' / '.join(columns)} table")
    return [row for rows in tables for row in rows]


def _number(cell: str) -> int | None:
    """'1,234' -> 1234; 'N/A' -> None (COUNTERS_DB holds no value)."""
    if cell == "N/A":
        return None
    digits = cell.replace(",", "")
    if not digits.isdigit():
        raise Unreadable(f"{cell[:20]!r} where a count belongs")
    return int(digits)


def _gbps(cell: str) -> int | None:
    """'400G' -> 400, '1000M' (RJ45 ports) -> 1; '2.5G', '100M', 'N/A' -> None (no whole Gb/s)."""
    number, unit = cell[:-1], cell[-1:]
    if not number.isdigit():
        return None
    if unit == "G":
        return int(number)
    return int(number) // 1000 if unit == "M" and int(number) % 1000 == 0 else None


def _flaps(text: str, counts: _Counts) -> None:
    for rows in _tables(text, "Interface", "Flap Count"):
        for row in rows:
            port, cell = row["Interface"], row["Flap Count"]
            if port not in counts.ports:
                continue
            if cell == "Never":
                counts.flaps[port] = 0
            elif (changes := _number(cell)) is not None:
                counts.of(port)
                counts.flaps[port] = changes // 2


def _per_port(columns: dict[str, str]) -> Callable[[str, _Counts], None]:
    """A reader of a one-row-per-port table (IFACE first), setting PortCounters fields by column."""
    fields = list(columns.values())

    def read(text: str, counts: _Counts) -> None:
        for port, *cells in _rows(text, "IFACE", *columns):
            if port not in counts.ports:
                continue
            for field, cell in zip(fields, cells, strict=True):
                value = _number(cell)
                if value is not None:
                    setattr(counts.of(port), field, value)

    return read


def _pfc(text: str, counts: _Counts) -> None:
    for head, field in (("Port Rx", "pause_rx"), ("Port Tx", "pause_tx")):
        if not show.columns(text, head, *_PFC_COLUMNS):
            raise Unreadable("no Port Rx and Port Tx tables of PFC0-PFC7")
        for port, *cells in _rows(text, head, *_PFC_COLUMNS):
            if port not in counts.ports:
                continue
            for priority, cell in enumerate(cells):
                value = _number(cell)
                if value is not None:
                    getattr(counts.of(port), field)[priority] = value


def _watchdog(text: str, counts: _Counts) -> None:
    for name, status, storm in _rows(text, "QUEUE", "STATUS", "STORM DETECTED/RESTORED"):
        port, _, queue = name.rpartition(":")
        if port not in counts.ports or status not in WATCHED:
            continue
        detected, _, restored = storm.partition("/")
        storms = _number(detected)
        if not queue.isdigit() or storms is None or _number(restored) is None:
            raise Unreadable(f"{name[:30]!r} {storm[:20]!r}")
        entry = counts.of(port)
        entry.watchdog_storms[int(queue)] = storms
        if WATCHED[status]:
            entry.stormed = entry.stormed | {int(queue)}


def _per_queue(column: str, field: str) -> Callable[[str, _Counts], None]:
    """A reader of queuestat-style tables (Port, TxQ; one table per port), by unicast queue."""

    def read(text: str, counts: _Counts) -> None:
        for port, tag, cell in _rows(text, "Port", "TxQ", column):
            queue = _QUEUE.fullmatch(tag)
            if port not in counts.ports or queue is None:
                continue
            value = _number(cell)
            if value is not None:
                getattr(counts.of(port), field)[int(queue.group(1))] = value

    return read


def _pg_drops(text: str, counts: _Counts) -> None:
    for rows in _tables(text, "Port", "PG0"):
        for row in rows:
            if row["Port"] not in counts.ports:
                continue
            drops = [_number(cell) for name, cell in row.items() if name.startswith("PG")]
            # A group whose count is unknown could hold the drops: no sum then.
            if drops and None not in drops:
                counts.of(row["Port"]).no_buffer_discards = sum(d for d in drops if d is not None)


_READERS: list[tuple[Command, Callable[[str, _Counts], None]]] = [
    (FLAP, _flaps),
    (ERRORS, _per_port({"RX_ERR": "crc_errors"})),
    (
        FEC,
        _per_port(
            {"FEC_CORR": "fec_corrected", "FEC_UNCORR": "fec_uncorrected", "FEC_SYMBOL_ERR": "symbol_errors"}
        ),
    ),
    (PFC, _pfc),
    (PFCWD_STATS, _watchdog),
    (QUEUE, _per_queue("Drop/pkts", "queue_drops")),
    (WRED, _per_queue("EcnMarked/pkts", "ecn_marked")),
    (PG_DROP, _pg_drops),
]
