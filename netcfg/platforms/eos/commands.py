"""What netcfg collects from an EOS switch, and the names its outputs are kept under."""

from __future__ import annotations

from netcfg.platforms.base import Command

NAME = "eos"
SHOW_VERSION = Command("show version", "show_version")
SHOW_RUNNING = Command("show running-config", "show_running-config")
SHOW_LLDP = Command("show lldp neighbors", "show_lldp_neighbors")
# parse_config's name for the text it was given (a file or `show running-config`) in `unparsed`.
RUNNING_CONFIG = "running-config"
