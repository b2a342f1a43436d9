"""The read-only commands collected from a ConnectX server: per NIC `mlnx_qos -i IF`, the firmware's
`mlxconfig -e -d DEV q`, a `grep -rH` dump of its ECN sysfs and RDMA-CM configfs values,
`ethtool -i IF`, its GID table, its `mlxreg ... ROCE_ACCL --get` register and its counters;
`lldpcli` once."""

from __future__ import annotations

from functools import lru_cache

from netcfg.model import Device, Nic
from netcfg.platforms.base import Command
from netcfg.platforms.connectx.roce_accl import roce_accl_command
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux.host import (
    LLDP,
    ethtool_command,
    gid_command,
)

PRIORITIES = range(8)

PLATFORM = "connectx"


# Commands are cached by NIC: a fabric's servers have the same few NICs, and reading a snapshot
# asks for each NIC's commands by name for every server.
@lru_cache(maxsize=256)
def mlnx_qos_command(nic: Nic) -> Command:
    return Command(f"mlnx_qos -i {nic.netdev}", f"mlnx_qos_{nic.netdev}")


@lru_cache(maxsize=256)
def mlxconfig_command(nic: Nic) -> Command:
    """The firmware's settings with their current values (`-e`): DCBX is run by the firmware when
    mlnx_qos says `DCBX mode: Firmware controlled`. Optional: MFT is not on every host."""
    return Command(f"mlxconfig -e -d {nic.rdma_device} q", f"mlxconfig_{nic.netdev}", optional=True)


@lru_cache(maxsize=256)
def sysfs_command(nic: Nic) -> Command:
    cli = (
        f"grep -rH . /sys/class/net/{nic.netdev}/mtu /sys/class/net/{nic.netdev}/ecn "
        f"/sys/kernel/config/rdma_cm/{nic.rdma_device}/ports/1"
    )
    return Command(cli, f"sysfs_{nic.netdev}")


def commands(device: Device) -> list[Command]:
    """Every command of one server, in order: each NIC's, then LLDP once."""
    per_nic = [
        c
        for nic in device.nics
        for c in (
            mlnx_qos_command(nic),
            mlxconfig_command(nic),
            sysfs_command(nic),
            ethtool_command(nic),
            gid_command(nic),
            roce_accl_command(nic),
            *linux_counters.nic_counter_commands(nic),
        )
    ]
    return [*per_nic, LLDP]
