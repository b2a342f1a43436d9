"""Juniper Junos (QFX) switches: `set class-of-service` lines, read back from either config form.

Rendered: one `<switch>.set` file of `set` lines (`load set` takes it): forwarding classes (the
lossless one `no-loss` with its `pfc-priority`), a DSCP classifier, drop profiles, ECN and
strict-high schedulers and their scheduler maps, a congestion-notification profile per cable
length (DSCP-based PFC, `output ieee-802.1 ... flow-control-queue`, `pfc-watchdog`,
`input cable-length`), the bindings of each fabric port, and its MTU. Read back:
`show configuration | display set` (or a brace-form file), `show version`, `show lldp neighbors`,
and the ports' link state and counters from `show interfaces extensive` and `show interfaces queue`
(`counters`).
What Junos expresses differently from the policy, and the defaults relied on: `facts`. What is
collected: `commands`; what the lab's switches print: `lab`.
"""

from __future__ import annotations

from typing import ClassVar

from netcfg.model import Device, DeviceState
from netcfg.platforms.base import Command, LoadBalancing, Platform, RouteSource, register
from netcfg.platforms.junos import balancing, counters, facts, outputs, parse, render, routes, secrets
from netcfg.platforms.junos.commands import (
    COMMANDS,
    SHOW_CONFIG,
    SHOW_CONFIG_COUNT,
    SHOW_EXTENSIVE,
    SHOW_LLDP,
    SHOW_QUEUE,
    SHOW_ROUTE,
    SHOW_ROUTE6,
    SHOW_VERSION,
)
from netcfg.platforms.junos.remediate import remediation
from netcfg.platforms.junos.syntax import read_config
from netcfg.remediation import Remediation

HIER_CONFIG_PLATFORM = "JUNIPER_JUNOS"
# parse_config's name for the text it was given (a file or the collected config) in `unparsed`.
RUNNING_CONFIG = "configuration"


@register
class Junos(Platform):
    name: ClassVar[str] = "junos"
    kind: ClassVar = "switch"
    reads_dscp_rewrite: ClassVar[bool] = True
    netmiko_device_type: ClassVar[str] = "juniper_junos"
    config_suffix: ClassVar[str] = ".set"
    description: ClassVar[str] = "Juniper Junos (QFX) switch"
    hier_config_platform: ClassVar[str | None] = HIER_CONFIG_PLATFORM
    running_config_file: ClassVar[str | None] = SHOW_CONFIG.file
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"show configuration \| display set",
        r"show configuration \| display set \| count",
        r"show version",
        r"show lldp neighbors",
        r"show interfaces extensive",
        r"show interfaces queue",
        r"show route table inet6?\.0",
    )
    route_tables: ClassVar[tuple[RouteSource, ...]] = (
        RouteSource(4, SHOW_ROUTE, routes.read_routes),
        RouteSource(6, SHOW_ROUTE6, routes.read_routes6),
    )
    port_buffer_settings: ClassVar[frozenset[str]] = frozenset({"cable_m"})
    renders_routed_ports: ClassVar[bool] = False
    default_cable_m: ClassVar[int | None] = facts.DEFAULT_CABLE_M
    rule_modules: ClassVar[tuple[str, ...]] = ("netcfg.platforms.junos.rules",)
    load_balancing: ClassVar[LoadBalancing] = balancing.SUPPORT

    def commands(self, device: Device) -> list[Command]:
        return list(COMMANDS)

    def render_config(self, state: DeviceState, device: Device) -> str:
        return render.render_config(state)

    def parse_config(self, text: str, device: Device) -> DeviceState:
        state = DeviceState(name=device.name, platform=self.name, facets=frozenset({"qos"}))
        config = read_config(text)
        if config.foreign is not None:
            line, why = config.foreign
            whole = "not a Junos config" if not config.statements else "not a whole Junos config"
            state.unparsed[RUNNING_CONFIG] = f"{whole}: {why}"
            state.locations[RUNNING_CONFIG] = line
            if not config.statements:
                return state
        parse.cos_state(state, parse.read_cos(config.statements))
        balancing.read(state, [(s.path, s.line) for s in config.statements])
        # Device-wide settings that are missing belong at the end.
        state.locations[""] = max(1, config.last_line)
        return state

    def parse_outputs(self, outputs_by_file: dict[str, str], device: Device) -> DeviceState:
        text = outputs_by_file.get(SHOW_CONFIG.file)
        if text is not None:
            state = self.parse_config(text, device)
            why = state.unparsed.pop(RUNNING_CONFIG, None) or _cut_short(text, outputs_by_file)
        else:
            state = DeviceState(name=device.name, platform=self.name)
            why = "output missing"
        state.facets = frozenset({"qos", "version", "lldp"})
        if why is not None:
            state.unparsed[SHOW_CONFIG.cli] = why
            # What an unreadable config says is no evidence either way: parse.unknown_output reports
            # it once, and its QoS is left out of the checks.
            state.facets -= {"qos"}
        if SHOW_CONFIG_COUNT.file not in outputs_by_file:
            state.unparsed[SHOW_CONFIG_COUNT.cli] = "output missing: the configuration may be cut short"
        version_text = outputs_by_file.get(SHOW_VERSION.file)
        state.model, state.os_version = outputs.read_version(version_text or "")
        if state.os_version is None:
            state.unparsed[SHOW_VERSION.cli] = (
                "output missing" if version_text is None else "no 'Junos:' line"
            )
            state.facets -= {"version"}
        lldp = outputs.read_lldp(outputs_by_file.get(SHOW_LLDP.file, ""))
        if lldp is None:
            state.unparsed[SHOW_LLDP.cli] = "no neighbor table"
            # One unreadable table, not a missing neighbour on every port (cabling.no_neighbor).
            state.facets -= {"lldp"}
        state.lldp = lldp or []
        _read_counters(state, outputs_by_file)
        return state

    def mask_secrets(self, text: str) -> str:
        return secrets.mask(text)

    def not_running_config(self, text: str) -> tuple[int, str] | None:
        found = read_config(text).foreign
        return None if found is None else (found[0], f"not a whole Junos configuration: {found[1]}")

    def remediate(self, device: str, intended: str, running: str) -> Remediation | None:
        return remediation(device, intended, running, HIER_CONFIG_PLATFORM)


def _read_counters(state: DeviceState, outputs_by_file: dict[str, str]) -> None:
    """Link state ("link") and counters ("counters") of the ports, each facet only when the outputs
    that carry it were read. An empty output shows no port (the lab's devices without link state)."""
    extensive = outputs_by_file.get(SHOW_EXTENSIVE.file)
    queue = outputs_by_file.get(SHOW_QUEUE.file)
    links = counters.read_extensive(extensive or "")
    queues = counters.read_queues(queue or "")
    for command, text, problem in (
        (SHOW_EXTENSIVE, extensive, links.problem),
        (SHOW_QUEUE, queue, queues.problem),
    ):
        why = "output missing" if text is None else problem
        if why is not None:
            state.unparsed[command.cli] = why
    if extensive is None or links.problem is not None:
        return
    counters.apply(state, links, queues if queue is not None and queues.problem is None else None)
    if links.ports:
        state.facets |= {"link"}
    if queue is not None and queues.problem is None and state.counters:
        state.facets |= {"counters"}


def _cut_short(text: str, outputs_by_file: dict[str, str]) -> str | None:
    """Why the collected config is not the whole one, by the `| count` Junos printed for it."""
    counted = outputs_by_file.get(SHOW_CONFIG_COUNT.file)
    if counted is None:
        return None
    expected = outputs.read_count(counted)
    if expected is None:
        return f"'{SHOW_CONFIG_COUNT.cli}' printed no 'Count: N lines'"
    got = len(text.strip("\n").splitlines())
    if got != expected:
        return f"output cut short or damaged: {got} lines where Junos counted {expected}"
    return None
