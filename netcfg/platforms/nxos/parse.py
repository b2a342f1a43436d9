"""NX-OS config text and show outputs into the vendor-neutral DeviceState.

The chain, as the Nexus 9000 runs it: a port's `type qos` input policy sends each DSCP to a
qos-group (the traffic class); the system network-qos class of that qos-group is paused by the PFC
priority its `pause pfc-cos` names (tc_pfc where it is not the qos-group itself); the egress queue
of qos-group N is queue N (`c-out-8q-qN`), so tc_queue is always the identity. PFC is enabled per
port (`priority-flow-control mode on`), and a port with PFC on pauses every priority the system
network-qos policy pauses.

Defaults the running config does not print (Cisco Nexus 9000 QoS and interface configuration
guides): an Ethernet port's MTU is 1500 and its PFC mode `auto` (on only if DCBX agrees, so unknown
from the config); without a `type qos` policy every packet is in qos-group 0; the PFC watchdog is
off unless `priority-flow-control watch-dog-interval on`, and polls every 100 ms once on.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from netcfg.model import Device, DeviceState, InterfaceState, LldpNeighbor, PgBuffer, Watchdog
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.nxos import balancing, counters
from netcfg.platforms.nxos.commands import SHOW_LLDP, SHOW_PFC, SHOW_RUNNING, SHOW_VERSION
from netcfg.platforms.nxos.family import NEXUS_9000, Family, family
from netcfg.platforms.nxos.mqc import (
    PLATFORM,
    Classification,
    Mqc,
    QueueShape,
    class_mtus,
    classification,
    ingress_buffers,
    paused_classes,
    queue_shape,
    read_mqc,
    undefined_classes,
)
from netcfg.platforms.nxos.text import Node, is_ethernet_port, normal_name, port_blocks, split_config

# parse_config's name for the text it was given (a file or `show running-config`) in `unparsed`.
RUNNING_CONFIG = "running-config"
DEFAULT_MTU = 1500
DEFAULT_WATCHDOG_INTERVAL_MS = 100
# Top-level lines the globals template reads (the hostname is left out, so that the device-wide
# lines of a fabric's switches are one text and parse once).
_GLOBAL_PREFIXES = ("version ", "priority-flow-control ", "service-policy ")
# The global PFC watchdog lines the globals template reads; any other `priority-flow-control`
# watch-dog or restore line (a spelling or knob netcfg does not know) may change the timers.
_WATCHDOG_LINE = re.compile(r"priority-flow-control (?:watch-dog|auto-restore|fixed-restore)")
_WATCHDOG_READ = re.compile(
    r"priority-flow-control (?:watch-dog-interval (?:on|off)|watch-dog interval \d+|"
    r"watch-dog shutdown-multiplier \d+|auto-restore multiplier \d+)$"
)
_PFC_HEADER = re.compile(r"^\s*Port\s+Mode\s+Oper\(VL bmap\)", re.M)
# Interface lines and the InterfaceState fields each sets, for file:line locations.
_PORT_FIELDS = (
    ("mtu ", ("mtu",)),
    ("priority-flow-control mode ", ("pfc_enabled", "no_drop_priorities")),
    ("priority-flow-control watch-dog-interval ", ("watchdog",)),
    ("service-policy type qos input ", ("trust", "dscp_map")),
    ("service-policy type queuing output ", ("ecn", "strict_queues")),
    ("service-policy type queuing input ", ("pg_buffers",)),
)


@dataclass(frozen=True, slots=True)
class _System:
    """Device-wide settings a port falls back to, and where they stand."""

    qos_input: str | None
    queuing_output: str | None
    queuing_input: str | None
    network_qos: str | None
    watchdog_on: bool
    lines: dict[str, int]


def parse_config(text: str, device: Device) -> DeviceState:
    state = DeviceState(name=device.name, platform=PLATFORM, facets=frozenset({"qos"}))
    config = split_config(text)
    not_nxos = config.not_nxos()
    if not_nxos is not None:
        line, why = not_nxos
        state.unparsed[RUNNING_CONFIG] = f"not a Cisco NX-OS config: {why}"
        state.locations[RUNNING_CONFIG] = line
        return state
    mqc = read_mqc(config.nodes)
    system, data = _system(config.nodes, mqc)
    state.os_version = one(data.get("version")).get("version")
    semantics = _family(state)
    blocks, unreadable = port_blocks(config.nodes)
    ports = list(blocks.items())
    for node in unreadable:
        # Its ports are not known: whatever it sets is unknown on them, and said so.
        state.unparsed[f"{RUNNING_CONFIG} line {node.line}"] = (
            f"'{node.text}' names no ports NX-OS accepts (a range within one slot, low to high)"
        )
    missing = _undefined_policies(config.nodes, mqc)
    if missing is not None:
        line, why = missing
        state.unparsed[RUNNING_CONFIG] = why
        state.locations[RUNNING_CONFIG] = line
        return state
    device_policy = _device_qos_policy(ports, system)
    classify = mqc.policy("qos", device_policy)
    if classify is not None:
        state.dscp_map = dict(classification(classify, mqc).dscp_map)
        state.locations["dscp_map"] = classify.line
    network_qos = mqc.policy("network-qos", system.network_qos)
    if undefined_classes(network_qos, mqc):
        # A class the config does not define: which priorities it pauses, and its buffers, are unknown
        # (never "pauses nothing").
        state.unread |= {"no_drop_priorities", "tc_pfc", "pg_buffers"}
    if undefined_classes(mqc.policy("queuing", system.queuing_output), mqc):
        state.unread |= {"ecn", "strict_queues"}
    paused = paused_classes(network_qos, mqc)
    # A class paused by a priority other than its own qos-group; by its own group (or several,
    # one of them its own) is the identity, which tc_pfc leaves out.
    state.tc_pfc = {group: cos[0] for group, cos in paused.items() if group not in cos}
    if state.tc_pfc and "no_drop_priorities" in system.lines:
        state.locations["tc_pfc"] = system.lines["no_drop_priorities"]
    no_drop = frozenset(cos for values in paused.values() for cos in values)
    system_buffers = ingress_buffers(network_qos, mqc)
    state.watchdog = _watchdog(data, system.watchdog_on, _unread_watchdog_lines(config.nodes))
    # Every port of a fabric switch binds one of a few policies: each is read once.
    policies = _Policies(
        {name: classification(p, mqc) for (kind, name), p in mqc.policy_maps.items() if kind == "qos"},
        {name: queue_shape(p, mqc) for (kind, name), p in mqc.policy_maps.items() if kind == "queuing"},
        {name: ingress_buffers(p, mqc) for (kind, name), p in mqc.policy_maps.items() if kind == "queuing"},
        class_mtus(network_qos, mqc) if semantics.class_mtu else None,
    )
    for name, node in ports:
        port, where = _port(
            name, node, system, policies, device_policy, no_drop, system_buffers, frozenset(paused)
        )
        state.interfaces[name] = port
        state.locations |= where
    for field, line in system.lines.items():
        state.locations.setdefault(field, line)
    _read_load_sharing(state, config.nodes)
    state.locations[""] = max(1, config.last_line)
    return state


def _read_load_sharing(state: DeviceState, nodes: list[Node]) -> None:
    """The last `ip load-sharing address` line (NX-OS keeps one; a later one replaces it)."""
    lines = [n for n in nodes if not n.children and n.text.startswith(balancing.PREFIX)]
    if lines:
        state.hash_fields, state.hash_seed = balancing.read_line(lines[-1].text)
        state.locations["hash_fields"] = state.locations["hash_seed"] = lines[-1].line


def _system(nodes: list[Node], mqc: Mqc) -> tuple[_System, dict]:
    """The device-wide lines (version, watchdog) and the `system qos` bindings, and where the
    settings ports take from them stand."""
    flat: list[Node] = []
    for node in nodes:
        if node.text == "system qos":
            flat += node.children
        elif not node.children and node.text.startswith(_GLOBAL_PREFIXES):
            flat.append(node)
    data = ttp_parse(PLATFORM, "globals", "".join(f"{n.text}\n" for n in flat))
    bindings = {(b.get("kind"), b.get("direction")): b.get("name") for b in many(data.get("bindings"))}
    lines: dict[str, int] = {}
    for n in flat:
        if n.text.startswith("service-policy type qos input "):
            lines.setdefault("trust", n.line)
            lines.setdefault("dscp_map", n.line)
        elif n.text.startswith("service-policy type queuing output "):
            lines.setdefault("ecn", n.line)
            lines.setdefault("strict_queues", n.line)
        elif n.text.startswith("service-policy type queuing input "):
            lines.setdefault("pg_buffers", n.line)
        elif n.text.startswith("service-policy type network-qos "):
            lines.setdefault("no_drop_priorities", n.line)
        elif n.text.startswith(("priority-flow-control watch-dog", "priority-flow-control auto-restore")):
            lines.setdefault("watchdog", n.line)
    network_qos = mqc.policy("network-qos", bindings.get(("network-qos", None)))
    if network_qos is not None:
        # What the ports with PFC on pause is set where the network-qos policy pauses it.
        pauses = [c.lines["pause"] for c in network_qos.classes.values() if "pause" in c.lines]
        lines["no_drop_priorities"] = pauses[0] if pauses else network_qos.line
    system = _System(
        qos_input=bindings.get(("qos", "input")),
        queuing_output=bindings.get(("queuing", "output")),
        queuing_input=bindings.get(("queuing", "input")),
        network_qos=bindings.get(("network-qos", None)),
        watchdog_on=one(data.get("wd_enable")).get("value") == "on",
        lines=lines,
    )
    return system, data


def _undefined_policies(nodes: list[Node], mqc: Mqc) -> tuple[int, str] | None:
    """A binding to a policy map the text does not define: the device would refuse it, so the text
    is cut short or edited by hand. Bindings stand under `system qos` and in interfaces."""
    for node in nodes:
        if node.text != "system qos" and node.words[0] != "interface":
            continue
        for child in node.children:
            words = child.words
            if child.text.startswith("service-policy type ") and len(words) >= 4:
                kind, name = words[2], words[-1]
                if mqc.policy(kind, name) is None:
                    return (
                        child.line,
                        f"service-policy binds 'policy-map type {kind} {name}', which is not defined",
                    )
    return None


def _device_qos_policy(ports: list[tuple[str, Node]], system: _System) -> str | None:
    """The classification policy whose DSCP map is the device's: the one `system qos` binds, else
    the one most ports bind (the first bound, on a tie). Ports binding another have their own map."""
    if system.qos_input is not None:
        return system.qos_input
    bound = Counter()
    for _, node in ports:
        for child in node.children:
            if child.text.startswith("service-policy type qos input "):
                bound[child.words[-1]] += 1
    return bound.most_common(1)[0][0] if bound else None


def _family(state: DeviceState) -> Family:
    """The family whose semantics the config is read with. A config without a `version` line (what
    netcfg renders) is read as the Nexus 9000 netcfg renders for; a release of a train netcfg does
    not know is read so too, and said so."""
    if state.os_version is None:
        return NEXUS_9000
    found = family(state.os_version)
    if found is None:
        state.unparsed[f"{RUNNING_CONFIG} version"] = (
            f"NX-OS {state.os_version} is a release train netcfg does not know: its ports are read "
            "with Nexus 9000 semantics (per-port MTU), which may not be this switch's"
        )
        return NEXUS_9000
    return found


@dataclass(frozen=True, slots=True)
class _Policies:
    """What each policy map does, by name: classification, egress queuing, ingress buffers; and on a
    family that caps switched ports per class, each qos-group's network-qos class MTU and its line."""

    qos: dict[str, Classification]
    queuing: dict[str, QueueShape]
    buffers: dict[str, dict[int, PgBuffer]]
    class_mtu: dict[int, tuple[int | None, int]] | None


def _port(
    name: str,
    node: Node,
    system: _System,
    policies: _Policies,
    device_policy: str | None,
    no_drop: frozenset[int],
    system_buffers: dict[int, PgBuffer],
    paused_groups: frozenset[int],
) -> tuple[InterfaceState, dict[str, int]]:
    description = next((c.text[12:] for c in node.children if c.words[0] == "description"), None)
    body = "".join(f"{c.text}\n" for c in node.children if c.words[0] != "description")
    data = ttp_parse(PLATFORM, "interface", body)
    ethernet = is_ethernet_port(name)
    port = InterfaceState(name=name, description=description)
    port.mtu = one(data.get("mtu")).get("value", DEFAULT_MTU if ethernet else None)
    if not ethernet:
        return port, {name: node.line}
    where = {name: node.line}
    routed = any(c.text == "no switchport" for c in node.children)
    # A `switchport` line makes the port switched whatever the system default; without one or its
    # `no`, the mode is `system default switchport`'s, which differs by model and release.
    switchport = next((c for c in node.children if c.words[0] == "switchport"), None)
    port.switched = False if routed else True if switchport is not None else None
    if switchport is not None and not routed:
        where[f"{name}.switched"] = switchport.line
    if policies.class_mtu is not None and not routed:
        # A switched port of a Nexus 3000/5000 has no MTU of its own: each class is capped at its
        # network-qos MTU, and what the port takes is the class-default's.
        port.class_mtu = {group: mtu for group, (mtu, _) in policies.class_mtu.items()}
        default_mtu, default_line = policies.class_mtu.get(0, (None, 0))
        port.mtu = default_mtu
        if default_line:
            where[f"{name}.mtu"] = default_line
        # A class MTU finding is about a lossless class: it points at the first paused class's MTU.
        paused = [policies.class_mtu[g][1] for g in sorted(paused_groups) if g in policies.class_mtu]
        if paused:
            where[f"{name}.class_mtu"] = paused[0]
    policy_name = one(data.get("qos_input")).get("value", system.qos_input)
    found = policies.qos.get(policy_name) if policy_name is not None else None
    if found is None:
        # Without a classification policy every packet is in qos-group 0: no DSCP decides anything.
        port.trust = "none"
        port.dscp_map = None if device_policy is None else {}
    else:
        port.trust = found.trust
        port.dscp_map = None if policy_name == device_policy else dict(found.dscp_map)
    mode = one(data.get("pfc_mode")).get("value", "auto")
    port.pfc_enabled = {"on": True, "off": False}.get(mode)
    port.no_drop_priorities = {"on": no_drop, "off": frozenset()}.get(mode)
    port.watchdog = one(data.get("watchdog")).get("value", "on" if system.watchdog_on else "off") == "on"
    queuing = one(data.get("queuing_output")).get("value", system.queuing_output)
    shape = policies.queuing.get(queuing) if queuing is not None else None
    if shape is not None:
        port.ecn, port.strict_queues = dict(shape.ecn), shape.strict
    # else the platform's default queuing: no ECN, no strict queue (the InterfaceState defaults)
    # The port's input queuing policy, else the one `system qos` binds, else the network-qos buffers.
    queuing_in = one(data.get("queuing_input")).get("value", system.queuing_input)
    buffers = policies.buffers.get(queuing_in, {}) if queuing_in is not None else {}
    port.pg_buffers = dict(buffers or system_buffers)
    fallback = dict(system.lines)
    if shape is not None:
        fallback |= {"ecn": shape.ecn_line, "strict_queues": shape.strict_line}
    for child in node.children:
        for prefix, fields in _PORT_FIELDS:
            if child.text.startswith(prefix) and f"{name}.{fields[0]}" not in where:
                where |= {f"{name}.{f}": child.line for f in fields}
    if mode == "on" and "no_drop_priorities" in system.lines:
        # A port with PFC on pauses what the network-qos policy pauses: that is where to change it.
        where[f"{name}.no_drop_priorities"] = system.lines["no_drop_priorities"]
    for field, line in fallback.items():
        where.setdefault(f"{name}.{field}", line)
    return port, where


def _unread_watchdog_lines(nodes: list[Node]) -> bool:
    """Whether a top-level watchdog line is one the globals template does not read."""
    return any(
        _WATCHDOG_LINE.match(n.text) and not _WATCHDOG_READ.match(n.text) for n in nodes if not n.children
    )


def _watchdog(data: dict, enabled: bool, unread: bool) -> Watchdog:
    """The device-wide PFC watchdog: queues are polled every `interval`, shut after
    `shutdown-multiplier` polls and restored after `auto-restore multiplier` polls. NX-OS drops
    the traffic of a queue it shuts: its action is always drop. A multiplier the text does not give
    is unknown, and so is every timer next to a watchdog line of another form (`fixed-restore`, a
    spelling netcfg does not know)."""
    if not enabled:
        return Watchdog(enabled=False)
    interval = one(data.get("wd_interval")).get("value", DEFAULT_WATCHDOG_INTERVAL_MS)
    shutdown = one(data.get("wd_shutdown")).get("value")
    restore = one(data.get("wd_restore")).get("value")
    if unread:
        # A line netcfg cannot read may set any timer: none is known, rather than a default.
        interval = one(data.get("wd_interval")).get("value")
        shutdown = restore = None
    return Watchdog(
        enabled=True,
        action="drop",
        detection_ms=interval * shutdown if shutdown is not None else None,
        restoration_ms=interval * restore if restore is not None else None,
        polling_ms=interval,
    )


# --- live outputs ---------------------------------------------------------------------------------


def parse_outputs(outputs: dict[str, str], device: Device) -> DeviceState:
    running = outputs.get(SHOW_RUNNING.file)
    if running is not None:
        state = parse_config(running, device)
        why = state.unparsed.pop(RUNNING_CONFIG, None)
        if why is None and not running.lstrip().startswith("!Command: show running-config"):
            why = "no '!Command: show running-config' header line"
    else:
        state = DeviceState(name=device.name, platform=PLATFORM)
        why = "output missing"
    state.facets = frozenset({"qos", "version", "lldp"})
    if why is not None:
        state.unparsed[SHOW_RUNNING.cli] = why
        # What an unreadable config says is no evidence either way: parse.unknown_output reports it
        # once, and its QoS is left out of the checks.
        state.facets -= {"qos"}
    _read_version(state, outputs.get(SHOW_VERSION.file))
    _read_pfc(state, outputs.get(SHOW_PFC.file))
    _read_lldp(state, outputs.get(SHOW_LLDP.file))
    counters.read(state, outputs)
    return state


def _lines(text: str) -> str:
    """The text with CR and each line's indentation removed, as the TTP templates read it."""
    return "".join(f"{line.strip()}\n" for line in text.replace("\r", "").splitlines())


def _read_version(state: DeviceState, text: str | None) -> None:
    data = ttp_parse(PLATFORM, "show_version", _lines(text or ""))
    state.os_version = one(data.get("version")).get("version")
    state.model = one(data.get("chassis")).get("model")
    if state.os_version is None:
        state.unparsed[SHOW_VERSION.cli] = "output missing" if text is None else "no 'NXOS: version' line"
        state.facets -= {"version"}


def _read_pfc(state: DeviceState, text: str | None) -> None:
    """PFC as the hardware runs it: `On (8)` pauses CoS 3 (bit 3 of the hex bitmap), `Off` nothing.
    It decides over the running config (a port in `mode auto` is on only if DCBX agreed).

    Both outputs list every front-panel port (the running config each as an `interface` block, even
    an unconfigured one): a port one lists and the other lacks means that output was cut short."""
    if text is None or not _PFC_HEADER.search(text):
        state.unparsed[SHOW_PFC.cli] = (
            "output missing" if text is None else "no 'Port Mode Oper(VL bmap)' table"
        )
        state.facets -= {"qos"}
        return
    rows = many(ttp_parse(PLATFORM, "show_interface_pfc", _lines(text)).get("ports"))
    listed = {normal_name(str(row["port"])): row for row in rows}
    if SHOW_RUNNING.cli not in state.unparsed:
        configured = [n for n in state.interfaces if n.startswith("Ethernet")]
        lacking = [n for n in listed if n.startswith("Ethernet") and n not in state.interfaces]
        if lacking:
            state.unparsed[SHOW_RUNNING.cli] = (
                f"output cut short: no 'interface {lacking[0]}' block, which '{SHOW_PFC.cli}' lists"
            )
            state.facets -= {"qos"}
        unlisted = [n for n in configured if n not in listed]
        if unlisted:
            state.unparsed[SHOW_PFC.cli] = f"output cut short: no row for {unlisted[0]}, which the config has"
            state.facets -= {"qos"}
    for name, row in listed.items():
        port = state.interface(name)
        bitmap = int(str(row.get("bitmap", "0")), 16)
        port.pfc_enabled = "bitmap" in row
        port.no_drop_priorities = frozenset(p for p in range(8) if bitmap >> p & 1)


def _read_lldp(state: DeviceState, text: str | None) -> None:
    data = ttp_parse(PLATFORM, "show_lldp_neighbors_detail", (text or "").replace("\r", ""))
    rows = many(data.get("neighbors"))
    total = one(data.get("total")).get("count")
    # NX-OS closes the table with `Total entries displayed: N`: without it, or with another count
    # than the blocks read, the output was cut short or garbled.
    if total != len(rows):
        state.unparsed[SHOW_LLDP.cli] = (
            "output missing"
            if text is None
            else "no 'Total entries displayed' line"
            if total is None
            else f"{len(rows)} neighbor blocks read, 'Total entries displayed: {total}'"
        )
        # An unreadable table says nothing about cabling: parse.unknown_output reports it once,
        # where cabling.no_neighbor would report every port of the switch as having no neighbour.
        state.facets -= {"lldp"}
    state.lldp = [
        LldpNeighbor(
            normal_name(str(r.get("local", ""))), str(r.get("system_name", "")), str(r.get("port", ""))
        )
        for r in rows
        if "local" in r
    ]
