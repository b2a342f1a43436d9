"""Load-balancing rules: the ECMP hash carries the RoCE entropy, agrees within a tier and is seeded
differently per tier; adaptive routing runs alike across every ECMP group and switch; per-packet
spraying only where every NIC places out-of-order packets; NICs split over as many planes as the fabric
has. Judged where the source shows the setting (a config without hash lines says nothing about the
hash)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from netcfg.model import SWITCH_ROLES, Device, DeviceState, Role
from netcfg.policy import ROCE_ENTROPY
from netcfg.rules import CheckContext, Issue, Severity, rule

PER_PACKET = "per_packet"
# Fields every RoCEv2 packet carries alike (IP protocol 17, UDP destination port 4791): hashing on them
# or not moves no RoCE flow, so a tier that differs only in them hashes RoCE alike.
ROCE_CONSTANT = frozenset({"ip_protocol", "l4_dst_port"})


def _fields(fields: Iterable[str]) -> str:
    return "{" + ", ".join(sorted(fields)) + "}"


def _switch_states(ctx: CheckContext) -> Iterator[tuple[Device, DeviceState]]:
    for device in ctx.fabric.devices.values():
        state = ctx.states.get(device.name)
        if device.is_switch and state is not None and "qos" in state.facets and not state.collection_error:
            yield device, state


def _entropy(fields: frozenset[str]) -> bool:
    return not ROCE_ENTROPY.isdisjoint(fields)


@rule("lb.hash_entropy", Severity.ERROR, kinds=["switch"], fields=("hash_fields",))
def check_hash_entropy(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The switch's ECMP hash includes the RoCE entropy: the UDP source port, or the destination queue
    pair where the platform hashes on it. Every RoCE flow goes to UDP port 4791, so a hash of addresses
    and destination port puts all queue pairs between two GPUs on one path; Meta measured up to 40 %
    lower throughput from such collisions (Gangidi et al., SIGCOMM 2024)."""
    if state.hash_fields is None or _entropy(state.hash_fields):
        return
    yield Issue(
        state.name,
        None,
        "hash on l4_src_port or rdma_dest_qp",
        _fields(state.hash_fields),
        f"the ECMP hash covers {_fields(state.hash_fields)}, neither the UDP source port nor the "
        "destination queue pair: every RoCE flow between two hosts takes the same path",
    )


@rule("lb.tier_hash_fields", Severity.WARNING, scope="fabric", kinds=["switch"], fields=("hash_fields",))
def check_tier_hash_fields(ctx: CheckContext) -> Iterator[Issue]:
    """Every switch of a tier hashes on the same fields: a switch that hashes differently sends the
    same flows down other paths than its peers, so one tier's load stops being even. The odd ones are
    named against their tier's majority (or the policy's fields when there is no majority); a switch
    whose hash lacks the RoCE entropy is named by lb.hash_entropy instead. Fields alike in every RoCEv2
    packet (the IP protocol, UDP destination port 4791) are left out of the comparison."""
    tiers: dict[Role, dict[str, frozenset[str]]] = defaultdict(dict)
    for device, state in _switch_states(ctx):
        if state.hash_fields is not None and _entropy(state.hash_fields):
            tiers[device.role][device.name] = state.hash_fields - ROCE_CONSTANT
    lb = ctx.policy.load_balancing
    for role, by_switch in sorted(tiers.items()):
        counts = Counter(by_switch.values()).most_common()
        if len(counts) < 2:
            continue
        if counts[0][1] > counts[1][1]:
            reference, against = counts[0][0], f"the rest of the {role.value} tier"
        elif lb is not None:
            reference = frozenset(lb.hash_fields) - ROCE_CONSTANT
            against = "the policy, as the tier has no majority,"
        else:
            yield Issue(
                "(fabric)",
                None,
                f"one hash field set on every {role.value}",
                "; ".join(sorted(_fields(f) for f in by_switch.values())),
                f"the {role.value} switches hash on different fields with no majority",
            )
            continue
        for name, found in sorted(by_switch.items()):
            if found != reference:
                yield Issue(
                    name,
                    None,
                    _fields(reference),
                    _fields(found),
                    f"the ECMP hash covers {_fields(found)}, unlike {against} ({_fields(reference)})",
                )


@rule("lb.tier_seed", Severity.ERROR, scope="fabric", kinds=["switch"], fields=("hash_seed",))
def check_tier_seed(ctx: CheckContext) -> Iterator[Issue]:
    """No two tiers share a hash seed. With one seed and one field set, a spine picks its uplink with
    the same function its leaf used, so the flows a leaf put on one spine all leave it on one link:
    ECMP polarisation (the reason Alibaba HPN splits traffic over two planes, SIGCOMM 2024, and NVIDIA
    documents a unique hash seed per switch). Judged where the seeds are shown."""
    tiers_of: dict[int, set[str]] = defaultdict(set)
    switches: dict[int, list[str]] = defaultdict(list)
    for device, state in _switch_states(ctx):
        if state.hash_seed is not None:
            tiers_of[state.hash_seed].add(device.role.value)
            switches[state.hash_seed].append(device.name)
    for seed, tiers in sorted(tiers_of.items()):
        if len(tiers) < 2:
            continue
        names = sorted(switches[seed])
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        yield Issue(
            "(fabric)",
            None,
            "a different hash seed per tier",
            f"seed {seed} on tiers {', '.join(sorted(tiers))}",
            f"hash seed {seed} is used by the {', '.join(sorted(tiers))} tiers ({shown}): the tiers hash "
            "alike and polarise ECMP",
        )


def _groups(device: Device, state: DeviceState, ctx: CheckContext) -> dict[str, dict[str, str]]:
    """The switch's ECMP groups (its ports toward one tier of switches), port -> mode where shown."""
    groups: dict[str, dict[str, str]] = defaultdict(dict)
    for local, _, remote in ctx.fabric.links_of(device.name):
        peer = ctx.fabric.devices[remote.device]
        port = state.interfaces.get(local.interface)
        if peer.role in SWITCH_ROLES and port is not None and port.lb_mode is not None:
            groups[peer.role.value][local.interface] = port.lb_mode
    return groups


@rule("lb.ecmp_group_mode", Severity.ERROR, kinds=["switch"], fields=("lb_mode",))
def check_ecmp_group_mode(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Adaptive routing (or dynamic load balancing) runs the same way on every member of an ECMP group:
    a leaf's ports to the spines, a spine's to the leaves or to the super-spines. NVIDIA warns that
    mixing adaptive-routing ports with plain ECMP ports in one route hashes unexpectedly, and a member
    left on static hashing keeps the collisions adaptive routing is there to avoid. The odd ports are
    named against the group's majority, else the policy's mode."""
    lb = ctx.policy.load_balancing
    for tier, ports in sorted(_groups(device, state, ctx).items()):
        counts = Counter(ports.values()).most_common()
        if len(counts) < 2:
            continue
        if counts[0][1] > counts[1][1]:
            reference = counts[0][0]
        elif lb is not None:
            reference = lb.mode
        else:
            reference = None
        for name, mode in sorted(ports.items()):
            if reference is None or mode != reference:
                yield Issue(
                    state.name,
                    name,
                    f"{reference or 'one mode'} as the group's other ports",
                    mode,
                    f"the port toward the {tier} tier runs {mode} while its ECMP group runs "
                    f"{reference or ', '.join(sorted(set(ports.values())))}",
                )


def _switch_mode(device: Device, state: DeviceState, ctx: CheckContext) -> str | None:
    """What most of a switch's ports toward other switches run; None where none is shown."""
    modes = Counter(mode for ports in _groups(device, state, ctx).values() for mode in ports.values())
    return modes.most_common(1)[0][0] if modes else None


@rule("lb.plane_mode", Severity.ERROR, scope="fabric", kinds=["switch"], fields=("lb_mode",))
def check_plane_mode(ctx: CheckContext) -> Iterator[Issue]:
    """Every switch of the plane spreads flows the same way (netcfg's fabric is one plane): a leaf that
    sprays packets into spines that hash per flow, or the other way round, reorders or collides
    traffic halfway through its path. Switches are named against the plane's majority, else the
    policy's mode."""
    modes = {d.name: m for d, s in _switch_states(ctx) if (m := _switch_mode(d, s, ctx)) is not None}
    counts = Counter(modes.values()).most_common()
    if len(counts) < 2:
        return
    lb = ctx.policy.load_balancing
    reference = counts[0][0] if counts[0][1] > counts[1][1] else (lb.mode if lb is not None else None)
    for name, mode in sorted(modes.items()):
        if reference is None or mode != reference:
            yield Issue(
                name,
                None,
                reference or "one mode on every switch",
                mode,
                f"the switch runs {mode} toward the other switches while the plane runs "
                f"{reference or ', '.join(sorted(set(modes.values())))}",
            )


@rule("lb.reordering", Severity.ERROR, scope="fabric", fields=("reorder_tolerant",))
def check_reordering(ctx: CheckContext) -> Iterator[Issue]:
    """Per-packet adaptive routing runs only where every NIC of the plane places out-of-order packets:
    packets of one queue pair take different paths and arrive out of order, which a NIC without
    out-of-order placement treats as loss (go-back-N retransmission). NVIDIA requires Spectrum-X NICs
    set up for it. Judged on NICs whose setting was read (ConnectX: the ROCE_ACCL register)."""
    spraying = sorted(
        d.name
        for d, s in _switch_states(ctx)
        if any(PER_PACKET in ports.values() for ports in _groups(d, s, ctx).values())
    )
    if not spraying:
        return
    where = ", ".join(spraying[:4]) + (f" and {len(spraying) - 4} more" if len(spraying) > 4 else "")
    for device in ctx.fabric.by_role(Role.HOST):
        state = ctx.states.get(device.name)
        if state is None or "qos" not in state.facets or state.collection_error:
            continue
        for nic in device.nics:
            port = state.interfaces.get(nic.netdev)
            if port is None or port.reorder_tolerant is not False:
                continue
            yield Issue(
                device.name,
                nic.netdev,
                "places out-of-order packets",
                "in-order only",
                f"switches {where} spray packets per packet, but this NIC does not place out-of-order "
                "packets: its RoCE traffic retransmits on every reordering",
            )


@rule("lb.nic_planes", Severity.ERROR, kinds=["host"], fields=("nic_planes",))
def check_nic_planes(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Every NIC splits its port over as many planes as the fabric has (the policy's `nic_planes`).
    Under NVIDIA Spectrum-X hardware plane load balancing the NIC's firmware divides the port's lanes
    into one port per plane, each cabled to its own plane (ConnectX `NUM_OF_PLANES_P1`, which NVIDIA's
    Spectrum-X NIC profiles set to the plane count, and to 0, one plane, in every other mode). A NIC
    split into planes the fabric does not have, or left whole on a multi-plane fabric (a firmware
    reset puts it back to 0), does not match the links it is cabled to: its lanes and its traffic go
    to planes that are not there. Judged on NICs whose firmware showed the setting."""
    lb = ctx.policy.load_balancing
    if lb is None:
        return
    for nic in device.nics:
        port = state.interfaces.get(nic.netdev)
        if port is None or port.nic_planes is None or port.nic_planes == lb.nic_planes:
            continue
        yield Issue(
            state.name,
            nic.netdev,
            f"{lb.nic_planes} plane(s)",
            f"{port.nic_planes} plane(s)",
            f"the NIC's firmware splits its port over {port.nic_planes} plane(s) (NUM_OF_PLANES), but the "
            f"fabric has {lb.nic_planes}",
        )
