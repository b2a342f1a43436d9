"""The read-only commands netcfg collects from an NX-OS switch: settings, then link state and counters."""

from __future__ import annotations

from netcfg.platforms.base import Command

SHOW_VERSION = Command("show version", "show_version")
SHOW_RUNNING = Command("show running-config", "show_running-config")
SHOW_PFC = Command("show interface priority-flow-control", "show_interface_priority-flow-control")
SHOW_LLDP = Command("show lldp neighbors detail", "show_lldp_neighbors_detail")
SHOW_INTERFACE = Command("show interface", "show_interface", counters=True)
SHOW_ERRORS = Command("show interface counters errors", "show_interface_counters_errors", counters=True)
SHOW_QUEUING = Command("show queuing interface", "show_queuing_interface", counters=True)
SHOW_WATCHDOG = Command("show queuing pfc-queue detail", "show_queuing_pfc-queue_detail", counters=True)
# The route table (`--routes` only), as text like every other NX-OS output netcfg reads.
SHOW_IP_ROUTE = Command("show ip route", "show_ip_route")
SHOW_IPV6_ROUTE = Command("show ipv6 route", "show_ipv6_route")
COUNTER_COMMANDS = (SHOW_INTERFACE, SHOW_ERRORS, SHOW_QUEUING, SHOW_WATCHDOG)
COMMANDS = (SHOW_VERSION, SHOW_RUNNING, SHOW_PFC, SHOW_LLDP, *COUNTER_COMMANDS)
