"""The vendor-neutral QoS chain of one switch -> the config_db tables netcfg owns.

Only what the state says is written: the maps of the chain and their PORT_QOS_MAP bindings, PFC per
port, ECN (WRED_PROFILE on the queue), strict priority (SCHEDULER), the PFC watchdog, the lossless
priority groups' buffer profiles, cable lengths and MTU. Pools, lossy profiles, ports' lanes and
speeds and everything else stay as the device has them (`netcfg diff` patches only these tables).
"""

from __future__ import annotations

import json
from collections import Counter
from json.encoder import encode_basestring_ascii as _quote

from netcfg.model import DeviceState, EcnSetting, InterfaceState, PgBuffer, port_sort_key, switch_rewrite
from netcfg.platforms.sonic import balancing
from netcfg.platforms.sonic.names import (
    CABLE_LENGTH_KEY,
    DOT1P_MAP,
    LOSSLESS_POOL,
    MAP_TABLES,
    OWN,
    STRICT_SCHEDULER,
    WRED,
)

PRIORITIES = range(8)


def render_text(doc: dict) -> str:
    """config_db JSON, keys sorted so renders are stable: tables and entries indented as SONiC prints
    them, each entry's fields on its line, so a diff shows one line per changed entry (and the json
    module's C encoder writes it: its indenting encoder is pure Python, and ten times slower)."""
    lines = ["{"]
    for i, table in enumerate(sorted(doc)):
        entries = sorted(doc[table].items())
        lines.append(f"    {_quote(table)}: {{")
        lines += [
            f"        {_quote(key)}: {_entry(fields)}" + ("," if j < len(entries) - 1 else "")
            for j, (key, fields) in enumerate(entries)
        ]
        lines.append("    }," if i < len(doc) - 1 else "    }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _entry(fields: dict) -> str:
    """One entry's fields. config_db values are strings, quoted as json.dumps quotes them, by its C
    function: json.dumps itself, given sort_keys, builds a new encoder per entry (most of a render)."""
    if all(isinstance(v, str) for v in fields.values()):
        return "{" + ", ".join(f"{_quote(k)}: {_quote(v)}" for k, v in sorted(fields.items())) + "}"
    return json.dumps(fields, sort_keys=True)


def device_text(doc: dict) -> str:
    """config_db JSON as `show runningconfiguration all` prints it."""
    return json.dumps(doc, indent=4, sort_keys=True) + "\n"


HOST_VLAN = "Vlan1000"
REWRITE_MAP = "REMARK"


def config_db(state: DeviceState) -> dict:
    ports = [state.interfaces[n] for n in sorted(state.interfaces, key=port_sort_key)]
    names = {kind: state.qos_names.get(kind, OWN) for kind in MAP_TABLES}
    names["dot1p_to_tc_map"] = state.qos_names.get("dot1p_to_tc_map", DOT1P_MAP)
    doc: dict[str, dict] = {"DEVICE_METADATA": {"localhost": {"hostname": state.name}}}
    doc["PORT"] = {p.name: _port(p) for p in ports}
    _maps(doc, state, names)
    port_maps = _port_dscp_maps(doc, ports, state.dscp_map)
    qos = doc["PORT_QOS_MAP"] = {}
    if state.dscp_map:
        qos["global"] = {"dscp_to_tc_map": names["dscp_to_tc_map"]}
    for port in ports:
        qos[port.name] = _bindings(port, names, port_maps, bool(state.dscp_map))
    _rewrites(doc, ports)
    _queues(doc, ports, state)
    _watchdog(doc, ports, state)
    _buffers(doc, ports)
    cables = {p.name: f"{p.cable_m}m" for p in ports if p.cable_m is not None}
    if cables:
        doc["CABLE_LENGTH"] = {CABLE_LENGTH_KEY: cables}
    switched = [p.name for p in ports if p.switched]
    if switched:
        # One untagged VLAN, as SONiC's T0 preset puts its server ports in Vlan1000.
        doc["VLAN"] = {HOST_VLAN: {"vlanid": HOST_VLAN[4:]}}
        doc["VLAN_MEMBER"] = {f"{HOST_VLAN}|{name}": {"tagging_mode": "untagged"} for name in switched}
    switch_hash = balancing.render_table(state.hash_fields)
    if switch_hash is not None:
        doc[balancing.TABLE] = switch_hash
    return doc


def _rewrites(doc: dict, ports: list[InterfaceState]) -> None:
    """One TC_TO_DSCP_MAP for the ports that re-mark (the lab's only rewrite), bound on each."""
    rewrite = switch_rewrite(ports)
    if rewrite is None:
        return
    doc["TC_TO_DSCP_MAP"] = {REWRITE_MAP: {str(tc): str(d) for tc, d in rewrite.items()}}
    for port in ports:
        if port.dscp_rewrite:
            doc["PORT_QOS_MAP"][port.name]["tc_to_dscp_map"] = REWRITE_MAP


def _port(port: InterfaceState) -> dict[str, str]:
    fields = {}
    if port.mtu is not None:
        fields["mtu"] = str(port.mtu)
    if port.description is not None:
        fields["description"] = port.description
    return fields


def _numbered(mapping: dict[int, int]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(mapping.items())}


def _maps(doc: dict, state: DeviceState, names: dict[str, str]) -> None:
    classes = sorted(set(PRIORITIES) | set(state.tc_queue) | set(state.tc_pg) | set(state.tc_pfc))
    pg = {tc: state.tc_pg.get(tc, tc) for tc in classes}
    # The PFC priority p pauses the queue (and names the priority group) of the class it serves.
    served: dict[int, int] = {}
    for tc in classes:
        served.setdefault(state.tc_pfc.get(tc, tc), tc)
    pfc = {p: served.get(p, p) for p in sorted(set(PRIORITIES) | set(served))}
    if state.dscp_map:
        doc["DSCP_TO_TC_MAP"] = {names["dscp_to_tc_map"]: _numbered(state.dscp_map)}
    doc["TC_TO_QUEUE_MAP"] = {names["tc_to_queue_map"]: _numbered({tc: state.queue_of(tc) for tc in classes})}
    doc["TC_TO_PRIORITY_GROUP_MAP"] = {names["tc_to_pg_map"]: _numbered(pg)}
    doc["MAP_PFC_PRIORITY_TO_QUEUE"] = {
        names["pfc_to_queue_map"]: _numbered({p: state.queue_of(tc) for p, tc in pfc.items()})
    }
    doc["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] = {
        names["pfc_to_pg_map"]: _numbered({p: pg.get(tc, tc) for p, tc in pfc.items()})
    }
    if any(p.trust in ("cos", "pcp") for p in state.interfaces.values()):
        doc["DOT1P_TO_TC_MAP"] = {names["dot1p_to_tc_map"]: _numbered({p: p for p in PRIORITIES})}


def _port_dscp_maps(doc: dict, ports: list[InterfaceState], device: dict[int, int]) -> dict[str, str]:
    """Ports that classify with a map of their own: one DSCP_TO_TC_MAP per distinct map, ROCE_2, ..."""
    by_content: dict[tuple, str] = {}
    names = {}
    for port in ports:
        if port.dscp_map is None or port.trust != "dscp" or port.dscp_map == device:
            continue
        content = tuple(sorted(port.dscp_map.items()))
        if content not in by_content:
            by_content[content] = f"{OWN}_{len(by_content) + 2}"
            doc.setdefault("DSCP_TO_TC_MAP", {})[by_content[content]] = _numbered(port.dscp_map)
        names[port.name] = by_content[content]
    return names


def _bindings(
    port: InterfaceState, names: dict[str, str], port_maps: dict[str, str], device_map: bool
) -> dict[str, str]:
    fields = {}
    if port.trust == "dscp" and (port.name in port_maps or device_map):
        fields["dscp_to_tc_map"] = port_maps.get(port.name, names["dscp_to_tc_map"])
    elif port.trust in ("cos", "pcp"):
        fields["dot1p_to_tc_map"] = names["dot1p_to_tc_map"]
    for kind in ("tc_to_queue_map", "tc_to_pg_map", "pfc_to_pg_map", "pfc_to_queue_map"):
        fields[kind] = names[kind]
    if port.no_drop_priorities is not None:
        priorities = ",".join(map(str, sorted(port.no_drop_priorities)))
        fields["pfc_enable"] = priorities
        fields["pfcwd_sw_enable"] = priorities if port.watchdog else ""
    return fields


def _queues(doc: dict, ports: list[InterfaceState], state: DeviceState) -> None:
    settings = Counter(e for p in ports for e in p.ecn.values())
    # The most common ECN setting is ROCE_ECN (or the name the state carries), others ROCE_ECN_2, ...
    ordered = sorted(settings, key=lambda e: (-settings[e], e.min_bytes, e.max_bytes, e.probability))
    base = state.qos_names.get("wred_profile", WRED)
    wred = {e: base if i == 0 else f"{WRED}_{i + 1}" for i, e in enumerate(ordered)}
    if wred:
        doc["WRED_PROFILE"] = {name: _wred(e) for e, name in wred.items()}
    if any(p.strict_queues for p in ports):
        doc["SCHEDULER"] = {STRICT_SCHEDULER: {"type": "STRICT"}}
    queues = {}
    for port in ports:
        for queue in sorted(set(port.ecn) | port.strict_queues):
            entry = {}
            if queue in port.strict_queues:
                entry["scheduler"] = STRICT_SCHEDULER
            if queue in port.ecn:
                entry["wred_profile"] = wred[port.ecn[queue]]
            queues[f"{port.name}|{queue}"] = entry
    if queues:
        doc["QUEUE"] = queues


def _wred(e: EcnSetting) -> dict[str, str]:
    profile = {"ecn": "ecn_all"}
    for color in ("green", "yellow", "red"):
        profile |= {
            f"wred_{color}_enable": "true",
            f"{color}_min_threshold": str(e.min_bytes),
            f"{color}_max_threshold": str(e.max_bytes),
            f"{color}_drop_probability": str(e.probability),
        }
    return profile


def _watchdog(doc: dict, ports: list[InterfaceState], state: DeviceState) -> None:
    wd = state.watchdog
    guarded = [p for p in ports if p.watchdog]
    if not guarded or wd is None:
        return
    timers = {
        "action": wd.action,
        "detection_time": wd.detection_ms,
        "restoration_time": wd.restoration_ms,
    }
    entry = {k: str(v) for k, v in timers.items() if v is not None}
    table = doc["PFC_WD"] = {p.name: dict(entry) for p in guarded}
    if wd.polling_ms is not None:
        table["GLOBAL"] = {"POLL_INTERVAL": str(wd.polling_ms)}


def profile_name(buffer: PgBuffer) -> str:
    """A lossless profile named by what it holds, as SONiC names its own by speed and cable."""
    parts = [f"{k}{v}" for k, v in _fields(buffer) if v is not None]
    return "_".join(["pg_lossless", *parts, "profile"])


def _fields(buffer: PgBuffer) -> tuple[tuple[str, int | None], ...]:
    return (("xoff", buffer.xoff), ("xon", buffer.xon), ("size", buffer.size))


def _buffers(doc: dict, ports: list[InterfaceState]) -> None:
    profiles, groups = {}, {}
    for port in ports:
        for pg, buffer in sorted(port.pg_buffers.items()):
            name = profile_name(buffer)
            values = {k: str(v) for k, v in _fields(buffer) if v is not None}
            profiles[name] = {"pool": LOSSLESS_POOL, "dynamic_th": "0", **values}
            groups[f"{port.name}|{pg}"] = {"profile": name}
    if groups:
        doc["BUFFER_PROFILE"] = profiles
        doc["BUFFER_PG"] = groups
