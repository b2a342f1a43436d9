"""A local SSH lab of simulated switches and hosts, for tests and demos without real hardware.

`netcfg.lab.profile` describes a device as data; `netcfg.lab.sshserver` serves devices over SSH.
What each platform's devices print comes from its simulator (`netcfg.platforms.simulator`, the
platform's `lab.py`). The SSH server is imported lazily here, so building a lab never loads asyncssh
before it serves.
"""

from __future__ import annotations

from typing import Any

from netcfg.lab.profile import LabDevice, TransportFault
from netcfg.platforms.simulator import CliProfile

__all__ = ["KEX_ALGS", "CliProfile", "LabDevice", "LabServer", "TransportFault"]


def __getattr__(name: str) -> Any:
    if name in ("KEX_ALGS", "LabServer"):
        from netcfg.lab import sshserver

        return getattr(sshserver, name)
    raise AttributeError(name)
