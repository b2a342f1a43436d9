"""Place what NetBox holds into netcfg's rail plan: every device gets its role, platform, scalable unit
and rail, every GPU server its NICs, every fabric cable its speed and length in metres. What cannot be
placed is refused by its NetBox name or id, with what was expected.

| netcfg              | NetBox                                                                    |
| ------------------- | ------------------------------------------------------------------------- |
| device name         | device `name`                                                             |
| role                | device `role` slug: leaf, spine, superspine, host (or `--role SLUG=ROLE`) |
| platform (switch)   | device `platform` slug (eos, arista-eos, ...; or `--platform SLUG=NAME`)  |
| platform (GPU host) | device custom field `nic` (connectx, thor), else its platform slug        |
| scalable unit       | device custom field `scalable_unit`                                       |
| leaf rail           | device custom field `rail`                                                |
| NIC rail            | interface custom field `rail`, or `gpu_index` + 1                         |
| NIC RDMA device     | interface custom field `rdma_device`                                      |
| management address  | device `primary_ip4` (else `primary_ip`), without its prefix length       |
| cable ends          | cable `a_terminations` / `b_terminations` (one dcim.interface each)       |
| cable length        | cable `length` and `length_unit` (km, m, cm, mi, ft, in), in metres       |
| link speed          | interface `speed` (Kbps), else its `type` (400gbase-x-osfp)               |
| policy              | config context key `netcfg.policy`: a bundled name or the policy itself   |
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from netcfg.cabling import MAX_CABLE_M, MAX_SPEED_GBPS, MIN_SPEED_GBPS, UNIT_NAMES, metres_per_unit
from netcfg.errors import InputError
from netcfg.inventory import MAX_COUNT, TIER
from netcfg.model import SWITCH_ROLES, Role, port_sort_key
from netcfg.naming import safe_device_name, safe_interface, safe_netdev
from netcfg.netbox.fetch import Recorded
from netcfg.netbox.shapes import INTERFACE, NbCable, NbDevice, NbInterface, Termination
from netcfg.platforms import get_platform, platform_names
from netcfg.policy import Policy

# Custom fields netcfg reads (NetBox: Customization > Custom Fields).
SU_FIELD, RAIL_FIELD, NIC_FIELD = "scalable_unit", "rail", "nic"
GPU_FIELD, RDMA_FIELD = "gpu_index", "rdma_device"
CONTEXT_KEY = "netcfg"
MAX_RAIL = 64
# Platform slugs NetBox installations commonly use, by netcfg platform (a slug equal to the
# platform's name needs no entry; any other is mapped with --platform SLUG=NAME).
PLATFORM_SLUGS: dict[str, str] = {
    "arista-eos": "eos",
    "arista_eos": "eos",
    "cumulus-linux": "cumulus",
    "cumulus_linux": "cumulus",
    "nvidia-cumulus-linux": "cumulus",
    "sonic-os": "sonic",
    "cisco-nxos": "nxos",
    "cisco_nxos": "nxos",
    "nx-os": "nxos",
    "juniper-junos": "junos",
    "juniper_junos": "junos",
}
_TYPE_SPEED = re.compile(r"(\d+)gbase", re.ASCII)
_KBPS_PER_GBPS = 1_000_000


@dataclass(slots=True)
class Placed:
    """The fabric as netcfg's explicit inventory holds it, in inventory order."""

    devices: list[dict[str, Any]]
    cables: list[tuple[str, str, str, str, int, float]]
    rails: int
    policy: str | dict[str, Any]
    addresses: dict[str, str]
    # Cables left out: console, power and management cables, and cables to devices outside the filter.
    left_out: int = 0


def parse_mapping(items: Sequence[str], option: str, allowed: Sequence[str]) -> dict[str, str]:
    """`--role gpu-server=host` -> {"gpu-server": "host"}, each value one of `allowed`."""
    out = {}
    for item in items:
        slug, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not slug or value not in allowed:
            raise InputError(
                f"{option} {item[:60]}", f"expected SLUG=NAME with NAME one of {', '.join(allowed)}"
            )
        out[slug] = value
    return out


def place(recorded: Recorded, roles: dict[str, str], platforms: dict[str, str]) -> Placed:
    devices: dict[int, dict[str, Any]] = {}
    placed_roles: dict[str, Role] = {}
    addresses: dict[str, str] = {}
    for d in recorded.devices:
        spec = _device(d, roles, platforms)
        if any(s["name"] == spec["name"] for s in devices.values()):
            raise InputError(d.label, "another selected device has this name; expected each name once")
        devices[d.id] = spec
        placed_roles[spec["name"]] = Role(spec["role"])
        address = d.primary_ip4 or d.primary_ip
        if address is not None:
            addresses[spec["name"]] = address.address.partition("/")[0]
    interfaces = {i.id: i for i in recorded.interfaces if i.device.id in devices}
    for d in recorded.devices:
        if devices[d.id]["role"] == Role.HOST.value:
            nics = _nics(d, [i for i in interfaces.values() if i.device.id == d.id])
            devices[d.id]["nics"] = nics
    rails = max(
        [s.get("rail", 0) for s in devices.values()]
        + [n["rail"] for s in devices.values() for n in s.get("nics", [])]
    )
    cables, left_out = [], 0
    for cable in recorded.cables:
        row = _cable(cable, devices, interfaces, placed_roles)
        if row is None:
            left_out += 1
        else:
            cables.append(row)
    order = _device_order(list(devices.values()))
    rank = {s["name"]: i for i, s in enumerate(order)}
    cables.sort(key=lambda r: (TIER[placed_roles[r[0]]], port_sort_key(r[0]), port_sort_key(r[1])))
    return Placed(
        devices=order,
        cables=cables,
        rails=rails,
        policy=_policy(recorded.devices),
        addresses=dict(sorted(addresses.items(), key=lambda kv: rank[kv[0]])),
        left_out=left_out,
    )


def _device(d: NbDevice, roles: dict[str, str], platforms: dict[str, str]) -> dict[str, Any]:
    if not d.name:
        raise InputError(
            d.label, "has no name; expected a device name (its config file and snapshot are named so)"
        )
    try:
        name = safe_device_name(d.name)
    except ValueError as exc:
        raise InputError(f"{d.label}: name", str(exc)) from None
    brief = d.role or d.device_role
    slug = brief.slug if brief is not None and brief.slug else ""
    role_name = roles.get(slug, slug)
    if role_name not in {r.value for r in Role}:
        raise InputError(
            f"{d.label}: role",
            f"{slug!r}; expected leaf, spine, superspine or host "
            f"(or map the slug: --role {slug or 'SLUG'}=host)",
        )
    role = Role(role_name)
    cf = d.custom_fields
    su = _int_field(cf, SU_FIELD, d.label, 1, MAX_COUNT)
    rail = _int_field(cf, RAIL_FIELD, d.label, 1, MAX_RAIL)
    if role == Role.LEAF and (rail is None or su is None):
        missing = " and ".join(f for f, v in ((SU_FIELD, su), (RAIL_FIELD, rail)) if v is None)
        raise InputError(
            d.label, f"a leaf without custom field {missing}; expected the leaf's scalable unit and rail"
        )
    if role == Role.HOST and su is None:
        raise InputError(d.label, f"a GPU server without custom field {SU_FIELD}; expected its scalable unit")
    if role != Role.LEAF and rail is not None:
        raise InputError(
            f"{d.label}: custom field {RAIL_FIELD}",
            f"set on a {role.value}; expected it on leaves only "
            f"(a GPU server's rails are its NICs' {RAIL_FIELD})",
        )
    spec: dict[str, Any] = {"name": name, "role": role.value}
    platform = _platform(d, role, platforms)
    if platform is not None:
        spec["platform"] = platform
    if su is not None:
        spec["su"] = su
    if rail is not None:
        spec["rail"] = rail
    return spec


def _platform(d: NbDevice, role: Role, platforms: dict[str, str]) -> str | None:
    """The netcfg platform: a GPU server's NIC family (custom field `nic`), else the platform slug."""
    kind = "switch" if role in SWITCH_ROLES else "host"
    nic = d.custom_fields.get(NIC_FIELD)
    if nic not in (None, "") and role == Role.HOST:
        if not isinstance(nic, str) or nic not in platform_names() or get_platform(nic).kind != "host":
            hosts = [p for p in platform_names() if get_platform(p).kind == "host"]
            raise InputError(
                f"{d.label}: custom field {NIC_FIELD}", f"{nic!r}; expected one of {', '.join(hosts)}"
            )
        return nic
    slug = d.platform.slug if d.platform is not None and d.platform.slug else None
    if slug is None:
        return None
    name = platforms.get(slug) or PLATFORM_SLUGS.get(slug) or slug
    if name in platform_names() and get_platform(name).kind == kind:
        return name
    if role == Role.HOST:
        # A GPU server's NetBox platform is its operating system: the NIC family is the inventory's default.
        return None
    switches = [p for p in platform_names() if get_platform(p).kind == "switch"]
    raise InputError(
        f"{d.label}: platform",
        f"{slug!r} is no netcfg switch platform; expected one of {', '.join(switches)} "
        f"(or map the slug: --platform {slug}=eos)",
    )


def _int_field(cf: dict[str, Any], key: str, label: str, low: int, high: int) -> int | None:
    value = cf.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(
            f"{label}: custom field {key}", f"{value!r}; expected a whole number from {low} to {high}"
        )
    return value


def _nics(d: NbDevice, interfaces: list[NbInterface]) -> list[dict[str, Any]]:
    nics: dict[int, dict[str, Any]] = {}
    for i in interfaces:
        cf = i.custom_fields
        rail = _int_field(cf, RAIL_FIELD, i.label, 1, MAX_RAIL)
        gpu = _int_field(cf, GPU_FIELD, i.label, 0, MAX_RAIL - 1)
        if rail is None and gpu is None:
            continue
        if rail is None and gpu is not None:
            rail = gpu + 1
        elif gpu is not None and gpu != rail - 1:
            raise InputError(
                i.label,
                f"custom fields {GPU_FIELD} {gpu} and {RAIL_FIELD} {rail} disagree; "
                "expected GPU g's NIC on rail g + 1",
            )
        rdma = cf.get(RDMA_FIELD)
        try:
            netdev = safe_netdev(i.name)
            if not isinstance(rdma, str) or not rdma:
                raise ValueError(
                    f"custom field {RDMA_FIELD} is {rdma!r}; expected the NIC's RDMA device (mlx5_0)"
                )
            rdma = safe_netdev(rdma)
        except ValueError as exc:
            raise InputError(i.label, str(exc)) from None
        if rail in nics:
            raise InputError(
                i.label,
                f"a second NIC on rail {rail} (first {nics[rail]['netdev']}); expected one NIC per rail",
            )
        nics[rail] = {"rail": rail, "netdev": netdev, "rdma_device": rdma}
    if not nics:
        raise InputError(
            d.label,
            f"a GPU server with no interface whose custom field {RAIL_FIELD} (or {GPU_FIELD}) is set; "
            "expected one NIC per rail",
        )
    return [nics[r] for r in sorted(nics)]


def _cable(
    cable: NbCable,
    devices: dict[int, dict[str, Any]],
    interfaces: dict[int, NbInterface],
    roles: dict[str, Role],
) -> tuple[str, str, str, str, int, float] | None:
    """One cabling row, lower tier first; None for a cable that is no fabric link."""
    terms = [*cable.a_terminations, *cable.b_terminations]
    fabric_ends = [t for t in terms if t.object_type == INTERFACE and t.object_id in interfaces]
    if not any(not interfaces[t.object_id].mgmt_only for t in fabric_ends):
        return None  # console, power or management cable
    if len(cable.a_terminations) != 1 or len(cable.b_terminations) != 1:
        raise InputError(
            cable.label,
            f"has {len(cable.a_terminations)} A and {len(cable.b_terminations)} B terminations; "
            "expected one interface at each end",
        )
    ends = []
    for side, term in (("A", cable.a_terminations[0]), ("B", cable.b_terminations[0])):
        if term.object_type != INTERFACE:
            raise InputError(
                f"{cable.label}: {side} termination",
                f"is a {term.object_type}; expected {INTERFACE} at both ends (a cable through a patch panel "
                "has no single length to size PFC headroom from: model it end to end)",
            )
        if _device_id(term) not in devices:
            return None  # to a device outside the filter
        iface = interfaces.get(term.object_id)
        if iface is None:
            raise InputError(
                f"{cable.label}: {side} termination",
                f"interface id {term.object_id} was not listed with its device",
            )
        ends.append(iface)
    a, b = ends
    names = []
    for iface in (a, b):
        try:
            names.append(safe_interface(iface.name))
        except ValueError as exc:
            raise InputError(iface.label, str(exc)) from None
    dev_a, dev_b = devices[a.device.id]["name"], devices[b.device.id]["name"]
    speed = _speed(cable, a, b)
    metres = _metres(cable)
    if TIER[roles[dev_a]] > TIER[roles[dev_b]]:
        return (dev_b, names[1], dev_a, names[0], speed, metres)
    return (dev_a, names[0], dev_b, names[1], speed, metres)


def _device_id(term: Termination) -> int | None:
    device = (term.object or {}).get("device")
    return device.get("id") if isinstance(device, dict) else None


def _speed(cable: NbCable, a: NbInterface, b: NbInterface) -> int:
    speeds = {s for s in (_gbps(a), _gbps(b)) if s is not None}
    if len(speeds) > 1:
        raise InputError(
            cable.label,
            f"its interfaces run {' and '.join(f'{s} Gb/s' for s in sorted(speeds))}; expected one speed",
        )
    if not speeds:
        raise InputError(
            cable.label,
            f"neither {a.device.name}:{a.name} nor {b.device.name}:{b.name} has a speed; "
            "expected the interface speed (Kbps) or a type such as 400gbase-x-osfp",
        )
    speed = speeds.pop()
    if not MIN_SPEED_GBPS <= speed <= MAX_SPEED_GBPS:
        raise InputError(cable.label, f"{speed} Gb/s; expected {MIN_SPEED_GBPS} to {MAX_SPEED_GBPS} Gb/s")
    return speed


def _gbps(iface: NbInterface) -> int | None:
    if iface.speed:
        if iface.speed % _KBPS_PER_GBPS:
            raise InputError(
                f"{iface.label}: speed", f"{iface.speed} Kbps; expected whole Gb/s (400000000 for 400G)"
            )
        return iface.speed // _KBPS_PER_GBPS
    match = _TYPE_SPEED.match(iface.type.value or "") if iface.type is not None else None
    return int(match.group(1)) if match else None


def _metres(cable: NbCable) -> float:
    if cable.length is None:
        raise InputError(
            f"{cable.label}: length",
            "not set; expected length and length_unit (PFC headroom is sized from it)",
        )
    unit = cable.length_unit.value if cable.length_unit is not None else None
    factor = metres_per_unit(unit) if unit else None
    if factor is None:
        raise InputError(f"{cable.label}: length_unit", f"{unit!r}; expected {UNIT_NAMES}")
    metres = round(cable.length * factor, 3)
    if not (math.isfinite(metres) and 0 < metres <= MAX_CABLE_M):
        raise InputError(
            f"{cable.label}: length",
            f"{cable.length:g} {unit}; expected above 0 and at most {MAX_CABLE_M:,.0f} m",
        )
    return metres


def _device_order(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fabric-wide devices first (super-spines, spines), then each scalable unit: its spines, its leaves
    by rail, its GPU servers by name."""
    kind = {Role.SUPERSPINE.value: 0, Role.SPINE.value: 1, Role.LEAF.value: 2, Role.HOST.value: 3}

    def key(s: dict[str, Any]) -> tuple:
        return (s.get("su", 0), kind[s["role"]], s.get("rail", 0), port_sort_key(s["name"]))

    return sorted(specs, key=key)


def _policy(devices: list[NbDevice]) -> str | dict[str, Any]:
    """The policy every device's config context names (`netcfg.policy`); the bundled default if none."""
    found: tuple[NbDevice, Any] | None = None
    for d in devices:
        context = d.config_context or {}
        ours = context.get(CONTEXT_KEY)
        if ours is None:
            continue
        if not isinstance(ours, dict) or "policy" not in ours:
            raise InputError(
                f"{d.label}: config context {CONTEXT_KEY}", "expected a mapping with key 'policy'"
            )
        if found is None:
            found = (d, ours["policy"])
        elif json.dumps(ours["policy"], sort_keys=True) != json.dumps(found[1], sort_keys=True):
            raise InputError(
                f"{d.label}: config context {CONTEXT_KEY}.policy",
                f"differs from {found[0].label}'s; expected one policy for the fabric",
            )
    if found is None:
        return "roce-lossless"
    device, policy = found
    where = f"{device.label}: config context {CONTEXT_KEY}.policy"
    if isinstance(policy, str) and policy:
        return policy
    if not isinstance(policy, dict):
        raise InputError(
            where, f"{type(policy).__name__}; expected a bundled policy name or the policy as a mapping"
        )
    try:
        Policy.model_validate(policy, context={"platforms": platform_names()})
    except ValidationError as exc:
        error = exc.errors()[0]
        field_name = ".".join(str(p) for p in error["loc"])
        raise InputError(f"{where}.{field_name}", str(error["msg"])) from None
    return policy
