"""Fabric inventory: a compact rail-optimised description or explicit devices plus a cabling CSV.

Both forms expand into the same `Fabric`. Every name and interface is checked against a strict
pattern before it can reach a template (see `netcfg.naming`), so inventory data can never inject a
CLI line. A compact description is refused, before anything is built, when it would expand beyond
MAX_DEVICES devices or MAX_LINKS links.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import AfterValidator, Field, ValidationError, model_validator

from netcfg.access import Connection, Credentials, FilePath, Strict
from netcfg.cabling import MAX_CABLE_M, MAX_SPEED_GBPS, MIN_SPEED_GBPS, CablingDefaults, read_cabling
from netcfg.errors import InputError
from netcfg.gcpause import paused_gc
from netcfg.loader import describe_validation_error, line_of, read_yaml
from netcfg.model import SWITCH_ROLES, BgpPlan, Device, Endpoint, Fabric, Link, Nic, Role
from netcfg.naming import (
    format_name,
    pattern_of,
    placeholders_of,
    safe_device_name,
    safe_interface,
    safe_netdev,
)
from netcfg.platforms import get_platform, platform_names

# Ten times the 32,768-GPU fabric `netcfg inventory generate` writes by default (6,400 devices,
# 98,304 links) is about 64,000 devices and 1,000,000 links; these leave room beyond that while
# keeping a mistyped count from exhausting memory.
MAX_DEVICES = 1_000_000
MAX_LINKS = 4_000_000
# Per-field bounds: far beyond any fabric, small enough that products of them stay computable.
MAX_COUNT = 100_000
MAX_PORT = 100_000
MAX_LINKS_PER_LEAF = 64

DeviceName = Annotated[str, AfterValidator(safe_device_name)]
NetdevName = Annotated[str, AfterValidator(safe_netdev)]
Speed = Annotated[int, Field(ge=MIN_SPEED_GBPS, le=MAX_SPEED_GBPS, description="Gb/s")]
CableLength = Annotated[float, Field(gt=0, le=MAX_CABLE_M, description="metres")]
Count = Annotated[int, Field(ge=1, le=MAX_COUNT)]
# A path in an inventory, relative to it (PATH_MAX is 4,096 on Linux).
PortNumber = Annotated[int, Field(ge=0, le=MAX_PORT)]


ServerPattern = Annotated[str, AfterValidator(pattern_of(safe_device_name, "su", "k", "server"))]
LeafPattern = Annotated[str, AfterValidator(pattern_of(safe_device_name, "su", "rail"))]
SpinePattern = Annotated[str, AfterValidator(pattern_of(safe_device_name, "su", "spine"))]
SuperspinePattern = Annotated[str, AfterValidator(pattern_of(safe_device_name, "plane", "superspine"))]
NicPattern = Annotated[str, AfterValidator(pattern_of(safe_netdev, "rail", "nic0"))]
HostPortPattern = Annotated[str, AfterValidator(pattern_of(safe_interface, "port", "k"))]
PortPattern = Annotated[str, AfterValidator(pattern_of(safe_interface, "port"))]


class Names(Strict):
    """Naming patterns: plain {placeholder} or zero-padded {placeholder:03d}. Placeholders: su, rail,
    k (server in SU), server (global), spine, plane, superspine, nic0 (rail - 1)."""

    server: ServerPattern = Field("gpu{server:02d}", description="GPU server name, e.g. gpu{server:02d}.")
    leaf: LeafPattern = Field("leaf-su{su}-r{rail}", description="Leaf name: one leaf per rail per SU.")
    spine: SpinePattern = Field("spine{spine}", description="{su} only with spine.scope su")
    superspine: SuperspinePattern = Field(
        "superspine-p{plane}-{superspine}", description="Super-spine name (three-tier fabrics)."
    )
    nic_netdev: NicPattern = Field("eth{nic0}", description="Linux netdev of the NIC of each rail.")
    rdma_device: NicPattern = Field("mlx5_{nic0}", description="RDMA device of the NIC of each rail.")


class HostLinks(Strict):
    """Server NIC to leaf cables."""

    speed_gbps: Speed = Field(400, description="Link speed, Gb/s.")
    cable_m: CableLength = Field(3, description="Cable length, metres (sizes PFC headroom).")
    leaf_port: HostPortPattern = Field("Ethernet{port}", description="port = leaf_first_port + k - 1")
    leaf_first_port: PortNumber = Field(1, description="Leaf port of the first server of an SU.")


class SpineTier(Strict):
    """Leaf to spine cables."""

    scope: Literal["fabric", "su"] = Field(
        "fabric", description="fabric: every leaf to the same spines; su: each SU has its own spines"
    )
    count: Count = Field(description="Spines per scope.")
    links_per_leaf: int = Field(
        1, ge=1, le=MAX_LINKS_PER_LEAF, description="Parallel links between one leaf and one spine."
    )
    speed_gbps: Speed = Field(400, description="Link speed, Gb/s.")
    cable_m: CableLength = Field(30, description="Cable length, metres (sizes PFC headroom).")
    leaf_port: PortPattern = Field("Ethernet{port}", description="Leaf uplink port name pattern.")
    leaf_first_port: PortNumber = Field(31, description="First leaf uplink port number.")
    spine_port: PortPattern = Field("Ethernet{port}", description="Spine downlink port name pattern.")
    spine_first_port: PortNumber = Field(1, description="First spine downlink port number.")


class SuperspineTier(Strict):
    """Spine to super-spine cables (three-tier fabrics)."""

    per_plane: Count = Field(description="Super-spines per plane; plane p holds spine p of every SU.")
    speed_gbps: Speed = Field(400, description="Link speed, Gb/s.")
    cable_m: CableLength = Field(100, description="Cable length, metres (sizes PFC headroom).")
    spine_port: PortPattern = Field("Ethernet{port}", description="Spine uplink port name pattern.")
    spine_first_port: PortNumber = Field(33, description="First spine uplink port number.")
    superspine_port: PortPattern = Field(
        "Ethernet{port}", description="Super-spine downlink port name pattern."
    )
    superspine_first_port: PortNumber = Field(1, description="First super-spine downlink port number.")


class BgpAsnPlan(Strict):
    """The eBGP ASN plan by tier (RFC 7938): whether BGP's AS-path loop check can refuse a route that
    turns down and up again. Without it netcfg gives no deadlock verdict (the routing is unknown)."""

    spine_asn: Literal["shared", "unique"] = Field(
        description="shared: one ASN for the spines of the fabric (spine.scope fabric) or of each SU, so "
        "no route can bounce off a leaf between two spines; unique: an ASN per spine, which lets such "
        "valley routes in after link failures."
    )
    superspine_asn: Literal["shared", "unique"] = Field(
        "shared", description="shared: one ASN for the super-spines of each plane; unique: one each."
    )


class Topology(Strict):
    """A rail-optimised fabric by counts, naming patterns and cabling rules (the compact form)."""

    scalable_units: Count = Field(description="Scalable units (SUs): groups of servers and their leaves.")
    servers_per_su: Count = Field(description="GPU servers per SU.")
    rails: int = Field(ge=1, le=64, description="Rails: NICs per server, and leaves per SU.")
    names: Names = Field(Names(), description="Naming patterns of devices and NICs.")
    host_links: HostLinks = Field(HostLinks(), description="Server NIC to leaf cables: speed, length, ports.")
    spine: SpineTier = Field(description="The spine tier and its cables.")
    superspine: SuperspineTier | None = Field(None, description="A super-spine tier (needs spine.scope su).")
    bgp: BgpAsnPlan | None = Field(
        None, description="The eBGP ASN plan by tier; absent: the routing is unknown (no deadlock verdict)."
    )

    @model_validator(mode="after")
    def _tiers(self) -> Topology:
        if self.superspine is not None and self.spine.scope != "su":
            raise ValueError("a superspine tier needs spine.scope 'su' (per-SU spines to aggregate)")
        if self.spine.scope == "fabric" and "su" in placeholders_of(self.names.spine):
            raise ValueError(
                f"names.spine {self.names.spine!r} uses {{su}}, but spine.scope is 'fabric' (spines "
                "belong to no SU): expected spine.scope 'su' or a pattern without {su}"
            )
        devices, links = self.size()
        if devices > MAX_DEVICES or links > MAX_LINKS:
            raise ValueError(
                f"expands to {devices:,} devices and {links:,} links; expected at most {MAX_DEVICES:,} "
                f"devices and {MAX_LINKS:,} links (scalable_units x servers_per_su x rails, spine.count, "
                "superspine.per_plane)"
            )
        return self

    def size(self) -> tuple[int, int]:
        """(devices, links) the description expands to, computed without expanding it."""
        sus, servers, rails, st = self.scalable_units, self.servers_per_su, self.rails, self.spine
        spines = st.count * (sus if st.scope == "su" else 1)
        leaves = sus * rails
        devices = spines + leaves + sus * servers
        links = sus * servers * rails + leaves * st.count * st.links_per_leaf
        if self.superspine is not None:
            devices += st.count * self.superspine.per_plane
            links += st.count * self.superspine.per_plane * sus
        return devices, links


class NicSpec(Strict):
    """One NIC of a server (explicit form)."""

    rail: int = Field(ge=1, le=64, description="Rail of a leaf.")
    netdev: NetdevName = Field(description="Linux netdev, e.g. eth0.")
    rdma_device: NetdevName = Field(description="RDMA device, e.g. mlx5_0.")


class DeviceSpec(Strict):
    """One device (explicit form)."""

    name: DeviceName = Field(description="Device name, as its config file and snapshot folder are named.")
    role: Role = Field(strict=False, description="leaf, spine, superspine or host")
    platform: str | None = Field(None, description="Platform; default from `platforms` by role.")
    su: int | None = Field(None, ge=1, le=MAX_COUNT, description="Scalable unit the device belongs to.")
    rail: int | None = Field(None, ge=1, le=64, description="Rail of a leaf.")
    nics: list[NicSpec] = Field(default_factory=list, description="NICs of a host, one per rail.")

    @model_validator(mode="after")
    def _nics(self) -> DeviceSpec:
        if self.nics and self.role in SWITCH_ROLES:
            raise ValueError(f"a {self.role.value} has no nics: expected nics on hosts only")
        for attr in ("netdev", "rdma_device"):
            names = [getattr(n, attr) for n in self.nics]
            repeated = next((n for n in names if names.count(n) > 1), None)
            if repeated is not None:
                raise ValueError(f"two NICs have {attr} {repeated!r}: expected one NIC per {attr}")
        return self


def _known_platform(value: str) -> str:
    if value not in platform_names():
        raise ValueError(f"unknown platform {value!r}: expected one of {', '.join(platform_names())}")
    return value


KnownPlatform = Annotated[str, AfterValidator(_known_platform)]


class PlatformOverride(Strict):
    """Devices that run another platform than their kind's default: every condition given must hold.
    The platform's kind (switch or host) also limits it to devices of that kind."""

    platform: KnownPlatform = Field(description="The platform of the matching devices.")
    role: Role | None = Field(None, strict=False, description="Only devices of this role.")
    su: int | None = Field(None, ge=1, le=MAX_COUNT, description="Only devices of this scalable unit.")
    rail: int | None = Field(None, ge=1, le=64, description="Only leaves of this rail.")
    devices: str | None = Field(
        None, max_length=64, description="Only devices whose name matches this glob (e.g. leaf-su1-*)."
    )

    @model_validator(mode="after")
    def _fits(self) -> PlatformOverride:
        kind = get_platform(self.platform).kind
        if self.role is not None and kind != ("host" if self.role == Role.HOST else "switch"):
            raise ValueError(
                f"{self.platform!r} is a {kind} platform; a {self.role.value} needs another kind"
            )
        if self.role is None and self.su is None and self.rail is None and self.devices is None:
            raise ValueError("give at least one of role, su, rail, devices (else set the default instead)")
        return self

    def matches(self, device: Device) -> bool:
        kind = "host" if device.role == Role.HOST else "switch"
        return (
            get_platform(self.platform).kind == kind
            and self.role in (None, device.role)
            and self.su in (None, device.su)
            and self.rail in (None, device.rail)
            and (self.devices is None or fnmatch.fnmatchcase(device.name, self.devices))
        )


class Platforms(Strict):
    """Platform of each kind of device, with overrides for mixed fabrics (the first match wins)."""

    switch: KnownPlatform = Field("eos", description="Platform of leaves, spines and super-spines.")
    host: KnownPlatform = Field("connectx", description="Platform of GPU servers (their NICs).")
    overrides: list[PlatformOverride] = Field(
        default_factory=list,
        max_length=1000,
        description="Per role, SU, rail or name pattern: e.g. {role: leaf, su: 1, platform: cumulus}.",
    )

    @model_validator(mode="after")
    def _kinds(self) -> Platforms:
        for role, name in (("switch", self.switch), ("host", self.host)):
            if get_platform(name).kind != role:
                raise ValueError(
                    f"{role}: {name!r} is a {get_platform(name).kind} platform; expected a {role} one"
                )
        return self

    def of(self, device: Device) -> str:
        """The platform of a device: the first override that matches it, else its kind's default."""
        for override in self.overrides:
            if override.matches(device):
                return override.platform
        return self.host if device.role == Role.HOST else self.switch


class CablingDefaultsSpec(Strict):
    """Speed and length of cables whose CSV row has none (NetBox exports carry no speed)."""

    speed_gbps: Speed | None = Field(None, description="Speed of a cable whose row has none, Gb/s.")
    cable_m: CableLength | None = Field(None, description="Length of a cable whose row has none, metres.")


class InventorySpec(Strict):
    """A netcfg inventory (fabric.yaml): the compact form (`topology`) or the explicit form
    (`devices` + `cabling`)."""

    name: DeviceName = Field(description="Fabric name, used in reports and snapshot folders.")
    policy: FilePath = Field(
        "roce-lossless", description="A bundled policy name, or a policy file relative to this file."
    )
    rails: int | None = Field(None, ge=1, le=64, description="Rail count (explicit form).")
    platforms: Platforms = Field(Platforms(), description="Platforms of switches and hosts.")
    credentials: Credentials = Field(Credentials(), description="Where login credentials come from.")
    connection: Connection = Field(Connection(), description="SSH address pattern and port of devices.")
    topology: Topology | None = Field(None, description="The compact form of the fabric.")
    devices: list[DeviceSpec] = Field(
        default_factory=list, max_length=MAX_DEVICES, description="Devices (explicit form)."
    )
    cabling: FilePath | None = Field(
        None, description="Cabling CSV (netcfg's columns or a NetBox cable export), relative to this file."
    )
    cabling_defaults: CablingDefaultsSpec = Field(
        CablingDefaultsSpec(), description="Speed and length of cables whose CSV row has none."
    )

    @model_validator(mode="after")
    def _one_form(self) -> InventorySpec:
        if self.topology is None and not self.devices:
            raise ValueError("expected either 'topology' (compact form) or 'devices' + 'cabling' (explicit)")
        if self.topology is not None and (self.devices or self.cabling):
            raise ValueError("give either 'topology' or 'devices' + 'cabling', not both")
        if self.devices and self.cabling is None:
            raise ValueError("explicit 'devices' need a 'cabling' CSV")
        if self.devices and self.rails is None:
            raise ValueError("explicit 'devices' need 'rails' (the number of rails)")
        return self


# Lower tiers first: a link's `a` end is the lower one (host NIC or leaf).
TIER = {Role.HOST: 0, Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}


class FabricBuilder:
    """Collects devices and links, refusing duplicates as it goes.

    `keep_repeats`: a row that repeats a cable already listed (the same two ports, either way round)
    is kept aside in `repeated` for the plan rules instead of refused (explicit form: DCIM exports
    list a cable twice, and the plan is still usable).
    """

    def __init__(self, keep_repeats: bool = False) -> None:
        self.devices: dict[str, Device] = {}
        self.links: list[Link] = []
        self.repeated: list[tuple[Link, str, str]] = []
        self.used: dict[Endpoint, str] = {}
        self._link_at: dict[Endpoint, Link] = {}
        self._keep_repeats = keep_repeats

    def add_device(self, device: Device, where: str) -> None:
        if device.name in self.devices:
            raise InputError(where, f"duplicate device name {device.name!r}; expected each name once")
        self.devices[device.name] = device

    def add_link(self, link: Link, where: str) -> None:
        a, z, used = link.a, link.b, self.used
        for end in (a, z):
            if end.device not in self.devices:
                raise InputError(where, f"device {end.device!r} is not in the inventory")
        if a == z:
            raise InputError(where, f"port {a} is cabled to itself; expected two different ports")
        if a in used or z in used:
            earlier = self._link_at.get(a)
            if earlier is not None and {earlier.a, earlier.b} == {a, z}:
                self.repeated.append((link, where, used[a]))
                return
            end = a if a in used else z
            raise InputError(where, f"port {end} is cabled twice (first at {used[end]})")
        used[a] = used[z] = where
        if self._keep_repeats:
            self._link_at[a] = self._link_at[z] = link
        self.links.append(link)


def expand_topology(spec: InventorySpec, topo: Topology, where: str) -> FabricBuilder:
    """Expand the compact rail-optimised description into every device and link."""
    b = FabricBuilder()
    names, plat = topo.names, spec.platforms
    fmt = _Fmt(where)
    spine_scopes = range(1, topo.scalable_units + 1) if topo.spine.scope == "su" else [None]
    spine_names: dict[tuple[int | None, int], str] = {}
    for su in spine_scopes:
        for s in range(1, topo.spine.count + 1):
            name = fmt.device(names.spine, "names.spine", su=su, spine=s)
            spine_names[(su, s)] = name
            b.add_device(Device(name, Role.SPINE, plat.switch, su=su), f"{where}: topology.names.spine")
    host_nics = _host_nics(topo, fmt, where)
    for su in range(1, topo.scalable_units + 1):
        for rail in range(1, topo.rails + 1):
            leaf = fmt.device(names.leaf, "names.leaf", su=su, rail=rail)
            b.add_device(
                Device(leaf, Role.LEAF, plat.switch, su=su, rail=rail), f"{where}: topology.names.leaf"
            )
        for k in range(1, topo.servers_per_su + 1):
            server = (su - 1) * topo.servers_per_su + k
            host_name = fmt.device(names.server, "names.server", su=su, k=k, server=server)
            nics = list(host_nics)
            b.add_device(
                Device(host_name, Role.HOST, plat.host, su=su, nics=nics), f"{where}: topology.names.server"
            )
            for nic in nics:
                leaf = fmt.device(names.leaf, "names.leaf", su=su, rail=nic.rail)
                port = topo.host_links.leaf_first_port + k - 1
                leaf_if = fmt.port(topo.host_links.leaf_port, "host_links.leaf_port", port=port, k=k)
                link = Link(
                    Endpoint(host_name, nic.netdev),
                    Endpoint(leaf, leaf_if),
                    topo.host_links.speed_gbps,
                    topo.host_links.cable_m,
                )
                b.add_link(link, f"{where}: topology.host_links")
    _expand_spines(b, topo, spine_names, fmt, where)
    # Devices are built with their kind's default; overrides pick per SU, role, rail or name.
    if plat.overrides:
        for device in b.devices.values():
            device.platform = plat.of(device)
    return b


def _host_nics(topo: Topology, fmt: _Fmt, where: str) -> tuple[Nic, ...]:
    """The NICs every server has, one per rail (the same names on every server)."""
    nics = tuple(
        Nic(
            rail=rail,
            netdev=fmt.netdev(topo.names.nic_netdev, "names.nic_netdev", rail=rail, nic0=rail - 1),
            rdma_device=fmt.netdev(topo.names.rdma_device, "names.rdma_device", rail=rail, nic0=rail - 1),
        )
        for rail in range(1, topo.rails + 1)
    )
    for field, attr in (("nic_netdev", "netdev"), ("rdma_device", "rdma_device")):
        made = [getattr(n, attr) for n in nics]
        repeated = next((m for m in made if made.count(m) > 1), None)
        if repeated is not None:
            raise InputError(
                f"{where}: topology.names.{field}",
                f"pattern {getattr(topo.names, field)!r} makes {repeated!r} for more than one rail; expected "
                "a name per rail (with {rail} or {nic0})",
            )
    return nics


def _expand_spines(b: FabricBuilder, topo: Topology, spine_names: dict, fmt: _Fmt, where: str) -> None:
    st = topo.spine
    for su in range(1, topo.scalable_units + 1):
        for rail in range(1, topo.rails + 1):
            leaf = fmt.device(topo.names.leaf, "names.leaf", su=su, rail=rail)
            # Leaf position among the leaves that share a spine: per SU or fabric-wide.
            leaf_index = rail if st.scope == "su" else (su - 1) * topo.rails + rail
            for s in range(1, st.count + 1):
                spine = spine_names[(su if st.scope == "su" else None, s)]
                for j in range(1, st.links_per_leaf + 1):
                    up = (s - 1) * st.links_per_leaf + j
                    down = (leaf_index - 1) * st.links_per_leaf + j
                    a = Endpoint(
                        leaf, fmt.port(st.leaf_port, "spine.leaf_port", port=st.leaf_first_port + up - 1)
                    )
                    z = Endpoint(
                        spine,
                        fmt.port(st.spine_port, "spine.spine_port", port=st.spine_first_port + down - 1),
                    )
                    b.add_link(Link(a, z, st.speed_gbps, st.cable_m), f"{where}: topology.spine")
    ss = topo.superspine
    if ss is None:
        return
    for plane in range(1, st.count + 1):
        for q in range(1, ss.per_plane + 1):
            name = fmt.device(topo.names.superspine, "names.superspine", plane=plane, superspine=q)
            b.add_device(
                Device(name, Role.SUPERSPINE, b.devices[spine_names[(1, 1)]].platform),
                f"{where}: topology.names.superspine",
            )
            for su in range(1, topo.scalable_units + 1):
                spine = spine_names[(su, plane)]
                a = Endpoint(
                    spine, fmt.port(ss.spine_port, "superspine.spine_port", port=ss.spine_first_port + q - 1)
                )
                z = Endpoint(
                    name,
                    fmt.port(
                        ss.superspine_port,
                        "superspine.superspine_port",
                        port=ss.superspine_first_port + su - 1,
                    ),
                )
                b.add_link(Link(a, z, ss.speed_gbps, ss.cable_m), f"{where}: topology.superspine")


class _Fmt:
    """Formats naming patterns (checked by the schema), checking each name made for its kind."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.cache: dict[tuple, str] = {}

    def device(self, pattern: str, field: str, **values: int | None) -> str:
        return self._format(pattern, field, safe_device_name, values)

    def netdev(self, pattern: str, field: str, **values: int | None) -> str:
        return self._format(pattern, field, safe_netdev, values)

    def port(self, pattern: str, field: str, **values: int | None) -> str:
        return self._format(pattern, field, safe_interface, values)

    def _format(
        self, pattern: str, field: str, check: Callable[[str], str], values: dict[str, int | None]
    ) -> str:
        key = (pattern, *values.items())
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        try:
            out = check(format_name(pattern, values))
        except KeyError as exc:
            raise InputError(
                f"{self.where}: topology.{field}",
                f"pattern {pattern!r} uses {{{exc.args[0]}}}, which has no value here; available: "
                + ", ".join("{" + k + "}" for k, v in values.items() if v is not None),
            ) from None
        except ValueError as exc:
            raise InputError(
                f"{self.where}: topology.{field}", f"pattern {pattern!r} makes a name that fails: {exc}"
            ) from None
        self.cache[key] = out
        return out


def expand_explicit(
    spec: InventorySpec, base: Path, where: str, node: yaml.Node | None = None
) -> FabricBuilder:
    """Devices as listed (errors name their line in `node`, the composed YAML), links from the CSV."""
    b = FabricBuilder(keep_repeats=True)
    rails = spec.rails or 0
    for i, d in enumerate(spec.devices):
        line = line_of(node, ("devices", i)) if node is not None else None
        loc = f"{where}:{line}: devices.{i}" if line else f"{where}: devices.{i}"
        platform = d.platform or spec.platforms.of(Device(d.name, d.role, "", su=d.su, rail=d.rail))
        if platform not in platform_names():
            raise InputError(
                f"{loc}.platform",
                f"unknown platform {platform!r}: expected one of {', '.join(platform_names())}",
            )
        kind, needed = get_platform(platform).kind, "host" if d.role == Role.HOST else "switch"
        if kind != needed:
            raise InputError(
                f"{loc}.platform", f"{platform!r} is a {kind} platform; a {d.role.value} needs a {needed} one"
            )
        for rail in [d.rail, *(n.rail for n in d.nics)]:
            if rail is not None and rail > rails:
                raise InputError(f"{loc}", f"rail {rail} is outside 1..{rails}")
        # Rail order, as the compact form builds them.
        nics = sorted((Nic(n.rail, n.netdev, n.rdma_device) for n in d.nics), key=lambda n: n.rail)
        b.add_device(Device(d.name, d.role, platform, su=d.su, rail=d.rail, nics=nics), loc)
    assert spec.cabling is not None
    defaults = CablingDefaults(spec.cabling_defaults.speed_gbps, spec.cabling_defaults.cable_m)
    for link, row_where in read_cabling(base / spec.cabling, defaults):
        b.add_link(_lower_end_first(link, b.devices), row_where)
    return b


def _lower_end_first(link: Link, devices: dict[str, Device]) -> Link:
    """A DCIM export lists either end first; the model keeps the lower tier as `a`."""
    a, z = devices.get(link.a.device), devices.get(link.b.device)
    if a is not None and z is not None and TIER[a.role] > TIER[z.role]:
        return Link(link.b, link.a, link.speed_gbps, link.cable_m)
    return link


def inventory_file(path: Path) -> Path:
    """An inventory is a YAML file, or a folder holding `fabric.yaml`."""
    if path.is_dir():
        candidate = path / "fabric.yaml"
        try:
            candidate.lstat()
        except FileNotFoundError:
            raise InputError(
                str(path), "folder has no fabric.yaml (expected an inventory file or folder)"
            ) from None
        except OSError:
            pass  # unreadable: read_yaml names why
        return candidate
    return path


def load_spec(path: Path) -> tuple[InventorySpec, Path, yaml.Node | None]:
    file = inventory_file(path)
    data, node = read_yaml(file, "inventory (a fabric.yaml, or a folder holding one)")
    if not isinstance(data, dict):
        shape = "is empty" if data is None else f"is a {type(data).__name__}"
        raise InputError(str(file), f"inventory {shape}; expected a mapping at the top level")
    try:
        return InventorySpec.model_validate(data), file, node
    except ValidationError as exc:
        raise describe_validation_error(file, node, exc) from None


def load_fabric(path: Path) -> Fabric:
    """Load and expand an inventory into a Fabric, validating everything on the way."""
    spec, file, node = load_spec(path)
    with paused_gc():
        return _expanded(spec, file, node)


def _expanded(spec: InventorySpec, file: Path, node: yaml.Node | None) -> Fabric:
    where = str(file)
    if spec.topology is not None:
        builder = expand_topology(spec, spec.topology, where)
        rails = spec.topology.rails
    else:
        builder = expand_explicit(spec, file.parent, where, node)
        rails = spec.rails or 0
    for i, override in enumerate(spec.platforms.overrides):
        # An override that matches nothing is a typo in a pattern, not a choice: say so.
        if not any(override.matches(d) for d in builder.devices.values()):
            line = line_of(node, ("platforms", "overrides", i))
            raise InputError(
                f"{where}:{line}: platforms.overrides.{i}" if line else f"{where}: platforms.overrides.{i}",
                f"matches no {get_platform(override.platform).kind} of the inventory",
            )
    return Fabric(
        name=spec.name,
        rails=rails,
        devices=builder.devices,
        links=builder.links,
        policy_ref=spec.policy,
        source=where,
        credentials=spec.credentials,
        connection=spec.connection,
        cabling_rows=builder.used if spec.topology is None else {},
        repeated_links=builder.repeated,
        bgp=_bgp_plan(spec.topology),
    )


def _bgp_plan(topology: Topology | None) -> BgpPlan | None:
    if topology is None or topology.bgp is None:
        return None
    return BgpPlan(topology.bgp.spine_asn, topology.bgp.superspine_asn)
