"""The lossless domain: every link a planned NIC-to-NIC path crosses keeps the RoCE class lossless on
both of its ends (judged per link, reported per hop that breaks it), no lossless priority is flooded
in a switched segment, and none is paused toward a device outside the fabric."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from netcfg.checks.device import PRIORITY_TRUST
from netcfg.model import Device, DeviceState, Endpoint, Link, Role, port_ranges
from netcfg.rules import CheckContext, Issue, Severity, fabric_port_names, rule, show

# The order a path from a NIC climbs the fabric: the first broken link of a path is its lowest.
_TIER = {Role.HOST: 0, Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}
_FIELDS = ("dscp_map", "tc_pfc", "pfc_enabled", "no_drop_priorities", "dscp_rewrite")


@dataclass(frozen=True, slots=True)
class EndVerdict:
    """How one end of a link carries the RoCE class: why it does not keep it lossless (None: it does)."""

    broken: str | None
    # The setting that breaks it, where a finding points in the device's config.
    setting: str = "dscp_map"


def _end(ctx: CheckContext, end: Endpoint, cache: dict[str, int | None]) -> EndVerdict | None:
    """The verdict on one end, None where the end's state or settings are unknown (no verdict)."""
    state = ctx.states.get(end.device)
    if state is None or "qos" not in state.facets or state.port_unread(end.interface, _FIELDS):
        return None
    port = state.interfaces.get(end.interface)
    if port is None:
        return None
    dscp, want = ctx.policy.roce.dscp, ctx.policy.roce.priority
    if port.trust in PRIORITY_TRUST:
        # It classifies on the 802.1p priority the sender marks; `qos.trust` judges that choice.
        priority = state.tc_pfc.get(want, want)
    elif port.dscp_map is None:
        priority = _priority(state, dscp, cache)
    else:
        priority = state.pfc_priority_of(dscp, end.interface)
    if priority is None:
        # A DSCP the map holds no class for: `qos.dscp_map` names it, whose class is unknown.
        return None
    if priority != want:
        return EndVerdict(f"DSCP {dscp} rides priority {priority}, not {want}")
    if port.pfc_enabled is False:
        return EndVerdict("PFC off", "pfc_enabled")
    if port.no_drop_priorities is None:
        return None
    if priority not in port.no_drop_priorities:
        return EndVerdict(f"PFC pauses {show(port.no_drop_priorities)}, not {priority}", "no_drop_priorities")
    rewrite = port.dscp_rewrite
    if rewrite:
        # Re-marked on the way out: the next hop classifies the new DSCP, not RoCE's.
        tc = want if port.trust in PRIORITY_TRUST else state.dscp_priority(dscp, end.interface)
        if tc in rewrite:
            new = rewrite[tc]
            if new is None:
                return None
            if new != dscp:
                return EndVerdict(f"re-marks DSCP {dscp} to {new}", "dscp_rewrite")
    return EndVerdict(None)


def _priority(state: DeviceState, dscp: int, cache: dict[str, int | None]) -> int | None:
    """The device-wide priority of the DSCP, worked out once per device (a fabric has 65,536 links)."""
    if state.name not in cache:
        cache[state.name] = state.pfc_priority_of(dscp)
    return cache[state.name]


def _tier(ctx: CheckContext, link: Link) -> int:
    return max(_TIER[ctx.fabric.devices[link.a.device].role], _TIER[ctx.fabric.devices[link.b.device].role])


_CLASS = {1: "host-leaf", 2: "leaf-spine", 3: "spine-superspine"}


@rule("lossless.path", Severity.ERROR, scope="fabric", facet=None, fields=_FIELDS)
def check_path(ctx: CheckContext) -> Iterator[Issue]:
    """Every planned path between two NICs (NIC, leaf, spine, super-spine and down again) is lossless
    on every link it crosses: on both ends the RoCE DSCP maps to the policy's no-drop priority, PFC
    pauses that priority, and nothing re-marks the DSCP on the way out. One end that drops the class
    breaks every path through the link, and a lossy hop anywhere makes the whole RDMA flow lossy: it
    loses packets under congestion, and RoCE's go-back-N retransmission turns each loss into a stall
    (Guo et al., SIGCOMM 2016; Zhu et al., DCQCN, SIGCOMM 2015). Judged per link, so 32,768 GPUs cost
    one pass over the links, not every path: one finding per device that breaks it, on the ports it
    breaks, naming the first broken link a path climbing from a NIC meets there (the lowest tier)
    with both its ends, and how many links of each tier it breaks. An end whose state or settings
    are unknown gives no verdict here; the device rules name it as unknown."""
    p = ctx.policy
    if not p.lossless:
        return
    cache: dict[str, int | None] = {}
    broken: dict[str, list[tuple[int, Link, EndVerdict, EndVerdict]]] = {}
    for link in ctx.fabric.links:
        a, b = _end(ctx, link.a, cache), _end(ctx, link.b, cache)
        if a is None or b is None or (a.broken is None and b.broken is None):
            continue
        tier = _tier(ctx, link)
        for end, mine, theirs in ((link.a, a, b), (link.b, b, a)):
            if mine.broken is not None:
                broken.setdefault(end.device, []).append((tier, link, mine, theirs))
    for device in sorted(broken):
        hops = sorted(broken[device], key=lambda h: (h[0], h[1].a.device, h[1].a.interface))
        _, link, mine, theirs = hops[0]
        here, there = (link.a, link.b) if link.a.device == device else (link.b, link.a)
        counts: dict[int, int] = {}
        for t, *_ in hops:
            counts[t] = counts.get(t, 0) + 1
        spread = ", ".join(f"{n} {_CLASS.get(t, 'fabric')}" for t, n in sorted(counts.items()))
        far = "lossless" if theirs.broken is None else theirs.broken
        state = ctx.states[device]
        # Every port it breaks, as reports name ports: a hop that drops the class on all of its
        # ports is a switch-wide fault, not the fault of the host on its first port.
        ports = [end.interface for _, hop, _, _ in hops for end in (hop.a, hop.b) if end.device == device]
        yield Issue(
            device,
            port_ranges(ports),
            f"DSCP {p.roce.dscp} paused as priority {p.roce.priority} on both ends of every link",
            mine.broken or "",
            f"a lossy hop on the lossless path: {mine.broken} at {here} (its link's far end {there}: "
            f"{far}); every NIC-to-NIC path through the {len(hops)} link(s) it breaks ({spread}) is lossy",
            file=state.source_file,
            line=state.line_of(here.interface, (mine.setting,)),
        )


@rule("lossless.flooding", Severity.ERROR, kinds=["switch"], fields=("switched", "no_drop_priorities"))
def check_flooding(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """No port that pauses a priority forwards in a switched (layer-2) segment, a VLAN or a bridge.
    A switch floods a packet whose destination MAC it has not learnt, or whose ARP entry is
    incomplete, to every port of the segment: lossless packets flooded that way pause ports that
    were never on their path, and Microsoft's production PFC deadlock came from exactly that (Guo
    et al., *RDMA over Commodity Ethernet at Scale*, SIGCOMM 2016; the fix was to drop lossless
    packets rather than flood them). Routed ports (`no switchport`, a port outside every bridge, a
    unit without `ethernet-switching`) carry the lossless class hop by hop. A port whose mode the
    source does not show is not judged."""
    for port in state.interfaces.values():
        if port.switched and port.pauses:
            yield Issue(
                state.name,
                port.name,
                "a routed port for a lossless priority",
                f"switched, pauses {show(port.no_drop_priorities)}",
                f"{port.name} forwards in a switched segment and pauses priority "
                f"{show(port.no_drop_priorities)}: lossless packets flooded in the segment pause ports "
                "off their path (the flooding behind Microsoft's PFC deadlock, SIGCOMM 2016)",
                file=state.source_file,
                line=state.line_of(port.name, ("switched",)),
            )


@rule(
    "lossless.boundary", Severity.ERROR, kinds=["switch"], facet="lldp", fields=("no_drop_priorities", "lldp")
)
def check_boundary(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """No port that pauses a priority faces a device outside the fabric's plan (a frontend router, a
    storage array, a management switch): the lossless domain ends at the backend fabric's own links.
    Pauses sent across the boundary stop a network that sized no headroom for them and spread
    head-of-line blocking into it, and lossless traffic routed out that way is lossy on the far side
    anyway. Judged where LLDP names the neighbour (a device the inventory does not hold, on a port no
    planned link uses); a port that hears no one is not judged."""
    if "qos" not in state.facets:
        return
    planned = set(fabric_port_names(device, ctx))
    for neighbour in state.lldp:
        local = neighbour.local_interface
        if local in planned or neighbour.system_name in ctx.fabric.devices:
            continue
        port = state.interfaces.get(local)
        if port is None or not port.pauses:
            continue
        yield Issue(
            state.name,
            local,
            "no PFC toward a device outside the fabric",
            f"pauses {show(port.no_drop_priorities)} toward {neighbour.system_name}",
            f"{local} pauses priority {show(port.no_drop_priorities)} toward {neighbour.system_name}:"
            f"{neighbour.port} (seen by LLDP), which is not in the fabric's plan: the lossless domain "
            "crosses into a network outside it (pauses it sized no headroom for, and lossy beyond)",
            file=state.source_file,
            line=state.line_of(local, ("no_drop_priorities",)),
        )
