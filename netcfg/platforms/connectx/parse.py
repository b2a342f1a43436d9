"""ConnectX settings read back: from a host script kept in a repository, and from the outputs
collected on a server (`mlnx_qos`, the sysfs/configfs dump, `ethtool -i`, counters, LLDP)."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any

from netcfg.model import DSCP_VALUES, Device, DeviceState, InterfaceState, PgBuffer, port_copy
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.base import Command
from netcfg.platforms.connectx.commands import PLATFORM, mlnx_qos_command, mlxconfig_command, sysfs_command
from netcfg.platforms.connectx.counters import MLX5_COUNTERS
from netcfg.platforms.connectx.mft import cannot_read
from netcfg.platforms.connectx.mlxconfig import NotCurrentValues, current_values, firmware_dcbx, planes
from netcfg.platforms.connectx.roce_accl import read_reorder_tolerance, roce_accl_command
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux import host as linux_host
from netcfg.platforms.linux.host import (
    HOST_SCRIPT,
    ScriptLocations,
    ethtool_command,
    generic_text,
    read_host_script,
    script_locations,
    to_int,
    tokens,
)

# ConnectX firmware default: DSCP d on priority d >> 3 until mlnx_qos --dscp2prio changes it.
FIRMWARE_DSCP_MAP = {d: d >> 3 for d in DSCP_VALUES}


def _parse_prio_list(text: str) -> frozenset[int]:
    return frozenset(int(p) for p in text.split(",") if p.isdigit())


@lru_cache(maxsize=256)
def _script_ports(text: str, nics: int) -> tuple[list[InterfaceState], dict[str, str], ScriptLocations]:
    """NIC settings of a generic host script, NIC i as `@netdev{i}`; unparsed keys use `{i}` for names;
    where each NIC's settings stand, keyed (NIC index, ".field" or "" for the NIC's first line)."""
    ports = {f"@netdev{i}": InterfaceState(name=f"{{{i}}}") for i in range(nics)}
    unparsed: dict[str, str] = {}
    data = ttp_parse(PLATFORM, "host_script", text)
    if not data:
        return [], {HOST_SCRIPT: "no mlnx_qos, set_ecn or set_params line found"}, ()
    by_rdma = {f"@rdma{i}": ports[f"@netdev{i}"] for i in range(nics)}
    for port in ports.values():
        # One shared default table; an override replaces it with a copy (never mutate it in place).
        port.dscp_map = FIRMWARE_DSCP_MAP
    for kind in ("mtu", "qos", "ecn"):
        for row in many(data.get(kind)):
            port = ports.get(row.get("dev"))
            if port is None:
                continue
            try:
                _apply_script_line(port, kind, row)
            except ValueError as exc:
                unparsed[f"{kind} line of {port.name}"] = str(exc)
    for row in many(data.get("params")):
        for pair in tokens(row["params"]):
            key, _, value = pair.partition("=")
            _apply_value(ports, by_rdma, f"{row['path']}/{key}", value)
    # Single `set_value` lines are hand edits on top of the generated groups: applied last.
    for row in many(data.get("values")):
        _apply_value(ports, by_rdma, row["path"], str(row["value"]))
    return list(ports.values()), unparsed, script_locations(text, nics, _line_fields)


_MLNX_QOS_FIELDS = {
    "--trust": ("trust",),
    "--pfc": ("pfc_enabled", "no_drop_priorities"),
    "--cable_len": ("cable_m",),
    "--dscp2prio": ("dscp_map",),
}


# sysfs/configfs attribute -> the InterfaceState field it sets; other ECN attributes are DCQCN knobs.
_VALUE_FIELDS = {
    "mtu": "mtu",
    "cnp_dscp": "cnp_dscp",
    "cnp_802p_prio": "cnp_priority",
    "default_roce_mode": "roce_mode",
    "default_roce_tos": "roce_tos",
}


def _line_fields(words: list[str]) -> list[str]:
    """The InterfaceState fields one script line sets (its words as the shell splits them)."""
    command = words[0] if words else ""
    if command == "ip" and "mtu" in words:
        return ["mtu"]
    if command == "mlnx_qos":
        return [name for w in words if w in _MLNX_QOS_FIELDS for name in _MLNX_QOS_FIELDS[w]]
    if command == "set_ecn" and len(words) > 2:
        return [f"ecn_{words[2]}_priorities"]
    if command == "set_params" and len(words) > 1:
        found = (_value_field(words[1], w.partition("=")[0]) for w in words[2:])
        return [name for name in found if name]
    if command == "set_value" and len(words) > 1 and "/" in words[1]:
        name = _value_field(*words[1].rsplit("/", 1))
        return [name] if name else []
    return []


def _value_field(folder: str, attribute: str) -> str | None:
    if attribute in _VALUE_FIELDS:
        return _VALUE_FIELDS[attribute]
    if "/ecn/" not in folder + "/":
        return None
    if folder.endswith("/enable"):
        return "ecn_np_priorities" if "/roce_np" in folder else "ecn_rp_priorities"
    return "dcqcn"


def _apply_script_line(port: InterfaceState, kind: str, row: dict) -> None:
    """One script line; raises ValueError on a value it cannot read."""
    if kind == "mtu":
        port.mtu = row["value"]
    elif kind == "ecn":
        prios = _parse_prio_list(str(row["value"]))
        if row["role"] == "np":
            port.ecn_np_priorities = prios
        else:
            port.ecn_rp_priorities = prios
    else:
        words = row["options"].split()
        for flag, value in itertools.pairwise(words):
            if flag == "--trust":
                port.trust = value
            elif flag == "--pfc":
                port.no_drop_priorities = frozenset(i for i, f in enumerate(value.split(",")) if f == "1")
                port.pfc_enabled = bool(port.no_drop_priorities)
            elif flag == "--cable_len":
                port.cable_m = int(value)
            elif flag == "--dscp2prio":
                action, dscp, prio = value.split(",")
                if action != "set" or port.dscp_map is None:
                    raise ValueError(f"unsupported --dscp2prio {value!r}: expected set,DSCP,PRIO")
                port.dscp_map = {**port.dscp_map, int(dscp): int(prio)}


def _apply_value(
    ports: dict[str, InterfaceState], by_rdma: dict[str, InterfaceState], path: str, value: str
) -> None:
    """One sysfs/configfs value, as written by the script or read back by `grep -rH`."""
    effect = _value_effect(path, value)
    if effect is not None:
        _apply_effects((effect,), ports, by_rdma)


# What one value does to the port it names: (placeholder, field, value) sets the field, with the
# field `ENABLE_NP`/`ENABLE_RP` (priority, on) turns one priority's ECN on or off and `dcqcn`
# (knob, value) sets one DCQCN knob. Worked out from the text alone, so a dump that thousands of
# servers print alike is worked out once (`_dump_effects`).
_Effect = tuple[str, str, Any]
ENABLE_NP, ENABLE_RP = "ecn_np_priorities", "ecn_rp_priorities"
# The fields of a value under an RDMA device's configfs folder (`@rdma0`) rather than a netdev's.
_RDMA_FIELDS = frozenset({"roce_mode", "roce_tos"})


def _value_effect(path: str, value: str) -> _Effect | None:
    parts = path.strip("/").split("/")
    if parts[:3] == ["sys", "class", "net"] and len(parts) >= 5:
        if parts[4] == "mtu":
            return parts[3], "mtu", to_int(value)
        if parts[4] == "ecn" and len(parts) >= 7:
            return _ecn_effect(parts[3], parts[5].removeprefix("roce_"), parts[6:], value)
    elif parts[:4] == ["sys", "kernel", "config", "rdma_cm"] and len(parts) >= 8:
        if parts[7] == "default_roce_mode":
            return parts[4], "roce_mode", value
        if parts[7] == "default_roce_tos":
            return parts[4], "roce_tos", to_int(value)
    return None


def _ecn_effect(netdev: str, role: str, rest: list[str], value: str) -> _Effect | None:
    if rest[0] == "enable" and len(rest) == 2 and rest[1].isdigit():
        return netdev, ENABLE_NP if role == "np" else ENABLE_RP, (int(rest[1]), value == "1")
    if role == "np" and rest[0] == "cnp_dscp":
        return netdev, "cnp_dscp", to_int(value)
    if role == "np" and rest[0] == "cnp_802p_prio":
        return netdev, "cnp_priority", to_int(value)
    number = to_int(value)
    return None if number is None else (netdev, "dcqcn", (rest[0], number))


def _apply_effects(
    effects: tuple[_Effect, ...], ports: dict[str, InterfaceState], by_rdma: dict[str, InterfaceState]
) -> None:
    """The values' effects in order; a placeholder of no NIC of this server is passed over."""
    for key, name, value in effects:
        port = by_rdma.get(key) if name in _RDMA_FIELDS else ports.get(key)
        if port is None:
            continue
        if name in (ENABLE_NP, ENABLE_RP):
            priority, on = value
            current = set(getattr(port, name) or ())
            if on:
                current.add(priority)
            else:
                current.discard(priority)
            setattr(port, name, frozenset(current))
        elif name == "dcqcn":
            knob, number = value
            port.dcqcn[knob] = number
        else:
            setattr(port, name, value)


@lru_cache(maxsize=256)
def _dump_effects(generic: str) -> tuple[_Effect, ...] | None:
    """The effects of a generic sysfs dump's values in order; None when it holds no `path:value` line."""
    values = many(ttp_parse(PLATFORM, "sysfs_dump", generic).get("values"))
    if not values:
        return None
    return tuple(e for row in values if (e := _value_effect(row["path"], str(row["value"]))) is not None)


def _firmware(text: str | None) -> tuple[str | None, str | None]:
    """`28.39.2048 (MT_0000000838)` -> ('28.39.2048', 'MT_0000000838'); other shapes stay whole."""
    if text is None:
        return None, None
    found = re.fullmatch(r"(\S+) \(([^()\s]+)\)", text.strip())
    return (found.group(1), found.group(2)) if found else (text.strip(), None)


def parse_config(text: str, device: Device) -> DeviceState:
    return read_host_script(text, device, PLATFORM, _script_ports, _named)


def _named(shape: InterfaceState, netdev: str) -> InterfaceState:
    # The shapes are cached (`_script_ports`): each NIC gets its own copies of their maps.
    return port_copy(shape, netdev, ecn=dict(shape.ecn), dcqcn=dict(shape.dcqcn))


def parse_outputs(outputs: dict[str, str], device: Device) -> DeviceState:
    state = DeviceState(name=device.name, platform=PLATFORM, facets=frozenset({"qos", "version", "lldp"}))
    # Keyed by the placeholders generic_text puts in place of NIC names, so that the dumps of
    # thousands of servers are the same text and parse once.
    ports = {f"@netdev{i}": state.interface(nic.netdev) for i, nic in enumerate(device.nics)}
    by_rdma = {f"@rdma{i}": ports[f"@netdev{i}"] for i in range(len(device.nics))}
    for i, nic in enumerate(device.nics):
        port = ports[f"@netdev{i}"]
        _read_mlnx_qos(state, port, mlnx_qos_command(nic), outputs)
        dump = outputs.get(sysfs_command(nic).file)
        effects = _dump_effects(generic_text(dump or "", device))
        if effects is None:
            state.unparsed[sysfs_command(nic).cli] = (
                "no path:value lines" if dump is not None else "output missing"
            )
            state.facets -= {"qos"}
        else:
            _apply_effects(effects, ports, by_rdma)
        ethtool = outputs.get(ethtool_command(nic).file)
        port.driver, firmware = linux_host.read_driver_info(ethtool or "")
        port.firmware, port.psid = _firmware(firmware)
        _read_mlxconfig(state, port, mlxconfig_command(nic), outputs, linux_host.pci_function(ethtool))
        if port.firmware is None:
            state.unparsed[ethtool_command(nic).cli] = linux_host.refusal(
                ethtool, "ethtool -i output", "`ethtool -i IF` for firmware", "no firmware-version line"
            )
            # Driver and firmware are both unknown then: parse.unknown_output says so once.
            state.facets -= {"version"}
        linux_host.read_nic_gids(state, port, nic, outputs, device)
        register = roce_accl_command(nic)
        port.reorder_tolerant, why = read_reorder_tolerance(outputs.get(register.file))
        if why is not None:
            state.unparsed[register.cli] = why
    linux_counters.read_counters(state, device.nics, outputs, MLX5_COUNTERS)
    linux_host.read_lldp(state, outputs)
    return state


def _read_mlnx_qos(state: DeviceState, port: InterfaceState, cmd: Command, outputs: dict) -> None:
    text = outputs.get(cmd.file)
    fields, why = _qos_fields(text)
    if fields is None:
        state.unparsed[cmd.cli] = why
        # One NIC's QoS unknown leaves the host's QoS unproven: reported once, not guessed at.
        state.facets -= {"qos"}
        return
    for name, value in fields:
        setattr(port, name, value)


@lru_cache(maxsize=256)
def _qos_fields(text: str | None) -> tuple[tuple[tuple[str, object], ...] | None, str]:
    """The port fields an `mlnx_qos` output sets, in order, or None and why it is not read. It names
    no NIC, so thousands of NICs print one text: read once, its tables shared (rules only read them,
    and `share_equal` would make equal ones one object anyway)."""
    data = ttp_parse(PLATFORM, "mlnx_qos", text or "")
    qos = one(data.get("qos"))
    if "trust" not in qos or "pfc" not in qos:
        return None, _refusal(text, qos)
    priority_buffers, pg_buffers = _receive_buffers(qos)
    no_drop = frozenset(p for p, f in enumerate(qos["pfc"].split()) if f == "1")
    dscp_map = {
        int(d): row["prio"]
        for row in many(data.get("dscp2prio"))
        if isinstance(row.get("prio"), int)
        for d in str(row.get("dscps", "")).split(",")
        if d.isdigit()
    }
    strict = frozenset(
        t["tc"] for t in many(data.get("tcs")) if t.get("tsa") == "strict" and isinstance(t.get("tc"), int)
    )
    fields = (
        ("dcbx_agent", DCBX_AGENTS.get(str(qos.get("dcbx")))),
        ("priority_buffers", priority_buffers),
        ("pg_buffers", pg_buffers),
        ("trust", qos["trust"]),
        ("no_drop_priorities", no_drop),
        ("pfc_enabled", bool(no_drop)),
        ("cable_m", qos.get("cable")),
        ("dscp_map", dscp_map),
        ("strict_queues", strict),
    )
    return fields, ""


# Servers of one model and firmware print the same table for the same RDMA device: read once. Callers
# only read the values.
_current_values = lru_cache(maxsize=256)(current_values)


def _read_mlxconfig(
    state: DeviceState, port: InterfaceState, cmd: Command, outputs: dict, function: int | None
) -> None:
    """The firmware settings `mlxconfig -e q` shows: the planes the NIC's port is split over, and the
    DCBX dialect and willing bit where mlnx_qos says the firmware runs DCBX (under `OS controlled`
    the firmware's agent is off and an OS agent, lldpad, which netcfg does not read, decides). A
    missing output (a snapshot taken before netcfg collected it), or one where the tool says it
    cannot read the NIC (no MFT), leaves them unknown; any other unreadable one is named."""
    text = outputs.get(cmd.file)
    if text is None or cannot_read(text):
        return
    try:
        values = _current_values(text)
    except NotCurrentValues as exc:
        state.unparsed[cmd.cli] = str(exc)
        return
    except ValueError:
        state.unparsed[cmd.cli] = linux_host.refusal(
            text,
            "mlxconfig output",
            "`mlxconfig -e -d DEV q` for firmware settings",
            "no `Configurations:` table",
        )
        return
    # Each port of a multi-port card is its own PCI function, whose settings carry `_P<function+1>`;
    # a single-port card has no `_P2` to confuse it with.
    if function is None and any(k.endswith("_P2") for k in values):
        return
    number = (function or 0) + 1
    port.nic_planes = planes(values, number)
    if port.dcbx_agent == "firmware":
        dcbx = firmware_dcbx(values, number)
        port.dcbx_mode, port.dcbx_willing = dcbx.mode, dcbx.willing


# mlnx_qos's first line: who runs the NIC's DCBX (the kernel's DCB_CAP_DCBX_HOST flag).
DCBX_AGENTS = {"OS controlled": "os", "Firmware controlled": "firmware"}


def _refusal(text: str | None, qos: dict) -> str:
    """Why an `mlnx_qos` output was not read, naming what it is when it is something else."""
    if text is not None and "PFC configuration:" in text and "trust" not in qos:
        # mlnx-tools' first mlnx_qos printed only PFC and the TCs: trust and the DSCP map are unknown.
        return "mlnx_qos layout without `Priority trust state` (before DSCP trust): trust, DSCP map unknown"
    return linux_host.refusal(
        text, "mlnx_qos output", "`mlnx_qos -i IF` for QoS", "no trust state or PFC table"
    )


def _receive_buffers(qos: dict) -> tuple[dict[int, int] | None, dict[int, PgBuffer]]:
    """(priority -> receive buffer, buffer -> size) from `Receive buffer size (bytes):` and the
    `buffer` row; (None, {}) where mlnx_qos prints neither (older releases, or `Buffers commands are
    not supported on your system`) or either is unreadable."""
    sizes = [w for w in str(qos.get("buffer_sizes", "")).split(",") if w and "=" not in w]
    buffers = str(qos.get("prio2buffer", "")).split()
    if len(sizes) != 8 or len(buffers) != 8 or not all(w.isdigit() for w in sizes + buffers):
        return None, {}
    return dict(enumerate(map(int, buffers))), {b: PgBuffer(size=int(w)) for b, w in enumerate(sizes)}
