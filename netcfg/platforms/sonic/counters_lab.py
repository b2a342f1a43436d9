"""What the lab's SONiC switches print for link state and counters, shaped as sonic-utilities prints
them (tabulate "simple"; portstat and pfcstat put commas in numbers, queuestat, wredstat and
pg-drop do not). A value the state does not hold prints N/A, as SONiC prints a counter
COUNTERS_DB lacks."""

from __future__ import annotations

import time

from netcfg.model import DeviceState, PortCounters, port_sort_key
from netcfg.platforms.sonic import show
from netcfg.platforms.sonic.counters import (
    ERRORS,
    FEC,
    FLAP,
    PFC,
    PFCWD_STATS,
    PG_DROP,
    QUEUE,
    WRED,
)

NA = "N/A"
QUEUES = range(8)
_EMPTY = PortCounters()


def counter_outputs(state: DeviceState) -> dict[str, str]:
    ports = sorted(state.interfaces, key=port_sort_key)
    counters = {name: state.counters.get(name) for name in ports}
    return {
        FLAP.cli: _flap(state, counters),
        ERRORS.cli: _errors(state, counters),
        FEC.cli: _fec(state, counters),
        PFC.cli: _pfc(counters),
        PFCWD_STATS.cli: _watchdog(counters),
        # queuestat names the namespace (empty on a single-ASIC switch) above each port's table.
        QUEUE.cli: _per_queue(
            counters, ["Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"], "For namespace :\n"
        ),
        WRED.cli: _per_queue(
            counters, ["WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"], "", ecn=True
        ),
        PG_DROP.cli: _pg_drops(state, counters),
    }


def _comma(value: int | None) -> str:
    return NA if value is None else f"{value:,}"


def _plain(value: int | None) -> str:
    return NA if value is None else str(value)


def _state(state: DeviceState, port: str) -> str:
    """portstat's STATE: U(p), D(own), or N/A where the port's oper status is unknown."""
    oper = state.interfaces[port].oper_up
    return NA if oper is None else "U" if oper else "D"


def _flap(state: DeviceState, counters: dict[str, PortCounters | None]) -> str:
    """Flap Count is orchagent's count of oper-status changes: the first coming-up, then a down and
    an up per flap (the last up missing on a port that is down now)."""
    rows = []
    for port, c in counters.items():
        oper = state.interfaces[port].oper_up
        downs = c.link_downs if c is not None else None
        changes = 0 if downs is None else 2 * downs + (0 if oper is False else 1)
        at = _timestamp(state.read_at)
        rows.append(
            [
                port,
                str(changes) if changes else "Never",
                "Up",
                "Unknown" if oper is None else "Up" if oper else "Down",
                at if downs else "Never",
                at if changes else "Never",
            ]
        )
    numeric = all(r[1].isdigit() for r in rows)
    headers = ["Interface", "Flap Count", "Admin", "Oper"]
    headers += ["Link Down TimeStamp(UTC)", "Link Up TimeStamp(UTC)"]
    return show.table(headers, rows, right=[False, numeric, False, False, False, False])


def _timestamp(read_at: float | None) -> str:
    # An hour before the reading: the lab keeps no history of when each change happened.
    return time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime((read_at or 0) - 3600))


def _errors(state: DeviceState, counters: dict[str, PortCounters | None]) -> str:
    rows = []
    for port, c in counters.items():
        zero = NA if c is None else "0"
        rx_err = _comma((c or _EMPTY).crc_errors)
        rows.append([port, _state(state, port), rx_err, zero, zero, zero, zero, zero])
    headers = ["IFACE", "STATE", "RX_ERR", "RX_DRP", "RX_OVR", "TX_ERR", "TX_DRP", "TX_OVR"]
    return show.table(headers, rows, right=True)


def _fec(state: DeviceState, counters: dict[str, PortCounters | None]) -> str:
    rows = [
        [
            port,
            _state(state, port),
            _comma((c or _EMPTY).fec_corrected),
            _comma((c or _EMPTY).fec_uncorrected),
            _comma((c or _EMPTY).symbol_errors),
            NA,
            NA,
        ]
        for port, c in counters.items()
    ]
    headers = ["IFACE", "STATE", "FEC_CORR", "FEC_UNCORR", "FEC_SYMBOL_ERR", "FEC_PRE_BER", "FEC_POST_BER"]
    return show.table(headers, rows, right=True)


def _pfc(counters: dict[str, PortCounters | None]) -> str:
    tables = []
    for head, field in (("Port Rx", "pause_rx"), ("Port Tx", "pause_tx")):
        rows = []
        for port, c in counters.items():
            paused: dict[int, int] = getattr(c or _EMPTY, field)
            rows.append([port, *(_comma(paused.get(p)) for p in QUEUES)])
        tables.append(show.table([head, *(f"PFC{p}" for p in QUEUES)], rows, right=True))
    return "\n".join(tables)


def _watchdog(counters: dict[str, PortCounters | None]) -> str:
    rows = []
    for port, c in counters.items():
        c = c or _EMPTY
        for queue in QUEUES:
            storms = c.watchdog_storms.get(queue)
            if storms is None:
                status, storm = NA, "0/0"
            else:
                stormed = queue in c.stormed
                status = "stormed" if stormed else "operational"
                storm = f"{storms}/{max(storms - stormed, 0)}"
            rows.append([f"{port}:{queue}", status, storm, "0/0", "0/0", "0/0", "0/0"])
    headers = [
        "QUEUE",
        "STATUS",
        "STORM DETECTED/RESTORED",
        "TX OK/DROP",
        "RX OK/DROP",
        "TX LAST OK/DROP",
        "RX LAST OK/DROP",
    ]
    return show.table(headers, rows, right=True)


def _per_queue(
    counters: dict[str, PortCounters | None], columns: list[str], head: str, ecn: bool = False
) -> str:
    """queuestat / wredstat: a table per port, each followed by a blank line; the state's count in
    the third column (Drop/pkts, or EcnMarked/pkts), N/A in the columns the model has no value for."""
    tables = []
    for port, c in counters.items():
        values = (c or _EMPTY).ecn_marked if ecn else (c or _EMPTY).queue_drops
        rows = []
        for queue in QUEUES:
            cells = [NA] * len(columns)
            cells[2] = _plain(values.get(queue))
            rows.append([port, f"UC{queue}", *cells])
        tables.append(head + show.table(["Port", "TxQ", *columns], rows, right=True) + "\n")
    return "".join(tables)


def _pg_drops(state: DeviceState, counters: dict[str, PortCounters | None]) -> str:
    """The port's discards on the priority group of its (first) lossless priority, none elsewhere."""
    rows = []
    for port, c in counters.items():
        drops = (c or _EMPTY).no_buffer_discards
        lossless = sorted(state.interfaces[port].no_drop_priorities or ())
        group = state.tc_pg.get(lossless[0], lossless[0]) if lossless else 0
        cells = [NA] * 8 if drops is None else ["0"] * 8
        if drops is not None:
            cells[group] = str(drops)
        rows.append([port, *cells])
    headers = ["Port", *(f"PG{g}" for g in range(8))]
    return "Ingress PG dropped packets:\n" + show.table(headers, rows, right=True)
