"""What netcfg reads of an NVUE configuration, as its lines write it: the QoS profiles, the ports and
the switch-wide settings, each with the line that sets it (before any default is applied)."""

from __future__ import annotations

from dataclasses import dataclass, field

# The InterfaceState fields each kind of QoS profile sets.
PROFILE_FIELDS = {
    "mapping": ("trust", "dscp_map"),
    "pfc": ("pfc_enabled", "no_drop_priorities", "cable_m"),
    "congestion-control": ("ecn",),
    "egress-scheduler": ("strict_queues",),
}
ON = {"enable": True, "enabled": True, "on": True, "disable": False, "disabled": False, "off": False}


@dataclass(slots=True)
class Profile:
    """One QoS profile as the config writes it (only what its lines say), and where each field is set."""

    trust: str | None = None
    dscp: dict[int, int] = field(default_factory=dict)
    priorities: set[int] | None = None
    tx: bool | None = None
    rx: bool | None = None
    cable_m: int | None = None
    # traffic class -> {"min": bytes, "max": bytes, "probability": %, "ecn": bool}
    queues: dict[int, dict[str, int | bool]] = field(default_factory=dict)
    modes: dict[int, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Port:
    type: str | None = None
    description: str | None = None
    mtu: int | None = None
    watchdog: bool = False
    # `router adaptive-routing` on this port; None: no line names it.
    adaptive_routing: bool | None = None
    # `bridge domain X` on this port, and whether it is a member of a bond (which forwards as the bond).
    bridged: bool = False
    bond_member: bool = False
    profiles: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    first_line: int = 0


@dataclass(slots=True)
class Config:
    """Everything netcfg reads from one configuration."""

    roce: str | None = None
    roce_cable_m: int | None = None
    polling_ms: int | None = None
    robustness: int | None = None
    sp_tc: dict[int, int] = field(default_factory=dict)
    # `system forwarding ecmp-hash <field>` lines (NVUE's field names) and `hash-seed`; `router
    # adaptive-routing` switch-wide. Empty / None: no line says.
    ecmp_hash: dict[str, bool] = field(default_factory=dict)
    hash_seed: int | None = None
    adaptive_routing: bool | None = None
    profiles: dict[tuple[str, str], Profile] = field(default_factory=dict)
    ports: dict[str, Port] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    version: str | None = None
    model: str | None = None
    last_line: int = 0

    def profile(self, kind: str, name: str) -> Profile:
        return self.profiles.setdefault((kind, name), Profile())

    def port(self, name: str, line: int) -> Port:
        port = self.ports.get(name)
        if port is None:
            port = self.ports[name] = Port(first_line=line)
        return port


class Unreadable(Exception):
    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why
