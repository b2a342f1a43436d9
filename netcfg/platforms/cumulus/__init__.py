"""NVIDIA Cumulus Linux 5.x switches, configured through NVUE.

Render: `nv set` lines, one `.nvue` file per switch, as `nv config show -o commands` prints them:
`nv set qos roce mode lossless|lossy` and, only where the policy differs from what that command sets
(defaults.py), overrides in the `default-global` QoS profiles (trust, DSCP map, PFC priority, ECN on the
RoCE class, strict CNP class, class-to-queue map), the plan's cable length (`nv set qos roce
cable-length`, and a PFC profile of their own for ports on other cables), MTU and the PFC watchdog per
fabric port. LLDP is on by default and part of `nv set qos roce` (application TLV UDP 4791): netcfg adds
no line for it.

Read: a configuration in either form (`nv set` lines, or startup.yaml), for `--configs`; live, read-only:
`nv show system` (version), `nv config show -o commands` (the applied configuration), `nv show qos roce`
(what the hardware runs, compared with the configuration: a setting it did not take is
`config.not_operational`), `nv show interface -o json` (every port's running MTU, link state, speed
and link-down count in one command), `lldpcli show neighbors` (lldpd's neighbour table, the command
and output NVIDIA's LLDP page documents) and, for every port whose link is up, its counters
(counters.py: PFC pause frames, queue drops and ECN marks, FCS and symbol errors, RoCE no-buffer
discards, PFC watchdog storms, FEC errors): two shell lines, settings then counters.

What the policy asks that NVUE cannot express, each reported rather than dropped (`pfc.watchdog` names
it): the PFC watchdog's restoration time (NVUE restores a queue after one polling interval without pause
frames, so restoration = polling), a detection time that is not a whole number of polling intervals
(detection = polling x robustness, rendered rounded up) and any action but drop.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from netcfg.model import Device, DeviceState
from netcfg.platforms import frr
from netcfg.platforms.base import Batch, Command, LoadBalancing, Platform, RouteSource, register
from netcfg.platforms.cumulus import balancing, parse
from netcfg.platforms.cumulus.commands import COMMANDS, CONFIG, COUNTERS, ROUTES, ROUTES6, SETTINGS
from netcfg.platforms.cumulus.defaults import ROCE_CABLE_M, STOCK_DSCP_MAP, defaults
from netcfg.platforms.cumulus.forms import command_lines
from netcfg.platforms.cumulus.remediate import remediate
from netcfg.platforms.cumulus.render import render_lines
from netcfg.platforms.cumulus.secrets import mask_secrets
from netcfg.platforms.cumulus.tree import Unreadable

if TYPE_CHECKING:
    from netcfg.policy import Policy
    from netcfg.remediation import Remediation


@register
class Cumulus(Platform):
    name: ClassVar[str] = "cumulus"
    kind: ClassVar = "switch"
    reads_dscp_rewrite: ClassVar[bool] = True
    # netmiko's cumulus_linux is its Linux shell driver: the shell NVUE runs in, no paging to turn off
    # (`nv show` pages only with `--paginate on`).
    netmiko_device_type: ClassVar[str] = "cumulus_linux"
    config_suffix: ClassVar[str] = ".nvue"
    description: ClassVar[str] = "NVIDIA Cumulus Linux switch (NVUE)"
    running_config_file: ClassVar[str | None] = CONFIG.file
    read_only_commands: ClassVar[tuple[str, ...]] = tuple(
        re.escape(c.cli) for c in (*COMMANDS, ROUTES, ROUTES6)
    )
    route_tables: ClassVar[tuple[RouteSource, ...]] = (
        RouteSource(4, ROUTES, frr.read_routes),
        RouteSource(6, ROUTES6, frr.read_routes6),
    )
    port_buffer_settings: ClassVar[frozenset[str]] = frozenset({"cable_m"})
    default_cable_m: ClassVar[int | None] = ROCE_CABLE_M
    load_balancing: ClassVar[LoadBalancing] = balancing.SUPPORT

    def commands(self, device: Device) -> list[Command]:
        return list(COMMANDS)

    def batches(self, device: Device) -> list[Batch]:
        # Each `nv` call costs the switch far more than the round trip; one line still saves three. The
        # counters go on a line of their own: their time grows with the ports that are up (five `nv`
        # calls each), and a switch too slow to answer them within the timeout keeps its settings.
        return [Batch(tuple(SETTINGS)), Batch(tuple(COUNTERS))]

    # --- render ---------------------------------------------------------------------------------

    def render_config(self, state: DeviceState, device: Device) -> str:
        return "\n".join(render_lines(state)) + "\n"

    # --- parse ----------------------------------------------------------------------------------

    def parse_config(self, text: str, device: Device) -> DeviceState:
        return parse.parse_config(text, device)

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return parse.parse_outputs(outputs, device)

    def mask_secrets(self, text: str) -> str:
        return mask_secrets(text)

    def not_running_config(self, text: str) -> tuple[int, str] | None:
        try:
            command_lines(text)
        except Unreadable as exc:
            return (
                exc.line,
                f"{exc.why}; expected the applied configuration as 'nv config show -o commands' prints it",
            )
        return None

    def remediate(self, device: str, intended: str, running: str) -> Remediation | None:
        return remediate(device, intended, running)

    # --- what the switch runs beyond the policy, stock, and when the hardware lags --------------------

    def complete_intent(self, state: DeviceState, policy: Policy) -> DeviceState:
        """NVUE shows every DSCP and switch priority, and the classes RoCE mode marks besides the policy's:
        the intent carries NVIDIA's RoCE defaults for all the policy leaves alone."""
        base = defaults(policy.mode)
        own = {policy.roce.priority, policy.cnp.priority}
        state.dscp_map = {**STOCK_DSCP_MAP, **state.dscp_map}
        state.tc_queue = {sp: tc for sp, tc in base.sp_tc.items() if sp != tc and sp not in own}
        state.qos_names = {**state.qos_names, "roce_mode": policy.mode}
        extra_ecn = {q: e for q, e in base.ecn.items() if q not in own}
        extra_strict = base.strict - own
        for port in state.interfaces.values():
            port.ecn = dict(sorted({**extra_ecn, **port.ecn}.items()))
            port.strict_queues = port.strict_queues | extra_strict
        return state
