"""The `nv set` lines netcfg reads, one rule each: a pattern and what the line sets. Any other line (BGP,
users, services) is left alone."""

from __future__ import annotations

import re
from collections.abc import Callable

from netcfg.platforms.cumulus.defaults import ROCE_MODES, TRUST
from netcfg.platforms.cumulus.names import expand_names, expand_numbers
from netcfg.platforms.cumulus.tree import ON, PROFILE_FIELDS, Config, Port, Unreadable

_Handler = Callable[[Config, int, re.Match[str]], None]
_RULES: list[tuple[re.Pattern[str], _Handler]] = []


def _rule(pattern: str) -> Callable[[_Handler], _Handler]:
    def wrap(func: _Handler) -> _Handler:
        _RULES.append((re.compile(pattern), func))
        return func

    return wrap


def apply_line(config: Config, number: int, line: str) -> None:
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
        raise Unreadable(number, f"interface list {text[:40]!r}; expected names such as swp1-4,swp31")
    return [config.port(name, number) for name in names]


def _numbers(number: int, text: str, highest: int) -> list[int]:
    found = expand_numbers(text, highest)
    if found is None:
        raise Unreadable(number, f"{text[:40]!r}; expected numbers 0-{highest} such as 3 or 0,3")
    return found


def _int(number: int, text: str, low: int, high: int) -> int:
    value = int(text)
    if not low <= value <= high:
        raise Unreadable(number, f"{value} is out of range; expected {low}-{high}")
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
    on = ON.get(m.group(2) or "enabled")
    if on is None:
        raise Unreadable(number, f"pfc-watchdog state {m.group(2)!r}; expected enabled or disabled")
    for port in _ports(config, number, m.group(1)):
        port.watchdog = on
        port.lines["watchdog"] = number


@_rule(r"set interface (\S+) qos (mapping|pfc|congestion-control|egress-scheduler) profile (\S+)")
def _bind(config: Config, number: int, m: re.Match[str]) -> None:
    for port in _ports(config, number, m.group(1)):
        port.profiles[m.group(2)] = m.group(3)
        for name in PROFILE_FIELDS[m.group(2)]:
            port.lines[name] = number


@_rule(r"set interface (\S+) router adaptive-routing (?:enable|state) (\S+)")
def _port_adaptive_routing(config: Config, number: int, m: re.Match[str]) -> None:
    on = _on(number, "adaptive-routing", m.group(2))
    for port in _ports(config, number, m.group(1)):
        port.adaptive_routing = on
        port.lines["lb_mode"] = number


@_rule(r"set router adaptive-routing (?:enable|state) (\S+)")
def _adaptive_routing(config: Config, number: int, m: re.Match[str]) -> None:
    config.adaptive_routing = _on(number, "adaptive-routing", m.group(1))
    config.lines["lb_mode"] = number


@_rule(r"set system forwarding ecmp-hash (\S+) (\S+)")
def _ecmp_hash(config: Config, number: int, m: re.Match[str]) -> None:
    config.ecmp_hash[m.group(1)] = _on(number, f"ecmp-hash {m.group(1)}", m.group(2))
    config.lines.setdefault("hash_fields", number)


@_rule(r"set system forwarding hash-seed (\d+)")
def _hash_seed(config: Config, number: int, m: re.Match[str]) -> None:
    config.hash_seed = _int(number, m.group(1), 0, 2**32 - 1)
    config.lines["hash_seed"] = number


def _on(number: int, what: str, word: str) -> bool:
    on = ON.get(word)
    if on is None:
        raise Unreadable(number, f"{what} {word[:20]!r}; expected on, off, enabled or disabled")
    return on


@_rule(r"set interface (\S+) bridge domain (\S+)(?: .*)?")
def _bridge(config: Config, number: int, m: re.Match[str]) -> None:
    for port in _ports(config, number, m.group(1)):
        port.bridged = True
        port.lines.setdefault("switched", number)


@_rule(r"set interface (\S+) bond member (\S+)")
def _bond_member(config: Config, number: int, m: re.Match[str]) -> None:
    _ports(config, number, m.group(1))
    for port in _ports(config, number, m.group(2)):
        port.bond_member = True


@_rule(r"set interface (\S+)(?: .*)?")
def _interface(config: Config, number: int, m: re.Match[str]) -> None:
    _ports(config, number, m.group(1))


@_rule(r"set qos roce(?: (?:enable|state) (\S+))?")
def _roce(config: Config, number: int, m: re.Match[str]) -> None:
    on = ON.get(m.group(1) or "on")
    if on is None:
        raise Unreadable(number, f"qos roce state {m.group(1)!r}; expected enabled or disabled")
    config.roce = (config.roce or "lossless") if on else None
    config.lines["roce"] = number


@_rule(r"set qos roce mode (\S+)")
def _roce_mode(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(1) not in ROCE_MODES:
        raise Unreadable(number, f"qos roce mode {m.group(1)!r}; expected one of {', '.join(ROCE_MODES)}")
    config.roce = m.group(1)
    config.lines["roce"] = number


@_rule(r"set qos roce cable-length (\d+)")
def _roce_cable(config: Config, number: int, m: re.Match[str]) -> None:
    config.roce_cable_m = _int(number, m.group(1), 1, 100_000)
    config.lines["cable_m"] = number


@_rule(r"set qos mapping (\S+) trust (\S+)")
def _trust(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(2) not in TRUST:
        raise Unreadable(number, f"trust {m.group(2)!r}; expected l2, l3, both or port")
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
    on = ON.get(m.group(3))
    if on is None:
        raise Unreadable(number, f"pfc {m.group(2)} {m.group(3)!r}; expected enable or disable")
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
    on = ON.get(m.group(3))
    if on is None:
        raise Unreadable(number, f"ecn {m.group(3)!r}; expected enable or disable")
    profile = config.profile("congestion-control", m.group(1))
    for queue in _numbers(number, m.group(2), 7):
        profile.queues.setdefault(queue, {})["ecn"] = on
    profile.lines["ecn"] = number


@_rule(r"set qos egress-scheduler (\S+) traffic-class (\S+) mode (\S+)")
def _ets(config: Config, number: int, m: re.Match[str]) -> None:
    if m.group(3) not in ("strict", "dwrr"):
        raise Unreadable(number, f"mode {m.group(3)!r}; expected strict or dwrr")
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
