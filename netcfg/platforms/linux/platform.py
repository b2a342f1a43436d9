"""What every Linux GPU server platform shares, whatever its NICs: a host reached over its login
shell, configured by a host script, its commands chained into one round trip."""

from __future__ import annotations

from typing import ClassVar

from netcfg.model import Device
from netcfg.platforms.base import Batch, Platform


class LinuxHost(Platform):
    """The base of a NIC family's host platform (ConnectX, Thor); not registered itself."""

    kind: ClassVar = "host"
    netmiko_device_type: ClassVar[str] = "linux"
    exec_channel: ClassVar[bool] = True
    config_suffix: ClassVar[str] = ".sh"

    def batches(self, device: Device) -> list[Batch]:
        # A dozen or more round trips per server dominated collection time; bash chains them in one.
        return [Batch(tuple(self.commands(device)))]
