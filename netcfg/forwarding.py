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

IPv4 and IPv6 destinations are followed alike, each by the longest prefix of its own family: an
IPv6 destination is never matched by an IPv4 route, nor the other way round. A next hop that is a
link-local address (BGP unnumbered, IPv6 sessions) reaches the neighbour at the far end of the port
the route names; a link-local subnet says nothing of where an address is.

Only a path every switch of which showed its table is judged: a destination whose traffic reaches a
switch without a table of its family (or starts at a leaf without one) gets no verdict, which the
analysis counts.
"""

from __future__ import annotations

import ipaddress
from collections import deque
from dataclasses import dataclass, field
from functools import cache

from netcfg.model import DeviceState, Endpoint, Fabric, InstalledRoute, NextHop, Role

_TIER = {Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}
# The subnets of a switch's ports, each with its port.
Subnets = list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]]
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
    # Switches without a table of some family another switch showed, and the families each lacks.
    missing: list[str] = field(default_factory=list)
    missing_families: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # The address families whose table some switch showed.
    families: tuple[int, ...] = ()
    destinations: int = 0
    unknown: list[str] = field(default_factory=list)
    valleys: list[RouteValley] = field(default_factory=list)
    cycle: tuple[tuple[Endpoint, Endpoint], ...] | None = None
    # The destinations whose dependencies close the cycle.
    cycle_destinations: list[str] = field(default_factory=list)
    # Switches with a next hop that resolves to no port of theirs (its traffic is not followed).
    unresolved: list[str] = field(default_factory=list)
    # False where the cycle search was over its budget (netcfg.forwarding.SEARCH_BUDGET) and not run.
    searched: bool = True

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
        # Per switch: the address families whose table it showed, and its routes of them by prefix.
        self.families: list[frozenset[int]] = [_families(s) for s in self.states]
        self.tables: list[dict[str, InstalledRoute] | None] = [
            {r.prefix: r for r in (*(s.routes or ()), *(s.routes6 or ()))} if s is not None and f else None
            for s, f in zip(self.states, self.families, strict=True)
        ]
        # Per switch: its port -> the switch at the far end of its planned link; and its fabric ports.
        self.peer_of: list[dict[str, int]] = [{} for _ in self.names]
        for i, name in enumerate(self.names):
            for local, _, remote in fabric.links_of(name):
                far = index.get(remote.device)
                if far is not None:
                    self.peer_of[i][local.interface] = far
        self._subnets: list[Subnets | None] = [None] * len(self.names)
        self._sets: list[dict[tuple[NextHop, ...], int]] = [{} for _ in self.names]
        # The same by the identity of the tuple: parsers give the routes of one table that forward
        # alike one tuple of next hops, and hashing a tuple of 64 next hops per lookup would cost
        # more than the rest of the analysis. The tables hold the tuples, so no identity is reused.
        self._by_id: list[dict[int, int]] = [{} for _ in self.names]
        # Per hop set: its switch, the switches it reaches, those of a lower tier, whether it goes up.
        self.members: list[tuple[int, ...]] = []
        self.member_sets: list[frozenset[int]] = []
        self.down: list[tuple[int, ...]] = []
        self.goes_up: list[bool] = []
        # Hop sets with a next hop whose port is unknown (an address in no subnet of the switch, as
        # a recursive route's is): where the traffic goes from there is not known.
        self.unresolved: list[bool] = []
        self.unresolved_at: set[int] = set()
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
        unresolved = False
        for hop in route.next_hops:
            port = self._port(node, hop)
            unresolved |= port is None and hop.address is not None
            far = self.peer_of[node].get(port) if port is not None else None
            if far is None or far in reached:
                continue
            reached.append(far)
            self.via.setdefault((node, far), (hop, port))  # type: ignore[arg-type]
        here = self.tier[node]
        found = len(self.members)
        self.members.append(tuple(reached))
        self.member_sets.append(frozenset(reached))
        self.down.append(tuple(r for r in reached if self.tier[r] < here))
        self.goes_up.append(any(self.tier[r] > here for r in reached))
        self.unresolved.append(unresolved)
        if unresolved:
            self.unresolved_at.add(node)
        self._sets[node][route.next_hops] = self._by_id[node][id(route.next_hops)] = found
        return found

    def _port(self, node: int, hop: NextHop) -> str | None:
        """The port a next hop leaves by: the one it names, else the port whose subnet holds its
        address (the table's connected routes, or the port addresses the config shows)."""
        if hop.interface is not None:
            return hop.interface
        return None if hop.address is None else port_holding(hop.address, self._subnets_of(node))

    def _subnets_of(self, node: int) -> Subnets:
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
                    found += subnet(route.prefix, route.next_hops[0].interface)
            for port, address in (state.addresses if state is not None else {}).items():
                found += subnet(address, port)
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
                if route.protocol != "connected" or route.prefix in found or not _routable(route.prefix):
                    continue
                if any(hop.interface in self.peer_of[leaf] for hop in route.next_hops):
                    continue
                mine = owners[route.prefix]
                if all(self.tier[o] == 1 for o in mine):
                    found[route.prefix] = frozenset(mine)
        return found

    def forwarding(self, prefixes: list[str]) -> list[tuple[int, ...]]:
        """Every switch's hop set toward each destination, by longest prefix match: a switch's
        column of destinations at a time (list comprehensions: this is the analysis' inner loop,
        switches times destinations)."""
        columns: list[list[int]] = []
        family = [_family(p) for p in prefixes]
        for node, table in enumerate(self.tables):
            if table is None:
                columns.append([_NO_TABLE] * len(prefixes))
                continue
            known = self._by_id[node]
            routes = [table.get(p) for p in prefixes]
            column = [known.get(id(r.next_hops), -3) if r is not None else -3 for r in routes]
            shown = self.families[node]
            for i, found in enumerate(column):
                if found != -3:
                    continue
                if family[i] not in shown:
                    column[i] = _NO_TABLE
                    continue
                route = routes[i] or self.route_for(node, prefixes[i])
                column[i] = _NO_ROUTE if route is None else self.hop_set(node, route)
            columns.append(column)
        return list(zip(*columns, strict=True)) if columns else [() for _ in prefixes]

    def route_for(self, node: int, prefix: str) -> InstalledRoute | None:
        """The route a switch forwards a destination by: the longest prefix that covers it."""
        table = self.tables[node] or {}
        return next((r for c in _covers(prefix) if (r := table.get(c)) is not None), None)

    def hop_toward(self, node: int, route: InstalledRoute, far: int) -> tuple[NextHop, str]:
        """The next hop of `route` by which a switch reaches `far`, and the port it leaves by: the
        route's own (a dual-stack switch reaches a neighbour by an IPv4 and an IPv6 address)."""
        for hop in route.next_hops:
            port = self._port(node, hop)
            if port is not None and self.peer_of[node].get(port) == far:
                return hop, port
        return self.via[(node, far)]

    def channel(self, tail: int, head: int) -> tuple[Endpoint, Endpoint]:
        """The link a next hop leaves by, crossed from `tail` to `head`: the port the route names."""
        port = self.via[(tail, head)][1]
        local = Endpoint(self.names[tail], port)
        return local, self.fabric.peer(local) or Endpoint(self.names[head], "?")


def _families(state: DeviceState | None) -> frozenset[int]:
    if state is None:
        return frozenset()
    return frozenset(f for f, table in ((4, state.routes), (6, state.routes6)) if table is not None)


def subnet(prefix: str, port: str) -> Subnets:
    """The subnet of a port's prefix (or address with its length); none for a link-local one, which
    every port holds alike and which so says nothing of where an address is."""
    try:
        network = ipaddress.ip_interface(prefix).network
    except ValueError:
        return []
    return [] if network.is_link_local else [(network, port)]


def port_holding(address: str, subnets: Subnets) -> str | None:
    """The port whose subnet holds a next hop's address (the first that does), or None."""
    try:
        found = ipaddress.ip_address(address)
    except ValueError:
        return None
    return next((port for net, port in subnets if found in net), None)


@cache
def _family(prefix: str) -> int:
    return 6 if ":" in prefix else 4


@cache
def _routable(prefix: str) -> bool:
    """Whether a prefix is a destination traffic is routed to: not link-local, not multicast."""
    try:
        network = ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        return False
    return not (network.is_link_local or network.is_multicast)


@cache
def _covers(prefix: str) -> list[str]:
    """The prefix, then each less specific one down to the default route, as devices write them."""
    try:
        net = ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        return [prefix]
    return [prefix, *(str(net.supernet(new_prefix=n)) for n in range(net.prefixlen - 1, -1, -1))]


@dataclass(slots=True)
class _Pattern:
    """Destinations every switch forwards alike: their owners, each switch's hop set, and the
    switches their traffic reaches from the leaves that do not own them."""

    prefixes: list[str]
    owners: frozenset[int]
    sets: tuple[int, ...]
    reached: set[int] = field(default_factory=set)
    unknown: bool = False

    def carries(self, tail: int, head: int, members: list[frozenset[int]]) -> bool:
        """Whether the destinations' traffic crosses the channel `tail` -> `head`."""
        mine = self.sets[tail]
        return tail in self.reached and mine >= 0 and tail not in self.owners and head in members[mine]


def _reach(tables: _Tables, pattern: _Pattern) -> None:
    """The switches the pattern's traffic reaches, breadth first from every leaf that does not own
    it, and whether it reaches one whose table is unknown (or starts at a leaf without one)."""
    members, sets, owners = tables.member_sets, pattern.sets, pattern.owners
    frontier = {leaf for leaf in tables.leaves if leaf not in owners}
    seen = set(frontier)
    while frontier:
        found: set[int] = set()
        for node in frontier:
            mine = sets[node]
            if mine == _NO_TABLE:
                pattern.unknown = True
            elif mine >= 0 and node not in owners:
                found |= members[mine]
                pattern.unknown |= tables.unresolved[mine]
        frontier = found - seen
        seen |= frontier
    pattern.reached = seen


# The witness search follows channels through every destination's forwarding (a cycle may close
# over destinations that take no valley themselves); beyond this many channel-by-destination steps
# it is not run, and the analysis says so instead of claiming no cycle. The valleys, which every
# cycle needs, are named either way.
SEARCH_BUDGET = 3_000_000


def analyse_routes(fabric: Fabric, states: dict[str, DeviceState]) -> RouteAnalysis | None:
    """The route tables' verdict: valleys in use and a witness cycle; None where no switch of the
    plan showed a table (nothing to judge)."""
    tables = _Tables(fabric, states)
    if all(t is None for t in tables.tables):
        return None
    result = RouteAnalysis(switches=len(tables.names))
    shown = frozenset().union(*tables.families)
    result.families = tuple(sorted(shown))
    for name, families in zip(tables.names, tables.families, strict=True):
        if lacking := shown - families:
            result.missing.append(name)
            result.missing_families[name] = tuple(sorted(lacking))
    complete = not result.missing
    patterns: dict[tuple, _Pattern] = {}
    destinations = sorted(tables.destinations().items())
    for (prefix, owners), sets in zip(
        destinations, tables.forwarding([p for p, _ in destinations]), strict=True
    ):
        key = (owners, sets)
        if key in patterns:
            patterns[key].prefixes.append(prefix)
        else:
            patterns[key] = _Pattern([prefix], owners, sets)
    result.destinations = sum(len(p.prefixes) for p in patterns.values())
    result.unresolved = [name for i, name in enumerate(tables.names) if i in tables.unresolved_at]
    complete = complete and not tables.unresolved_at
    seen: set[tuple[int, str | None, int, int]] = set()
    names, members = tables.names, tables.member_sets
    turning: list[_Pattern] = []
    for pattern in patterns.values():
        turns = _turns(tables, pattern.sets, pattern.owners)
        if not turns and complete:
            continue
        _reach(tables, pattern)
        if pattern.unknown:
            result.unknown += pattern.prefixes
        carried = [(x, y, z) for x, y, z in turns if pattern.carries(x, y, members)]
        if carried:
            turning.append(pattern)
        first = pattern.prefixes[0]
        for x, y, z in carried:
            at, sender = tables.route_for(y, first), tables.route_for(x, first)
            named = (y, at.prefix if at else None, z, x)
            if named in seen:
                continue
            seen.add(named)
            hop, port = tables.hop_toward(y, at, z) if at else tables.via[(y, z)]
            result.valleys.append(
                RouteValley(
                    names[y],
                    pattern.prefixes[0],
                    at.prefix if at else "",
                    hop,
                    port,
                    names[z],
                    names[x],
                    sender.prefix if sender else "",
                )
            )
    if result.valleys:
        _witness(tables, list(patterns.values()), turning, result)
    return result


def _turns(tables: _Tables, sets: tuple[int, ...], owners: frozenset[int]) -> list[tuple[int, int, int]]:
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


def _witness(tables: _Tables, every: list[_Pattern], turning: list[_Pattern], result: RouteAnalysis) -> None:
    """The shortest cycle of channels through a valley in use: first over the destinations that
    take valleys (a cycle found there is one of the whole graph), then over every destination if
    that fits SEARCH_BUDGET; beyond it, `result.searched` says the search was not run."""
    valleys = [
        (tables.index[v.sender], tables.index[v.device], tables.index[v.toward]) for v in result.valleys
    ]
    for judged in (turning, every):
        if judged is every:
            if len(every) == len(turning):
                break
            if len(every) * 2 * sum(len(m) for m in tables.member_sets) > SEARCH_BUDGET:
                result.searched = False
                return
            for pattern in every:
                if not pattern.reached:
                    _reach(tables, pattern)
        best: list[tuple[int, int]] | None = None
        for x, y, z in valleys:
            path = _shortest(tables, judged, (y, z), (x, y))
            if path is not None and (best is None or len(path) < len(best)):
                best = path
        if best is not None:
            _name_cycle(tables, judged, best, result)
            return


def _shortest(
    tables: _Tables, judged: list[_Pattern], start: tuple[int, int], goal: tuple[int, int]
) -> list[tuple[int, int]] | None:
    """The shortest chain of dependencies from channel `start` to `goal`, breadth first: a channel
    leads to each channel its head forwards some judged destination on that it carries."""
    members, owners = tables.member_sets, [p.owners for p in judged]
    parent: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        channel = queue.popleft()
        if channel == goal:
            path = [channel]
            while (back := parent[path[-1]]) is not None:
                path.append(back)
            return path[::-1]
        tail, head = channel
        for pattern, owned in zip(judged, owners, strict=True):
            if head in owned or pattern.sets[head] < 0 or not pattern.carries(tail, head, members):
                continue
            for nxt in tables.members[pattern.sets[head]]:
                if (head, nxt) not in parent:
                    parent[head, nxt] = channel
                    queue.append((head, nxt))
    return None


def _name_cycle(
    tables: _Tables, judged: list[_Pattern], best: list[tuple[int, int]], result: RouteAnalysis
) -> None:
    """The cycle as channels of ports, from its smallest; and the destinations whose waits close it."""
    start = min(
        range(len(best)), key=lambda i: (tables.names[best[i][0]], tables.channel(*best[i])[0].interface)
    )
    best = best[start:] + best[:start]
    result.cycle = tuple(tables.channel(*c) for c in best)
    members = tables.member_sets
    closing = set()
    for (a, b), (_, c) in zip(best, [*best[1:], best[0]], strict=True):
        pattern = next(
            (p for p in judged if p.carries(a, b, members) and b not in p.owners and c in members[p.sets[b]]),
            None,
        )
        if pattern is not None:
            closing.add(pattern.prefixes[0])
    result.cycle_destinations = sorted(closing)
