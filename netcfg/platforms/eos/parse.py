"""DeviceState from an EOS config text or a switch's collected outputs (TTP templates in
templates/eos/parse/; the text cut into blocks, with line numbers, by `text`)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from netcfg.model import (
    Device,
    DeviceState,
    EcnSetting,
    InterfaceState,
    LldpNeighbor,
    StaticRoute,
    Watchdog,
    port_copy,
    state_copy,
)
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.eos import balancing
from netcfg.platforms.eos.commands import (
    NAME,
    RUNNING_CONFIG,
    SHOW_LLDP,
    SHOW_LLDP_DETAIL,
    SHOW_RUNNING,
    SHOW_VERSION,
)
from netcfg.platforms.eos.counters import read_counters
from netcfg.platforms.eos.lldp import read_detail
from netcfg.platforms.eos.text import Block, long_interface, setting_offsets, split_config

# Buffer segment size behind the `segments` unit: ASIC dependent (208 B on Jericho-family chips).
SEGMENT_BYTES = 208
UNIT_BYTES = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000, "segments": SEGMENT_BYTES}
# The InterfaceState fields a `qos profile` can set.
QOS_FIELDS = ("trust", "pfc_enabled", "no_drop_priorities", "ecn", "strict_queues", "watchdog")


def parse_config(text: str, device: Device) -> DeviceState:
    """DeviceState of an EOS config text, with where each setting stands in it."""
    state = DeviceState(name=device.name, platform=NAME, facets=frozenset({"qos"}))
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
    data = ttp_parse(NAME, "running_config", globals_text.replace(device.name, "@device"))
    pfc_off_line = where.get("pfc_all_off") if one(data.get("pfc_all_off")) else None
    profiles = {name: (_block_values(b.body), b) for name, b in config.profiles.items()}
    resolved: dict[str, _Shape] = {}
    for block in config.interfaces:
        shape = resolved.get(block.body)
        if shape is None:
            shape = resolved[block.body] = _resolve(block.body, profiles, pfc_off_line)
        state.interfaces[block.name] = port_copy(
            shape.port,
            block.name,
            description=block.description,
            ecn=dict(shape.port.ecn),
            switched=_switched(block.name, block.body),
        )
        # Interned: every switch of a fabric has the same port names, so the keys are shared.
        loc = state.locations
        loc[block.name] = block.line
        for name, offset in shape.offsets.items():
            loc[sys.intern(f"{block.name}.{name}")] = block.line + offset
        for name, line in shape.lines.items():
            loc[sys.intern(f"{block.name}.{name}")] = line
    for entry in many(data.get("dscp_maps")):
        dscps = _numbers(entry.get("dscps"), 63)
        if dscps is None:
            return _unreadable(
                state, where.get("dscp_map"), f"qos map dscp {entry.get('dscps')}", "DSCPs are 0-63"
            )
        for dscp in dscps:
            state.dscp_map[dscp] = entry["tc"]
    for entry in many(data.get("tc_queues")):
        tcs = _numbers(entry.get("tcs"), 7)
        if tcs is None:
            return _unreadable(
                state,
                where.get("tc_queue"),
                f"qos map traffic-class {entry.get('tcs')}",
                "traffic classes are 0-7",
            )
        for tc in tcs:
            if tc != entry["queue"]:
                state.tc_queue[tc] = entry["queue"]
    state.watchdog = _watchdog(data)
    rewrite = _rewrite(data)
    if isinstance(rewrite, str):
        line = next((n for n, text in config.globals if text == rewrite), where.get("dscp_rewrite"))
        return _unreadable(state, line, rewrite, "traffic classes are 0-7, DSCPs 0-63")
    for name, port in state.interfaces.items():
        if name.startswith(("Ethernet", "Port-Channel")):
            port.dscp_rewrite = rewrite
            if "dscp_rewrite" in where:
                state.locations[sys.intern(f"{name}.dscp_rewrite")] = where["dscp_rewrite"]
    state.hash_fields, hash_line = balancing.read_fields(config.globals)
    if hash_line is not None:
        state.locations["hash_fields"] = hash_line
    # Rendered intent holds no static route: only a config that has some says what they are.
    routes = [route for number, text in config.routes if (route := _static_route(number, text))]
    if routes:
        state.static_routes = routes
    for block in config.interfaces:
        found = _ADDRESS.search(block.body)
        if found is not None:
            state.addresses[block.name] = found.group(1)
    header = one(data.get("header"))
    state.model, state.os_version = header.get("model"), header.get("version")
    for name, line in where.items():
        if name.partition(".")[0] in ("dscp_map", "tc_queue", "watchdog"):
            state.locations[name] = line
    # Device-wide settings that are missing belong at the end, before `end`.
    state.locations[""] = max(1, config.end_line - 1) if config.end_line else max(1, config.last_line)
    return state


# `ip route [vrf NAME] PREFIX [INTERFACE] [NEXT-HOP] [DISTANCE] [tag N] [name TEXT]` (EOS User Manual,
# "ip route"); the interface and the next hop are each optional, one of them is given.
_ROUTE = re.compile(
    r"ip route (?:vrf \S+ )?(?P<prefix>[0-9a-fA-F.:]+/\d+)"
    r"(?: (?P<interface>[A-Z][A-Za-z-]*\d\S*))?(?: (?P<hop>[0-9a-fA-F:]*[.:][0-9a-fA-F.:]+))?(?=\s|$)"
)
_ADDRESS = re.compile(r"^\s+ip address (\S+/\d+)", re.M)


def _static_route(number: int, text: str) -> StaticRoute | None:
    found = _ROUTE.match(text)
    if found is None:
        return None
    interface = found.group("interface")
    return StaticRoute(
        found.group("prefix"),
        found.group("hop"),
        long_interface(interface) if interface else None,
        number,
    )


def parse_outputs(outputs: dict[str, str], device: Device) -> DeviceState:
    """DeviceState of a switch's collected outputs, keyed by snapshot file name."""
    running = outputs.get(SHOW_RUNNING.file)
    if running is not None:
        state = _COUNTED_CONFIGS.pop((device.name, running), None) or parse_config(running, device)
        why = state.unparsed.pop(RUNNING_CONFIG, None)
        if why is None and not re.search(r"^end\s*$", running, re.M):
            # EOS always closes the running config with `end`: without it the output was cut short.
            why = "output truncated (no closing 'end' line)"
    else:
        state = DeviceState(name=device.name, platform=NAME)
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
        version = one(ttp_parse(NAME, "show_version", version_text).get("version"))
        state.model, state.os_version = version.get("model"), version.get("version")
        state.facets |= {"version"}
        if state.os_version is None:
            state.unparsed[SHOW_VERSION.cli] = "no 'Software image version' line"
            state.facets -= {"version"}
    _read_lldp(state, outputs)
    read_counters(outputs, state)
    return state


def parse_counters(outputs: dict[str, str], device: Device) -> DeviceState:
    """The counters of `parse_outputs` and their facets, without LLDP or the version: which PFC
    watchdog queues a port counts storms on is the running config's, so that is parsed too."""
    running = outputs.get(SHOW_RUNNING.file)
    if running is None:
        state = DeviceState(name=device.name, platform=NAME)
    else:
        config = parse_config(running, device)
        _COUNTED_CONFIGS.clear()
        _COUNTED_CONFIGS[(device.name, running)] = config
        # The counters are read into a copy: the config's own state is kept as parsed.
        state = state_copy(config, config.name)
        state.interfaces = {name: port_copy(port, name) for name, port in config.interfaces.items()}
    state.facets = frozenset()
    read_counters(outputs, state)
    return state


# The running config parsed for the counters of a switch's earlier reading, by (switch, text): a
# check reads each switch's earlier readings right before its current one (`sources._read_share`),
# which most often holds the same config, and takes this parse of it.
_COUNTED_CONFIGS: dict[tuple[str, str], DeviceState] = {}


def _read_lldp(state: DeviceState, outputs: dict[str, str]) -> None:
    """The table netcfg collects; where a snapshot holds only `show lldp neighbors detail` (text or
    JSON), that. Whichever is read and cannot be, says nothing about cabling: parse.unknown_output
    reports it once, where cabling.no_neighbor would report every port as having no neighbour."""
    detail = outputs.get(SHOW_LLDP_DETAIL.file)
    if SHOW_LLDP.file not in outputs and detail is not None:
        found = read_detail(detail)
        if isinstance(found, str):
            state.unparsed[SHOW_LLDP_DETAIL.cli] = found
            state.facets -= {"lldp"}
        else:
            state.lldp = found
        return
    lldp_text = outputs.get(SHOW_LLDP.file, "")
    lldp = many(ttp_parse(NAME, "show_lldp_neighbors", lldp_text).get("neighbors"))
    if not lldp and "Neighbor Device ID" not in lldp_text:
        state.unparsed[SHOW_LLDP.cli] = "no neighbor table"
        state.facets -= {"lldp"}
    state.lldp = [LldpNeighbor(long_interface(n["local"]), n["system_name"], n["port"]) for n in lldp]


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
    port = InterfaceState(name="", mtu=block.get("mtu"), dcbx_mode=_DCBX_MODES.get(block.get("dcbx", "")))
    bound = block.get("profile")
    profile = profiles.get(bound)
    if bound is not None and profile is None:
        # A `service-profile` the config does not define: what it would set is unknown. The port's
        # own lines still apply over it, as on the device.
        port.unread = frozenset(f for f in QOS_FIELDS if f not in offsets)
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


def _switched(name: str, body: str) -> bool | None:
    """Whether an EOS interface switches: Ethernet and Port-Channel interfaces do unless the config says
    `no switchport` (EOS's default is a switchport in VLAN 1, which the running config does not print);
    a subinterface routes; a channel member forwards as its Port-Channel does."""
    if "." in name:
        return False
    if not name.startswith(("Ethernet", "Port-Channel")) or "   channel-group " in body:
        return None
    return "   no switchport\n" not in body


# `dcbx mode ieee` (Arista's DCBX guide; AVD's `dcbx mode`), `no dcbx mode`; EOS leaves DCBX off
# unless asked, but a port whose stanza says nothing may take it from elsewhere: unknown then.
_DCBX_MODES = {"ieee": "ieee", "cee": "cee", "off": "off"}


def _block_values(body: str) -> dict:
    return one(ttp_parse(NAME, "qos_block", f"block _\n{body}!\n").get("block"))


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


def _rewrite(data: dict) -> dict[int, int | None] | str:
    """The DSCP each traffic class is re-marked to on egress: EOS rewrites DSCP only where `qos rewrite
    dscp` turns it on (a running config without it rewrites nothing), by the `qos map traffic-class N
    to dscp M` lines. A class the lines leave out takes EOS's default rewrite map, which the config
    does not show (None). A line EOS would refuse: its text."""
    if not one(data.get("rewrite_on")):
        return {}
    rewrite: dict[int, int | None] = dict.fromkeys(range(8))
    for entry in many(data.get("tc_dscps")):
        tcs = _numbers(entry.get("tcs"), 7)
        if tcs is None or not 0 <= entry["dscp"] <= 63:
            return f"qos map traffic-class {entry.get('tcs')} to dscp {entry['dscp']}"
        for tc in tcs:
            rewrite[tc] = entry["dscp"]
    return rewrite


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


def _numbers(text: object, highest: int) -> list[int] | None:
    """'24 25 26' or '24-27' -> the numbers; None when one is above `highest` (EOS refuses such a
    line, and a range as wide as `0-999999999` must not be spelled out). Other words are skipped."""
    out: list[int] = []
    for word in str(text or "").split():
        low, _, high = word.partition("-")
        if low.isdigit() and (not high or high.isdigit()):
            if max(int(low), int(high or low)) > highest:
                return None
            out += range(int(low), int(high or low) + 1)
    return out


def _unreadable(state: DeviceState, line: int | None, text: str, expected: str) -> DeviceState:
    """The state of a config EOS itself would refuse: why, and where."""
    state.unparsed[RUNNING_CONFIG] = f"'{text}' names values EOS does not have ({expected})"
    if line is not None:
        state.locations[RUNNING_CONFIG] = line
    return state


def _ms(seconds: str | None) -> int | None:
    try:
        return round(float(seconds) * 1000) if seconds is not None else None
    except (ValueError, OverflowError):  # not a number, or one beyond a float (infinity)
        return None
