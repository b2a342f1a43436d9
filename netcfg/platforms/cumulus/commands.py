"""The read-only commands netcfg collects from a Cumulus switch: four `nv` settings commands, then
the counters of the ports that are up (`counters.PORT_COMMANDS`)."""

from __future__ import annotations

from netcfg.platforms.base import Command
from netcfg.platforms.cumulus.counters import PORT_COMMANDS

SYSTEM = Command("nv show system", "nv_show_system")
CONFIG = Command("nv config show -o commands", "nv_config_show_commands")
ROCE = Command("nv show qos roce", "nv_show_qos_roce")
INTERFACES = Command("nv show interface -o json", "nv_show_interface_json")
# In this order: an output cut short loses the commands after it, and every facet those carry.
SETTINGS = [SYSTEM, CONFIG, ROCE, INTERFACES]
COUNTERS = [p.command for p in PORT_COMMANDS]
COMMANDS = [*SETTINGS, *COUNTERS]
