"""A local SSH lab of simulated switches and hosts, for tests and demos without real hardware.

`netcfg.lab.profile` describes a device as data; `netcfg.lab.sshserver` serves devices over SSH.
The SSH server is imported lazily here, so describing a platform never loads asyncssh.
"""

from __future__ import annotations

from typing import Any

from netcfg.lab.profile import CliProfile, LabDevice, TransportFault

__all__ = ["KEX_ALGS", "CliProfile", "LabDevice", "LabServer", "TransportFault"]


def __getattr__(name: str) -> Any:
    if name in ("KEX_ALGS", "LabServer"):
        from netcfg.lab import sshserver

        return getattr(sshserver, name)
    raise AttributeError(name)
