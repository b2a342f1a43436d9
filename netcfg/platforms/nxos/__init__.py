"""Cisco NX-OS (Nexus 9000): the MQC QoS chain rendered with Jinja2, read back with TTP.

What is collected: commands.py; rendering: render.py; reading config text and show outputs: parse.py
(the config's shape: text.py; the MQC layers: mqc.py; counters: counters.py); what the lab's switches
print: lab.py; masking: secrets.py; what `netcfg diff` compares: remediation.py; the Nexus family
a release runs on: family.py; NX-OS's own rule (the class MTU of a Nexus 3000/5000): rules.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from netcfg.model import Device, DeviceState
from netcfg.platforms.base import Command, LoadBalancing, Platform, RouteSource, register
from netcfg.platforms.nxos import balancing, commands, parse, remediation, render, routes, secrets
from netcfg.platforms.nxos.text import split_config

if TYPE_CHECKING:
    from netcfg.remediation import Remediation


@register
class Nxos(Platform):
    name: ClassVar[str] = "nxos"
    kind: ClassVar = "switch"
    reads_dscp_rewrite: ClassVar[bool] = True
    netmiko_device_type: ClassVar[str] = "cisco_nxos"
    config_suffix: ClassVar[str] = ".cfg"
    description: ClassVar[str] = "Cisco NX-OS switch"
    hier_config_platform: ClassVar[str | None] = "CISCO_NXOS"
    running_config_file: ClassVar[str | None] = commands.SHOW_RUNNING.file
    rule_modules: ClassVar[tuple[str, ...]] = ("netcfg.platforms.nxos.rules",)
    load_balancing: ClassVar[LoadBalancing] = balancing.SUPPORT
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"show version",
        r"show running-config",
        r"show interface priority-flow-control",
        r"show lldp neighbors detail",
        r"show interface",
        r"show interface counters errors",
        r"show queuing interface",
        r"show queuing pfc-queue detail",
        r"show ip(v6)? route",
    )
    route_tables: ClassVar[tuple[RouteSource, ...]] = (
        RouteSource(4, commands.SHOW_IP_ROUTE, routes.read_routes),
        RouteSource(6, commands.SHOW_IPV6_ROUTE, routes.read_routes6),
    )

    def hash_intent(self, fields: frozenset[str]) -> frozenset[str]:
        return balancing.intent_fields(fields)

    def commands(self, device: Device) -> list[Command]:
        return list(commands.COMMANDS)

    def render_config(self, state: DeviceState, device: Device) -> str:
        return render.render(state)

    def parse_config(self, text: str, device: Device) -> DeviceState:
        return parse.parse_config(text, device)

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return parse.parse_outputs(outputs, device)

    def not_running_config(self, text: str) -> tuple[int, str] | None:
        found = split_config(text).not_nxos()
        return None if found is None else (found[0], f"not an NX-OS running config: {found[1]}")

    def remediate(self, device: str, intended: str, running: str) -> Remediation | None:
        # Only what netcfg renders is compared, both sides in one form (no blank or comment lines):
        # the rest of the running config is left alone.
        want = remediation.managed_part(intended, intended)
        return super().remediate(device, want, remediation.managed_part(running, intended))

    def mask_secrets(self, text: str) -> str:
        return secrets.mask_secrets(text)
