"""The read-only commands netcfg collects from a Cumulus switch: four `nv` settings commands and
lldpd's neighbour table, then the counters of the ports that are up (`counters.PORT_COMMANDS`)."""

from __future__ import annotations

from netcfg.platforms.base import Command
from netcfg.platforms.cumulus.counters import PORT_COMMANDS
from netcfg.platforms.linux.host import LLDP

SYSTEM = Command("nv show system", "nv_show_system")
CONFIG = Command("nv config show -o commands", "nv_config_show_commands")
ROCE = Command("nv show qos roce", "nv_show_qos_roce")
INTERFACES = Command("nv show interface -o json", "nv_show_interface_json")
# LLDP neighbours: lldpd's own table (`lldpcli show neighbors`), whose shape NVIDIA's LLDP page
# documents; the interface table's `lldp` objects are no documented neighbour list.
# In this order: an output cut short loses the commands after it, and every facet those carry.
# The route tables (`--routes` only), from FRR: `sudo -n` fails at once where the login may not run
# vtysh, rather than wait for a password.
ROUTES = Command("sudo -n vtysh -c 'show ip route json'", "vtysh_show_ip_route_json")
ROUTES6 = Command("sudo -n vtysh -c 'show ipv6 route json'", "vtysh_show_ipv6_route_json")
SETTINGS = [SYSTEM, CONFIG, ROCE, INTERFACES, LLDP]
COUNTERS = [p.command for p in PORT_COMMANDS]
COMMANDS = [*SETTINGS, *COUNTERS]
