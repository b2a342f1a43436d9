"""Reading an NVUE configuration: `nv set` lines (as `nv config show -o commands` prints them and
`nv config replace` takes them) or the startup.yaml tree (`nv config show`), into a DeviceState with the
line of every setting.

QoS on Cumulus is profile based: the `default-global` profiles (on top of what `nv set qos roce` sets)
apply to every port; a port that binds a profile of its own (`nv set interface swp1 qos pfc profile X`)
runs that profile for that kind of setting.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass

from netcfg.model import DeviceState, EcnSetting, InterfaceState, Watchdog
from netcfg.platforms.cumulus.balancing import neutral_fields
from netcfg.platforms.cumulus.defaults import (
    DEFAULT_GLOBAL,
    DEFAULT_GLOBAL_ECN,
    DEFAULT_MTU,
    STOCK_DSCP_MAP,
    Globals,
    Pfc,
    defaults,
)
from netcfg.platforms.cumulus.forms import YamlLines, command_lines, looks_like_yaml, yaml_lines
from netcfg.platforms.cumulus.grammar import apply_line
from netcfg.platforms.cumulus.tree import PROFILE_FIELDS, Config, Port, Profile, Unreadable

# parse_config's name for the text it was given, in `unparsed` (and `locations`, for where it went wrong).
RUNNING_CONFIG = "nvue config"


@dataclass(frozen=True, slots=True)
class Reading:
    """A configuration read: the state it gives, its `default-global` settings, or why it is unreadable."""

    state: DeviceState
    globals: Globals | None


def read_config(text: str, name: str, platform: str) -> Reading:
    """The DeviceState of a config in either form; an unreadable one is one `unparsed` entry with its line."""
    state = DeviceState(name=name, platform=platform, facets=frozenset({"qos"}))
    try:
        lines = yaml_lines(text) if looks_like_yaml(text) else command_lines(text)
        config = Config(last_line=text.count("\n") + (0 if text.endswith("\n") else 1))
        for number, line in lines:
            apply_line(config, number, line)
        if isinstance(lines, YamlLines):
            config.version, config.model = lines.version, lines.model
    except Unreadable as exc:
        state.unparsed[RUNNING_CONFIG] = exc.why
        state.locations[RUNNING_CONFIG] = exc.line
        return Reading(state, None)
    return Reading(*_resolve(config, state))


# --- from what the lines say to what the ports run ---------------------------------------------------


def _resolve(config: Config, state: DeviceState) -> tuple[DeviceState, Globals]:
    g = defaults(config.roce)
    dg = {kind: config.profiles.get((kind, DEFAULT_GLOBAL), Profile()) for kind in PROFILE_FIELDS}
    g.trust = dg["mapping"].trust or g.trust
    g.dscp_map.update(dg["mapping"].dscp)
    g.sp_tc.update(config.sp_tc)
    g.pfc = _pfc(dg["pfc"], g.pfc, g.pfc.cable_m)
    if config.roce_cable_m is not None:
        g.pfc = dataclasses.replace(g.pfc, cable_m=config.roce_cable_m)
    g.ecn = _ecn(dg["congestion-control"], g.ecn)
    g.strict = _strict(dg["egress-scheduler"], g.strict)
    g.polling_ms = config.polling_ms or g.polling_ms
    g.robustness = config.robustness or g.robustness
    state.dscp_map = dict(g.dscp_map)
    state.tc_queue = {sp: tc for sp, tc in g.sp_tc.items() if sp != tc}
    if g.roce is not None:
        state.qos_names["roce_mode"] = g.roce
    state.model, state.os_version = config.model, config.version
    for name, port in config.ports.items():
        # 9216 is the switch ports' default; eth0 and lo have their own.
        default_mtu = DEFAULT_MTU if (port.type or name[:3]) == "swp" else None
        iface = InterfaceState(name=name, description=port.description, mtu=port.mtu or default_mtu)
        if default_mtu is not None:
            # NVUE's QoS runs on the switch ports: eth0 and lo are the CPU's, and pause nothing.
            _port_qos(config, g, port, iface)
        iface.watchdog = port.watchdog
        if default_mtu is not None and not port.bond_member:
            # A switch port routes unless a bridge domain takes it in (NVUE's ports are layer 3).
            iface.switched = port.bridged
        shown = config.adaptive_routing is not None or port.adaptive_routing is not None
        if shown and default_mtu is not None:  # a switch port: eth0 and lo route no fabric traffic
            # Adaptive routing runs on a port only where it is on both switch-wide and on the port.
            adaptive = bool(config.adaptive_routing) and bool(port.adaptive_routing)
            iface.lb_mode = "per_packet" if adaptive else "hash"
        state.interfaces[name] = iface
    if config.ecmp_hash:
        state.hash_fields = neutral_fields(config.ecmp_hash)
    state.hash_seed = config.hash_seed
    on = any(port.watchdog for port in config.ports.values())
    state.watchdog = (
        Watchdog(True, "drop", g.polling_ms * g.robustness, g.polling_ms, g.polling_ms)
        if on
        else Watchdog(False)
    )
    _locate(config, dg, state.locations)
    return state, g


def _locate(config: Config, dg: dict[str, Profile], loc: dict[str, int]) -> None:
    """Where each setting stands: a port's own line, else the line of the profile it runs (its own, or
    the `default-global` one), else `nv set qos roce`, whose defaults it then runs."""
    roce = config.lines.get("roce")
    shared = {kind: dict(profile.lines) for kind, profile in dg.items()}
    if "cable_m" in config.lines:
        shared["pfc"]["cable_m"] = config.lines["cable_m"]
    for name, port in config.ports.items():
        loc[name] = port.first_line
        for kind, fields in PROFILE_FIELDS.items():
            own = port.profiles.get(kind)
            lines = config.profiles[(kind, own)].lines if (kind, own) in config.profiles else {}
            for f in fields:
                where = lines.get(f, port.lines.get(f)) if own else shared[kind].get(f, roce)
                if where:
                    loc[sys.intern(f"{name}.{f}")] = where
        for f in ("description", "mtu", "watchdog", "lb_mode", "switched"):
            if f in port.lines:
                loc[sys.intern(f"{name}.{f}")] = port.lines[f]
    device_wide = {
        "dscp_map": shared["mapping"].get("dscp_map", roce),
        "tc_queue": config.lines.get("tc_queue", roce),
        "watchdog": config.lines.get("watchdog"),
        "hash_fields": config.lines.get("hash_fields"),
        "hash_seed": config.lines.get("hash_seed"),
        "lb_mode": config.lines.get("lb_mode"),
    }
    loc.update({key: where for key, where in device_wide.items() if where})
    # Device-wide settings that are missing belong at the end.
    loc[""] = max(1, config.last_line)


# The settings each kind of profile a port can bind gives it.
_PROFILE_SETTINGS = {
    "mapping": {"trust", "dscp_map"},
    "pfc": {"pfc_enabled", "no_drop_priorities", "cable_m"},
    "congestion-control": {"ecn"},
    "egress-scheduler": {"strict_queues"},
}


def _port_qos(config: Config, g: Globals, port: Port, iface: InterfaceState) -> None:
    for kind, name in port.profiles.items():
        if kind in _PROFILE_SETTINGS and (kind, name) not in config.profiles:
            # A profile the configuration binds but does not define: its settings are unknown.
            iface.unread |= _PROFILE_SETTINGS[kind]
    mapping = port.profiles.get("mapping")
    if mapping is None:
        iface.trust = g.trust
    else:
        profile = config.profiles.get(("mapping", mapping), Profile())
        iface.trust = profile.trust or "pcp"
        own = {**STOCK_DSCP_MAP, **profile.dscp}
        iface.dscp_map = own if own != g.dscp_map else None
    pfc_name = port.profiles.get("pfc")
    pfc = g.pfc
    if pfc_name is not None:
        pfc = _pfc(config.profiles.get(("pfc", pfc_name), Profile()), Pfc(True, frozenset(), None), None)
    iface.pfc_enabled, iface.no_drop_priorities, iface.cable_m = pfc.enabled, pfc.priorities, pfc.cable_m
    cc = port.profiles.get("congestion-control")
    iface.ecn = (
        dict(g.ecn) if cc is None else _ecn(config.profiles.get(("congestion-control", cc), Profile()), {})
    )
    ets = port.profiles.get("egress-scheduler")
    iface.strict_queues = (
        g.strict
        if ets is None
        else _strict(config.profiles.get(("egress-scheduler", ets), Profile()), frozenset())
    )


def _pfc(profile: Profile, base: Pfc, cable_m: int | None) -> Pfc:
    """A PFC profile over its base: the pause directions, then the priorities (its own if it lists any,
    else the base's while PFC is on), then the cable length."""
    tx = profile.tx if profile.tx is not None else base.enabled
    rx = profile.rx if profile.rx is not None else base.enabled
    enabled = tx or rx
    if profile.priorities is not None:
        priorities = frozenset(profile.priorities)
    else:
        priorities = base.priorities if enabled else frozenset()
    return Pfc(enabled, priorities, profile.cable_m if profile.cable_m is not None else cable_m)


def _ecn(profile: Profile, base: dict[int, EcnSetting]) -> dict[int, EcnSetting]:
    out = dict(base)
    for queue, values in sorted(profile.queues.items()):
        if values.get("ecn") is False:
            out.pop(queue, None)
            continue
        current = out.get(queue, DEFAULT_GLOBAL_ECN)
        out[queue] = EcnSetting(
            int(values.get("min", current.min_bytes)),
            int(values.get("max", current.max_bytes)),
            int(values.get("probability", current.probability)),
        )
    return dict(sorted(out.items()))


def _strict(profile: Profile, base: frozenset[int]) -> frozenset[int]:
    strict = set(base)
    for queue, mode in profile.modes.items():
        (strict.add if mode == "strict" else strict.discard)(queue)
    return frozenset(strict)
