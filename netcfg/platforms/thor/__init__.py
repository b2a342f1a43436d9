"""Linux GPU server with Broadcom Thor / Thor2 NICs (bnxt_en + bnxt_re): an idempotent host script
written the way Broadcom's bnxt_setupcc.sh configures a NIC, and its read-back.

How Broadcom's settings map onto the vendor-neutral model: `netcfg.platforms.thor.bnxt`. What the
policy asks that a Thor NIC cannot express: ConnectX's DCQCN reaction-point knobs (bnxt's DCQCN-P
has its own, with other units; only the CNP gap has a counterpart) and a cable length (the firmware
sizes PFC headroom itself).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, ClassVar

from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.platforms.base import Command, register
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux.host import LLDP
from netcfg.platforms.linux.platform import LinuxHost
from netcfg.platforms.thor import commands, parse, render, secrets
from netcfg.platforms.thor.bnxt import CNP_GAP
from netcfg.platforms.thor.counters import BNXT_COUNTERS

if TYPE_CHECKING:
    from netcfg.policy import Policy


@register
class Thor(LinuxHost):
    name: ClassVar[str] = "thor"
    description: ClassVar[str] = "Linux GPU server with Broadcom Thor NICs"
    # Read-back only: `bnxtqos -dev=IF get_qos` (every other bnxtqos verb sets something; interface
    # names start with a letter or digit, so none passes for an option); the rest as every Linux host.
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"bnxtqos -dev=[A-Za-z0-9][A-Za-z0-9_.:-]* get_qos",
        *linux_counters.HOST_READ_ONLY,
    )
    nic_drivers: ClassVar[frozenset[str]] = frozenset({commands.BNXT_EN})
    counter_names: ClassVar[linux_counters.CounterNames] = BNXT_COUNTERS
    # bnxt_re's counterpart of the policy's CNP gap is `cc/min_time_bet_cnp` (µs); ConnectX's
    # reaction-point knobs (rpg_*, dce_tcp_g, initial_alpha_value) have none.
    dcqcn_knobs: ClassVar[frozenset[str] | None] = frozenset({CNP_GAP})

    def commands(self, device: Device) -> list[Command]:
        return [*(c for nic in device.nics for c in commands.nic_commands(nic)), LLDP]

    def render_config(self, state: DeviceState, device: Device) -> str:
        return render.render_script(state, device)

    def parse_config(self, text: str, device: Device) -> DeviceState:
        return parse.parse_script(text, device)

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return parse.parse_outputs(outputs, device)

    def nic_intent(self, port: InterfaceState, policy: Policy) -> InterfaceState:
        """The DCB app table lists only the code points given (RoCE, and the CNP's as intent marks
        CNPs); the CNP priority rides a strict traffic class where the policy wants CNPs strict; no
        cable length (the firmware sizes headroom itself)."""
        assert port.cnp_dscp is not None and port.cnp_priority is not None  # intent sets both
        return dataclasses.replace(
            port,
            dscp_map={policy.roce.dscp: policy.roce.priority, port.cnp_dscp: port.cnp_priority},
            strict_queues=frozenset({port.cnp_priority}) if policy.cnp_strict else frozenset(),
            cable_m=None,
        )

    def mask_secrets(self, text: str) -> str:
        return secrets.mask_secrets(text)
