"""Writing a DeviceState as `nv set` lines, as `nv config show -o commands` prints a configuration.

`nv set qos roce mode lossless|lossy` carries NVIDIA's RoCE defaults (defaults.py); a line follows only
where the state differs from them. What most fabric ports share goes into the `default-global` profiles;
a port that differs binds a profile of its own (`netcfg-pfc-1`, ...), as EOS ports override a shared
`qos profile`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from typing import TypeVar

from netcfg.model import DeviceState, EcnSetting, InterfaceState, switch_rewrite
from netcfg.platforms.cumulus import balancing
from netcfg.platforms.cumulus.defaults import (
    DEFAULT_GLOBAL,
    PRIORITIES,
    STOCK_DSCP_MAP,
    TRUST_KEYWORD,
    WATCHDOG_POLLING_MS,
    WATCHDOG_ROBUSTNESS,
    Globals,
    Pfc,
    defaults,
)
from netcfg.platforms.cumulus.names import compact_names, compact_numbers

T = TypeVar("T", bound=Hashable)
Ecn = tuple[tuple[int, EcnSetting], ...]
# Profile kinds a port may bind, with the name netcfg gives its own profiles of that kind.
PROFILE_PREFIX = {
    "mapping": "netcfg-trust",
    "pfc": "netcfg-pfc",
    "congestion-control": "netcfg-ecn",
    "egress-scheduler": "netcfg-ets",
}


def port_pfc(port: InterfaceState) -> Pfc:
    return Pfc(bool(port.pfc_enabled), port.no_drop_priorities or frozenset(), port.cable_m)


def port_ecn(port: InterfaceState) -> Ecn:
    return tuple(sorted(port.ecn.items()))


def _majority(values: Iterable[T], fallback: T) -> T:
    counts = Counter(values).most_common(1)
    return counts[0][0] if counts else fallback


def globals_of(state: DeviceState) -> Globals:
    """The `default-global` settings a state renders to: what most of its ports run."""
    g = defaults(state.qos_names.get("roce_mode"))
    ports = list(state.interfaces.values())
    shared_map = [p.trust for p in ports if p.dscp_map is None]
    g.trust = _majority(shared_map or [p.trust for p in ports], g.trust)
    g.dscp_map = {**g.dscp_map, **state.dscp_map}
    g.sp_tc = {sp: state.queue_of(sp) for sp in PRIORITIES}
    g.pfc = _majority((port_pfc(p) for p in ports), g.pfc)
    g.ecn = dict(_majority((port_ecn(p) for p in ports), tuple(sorted(g.ecn.items()))))
    g.strict = _majority((p.strict_queues for p in ports), g.strict)
    wd = state.watchdog
    if wd is not None and wd.enabled and wd.polling_ms:
        g.polling_ms = wd.polling_ms
        g.robustness = max(1, -(-(wd.detection_ms or wd.polling_ms) // wd.polling_ms))
    return g


def render_lines(state: DeviceState) -> list[str]:
    """The configuration of a state as `nv set` lines."""
    g = globals_of(state)
    base = defaults(g.roce)
    own: dict[str, dict[Hashable, str]] = {kind: {} for kind in PROFILE_PREFIX}
    bindings: dict[str, dict[str, list[str]]] = {kind: {} for kind in PROFILE_PREFIX}
    for name, port in state.interfaces.items():
        for kind, value in _port_profiles(state, g, port).items():
            profile = own[kind].setdefault(value, f"{PROFILE_PREFIX[kind]}-{len(own[kind]) + 1}")
            bindings[kind].setdefault(profile, []).append(name)
    lines = _interface_lines(state, bindings)
    lines += _ecn_lines(DEFAULT_GLOBAL, g.ecn, base.ecn)
    lines += [
        line
        for value, name in own["congestion-control"].items()
        for line in _ecn_lines(name, dict(value), {})
    ]
    lines += _grouped(
        "nv set qos egress-queue-mapping default-global switch-priority {} traffic-class {}",
        {sp: tc for sp, tc in g.sp_tc.items() if tc != base.sp_tc[sp]},
    )
    lines += _ets_lines(DEFAULT_GLOBAL, g.strict, base.strict)
    lines += [
        line
        for value, name in own["egress-scheduler"].items()
        for line in _ets_lines(name, value, frozenset())
    ]
    lines += _mapping_lines(DEFAULT_GLOBAL, g.trust, g.dscp_map, base.trust, base.dscp_map)
    for (trust, table), name in own["mapping"].items():
        lines += _mapping_lines(name, trust, dict(table), None, STOCK_DSCP_MAP)
    lines += _pfc_lines(DEFAULT_GLOBAL, g.pfc, base.pfc, g.roce is not None)
    for value, name in own["pfc"].items():
        lines += _pfc_lines(name, value, None, False)
    if state.watchdog is not None and state.watchdog.enabled:
        if g.polling_ms != WATCHDOG_POLLING_MS:
            lines.append(f"nv set qos pfc-watchdog polling-interval {g.polling_ms}")
        if g.robustness != WATCHDOG_ROBUSTNESS:
            lines.append(f"nv set qos pfc-watchdog robustness {g.robustness}")
    if g.roce is not None:
        if g.pfc.cable_m is not None and g.pfc.cable_m != base.pfc.cable_m:
            lines.append(f"nv set qos roce cable-length {g.pfc.cable_m}")
        lines.append(f"nv set qos roce mode {g.roce}")
    lines += _remark_lines(state)
    lines += balancing.render_lines(state)
    lines.append(f"nv set system hostname {state.name}")
    return lines


def _remark_lines(state: DeviceState) -> list[str]:
    """The lab's one DSCP rewrite, for the whole switch: `default-global` remarks at layer 3."""
    rewrite = switch_rewrite(state.interfaces.values())
    if rewrite is None:
        return []
    return [f"nv set qos remark {DEFAULT_GLOBAL} rewrite l3"] + [
        f"nv set qos remark {DEFAULT_GLOBAL} switch-priority {sp} dscp {dscp}" for sp, dscp in rewrite.items()
    ]


def _port_profiles(state: DeviceState, g: Globals, port: InterfaceState) -> dict[str, Hashable]:
    """The profiles a port needs of its own: the settings of each kind where it differs from `g`."""
    out: dict[str, Hashable] = {}
    table = port.dscp_map if port.dscp_map is not None else state.dscp_map
    if port.trust != g.trust or port.dscp_map is not None:
        out["mapping"] = (port.trust, tuple(sorted({**STOCK_DSCP_MAP, **table}.items())))
    if port_pfc(port) != g.pfc:
        out["pfc"] = port_pfc(port)
    if port_ecn(port) != tuple(sorted(g.ecn.items())):
        out["congestion-control"] = port_ecn(port)
    if port.strict_queues != g.strict:
        out["egress-scheduler"] = port.strict_queues
    return out


def _interface_lines(state: DeviceState, bindings: dict[str, dict[str, list[str]]]) -> list[str]:
    ports = list(state.interfaces.values())
    lines = []
    if ports:
        lines.append(f"nv set interface {compact_names(p.name for p in ports)} type swp")
    lines += [f"nv set interface {p.name} description {p.description}" for p in ports if p.description]
    by_mtu: dict[int, list[str]] = {}
    for p in ports:
        if p.mtu is not None:
            by_mtu.setdefault(p.mtu, []).append(p.name)
    lines += [
        f"nv set interface {compact_names(names)} link mtu {mtu}" for mtu, names in sorted(by_mtu.items())
    ]
    for kind, profiles in bindings.items():
        lines += [
            f"nv set interface {compact_names(names)} qos {kind} profile {profile}"
            for profile, names in profiles.items()
        ]
    bridged = [p.name for p in ports if p.switched]
    if bridged:
        lines.append(f"nv set interface {compact_names(bridged)} bridge domain br_default")
    watched = [p.name for p in ports if p.watchdog]
    if watched:
        lines.append(f"nv set interface {compact_names(watched)} qos pfc-watchdog")
    return lines


def _grouped(template: str, mapping: dict[int, int]) -> list[str]:
    """One line per target value, naming every key that maps to it (`dscp 10,21 switch-priority 0`)."""
    by_value: dict[int, list[int]] = {}
    for key, value in sorted(mapping.items()):
        by_value.setdefault(value, []).append(key)
    return [template.format(compact_numbers(keys), value) for value, keys in sorted(by_value.items())]


def _ecn_lines(profile: str, ecn: dict[int, EcnSetting], base: dict[int, EcnSetting]) -> list[str]:
    """ECN of a profile over its base: off where the base marks and the profile does not, each value
    that differs where it marks (all three on a class the base does not mark)."""
    prefix = f"nv set qos congestion-control {profile}"
    lines = [] if base or ecn else [prefix]
    for queue in sorted(set(ecn) | set(base)):
        want, have = ecn.get(queue), base.get(queue)
        if want is None:
            lines.append(f"{prefix} traffic-class {queue} ecn disable")
            continue
        have = have or EcnSetting(-1, -1, -1)
        for name, value, old in (
            ("min-threshold", want.min_bytes, have.min_bytes),
            ("max-threshold", want.max_bytes, have.max_bytes),
            ("probability", want.probability, have.probability),
        ):
            if value != old:
                lines.append(f"{prefix} traffic-class {queue} {name} {value}")
    return lines


def _ets_lines(profile: str, strict: frozenset[int], base: frozenset[int]) -> list[str]:
    prefix = f"nv set qos egress-scheduler {profile}"
    lines = [f"{prefix} traffic-class {q} mode strict" for q in sorted(strict - base)]
    lines += [f"{prefix} traffic-class {q} mode dwrr" for q in sorted(base - strict)]
    return lines or ([] if profile == DEFAULT_GLOBAL else [prefix])


def _mapping_lines(
    profile: str, trust: str | None, table: dict[int, int], base_trust: str | None, base: dict[int, int]
) -> list[str]:
    prefix = f"nv set qos mapping {profile}"
    lines = []
    if trust != base_trust and trust in TRUST_KEYWORD:
        lines.append(f"{prefix} trust {TRUST_KEYWORD[trust]}")
    lines += _grouped(
        prefix + " dscp {} switch-priority {}", {d: p for d, p in table.items() if base.get(d) != p}
    )
    return lines or ([] if profile == DEFAULT_GLOBAL else [prefix])


def _pfc_lines(profile: str, pfc: Pfc, base: Pfc | None, roce: bool) -> list[str]:
    """PFC of a profile. `default-global` states only what differs from the RoCE defaults (its cable
    length is `nv set qos roce cable-length`); netcfg's own profiles state everything."""
    prefix = f"nv set qos pfc {profile}"
    lines = []
    implied = (base.priorities if pfc.enabled else frozenset()) if base is not None else frozenset()
    if pfc.priorities != implied:
        lines.append(f"{prefix} switch-priority {compact_numbers(pfc.priorities)}")
    if base is None or pfc.enabled != base.enabled:
        state = "enable" if pfc.enabled else "disable"
        lines += [f"{prefix} tx {state}", f"{prefix} rx {state}"]
    stated_elsewhere = base is not None and (roce or pfc.cable_m == base.cable_m)
    if pfc.cable_m is not None and not stated_elsewhere:
        lines.append(f"{prefix} cable-length {pfc.cable_m}")
    return lines
