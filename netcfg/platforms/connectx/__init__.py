"""Linux GPU server with NVIDIA ConnectX NICs: an idempotent host script, and its read-back.

Modules: commands (what is collected), render (the host script), parse (the script and the outputs
read back), counters (mlx5 counter names), secrets, lab (the simulator).

Read-back per NIC: `mlnx_qos -i IF` (trust, DSCP->priority, PFC), `mlxconfig -e -d DEV q` (the
firmware's DCBX agent, the planes its port is split over), a `grep -rH` dump of the ECN
sysfs and RDMA-CM configfs values, and `ethtool -i IF` (driver, firmware); its link state, PCIe link
and counters (netcfg.platforms.linux.counters, mlx5 names in netcfg.platforms.connectx.counters);
`lldpcli show neighbors` once per host.
"""

from __future__ import annotations

from typing import ClassVar

from netcfg.model import Device, DeviceState
from netcfg.platforms.base import Command, LoadBalancing, register
from netcfg.platforms.connectx import commands, parse, render, roce_accl, secrets
from netcfg.platforms.connectx.counters import MLX5_COUNTERS
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux.platform import LinuxHost


@register
class ConnectX(LinuxHost):
    name: ClassVar[str] = "connectx"
    description: ClassVar[str] = "Linux GPU server with NVIDIA ConnectX NICs"
    # Read-back only: `mlnx_qos -i IF` with any further option sets what it shows (interface names
    # start with a letter or digit, so none passes for an option); the rest as every Linux host.
    read_only_commands: ClassVar[tuple[str, ...]] = (
        r"mlnx_qos -i [A-Za-z0-9][A-Za-z0-9_.:-]*",
        # `q` (query) only: `set`, `reset` and `apply` change the firmware.
        r"mlxconfig -e -d [A-Za-z0-9][A-Za-z0-9_.:-]* q",
        roce_accl.READ_ONLY,
        *linux_counters.HOST_READ_ONLY,
    )
    # The kernel drivers of the NICs this platform configures (`ethtool -i`): a NIC on another driver
    # (an Intel i40e or ice in a rail) takes none of the mlnx_qos or ConnectX sysfs settings.
    nic_drivers: ClassVar[frozenset[str]] = frozenset({"mlx5_core"})
    # mlnx_qos reports `Cable len: 7` on a NIC nobody has set up.
    default_cable_m: ClassVar[int | None] = 7
    # Read back only (ROCE_ACCL's adaptive_routing_forced_en, mlxconfig's NUM_OF_PLANES_P1): netcfg
    # does not write NIC firmware settings.
    load_balancing: ClassVar[LoadBalancing] = LoadBalancing(
        reads=frozenset({"reorder_tolerant", "nic_planes"})
    )
    counter_names: ClassVar[linux_counters.CounterNames] = MLX5_COUNTERS

    def commands(self, device: Device) -> list[Command]:
        return commands.commands(device)

    def render_config(self, state: DeviceState, device: Device) -> str:
        return render.render_config(state, device)

    def parse_config(self, text: str, device: Device) -> DeviceState:
        return parse.parse_config(text, device)

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        return parse.parse_outputs(outputs, device)

    def mask_secrets(self, text: str) -> str:
        return secrets.mask_secrets(text)


# Where the settings of a generic host script stand: ((NIC index, ".field" or ""), line), hashable.
