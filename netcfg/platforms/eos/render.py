"""EOS config text from a DeviceState (Jinja2 templates in templates/eos/)."""

from __future__ import annotations

import json
import zlib
from collections import Counter
from datetime import UTC, datetime
from functools import lru_cache
from types import SimpleNamespace

from netcfg.model import DeviceState, EcnSetting, InterfaceState, PortCounters
from netcfg.platforms.eos.commands import (
    SHOW_INTERFACES,
    SHOW_LLDP,
    SHOW_PFC,
    SHOW_PFC_WATCHDOG,
    SHOW_PHY,
    SHOW_RUNNING,
    SHOW_VERSION,
)
from netcfg.platforms.eos.text import short_interface
from netcfg.templating import template

PROFILE = "ROCE_LOSSLESS"
# The clock `show interfaces phy detail` prints when the state says not when it was read.
UNKNOWN_READ_AT = 1_767_225_600.0


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


def _threshold(value: int) -> str:
    for unit, size in (("mbytes", 1_000_000), ("kbytes", 1000)):
        if value % size == 0:
            return f"{value // size} {unit}"
    return f"{value} bytes"


def _qos_lines(port: InterfaceState) -> tuple[str, ...]:
    """Config lines for the QoS of one port, in the order EOS shows them."""
    ecn = tuple(sorted(port.ecn.items()))
    return _qos_lines_for(
        port.trust, port.pfc_enabled, port.no_drop_priorities, port.watchdog, ecn, port.strict_queues
    )


@lru_cache(maxsize=1024)
def _qos_lines_for(
    trust: str | None,
    pfc_enabled: bool | None,
    no_drop: frozenset[int] | None,
    watchdog: bool | None,
    ecn_items: tuple[tuple[int, EcnSetting], ...],
    strict_queues: frozenset[int],
) -> tuple[str, ...]:
    # Fabric ports share a handful of QoS settings: build each set of lines once.
    ecn = dict(ecn_items)
    lines = []
    if trust is not None:
        lines.append("no qos trust" if trust == "none" else f"qos trust {trust}")
    if pfc_enabled is not None:
        lines.append("priority-flow-control on" if pfc_enabled else "no priority-flow-control")
    lines += [f"priority-flow-control priority {p} no-drop" for p in sorted(no_drop or ())]
    if watchdog:
        lines.append("priority-flow-control pause watchdog")
    for queue in sorted(set(ecn) | set(strict_queues)):
        lines += ["!", f"tx-queue {queue}"]
        if queue in strict_queues:
            lines.append("   priority strict")
        if queue in ecn:
            e = ecn[queue]
            lines.append(
                f"   random-detect ecn minimum-threshold {_threshold(e.min_bytes)} "
                f"maximum-threshold {_threshold(e.max_bytes)} max-mark-probability {e.probability}"
            )
    return tuple(lines)


def _by_value(mapping: dict[int, int]) -> dict[int, list[int]]:
    """{26: 3, 27: 3} -> {3: [26, 27]}: EOS writes one map line per target."""
    out: dict[int, list[int]] = {}
    for key, value in sorted(mapping.items()):
        out.setdefault(value, []).append(key)
    return out


def _mac(name: str) -> str:
    h = f"{zlib.crc32(name.encode()):08x}"
    return f"001c.73{h[:2]}.{h[2:6]}"


def render_config(state: DeviceState) -> str:
    """The EOS config of a switch in this state: one shared `qos profile`, per-port overrides inline."""
    qos = {name: _qos_lines(port) for name, port in state.interfaces.items()}
    common = Counter(q for q in qos.values() if q).most_common(1)
    profile_lines = common[0][0] if common else ()
    interfaces = []
    for name, port in state.interfaces.items():
        shared = bool(profile_lines) and qos[name] == profile_lines
        # Namespaces, not dicts: Jinja resolves `i.name` by attribute first, and a miss is slow.
        interfaces.append(
            SimpleNamespace(
                name=name,
                description=port.description,
                mtu=port.mtu,
                profile=PROFILE if shared else None,
                lines=() if shared else qos[name],
            )
        )
    by_tc = _by_value(state.dscp_map)
    wd = state.watchdog
    watchdog = None
    if wd is not None and wd.enabled and wd.detection_ms and wd.restoration_ms and wd.polling_ms:
        watchdog = {
            "timeout": _seconds(wd.detection_ms),
            "recovery": _seconds(wd.restoration_ms),
            "polling": _seconds(wd.polling_ms),
            "action": wd.action or "drop",
        }
    return template("eos/config.j2").render(
        name=state.name,
        profiles=[SimpleNamespace(name=PROFILE, lines=profile_lines)] if profile_lines else [],
        interfaces=interfaces,
        dscp_maps=[(tc, " ".join(map(str, ds))) for tc, ds in sorted(by_tc.items())],
        tc_queues=[(q, " ".join(map(str, tcs))) for q, tcs in sorted(_by_value(state.tc_queue).items())],
        watchdog=watchdog,
    )


def render_outputs(state: DeviceState) -> dict[str, str]:
    """What a switch in this state prints for each collected command (the lab's replies)."""
    config = render_config(state)
    header = (
        f"! Command: show running-config\n! device: {state.name} ({state.model}, EOS-{state.os_version})\n"
    )
    version = template("eos/show_version.j2").render(
        model=state.model,
        version=state.os_version,
        serial=f"JPE{zlib.crc32(state.name.encode()) % 10**8:08d}",
        mac=_mac(state.name),
        build=f"{zlib.crc32((state.os_version or '').encode()) % 10**8:08d}",
    )
    neighbors = [
        {"local": short_interface(n.local_interface), "system_name": n.system_name, "port": n.port}
        for n in state.lldp
    ]
    return {
        SHOW_VERSION.cli: version,
        SHOW_RUNNING.cli: header + config.split("\n", 1)[1],
        SHOW_LLDP.cli: template("eos/show_lldp_neighbors.j2").render(neighbors=neighbors),
    } | render_counter_outputs(state)


def render_counter_outputs(state: DeviceState) -> dict[str, str]:
    """What the switch prints for its link-state and counter commands: every port whose link state
    the state knows (a state without it prints only the management port)."""
    ports = [
        _port_view(state, name, port) for name, port in state.interfaces.items() if port.oper_up is not None
    ]
    at = datetime.fromtimestamp(state.read_at if state.read_at is not None else UNKNOWN_READ_AT, UTC)
    pause = {
        p.name: {"priorities": {str(q): {"rxFrames": rx, "txFrames": tx} for q, (rx, tx) in p.pause.items()}}
        for p in ports
    }
    # EOS lists a port here only once its watchdog has acted on it.
    stuck = {
        p.name: {"txQueues": {str(q): {"stuckCount": n, "recoveryCount": r} for q, (n, r) in p.stuck.items()}}
        for p in ports
        if any(n for n, _ in p.stuck.values())
    }
    return {
        SHOW_INTERFACES.cli: template("eos/show_interfaces.j2").render(
            ports=ports, management_mac=_mac(f"{state.name}/Management1")
        ),
        SHOW_PHY.cli: template("eos/show_interfaces_phy_detail.j2").render(
            ports=ports, now=at.strftime("%a %b %e %H:%M:%S %Y")
        ),
        SHOW_PFC.cli: json.dumps({"interfaces": pause}, indent=4) + "\n",
        SHOW_PFC_WATCHDOG.cli: json.dumps({"interfaces": stuck}, indent=4) + "\n",
    }


def _port_view(state: DeviceState, name: str, port: InterfaceState) -> SimpleNamespace:
    c = state.counters.get(name) or PortCounters()
    speed = port.speed_gbps
    stuck = {}
    for queue in sorted(set(c.watchdog_storms) | c.stormed):
        storms = c.watchdog_storms.get(queue, 0)
        # A queue held stormed now has been stuck once more than it has recovered.
        stuck[queue] = (max(storms, 1), max(storms, 1) - 1) if queue in c.stormed else (storms, storms)
    return SimpleNamespace(
        name=name,
        up=bool(port.oper_up),
        mac=_mac(f"{state.name}/{name}"),
        description=port.description,
        mtu=port.mtu or 9214,
        speed=f"Full-duplex, {speed}Gb/s" if speed else "Unconfigured, Unknown",
        bandwidth_kbit=(speed or 0) * 1_000_000,
        transceiver=f"{speed}GBASE-DR4" if speed else "Not Present",
        oper_speed=f"{speed}Gbps" if speed else "Unknown",
        # Up at boot is one change; every link-down since is two more (down, then up again).
        changes=2 * (c.link_downs or 0) + (1 if port.oper_up else 2),
        crc=c.crc_errors or 0,
        symbol=c.symbol_errors or 0,
        discards=c.no_buffer_discards or 0,
        fec_corrected=c.fec_corrected,
        fec_uncorrected=c.fec_uncorrected,
        pause={
            q: (c.pause_rx.get(q, 0), c.pause_tx.get(q, 0)) for q in sorted(set(c.pause_rx) | set(c.pause_tx))
        },
        stuck=stuck,
    )
