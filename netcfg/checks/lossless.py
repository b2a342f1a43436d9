"""Lossless-domain rules across devices: PFC deadlock risk from the routing model, and static routes
that turn the lossless class back up the fabric."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from netcfg.deadlock import Analysis, analyse
from netcfg.forwarding import port_holding, subnet
from netcfg.model import Device, DeviceState, Endpoint, Fabric, Link, StaticRoute
from netcfg.rules import CheckContext, Issue, Severity, rule

_TIER = {"leaf": 1, "spine": 2, "superspine": 3}


def deadlock_analysis(ctx: CheckContext) -> Analysis | None:
    """The deadlock analysis of this run (once), or None when the ASN plan is unknown."""
    if ctx.fabric.bgp is None or not ctx.policy.lossless:
        return None
    found = ctx.memo.get("deadlock")
    if found is None:
        found = ctx.memo["deadlock"] = analyse(ctx.fabric, ctx.fabric.bgp, links_down(ctx))
    return found  # type: ignore[return-value]


def links_down(ctx: CheckContext) -> list[Link]:
    """The switch-to-switch links an end of which the states show down (unknown ends are not down)."""
    down = []
    for link in ctx.fabric.links:
        for end in (link.a, link.b):
            state = ctx.states.get(end.device)
            port = state.interfaces.get(end.interface) if state is not None else None
            if port is not None and port.oper_up is False:
                down.append(link)
                break
    return down


@rule("lossless.cbd", Severity.ERROR, scope="fabric", facet=None)
def check_cbd(ctx: CheckContext) -> Iterator[Issue]:
    """No cyclic buffer dependency among the lossless queues, in the planned fabric, with the links
    seen down, after any single link failure or a sampled double failure. A cycle of PFC pauses can
    fill every buffer on it and stop the lossless class for good (Dally and Seitz 1987; Hu et al.,
    HotNets 2016): up-down routing in a Clos has none, and only a down-up (valley) route creates one,
    which eBGP accepts after link failures when each spine has its own ASN. One finding names the first
    scenario with a cycle and a witness cycle of channels; no ASN plan (`topology.bgp`): no verdict."""
    found = deadlock_analysis(ctx)
    if found is None or not found.cycles:
        return
    cycle = found.cycles[0]
    first = cycle.channels[0][0]
    yield Issue(
        first.device,
        first.interface,
        "no cyclic buffer dependency (up-down routes only)",
        f"{len(cycle.channels)}-channel cycle",
        f"PFC deadlock risk: after {cycle.scenario.describe()} the lossless queues wait on each other "
        f"in a cycle {cycle.describe()} ({found.with_cycle} of {found.scenarios} scenarios judged have "
        "a cycle; a shared spine ASN refuses the valley routes that close it)",
    )


@rule("lossless.valley", Severity.ERROR, kinds=["switch"], facet=None, fields=("static_routes",))
def check_valley(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """No static route on a switch sends traffic toward a higher tier (a leaf's route toward a spine):
    traffic that came down to the switch and matches it is turned back up, a down-up turn that up-down
    routing never takes, and the start of a cyclic buffer dependency for the lossless class (Tagger,
    CoNEXT 2017). Routes whose next hop is not on a planned link are not judged."""
    routes = state.static_routes
    if not routes or device.role.value not in _TIER:
        return
    mine = _TIER[device.role.value]
    for route in routes:
        peer = resolve_next_hop(ctx.fabric, ctx.states, state, route)
        if peer is None:
            continue
        tier = _TIER.get(ctx.fabric.devices[peer.device].role.value, 0)
        if tier > mine:
            via = route.next_hop or route.interface
            yield Issue(
                state.name,
                route.interface or _local_end(ctx.fabric, state.name, peer),
                "no static route toward a higher tier",
                f"ip route {route.prefix} {via}",
                f"static route {route.prefix} via {via} points up at {peer.device} "
                f"({ctx.fabric.devices[peer.device].role.value}): lossless traffic that came down here "
                "is sent back up (a valley route, a PFC deadlock risk)",
                file=state.source_file,
                line=route.line,
            )


def _local_end(fabric: Fabric, device: str, peer: Endpoint) -> str | None:
    link = fabric.link_at(peer)
    if link is None:
        return None
    return link.a.interface if link.a.device == device else link.b.interface


def resolve_next_hop(
    fabric: Fabric, states: dict[str, DeviceState], state: DeviceState, route: StaticRoute
) -> Endpoint | None:
    """The far end of the planned link a static route leaves by: its interface, else the port whose
    subnet holds the next hop, else the neighbour port that owns the next hop's address."""
    if route.interface is not None:
        return fabric.peer(Endpoint(state.name, route.interface))
    if route.next_hop is None:
        return None
    links = list(fabric.links_of(state.name))
    subnets = [
        found
        for local, _, _ in links
        for found in subnet(state.addresses.get(local.interface, ""), local.interface)
    ]
    if (port := port_holding(route.next_hop, subnets)) is not None:
        return fabric.peer(Endpoint(state.name, port))
    try:
        hop = ipaddress.ip_address(route.next_hop)
    except ValueError:
        return None
    for _, _, remote in links:
        peer = states.get(remote.device)
        theirs = peer.addresses.get(remote.interface) if peer is not None else None
        if theirs is not None and ipaddress.ip_interface(theirs).ip == hop:
            return remote
    return None
