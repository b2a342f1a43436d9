"""Where each device sits in the fabric, for reports that draw it (the HTML rail map and NIC grid).

Only names and positions: never credentials or connection details, which the Fabric also holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from netcfg.model import Endpoint, Fabric, Role


@dataclass(frozen=True, slots=True)
class SwitchPlace:
    name: str
    role: Role
    su: int | None
    rail: int | None


@dataclass(frozen=True, slots=True)
class NicPlace:
    rail: int
    netdev: str
    rdma_device: str
    # The leaf port the plan cables this NIC to; None when the plan has no cable for it.
    leaf_port: Endpoint | None


@dataclass(frozen=True, slots=True)
class HostPlace:
    name: str
    su: int | None
    nics: tuple[NicPlace, ...]


@dataclass(frozen=True, slots=True)
class FabricLayout:
    rails: int
    switches: tuple[SwitchPlace, ...]
    hosts: tuple[HostPlace, ...]
    # Devices the report had a state for; the others were not checked (not in the audited selection,
    # no config file): drawn as such, never as clean.
    checked: frozenset[str]


def fabric_layout(fabric: Fabric, checked: Iterable[str]) -> FabricLayout:
    switches, hosts = [], []
    for device in fabric.devices.values():
        if device.is_switch:
            switches.append(SwitchPlace(device.name, device.role, device.su, device.rail))
        elif device.role == Role.HOST:
            # The device's own cables, looked up by port: no Endpoint is built and hashed per NIC.
            peers = {local.interface: remote for local, _, remote in fabric.links_of(device.name)}
            nics = tuple(NicPlace(n.rail, n.netdev, n.rdma_device, peers.get(n.netdev)) for n in device.nics)
            hosts.append(HostPlace(device.name, device.su, nics))
    return FabricLayout(fabric.rails, tuple(switches), tuple(hosts), frozenset(checked))
