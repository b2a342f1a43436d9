"""Fabric inventory: a compact rail-optimised description or explicit devices plus a cabling CSV.

Both forms expand into the same `Fabric`. Every name and interface is checked against a strict
pattern before it can reach a template, so inventory data can never inject a CLI line.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from netcfg.errors import InputError
from netcfg.loader import describe_validation_error, read_yaml
from netcfg.model import Device, Endpoint, Fabric, Link, Nic, Role
from netcfg.platforms import get_platform, platform_names

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$")
_SAFE_PATTERN = re.compile(r"^[A-Za-z0-9._:/{}-]{1,64}$")


def _safe_name(value: str) -> str:
    if not _SAFE_NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a safe name: expected letters, digits and . _ : / - only "
            "(no spaces, newlines, ';' or '!' that could inject a CLI line)"
        )
    return value


def _safe_pattern(value: str) -> str:
    if not _SAFE_PATTERN.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a safe naming pattern: expected letters, digits, . _ : / - and "
            "{placeholders} only"
        )
    return value


SafeName = Annotated[str, AfterValidator(_safe_name)]
SafePattern = Annotated[str, AfterValidator(_safe_pattern)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Names(_Strict):
    """Naming patterns. Placeholders: su, rail, k (server in SU), server (global), spine, plane,
    superspine, nic0 (rail - 1)."""

    server: SafePattern = Field("gpu{server:02d}", description="GPU server name, e.g. gpu{server:02d}.")
    leaf: SafePattern = Field("leaf-su{su}-r{rail}", description="Leaf name: one leaf per rail per SU.")
    spine: SafePattern = Field("spine{spine}", description="Spine name; {spine} counts from 1.")
    superspine: SafePattern = Field(
        "superspine-p{plane}-{superspine}", description="Super-spine name (three-tier fabrics)."
    )
    nic_netdev: SafePattern = Field("eth{nic0}", description="Linux netdev of the NIC of each rail.")
    rdma_device: SafePattern = Field("mlx5_{nic0}", description="RDMA device of the NIC of each rail.")


class HostLinks(_Strict):
    """Server NIC to leaf cables."""

    speed_gbps: int = Field(400, gt=0, description="Link speed, Gb/s.")
    cable_m: float = Field(3, gt=0, description="Cable length, metres (sizes PFC headroom).")
    leaf_port: SafePattern = Field("Ethernet{port}", description="port = leaf_first_port + k - 1")
    leaf_first_port: int = Field(1, ge=0, description="Leaf port of the first server of an SU.")


class SpineTier(_Strict):
    """Leaf to spine cables."""

    scope: Literal["fabric", "su"] = Field(
        "fabric", description="fabric: every leaf to the same spines; su: each SU has its own spines"
    )
    count: int = Field(ge=1, description="Spines per scope.")
    links_per_leaf: int = Field(1, ge=1, description="Parallel links between one leaf and one spine.")
    speed_gbps: int = Field(400, gt=0, description="Link speed, Gb/s.")
    cable_m: float = Field(30, gt=0, description="Cable length, metres (sizes PFC headroom).")
    leaf_port: SafePattern = Field("Ethernet{port}", description="Leaf uplink port name pattern.")
    leaf_first_port: int = Field(31, ge=0, description="First leaf uplink port number.")
    spine_port: SafePattern = Field("Ethernet{port}", description="Spine downlink port name pattern.")
    spine_first_port: int = Field(1, ge=0, description="First spine downlink port number.")


class SuperspineTier(_Strict):
    """Spine to super-spine cables (three-tier fabrics)."""

    per_plane: int = Field(ge=1, description="Super-spines per plane; plane p holds spine p of every SU.")
    speed_gbps: int = Field(400, gt=0, description="Link speed, Gb/s.")
    cable_m: float = Field(100, gt=0, description="Cable length, metres (sizes PFC headroom).")
    spine_port: SafePattern = Field("Ethernet{port}", description="Spine uplink port name pattern.")
    spine_first_port: int = Field(33, ge=0, description="First spine uplink port number.")
    superspine_port: SafePattern = Field(
        "Ethernet{port}", description="Super-spine downlink port name pattern."
    )
    superspine_first_port: int = Field(1, ge=0, description="First super-spine downlink port number.")


class Topology(_Strict):
    """A rail-optimised fabric by counts, naming patterns and cabling rules (the compact form)."""

    scalable_units: int = Field(ge=1, description="Scalable units (SUs): groups of servers and their leaves.")
    servers_per_su: int = Field(ge=1, description="GPU servers per SU.")
    rails: int = Field(ge=1, le=64, description="Rails: NICs per server, and leaves per SU.")
    names: Names = Field(Names(), description="Naming patterns of devices and NICs.")
    host_links: HostLinks = Field(HostLinks(), description="Server NIC to leaf cables: speed, length, ports.")
    spine: SpineTier = Field(description="The spine tier and its cables.")
    superspine: SuperspineTier | None = Field(None, description="A super-spine tier (needs spine.scope su).")

    @model_validator(mode="after")
    def _tiers(self) -> Topology:
        if self.superspine is not None and self.spine.scope != "su":
            raise ValueError("a superspine tier needs spine.scope 'su' (per-SU spines to aggregate)")
        return self


class NicSpec(_Strict):
    """One NIC of a server (explicit form)."""

    rail: int = Field(ge=1, description="Rail the NIC is cabled to.")
    netdev: SafeName = Field(description="Linux netdev, e.g. eth0.")
    rdma_device: SafeName = Field(description="RDMA device, e.g. mlx5_0.")


class DeviceSpec(_Strict):
    """One device (explicit form)."""

    name: SafeName = Field(description="Device name, as its config file and snapshot folder are named.")
    role: Role = Field(description="leaf, spine, superspine or host.")
    platform: str | None = Field(None, description="Platform; default from `platforms` by role.")
    su: int | None = Field(None, ge=1, description="Scalable unit the device belongs to.")
    rail: int | None = Field(None, ge=1, description="Rail of a leaf.")
    nics: list[NicSpec] = Field(default_factory=list, description="NICs of a host, one per rail.")


def _known_platform(value: str) -> str:
    if value not in platform_names():
        raise ValueError(f"unknown platform {value!r}: expected one of {', '.join(platform_names())}")
    return value


KnownPlatform = Annotated[str, AfterValidator(_known_platform)]


class Platforms(_Strict):
    """Platform of each kind of device."""

    switch: KnownPlatform = Field("eos", description="Platform of leaves and spines.")
    host: KnownPlatform = Field("connectx", description="Platform of GPU servers (their NICs).")


class Credentials(_Strict):
    """Where login credentials come from. Never the inventory itself."""

    username_env: str = Field("NETCFG_USERNAME", description="Environment variable holding the username.")
    password_env: str = Field("NETCFG_PASSWORD", description="Environment variable holding the password.")
    file: str | None = Field(None, description="YAML file with username/password, relative to inventory.")


class Connection(_Strict):
    """How to reach devices over SSH."""

    hostname: SafePattern = Field("{name}", description="Management address pattern; {name} = device.")
    port: int = Field(22, ge=1, le=65535, description="SSH port.")
    connections_file: str | None = Field(
        None, description="JSON map device -> {hostname, port} (the lab writes one), relative to inventory."
    )


class InventorySpec(_Strict):
    """A netcfg inventory (fabric.yaml): the compact form (`topology`) or the explicit form
    (`devices` + `cabling`)."""

    name: SafeName = Field(description="Fabric name, used in reports and snapshot folders.")
    policy: str = Field(
        "roce-lossless", description="A bundled policy name, or a policy file relative to this file."
    )
    rails: int | None = Field(None, ge=1, le=64, description="Rail count (explicit form).")
    platforms: Platforms = Field(Platforms(), description="Platforms of switches and hosts.")
    credentials: Credentials = Field(Credentials(), description="Where login credentials come from.")
    connection: Connection = Field(Connection(), description="SSH address pattern and port of devices.")
    topology: Topology | None = Field(None, description="The compact form of the fabric.")
    devices: list[DeviceSpec] = Field(default_factory=list, description="Devices (explicit form).")
    cabling: str | None = Field(None, description="CSV of links, relative to the inventory file.")

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


CABLING_COLUMNS = ("device_a", "interface_a", "device_b", "interface_b", "speed_gbps", "cable_m")


class FabricBuilder:
    """Collects devices and links, refusing duplicates as it goes."""

    def __init__(self) -> None:
        self.devices: dict[str, Device] = {}
        self.links: list[Link] = []
        self._used: dict[Endpoint, str] = {}

    def add_device(self, device: Device, where: str) -> None:
        if device.name in self.devices:
            raise InputError(where, f"duplicate device name {device.name!r}")
        self.devices[device.name] = device

    def add_link(self, link: Link, where: str) -> None:
        for end in (link.a, link.b):
            if end.device not in self.devices:
                raise InputError(where, f"device {end.device!r} is not in the inventory")
            if end in self._used:
                raise InputError(where, f"port {end} is cabled twice (first at {self._used[end]})")
            self._used[end] = where
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
            name = fmt(names.spine, "names.spine", su=su, spine=s)
            spine_names[(su, s)] = name
            b.add_device(Device(name, Role.SPINE, plat.switch, su=su), where)
    for su in range(1, topo.scalable_units + 1):
        for rail in range(1, topo.rails + 1):
            leaf = fmt(names.leaf, "names.leaf", su=su, rail=rail)
            b.add_device(Device(leaf, Role.LEAF, plat.switch, su=su, rail=rail), where)
        for k in range(1, topo.servers_per_su + 1):
            server = (su - 1) * topo.servers_per_su + k
            host_name = fmt(names.server, "names.server", su=su, k=k, server=server)
            nics = [
                Nic(
                    rail=rail,
                    netdev=fmt(names.nic_netdev, "names.nic_netdev", rail=rail, nic0=rail - 1),
                    rdma_device=fmt(names.rdma_device, "names.rdma_device", rail=rail, nic0=rail - 1),
                )
                for rail in range(1, topo.rails + 1)
            ]
            b.add_device(Device(host_name, Role.HOST, plat.host, su=su, nics=nics), where)
            for nic in nics:
                leaf = fmt(names.leaf, "names.leaf", su=su, rail=nic.rail)
                port = topo.host_links.leaf_first_port + k - 1
                leaf_if = fmt(topo.host_links.leaf_port, "host_links.leaf_port", port=port, k=k)
                link = Link(
                    Endpoint(host_name, nic.netdev),
                    Endpoint(leaf, leaf_if),
                    topo.host_links.speed_gbps,
                    topo.host_links.cable_m,
                )
                b.add_link(link, where)
    _expand_spines(b, topo, spine_names, fmt, where)
    return b


def _expand_spines(b: FabricBuilder, topo: Topology, spine_names: dict, fmt: _Fmt, where: str) -> None:
    st = topo.spine
    for su in range(1, topo.scalable_units + 1):
        for rail in range(1, topo.rails + 1):
            leaf = fmt(topo.names.leaf, "names.leaf", su=su, rail=rail)
            # Leaf position among the leaves that share a spine: per SU or fabric-wide.
            leaf_index = rail if st.scope == "su" else (su - 1) * topo.rails + rail
            for s in range(1, st.count + 1):
                spine = spine_names[(su if st.scope == "su" else None, s)]
                for j in range(1, st.links_per_leaf + 1):
                    up = (s - 1) * st.links_per_leaf + j
                    down = (leaf_index - 1) * st.links_per_leaf + j
                    a = Endpoint(leaf, fmt(st.leaf_port, "spine.leaf_port", port=st.leaf_first_port + up - 1))
                    z = Endpoint(
                        spine, fmt(st.spine_port, "spine.spine_port", port=st.spine_first_port + down - 1)
                    )
                    b.add_link(Link(a, z, st.speed_gbps, st.cable_m), where)
    ss = topo.superspine
    if ss is None:
        return
    for plane in range(1, st.count + 1):
        for q in range(1, ss.per_plane + 1):
            name = fmt(topo.names.superspine, "names.superspine", plane=plane, superspine=q)
            b.add_device(Device(name, Role.SUPERSPINE, b.devices[spine_names[(1, 1)]].platform), where)
            for su in range(1, topo.scalable_units + 1):
                spine = spine_names[(su, plane)]
                a = Endpoint(
                    spine, fmt(ss.spine_port, "superspine.spine_port", port=ss.spine_first_port + q - 1)
                )
                z = Endpoint(
                    name,
                    fmt(
                        ss.superspine_port,
                        "superspine.superspine_port",
                        port=ss.superspine_first_port + su - 1,
                    ),
                )
                b.add_link(Link(a, z, ss.speed_gbps, ss.cable_m), where)


class _Fmt:
    """Formats a naming pattern, turning a bad placeholder into an InputError."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.cache: dict[tuple, str] = {}

    def __call__(self, pattern: str, field: str, **values: int | None) -> str:
        key = (pattern, *values.items())
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        try:
            out = pattern.format(**values)
        except (KeyError, IndexError, ValueError) as exc:
            raise InputError(
                f"{self.where}: topology.{field}",
                f"pattern {pattern!r} uses an unknown placeholder ({exc}); available: {', '.join(values)}",
            ) from None
        _safe_name(out)
        self.cache[key] = out
        return out


def expand_explicit(spec: InventorySpec, base: Path, where: str) -> FabricBuilder:
    b = FabricBuilder()
    rails = spec.rails or 0
    for i, d in enumerate(spec.devices):
        loc = f"{where}: devices.{i}"
        platform = d.platform or (spec.platforms.host if d.role == Role.HOST else spec.platforms.switch)
        if platform not in platform_names():
            raise InputError(
                f"{loc}.platform",
                f"unknown platform {platform!r}: expected one of {', '.join(platform_names())}",
            )
        for rail in [d.rail, *(n.rail for n in d.nics)]:
            if rail is not None and rail > rails:
                raise InputError(f"{loc}", f"rail {rail} is outside 1..{rails}")
        nics = [Nic(n.rail, n.netdev, n.rdma_device) for n in d.nics]
        b.add_device(Device(d.name, d.role, platform, su=d.su, rail=d.rail, nics=nics), loc)
    assert spec.cabling is not None
    for link, row_where in read_cabling(base / spec.cabling):
        b.add_link(link, row_where)
    return b


def read_cabling(path: Path) -> list[tuple[Link, str]]:
    """Links from a DCIM-style cabling CSV, one row per cable."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise InputError(str(path), "cabling CSV not found or unreadable") from None
    # Keep line ends: a quoted newline then stays in its field (and is refused as unsafe), and
    # `line_num` counts physical lines, blank ones included.
    rows = csv.DictReader(text.splitlines(keepends=True))
    missing = [c for c in CABLING_COLUMNS if c not in (rows.fieldnames or [])]
    if missing:
        raise InputError(
            f"{path}:1", f"missing column(s) {', '.join(missing)}; expected {','.join(CABLING_COLUMNS)}"
        )
    out = []
    for row in rows:
        where = f"{path}:{rows.line_num}"
        try:
            ends = [_safe_name(row[c] or "") for c in CABLING_COLUMNS[:4]]
            speed, cable = int(row["speed_gbps"] or ""), float(row["cable_m"] or "")
        except ValueError as exc:
            raise InputError(where, f"bad cabling row: {exc}") from None
        out.append((Link(Endpoint(ends[0], ends[1]), Endpoint(ends[2], ends[3]), speed, cable), where))
    return out


def write_cabling(fabric: Fabric, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CABLING_COLUMNS)
        for link in fabric.links:
            cable = int(link.cable_m) if link.cable_m == int(link.cable_m) else link.cable_m
            w.writerow(
                [link.a.device, link.a.interface, link.b.device, link.b.interface, link.speed_gbps, cable]
            )


def inventory_file(path: Path) -> Path:
    """An inventory is a YAML file, or a folder holding `fabric.yaml`."""
    if path.is_dir():
        candidate = path / "fabric.yaml"
        if not candidate.is_file():
            raise InputError(str(path), "folder has no fabric.yaml (expected an inventory file or folder)")
        return candidate
    if not path.exists():
        raise InputError(str(path), "inventory not found (expected a fabric.yaml or a folder holding one)")
    return path


def load_spec(path: Path) -> tuple[InventorySpec, Path]:
    file = inventory_file(path)
    data, node = read_yaml(file)
    if not isinstance(data, dict):
        raise InputError(str(file), "expected a mapping at the top level")
    try:
        return InventorySpec.model_validate(data), file
    except ValidationError as exc:
        raise describe_validation_error(file, node, exc) from None


def load_fabric(path: Path) -> Fabric:
    """Load and expand an inventory into a Fabric, validating everything on the way."""
    spec, file = load_spec(path)
    where = str(file)
    if spec.topology is not None:
        builder = expand_topology(spec, spec.topology, where)
        rails = spec.topology.rails
    else:
        builder = expand_explicit(spec, file.parent, where)
        rails = spec.rails or 0
    for device in builder.devices.values():
        get_platform(device.platform)
    return Fabric(
        name=spec.name,
        rails=rails,
        devices=builder.devices,
        links=builder.links,
        policy_ref=spec.policy,
        source=where,
        credentials=spec.credentials,
        connection=spec.connection,
    )
