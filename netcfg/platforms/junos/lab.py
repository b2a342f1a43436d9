"""What a simulated Juniper QFX prints for the commands netcfg collects (configuration, version,
LLDP, interface and queue counters), and how its CLI behaves over SSH: the lab's Junos simulator."""

from __future__ import annotations

import re
import zlib
from functools import lru_cache
from typing import ClassVar

from netcfg.model import Device, DeviceState, InstalledRoute, LldpNeighbor, PortCounters, port_sort_key
from netcfg.platforms.junos import facts, render
from netcfg.platforms.junos import routes as route_tables
from netcfg.platforms.junos.commands import (
    SHOW_CONFIG,
    SHOW_CONFIG_COUNT,
    SHOW_EXTENSIVE,
    SHOW_LLDP,
    SHOW_QUEUE,
    SHOW_VERSION,
)
from netcfg.platforms.junos.counters import HEADER, SECTION_END
from netcfg.platforms.simulator import CliProfile, Simulator, register_simulator
from netcfg.templating import template


@register_simulator
class JunosSimulator(Simulator):
    platform_name: ClassVar[str] = "junos"
    # netmiko's juniper_junos prepares the session with these three commands and waits for each reply.
    cli_profile: ClassVar[CliProfile] = CliProfile(
        prompt="{user}@{name}> ",
        setup_replies={
            "set cli screen-width 511": "Screen width set to 511",
            "set cli complete-on-space off": "Disabling complete-on-space",
            "set cli screen-length 0": "Screen length set to 0",
        },
        invalid_input="                  ^\nunknown command.",
    )
    version: ClassVar[str] = "23.4R2-S3.5-EVO"
    model: ClassVar[str | None] = "qfx5240-64od"

    def render_routes(self, routes: list[InstalledRoute], family: int) -> str | None:
        return route_tables.render_routes(routes, family)

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        config = render.render_config(state)
        if state.os_version:
            config = f"set version {state.os_version}\n{config}"
        return {
            SHOW_CONFIG.cli: config,
            SHOW_CONFIG_COUNT.cli: count(config),
            SHOW_VERSION.cli: show_version(state.name, state.model, state.os_version),
            SHOW_LLDP.cli: show_lldp_neighbors(state.lldp),
        } | self.render_readings(state, device)

    def render_readings(self, state: DeviceState, device: Device) -> dict[str, str]:
        return {
            SHOW_EXTENSIVE.cli: show_interfaces_extensive(state),
            SHOW_QUEUE.cli: show_interfaces_queue(state),
        }


# A port's counters as one hashable value, so equal ports print once.
_Key = tuple[object, ...]


def show_version(name: str, model: str | None, version: str | None) -> str:
    build = f"{zlib.crc32((version or '').encode()):08x}"[:7]
    return template("junos/show_version.j2").render(name=name, model=model, version=version, build=build)


def show_lldp_neighbors(neighbors: list[LldpNeighbor]) -> str:
    rows = [
        {
            "local": n.local_interface,
            "chassis": _chassis(n.system_name),
            "port": n.port,
            "system_name": n.system_name,
        }
        for n in neighbors
    ]
    return template("junos/show_lldp_neighbors.j2").render(neighbors=rows)


def count(text: str) -> str:
    return f"Count: {len(text.splitlines())} lines"


def _chassis(name: str) -> str:
    h = f"{zlib.crc32(name.encode()):08x}"
    return f"3c:8c:93:{h[0:2]}:{h[2:4]}:{h[4:6]}"


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
        f"{HEADER}{name}, Enabled, Physical link is {'Up' if port.oper_up else 'Down'}\n"
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
    lines += ["  PRBS Mode : Disabled", f"{SECTION_END} Disabled", ""]
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
            f"{HEADER}{name}, Enabled, Physical link is {link}\n"
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
