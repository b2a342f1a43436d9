"""The forwarding the switches' own route tables give, and the PFC deadlock risk it holds.

Where route tables were collected (`--routes`), they say where each switch sends each destination,
whatever routing put it there (BGP after failures, a static route, a policy). Each destination a leaf
owns (a subnet of a port that is not a switch-to-switch link) is followed from every other leaf along
the installed next hops. A switch that receives a destination from a higher tier and forwards it up
again takes a down-up turn, a valley; PFC then makes the channel it came in on wait on the one it
leaves by, against the up-down order in which a Clos has no cycle (Hu et al., HotNets 2016). Every
cycle of the channel dependency graph holds such a turn, so the graph is built only where a valley
is, and searched for the shortest cycle through one (Tagger, Hu et al., CoNEXT 2017, breaks such
cycles with extra lossless priorities).

Only a path every switch of which showed its table is judged: a destination whose traffic reaches a
switch without a table (or starts at a leaf without one) gets no verdict, which the analysis counts.
"""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import networkx as nx

from netcfg.model import DeviceState, Endpoint, Fabric, InstalledRoute, NextHop, Role

_TIER = {Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}
_NO_TABLE = -1
_NO_ROUTE = -2


@dataclass(frozen=True, slots=True)
class RouteValley:
    """A down-up turn in installed routes: `device` forwards traffic toward `destination` up to
    `toward` by its route `prefix` (next hop `next_hop` on port `port`), traffic that `sender` sent
    down to it by the sender's route `sender_prefix`."""

    device: str
    destination: str
    prefix: str
    next_hop: NextHop
    port: str
    toward: str
    sender: str
    sender_prefix: str


@dataclass(slots=True)
class RouteAnalysis:
    """What the route tables gave: how many switches showed one, the destinations judged and those
    without a verdict, the valleys in use and the shortest witness cycle of channels (if any)."""

    switches: int = 0
    missing: list[str] = field(default_factory=list)
    destinations: int = 0
    unknown: list[str] = field(default_factory=list)
    valleys: list[RouteValley] = field(default_factory=list)
    cycle: tuple[tuple[Endpoint, Endpoint], ...] | None = None
    # The destinations whose dependencies close the cycle.
    cycle_destinations: list[str] = field(default_factory=list)

    def describe_cycle(self) -> str:
        return " -> ".join(f"{tail}>{head}" for tail, head in self.cycle or ())


class _Tables:
    """The switches, their tables by prefix, and each route's next hops as the switches they reach:
    a hop set per distinct list of next hops of a switch, interned (ECMP routes share theirs)."""

    def __init__(self, fabric: Fabric, states: dict[str, DeviceState]) -> None:
        switches = [d for d in fabric.devices.values() if d.role in _TIER]
        self.fabric = fabric
        self.names = [d.name for d in switches]
        index = {name: i for i, name in enumerate(self.names)}
        self.index = index
        self.tier = [_TIER[d.role] for d in switches]
        self.leaves = [i for i, d in enumerate(switches) if d.role == Role.LEAF]
        self.states = [states.get(name) for name in self.names]
        self.tables: list[dict[str, InstalledRoute] | None] = [
            None if s is None or s.routes is None else {r.prefix: r for r in s.routes} for s in self.states
        ]
        # Per switch: its port -> the switch at the far end of its planned link; and its fabric ports.
        self.peer_of: list[dict[str, int]] = [{} for _ in self.names]
        for i, name in enumerate(self.names):
            for local, _, remote in fabric.links_of(name):
                far = index.get(remote.device)
                if far is not None:
                    self.peer_of[i][local.interface] = far
        self._subnets: list[list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]] | None] = [
            None
        ] * len(self.names)
        self._sets: list[dict[tuple[NextHop, ...], int]] = [{} for _ in self.names]
        # The same by the identity of the tuple: parsers give the routes of one table that forward
        # alike one tuple of next hops, and hashing a tuple of 64 next hops per lookup would cost
        # more than the rest of the analysis. The tables hold the tuples, so no identity is reused.
        self._by_id: list[dict[int, int]] = [{} for _ in self.names]
        # Per hop set: its switch, the switches it reaches, those of a lower tier, whether it goes up.
        self.members: list[tuple[int, ...]] = []
        self.down: list[tuple[int, ...]] = []
        self.goes_up: list[bool] = []
        # (switch, next switch) -> the next hop and port it leaves by (the first route that says).
        self.via: dict[tuple[int, int], tuple[NextHop, str]] = {}

    def hop_set(self, node: int, route: InstalledRoute) -> int:
        known = self._by_id[node].get(id(route.next_hops))
        if known is not None:
            return known
        known = self._sets[node].get(route.next_hops)
        if known is not None:
            self._by_id[node][id(route.next_hops)] = known
            return known
        reached: list[int] = []
        for hop in route.next_hops:
            port = self._port(node, hop)
            far = self.peer_of[node].get(port) if port is not None else None
            if far is None or far in reached:
                continue
            reached.append(far)
            self.via.setdefault((node, far), (hop, port))  # type: ignore[arg-type]
        here = self.tier[node]
        found = len(self.members)
        self.members.append(tuple(reached))
        self.down.append(tuple(r for r in reached if self.tier[r] < here))
        self.goes_up.append(any(self.tier[r] > here for r in reached))
        self._sets[node][route.next_hops] = self._by_id[node][id(route.next_hops)] = found
        return found

    def _port(self, node: int, hop: NextHop) -> str | None:
        """The port a next hop leaves by: the one it names, else the port whose subnet holds its
        address (the table's connected routes, or the port addresses the config shows)."""
        if hop.interface is not None:
            return hop.interface
        if hop.address is None:
            return None
        try:
            address = ipaddress.ip_address(hop.address)
        except ValueError:
            return None
        return next((port for net, port in self._subnets_of(node) if address in net), None)

    def _subnets_of(self, node: int) -> list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]]:
        found = self._subnets[node]
        if found is None:
            found = []
            table, state = self.tables[node] or {}, self.states[node]
            for route in table.values():
                if (
                    route.protocol == "connected"
                    and len(route.next_hops) == 1
                    and route.next_hops[0].interface
                ):
                    found += _subnet(route.prefix, route.next_hops[0].interface)
            for port, address in (state.addresses if state is not None else {}).items():
                found += _subnet(address, port)
            self._subnets[node] = found
        return found

    def destinations(self) -> dict[str, frozenset[int]]:
        """Each prefix a leaf owns on a port that is not a switch-to-switch link, and every switch
        that owns it. A prefix a spine or super-spine owns too (a management subnet in the default
        VRF) is no leaf's own."""
        owners: dict[str, set[int]] = {}
        for node, table in enumerate(self.tables):
            for route in (table or {}).values():
                if route.attached:
                    owners.setdefault(route.prefix, set()).add(node)
        found = {}
        for leaf in self.leaves:
            for route in (self.tables[leaf] or {}).values():
                if route.protocol != "connected" or route.prefix in found:
                    continue
                if any(hop.interface in self.peer_of[leaf] for hop in route.next_hops):
                    continue
                mine = owners[route.prefix]
                if all(self.tier[o] == 1 for o in mine):
                    found[route.prefix] = frozenset(mine)
        return found

    def forwarding(self, covers: list[str]) -> tuple[list[int], list[str | None]]:
        """Every switch's hop set toward a destination (longest prefix match over `covers`, the
        destination and its less specific prefixes), and the prefix of the route it matched."""
        sets: list[int] = []
        matched: list[str | None] = []
        exact, wider = covers[0], covers[1:]
        by_id, hop_set = self._by_id, self.hop_set
        for node, table in enumerate(self.tables):
            if table is None:
                sets.append(_NO_TABLE)
                matched.append(None)
                continue
            route = table.get(exact)
            if route is None:
                route = next((r for c in wider if (r := table.get(c)) is not None), None)
            if route is None:
                sets.append(_NO_ROUTE)
                matched.append(None)
            else:
                known = by_id[node].get(id(route.next_hops))
                sets.append(known if known is not None else hop_set(node, route))
                matched.append(route.prefix)
        return sets, matched

    def channel(self, tail: int, head: int) -> tuple[Endpoint, Endpoint]:
        """The link a next hop leaves by, crossed from `tail` to `head`: the port the route names."""
        port = self.via[(tail, head)][1]
        local = Endpoint(self.names[tail], port)
        return local, self.fabric.peer(local) or Endpoint(self.names[head], "?")


def _subnet(prefix: str, port: str) -> list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]]:
    try:
        return [(ipaddress.ip_interface(prefix).network, port)]
    except ValueError:
        return []


def _covers(prefix: str) -> list[str]:
    """The prefix, then each less specific one down to the default route, as devices write them."""
    try:
        net = ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        return [prefix]
    return [prefix, *(str(net.supernet(new_prefix=n)) for n in range(net.prefixlen - 1, -1, -1))]


def _carried(tables: _Tables, sets: list[int], owners: frozenset[int]) -> tuple[set[tuple[int, int]], bool]:
    """The channels traffic toward the destination crosses, from every leaf that does not own it,
    and whether it reaches a switch whose table is unknown (or starts at a leaf without one)."""
    members = tables.members
    seen = set()
    channels: set[tuple[int, int]] = set()
    queue = deque(leaf for leaf in tables.leaves if leaf not in owners)
    unknown = False
    while queue:
        node = queue.popleft()
        if node in seen:
            continue
        seen.add(node)
        found = sets[node]
        if found == _NO_TABLE:
            unknown = True
            continue
        if found == _NO_ROUTE or node in owners:
            continue
        for nxt in members[found]:
            channels.add((node, nxt))
            if nxt not in seen:
                queue.append(nxt)
    return channels, unknown


def _dependencies(
    tables: _Tables, sets: list[int], owners: frozenset[int], channels: set[tuple[int, int]]
) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """(in-channel, out-channel): traffic toward the destination that a switch receives on one and
    forwards on the other (an owner delivers it, and waits on no other switch)."""
    for tail, node in channels:
        if node in owners or sets[node] < 0:
            continue
        for nxt in tables.members[sets[node]]:
            yield (tail, node), (node, nxt)


def analyse_routes(fabric: Fabric, states: dict[str, DeviceState]) -> RouteAnalysis | None:
    """The route tables' verdict: valleys in use and a witness cycle; None where no switch of the
    plan showed a table (nothing to judge)."""
    tables = _Tables(fabric, states)
    if all(t is None for t in tables.tables):
        return None
    result = RouteAnalysis(switches=len(tables.names))
    result.missing = [name for name, table in zip(tables.names, tables.tables, strict=True) if table is None]
    complete = not result.missing
    patterns: dict[tuple, list[str]] = {}
    matched_of: dict[tuple, list[str | None]] = {}
    for prefix, owners in sorted(tables.destinations().items()):
        sets, matched = tables.forwarding(_covers(prefix))
        key = (owners, *sets)
        patterns.setdefault(key, []).append(prefix)
        matched_of.setdefault(key, matched)
    result.destinations = sum(len(p) for p in patterns.values())
    seen: set[tuple[int, str | None, int, int]] = set()
    names = tables.names
    for key, prefixes in patterns.items():
        owners, sets = key[0], list(key[1:])
        turns = _turns(tables, sets, owners)
        if not turns and complete:
            continue
        channels, unknown = _carried(tables, sets, owners)
        if unknown:
            result.unknown += prefixes
        carried = [(x, y, z) for x, y, z in turns if (x, y) in channels]
        if not carried:
            continue
        matched = matched_of[key]
        for x, y, z in carried:
            if (y, matched[y], z, x) in seen:
                continue
            seen.add((y, matched[y], z, x))
            hop, port = tables.via[(y, z)]
            result.valleys.append(
                RouteValley(
                    names[y], prefixes[0], matched[y] or "", hop, port, names[z], names[x], matched[x] or ""
                )
            )
    if result.valleys:
        _witness(tables, patterns, result)
    return result


def _turns(tables: _Tables, sets: list[int], owners: frozenset[int]) -> list[tuple[int, int, int]]:
    """(from, at, to): a switch `at` that a higher one sends the destination down to, and that
    forwards it up again."""
    found = []
    down, members, goes_up, tier = tables.down, tables.members, tables.goes_up, tables.tier
    for node, mine in enumerate(sets):
        if mine < 0 or not down[mine]:
            continue
        for low in down[mine]:
            theirs = sets[low]
            if low in owners or theirs < 0 or not goes_up[theirs]:
                continue
            found += [(node, low, up) for up in members[theirs] if tier[up] > tier[low]]
    return found


def _witness(
    tables: _Tables,
    patterns: dict[tuple, list[str]],
    result: RouteAnalysis,
) -> None:
    """The shortest cycle of the channel dependency graph of every destination judged (a cycle
    may close over destinations that take no valley themselves) through a valley in use."""
    graph = nx.DiGraph()
    labels: dict[tuple[tuple[int, int], tuple[int, int]], str] = {}
    for key, prefixes in patterns.items():
        owners, sets = key[0], list(key[1:])
        channels, _ = _carried(tables, sets, owners)
        for edge in _dependencies(tables, sets, owners, channels):
            graph.add_edge(*edge)
            labels.setdefault(edge, prefixes[0])
    best: list[tuple[int, int]] | None = None
    for valley in result.valleys:
        x, y, z = (tables.index[valley.sender], tables.index[valley.device], tables.index[valley.toward])
        try:
            path = nx.shortest_path(graph, (y, z), (x, y))
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            continue
        if best is None or len(path) < len(best):
            best = path
    if best is None:
        return
    start = min(
        range(len(best)), key=lambda i: (tables.names[best[i][0]], tables.channel(*best[i])[0].interface)
    )
    best = best[start:] + best[:start]
    result.cycle = tuple(tables.channel(*c) for c in best)
    pairs = zip(best, [*best[1:], best[0]], strict=True)
    result.cycle_destinations = sorted({labels[pair] for pair in pairs if pair in labels})
