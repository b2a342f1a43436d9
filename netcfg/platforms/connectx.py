"""Linux GPU server with NVIDIA ConnectX NICs: an idempotent host script, and its read-back.

Read-back per NIC: `mlnx_qos -i IF` (trust, DSCP->priority, PFC), a `grep -rH` dump of the ECN
sysfs and RDMA-CM configfs values, and `ethtool -i IF` (driver, firmware); its link state, PCIe link
and counters (netcfg.platforms.linux_counters, mlx5 names in netcfg.platforms.mlx5_counters);
`lldpcli show neighbors` once per host.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from functools import lru_cache
from types import SimpleNamespace
from typing import ClassVar

from netcfg.lab.profile import CliProfile
from netcfg.model import DSCP_VALUES, Device, DeviceState, InterfaceState, Nic
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms import linux_counters, linux_host
from netcfg.platforms.base import Batch, Command, Platform, register
from netcfg.platforms.linux_host import (
    LLDP,
    ScriptLocations,
    ethtool_command,
    generic_text,
    named_locations,
    params,
    script_locations,
    to_int,
    tokens,
)
from netcfg.platforms.mlx5_counters import LINK_MODES, MLX5_COUNTERS, stats_lines
from netcfg.templating import template

NP_DCQCN = ("min_time_between_cnps",)
# parse_config's name for the script in `unparsed` (and in `locations`, for where it went wrong).
HOST_SCRIPT = "host script"
PRIORITIES = range(8)
# ConnectX firmware default: DSCP d on priority d >> 3 until mlnx_qos --dscp2prio changes it.
FIRMWARE_DSCP_MAP = {d: d >> 3 for d in DSCP_VALUES}


def _mlnx_qos(nic: Nic) -> Command:
    return Command(f"mlnx_qos -i {nic.netdev}", f"mlnx_qos_{nic.netdev}")


def _sysfs(nic: Nic) -> Command:
    cli = (
        f"grep -rH . /sys/class/net/{nic.netdev}/mtu /sys/class/net/{nic.netdev}/ecn "
        f"/sys/kernel/config/rdma_cm/{nic.rdma_device}/ports/1"
    )
    return Command(cli, f"sysfs_{nic.netdev}")


def _bitmap(prios: frozenset[int] | None) -> str | None:
    return None if prios is None else ",".join("1" if p in prios else "0" for p in PRIORITIES)


def _prio_list(prios: frozenset[int] | None) -> str | None:
    return None if prios is None else ",".join(map(str, sorted(prios))) or "none"


def _parse_prio_list(text: str) -> frozenset[int]:
    return frozenset(int(p) for p in text.split(",") if p.isdigit())


@register
class ConnectX(Platform):
    name: ClassVar[str] = "connectx"
    kind: ClassVar = "host"
    netmiko_device_type: ClassVar[str] = "linux"
    config_suffix: ClassVar[str] = ".sh"
    description: ClassVar[str] = "Linux GPU server with NVIDIA ConnectX NICs"
    cli_profile: ClassVar[CliProfile] = CliProfile(
        prompt="{user}@{name}:~$ ", setup_replies={}, invalid_input="-bash: {command}: command not found"
    )
    # Read-back only: `mlnx_qos -i IF` with any further option sets what it shows (interface names
    # start with a letter or digit, so none passes for an option); the rest as every Linux host.
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"mlnx_qos -i [A-Za-z0-9][A-Za-z0-9_.:-]*",
        linux_host.ETHTOOL_READ_ONLY,
        linux_counters.ETHTOOL_LINK_READ_ONLY,
        linux_counters.ETHTOOL_STATS_READ_ONLY,
        linux_host.GREP_READ_ONLY,
        linux_host.LLDP_READ_ONLY,
    )
    # The kernel drivers of the NICs this platform configures (`ethtool -i`): a NIC on another driver
    # (an Intel i40e or ice in a rail) takes none of the mlnx_qos or ConnectX sysfs settings.
    nic_drivers: ClassVar[frozenset[str]] = frozenset({"mlx5_core"})
    # mlnx_qos reports `Cable len: 7` on a NIC nobody has set up.
    default_cable_m: ClassVar[int | None] = 7
    lab_version: ClassVar[str] = "28.41.1000"

    def commands(self, device: Device) -> list[Command]:
        per_nic = [
            c
            for nic in device.nics
            for c in (
                _mlnx_qos(nic),
                _sysfs(nic),
                ethtool_command(nic),
                *linux_counters.nic_counter_commands(nic),
            )
        ]
        return [*per_nic, LLDP]

    def batches(self, device: Device) -> list[Batch]:
        # Thirteen-plus round trips per server dominated collection time; bash chains them in one.
        return [Batch(tuple(self.commands(device)))]

    # --- render ---------------------------------------------------------------------------------

    def render_config(self, state: DeviceState, device: Device) -> str:
        nics = []
        for nic in device.nics:
            port = state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev))
            overrides = sorted((d, p) for d, p in (port.dscp_map or {}).items() if d >> 3 != p)
            nics.append(
                SimpleNamespace(
                    netdev=nic.netdev,
                    rdma=nic.rdma_device,
                    rail=nic.rail,
                    mtu=port.mtu,
                    qos=_mlnx_qos_options(port),
                    dscp2prio=overrides,
                    np=_prio_list(port.ecn_np_priorities),
                    rp=_prio_list(port.ecn_rp_priorities),
                    np_values=params(_np_values(port)),
                    rp_values=params(sorted((k, v) for k, v in port.dcqcn.items() if k not in NP_DCQCN)),
                    cm_values=params(
                        [("default_roce_mode", port.roce_mode), ("default_roce_tos", port.roce_tos)]
                    ),
                )
            )
        return template("connectx/host.sh.j2").render(name=state.name, nics=nics)

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        out = {}
        for index, nic in enumerate(device.nics):
            port = state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev))
            table = port.dscp_map or {}
            by_prio = [
                (
                    p,
                    ",".join(
                        f"{d:02d}" for d in sorted((d for d, q in table.items() if q == p), reverse=True)
                    )
                    + ",",
                )
                for p in PRIORITIES
            ]
            out[_mlnx_qos(nic).cli] = template("connectx/mlnx_qos.j2").render(
                trust=port.trust or "pcp",
                dscp2prio=by_prio,
                cable_len=port.cable_m if port.cable_m is not None else 7,
                pfc="".join(f"{'1' if p in (port.no_drop_priorities or ()) else '0'}   " for p in PRIORITIES),
                strict=port.strict_queues,
            )
            out[_sysfs(nic).cli] = template("connectx/sysfs_dump.j2").render(values=_sysfs_values(port, nic))
            out[ethtool_command(nic).cli] = linux_host.render_driver_info(
                driver=port.driver or "mlx5_core",
                version="24.10-1.1.4",
                firmware=f"{port.firmware} ({port.psid})" if port.psid else str(port.firmware),
                bus=f"{0x17 + index * 0x10:02x}",
                eeprom=False,
            )
            counters = state.counters.get(nic.netdev)
            out |= linux_counters.render_nic_counters(
                port, counters, nic, MLX5_COUNTERS, LINK_MODES, stats_lines(counters)
            )
        out[LLDP.cli] = linux_host.render_lldp(state)
        return out

    # --- parse ----------------------------------------------------------------------------------

    def parse_config(self, text: str, device: Device) -> DeviceState:
        state = DeviceState(name=device.name, platform=self.name, facets=frozenset({"qos"}))
        if "\r" in text:
            # bash reads `\r` as part of each word (`--trust dscp\r`): such a script fails on the host.
            state.unparsed[HOST_SCRIPT] = "CRLF line ending; expected LF"
            state.locations[HOST_SCRIPT] = text.count("\n", 0, text.index("\r")) + 1
            return state
        shapes, unparsed, where = _script_ports(generic_text(text, device), len(device.nics))
        if HOST_SCRIPT in unparsed:
            state.unparsed = dict(unparsed)
            return state
        names = [nic.netdev for nic in device.nics]
        for i, netdev in enumerate(names):
            shape = shapes[i]
            state.interfaces[netdev] = dataclasses.replace(
                shape, name=netdev, ecn=dict(shape.ecn), dcqcn=dict(shape.dcqcn)
            )
        state.unparsed = {key.format(*names): why for key, why in unparsed.items()}
        state.locations = named_locations(where, tuple(names))
        return state

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        state = DeviceState(
            name=device.name, platform=self.name, facets=frozenset({"qos", "version", "lldp"})
        )
        # Keyed by the placeholders generic_text puts in place of NIC names, so that the dumps of
        # thousands of servers are the same text and parse once.
        ports = {f"@netdev{i}": state.interface(nic.netdev) for i, nic in enumerate(device.nics)}
        by_rdma = {f"@rdma{i}": ports[f"@netdev{i}"] for i in range(len(device.nics))}
        for i, nic in enumerate(device.nics):
            port = ports[f"@netdev{i}"]
            self._read_mlnx_qos(state, port, _mlnx_qos(nic), outputs)
            dump = outputs.get(_sysfs(nic).file)
            generic = generic_text(dump or "", device)
            values = many(ttp_parse(self.name, "sysfs_dump", generic).get("values"))
            if not values:
                state.unparsed[_sysfs(nic).cli] = (
                    "no path:value lines" if dump is not None else "output missing"
                )
                state.facets -= {"qos"}
            for row in values:
                _apply_value(ports, by_rdma, row["path"], str(row["value"]))
            port.driver, firmware = linux_host.read_driver_info(outputs.get(ethtool_command(nic).file, ""))
            port.firmware, port.psid = _firmware(firmware)
            if port.firmware is None:
                state.unparsed[ethtool_command(nic).cli] = "no firmware-version line"
                # Driver and firmware are both unknown then: parse.unknown_output says so once.
                state.facets -= {"version"}
        linux_counters.read_counters(state, device.nics, outputs, MLX5_COUNTERS)
        linux_host.read_lldp(state, outputs)
        return state

    def _read_mlnx_qos(self, state: DeviceState, port: InterfaceState, cmd: Command, outputs: dict) -> None:
        text = outputs.get(cmd.file)
        data = ttp_parse(self.name, "mlnx_qos", text or "")
        qos = one(data.get("qos"))
        if "trust" not in qos or "pfc" not in qos:
            state.unparsed[cmd.cli] = "output missing" if text is None else "no trust state or PFC table"
            # One NIC's QoS unknown leaves the host's QoS unproven: reported once, not guessed at.
            state.facets -= {"qos"}
            return
        port.trust = qos["trust"]
        flags = qos["pfc"].split()
        port.no_drop_priorities = frozenset(p for p, f in enumerate(flags) if f == "1")
        port.pfc_enabled = bool(port.no_drop_priorities)
        port.cable_m = qos.get("cable")
        port.dscp_map = {
            int(d): row["prio"]
            for row in many(data.get("dscp2prio"))
            if isinstance(row.get("prio"), int)
            for d in str(row.get("dscps", "")).split(",")
            if d.isdigit()
        }
        port.strict_queues = frozenset(
            t["tc"]
            for t in many(data.get("tcs"))
            if t.get("tsa") == "strict" and isinstance(t.get("tc"), int)
        )

    def mask_secrets(self, text: str) -> str:
        return text


# Where the settings of a generic host script stand: ((NIC index, ".field" or ""), line), hashable.


@lru_cache(maxsize=256)
def _script_ports(text: str, nics: int) -> tuple[list[InterfaceState], dict[str, str], ScriptLocations]:
    """NIC settings of a generic host script, NIC i as `@netdev{i}`; unparsed keys use `{i}` for names;
    where each NIC's settings stand, keyed (NIC index, ".field" or "" for the NIC's first line)."""
    ports = {f"@netdev{i}": InterfaceState(name=f"{{{i}}}") for i in range(nics)}
    unparsed: dict[str, str] = {}
    data = ttp_parse(ConnectX.name, "host_script", text)
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


def _mlnx_qos_options(port: InterfaceState) -> str:
    options = []
    if port.trust:
        options.append(f"--trust {port.trust}")
    if port.no_drop_priorities is not None:
        options.append(f"--pfc {_bitmap(port.no_drop_priorities)}")
    if port.cable_m is not None:
        options.append(f"--cable_len {port.cable_m}")
    return " ".join(options)


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
    parts = path.strip("/").split("/")
    if parts[:3] == ["sys", "class", "net"] and len(parts) >= 5 and parts[3] in ports:
        port = ports[parts[3]]
        if parts[4] == "mtu":
            port.mtu = to_int(value)
        elif parts[4] == "ecn" and len(parts) >= 7:
            _apply_ecn_value(port, parts[5].removeprefix("roce_"), parts[6:], value)
    elif parts[:4] == ["sys", "kernel", "config", "rdma_cm"] and len(parts) >= 8 and parts[4] in by_rdma:
        port = by_rdma[parts[4]]
        if parts[7] == "default_roce_mode":
            port.roce_mode = value
        elif parts[7] == "default_roce_tos":
            port.roce_tos = to_int(value)


def _apply_ecn_value(port: InterfaceState, role: str, rest: list[str], value: str) -> None:
    if rest[0] == "enable" and len(rest) == 2 and rest[1].isdigit():
        attr = "ecn_np_priorities" if role == "np" else "ecn_rp_priorities"
        current = set(getattr(port, attr) or ())
        if value == "1":
            current.add(int(rest[1]))
        else:
            current.discard(int(rest[1]))
        setattr(port, attr, frozenset(current))
    elif role == "np" and rest[0] == "cnp_dscp":
        port.cnp_dscp = to_int(value)
    elif role == "np" and rest[0] == "cnp_802p_prio":
        port.cnp_priority = to_int(value)
    elif to_int(value) is not None:
        port.dcqcn[rest[0]] = to_int(value)


def _np_values(port: InterfaceState) -> list[tuple[str, int]]:
    values = [("cnp_dscp", port.cnp_dscp), ("cnp_802p_prio", port.cnp_priority)]
    values += [(k, port.dcqcn[k]) for k in NP_DCQCN if k in port.dcqcn]
    return [(k, v) for k, v in values if v is not None]


def _sysfs_values(port: InterfaceState, nic: Nic) -> list[tuple[str, object]]:
    net = f"/sys/class/net/{nic.netdev}"
    cm = f"/sys/kernel/config/rdma_cm/{nic.rdma_device}/ports/1"
    values: list[tuple[str, object]] = [(f"{net}/mtu", port.mtu)]
    for role, prios in (("np", port.ecn_np_priorities), ("rp", port.ecn_rp_priorities)):
        values += [(f"{net}/ecn/roce_{role}/enable/{p}", int(p in (prios or ()))) for p in PRIORITIES]
    values += [(f"{net}/ecn/roce_np/{k}", v) for k, v in _np_values(port)]
    values += [(f"{net}/ecn/roce_rp/{k}", v) for k, v in sorted(port.dcqcn.items()) if k not in NP_DCQCN]
    values += [(f"{cm}/default_roce_mode", port.roce_mode), (f"{cm}/default_roce_tos", port.roce_tos)]
    return [(p, v) for p, v in values if v is not None]


def _firmware(text: str | None) -> tuple[str | None, str | None]:
    """`28.39.2048 (MT_0000000838)` -> ('28.39.2048', 'MT_0000000838'); other shapes stay whole."""
    if text is None:
        return None, None
    found = re.fullmatch(r"(\S+) \(([^()\s]+)\)", text.strip())
    return (found.group(1), found.group(2)) if found else (text.strip(), None)
