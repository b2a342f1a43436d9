"""Which hosts a finding drains, and which it only impacts: a drain list an operator can act on.

A host is drained for its own trouble: a finding on the host itself (its NIC settings, PCIe,
firmware, its end of a cable), or on the switch end of that host's one cable (the leaf port it is
cabled to: speed, flaps, FEC/CRC, down, wrong neighbour). A fault of a whole switch is not the
hosts' own: a leaf's QoS wrong on every port, a device-wide finding (its NOS), a spine, an uplink.
The hosts behind such a switch are `impacted`: listed with the switch and the rule, drained only
when asked (`--drain-scope impacted`). One leaf line must never drain every server behind it.

The plan says which ports face which host (its fabric links); nothing here knows a platform.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from netcfg.model import Device, Endpoint, Fabric, Role, expand_ports, port_sort_key
from netcfg.rules import Finding, Severity

# Findings that say nothing about a host's health: the device is unknown (collection, unreadable
# output, no state), or the finding is about the inventory or the waivers.
NOT_HEALTH = ("collect.", "parse.", "state.", "plan.", "waiver.")
# Findings that say the device could not be judged.
UNREAD = ("collect.", "parse.")
# Rules about one cable each, even where every port of a switch is named (two swapped cables).
_PER_CABLE = ("cabling.",)
_TIER = {Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}


@dataclass(frozen=True, slots=True)
class Reason:
    """One finding behind a host's entry. `interface`: the host's port; `switch:port` for the switch
    end of its cable; or, for an impacted host, the switch (and its ports) the fault is on."""

    rule: str
    interface: str | None
    severity: Severity
    message: str


@dataclass(frozen=True, slots=True)
class DrainPlan:
    """Hosts to drain for their own trouble, and hosts behind a switch-wide fault (not in `drain`)."""

    drain: dict[str, list[Reason]]
    impacted: dict[str, list[Reason]]

    def scoped(self, scope: str) -> DrainPlan:
        """The plan as `--drain-scope` asks: "own" as is; "impacted" drains the impacted hosts too."""
        if scope == "own":
            return self
        merged = {h: self.drain.get(h, []) + self.impacted.get(h, []) for h in {*self.drain, *self.impacted}}
        return DrainPlan(_ordered(merged), {})


def drain_plan(fabric: Fabric, findings: Iterable[Finding]) -> DrainPlan:
    own: dict[str, list[Reason]] = {}
    impacted: dict[str, list[Reason]] = {}
    below = _HostsBelow(fabric)
    for f in findings:
        device = fabric.devices.get(f.device)
        if device is None or f.severity == Severity.INFO or f.rule.startswith(NOT_HEALTH):
            continue
        if device.role == Role.HOST:
            own.setdefault(f.device, []).append(Reason(f.rule, f.interface, f.severity, f.message))
            continue
        ports = set(expand_ports(f.interface)) if f.interface else set()
        host_ports = {
            local.interface: remote.device
            for local, _, remote in fabric.links_of(f.device)
            if fabric.devices[remote.device].role == Role.HOST
        }
        switch_wide = not ports or (
            len(host_ports) > 1 and set(host_ports) <= ports and not f.rule.startswith(_PER_CABLE)
        )
        if switch_wide:
            where = f.device + (f":{f.interface}" if f.interface else "")
            for host in below(device):
                impacted.setdefault(host, []).append(Reason(f.rule, where, f.severity, f.message))
            continue
        for port in sorted(ports, key=port_sort_key):
            peer = fabric.peer(Endpoint(f.device, port))
            if peer is None:
                continue
            reason = Reason(f.rule, f"{f.device}:{port}", f.severity, f.message)
            if port in host_ports:
                own.setdefault(peer.device, []).append(reason)
            else:
                # An uplink: every host below its lower end is impacted.
                lower = min((device, fabric.devices[peer.device]), key=lambda d: _TIER.get(d.role, 0))
                for host in below(lower):
                    impacted.setdefault(host, []).append(reason)
    return DrainPlan(_ordered(own), _ordered({h: r for h, r in impacted.items() if h not in own}))


class _HostsBelow:
    """The hosts a switch carries: a leaf's own, a spine's through its leaves (worked out once each)."""

    def __init__(self, fabric: Fabric) -> None:
        self._fabric = fabric
        self._found: dict[str, frozenset[str]] = {}

    def __call__(self, device: Device) -> frozenset[str]:
        found = self._found.get(device.name)
        if found is None:
            hosts: set[str] = set()
            tier = _TIER.get(device.role, 0)
            for _, _, remote in self._fabric.links_of(device.name):
                peer = self._fabric.devices[remote.device]
                if peer.role == Role.HOST:
                    hosts.add(peer.name)
                elif _TIER.get(peer.role, 0) < tier:
                    hosts |= self(peer)
            found = self._found[device.name] = frozenset(hosts)
        return found


def _ordered(hosts: dict[str, list[Reason]]) -> dict[str, list[Reason]]:
    """Hosts in name order, each host's reasons worst first, without repeats."""
    return {
        host: sorted(set(reasons), key=lambda r: (-r.severity.rank, r.rule, port_sort_key(r.interface or "")))
        for host, reasons in sorted(hosts.items(), key=lambda item: port_sort_key(item[0]))
    }
