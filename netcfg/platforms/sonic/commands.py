"""The read-only commands netcfg collects from a SONiC switch: its settings, then its link state and
counters (read by counters.py)."""

from __future__ import annotations

from netcfg.platforms.base import Command

RUNNING = Command("show runningconfiguration all", "show_runningconfiguration_all")
VERSION = Command("show version", "show_version")
LLDP = Command("show lldp table", "show_lldp_table")
PFCWD = Command("pfcwd show config", "pfcwd_show_config")
STATUS = Command("show interfaces status", "show_interfaces_status", counters=True)
FLAP = Command("show interfaces flap", "show_interfaces_flap", counters=True)
ERRORS = Command("show interfaces counters errors", "show_interfaces_counters_errors", counters=True)
FEC = Command("show interfaces counters fec-stats", "show_interfaces_counters_fec_stats", counters=True)
PFC = Command("show pfc counters", "show_pfc_counters", counters=True)
PFCWD_STATS = Command("pfcwd show stats --empty", "pfcwd_show_stats", counters=True)
QUEUE = Command("show queue counters", "show_queue_counters", counters=True)
WRED = Command("show queue wredcounters", "show_queue_wredcounters", counters=True)
PG_DROP = Command("show priority-group drop counters", "show_priority_group_drop_counters", counters=True)
# The route tables (`--routes` only): SONiC's `show ip route` and `show ipv6 route` pass `json` on
# to FRR's vtysh.
ROUTES = Command("show ip route json", "show_ip_route_json")
ROUTES6 = Command("show ipv6 route json", "show_ipv6_route_json")
COUNTER_COMMANDS = [FLAP, ERRORS, FEC, PFC, PFCWD_STATS, QUEUE, WRED, PG_DROP]
COMMANDS = [RUNNING, VERSION, LLDP, PFCWD, STATUS, *COUNTER_COMMANDS]
