"""The vendor-neutral model: the fabric as planned, and what one device actually does.

`Fabric` is the plan (devices, interfaces, links, rails). `DeviceState` is what a device does,
whatever its vendor, whether it comes from rendered intent, a config file, a snapshot or a live
device. Checks read only these two plus the policy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from netcfg.access import Connection, Credentials
    from netcfg.waivers import Waivers


class Role(StrEnum):
    LEAF = "leaf"
    SPINE = "spine"
    SUPERSPINE = "superspine"
    HOST = "host"


SWITCH_ROLES = frozenset({Role.LEAF, Role.SPINE, Role.SUPERSPINE})
DSCP_VALUES = range(64)


@dataclass(frozen=True, slots=True)
class Endpoint:
    device: str
    interface: str

    def __str__(self) -> str:
        return f"{self.device}:{self.interface}"


@dataclass(frozen=True, slots=True)
class Link:
    """One cable. `a` is the lower tier (host NIC or leaf), `b` the upper tier."""

    a: Endpoint
    b: Endpoint
    speed_gbps: int
    cable_m: float


@dataclass(slots=True)
class Device:
    name: str
    role: Role
    platform: str
    su: int | None = None
    rail: int | None = None
    # Host NICs in rail order: index i (0-based) is the NIC of rail i + 1.
    nics: list[Nic] = field(default_factory=list)

    @property
    def is_switch(self) -> bool:
        return self.role in SWITCH_ROLES


@dataclass(frozen=True, slots=True)
class Nic:
    rail: int
    netdev: str
    rdma_device: str


AsnMode = str  # "shared" | "unique"


@dataclass(frozen=True, slots=True)
class BgpPlan:
    """How the fabric's eBGP ASNs are assigned per tier: what decides whether a down-up (valley) route
    can ever be accepted. "shared": one ASN for a tier's group (every spine of a fabric-scope tier or
    of one SU, every super-spine of one plane), so BGP's AS-path loop check refuses a route that
    bounces off a lower tier back into the same group; "unique": an ASN per switch, which accepts it."""

    spine_asn: AsnMode
    superspine_asn: AsnMode = "shared"

    def valley_allowed(self, bounce_tier: Role) -> bool:
        """Whether a route may turn down-up at a device of this tier (between two of its upper peers)."""
        if bounce_tier == Role.LEAF:
            return self.spine_asn == "unique"
        if bounce_tier == Role.SPINE:
            return self.superspine_asn == "unique"
        return False


@dataclass(frozen=True, slots=True)
class StaticRoute:
    """One static route of a device's config: where it sends a prefix, and the line that says so."""

    prefix: str
    next_hop: str | None
    interface: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class NextHop:
    """Where an installed route sends a packet: the neighbour's address, the port it leaves by, or
    both, as the device prints them (an unnumbered BGP session's next hop is a link-local address)."""

    address: str | None = None
    interface: str | None = None


@dataclass(frozen=True, slots=True)
class InstalledRoute:
    """One route of a device's forwarding table in the default VRF, vendor-neutral: its prefix, the
    protocol that installed it ("connected", "local", "static", "bgp", or the device's own name of
    another) and every next hop it forwards by (ECMP: more than one)."""

    prefix: str
    protocol: str
    next_hops: tuple[NextHop, ...] = ()

    @property
    def attached(self) -> bool:
        """Whether the device owns the prefix (a subnet of one of its ports, or its own address)."""
        return self.protocol in ("connected", "local")


@dataclass(slots=True)
class Fabric:
    """Every device and link of one fabric, expanded from the inventory."""

    name: str
    rails: int
    devices: dict[str, Device]
    links: list[Link]
    policy_ref: str
    source: str = ""
    # How to reach the devices, as the inventory says (netcfg.access.Credentials / Connection).
    credentials: Credentials | None = None
    connection: Connection | None = None
    # Explicit form only: the cabling CSV row (`file:line`) of each cabled port, and rows that repeat
    # an earlier cable (the link, its row, the earlier row). Plan rules name these rows.
    cabling_rows: dict[Endpoint, str] = field(default_factory=dict, repr=False)
    repeated_links: list[tuple[Link, str, str]] = field(default_factory=list, repr=False)
    # Exemptions every check of this fabric applies (netcfg.waivers; the CLI loads them).
    waivers: Waivers | None = field(default=None, repr=False)
    # The eBGP ASN plan (topology.bgp); None: the routing model is unknown, so no deadlock verdict.
    bgp: BgpPlan | None = None
    # endpoint -> (link, the other end); built once because checks look peers up per interface.
    _peers: dict[Endpoint, tuple[Link, Endpoint]] = field(default_factory=dict, repr=False)
    _by_device: dict[str, list[tuple[Endpoint, Link, Endpoint]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for link in self.links:
            self._peers[link.a] = (link, link.b)
            self._peers[link.b] = (link, link.a)
            self._by_device.setdefault(link.a.device, []).append((link.a, link, link.b))
            self._by_device.setdefault(link.b.device, []).append((link.b, link, link.a))

    def peer(self, endpoint: Endpoint) -> Endpoint | None:
        found = self._peers.get(endpoint)
        return found[1] if found else None

    def link_at(self, endpoint: Endpoint) -> Link | None:
        found = self._peers.get(endpoint)
        return found[0] if found else None

    def links_of(self, device: str) -> list[tuple[Endpoint, Link, Endpoint]]:
        """(local endpoint, link, remote endpoint) for each cabled interface of a device."""
        return self._by_device.get(device, [])

    def by_role(self, role: Role) -> list[Device]:
        return [d for d in self.devices.values() if d.role == role]


def port_sort_key(name: str) -> tuple[str, tuple[int, ...], str]:
    """Sort Ethernet2 before Ethernet10, as devices list their ports."""
    head = name.rstrip("0123456789/")
    nums = tuple(int(p) for p in name[len(head) :].split("/") if p.isdigit())
    return (head, nums, name)


def port_ranges(names: list[str]) -> str:
    """['Ethernet1', 'Ethernet2', 'Ethernet3', 'Ethernet31'] -> 'Ethernet1-3,31'; slashed names range
    on their last number, as NX-OS and Junos write them (Ethernet1/1-4, et-0/0/1-8)."""
    groups: dict[str, list[int]] = {}
    others = []
    for name in sorted(set(names), key=port_sort_key):
        head = name.rstrip("0123456789")
        tail = name[len(head) :]
        if tail:
            groups.setdefault(head, []).append(int(tail))
        else:
            others.append(name)
    parts = []
    for head, nums in groups.items():
        runs: list[list[int]] = []
        for n in nums:
            if runs and n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        parts.append(head + ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs))
    return ", ".join(parts + others)


_RANGED_PORT = re.compile(r"(.*?)(\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)")
# More ports than any switch has under one name prefix: such a "range" is a device's odd port name.
_MAX_RANGED_PORTS = 4096


def expand_ports(text: str) -> list[str]:
    """The port names a `port_ranges` text stands for: 'Ethernet1-3,31' -> Ethernet1, Ethernet2,
    Ethernet3, Ethernet31 (reports name a finding's ports that way and must find each port again)."""
    names = []
    for part in text.split(", "):
        match = _RANGED_PORT.fullmatch(part)
        spans = _spans(match.group(2)) if match else None
        if match is None or spans is None:
            names.append(part)
            continue
        names += [f"{match.group(1)}{n}" for first, last in spans for n in range(first, last + 1)]
    return names


def _spans(runs: str) -> list[tuple[int, int]] | None:
    """'1-3,31' -> [(1, 3), (31, 31)]; None when it cannot be ranges port_ranges wrote."""
    spans = []
    for run in runs.split(","):
        first, _, last = run.partition("-")
        spans.append((int(first), int(last or first)))
    if any(last < first for first, last in spans):
        return None
    if sum(last - first + 1 for first, last in spans) > _MAX_RANGED_PORTS:
        return None
    return spans


# --- what a device does ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EcnSetting:
    """ECN marking on one queue, thresholds normalised to bytes."""

    min_bytes: int
    max_bytes: int
    probability: int


@dataclass(frozen=True, slots=True)
class Watchdog:
    enabled: bool
    action: str | None = None
    detection_ms: int | None = None
    restoration_ms: int | None = None
    polling_ms: int | None = None

    def differing(self, other: Watchdog | None) -> tuple[str, ...]:
        """The `watchdog.<field>` location keys of the action and timers that differ from `other`'s,
        where a finding about the difference points (none when either is off or unknown)."""
        if other is None or not (self.enabled and other.enabled):
            return ()
        names = ("action", "detection_ms", "restoration_ms", "polling_ms")
        return tuple(f"watchdog.{n}" for n in names if getattr(self, n) != getattr(other, n))


@dataclass(frozen=True, slots=True)
class PgBuffer:
    """The ingress buffer of one priority group on one port, in bytes (None: the source does not say).

    `size` is what the port reserves for the group; `xoff` the headroom above the pause threshold
    that must absorb what still arrives after PFC fires (compared with netcfg.headroom).
    """

    size: int | None = None
    xoff: int | None = None
    xon: int | None = None


@dataclass(frozen=True, slots=True)
class QosChain:
    """Where packets of one DSCP go on a device: the class they get, the egress queue that carries
    that class, the ingress priority group that buffers it and the PFC priority that pauses it."""

    dscp: int
    traffic_class: int
    queue: int
    priority_group: int
    pfc_priority: int


@dataclass(frozen=True, slots=True)
class PcieLink:
    """The PCIe link a host NIC trained at, against what the slot and NIC can do (sysfs
    `current_link_width`/`max_link_width`, `current_link_speed`/`max_link_speed` in GT/s)."""

    width: int | None = None
    max_width: int | None = None
    speed_gts: float | None = None
    max_speed_gts: float | None = None


@dataclass(slots=True)
class PortCounters:
    """The counters of one port, as read at one time (cumulative, since the device last cleared them).

    None, or a priority/queue missing from a map, means the platform did not print it: rules judge
    only what both readings show. Maps are keyed by PFC priority (`pause_*`) or egress queue.
    """

    link_downs: int | None = None
    fec_corrected: int | None = None
    fec_uncorrected: int | None = None
    crc_errors: int | None = None
    symbol_errors: int | None = None
    pause_rx: dict[int, int] = field(default_factory=dict)
    pause_tx: dict[int, int] = field(default_factory=dict)
    ecn_marked: dict[int, int] = field(default_factory=dict)
    queue_drops: dict[int, int] = field(default_factory=dict)
    # Ingress discards for want of buffer (lossless traffic; Cumulus `no-buffer-discard`).
    no_buffer_discards: int | None = None
    # PFC watchdog: storms detected per queue, and the queues it holds stormed right now.
    watchdog_storms: dict[int, int] = field(default_factory=dict)
    stormed: frozenset[int] = frozenset()
    # Host NIC RoCE counters (ConnectX `hw_counters`, or the NIC family's names for the same).
    cnp_sent: int | None = None
    cnp_handled: int | None = None
    ecn_marked_roce: int | None = None
    out_of_buffer: int | None = None
    retransmits: int | None = None


@dataclass(frozen=True, slots=True)
class Gid:
    """One entry of a host NIC's RDMA GID table (sysfs `ports/1/gids/<n>`, `gid_attrs/types/<n>`,
    `gid_attrs/ndevs/<n>`); None where the source does not say."""

    address: str
    # "RoCE v2" or "IB/RoCE v1", as the kernel prints it.
    type: str | None = None
    netdev: str | None = None


@dataclass(frozen=True, slots=True)
class LldpNeighbor:
    local_interface: str
    system_name: str
    port: str


@dataclass(slots=True)
class InterfaceState:
    """QoS and link settings of one port (switch port or host NIC).

    None means the source did not say (not configured, or not readable), which checks report as
    unknown rather than pass.
    """

    name: str
    # The settings of this port the source did not show (field names), where an empty or default
    # value would otherwise read as "off": a queue table that binds an undefined profile, a port a
    # config never mentions. Rules do not judge them; `parse.incomplete` names them once.
    unread: frozenset[str] = frozenset()
    description: str | None = None
    mtu: int | None = None
    # What the port classifies on: "dscp", "pcp" (802.1p), "pcp,dscp" (both; see `ip_classification`),
    # "port" (a port default), or the platform's own word.
    trust: str | None = None
    pfc_enabled: bool | None = None
    no_drop_priorities: frozenset[int] | None = None
    ecn: dict[int, EcnSetting] = field(default_factory=dict)
    strict_queues: frozenset[int] = frozenset()
    watchdog: bool | None = None
    # DSCP -> priority (switch: traffic class) as applied on this port; None = device-wide map.
    dscp_map: dict[int, int] | None = None
    # Host NIC (RoCE) settings.
    roce_mode: str | None = None
    roce_tos: int | None = None
    ecn_np_priorities: frozenset[int] | None = None
    ecn_rp_priorities: frozenset[int] | None = None
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    dcqcn: dict[str, int] = field(default_factory=dict)
    # Cable length the port sizes its PFC headroom for (host: mlnx_qos --cable_len; switch: the
    # platform's cable-length setting), metres.
    cable_m: int | None = None
    # Ingress buffers by priority group, where the platform exposes them.
    pg_buffers: dict[int, PgBuffer] = field(default_factory=dict)
    firmware: str | None = None
    # NIC board identity from the firmware's vendor (ConnectX `ethtool -i`: `28.39.2048 (MT_0000000838)`).
    psid: str | None = None
    driver: str | None = None
    # Link state as the port reports it now ("link" facet): up or down, and the speed it runs at.
    oper_up: bool | None = None
    speed_gbps: int | None = None
    # Host NICs: the PCIe link the NIC trained at.
    pcie: PcieLink | None = None
    # Where a platform caps frames per traffic class rather than per port (NX-OS 3000/5000 network-qos
    # class MTU on switched ports): traffic class -> its MTU, None where the class names none. Empty:
    # the port's `mtu` is the only cap.
    class_mtu: dict[int, int | None] = field(default_factory=dict)
    # Host NICs: priority -> the receive buffer that holds it (mlnx_qos `buffer` row); the buffers'
    # sizes are `pg_buffers` by buffer index. None: the NIC's tools do not show the map.
    priority_buffers: dict[int, int] | None = None
    # DCBX as the port runs it, vendor-neutral: the dialect ("ieee" or "cee") and whether the port is
    # willing to take its peer's settings. None: the source does not say.
    dcbx_mode: str | None = None
    dcbx_willing: bool | None = None
    # Host NICs: who runs the NIC's DCBX, "firmware" or "os" (mlnx_qos `DCBX mode: OS controlled`).
    dcbx_agent: str | None = None
    # Host NICs: the RDMA GID table by index. None: not read.
    gids: dict[int, Gid] | None = None
    # Queue -> the ECN profile it binds that asks for marking yet enables it for no packet RoCE
    # sends (`DeviceState.ecn_not_marking` says why); such a queue reads as marking nothing.
    ecn_not_marking: dict[int, str] = field(default_factory=dict)
    # Switch ports: how the port spreads the flows of an ECMP group it belongs to, vendor-neutral:
    # "hash" (one path per flow), "flowlet" (dynamic load balancing of flowlets) or "per_packet"
    # (adaptive routing of every packet). None: the source does not say.
    lb_mode: str | None = None
    # Host NICs: whether the NIC places RoCE packets that arrive out of order (needed under per-packet
    # adaptive routing). None: the source does not say.
    reorder_tolerant: bool | None = None
    # Host NICs: how many planes the NIC's firmware splits its port over (NVIDIA Spectrum-X hardware
    # plane load balancing: ConnectX `NUM_OF_PLANES_P1`, 0 there meaning one plane). None: the source
    # does not say (a NIC whose firmware has no such setting, a tool that was not run).
    nic_planes: int | None = None
    # Switch ports: whether the port forwards as a member of a switched (layer-2) segment, a VLAN or a
    # bridge, rather than routing. None: the source does not say (a channel member, a platform whose
    # default depends on a setting netcfg did not read).
    switched: bool | None = None
    # Switch ports: the DSCP the port writes into packets of a traffic class leaving through it (DSCP
    # rewrite, re-marking), by class; a class it holds no rule for leaves with the DSCP it came with,
    # and a class re-marked to a DSCP the source does not show maps to None. None: the source does
    # not say (a platform netcfg does not read rewrites of).
    dscp_rewrite: dict[int, int | None] | None = None

    @property
    def pauses(self) -> bool:
        """Whether the port pauses a priority: PFC not off, and a no-drop priority."""
        return self.pfc_enabled is not False and bool(self.no_drop_priorities)


def ip_classification(trust: str | None) -> str | None:
    """What a port of this trust mode classifies an IP packet (RoCEv2) by. Trusting both takes the
    DSCP of an IP packet and the 802.1p priority only of other tagged frames (NVIDIA Spectrum's
    classification rules, as Cumulus and Onyx document them): for routed RoCE that is DSCP trust."""
    return "dscp" if trust == "pcp,dscp" else trust


def switch_rewrite(ports: Iterable[InterfaceState]) -> dict[int, int] | None:
    """The DSCP rewrite of the first port that re-marks anything, as a platform that re-marks for the
    whole switch writes it: class -> DSCP for the classes it names a DSCP for (None: no port
    re-marks)."""
    found = next((p.dscp_rewrite for p in ports if p.dscp_rewrite), None)
    return None if found is None else {tc: d for tc, d in sorted(found.items()) if d is not None}


def _slot_copier(cls: type) -> Callable[[Any], Any]:
    """A shallow copy of an instance of the slotted dataclass `cls`, assigning every slot in turn.

    Parsers give each of a fabric's hundreds of thousands of ports its own copy of a shared parsed
    shape; `dataclasses.replace` runs `__init__` with every field by keyword (3.7 us a port), this
    0.3 us: a tenth of a second per 30,000 ports.
    """
    body = "".join(f"    new.{f.name} = old.{f.name}\n" for f in fields(cls))
    namespace: dict[str, Any] = {"new_instance": object.__new__, "cls": cls}
    exec(f"def copy(old):\n    new = new_instance(cls)\n{body}    return new\n", namespace)
    return namespace["copy"]


_copy_port = _slot_copier(InterfaceState)


def port_copy(port: InterfaceState, name: str, **changes: Any) -> InterfaceState:
    """`port` as port `name`, with `changes` (as `dataclasses.replace`, without its cost)."""
    new = _copy_port(port)
    new.name = name
    for key, value in changes.items():
        setattr(new, key, value)
    return new


def port_described(port: InterfaceState, description: str | None) -> InterfaceState:
    """A copy of `port` with this description: `port_copy` without its keyword handling, for the
    hundreds of thousands of ports that copies of a shared shape get."""
    new = _copy_port(port)
    new.description = description
    return new


@dataclass(slots=True)
class DeviceState:
    """What one device does, in vendor-neutral terms.

    `facets` lists what the source covered ("qos", "version", "lldp"): a rule whose facet is
    missing does not apply (a config file has no LLDP), while a covered facet with a None value is
    reported as unknown.
    """

    name: str
    platform: str
    facets: frozenset[str] = frozenset()
    # Device-wide settings the source did not show (field names: "watchdog", "dscp_map", "lldp"):
    # not judged, and named once by `parse.incomplete` (see InterfaceState.unread).
    unread: frozenset[str] = frozenset()
    os_version: str | None = None
    model: str | None = None
    dscp_map: dict[int, int] = field(default_factory=dict)
    # Traffic class -> egress queue where it is not the identity (EOS `qos map traffic-class N to
    # tx-queue M`): ECN and strict priority must be on the queue that carries the class.
    tc_queue: dict[int, int] = field(default_factory=dict)
    # Traffic class -> ingress priority group, and -> the PFC priority that pauses it, where not the
    # identity (SONiC TC_TO_PRIORITY_GROUP_MAP, NX-OS `pause pfc-cos`).
    tc_pg: dict[int, int] = field(default_factory=dict)
    tc_pfc: dict[int, int] = field(default_factory=dict)
    # Names of the QoS maps and profiles in use, by kind ("dscp_to_tc_map" -> "AZURE"): lets a
    # platform's own rules name a known stock trap.
    qos_names: dict[str, str] = field(default_factory=dict)
    # Settings the device shows as applied that the hardware does not run: setting -> (applied,
    # operational), as the platform prints them (Cumulus `nv show qos roce` has both columns).
    not_operational: dict[str, tuple[str, str]] = field(default_factory=dict)
    interfaces: dict[str, InterfaceState] = field(default_factory=dict)
    watchdog: Watchdog | None = None
    lldp: list[LldpNeighbor] = field(default_factory=list)
    # Counters per port ("counters" facet), compared with an earlier reading of the same device.
    counters: dict[str, PortCounters] = field(default_factory=dict)
    # When the counters were read (seconds since the epoch): rates are deltas over the time between
    # two readings. Set by whoever knows the time (collection, the snapshot's metadata, the lab).
    read_at: float | None = field(default=None, compare=False)
    # Output that could not be read: command -> reason. Reported, never silently passed.
    unparsed: dict[str, str] = field(default_factory=dict)
    # Why the device could not be collected at all: (unreachable|auth|timeout, detail).
    collection_error: tuple[str, str] | None = None
    # The file the state was read from, and where its settings stand in it (1-based lines), keyed
    # "<interface>.<field>" (a setting of a port), "<interface>" (the port's block), "<field>" (a
    # device-wide setting) and "" (where device-wide settings belong when missing). See `line_of`.
    # Not part of what the device does: two states equal in settings are equal wherever they came from.
    source_file: str | None = field(default=None, compare=False)
    locations: dict[str, int] = field(default_factory=dict, compare=False)
    # ECN profiles the ports bind that name ECN marking but enable it for no packet RoCE sends:
    # profile -> what it says, as the platform prints it (SONiC: a WRED_PROFILE `ecn ecn_all` with
    # `wred_green_enable false`). Where the profile stands: `locations["ecn_not_marking <name>"]`.
    ecn_not_marking: dict[str, str] = field(default_factory=dict)
    # The ECMP hash: the vendor-neutral fields it covers (netcfg.policy.HashField, or the platform's
    # own name of a field netcfg has no name for) and its seed. None: the source does not say.
    hash_fields: frozenset[str] | None = None
    hash_seed: int | None = None
    # Static routes of the config (None: the source does not show them, so they are unknown).
    static_routes: list[StaticRoute] | None = None
    # Interface addresses (interface -> "address/len"), to resolve a static route's next hop to a port.
    addresses: dict[str, str] = field(default_factory=dict)
    # The default VRF's IPv4 and IPv6 route tables as the device runs them (collected with
    # `--routes`). None: not collected or not readable, so the forwarding that family's table implies
    # is unknown (never "no routes"); an empty list is a table the device printed without a route.
    routes: list[InstalledRoute] | None = None
    routes6: list[InstalledRoute] | None = None

    def port_unread(self, interface: str, fields: tuple[str, ...]) -> bool:
        """Whether any of these settings of a port (or the device-wide setting of the same name) went
        unread: a port the source does not show at all has nothing read."""
        port = self.interfaces.get(interface)
        if port is None:
            return bool(fields)
        return not port.unread.isdisjoint(fields) or not self.unread.isdisjoint(fields)

    def interface(self, name: str) -> InterfaceState:
        if name not in self.interfaces:
            self.interfaces[name] = InterfaceState(name=name)
        return self.interfaces[name]

    def queue_of(self, traffic_class: int) -> int:
        """The egress queue that carries a traffic class."""
        return self.tc_queue.get(traffic_class, traffic_class)

    def chain(self, dscp: int, interface: str | None = None) -> QosChain | None:
        """The QoS chain packets of this DSCP follow on a port (None: the DSCP's class is unknown)."""
        tc = self.dscp_priority(dscp, interface)
        if tc is None:
            return None
        return QosChain(dscp, tc, self.queue_of(tc), self.tc_pg.get(tc, tc), self.tc_pfc.get(tc, tc))

    def line_of(self, interface: str | None, fields: tuple[str, ...]) -> int | None:
        """Where a finding about these settings points: the setting's line, else the port's block,
        else the device-wide setting, else where device-wide settings belong; None when unknown."""
        loc = self.locations
        if not loc:
            return None
        if interface is not None:
            for f in fields:
                if f"{interface}.{f}" in loc:
                    return loc[f"{interface}.{f}"]
            if interface in loc:
                return loc[interface]
        for f in fields:
            if f in loc:
                return loc[f]
        return loc.get("")

    def pfc_priority_of(self, dscp: int, interface: str | None = None) -> int | None:
        """The PFC priority that pauses packets of this DSCP: `chain(...).pfc_priority`, without
        building the chain (the DSCP rule asks it for every NIC of the fabric)."""
        tc = self.dscp_priority(dscp, interface)
        return None if tc is None else self.tc_pfc.get(tc, tc)

    def dscp_priority(self, dscp: int, interface: str | None = None) -> int | None:
        """Priority (traffic class) that packets with this DSCP get on the given port."""
        if interface is not None:
            port = self.interfaces.get(interface)
            if port is not None and port.dscp_map is not None:
                return port.dscp_map.get(dscp)
        return self.dscp_map.get(dscp)


_copy_state = _slot_copier(DeviceState)


def state_copy(state: DeviceState, name: str) -> DeviceState:
    """`state` as device `name`: its own device-wide maps and lists, the same port objects (give it
    its own) and the same `locations`, which nothing writes to once a state is parsed."""
    new = _copy_state(state)
    new.name = name
    new.dscp_map, new.tc_queue, new.tc_pg = state.dscp_map.copy(), state.tc_queue.copy(), state.tc_pg.copy()
    new.tc_pfc, new.qos_names = state.tc_pfc.copy(), state.qos_names.copy()
    new.not_operational, new.interfaces = state.not_operational.copy(), state.interfaces.copy()
    new.lldp, new.counters, new.unparsed = state.lldp.copy(), state.counters.copy(), state.unparsed.copy()
    new.ecn_not_marking = state.ecn_not_marking.copy()
    return new
