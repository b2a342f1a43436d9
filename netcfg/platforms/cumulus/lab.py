"""What a simulated Cumulus Linux switch prints (`nv show` outputs, the applied configuration, the
ports' counters), the QoS Cumulus ships, and what its hardware shows when it lags the configuration:
the lab's Cumulus simulator."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from netcfg.model import Device, DeviceState, InstalledRoute, InterfaceState, Watchdog
from netcfg.platforms import frr
from netcfg.platforms.cumulus.commands import CONFIG, INTERFACES, ROCE, SYSTEM
from netcfg.platforms.cumulus.counters import render_counters
from netcfg.platforms.cumulus.defaults import STOCK_DSCP_MAP, defaults
from netcfg.platforms.cumulus.operational import render_interfaces, render_roce, render_system, roce_gap
from netcfg.platforms.cumulus.render import globals_of, render_lines
from netcfg.platforms.cumulus.show import parse_show
from netcfg.platforms.linux.host import LLDP, render_lldp
from netcfg.platforms.simulator import CliProfile, Simulator, bash_profile, register_simulator


@register_simulator
class CumulusSimulator(Simulator):
    platform_name: ClassVar[str] = "cumulus"
    cli_profile: ClassVar[CliProfile] = bash_profile("{user}@{name}:mgmt:~$ ")
    version: ClassVar[str] = "5.16.0"

    def render_routes(self, routes: list[InstalledRoute], family: int) -> str | None:
        return frr.render_routes(routes, family)

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        gap = state.not_operational
        return {
            SYSTEM.cli: render_system(state.os_version, state.name),
            CONFIG.cli: "\n".join(render_lines(state)) + "\n",
            ROCE.cli: render_roce(globals_of(state), gap),
            LLDP.cli: render_lldp(state),
        } | self.render_readings(state, device)

    def render_readings(self, state: DeviceState, device: Device) -> dict[str, str]:
        # The interface listing carries each port's link state and counters.
        return {INTERFACES.cli: render_interfaces(state, state.not_operational), **render_counters(state)}

    def factory_qos(self, state: DeviceState, device: Device) -> DeviceState | None:
        """QoS as Cumulus ships it, RoCE not configured: 802.1p trusted, priority n on queue n, ECN on
        queue 0 only (`default-global`), no PFC, no strict queue, no watchdog."""
        stock = defaults(None)
        ports = {
            name: dataclasses.replace(
                port,
                trust=stock.trust,
                dscp_map=None,
                pfc_enabled=False,
                no_drop_priorities=frozenset(),
                ecn=dict(stock.ecn),
                strict_queues=frozenset(),
                watchdog=False,
                cable_m=None,
            )
            for name, port in state.interfaces.items()
        }
        qos_names = {k: v for k, v in state.qos_names.items() if k != "roce_mode"}
        return dataclasses.replace(
            state,
            interfaces=ports,
            dscp_map=dict(STOCK_DSCP_MAP),
            tc_queue={},
            qos_names=qos_names,
            watchdog=Watchdog(enabled=False),
        )

    def operational_gap(self, applied: DeviceState, running: DeviceState) -> dict[str, tuple[str, str]]:
        """What `nv show qos roce` and the ports' running MTU show of a switch configured as `applied`
        whose hardware runs `running`, compared as parse_outputs compares them."""
        gap = roce_gap(globals_of(applied), parse_show(render_roce(globals_of(running), {})))
        empty = InterfaceState(name="")
        for name, port in applied.interfaces.items():
            mtu = running.interfaces.get(name, empty).mtu
            if port.mtu is not None and mtu is not None and mtu != port.mtu:
                gap[f"{name}.mtu"] = (str(port.mtu), str(mtu))
        return gap
