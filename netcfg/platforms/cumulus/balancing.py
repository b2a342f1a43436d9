"""ECMP hashing and adaptive routing in NVUE, as NVIDIA documents them (Cumulus Linux 5.14 user guide,
"Equal Cost Multipath Load Sharing"; NVUE reference, "System Forwarding" and "Adaptive Routing"):

    nv set system forwarding ecmp-hash <field> on|off          (5.15 and later: enabled|disabled)
    nv set system forwarding hash-seed <0-4294967295>
    nv set router adaptive-routing enable on|off               (5.15 and later: state enabled|disabled)
    nv set interface <ports> router adaptive-routing enable on|off

Spectrum adaptive routing moves packets to the less loaded path per packet: a port with it on runs
`per_packet`, any other port of a switch whose configuration shows adaptive routing runs `hash`.
"""

from __future__ import annotations

from netcfg.model import DeviceState
from netcfg.platforms.base import LoadBalancing
from netcfg.platforms.cumulus.names import compact_names

# NVUE's ECMP hash fields and netcfg's names for them; the others (gtp-teid, inner-*) keep NVUE's.
HASH_FIELDS = {
    "ip-protocol": "ip_protocol",
    "source-ip": "src_ip",
    "destination-ip": "dst_ip",
    "source-port": "l4_src_port",
    "destination-port": "l4_dst_port",
    "ipv6-label": "ipv6_flow_label",
    "ingress-interface": "ingress_port",
}
# On until a line turns them off (the user guide's "Default Setting" column).
DEFAULT_ON = frozenset(
    {"ip-protocol", "source-ip", "destination-ip", "source-port", "destination-port", "ipv6-label"}
)
NEUTRAL = {v: k for k, v in HASH_FIELDS.items()}

SUPPORT = LoadBalancing(
    hash_fields=frozenset(HASH_FIELDS.values()),
    modes=frozenset({"hash", "per_packet"}),
    renders=frozenset({"hash_fields", "hash_seed", "lb_mode"}),
    reads=frozenset({"hash_fields", "hash_seed", "lb_mode"}),
)


def neutral_fields(on: dict[str, bool]) -> frozenset[str]:
    """The hash fields of a configuration's ecmp-hash lines over NVUE's defaults, in netcfg's names."""
    fields = {name: name in DEFAULT_ON for name in HASH_FIELDS} | on
    return frozenset(HASH_FIELDS.get(name, name) for name, enabled in fields.items() if enabled)


def render_lines(state: DeviceState) -> list[str]:
    """`nv set` lines for the state's hash and adaptive routing, in the 5.15-and-later syntax."""
    lines = []
    if state.hash_fields is not None:
        for name, neutral in HASH_FIELDS.items():
            word = "enabled" if neutral in state.hash_fields else "disabled"
            lines.append(f"nv set system forwarding ecmp-hash {name} {word}")
    if state.hash_seed is not None:
        lines.append(f"nv set system forwarding hash-seed {state.hash_seed}")
    modes = {name: port.lb_mode for name, port in state.interfaces.items() if port.lb_mode is not None}
    if modes:
        adaptive = [name for name, mode in modes.items() if mode == "per_packet"]
        lines.append(f"nv set router adaptive-routing state {'enabled' if adaptive else 'disabled'}")
        if adaptive:
            lines.append(f"nv set interface {compact_names(adaptive)} router adaptive-routing state enabled")
    return lines
