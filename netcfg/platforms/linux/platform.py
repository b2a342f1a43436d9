"""What every Linux GPU server platform shares, whatever its NICs: a host reached over its login
shell, configured by a host script, its commands chained into one round trip."""

from __future__ import annotations

from typing import ClassVar

from netcfg.model import Device, DeviceState
from netcfg.platforms.base import Batch, Platform
from netcfg.platforms.linux import counters as linux_counters


class LinuxHost(Platform):
    """The base of a NIC family's host platform (ConnectX, Thor); not registered itself."""

    kind: ClassVar = "host"
    netmiko_device_type: ClassVar[str] = "linux"
    exec_channel: ClassVar[bool] = True
    config_suffix: ClassVar[str] = ".sh"
    # How the NIC family's driver names its counters (`ethtool -S`, RDMA hw_counters).
    counter_names: ClassVar[linux_counters.CounterNames]

    def batches(self, device: Device) -> list[Batch]:
        # A dozen or more round trips per server dominated collection time; bash chains them in one.
        return [Batch(tuple(self.commands(device)))]

    def parse_counters(self, outputs: dict[str, str], device: Device) -> DeviceState:
        # A host's counters and link state are read from its counter commands alone, after and apart
        # from its QoS read-back: the rest of its outputs need not be parsed for an earlier reading.
        state = DeviceState(name=device.name, platform=self.name)
        linux_counters.read_counters(state, device.nics, outputs, self.counter_names)
        return state
