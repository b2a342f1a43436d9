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

from netcfg.lab.profile import CliProfile
from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.platforms import linux_counters, linux_host
from netcfg.platforms.base import Batch, Command, Platform, register
from netcfg.platforms.linux_host import LLDP
from netcfg.platforms.thor import readback, script
from netcfg.platforms.thor.bnxt import CNP_GAP

if TYPE_CHECKING:
    from netcfg.policy import Policy

# What a Thor2 host runs before anyone sets RoCE up differently: Broadcom's defaults as its
# bnxt_re_conf package applies them at driver load (bnxt_setupcc.sh: RoCE DSCP 26 on priority 3,
# CNP DSCP 48 on priority 7 on strict TC2, PFC and congestion control on, RoCE TOS DSCP << 2 with
# the firmware marking ECT(1); the Juniper/AMD validated design lists the same values).
BROADCOM_ROCE = (26, 3)
BROADCOM_CNP = (48, 7)
BROADCOM_ECN_MARKING = 1


@register
class Thor(Platform):
    name: ClassVar[str] = "thor"
    kind: ClassVar = "host"
    netmiko_device_type: ClassVar[str] = "linux"
    config_suffix: ClassVar[str] = ".sh"
    description: ClassVar[str] = "Linux GPU server with Broadcom Thor NICs"
    cli_profile: ClassVar[CliProfile] = CliProfile(
        prompt="{user}@{name}:~$ ", setup_replies={}, invalid_input="-bash: {command}: command not found"
    )
    # Read-back only: `bnxtqos -dev=IF get_qos` (every other bnxtqos verb sets something; interface
    # names start with a letter or digit, so none passes for an option); the rest as every Linux host.
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"bnxtqos -dev=[A-Za-z0-9][A-Za-z0-9_.:-]* get_qos",
        linux_host.ETHTOOL_READ_ONLY,
        linux_counters.ETHTOOL_LINK_READ_ONLY,
        linux_counters.ETHTOOL_STATS_READ_ONLY,
        linux_host.GREP_READ_ONLY,
        linux_host.LLDP_READ_ONLY,
    )
    nic_drivers: ClassVar[frozenset[str]] = frozenset({readback.BNXT_EN})
    # bnxt_re's counterpart of the policy's CNP gap is `cc/min_time_bet_cnp` (µs); ConnectX's
    # reaction-point knobs (rpg_*, dce_tcp_g, initial_alpha_value) have none.
    dcqcn_knobs: ClassVar[frozenset[str] | None] = frozenset({CNP_GAP})
    # A Thor2 (BCM57608) firmware as `ethtool -i` prints it before `/pkg` (AMD MI300X servers).
    lab_version: ClassVar[str] = "232.0.219.16"

    def commands(self, device: Device) -> list[Command]:
        return [*(c for nic in device.nics for c in readback.nic_commands(nic)), LLDP]

    def batches(self, device: Device) -> list[Batch]:
        # bash chains the host's commands in one round trip, as on ConnectX.
        return [Batch(tuple(self.commands(device)))]

    def render_config(self, state: DeviceState, device: Device) -> str:
        return script.render_script(state, device)

    def parse_config(self, text: str, device: Device) -> DeviceState:
        return script.parse_script(text, device)

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return readback.parse_outputs(outputs, device)

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        return readback.render_outputs(state, device)

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

    def factory_qos(self, state: DeviceState, device: Device) -> DeviceState:
        """Broadcom's defaults on every NIC (CNP priority 7 where NVIDIA's is 6); MTU, firmware and
        the CNP gap stay as they are (netcfg has no source for bnxt's default gap)."""
        (roce_dscp, roce_prio), (cnp_dscp, cnp_prio) = BROADCOM_ROCE, BROADCOM_CNP
        ports = {
            name: dataclasses.replace(
                port,
                trust="dscp",
                pfc_enabled=True,
                no_drop_priorities=frozenset({roce_prio}),
                dscp_map={roce_dscp: roce_prio, cnp_dscp: cnp_prio},
                strict_queues=frozenset({cnp_prio}),
                roce_mode="RoCE v2",
                roce_tos=roce_dscp << 2 | BROADCOM_ECN_MARKING,
                ecn_np_priorities=frozenset({roce_prio}),
                ecn_rp_priorities=frozenset({roce_prio}),
                cnp_dscp=cnp_dscp,
                cnp_priority=cnp_prio,
                dcqcn=dict(port.dcqcn),
                ecn=dict(port.ecn),
            )
            for name, port in state.interfaces.items()
        }
        return dataclasses.replace(state, interfaces=ports)
