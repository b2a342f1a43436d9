"""The read-only commands collected from a Thor server: per NIC `bnxtqos -dev=IF get_qos`, a dump of
its bnxt_re configfs values, `ethtool -i IF`, its GID table and its counters; `lldpcli` once."""

from __future__ import annotations

from netcfg.model import Nic
from netcfg.platforms.base import Command
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux.host import ethtool_command, gid_command

PLATFORM = "thor"


BNXT_EN = "bnxt_en"


def qos_command(nic: Nic) -> Command:
    return Command(f"bnxtqos -dev={nic.netdev} get_qos", f"bnxtqos_{nic.netdev}")


def configfs_command(nic: Nic) -> Command:
    cli = (
        f"grep -rH . /sys/class/net/{nic.netdev}/mtu /sys/kernel/config/rdma_cm/{nic.rdma_device}/ports/1 "
        f"/sys/kernel/config/bnxt_re/{nic.rdma_device}/ports/1/cc"
    )
    return Command(cli, f"configfs_{nic.netdev}")


def nic_commands(nic: Nic) -> list[Command]:
    return [
        qos_command(nic),
        configfs_command(nic),
        ethtool_command(nic),
        gid_command(nic),
        *linux_counters.nic_counter_commands(nic),
    ]
