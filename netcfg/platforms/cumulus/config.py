"""Reading an NVUE configuration: `nv set` lines (as `nv config show -o commands` prints them and
`nv config replace` takes them) or the startup.yaml tree (`nv config show`), into a DeviceState with the
line of every setting.

QoS on Cumulus is profile based: the `default-global` profiles (on top of what `nv set qos roce` sets)
apply to every port; a port that binds a profile of its own (`nv set interface swp1 qos pfc profile X`)
runs that profile for that kind of setting.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import yaml

from netcfg.model import DeviceState, EcnSetting, InterfaceState, Watchdog
from netcfg.platforms.cumulus.defaults import (
    DEFAULT_GLOBAL,
    DEFAULT_GLOBAL_ECN,
    DEFAULT_MTU,
    ROCE_MODES,
    STOCK_DSCP_MAP,
    TRUST,
    Globals,
    Pfc,
    defaults,
)
from netcfg.platforms.cumulus.names import expand_names, expand_numbers

# parse_config's name for the text it was given, in `unparsed` (and `locations`, for where it went wrong).
RUNNING_CONFIG = "nvue config"
# The InterfaceState fields each kind of QoS profile sets.
PROFILE_FIELDS = {
    "mapping": ("trust", "dscp_map"),
    "pfc": ("pfc_enabled", "no_drop_priorities", "cable_m"),
    "congestion-control": ("ecn",),
    "egress-scheduler": ("strict_queues",),
}
_ON = {"enable": True, "enabled": True, "on": True, "disable": False, "disabled": False, "off": False}


@dataclass(slots=True)
class Profile:
    """One QoS profile as the config writes it (only what its lines say), and where each field is set."""

    trust: str | None = None
    dscp: dict[int, int] = field(default_factory=dict)
    priorities: set[int] | None = None
    tx: bool | None = None
    rx: bool | None = None
    cable_m: int | None = None
    # traffic class -> {"min": bytes, "max": bytes, "probability": %, "ecn": bool}
    queues: dict[int, dict[str, int | bool]] = field(default_factory=dict)
    modes: dict[int, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Port:
    type: str | None = None
    description: str | None = None
    mtu: int | None = None
    watchdog: bool = False
    profiles: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    first_line: int = 0


@dataclass(slots=True)
class Config:
    """Everything netcfg reads from one configuration."""

    roce: str | None = None
    roce_cable_m: int | None = None
    polling_ms: int | None = None
    robustness: int | None = None
    sp_tc: dict[int, int] = field(default_factory=dict)
    profiles: dict[tuple[str, str], Profile] = field(default_factory=dict)
    ports: dict[str, Port] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    version: str | None = None
    model: str | None = None
    last_line: int = 0

    def profile(self, kind: str, name: str) -> Profile:
        return self.profiles.setdefault((kind, name), Profile())

    def port(self, name: str, line: int) -> Port:
        port = self.ports.get(name)
        if port is None:
            port = self.ports[name] = Port(first_line=line)
        return port


@dataclass(frozen=True, slots=True)
class Reading:
    """A configuration read: the state it gives, its `default-global` settings, or why it is unreadable."""

    state: DeviceState
    globals: Globals | None


class _Unreadable(Exception):
    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why


def read_config(text: str, name: str, platform: str) -> Reading:
    """The DeviceState of a config in either form; an unreadable one is one `unparsed` entry with its line."""
    state = DeviceState(name=name, platform=platform, facets=frozenset({"qos"}))
    try:
        lines = _yaml_lines(text) if _looks_like_yaml(text) else _command_lines(text)
        config = Config(last_line=text.count("\n") + (0 if text.endswith("\n") else 1))
        for number, line in lines:
            _apply(config, number, line)
        if isinstance(lines, _YamlLines):
            config.version, config.model = lines.version, lines.model
    except _Unreadable as exc:
        state.unparsed[RUNNING_CONFIG] = exc.why
        state.locations[RUNNING_CONFIG] = exc.line
        return Reading(state, None)
    return Reading(*_resolve(config, state))


# --- the two forms, as (line number, "set ..." text) -------------------------------------------------


def _looks_like_yaml(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip() and not line.startswith("#")), "")
    return first.startswith("- ")


def _command_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or line == "nv config apply":
            continue
        if line.startswith("nv set "):
            out.append((number, line[len("nv ") :]))
        elif line.startswith("nv unset "):
            raise _Unreadable(
                number, "an 'nv unset' line; expected the applied configuration as 'nv set' lines"
            )
        else:
            raise _Unreadable(number, f"not an NVUE configuration: {_what(line, text)}")
    if not out:
        raise _Unreadable(1, "not an NVUE configuration: no 'nv set' line")
    return out


def _what(line: str, text: str) -> str:
    """What a foreign line shows the text to be, for the one-line error."""
    if re.search(r"^(?:traffic|pfc|ecn_red|priority_group)\.\S+ *=", text, re.M):
        return "a Cumulus Linux 3.x/4.x traffic.conf (Cumulus 5 configures QoS through NVUE)"
    if line.startswith(("{", "[")):
        return "a JSON document"
    if line.startswith(("interface ", "!", "hostname ")):
        return "a CLI config line (EOS or similar)"
    return f"expected 'nv set ...', found {line[:40]!r}"


class _YamlLines(list[tuple[int, str]]):
    version: str | None = None
    model: str | None = None


def _yaml_lines(text: str) -> _YamlLines:
    """startup.yaml (`nv config show`) as `set ...` lines: each path from `set` to a leaf is a command."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise _Unreadable(
            mark.line + 1 if mark else 1, f"malformed YAML ({getattr(exc, 'problem', exc)})"
        ) from None
    except RecursionError:
        raise _Unreadable(1, "YAML nested too deeply for an NVUE configuration") from None
    if not isinstance(root, yaml.SequenceNode):
        raise _Unreadable(1, "not an NVUE configuration: expected a YAML list of '- header:' and '- set:'")
    out = _YamlLines()
    try:
        _set_items(root, out)
    except RecursionError:
        raise _Unreadable(1, "YAML nested too deeply for an NVUE configuration") from None
    if not any(line != "set" for _, line in out):
        raise _Unreadable(1, "not an NVUE configuration: no '- set:' item")
    return out


def _set_items(root: yaml.SequenceNode, out: _YamlLines) -> None:
    seen: set[int] = set()
    for item in root.value:
        if not isinstance(item, yaml.MappingNode):
            raise _Unreadable(item.start_mark.line + 1, "expected '- header:' or '- set:' items")
        for key, value in item.value:
            if key.value == "set":
                _flatten(value, ["set"], out, seen)
            elif key.value == "header" and isinstance(value, yaml.MappingNode):
                header = {k.value: v.value for k, v in value.value if isinstance(v, yaml.ScalarNode)}
                out.version = _version(str(header.get("version", "")))
                out.model = header.get("model")
            else:
                raise _Unreadable(key.start_mark.line + 1, f"expected 'header' or 'set', found {key.value!r}")


def _flatten(
    node: yaml.Node, path: list[str], out: list[tuple[int, str]], seen: set[int], line: int = 1
) -> None:
    """Each path from `set` to a leaf as one line; `line` is where the path's last key stands."""
    if id(node) in seen:
        # NVUE writes no anchors; a repeated node is an alias, which could expand without bound.
        raise _Unreadable(line, "YAML alias; NVUE configurations have none")
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode) and node.value:
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise _Unreadable(key.start_mark.line + 1, "a YAML key that is not a name")
            _flatten(value, [*path, str(key.value)], out, seen, key.start_mark.line + 1)
    elif isinstance(node, yaml.MappingNode):
        out.append((node.start_mark.line + 1, " ".join(path)))
    elif isinstance(node, yaml.ScalarNode):
        value = node.value if " " not in node.value else f"'{node.value}'"
        out.append((node.start_mark.line + 1, " ".join([*path, value]) if value else " ".join(path)))
    else:
        raise _Unreadable(node.start_mark.line + 1, "a YAML list inside 'set'; NVUE configurations have none")


def _version(text: str) -> str | None:
    found = re.search(r"(\d+\.\d+(?:\.\d+)*)", text)
    return found.group(1) if found else None


# --- one `set ...` line -----------------------------------------------------------------------------

_Handler = Callable[[Config, int, re.Match[str]], None]
_RULES: list[tuple[re.Pattern[str], _Handler]] = []


def _rule(pattern: str) -> Callable[[_Handler], _Handler]:
    def wrap(func: _Handler) -> _Handler:
        _RULES.append((re.compile(pattern), func))
        return func

    return wrap


def _apply(config: Config, number: int, line: str) -> None:
    for pattern, handler in _RULES:
        found = pattern.fullmatch(line)
        if found is not None:
            handler(config, number, found)
            return


def setting_role(setting: str) -> str | None:
    """How one `set ...` setting is changed back: "value" (a new value replaces it), "member" (of a
    collection: unset as written), "description", or None when it is not a setting netcfg reads."""
    handler = next((h for pattern, h in _RULES if pattern.fullmatch(setting)), None)
    if handler is None or handler in (_interface, _profile):
        return None
    if handler in (_pfc_priority, _roce) or (handler is _port_watchdog and " state " not in setting):
        return "member"
    return "description" if handler is _description else "value"


def _ports(config: Config, number: int, text: str) -> list[Port]:
    names = expand_names(text)
    if names is None:
        raise _Unreadable(number, f"interface list {text[:40]!r}; expected names such as swp1-4,swp31")
    return [config.port(name, number) for name in names]


def _numbers(number: int, text: str, highest: int) -> list[int]:
    found = expand_numbers(text, highest)
    if found is None:
        raise _Unreadable(number, f"{text[:40]!r}; expected numbers 0-{highest} such as 3 or 0,3")
    return found


def _int(number: int, text: str, low: int, high: int) -> int:
    value = int(text)
    if not low <= value <= high:
        raise _Unreadable(number, f"{value} is out of range; expected {low}-{high}")
    return value


@_rule(r"set interface (\S+) description (.+)")
def _description(config: Config, number: int, m: re.Match[str]) -> None:
    text = m.group(2).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    for port in _ports(config, number, m.group(1)):
        port.description = text
        port.lines["description"] = number


@_rule(r"set interface (\S+) type (\S+)")
def _type(config: Config, number: int, m: re.Match[str]) -> None:
    for port in _ports(config, number, m.group(1)):
        port.type = m.group(2)


@_rule(r"set interface (\S+) link mtu (\d+)")
def _mtu(config: Config, number: int, m: re.Match[str]) -> None:
    mtu = _int(number, m.group(2), 552, 9216)
    for port in _ports(config, number, m.group(1)):
        port.mtu = mtu
        port.lines["mtu"] = number


@_rule(r"set interface (\S+) qos pfc-watchdog(?: state (\S+))?")
def _port_watchdog(config: Config, number: int, m: re.Match[str]) -> None:
    on = _ON.get(m.group(2) or "enabled")
    if on is None:
        raise _Unreadable(number, f"pfc-watchdog state {m.group(2)!r}; expected enabled or disabled")
    for port in _ports(config, number, m.group(1)):
        port.watchdog = on
        port.lines["watchdog"] = number


@_rule(r"set interface (\S+) qos (mapping|pfc|congestion-control|egress-scheduler) profile (\S+)")
def _bind(config: Config, number: int, m: re.Match[str]) -> None:
    for port in _ports(config, number, m.group(1)):
        port.profiles[m.group(2)] = m.group(3)
        for name in PROFILE_FIELDS[m.group(2)]:
            port.lines[name] = number


@_rule(r"set interface (\S+)(?: .*)?")
def _interface(config: Config, number: int, m: re.Match[str]) -> None:
    _ports(config, number, m.group(1))


@_rule(r"set qos roce(?: (?:enable|state) (\S+))?")
def _roce(config: Config, number: int, m: re.Match[str]) -> None:
    on = _ON.get(m.group(1) or "on")
    if on is None:
        raise _Unreadable(number, f"qos roce state {m.group(1)!r}; expected enabled or disabled")
    config.roce = (config.roce or "lossless") if on else None
    config.lines["roce"] = number


@_rule(r"set qos roce mode (\S+)")
def _roce_mode(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(1) not in ROCE_MODES:
        raise _Unreadable(number, f"qos roce mode {m.group(1)!r}; expected one of {', '.join(ROCE_MODES)}")
    config.roce = m.group(1)
    config.lines["roce"] = number


@_rule(r"set qos roce cable-length (\d+)")
def _roce_cable(config: Config, number: int, m: re.Match[str]) -> None:
    config.roce_cable_m = _int(number, m.group(1), 1, 100_000)
    config.lines["cable_m"] = number


@_rule(r"set qos mapping (\S+) trust (\S+)")
def _trust(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(2) not in TRUST:
        raise _Unreadable(number, f"trust {m.group(2)!r}; expected l2, l3, both or port")
    profile = config.profile("mapping", m.group(1))
    profile.trust = TRUST[m.group(2)]
    profile.lines["trust"] = number


@_rule(r"set qos mapping (\S+) dscp (\S+) switch-priority (\d+)")
def _dscp(config: Config, number: int, m: re.Match[str]) -> None:
    profile = config.profile("mapping", m.group(1))
    priority = _int(number, m.group(3), 0, 7)
    for dscp in _numbers(number, m.group(2), 63):
        profile.dscp[dscp] = priority
    profile.lines["dscp_map"] = number


@_rule(r"set qos pfc (\S+) switch-priority (\S+)")
def _pfc_priority(config: Config, number: int, m: re.Match[str]) -> None:
    profile = config.profile("pfc", m.group(1))
    profile.priorities = (profile.priorities or set()) | set(_numbers(number, m.group(2), 7))
    profile.lines["no_drop_priorities"] = number


@_rule(r"set qos pfc (\S+) (tx|rx) (\S+)")
def _pfc_direction(config: Config, number: int, m: re.Match[str]) -> None:
    on = _ON.get(m.group(3))
    if on is None:
        raise _Unreadable(number, f"pfc {m.group(2)} {m.group(3)!r}; expected enable or disable")
    profile = config.profile("pfc", m.group(1))
    setattr(profile, m.group(2), on)
    profile.lines["pfc_enabled"] = number


@_rule(r"set qos pfc (\S+) cable-length (\d+)")
def _pfc_cable(config: Config, number: int, m: re.Match[str]) -> None:
    profile = config.profile("pfc", m.group(1))
    profile.cable_m = _int(number, m.group(2), 1, 100_000)
    profile.lines["cable_m"] = number


@_rule(
    r"set qos congestion-control (\S+) traffic-class (\S+) (min-threshold|max-threshold|probability) (\d+)"
)
def _ecn_value(config: Config, number: int, m: re.Match[str]) -> None:
    profile = config.profile("congestion-control", m.group(1))
    key = {"min-threshold": "min", "max-threshold": "max", "probability": "probability"}[m.group(3)]
    value = _int(number, m.group(4), 0 if key != "probability" else 1, 2**32 if key != "probability" else 100)
    for queue in _numbers(number, m.group(2), 7):
        profile.queues.setdefault(queue, {})[key] = value
    profile.lines["ecn"] = number


@_rule(r"set qos congestion-control (\S+) traffic-class (\S+) ecn (\S+)")
def _ecn_state(config: Config, number: int, m: re.Match[str]) -> None:
    on = _ON.get(m.group(3))
    if on is None:
        raise _Unreadable(number, f"ecn {m.group(3)!r}; expected enable or disable")
    profile = config.profile("congestion-control", m.group(1))
    for queue in _numbers(number, m.group(2), 7):
        profile.queues.setdefault(queue, {})["ecn"] = on
    profile.lines["ecn"] = number


@_rule(r"set qos egress-scheduler (\S+) traffic-class (\S+) mode (\S+)")
def _ets(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(3) not in ("strict", "dwrr"):
        raise _Unreadable(number, f"mode {m.group(3)!r}; expected strict or dwrr")
    profile = config.profile("egress-scheduler", m.group(1))
    for queue in _numbers(number, m.group(2), 7):
        profile.modes[queue] = m.group(3)
    profile.lines["strict_queues"] = number


@_rule(r"set qos egress-queue-mapping default-global switch-priority (\S+) traffic-class (\d+)")
def _queue_map(config: Config, number: int, m: re.Match[str]) -> None:
    queue = _int(number, m.group(2), 0, 7)
    for priority in _numbers(number, m.group(1), 7):
        config.sp_tc[priority] = queue
    config.lines.setdefault("tc_queue", number)


@_rule(r"set qos pfc-watchdog (polling-interval|robustness) (\d+)")
def _watchdog_timer(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(1) == "robustness":
        config.robustness = _int(number, m.group(2), 1, 1000)
    else:
        config.polling_ms = _int(number, m.group(2), 1, 60_000)
    config.lines.setdefault("watchdog", number)


@_rule(r"set qos (mapping|pfc|congestion-control|egress-scheduler) (\S+)(?: .*)?")
def _profile(config: Config, number: int, m: re.Match[str]) -> None:
    config.profile(m.group(1), m.group(2))


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
        _port_qos(config, g, port, iface)
        iface.watchdog = port.watchdog
        state.interfaces[name] = iface
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
        for f in ("description", "mtu", "watchdog"):
            if f in port.lines:
                loc[sys.intern(f"{name}.{f}")] = port.lines[f]
    device_wide = {
        "dscp_map": shared["mapping"].get("dscp_map", roce),
        "tc_queue": config.lines.get("tc_queue", roce),
        "watchdog": config.lines.get("watchdog"),
    }
    loc.update({key: where for key, where in device_wide.items() if where})
    # Device-wide settings that are missing belong at the end.
    loc[""] = max(1, config.last_line)


def _port_qos(config: Config, g: Globals, port: Port, iface: InterfaceState) -> None:
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
