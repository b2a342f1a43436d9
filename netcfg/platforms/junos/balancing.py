"""The ECMP hash and dynamic load balancing of a QFX as Juniper's CLI reference gives them
("enhanced-hash-key (EX)", its QFX5000 syntax, and "inet (enhanced-hash-key)"):

    set forwarding-options enhanced-hash-key hash-mode layer2-payload
    set forwarding-options enhanced-hash-key family inet no-l4-source-port      (no-ipv4-source-address,
        no-ipv4-destination-address, no-l4-destination-port, no-protocol; vlan-id adds the VLAN)
    set forwarding-options enhanced-hash-key ecmp-dlb per-packet                (assigned-flow, flowlet)

By default (hash mode layer2-payload) a QFX hashes IPv4 on the source and destination address, both
L4 ports and the protocol. DLB applies to every ECMP group of the switch, so the mode is the
device's, on every port. Not rendered: a hash seed (no QFX statement found; `show forwarding-options
enhanced-hash-key` prints the seed it runs) and flowlet mode (its inactivity interval's unit is not
given). The RDMA queue pair that Junos Evolved AI-ML releases hash on by default ("Queue-Pair Hashing
for RDMA Flows") has no statement either, so it is not claimed.
"""

from __future__ import annotations

from collections import Counter

from netcfg.model import DeviceState
from netcfg.platforms.base import LoadBalancing

KEY = ("forwarding-options", "enhanced-hash-key")
PREFIX = "set forwarding-options enhanced-hash-key"
# The `no-` statements of `family inet` and the default field each leaves out.
EXCLUDES = {
    "no-ipv4-source-address": "src_ip",
    "no-ipv4-destination-address": "dst_ip",
    "no-l4-source-port": "l4_src_port",
    "no-l4-destination-port": "l4_dst_port",
    "no-protocol": "ip_protocol",
}
DEFAULT_FIELDS = frozenset(EXCLUDES.values())
_ADDS = {"vlan-id": "vlan_id", "gtp-tunnel-endpoint-identifier": "gtp_teid"}
DLB_MODES = {"per-packet": "per_packet", "flowlet": "flowlet", "assigned-flow": "assigned_flow"}

SUPPORT = LoadBalancing(
    hash_fields=DEFAULT_FIELDS,
    modes=frozenset({"hash", "per_packet"}),
    renders=frozenset({"hash_fields", "lb_mode"}),
    reads=frozenset({"hash_fields", "lb_mode"}),
    mode_scope="device",
)


def device_mode(state: DeviceState) -> str | None:
    """The mode most ports run: DLB is one setting for every ECMP group of the switch."""
    modes = Counter(p.lb_mode for p in state.interfaces.values() if p.lb_mode is not None)
    return modes.most_common(1)[0][0] if modes else None


def render_lines(state: DeviceState) -> list[str]:
    mode = device_mode(state)
    if state.hash_fields is None and mode is None:
        return []
    lines = [f"{PREFIX} hash-mode layer2-payload"]
    fields = state.hash_fields if state.hash_fields is not None else DEFAULT_FIELDS
    lines += [f"{PREFIX} family inet {word}" for word, field in EXCLUDES.items() if field not in fields]
    if mode == "per_packet":
        lines.append(f"{PREFIX} ecmp-dlb per-packet")
    return lines


def read(state: DeviceState, paths: list[tuple[tuple[str, ...], int]]) -> None:
    """Hash fields and DLB mode from the `forwarding-options enhanced-hash-key` statements; nothing
    where there are none (the switch then runs what it defaults to, which the config does not show).
    The fields stand at the last statement that changed them from the default (a `no-l4-source-port`
    is where a hash lost the RoCE entropy), else at the first statement of the hash."""
    own = [(p[2:], line) for p, line in paths if p[:2] == KEY and len(p) > 2]
    if not own:
        return
    fields: set[str] | None = set(DEFAULT_FIELDS)
    mode = "hash"
    fields_line = own[0][1]
    for rest, line in own:
        words = rest[1:] if rest[0] == "family" else rest
        if rest[:2] == ("hash-mode", "layer2-header"):
            fields = None  # hashed on the Ethernet header: not fields netcfg names
            fields_line = line
        elif words[:1] == ("inet",) and len(words) == 2 and fields is not None:
            if words[1] in EXCLUDES:
                fields.discard(EXCLUDES[words[1]])
                fields_line = line
            elif words[1] in _ADDS:
                fields.add(_ADDS[words[1]])
                fields_line = line
        elif rest[0] == "ecmp-dlb" and len(rest) > 1:
            mode = DLB_MODES.get(rest[1], mode)
            state.locations["lb_mode"] = line
    state.locations.setdefault("lb_mode", own[0][1])
    state.locations["hash_fields"] = fields_line
    state.hash_fields = frozenset(fields) if fields is not None else None
    for port in state.interfaces.values():
        port.lb_mode = mode
