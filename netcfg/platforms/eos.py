"""Arista EOS: QoS per interface or through `qos profile`, rendered with Jinja2, parsed with TTP."""

from __future__ import annotations

import dataclasses
import re
import zlib
from collections import Counter
from functools import lru_cache
from types import SimpleNamespace
from typing import ClassVar

from netcfg.lab.profile import CliProfile
from netcfg.model import Device, DeviceState, EcnSetting, InterfaceState, LldpNeighbor, Watchdog
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.base import Command, Platform, register
from netcfg.templating import template

PROFILE = "ROCE_LOSSLESS"
# Buffer segment size behind the `segments` unit: ASIC dependent (208 B on Jericho-family chips).
SEGMENT_BYTES = 208
UNIT_BYTES = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000, "segments": SEGMENT_BYTES}
SHOW_VERSION = Command("show version", "show_version")
SHOW_RUNNING = Command("show running-config", "show_running-config")
SHOW_LLDP = Command("show lldp neighbors", "show_lldp_neighbors")
_SECRETS = [
    (
        re.compile(r"^(\s*(?:username \S+ (?:privilege \d+ )?(?:role \S+ )?secret(?: sha512)?)) \S+", re.M),
        r"\1 <masked>",
    ),
    (re.compile(r"^(\s*enable (?:password|secret)(?: sha512)?) \S+", re.M), r"\1 <masked>"),
    (re.compile(r"^(\s*snmp-server community) \S+", re.M), r"\1 <masked>"),
    (re.compile(r"^(\s*(?:tacacs|radius)-server (?:host \S+ .*?)?key(?: \d)?) \S+", re.M), r"\1 <masked>"),
    (re.compile(r"^(\s*(?:neighbor \S+ )?password(?: \d)?) \S+", re.M), r"\1 <masked>"),
]


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
        by_tc: dict[int, list[int]] = {}
        for dscp, tc in sorted(state.dscp_map.items()):
            by_tc.setdefault(tc, []).append(dscp)
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
        if "interface " not in text and "qos " not in text:
            state.unparsed["running-config"] = "no interface or qos section found"
            return state
        rest, interfaces = split_interfaces(text)
        # Outside its interfaces a switch's config differs from its peers' only by its own name.
        data = ttp_parse(self.name, "running_config", rest.replace(device.name, "@device"))
        profiles = {p.get("name"): p for p in many(data.get("profiles"))}
        resolved: dict[str, InterfaceState] = {}
        for name, description, body in interfaces:
            shape = resolved.get(body)
            if shape is None:
                block = _interface_body(body)
                shape = resolved[body] = InterfaceState(name="", mtu=block.get("mtu"))
                # Interface lines override the profile, as on the device.
                _apply_qos(shape, profiles.get(block.get("profile"), {}))
                _apply_qos(shape, block)
            state.interfaces[name] = dataclasses.replace(
                shape, name=name, description=description, ecn=dict(shape.ecn)
            )
        for entry in many(data.get("dscp_maps")):
            for dscp in str(entry.get("dscps", "")).split():
                if dscp.isdigit():
                    state.dscp_map[int(dscp)] = entry["tc"]
        wd = one(data.get("watchdog"))
        if wd:
            state.watchdog = Watchdog(
                enabled=True,
                action=wd.get("action"),
                detection_ms=_ms(wd.get("timeout")),
                restoration_ms=_ms(wd.get("recovery")),
                polling_ms=_ms(wd.get("polling")),
            )
        else:
            state.watchdog = Watchdog(enabled=False)
        header = one(data.get("header"))
        state.model, state.os_version = header.get("model"), header.get("version")
        return state

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        running = outputs.get(SHOW_RUNNING.file)
        if running is not None:
            state = self.parse_config(running, device)
            if not re.search(r"^end\s*$", running, re.M):
                # EOS always closes the running config with `end`: without it the output was cut short.
                state.unparsed.setdefault(SHOW_RUNNING.cli, "output truncated (no closing 'end' line)")
        else:
            state = DeviceState(name=device.name, platform=self.name)
            state.unparsed[SHOW_RUNNING.cli] = "output missing"
        state.facets = frozenset({"qos", "version", "lldp"})
        version_text = outputs.get(SHOW_VERSION.file)
        if version_text is not None:
            # Snapshots taken by hand or by older netcfg carry `show version`: when present it decides,
            # and a broken one leaves the version unknown rather than taken from elsewhere.
            version = one(ttp_parse(self.name, "show_version", version_text).get("version"))
            state.model, state.os_version = version.get("model"), version.get("version")
            if state.os_version is None:
                state.unparsed[SHOW_VERSION.cli] = "no 'Software image version' line"
        elif running is not None and state.os_version is None:
            state.unparsed.setdefault(
                SHOW_RUNNING.cli, "no '! device: NAME (MODEL, EOS-VERSION)' header line"
            )
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
        for pattern, repl in _SECRETS:
            text = pattern.sub(repl, text)
        return text


def split_interfaces(text: str) -> tuple[str, list[tuple[str, str | None, str]]]:
    """The config without its `interface` blocks, and each block as (name, description, body).

    Fabric switches repeat one interface body hundreds of times with only the name and description
    changing: parsing each distinct body once (below) keeps TTP off the hot path at 32k-GPU scale.
    """
    rest: list[str] = []
    blocks: list[tuple[str, str | None, str]] = []
    current: list[str] | None = None
    name, description = "", None
    for line in text.splitlines():
        if line.startswith("interface ") and len(line.split()) == 2:
            if current is not None:
                blocks.append((name, description, "".join(current)))
            name, description, current = line.split()[1], None, []
        elif current is not None and line[:1] in (" ", ""):
            if line.startswith("   description ") and description is None:
                description = line[len("   description ") :]
            else:
                current.append(line + "\n")
        else:
            if current is not None:
                blocks.append((name, description, "".join(current)))
                current = None
            rest.append(line + "\n")
    if current is not None:
        blocks.append((name, description, "".join(current)))
    return "".join(rest), blocks


def _interface_body(body: str) -> dict:
    parsed = many(ttp_parse(Eos.name, "running_config", f"interface _\n{body}!\n").get("interfaces"))
    return parsed[0] if parsed else {}


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
        min_bytes=q["min"] * UNIT_BYTES[q["min_unit"]] if q["min_unit"] in UNIT_BYTES else -1,
        max_bytes=q["max"] * UNIT_BYTES[q["max_unit"]] if q["max_unit"] in UNIT_BYTES else -1,
        probability=int(prob.group(1)) if prob else 100,
    )


def _ms(seconds: str | None) -> int | None:
    try:
        return round(float(seconds) * 1000) if seconds is not None else None
    except ValueError:
        return None


def _short(interface: str) -> str:
    return interface.replace("Ethernet", "Et", 1)


def _long(interface: str) -> str:
    return "Ethernet" + interface[2:] if re.match(r"Et\d", interface) else interface
