"""What a simulated Nexus 9000 prints for the commands netcfg collects, and the QoS it ships with."""

from __future__ import annotations

import dataclasses
import re
import zlib
from typing import ClassVar

from netcfg.model import Device, DeviceState, InstalledRoute, InterfaceState, PortCounters, Watchdog
from netcfg.platforms.nxos import routes as route_tables
from netcfg.platforms.nxos.commands import (
    SHOW_ERRORS,
    SHOW_INTERFACE,
    SHOW_LLDP,
    SHOW_PFC,
    SHOW_QUEUING,
    SHOW_RUNNING,
    SHOW_VERSION,
    SHOW_WATCHDOG,
)
from netcfg.platforms.nxos.render import Live, render
from netcfg.platforms.nxos.text import is_ethernet_port
from netcfg.platforms.simulator import CliProfile, Simulator, register_simulator
from netcfg.templating import template

# Fixed times: a device's outputs change only when its state does (drift compares fingerprints).
_CHANGED = "Tue Jun  3 09:12:44 2025"
_NOW = "Tue Jun  3 10:02:17 2025"


def outputs(state: DeviceState) -> dict[str, str]:
    """Command outputs keyed by command line, as `show ...` prints them on a Nexus 9000."""
    version = state.os_version or ""
    digest = f"{zlib.crc32(state.name.encode()):08x}"
    live = Live(
        version=version,
        bios="01.12",
        changed=_CHANGED,
        now=_NOW,
        # Lines that carry secrets, as every switch has them: what netcfg saves must mask them.
        globals=(
            f"username admin password 5 $5${digest[:8].upper()}$Kq3{digest}Zr8uWfE0{digest[::-1]}  "
            "role network-admin",
            f"snmp-server user admin network-admin auth md5 0x{digest * 4} priv 0x{digest[::-1] * 4} "
            "localizedkey",
        ),
    )
    return {
        SHOW_VERSION.cli: template("nxos/show_version.j2").render(
            version=version,
            release=" [Maintenance Release]" if version else "",
            image=f"nxos64-cs.{'.'.join(re.findall(r'[0-9A-Za-z]+', version))}.M.bin",
            model=state.model,
            serial=f"FDO{zlib.crc32(state.name.encode()) % 10**8:08d}",
            name=state.name,
        ),
        SHOW_RUNNING.cli: render(state, live),
        SHOW_PFC.cli: template("nxos/show_interface_pfc.j2").render(ports=_pfc_rows(state)),
        **_link_outputs(state),
        SHOW_LLDP.cli: template("nxos/show_lldp_neighbors_detail.j2").render(
            neighbors=[
                {
                    "chassis": _mac(n.system_name),
                    "port": n.port,
                    "local": n.local_interface.replace("Ethernet", "Eth", 1),
                    "system_name": n.system_name,
                    "description": "netcfg lab device",
                }
                for n in state.lldp
            ]
        ),
    }


def _pfc_rows(state: DeviceState) -> list[dict[str, str]]:
    rows = []
    for name, port in state.interfaces.items():
        if not is_ethernet_port(name) or name.startswith("port-channel"):
            continue
        mode = {True: "On", False: "Off"}.get(port.pfc_enabled, "Auto")
        bitmap = sum(1 << p for p in port.no_drop_priorities or ())
        oper = f"On  ({bitmap:x})" if port.pfc_enabled else "Off"
        counters = state.counters.get(name, _NONE)
        rx, tx = sum(counters.pause_rx.values()), sum(counters.pause_tx.values())
        rows.append({"name": name, "mode": mode, "oper": oper, "rx": rx, "tx": tx})
    return rows


# What a port the lab plays no traffic on counts: nothing.
_NONE = PortCounters(link_downs=0, crc_errors=0, symbol_errors=0, no_buffer_discards=0)


def _link_outputs(state: DeviceState) -> dict[str, str]:
    """`show interface` and the counter commands, for the front-panel ports whose link state the
    state knows (every cabled port of a lab switch); the counters of a port that is down read 0."""
    ports = [
        (name, port, state.counters.get(name, _NONE))
        for name, port in state.interfaces.items()
        if name.startswith("Ethernet") and port.oper_up is not None
    ]
    # The PFC priority that pauses each qos-group where it is not the group's own (tc_pfc).
    group_of_cos = {cos: group for group, cos in state.tc_pfc.items()}
    watchdog = state.watchdog
    polling = watchdog.polling_ms or 100
    return {
        SHOW_INTERFACE.cli: template("nxos/show_interface.j2").render(
            mgmt_mac=_mac(f"{state.name}/mgmt0"),
            ports=[_interface_row(state.name, name, port, c) for name, port, c in ports],
        ),
        SHOW_ERRORS.cli: template("nxos/show_interface_counters_errors.j2").render(
            ports=[
                {
                    "short": name.replace("Ethernet", "Eth", 1),
                    "crc": c.crc_errors or 0,
                    "symbol": c.symbol_errors or 0,
                }
                for name, _, c in ports
            ]
        ),
        SHOW_QUEUING.cli: template("nxos/show_queuing_interface.j2").render(
            ports=[_queuing_row(name, port, c, group_of_cos) for name, port, c in ports]
        ),
        SHOW_WATCHDOG.cli: template("nxos/show_queuing_pfc_queue_detail.j2").render(
            enabled=watchdog.enabled,
            interval=polling,
            shutdown=(watchdog.detection_ms or polling) // polling,
            restore=(watchdog.restoration_ms or 10 * polling) // polling,
            ports=[
                {
                    "name": name,
                    "enabled": bool(port.watchdog),
                    "groups": [
                        {
                            "group": group_of_cos.get(cos, cos),
                            "cos": cos,
                            "stormed": cos in c.stormed,
                            "shutdowns": storms,
                        }
                        for cos, storms in sorted(c.watchdog_storms.items())
                    ],
                }
                for name, port, c in ports
            ],
        ),
    }


def _interface_row(device: str, name: str, port: InterfaceState, c: PortCounters) -> dict[str, object]:
    return {
        "name": name,
        "up": port.oper_up,
        "speed": port.speed_gbps,
        "mtu": port.mtu or 1500,
        "description": port.description,
        "mac": _mac(f"{device}/{name}"),
        "resets": c.link_downs or 0,
        "crc": c.crc_errors or 0,
        "rx_pause": sum(c.pause_rx.values()),
        "tx_pause": sum(c.pause_tx.values()),
    }


def _queuing_row(
    name: str, port: InterfaceState, c: PortCounters, group_of_cos: dict[int, int]
) -> dict[str, object]:
    paused = port.no_drop_priorities or frozenset()
    buffers = {
        group: (
            "-" if b.size is None else b.size,
            "-" if b.xoff is None else b.xoff,
            "-" if b.xon is None else b.xon,
        )
        for group, b in port.pg_buffers.items()
    }
    return {
        "name": name,
        "strict": port.strict_queues,
        "groups": [{"group": g, "drops": c.queue_drops.get(g, 0)} for g in range(8)],
        "buffers": buffers,
        "overflow": c.no_buffer_discards or 0,
        "cos": [
            {
                "cos": cos,
                "group": group_of_cos.get(cos, cos) if cos in paused else 0,
                "tx": c.pause_tx.get(cos, 0),
                "rx": c.pause_rx.get(cos, 0),
            }
            for cos in range(8)
        ],
    }


def _mac(name: str) -> str:
    h = f"{zlib.crc32(name.encode()):08x}"
    return f"5c71.0d{h[:2]}.{h[2:6]}"


def factory_qos(state: DeviceState) -> DeviceState:
    """A Nexus 9000 as shipped: the default 8-queue policies (no classification, so every packet is
    in qos-group 0; no class paused; no ECN; no strict queue), PFC `mode auto`, no PFC watchdog, and
    Ethernet ports at MTU 1500."""
    ports = {
        name: dataclasses.replace(
            port,
            mtu=1500,
            trust="none",
            dscp_map=None,
            pfc_enabled=None,
            no_drop_priorities=None,
            ecn={},
            strict_queues=frozenset(),
            watchdog=False,
            pg_buffers={},
        )
        for name, port in state.interfaces.items()
    }
    return dataclasses.replace(
        state, dscp_map={}, tc_queue={}, tc_pfc={}, watchdog=Watchdog(enabled=False), interfaces=ports
    )


@register_simulator
class NxosSimulator(Simulator):
    platform_name: ClassVar[str] = "nxos"
    # netmiko's cisco_nxos sends `terminal width 511` and `terminal length 0` and waits only for their
    # echo; NX-OS prints nothing else for them.
    cli_profile: ClassVar[CliProfile] = CliProfile(
        prompt="{name}# ",
        setup_replies={"terminal width 511": "", "terminal length 0": ""},
        invalid_input="                      ^\n% Invalid command at '^' marker.",
    )
    version: ClassVar[str] = "10.4(3)"
    model: ClassVar[str | None] = "Nexus9000 C9364D-GX2A"

    def render_routes(self, routes: list[InstalledRoute], family: int) -> str | None:
        return route_tables.render_routes(routes, family)

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        return outputs(state)

    def factory_qos(self, state: DeviceState, device: Device) -> DeviceState | None:
        return factory_qos(state)
