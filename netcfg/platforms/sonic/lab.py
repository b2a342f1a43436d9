"""What the lab's SONiC switches print, and the stock QoS a SONiC image ships (the `factory_qos`
fault): the lab's SONiC simulator.

Link state and counters are shaped as sonic-utilities prints them (tabulate "simple"; portstat and
pfcstat put commas in numbers, queuestat, wredstat and pg-drop do not). A value the state does not
hold prints N/A, as SONiC prints a counter COUNTERS_DB lacks."""

from __future__ import annotations

import dataclasses
import time
import zlib
from typing import ClassVar

from netcfg.model import (
    Device,
    DeviceState,
    EcnSetting,
    InstalledRoute,
    PgBuffer,
    PortCounters,
    Role,
    Watchdog,
    port_sort_key,
)
from netcfg.platforms import frr
from netcfg.platforms.simulator import CliProfile, Simulator, bash_profile, register_simulator
from netcfg.platforms.sonic import show
from netcfg.platforms.sonic.commands import (
    ERRORS,
    FEC,
    FLAP,
    LLDP,
    PFC,
    PFCWD,
    PFCWD_STATS,
    PG_DROP,
    QUEUE,
    RUNNING,
    STATUS,
    VERSION,
    WRED,
)
from netcfg.platforms.sonic.names import DEFAULT_MTU, MAP_TABLES, STOCK_CABLE_M
from netcfg.platforms.sonic.render import config_db, device_text
from netcfg.templating import template

PLATFORM = "x86_64-nvidia_sn5600-r0"
# What SONiC calls each tier in DEVICE_METADATA.type (the T0/T1/T2 of its templates).
ROUTER_TYPE = {Role.LEAF: "ToRRouter", Role.SPINE: "LeafRouter", Role.SUPERSPINE: "SpineRouter"}
TRANSCEIVER = "QSFP-DD Double Density 8X Pluggable Transceiver"
# The speed every lab port is configured with (PORT speed 400000 in the running config).
CONFIGURED_SPEED = "400G"


def running_config(state: DeviceState, device: Device) -> str:
    """`show runningconfiguration all`: the whole config_db, netcfg's tables over a device's own
    (ports' lanes and speeds, buffer pools, the lossy priority group 0)."""
    doc = _device_tables(state, device)
    for table, entries in config_db(state).items():
        for key, fields in entries.items():
            doc.setdefault(table, {}).setdefault(key, {}).update(fields)
    return device_text(doc)


def _device_tables(state: DeviceState, device: Device) -> dict[str, dict]:
    ports = sorted(state.interfaces, key=port_sort_key)
    crc = zlib.crc32(state.name.encode())
    return {
        "DEVICE_METADATA": {
            "localhost": {
                "buffer_model": "traditional",
                "default_pfcwd_status": "disable",
                "hwsku": state.model or "",
                "mac": ":".join(f"{b:02x}" for b in (0x1C, 0x34, 0xDA, *crc.to_bytes(4)[1:])),
                "platform": PLATFORM,
                "type": ROUTER_TYPE.get(device.role, "LeafRouter"),
            }
        },
        "PORT": {
            name: {
                "admin_status": "up",
                "alias": f"etp{i + 1}",
                "index": str(i),
                "lanes": ",".join(str(8 * i + lane) for lane in range(8)),
                "speed": "400000",
            }
            for i, name in enumerate(ports)
        },
        "BUFFER_POOL": {
            "ingress_lossless_pool": {"mode": "dynamic", "size": "47448064", "type": "ingress", "xoff": "0"},
            "egress_lossless_pool": {"mode": "dynamic", "size": "60817392", "type": "egress"},
            "egress_lossy_pool": {"mode": "dynamic", "size": "47448064", "type": "egress"},
        },
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {"dynamic_th": "3", "pool": "ingress_lossless_pool", "size": "0"},
        },
        "BUFFER_PG": {f"{name}|0": {"profile": "ingress_lossy_profile"} for name in ports},
    }


def show_version(state: DeviceState) -> str:
    crc = zlib.crc32(state.name.encode())
    return template("sonic/show_version.j2").render(
        version=state.os_version or "",
        commit=f"{zlib.crc32((state.os_version or '').encode()):08x}",
        platform=PLATFORM,
        model=state.model or "N/A",
        serial=f"MT{crc % 10**10:010d}",
    )


def show_lldp_table(state: DeviceState) -> str:
    rows = [
        [n.local_interface, n.system_name, n.port, "BR", n.port]
        for n in sorted(state.lldp, key=lambda n: port_sort_key(n.local_interface))
    ]
    headers = ["LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"]
    return (
        "Capability codes: (R) Router, (B) Bridge, (O) Other\n"
        + show.table(headers, rows, right=False)
        + "-" * 50
        + f"\nTotal entries displayed:  {len(rows)}\n"
    )


def pfcwd_show_config(state: DeviceState) -> str:
    """As sonic-utilities pfcwd/main.py prints it: the polling line only when a port has a watchdog."""
    table = config_db(state).get("PFC_WD", {})
    rows = [
        [
            port,
            e.get("action", "drop"),
            e.get("detection_time", "N/A"),
            e.get("restoration_time", "infinite"),
            "disable",
        ]
        for port, e in sorted(table.items(), key=lambda item: port_sort_key(item[0]))
        if port != "GLOBAL"
    ]
    poll = table.get("GLOBAL", {}).get("POLL_INTERVAL")
    head = f"Changed polling interval to {poll}ms\n" if rows and poll else ""
    headers = ["PORT", "ACTION", "DETECTION TIME", "RESTORATION TIME", "HISTORY"]
    return head + show.table(headers, rows, right=True)


def show_interfaces_status(state: DeviceState) -> str:
    """Speed is the negotiated one while the port is up, the configured 400G otherwise (intfutil);
    Oper N/A where the state does not know the port's link (APPL_DB has no oper_status)."""
    headers = [
        "Interface",
        "Lanes",
        "Speed",
        "MTU",
        "FEC",
        "Alias",
        "Vlan",
        "Oper",
        "Admin",
        "Type",
        "Asym PFC",
    ]
    rows = []
    for i, name in enumerate(sorted(state.interfaces, key=port_sort_key)):
        port = state.interfaces[name]
        mtu = port.mtu or DEFAULT_MTU
        lanes = ",".join(str(8 * i + lane) for lane in range(8))
        if port.oper_up:
            speed = "N/A" if port.speed_gbps is None else f"{port.speed_gbps}G"
        else:
            speed = CONFIGURED_SPEED
        oper = "N/A" if port.oper_up is None else "up" if port.oper_up else "down"
        rows.append(
            [name, lanes, speed, str(mtu), "rs", f"etp{i + 1}", "routed", oper, "up", TRANSCEIVER, "off"]
        )
    return show.table(headers, rows, right=True)


# --- the stock QoS: sonic-buildimage files/build_templates/qos_config.j2 (the generic AZURE profile)
# and pfcwd start_default (sonic-utilities pfcwd/main.py), as roce-reference §2.1 and §2.3 list them.

AZURE_DSCP_TO_TC = {d: 1 for d in range(64)} | {3: 3, 4: 4, 5: 2, 8: 0, 46: 5, 48: 6}
AZURE_TC_TO_PG = {0: 0, 1: 0, 2: 0, 3: 3, 4: 4, 5: 0, 6: 0, 7: 7}
AZURE_LOSSLESS = EcnSetting(min_bytes=1_048_576, max_bytes=2_097_152, probability=5)
STOCK_LOSSLESS = frozenset({3, 4})
# pfcwd start_default's timers for up to 32 ports with PFC (detection, restoration, poll), ms.
STOCK_WATCHDOG = Watchdog(enabled=True, action="drop", detection_ms=200, restoration_ms=200, polling_ms=200)


def factory_qos(state: DeviceState, device: Device) -> DeviceState:
    """The state with SONiC's stock AZURE QoS in place of netcfg's: DSCP 26 in lossy TC1, PFC on 3
    and 4, AZURE_LOSSLESS ECN (1 MiB / 2 MiB / 5 %) on queues 3 and 4, DWRR everywhere (no strict CNP
    queue), the default watchdog, the stock role cable length, and headroom left to buffermgrd."""
    ports = {
        name: dataclasses.replace(
            port,
            trust="dscp",
            dscp_map=None,
            pfc_enabled=True,
            no_drop_priorities=STOCK_LOSSLESS,
            ecn=dict.fromkeys(sorted(STOCK_LOSSLESS), AZURE_LOSSLESS),
            strict_queues=frozenset(),
            watchdog=True,
            cable_m=STOCK_CABLE_M.get(device.role, STOCK_CABLE_M["leaf"]),
            pg_buffers=dict[int, PgBuffer](),
        )
        for name, port in state.interfaces.items()
    }
    return dataclasses.replace(
        state,
        interfaces=ports,
        dscp_map=dict(AZURE_DSCP_TO_TC),
        tc_queue={},
        tc_pg={tc: pg for tc, pg in AZURE_TC_TO_PG.items() if tc != pg},
        tc_pfc={},
        qos_names={kind: "AZURE" for kind in MAP_TABLES if kind != "dot1p_to_tc_map"}
        | {"wred_profile": "AZURE_LOSSLESS"},
        watchdog=STOCK_WATCHDOG,
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


@register_simulator
class SonicSimulator(Simulator):
    platform_name: ClassVar[str] = "sonic"
    cli_profile: ClassVar[CliProfile] = bash_profile()
    version: ClassVar[str] = "202405.12-3f2b1a9c"
    model: ClassVar[str | None] = "ACS-SN5600"

    def render_routes(self, routes: list[InstalledRoute], family: int) -> str | None:
        return frr.render_routes(routes, family)

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        return {
            RUNNING.cli: running_config(state, device),
            VERSION.cli: show_version(state),
            LLDP.cli: show_lldp_table(state),
            PFCWD.cli: pfcwd_show_config(state),
            STATUS.cli: show_interfaces_status(state),
        } | counter_outputs(state)

    def render_readings(self, state: DeviceState, device: Device) -> dict[str, str]:
        return counter_outputs(state)

    def factory_qos(self, state: DeviceState, device: Device) -> DeviceState | None:
        return factory_qos(state, device)
