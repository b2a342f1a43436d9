"""Arista EOS: QoS per interface or through `qos profile`, rendered with Jinja2, parsed with TTP."""

from __future__ import annotations

import dataclasses
import re
import sys
import zlib
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from types import SimpleNamespace
from typing import ClassVar

from netutils.config.clean import sanitize_config

from netcfg.lab.profile import CliProfile
from netcfg.model import Device, DeviceState, EcnSetting, InterfaceState, LldpNeighbor, Watchdog
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.base import Command, Platform, register
from netcfg.platforms.eos_text import Block, setting_offsets, split_config
from netcfg.templating import template

PROFILE = "ROCE_LOSSLESS"
# Buffer segment size behind the `segments` unit: ASIC dependent (208 B on Jericho-family chips).
SEGMENT_BYTES = 208
UNIT_BYTES = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000, "segments": SEGMENT_BYTES}
SHOW_VERSION = Command("show version", "show_version")
SHOW_RUNNING = Command("show running-config", "show_running-config")
SHOW_LLDP = Command("show lldp neighbors", "show_lldp_neighbors")
# parse_config's name for the text it was given (a file or `show running-config`) in `unparsed`.
RUNNING_CONFIG = "running-config"
# The InterfaceState fields a `qos profile` can set.
QOS_FIELDS = ("trust", "pfc_enabled", "no_drop_priorities", "ecn", "strict_queues", "watchdog")

# Secrets in EOS config lines: what precedes each secret (keywords and encryption type, kept), for
# netutils' sanitize_config, which puts <masked> in place of the secret so the config still parses.
_TYPE = r"(?: (?:0|5|7|8a|sha512|md5))?"
_BEFORE_SECRET = [
    rf"^\s*(?:username|enable)\b.*? (?:secret|password){_TYPE}",
    rf"^\s*neighbor \S+ password{_TYPE}",
    rf"(?<![\w-])secret{_TYPE}",
    rf"^\s*(?:radius|tacacs)-server\b.*? key{_TYPE}",
    rf"authentication-key(?: \d+)?(?: (?:md5|sha\d*))?{_TYPE}",
    rf"message-digest-key \d+ (?:md5|sha\d*){_TYPE}",
    rf"^\s*(?:isis )?authentication key{_TYPE}",
    rf"(?:pre-)?shared-key{_TYPE}",
    r"^\s*snmp-server community",
    r"\bauth (?:md5|sha\d*)",
    r"\bpriv (?:des|3des|aes\d*)",
]
# Where the rest of the line is already masked (by an earlier filter, or an earlier run), it stays.
_VALUE = r" (?![^\n]*<masked>)[^\s,]+"
SECRET_FILTERS = [{"regex": rf"({before}){_VALUE}", "replace": r"\1 <masked>"} for before in _BEFORE_SECRET]
# TerminAttr's CloudVision key sits inside one long `exec` argument.
SECRET_FILTERS.append({"regex": r"(-cvauth=key,)[^\s,]+", "replace": r"\1<masked>"})


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


@register
class Eos(Platform):
    name: ClassVar[str] = "eos"
    kind: ClassVar = "switch"
    netmiko_device_type: ClassVar[str] = "arista_eos"
    config_suffix: ClassVar[str] = ".cfg"
    description: ClassVar[str] = "Arista EOS switch"
    # netmiko's arista_eos waits for these exact confirmations while preparing the session.
    cli_profile: ClassVar[CliProfile] = CliProfile(
        prompt="{name}#",
        setup_replies={
            "terminal width 511": "Width set to 511 columns.",
            "terminal length 0": "Pagination disabled.",
        },
        invalid_input="% Invalid input",
    )
    lab_version: ClassVar[str] = "4.32.1F"
    lab_model: ClassVar[str | None] = "DCS-7060X6-64PE"
    hier_config_platform: ClassVar[str | None] = "ARISTA_EOS"
    running_config_file: ClassVar[str | None] = SHOW_RUNNING.file
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"show running-config",
        r"show lldp neighbors",
        r"show version",
    )

    def commands(self, device: Device) -> list[Command]:
        # EOS heads its running config with `! device: NAME (MODEL, EOS-VERSION)`: a separate `show
        # version` would cost a round trip per switch for the same two facts.
        return [SHOW_RUNNING, SHOW_LLDP]

    # --- render ---------------------------------------------------------------------------------

    def render_config(self, state: DeviceState, device: Device) -> str:
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

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        config = self.render_config(state, device)
        header = (
            "! Command: show running-config\n"
            f"! device: {state.name} ({state.model}, EOS-{state.os_version})\n"
        )
        version = template("eos/show_version.j2").render(
            model=state.model,
            version=state.os_version,
            serial=f"JPE{zlib.crc32(state.name.encode()) % 10**8:08d}",
            mac=_mac(state.name),
            build=f"{zlib.crc32((state.os_version or '').encode()) % 10**8:08d}",
        )
        neighbors = [
            {"local": _short(n.local_interface), "system_name": n.system_name, "port": n.port}
            for n in state.lldp
        ]
        return {
            SHOW_VERSION.cli: version,
            SHOW_RUNNING.cli: header + config.split("\n", 1)[1],
            SHOW_LLDP.cli: template("eos/show_lldp_neighbors.j2").render(neighbors=neighbors),
        }

    # --- parse ----------------------------------------------------------------------------------

    def parse_config(self, text: str, device: Device) -> DeviceState:
        state = DeviceState(name=device.name, platform=self.name, facets=frozenset({"qos"}))
        config = split_config(text)
        not_eos = config.not_eos()
        if not_eos is not None:
            line, why = not_eos
            state.unparsed[RUNNING_CONFIG] = f"not an Arista EOS config: {why}"
            state.locations[RUNNING_CONFIG] = line
            return state
        where = config.global_lines()
        # Outside its blocks a switch's QoS differs from its peers' only by its own name.
        globals_text = "".join(f"{line}\n" for _, line in config.globals)
        data = ttp_parse(self.name, "running_config", globals_text.replace(device.name, "@device"))
        pfc_off_line = where.get("pfc_all_off") if one(data.get("pfc_all_off")) else None
        profiles = {name: (_block_values(b.body), b) for name, b in config.profiles.items()}
        resolved: dict[str, _Shape] = {}
        for block in config.interfaces:
            shape = resolved.get(block.body)
            if shape is None:
                shape = resolved[block.body] = _resolve(block.body, profiles, pfc_off_line)
            state.interfaces[block.name] = dataclasses.replace(
                shape.port, name=block.name, description=block.description, ecn=dict(shape.port.ecn)
            )
            # Interned: every switch of a fabric has the same port names, so the keys are shared.
            loc = state.locations
            loc[block.name] = block.line
            for name, offset in shape.offsets.items():
                loc[sys.intern(f"{block.name}.{name}")] = block.line + offset
            for name, line in shape.lines.items():
                loc[sys.intern(f"{block.name}.{name}")] = line
        for entry in many(data.get("dscp_maps")):
            for dscp in _numbers(entry.get("dscps")):
                state.dscp_map[dscp] = entry["tc"]
        for entry in many(data.get("tc_queues")):
            for tc in _numbers(entry.get("tcs")):
                if tc != entry["queue"]:
                    state.tc_queue[tc] = entry["queue"]
        state.watchdog = _watchdog(data)
        header = one(data.get("header"))
        state.model, state.os_version = header.get("model"), header.get("version")
        for name in ("dscp_map", "tc_queue", "watchdog"):
            if name in where:
                state.locations[name] = where[name]
        # Device-wide settings that are missing belong at the end, before `end`.
        state.locations[""] = max(1, config.end_line - 1) if config.end_line else max(1, config.last_line)
        return state

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        running = outputs.get(SHOW_RUNNING.file)
        if running is not None:
            state = self.parse_config(running, device)
            why = state.unparsed.pop(RUNNING_CONFIG, None)
            if why is None and not re.search(r"^end\s*$", running, re.M):
                # EOS always closes the running config with `end`: without it the output was cut short.
                why = "output truncated (no closing 'end' line)"
        else:
            state = DeviceState(name=device.name, platform=self.name)
            why = "output missing"
        state.facets = frozenset({"qos", "version", "lldp"})
        if why is not None:
            state.unparsed[SHOW_RUNNING.cli] = why
            # What an unreadable config says is no evidence either way: its QoS (and the version in
            # its header) are left out of the checks, and parse.unknown_output reports it once.
            state.facets -= {"qos", "version"}
        elif state.os_version is None and SHOW_VERSION.file not in outputs:
            # A readable config without its header: the QoS stands, the version is unknown.
            state.unparsed[SHOW_RUNNING.cli] = "no '! device: NAME (MODEL, EOS-VERSION)' header line"
            state.facets -= {"version"}
        version_text = outputs.get(SHOW_VERSION.file)
        if version_text is not None:
            # Snapshots taken by hand or by older netcfg carry `show version`: when present it decides,
            # and a broken one leaves the version unknown rather than taken from elsewhere.
            version = one(ttp_parse(self.name, "show_version", version_text).get("version"))
            state.model, state.os_version = version.get("model"), version.get("version")
            state.facets |= {"version"}
            if state.os_version is None:
                state.unparsed[SHOW_VERSION.cli] = "no 'Software image version' line"
                state.facets -= {"version"}
        lldp_text = outputs.get(SHOW_LLDP.file, "")
        lldp = many(ttp_parse(self.name, "show_lldp_neighbors", lldp_text).get("neighbors"))
        if not lldp and "Neighbor Device ID" not in lldp_text:
            state.unparsed[SHOW_LLDP.cli] = "no neighbor table"
            # An unreadable table says nothing about cabling: parse.unknown_output reports it once,
            # where rail.cabling would report every port of the switch as having no neighbour.
            state.facets -= {"lldp"}
        state.lldp = [LldpNeighbor(_long(n["local"]), n["system_name"], n["port"]) for n in lldp]
        return state

    def mask_secrets(self, text: str) -> str:
        return sanitize_config(text, SECRET_FILTERS)


@dataclass(frozen=True, slots=True)
class _Shape:
    """The QoS of one distinct interface body, and where each setting came from: `offsets` from the
    block's own header line (settings written in the block), `lines` absolute (profile, global)."""

    port: InterfaceState
    offsets: dict[str, int]
    lines: dict[str, int]


def _resolve(body: str, profiles: dict[str, tuple[dict, Block]], pfc_off_line: int | None) -> _Shape:
    block = _block_values(body)
    offsets = dict(setting_offsets(body))
    offsets.pop("profile", None)
    lines: dict[str, int] = {}
    port = InterfaceState(name="", mtu=block.get("mtu"))
    profile = profiles.get(block.get("profile"))
    if profile is not None:
        values, header = profile
        # Interface lines override the profile, as on the device.
        _apply_qos(port, values)
        for name, offset in setting_offsets(header.body).items():
            if name not in offsets:
                lines[name] = header.line + offset
        # A setting missing from both belongs in the profile the port takes its QoS from.
        lines |= {name: header.line for name in QOS_FIELDS if name not in offsets and name not in lines}
    _apply_qos(port, block)
    if pfc_off_line is not None:
        # `priority-flow-control all off` turns PFC off on every port, whatever the port says.
        port.pfc_enabled = False
        if port.no_drop_priorities is None:
            port.no_drop_priorities = frozenset()
        offsets.pop("pfc_enabled", None)
        lines["pfc_enabled"] = pfc_off_line
    return _Shape(port, offsets, lines)


def _block_values(body: str) -> dict:
    return one(ttp_parse(Eos.name, "qos_block", f"block _\n{body}!\n").get("block"))


def _apply_qos(port: InterfaceState, block: dict) -> None:
    if "trust" in block:
        port.trust = block["trust"]
    if "pfc" in block:
        port.pfc_enabled = block["pfc"] == "on"
    if "watchdog" in block:
        port.watchdog = True
    prios = many(block.get("pfc_priorities"))
    if prios:
        current = set(port.no_drop_priorities or ())
        for p in prios:
            if p.get("mode") == "no-drop":
                current.add(p["priority"])
            else:
                current.discard(p["priority"])
        port.no_drop_priorities = frozenset(current)
    elif port.pfc_enabled is not None and port.no_drop_priorities is None:
        port.no_drop_priorities = frozenset()
    strict = set(port.strict_queues)
    for q in many(block.get("queues")):
        queue = q["queue"]
        if q.get("strict"):
            strict.add(queue)
        if "min" in q:
            port.ecn[queue] = _ecn(q)
    port.strict_queues = frozenset(strict)


def _ecn(q: dict) -> EcnSetting:
    """Thresholds in bytes; latency-based units (milliseconds) cannot be compared and stay -1."""
    prob = re.search(r"max-mark-probability (\d+)", q.get("options", ""))
    return EcnSetting(
        min_bytes=_bytes(q["min"], q["min_unit"]),
        max_bytes=_bytes(q["max"], q["max_unit"]),
        probability=int(prob.group(1)) if prob else 100,
    )


def _bytes(value: str, unit: str) -> int:
    """`0.15 mbytes` -> 150000; exact in decimal, since a threshold is a count of bytes."""
    if unit not in UNIT_BYTES:
        return -1
    try:
        return int((Decimal(value) * UNIT_BYTES[unit]).to_integral_value())
    except InvalidOperation:
        return -1


def _watchdog(data: dict) -> Watchdog:
    """The device-wide watchdog lines: any of them present means configured; a missing one is unknown."""
    keys = ("timeout", "recovery", "polling", "action")
    values = {key: one(data.get(f"wd_{key}")).get("value") for key in keys}
    if all(v is None for v in values.values()):
        return Watchdog(enabled=False)
    return Watchdog(
        enabled=True,
        action=values["action"],
        detection_ms=_ms(values["timeout"]),
        restoration_ms=_ms(values["recovery"]),
        polling_ms=_ms(values["polling"]),
    )


def _numbers(text: object) -> list[int]:
    """'24 25 26' or '24-27' -> the numbers; anything else in the list is skipped."""
    out: list[int] = []
    for word in str(text or "").split():
        low, _, high = word.partition("-")
        if low.isdigit() and (not high or high.isdigit()):
            out += range(int(low), int(high or low) + 1)
    return out


def _ms(seconds: str | None) -> int | None:
    try:
        return round(float(seconds) * 1000) if seconds is not None else None
    except ValueError:
        return None


def _short(interface: str) -> str:
    return interface.replace("Ethernet", "Et", 1)


def _long(interface: str) -> str:
    return "Ethernet" + interface[2:] if re.match(r"Et\d", interface) else interface
