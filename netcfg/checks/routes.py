"""Rules on the forwarding the switches' collected route tables give (`--routes`): the lossless
class's channel dependency graph from the routes installed, not from a model of the routing."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.forwarding import RouteAnalysis, RouteValley, analyse_routes
from netcfg.model import port_ranges
from netcfg.rules import CheckContext, Issue, Severity, rule

_SHOWN = 10


def route_analysis(ctx: CheckContext) -> RouteAnalysis | None:
    """The route tables' analysis of this run (once); None where no switch showed a table or the
    policy has no lossless class."""
    if not ctx.policy.lossless:
        return None
    if "routes" not in ctx.memo:
        ctx.memo["routes"] = analyse_routes(ctx.fabric, ctx.states)
    return ctx.memo["routes"]  # type: ignore[return-value]


@rule("lossless.route_cbd", Severity.ERROR, scope="fabric", facet=None)
def check_route_cbd(ctx: CheckContext) -> Iterator[Issue]:
    """No cyclic buffer dependency among the lossless queues in the forwarding the switches' route
    tables install (collected with `--routes`). Each destination a leaf owns is followed from every
    other leaf along the installed next hops; a channel waits on the one its traffic leaves by next.
    A cycle can fill every buffer on it and stop the lossless class for good (Hu et al., HotNets
    2016; Tagger, CoNEXT 2017); it needs a down-up turn, which `lossless.route_valley` names. One
    finding names the shortest witness cycle of channels (a fabric too large to search over every
    destination is searched over those that take valleys)."""
    found = route_analysis(ctx)
    if found is None or found.cycle is None:
        return
    first = found.cycle[0][0]
    shown = ", ".join(found.cycle_destinations[:_SHOWN])
    yield Issue(
        first.device,
        first.interface,
        "no cyclic buffer dependency in the installed routes",
        f"{len(found.cycle)}-channel cycle",
        f"PFC deadlock risk: in the collected route tables the lossless queues wait on each other in a "
        f"cycle {found.describe_cycle()} (traffic toward {shown}); the valley routes that close it are "
        "named by lossless.route_valley",
    )


@rule("lossless.route_valley", Severity.ERROR, scope="fabric", facet=None)
def check_route_valley(ctx: CheckContext) -> Iterator[Issue]:
    """No switch forwards traffic it received from a higher tier up again (a down-up turn, a valley)
    by the routes it installed: up-down routing never takes one, and every cyclic buffer dependency
    of the lossless class holds one. Named at the switch that turns, with its route's prefix and
    next hop, and the switch above that sent the traffic down by its own route."""
    found = route_analysis(ctx)
    if found is None:
        return
    # One finding per route and sender, however many of the route's next hops go up.
    grouped: dict[tuple[str, str, str], list[RouteValley]] = {}
    for valley in found.valleys:
        grouped.setdefault((valley.device, valley.prefix, valley.sender), []).append(valley)
    for (device, prefix, sender), valleys in grouped.items():
        first = valleys[0]
        via = " ".join(filter(None, (first.next_hop.address, first.port)))
        more = f" and {len(valleys) - 1} more next hops" if len(valleys) > 1 else ""
        toward = ", ".join(sorted({v.toward for v in valleys}))
        yield Issue(
            device,
            port_ranges([v.port for v in valleys]),
            "no route that turns traffic from a higher tier back up",
            f"{prefix} via {via}{more}",
            f"valley route: {sender} sends traffic toward {first.destination} down here (its route "
            f"{first.sender_prefix}), and the route {prefix} via {via}{more} sends it up again to "
            f"{toward} (a down-up turn, a PFC deadlock risk)",
        )


@rule("lossless.route_unknown", Severity.WARNING, scope="fabric", facet=None)
def check_route_unknown(ctx: CheckContext) -> Iterator[Issue]:
    """Where route tables were collected, every switch of the plan showed one of each address family
    another switch showed (IPv4, IPv6), and every next hop resolves to a port: a destination whose
    traffic crosses a switch without a table of its family (or starts at a leaf without one), or a
    next hop whose port is unknown (an address in no subnet of the switch), gets no verdict from the
    route-table analysis, which is unknown, not clean."""
    found = route_analysis(ctx)
    if found is None or not (found.missing or found.unknown):
        return
    why = []
    by_lack: dict[tuple[int, ...], list[str]] = {}
    for name in found.missing:
        by_lack.setdefault(found.missing_families[name], []).append(name)
    for lacking, names in sorted(by_lack.items(), key=lambda item: (-len(item[0]), item[0])):
        # A switch that showed no table at all lacks every family; one that lacks some, those.
        which = "" if lacking == found.families else "".join(f"IPv{f} " for f in lacking)
        why.append(f"no {which}route table from {_names(names)}")
    if found.unresolved:
        why.append(f"next hops that resolve to no port on {_names(found.unresolved)}")
    yield Issue(
        "(fabric)",
        None,
        "a route table from every switch",
        f"{len(found.missing)} of {found.switches} switches without one",
        f"{'; '.join(why)}: {len(found.unknown)} of {found.destinations} destinations get no verdict on "
        "valleys or deadlock cycles (unknown, not clean)",
    )


def _names(devices: list[str]) -> str:
    more = f" and {len(devices) - _SHOWN} more" if len(devices) > _SHOWN else ""
    return ", ".join(devices[:_SHOWN]) + more
