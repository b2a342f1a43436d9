"""What the lab's SONiC switches print, and the stock QoS a SONiC image ships (the `factory_qos` fault)."""

from __future__ import annotations

import dataclasses
import zlib

from netcfg.model import Device, DeviceState, EcnSetting, PgBuffer, Role, Watchdog, port_sort_key
from netcfg.platforms.sonic import show
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
