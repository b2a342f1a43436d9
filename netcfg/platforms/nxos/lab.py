"""What a simulated Nexus 9000 prints for the commands netcfg collects, and the QoS it ships with."""

from __future__ import annotations

import dataclasses
import re
import zlib

from netcfg.model import DeviceState, Watchdog
from netcfg.platforms.nxos.parse import SHOW_LLDP, SHOW_PFC, SHOW_RUNNING, SHOW_VERSION
from netcfg.platforms.nxos.render import Live, render
from netcfg.platforms.nxos.text import is_ethernet_port
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
        rows.append({"name": name, "mode": mode, "oper": oper})
    return rows


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
