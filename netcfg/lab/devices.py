"""The lab's simulated devices: rendered intent plus live facts (versions, LLDP), with faults applied.

A faults file (YAML) changes settings or transport behaviour per device:

    devices:
      leaf-su1-r3: {pfc_priority: 4}          # PFC no-drop on 4 instead of the lossless priority
      leaf-su1-r4: {pfc_pause_priority: {3: 4}}   # class 3 paused by PFC priority 4 (NX-OS pfc-cos)
      leaf-su2-r2: {ecn: false}               # ECN off on the lossless queue
      gpu05: {trust: pcp}                     # NIC trust PCP
      leaf-su1-r1: {mtu: {Ethernet2: 1500}}   # one port at MTU 1500
      gpu07: {lldp: {eth1: "leaf-su2-r1:Ethernet3"}}   # NIC 2 cabled to another leaf/port
      spine2: {os_version: 4.28.9M}
      gpu06: {firmware: 28.36.1010}
      leaf-su1-r2: {dscp_map: {26: 1}}
      spine1: {dscp_unmapped: [26]}           # the DSCP map leaves RoCE's DSCP out altogether
      leaf-su2-r1: {watchdog_off: [Ethernet4]}   # one port without the PFC watchdog
      gpu02: {dcbx: {eth0: {mode: cee, willing: true}}}   # the NIC firmware's DCBX agent speaks CEE
      leaf-su2-r3: {factory_qos: true}        # the platform's stock QoS (SONiC: the AZURE maps)
      leaf-su1-r4: {not_operational: [ecn]}   # ECN shown as applied, the hardware runs the stock ECN
      leaf-su1-r1: {static_routes: ["0.0.0.0/0 Ethernet31"]}   # a static default route toward a spine
      spine1: {installed_routes: ["leaf-su1-r1 Ethernet3"]}   # leaf-su1-r1's subnet routed via Ethernet3
      leaf-su1-r2: {outside: {Ethernet33: "storage1:eth0"}}   # a port cabled to a device outside the plan
      spine1: {dscp_rewrite: {26: 24}}        # RoCE re-marked to DSCP 24 on the way out
      leaf-su1-r2: {switched: [Ethernet1]}    # a host port in a VLAN (lossless packets flooded there)
      gpu08: {transport: unreachable}         # or auth_fail, silent, truncate, garble; slow_s: 2.5

Load-balancing faults (policy `load_balancing`; docs/load-balancing.md):

      spine1: {lb_mode: {swp51: hash}}        # adaptive routing off on one uplink of an ECMP group
      leaf-r1: {hash_fields_off: [l4_src_port]}   # the ECMP hash without the UDP source port
      spine2: {hash_seed: 1}                  # this switch's hash seed (one seed on every tier)
      gpu02: {reorder_intolerant: [eth0]}     # a NIC that does not place out-of-order packets
      gpu01: {nic_planes: {eth1: 2}}          # a NIC's port split over two planes (NUM_OF_PLANES)

Link and counter faults (netcfg.lab.health plays the counters); a fault of the cable itself
(speed, down, flapping) shows on both of its ends:

      leaf-su1-r2: {speed_gbps: {Ethernet3: 200}}   # the link runs at half its planned speed
      leaf-su1-r3: {link_down: [Ethernet5]}
      spine1: {flapping: [Ethernet2]}               # one more link-down at every reading
      leaf-su2-r1: {fec_errors: [Ethernet1]}        # FEC corrected and uncorrected errors rising
      leaf-su2-r2: {crc_errors: [Ethernet2]}
      leaf-su2-r3: {pause_storm: [Ethernet1]}       # pause frames flooding, the watchdog storming
      leaf-su2-r4: {lossless_drops: [Ethernet1]}    # drops on the lossless queue
      gpu03: {no_cnp: true}                         # ECN-marked RoCE arrives, no CNP is ever sent
      gpu04: {pcie_width: {eth2: 8}}                # the NIC trained at PCIe x8

Text the device prints beyond what its simulator models (the secrets, banners and warning lines of
a real device), per command, before the first occurrence of `before` ('': at the start) or at the end:

      spine2: {prints: {"show running-config": [{before: "end", text: "banner motd\n...\nEOF\n"}]}}
"""

from __future__ import annotations

import dataclasses
import zlib
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from netcfg.errors import InputError
from netcfg.intent import fabric_intent
from netcfg.lab.health import (
    CRC_ERRORS,
    FEC_ERRORS,
    FLAPPING,
    HEALTHY,
    LOSSLESS_DROPS,
    NO_CNP,
    PAUSE_STORM,
    PortRates,
)
from netcfg.loader import load_model
from netcfg.model import (
    Device,
    DeviceState,
    Endpoint,
    Fabric,
    Gid,
    InterfaceState,
    LldpNeighbor,
    Nic,
    StaticRoute,
    port_copy,
)
from netcfg.platforms.simulator import simulator
from netcfg.policy import MAX_SEED, HashField, LbMode, Policy

_Priority = Annotated[int, Field(ge=0, le=7)]


class PrintedText(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    before: str | None = Field(
        None, description="printed before the first occurrence of this ('': at the start); none: at the end"
    )


class DcbxFault(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["ieee", "cee", "auto", "off"] = Field(
        description="The dialect the port's DCBX speaks (a NIC: its firmware agent, which then runs DCBX)."
    )
    willing: bool | None = Field(None, description="Whether the port takes its peer's settings.")


class DeviceFaults(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pfc_priority: int | None = Field(None, ge=0, le=7, description="PFC no-drop on this priority instead.")
    pfc_pause_priority: dict[_Priority, _Priority] = Field(
        default_factory=dict,
        description="traffic class -> the PFC priority that pauses it instead (NX-OS: `pause pfc-cos 4` "
        "in the network-qos class of qos-group 3); ports that paused the class's priority pause this one.",
    )
    ecn: bool | None = Field(None, description="false: ECN off on every port's lossless queue.")
    trust: Literal["dscp", "pcp", "none"] | None = None
    mtu: dict[str, int] = Field(default_factory=dict, description="interface -> MTU")
    dscp_map: dict[int, int] = Field(default_factory=dict, description="DSCP -> priority overrides")
    dscp_unmapped: list[int] = Field(
        default_factory=list, description="DSCPs the device's DSCP maps leave out (they classify nowhere)."
    )
    os_version: str | None = None
    firmware: str | None = Field(None, description="NIC firmware on every NIC of a host")
    lldp: dict[str, str] = Field(default_factory=dict, description="local interface -> 'device:port' seen")
    watchdog_off: list[str] = Field(default_factory=list, description="Ports without the PFC watchdog.")
    dcbx: dict[str, DcbxFault] = Field(default_factory=dict, description="port -> the DCBX it runs")
    factory_qos: bool = Field(
        False, description="The device runs its platform's stock QoS (e.g. SONiC's AZURE maps)."
    )
    not_operational: list[Literal["ecn", "pfc", "trust", "dscp_map", "strict_queues"]] = Field(
        default_factory=list,
        description="Settings the device shows with the policy's value as applied while its hardware runs "
        "the platform's stock value (platforms that print applied and operational values, e.g. Cumulus).",
    )
    speed_gbps: dict[str, Annotated[int, Field(gt=0, le=1600)]] = Field(
        default_factory=dict, description="port -> the speed its link runs at (both ends), Gb/s"
    )
    link_down: list[str] = Field(default_factory=list, description="Ports whose link is down (both ends).")
    outside: dict[str, Annotated[str, Field(pattern=r"^[^:\s]+:\S+$")]] = Field(
        default_factory=dict,
        description="port -> 'device:port' of a device outside the plan cabled to it (a storage array, a "
        "frontend router), the port set up as the switch's fabric ports are",
    )
    dscp_rewrite: dict[Annotated[int, Field(ge=0, le=63)], Annotated[int, Field(ge=0, le=63)]] = Field(
        default_factory=dict,
        description="DSCP -> the DSCP the switch re-marks it to on every port it leaves by (DSCP rewrite)",
    )
    switched: list[str] = Field(
        default_factory=list,
        description="Switch ports that forward in a switched segment (a VLAN or bridge) instead of routing.",
    )
    flapping: list[str] = Field(
        default_factory=list, description="Ports whose link went down once more before every reading."
    )
    fec_errors: list[str] = Field(default_factory=list, description="Ports with FEC errors rising fast.")
    crc_errors: list[str] = Field(default_factory=list, description="Ports with CRC errors rising.")
    pause_storm: list[str] = Field(
        default_factory=list, description="Ports in a PFC pause storm that the watchdog keeps breaking."
    )
    lossless_drops: list[str] = Field(
        default_factory=list, description="Ports dropping packets of the lossless queue."
    )
    no_cnp: bool = Field(False, description="A NIC that receives ECN-marked RoCE but never sends a CNP.")
    pcie_width: dict[str, Annotated[int, Field(ge=1, le=16)]] = Field(
        default_factory=dict, description="NIC -> the PCIe width it trained at (x16 when healthy)."
    )
    lb_mode: dict[str, LbMode] = Field(
        default_factory=dict,
        description="port -> how it spreads its ECMP group instead (hash, flowlet, per_packet).",
    )
    hash_fields_off: list[HashField] = Field(
        default_factory=list, description="Fields the switch's ECMP hash leaves out."
    )
    hash_seed: int | None = Field(None, ge=0, le=MAX_SEED, description="The switch's ECMP hash seed instead.")
    reorder_intolerant: list[str] = Field(
        default_factory=list, description="NICs that do not place RoCE packets arriving out of order."
    )
    nic_planes: dict[str, Annotated[int, Field(ge=1, le=8)]] = Field(
        default_factory=dict,
        description="NIC -> the planes its firmware splits its port over instead (NUM_OF_PLANES).",
    )
    static_routes: list[Annotated[str, Field(pattern=r"^[0-9a-fA-F.:]+/\d{1,3} \S+$")]] = Field(
        default_factory=list,
        description="Static routes the switch's config holds, as 'PREFIX NEXT-HOP' where the next hop is "
        "an interface or an address (e.g. '0.0.0.0/0 Ethernet31').",
    )
    installed_routes: list[Annotated[str, Field(pattern=r"^\S+ \S+$")]] = Field(
        default_factory=list,
        description="Routes the switch's route tables install in place of the lab's eBGP routes, as "
        "'DEST PORT[,PORT...]': DEST a prefix (in the table of its address family) or a leaf's name (its "
        "IPv4 and IPv6 subnets), each port a planned link to another switch (see netcfg.lab.routes for "
        "the lab's addresses).",
    )
    prints: dict[str, list[PrintedText]] = Field(
        default_factory=dict,
        description="command -> text the device prints in its output beyond what the simulator models "
        "(secrets, banners, a warning line)",
    )
    transport: Literal["unreachable", "auth_fail", "silent", "truncate", "garble"] | None = None
    slow_s: float = Field(0.0, ge=0, le=30, description="Delay before each command reply, seconds.")


class FaultsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    devices: dict[str, DeviceFaults] = Field(default_factory=dict)


def load_faults(path: Path | None, fabric: Fabric) -> dict[str, DeviceFaults]:
    if path is None:
        return {}
    faults = load_model(path, FaultsFile).devices
    for name in faults:
        if name not in fabric.devices:
            raise InputError(f"{path}: devices.{name}", "device is not in the inventory")
    return faults


@contextmanager
def faults_named(path: Path | None) -> Iterator[None]:
    """Errors in what a faults file means are found once its devices are simulated, where the file
    is no longer known (`faults: devices.X.field`): they leave this block naming the file itself."""
    try:
        yield
    except InputError as exc:
        if path is None or not exc.where.startswith(FAULTS_WHERE):
            raise
        raise InputError(f"{path}: {exc.where.removeprefix(FAULTS_WHERE)}", exc.expected) from None


FAULTS_WHERE = "faults: "


def check_printed(faults: DeviceFaults, device: Device) -> None:
    """Refuse printed text for a command the device is not collected with (it would never show)."""
    collected = {c.cli for c in simulator(device.platform).platform.commands(device)}
    for cli in faults.prints:
        if cli not in collected:
            where = f"faults: devices.{device.name}.prints"
            raise InputError(where, f"{cli!r} is not a command netcfg collects")


def with_printed(
    outputs: dict[str, str], prints: dict[str, list[PrintedText]], device: str
) -> dict[str, str]:
    """The outputs with each command's printed text in place."""
    out = dict(outputs)
    for cli, texts in prints.items():
        for printed in texts:
            text = out[cli]
            at = len(text) if printed.before is None else text.find(printed.before)
            if at < 0:
                where = f"faults: devices.{device}.prints"
                raise InputError(where, f"{cli!r} prints no {printed.before!r} to print before")
            out[cli] = text[:at] + printed.text + text[at:]
    return out


def live_states(fabric: Fabric, policy: Policy) -> dict[str, DeviceState]:
    """What a healthy fabric reports: intent, plus versions and LLDP neighbours from the cabling (link
    state and counters: netcfg.lab.health).

    Each device runs the newest version its platform's firmware rule allows (else the platform's
    own lab version), so a healthy lab passes whatever the policy."""
    states = fabric_intent(fabric, policy)
    for name, state in states.items():
        state.facets = frozenset({"qos", "version", "lldp"})
        device = fabric.devices[name]
        played = simulator(device.platform)
        rule = policy.firmware.get(device.platform)
        version = rule.allowed[-1] if rule and rule.allowed else played.version
        if device.is_switch:
            state.os_version, state.model = version, played.model
        else:
            driver = min(played.platform.nic_drivers, default=None)
            for nic in device.nics:
                link = fabric.link_at(Endpoint(name, nic.netdev))
                port = state.interfaces[nic.netdev] = played.live_nic(state.interfaces[nic.netdev], link)
                port.firmware, port.driver = version, driver
                port.gids = gid_table(device, nic, policy.host.gid_index)
                reads, lb = played.platform.load_balancing.reads, policy.load_balancing
                if "reorder_tolerant" in reads and port.reorder_tolerant is None:
                    # What a NIC set up as the policy asks shows (off where nobody set it up).
                    port.reorder_tolerant = lb is not None and lb.nics_tolerate_reordering
                if "nic_planes" in reads and port.nic_planes is None:
                    port.nic_planes = 1 if lb is None else lb.nic_planes
        state.lldp = [
            LldpNeighbor(local.interface, remote.device, remote.interface)
            for local, _, remote in fabric.links_of(name)
        ]
    return states


# GID types as the kernel prints them (`gid_attrs/types/<n>`).
ROCE_V1, ROCE_V2 = "IB/RoCE v1", "RoCE v2"


def gid_table(device: Device, nic: Nic, index: int) -> dict[int, Gid]:
    """The GID table of a NIC with one IPv4 address, as the kernel fills it: link-local RoCE v1 and v2
    at 0 and 1, the IPv4 address's at 2 and 3; a RoCE v2 GID of a second address at the policy's
    index where that is not already RoCE v2."""
    h = zlib.crc32(f"{device.name}/{nic.netdev}".encode())
    link_local = f"fe80:0000:0000:0000:{h >> 16:04x}:{h & 0xFFFF:04x}:0000:{nic.rail:04x}"
    ipv4 = f"0000:0000:0000:0000:0000:ffff:0a{nic.rail:02x}:{h & 0xFFFF:04x}"
    table = {
        n: Gid(address, kind, nic.netdev)
        for n, (address, kind) in enumerate(
            [(link_local, ROCE_V1), (link_local, ROCE_V2), (ipv4, ROCE_V1), (ipv4, ROCE_V2)]
        )
    }
    if table.get(index, Gid("")).type != ROCE_V2:
        table[index] = Gid(
            f"0000:0000:0000:0000:0000:ffff:0b{nic.rail:02x}:{h & 0xFFFF:04x}", ROCE_V2, nic.netdev
        )
    return table


def cable_faults(fabric: Fabric, faults: dict[str, DeviceFaults]) -> dict[str, DeviceFaults]:
    """The faults with each fault of a cable (speed, down, flapping) also on the cable's other end."""
    speeds: dict[str, dict[str, int]] = defaultdict(dict)
    down: dict[str, list[str]] = defaultdict(list)
    flapping: dict[str, list[str]] = defaultdict(list)
    for name, fault in faults.items():
        for port, speed in fault.speed_gbps.items():
            if (peer := fabric.peer(Endpoint(name, port))) is not None:
                speeds[peer.device][peer.interface] = speed
        for ports, into in ((fault.link_down, down), (fault.flapping, flapping)):
            for port in ports:
                if (peer := fabric.peer(Endpoint(name, port))) is not None:
                    into[peer.device].append(peer.interface)
    merged = dict(faults)
    for name in speeds.keys() | down.keys() | flapping.keys():
        current = merged.get(name, DeviceFaults())
        merged[name] = current.model_copy(
            update={
                "speed_gbps": {**current.speed_gbps, **speeds[name]},
                "link_down": [*current.link_down, *down[name]],
                "flapping": [*current.flapping, *flapping[name]],
            }
        )
    return merged


def port_rates(faults: DeviceFaults | None) -> tuple[PortRates, dict[str, PortRates]]:
    """The counter rates of the device's ports under its faults: those of any port not named, and
    those of each port a fault names."""
    if faults is None:
        return HEALTHY, {}
    device = dataclasses.replace(HEALTHY, **NO_CNP) if faults.no_cnp else HEALTHY
    changes: dict[str, dict[str, float]] = {}
    for ports, change in (
        (faults.fec_errors, FEC_ERRORS),
        (faults.crc_errors, CRC_ERRORS),
        (faults.pause_storm, PAUSE_STORM),
        (faults.lossless_drops, LOSSLESS_DROPS),
        (faults.flapping, FLAPPING),
    ):
        for port in ports:
            changes.setdefault(port, {}).update(change)
    return device, {port: dataclasses.replace(device, **change) for port, change in changes.items()}


# The load-balancing faults and the setting each changes: a platform that does not show the setting
# could not show the fault either.
_LB_FAULTS = {
    "lb_mode": "lb_mode",
    "hash_fields_off": "hash_fields",
    "hash_seed": "hash_seed",
    "reorder_intolerant": "reorder_tolerant",
    "nic_planes": "nic_planes",
}


def _check_load_balancing(faults: DeviceFaults, device: Device) -> None:
    support = simulator(device.platform).platform.load_balancing
    for name, setting in _LB_FAULTS.items():
        if not getattr(faults, name):
            continue
        if setting not in support.reads:
            raise InputError(
                f"faults: devices.{device.name}.{name}",
                f"platform {device.platform} shows no {setting} (see docs/load-balancing.md)",
            )
        # A simulated switch prints the config netcfg renders: what it only reads it cannot play.
        if device.is_switch and setting not in support.renders:
            raise InputError(
                f"faults: devices.{device.name}.{name}",
                f"netcfg reads but does not render {setting} on {device.platform}, so the lab cannot "
                "play it (see docs/load-balancing.md)",
            )
    if faults.lb_mode and support.mode_scope == "device":
        raise InputError(
            f"faults: devices.{device.name}.lb_mode",
            f"platform {device.platform} runs one load-balancing mode for the whole switch, not per port",
        )


def _static_route(text: str) -> StaticRoute:
    prefix, via = text.split()
    return StaticRoute(prefix, None, via) if via[:1].isalpha() else StaticRoute(prefix, via)


# Faults only a switch can have: a switched segment, a port toward a device outside the plan, DSCP
# rewrite.
_SWITCH_ONLY = ("switched", "outside", "dscp_rewrite")


def apply_faults(state: DeviceState, faults: DeviceFaults, device: Device) -> DeviceState:
    """A copy of the state with the fault's setting changes applied."""
    _check_load_balancing(faults, device)
    for key in _SWITCH_ONLY:
        if getattr(faults, key) and not device.is_switch:
            raise InputError(
                f"faults: devices.{device.name}.{key}", f"expected a switch; {device.name} is a host"
            )
    if faults.dscp_rewrite and not simulator(device.platform).platform.reads_dscp_rewrite:
        raise InputError(
            f"faults: devices.{device.name}.dscp_rewrite",
            f"expected a platform whose DSCP rewrite netcfg reads, not {device.platform}",
        )
    if faults.outside and not state.interfaces:
        raise InputError(
            f"faults: devices.{device.name}.outside", "expected a switch with fabric ports to copy"
        )
    if faults.factory_qos:
        stock = simulator(device.platform).factory_qos(state, device)
        if stock is None:
            raise InputError(
                f"faults: devices.{device.name}.factory_qos",
                f"platform {device.platform} does not model its factory QoS",
            )
        state = stock
    state = dataclasses.replace(
        state,
        interfaces={k: dataclasses.replace(v, ecn=dict(v.ecn)) for k, v in state.interfaces.items()},
        dscp_map=dict(state.dscp_map),
        tc_pfc=dict(state.tc_pfc),
        lldp=list(state.lldp),
        static_routes=[*(state.static_routes or ()), *map(_static_route, faults.static_routes)] or None,
    )
    if faults.outside:
        # Set up as the fabric ports are: what an `interface range` over every port leaves behind.
        model = next(iter(state.interfaces.values()))
        for local, seen in faults.outside.items():
            if local in state.interfaces:
                raise InputError(
                    f"faults: devices.{device.name}.outside.{local}", "expected a port no planned link uses"
                )
            state.interfaces[local] = port_copy(model, local, description=seen, ecn=dict(model.ecn))
            peer, _, port = seen.partition(":")
            state.lldp.append(LldpNeighbor(local, peer, port))
    for tc, priority in faults.pfc_pause_priority.items():
        paused_by = state.tc_pfc.get(tc, tc)
        state.tc_pfc[tc] = priority
        for port in state.interfaces.values():
            if port.no_drop_priorities is not None and paused_by in port.no_drop_priorities:
                port.no_drop_priorities = port.no_drop_priorities - {paused_by} | {priority}
        if priority == tc:
            del state.tc_pfc[tc]
    for port in state.interfaces.values():
        if faults.pfc_priority is not None:
            port.no_drop_priorities = frozenset({faults.pfc_priority})
        if faults.ecn is False:
            port.ecn = {}
            port.ecn_np_priorities = frozenset() if port.ecn_np_priorities is not None else None
        if faults.trust is not None:
            port.trust = faults.trust
        if port.name in faults.mtu:
            port.mtu = faults.mtu[port.name]
        if faults.firmware is not None and port.firmware is not None:
            port.firmware = faults.firmware
        if faults.dscp_map and port.dscp_map is not None:
            port.dscp_map = {**port.dscp_map, **faults.dscp_map}
        if faults.dscp_unmapped and port.dscp_map is not None:
            port.dscp_map = {d: p for d, p in port.dscp_map.items() if d not in faults.dscp_unmapped}
        if port.name in faults.watchdog_off:
            port.watchdog = False
        if port.name in faults.dcbx:
            port.dcbx_mode, port.dcbx_willing = faults.dcbx[port.name].mode, faults.dcbx[port.name].willing
            if port.dcbx_agent is not None:
                port.dcbx_agent = "firmware"
        if port.name in faults.speed_gbps:
            port.speed_gbps = faults.speed_gbps[port.name]
        if port.name in faults.link_down:
            port.oper_up = False
        if port.name in faults.switched:
            port.switched = True
        if faults.dscp_rewrite:
            classes = {state.dscp_priority(d, port.name): new for d, new in faults.dscp_rewrite.items()}
            port.dscp_rewrite = {
                **(port.dscp_rewrite or {}),
                **{tc: d for tc, d in classes.items() if tc is not None},
            }
        if port.name in faults.pcie_width and port.pcie is not None:
            port.pcie = dataclasses.replace(port.pcie, width=faults.pcie_width[port.name])
        if port.name in faults.lb_mode:
            port.lb_mode = faults.lb_mode[port.name]
        if port.name in faults.reorder_intolerant:
            port.reorder_tolerant = False
        if port.name in faults.nic_planes:
            port.nic_planes = faults.nic_planes[port.name]
    if faults.hash_fields_off and state.hash_fields is not None:
        state.hash_fields = state.hash_fields - set(faults.hash_fields_off)
    if faults.hash_seed is not None:
        state.hash_seed = faults.hash_seed
    if faults.dscp_map:
        state.dscp_map.update(faults.dscp_map)
    for dscp in faults.dscp_unmapped:
        state.dscp_map.pop(dscp, None)
    if faults.os_version is not None:
        state.os_version = faults.os_version
    # A port whose link is down hears no neighbour; `lldp: {eth1: ""}` silences one that is up.
    silent = set(faults.link_down) | {local for local, seen in faults.lldp.items() if not seen}
    state.lldp = [n for n in state.lldp if n.local_interface not in silent]
    for local, seen in faults.lldp.items():
        if not seen:
            continue
        peer, _, port = seen.partition(":")
        state.lldp = [n for n in state.lldp if n.local_interface != local] + [LldpNeighbor(local, peer, port)]
    if faults.not_operational:
        state.not_operational = {**state.not_operational, **_not_operational(state, faults, device)}
    return state


# What each `not_operational` setting replaces with the platform's stock value: port fields, and
# whether the device-wide DSCP map goes with them.
_PORT_FIELDS = {
    "ecn": ("ecn",),
    "pfc": ("pfc_enabled", "no_drop_priorities"),
    "trust": ("trust",),
    "dscp_map": ("dscp_map",),
    "strict_queues": ("strict_queues",),
}


def _not_operational(state: DeviceState, faults: DeviceFaults, device: Device) -> dict[str, tuple[str, str]]:
    """What the device shows as applied but not running: its configuration is `state`, its hardware runs
    the platform's stock value of each named setting."""
    played = simulator(device.platform)
    stock = played.factory_qos(state, device)
    where = f"faults: devices.{device.name}.not_operational"
    if stock is None:
        raise InputError(where, f"platform {device.platform} does not model its stock QoS")
    names = [name for setting in faults.not_operational for name in _PORT_FIELDS[setting]]
    empty = InterfaceState(name="")
    ports = {
        port: dataclasses.replace(value, **{n: getattr(stock.interfaces.get(port, empty), n) for n in names})
        for port, value in state.interfaces.items()
    }
    dscp_map = stock.dscp_map if "dscp_map" in faults.not_operational else state.dscp_map
    running = dataclasses.replace(state, interfaces=ports, dscp_map=dict(dscp_map))
    gap = played.operational_gap(state, running)
    if not gap:
        raise InputError(
            where,
            f"platform {device.platform} shows no applied value apart from the operational one for "
            f"{', '.join(faults.not_operational)} (or its stock value is the applied one)",
        )
    return gap
