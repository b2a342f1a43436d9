"""The rule API: severities, issues and findings, the `rule` decorator, its registry and the check
context. A rule is one function with an id, a severity and a docstring.

This module imports only the model and the policy, so shared rules (`netcfg.checks`) and a platform's
own rules (`netcfg/platforms/<name>/rules.py`) both build on it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Literal, cast

from netcfg.model import Device, DeviceState, Fabric, InterfaceState
from netcfg.policy import Policy


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(frozen=True, slots=True)
class Issue:
    """What a rule function yields; the runner adds the rule id and severity."""

    device: str
    interface: str | None
    expected: str
    actual: str
    message: str
    severity: Severity | None = None
    # Where the issue stands when it is not in the device's own config (a cabling CSV row).
    file: str | None = None
    line: int | None = None
    # The settings it is about where that is narrower than the rule's `fields` (the one watchdog
    # timer that is wrong): looked up first, so the finding points at the line that holds it.
    fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    severity: Severity
    device: str
    interface: str | None
    expected: str
    actual: str
    message: str
    # Where the setting is (or belongs) in the config file the state was read from, when known.
    file: str | None = None
    line: int | None = None

    @property
    def item(self) -> str:
        """Stable identity for reports (JUnit case names, drift between audits)."""
        return f"{self.device}.{self.rule}" + (f".{self.interface}" if self.interface else "")

    def as_dict(self) -> dict[str, str | None]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "device": self.device,
            "interface": self.interface,
            "expected": self.expected,
            "actual": self.actual,
            "message": self.message,
            "file": self.file,
            "line": self.line,
        }


@dataclass(slots=True)
class CheckContext:
    fabric: Fabric
    policy: Policy
    states: dict[str, DeviceState]
    # Earlier readings of the same devices, for the counter rules: the previous audit's (or the
    # baseline's, when there is no previous audit), and the go-live baseline's.
    previous: dict[str, DeviceState] = field(default_factory=dict)
    baseline: dict[str, DeviceState] = field(default_factory=dict)
    # What several rules of one run work out together (the cabling classification), by name.
    memo: dict[str, object] = field(default_factory=dict)


# device: f(state, device, ctx); link: f(link, state_a, state_b, ctx); fabric: f(ctx);
# waivers: f(waivers, used, day, ctx), once every other rule's issues have met the waivers.
Scope = Literal["device", "link", "fabric", "waivers"]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    scope: Scope
    facet: str | None
    func: Callable[..., Iterable[Issue]]
    roles: frozenset[str] | None = None
    # The DeviceState/InterfaceState fields the rule reads: where its findings point in a config file.
    fields: tuple[str, ...] = ()
    # A platform's own rule (a stock trap of that platform): the platforms it applies to.
    platforms: frozenset[str] | None = None
    # A counter rule judges deltas against an earlier reading: "previous" (the previous audit, or
    # the baseline) or "baseline" (the go-live baseline only). Without one it has nothing to judge.
    compares: Literal["previous", "baseline"] | None = None

    @property
    def doc(self) -> str:
        return " ".join((self.func.__doc__ or "").split())


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str,
    severity: Severity,
    scope: Scope = "device",
    facet: str | None = "qos",
    kinds: Iterable[str] | None = None,
    fields: tuple[str, ...] = (),
    platforms: Iterable[str] | None = None,
    compares: Literal["previous", "baseline"] | None = None,
) -> Callable[[Callable[..., Iterable[Issue]]], Callable[..., Iterable[Issue]]]:
    """Register a check. `facet`: what a source must cover for the rule to apply; `kinds`: switch/host;
    `fields`: the settings it reads, to point its findings at their line; `platforms`: only devices
    of these platforms (a device rule a platform module registers for its own stock traps);
    `compares`: the earlier reading a counter rule needs."""

    def wrap(func: Callable[..., Iterable[Issue]]) -> Callable[..., Iterable[Issue]]:
        if rule_id in RULES:
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES[rule_id] = Rule(
            rule_id,
            severity,
            scope,
            facet,
            func,
            frozenset(kinds) if kinds else None,
            fields,
            frozenset(platforms) if platforms else None,
            compares,
        )
        return func

    return wrap


def fabric_port_names(device: Device, ctx: CheckContext) -> list[str]:
    """The cabled ports of a switch, or the NICs of a host (worked out once per device and run: two
    dozen rules walk them)."""
    key = f"port names {device.name}"
    found = ctx.memo.get(key)
    if found is None:
        if not device.is_switch:
            found = [nic.netdev for nic in device.nics]
        else:
            found = [local.interface for local, _, _ in ctx.fabric.links_of(device.name)]
        ctx.memo[key] = found
    return cast(list[str], found)


def fabric_ports(state: DeviceState, device: Device, ctx: CheckContext) -> list[InterfaceState]:
    """The cabled ports of a switch, or the NICs of a host; a missing one is an empty, unknown port.
    Once per state and run, as `fabric_port_names`."""
    key = f"ports {id(state)}"
    found = ctx.memo.get(key)
    if found is None:
        interfaces = state.interfaces
        found = ctx.memo[key] = [
            interfaces.get(name) or InterfaceState(name=name) for name in fabric_port_names(device, ctx)
        ]
    return cast(list[InterfaceState], found)


def show(value: object) -> str:
    """A setting as reports show it; None is the explicit 'unknown' state."""
    if value is None:
        return "unknown"
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}" if value else "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def kilobytes(value: int) -> str:
    """A byte count in KB as reports show it (-1: the device's unit was not one netcfg knows).

    Worked out in Decimal: a garbled config's threshold can be too large for a float."""
    return "unknown unit" if value < 0 else f"{Decimal(value) / 1000:g} KB"


def compare(
    device: str, interface: str | None, what: str, expected: object, actual: object
) -> tuple[Issue, ...]:
    """One issue when a setting differs from what is expected (unknown counts as differing), else
    none. A tuple, not a generator: rules compare every port of a fabric, nearly always equal."""
    if actual == expected:
        return ()
    return (
        Issue(
            device,
            interface,
            show(expected),
            show(actual),
            f"{what}: expected {show(expected)}, found {show(actual)}",
        ),
    )


def compare_ports(
    device: str,
    ports: Sequence[InterfaceState],
    what: str,
    expected: object,
    value: Callable[[InterfaceState], object],
) -> list[Issue]:
    """`compare` on every port, reading each port's setting with `value` (an `attrgetter`). A fabric
    has hundreds of thousands of ports and nearly all agree: each costs a C call and a comparison,
    not a Python call."""
    return [
        issue
        for port in ports
        if (actual := value(port)) != expected
        for issue in compare(device, port.name, what, expected, actual)
    ]
