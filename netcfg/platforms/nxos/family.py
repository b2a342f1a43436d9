"""Which Nexus family an NX-OS release runs on, and the one semantic netcfg reads differently for it.

The release train names the family (the letter after the maintenance number): `6.0(2)U6(1)` (U) and
`6.0(2)A8(11)` (A) are Nexus 3000/3500 releases, `7.3(8)N1(1)` (N) Nexus 5000/6000; `7.0(3)I7(9)`
(I), `7.0(3)F3(5)` (F) and the numbered releases from 9.2 on (`9.3(15)`, `10.4(3)`) are the unified
NX-OS image of the Nexus 9000, which Nexus 3000 models run too (a `Nexus3000 C3232C` on 9.3).

Where they differ for netcfg: on the Nexus 3000/5000 releases the MTU of a switched port is the MTU
of each network-qos class ("MTU is specified per system class ... You cannot configure MTU on the
interfaces", Cisco Nexus 5000 Series NX-OS QoS configuration guide); on the unified image it is the
port's own `mtu` (1500 by default).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TRAIN = re.compile(r"\d+\.\d+\(\d+[a-z]?\)(?P<train>[A-Z])\d")
_NUMBERED = re.compile(r"(?P<major>\d+)\.(?P<minor>\d+)\(\d+[a-z]?\)")


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    # Switched ports carry each class up to its network-qos class MTU (no per-port MTU).
    class_mtu: bool


NEXUS_9000 = Family("Nexus 9000 (unified NX-OS image)", class_mtu=False)
_TRAINS = {
    "U": Family("Nexus 3000", class_mtu=True),
    "A": Family("Nexus 3500", class_mtu=True),
    "N": Family("Nexus 5000/6000", class_mtu=True),
    "I": NEXUS_9000,
    "F": NEXUS_9000,
}


def family(version: str) -> Family | None:
    """The family of an NX-OS release (`version` line of the config, `NXOS: version` of show version);
    None for a train netcfg does not know (a Nexus 7000 `D` release, an MDS release)."""
    found = _TRAIN.match(version)
    if found:
        return _TRAINS.get(found["train"])
    found = _NUMBERED.fullmatch(version)
    if found and (int(found["major"]), int(found["minor"])) >= (9, 2):
        return NEXUS_9000
    return None
