"""The read-only commands netcfg collects from a Junos switch."""

from __future__ import annotations

from netcfg.platforms.base import Command

SHOW_CONFIG = Command("show configuration | display set", "show_configuration_display_set")
# Junos ends a configuration with no closing line: the count of its lines shows a cut-short one.
SHOW_CONFIG_COUNT = Command(
    "show configuration | display set | count", "show_configuration_display_set_count"
)
SHOW_VERSION = Command("show version", "show_version")
SHOW_LLDP = Command("show lldp neighbors", "show_lldp_neighbors")
# Every port's link state and counters, and its egress queues' drops and ECN marks: one command each.
SHOW_EXTENSIVE = Command("show interfaces extensive", "show_interfaces_extensive", counters=True)
SHOW_QUEUE = Command("show interfaces queue", "show_interfaces_queue", counters=True)
# The route tables (`--routes` only): the default instance's IPv4 and IPv6 tables, as text.
SHOW_ROUTE = Command("show route table inet.0", "show_route_table_inet.0")
SHOW_ROUTE6 = Command("show route table inet6.0", "show_route_table_inet6.0")
COMMANDS = (SHOW_CONFIG, SHOW_CONFIG_COUNT, SHOW_VERSION, SHOW_LLDP, SHOW_EXTENSIVE, SHOW_QUEUE)
