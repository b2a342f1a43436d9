"""Arista EOS: QoS per interface or through `qos profile`, rendered with Jinja2, parsed with TTP.

`render` writes the config, `parse` reads configs and collected outputs, `text` cuts a config into
blocks with their line numbers, `secrets` masks what must not be saved, `remediation` is what
`netcfg diff` compares and applies; `lab` is the simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from netcfg.model import Device, DeviceState
from netcfg.platforms.base import Command, LoadBalancing, Platform, RouteSource, register
from netcfg.platforms.eos import balancing, parse, render, routes, secrets
from netcfg.platforms.eos.commands import (
    COUNTER_COMMANDS,
    NAME,
    SHOW_IP_ROUTE,
    SHOW_IPV6_ROUTE,
    SHOW_LLDP,
    SHOW_RUNNING,
)
from netcfg.platforms.eos.parse import SEGMENT_BYTES
from netcfg.platforms.eos.text import split_config

if TYPE_CHECKING:
    from netcfg.remediation import Remediation

__all__ = ["SEGMENT_BYTES", "Eos"]


@register
class Eos(Platform):
    name: ClassVar[str] = NAME
    kind: ClassVar = "switch"
    reads_dscp_rewrite: ClassVar[bool] = True
    netmiko_device_type: ClassVar[str] = "arista_eos"
    config_suffix: ClassVar[str] = ".cfg"
    description: ClassVar[str] = "Arista EOS switch"
    # hier_config's name for EOS: its driver is loaded only by the commands that compare configs.
    hier_config_platform: ClassVar[str | None] = "ARISTA_EOS"
    load_balancing: ClassVar[LoadBalancing] = balancing.SUPPORT
    running_config_file: ClassVar[str | None] = SHOW_RUNNING.file
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"show running-config",
        r"show lldp neighbors",
        r"show version",
        r"show interfaces",
        r"show interfaces phy detail",
        r"show priority-flow-control counters (detail|watchdog) \| json",
        r"show ip(v6)? route \| json",
    )
    route_tables: ClassVar[tuple[RouteSource, ...]] = (
        RouteSource(4, SHOW_IP_ROUTE, routes.read_routes),
        RouteSource(6, SHOW_IPV6_ROUTE, routes.read_routes6),
    )

    def commands(self, device: Device) -> list[Command]:
        # EOS heads its running config with `! device: NAME (MODEL, EOS-VERSION)`: a separate `show
        # version` would cost a round trip per switch for the same two facts. EOS runs one command
        # per line, so each counter command is a round trip: four cover every port of the switch.
        return [SHOW_RUNNING, SHOW_LLDP, *COUNTER_COMMANDS]

    def render_config(self, state: DeviceState, device: Device) -> str:
        return render.render_config(state)

    def parse_config(self, text: str, device: Device) -> DeviceState:
        return parse.parse_config(text, device)

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return parse.parse_outputs(outputs, device)

    def parse_counters(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return parse.parse_counters(outputs, device)

    def mask_secrets(self, text: str) -> str:
        return secrets.mask_secrets(text)

    def not_running_config(self, text: str) -> tuple[int, str] | None:
        found = split_config(text).not_eos()
        return None if found is None else (found[0], f"not an EOS running config: {found[1]}")

    def remediate(self, device: str, intended: str, running: str) -> Remediation | None:
        from netcfg.platforms.eos import remediation

        # Only what netcfg renders is compared: the rest of the running config is left alone.
        return remediation.remediation(device, intended, running)
