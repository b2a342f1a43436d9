"""What netcfg collects from an EOS switch, and the names its outputs are kept under."""

from __future__ import annotations

from netcfg.platforms.base import Command

NAME = "eos"
SHOW_VERSION = Command("show version", "show_version")
SHOW_RUNNING = Command("show running-config", "show_running-config")
SHOW_LLDP = Command("show lldp neighbors", "show_lldp_neighbors")
# Not collected: what a snapshot from another collector may hold instead of the table, as text or
# as its `| json` form under this one file name (lldp.py tells them apart).
SHOW_LLDP_DETAIL = Command("show lldp neighbors detail", "show_lldp_neighbors_detail")
# Link state, speed, link status changes, CRC/symbol errors and input discards of every port.
SHOW_INTERFACES = Command("show interfaces", "show_interfaces", counters=True)
# FEC corrected/uncorrected codewords of every port (text only: EOS has no JSON for these).
SHOW_PHY = Command("show interfaces phy detail", "show_interfaces_phy_detail", counters=True)
# PFC frames per priority and PFC watchdog events per tx-queue, as JSON: its keys (rxFrames/txFrames,
# stuckCount/recoveryCount) are what operators' tools read from real switches, where the text
# tables of these commands are not published.
SHOW_PFC = Command(
    "show priority-flow-control counters detail | json", "show_priority-flow-control_counters_detail", True
)
SHOW_PFC_WATCHDOG = Command(
    "show priority-flow-control counters watchdog | json",
    "show_priority-flow-control_counters_watchdog",
    True,
)
# The route tables (`--routes` only): the default VRF's routes, with the vias each forwards by.
SHOW_IP_ROUTE = Command("show ip route | json", "show_ip_route")
SHOW_IPV6_ROUTE = Command("show ipv6 route | json", "show_ipv6_route")
COUNTER_COMMANDS = (SHOW_INTERFACES, SHOW_PHY, SHOW_PFC, SHOW_PFC_WATCHDOG)
# parse_config's name for the text it was given (a file or `show running-config`) in `unparsed`.
RUNNING_CONFIG = "running-config"
