"""PFC deadlock risk: the channel dependency graph of the lossless priority, and its cycles.

A lossless queue that cannot drain holds the upstream queue that feeds it (PFC pauses it). When those
"waits for" dependencies between channels (directed links) form a cycle, the buffers of the cycle can
all fill and pause each other forever: a cyclic buffer dependency (Dally and Seitz 1987; Hu et al.,
HotNets 2016). Up-down routing in a Clos has none: every dependency goes from a channel to one that is
later in the order "up channels by rising tier, then down channels by falling tier", so no cycle can
close. Only a down-up turn (a valley: a packet that came down to a device and leaves it upwards) breaks
that order, so a cycle must hold one. Valleys appear when eBGP accepts a route that bounces off a lower
tier after link failures, which an ASN per spine allows and a shared spine ASN refuses (the AS-path
loop check; RFC 7938 section 5.2.1).

The routing model is eBGP's best paths: per destination leaf, each switch takes the shortest AS path
its neighbours advertise (one AS per hop), ECMP over the ties; a switch refuses a route whose only
paths turn up again at a device of a tier whose upper ASN is shared (`BgpPlan.valley_allowed`).

Scenarios: the plan, the links seen down, every single link failure, and a seeded sample of double
link failures. A failure changes few routes: the plan's routes are computed once per destination, and
a scenario recomputes only the devices whose every planned next hop toward a destination is lost
(falling back to the whole destination where the repair would have to grow routes back). Switches
cabled alike are twins; swapping two maps the fabric onto itself, so scenarios that such swaps map
onto each other share one verdict, and plan facts are read off one leaf per class of twins.

A dependency exists where traffic takes it, so a destination the scenario leaves unchanged but for
its dropped next hops still has its carriers asked again: a dropped next hop can have been the only
traffic into a switch whose plan turns (a bounce, say) then carry nothing, and counting them closed
cycles no traffic could fill (tests/test_deadlock_oracle.py, the ring of five leaves and four spines).
"""

from __future__ import annotations

import collections
import itertools
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from netcfg.model import BgpPlan, Endpoint, Fabric, Link, Role, port_sort_key

_TIER = {Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}
_FAR = 255
# Double failures: every pair up to this many, else this many pairs drawn with the seed below.
DOUBLE_SAMPLE = 2000
DOUBLE_SEED = 22
# Sets of next hops up to this size are indexed by the destinations that need them; a switch with
# more lost neighbours than this is looked up in every destination's routes.
NEEDS_INDEXED = 3


@dataclass(frozen=True, slots=True)
class Scenario:
    """A set of failed links and what to call it in a finding."""

    kind: str  # "plan", "down now", "single", "double"
    links: tuple[Link, ...] = ()

    def describe(self) -> str:
        if not self.links:
            return "the planned fabric"
        named = " and ".join(f"{link.a}-{link.b}" for link in self.links)
        return f"links down now ({named})" if self.kind == "down now" else f"the failure of {named}"


@dataclass(frozen=True, slots=True)
class Cycle:
    """A witness cycle of channels (each a link crossed from `tail` to `head`) and its scenario."""

    scenario: Scenario
    channels: tuple[tuple[Endpoint, Endpoint], ...]

    def describe(self) -> str:
        return " -> ".join(f"{tail}>{head}" for tail, head in self.channels)


@dataclass(slots=True)
class Analysis:
    """What the deadlock analysis found: the scenarios judged and the first cycle of each kind."""

    scenarios: int = 0
    with_cycle: int = 0
    cycles: list[Cycle] = field(default_factory=list)
    # Valley dependencies in use (device, in from, out to) of the first scenario that has any.
    valleys: list[tuple[str, str, str]] = field(default_factory=list)


class _Switches:
    """The switches of a fabric as numbered devices, their tiers and the links between them."""

    def __init__(self, fabric: Fabric, plan: BgpPlan) -> None:
        switches = [d for d in fabric.devices.values() if d.role in _TIER]
        self.names = [d.name for d in switches]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.tier = [_TIER[d.role] for d in switches]
        self.valley_ok = [plan.valley_allowed(d.role) for d in switches]
        self.leaves = [i for i, d in enumerate(switches) if d.role == Role.LEAF]
        self.links: dict[tuple[int, int], list[Link]] = {}
        for link in fabric.links:
            a, b = self.index.get(link.a.device), self.index.get(link.b.device)
            if a is None or b is None or a == b:
                continue
            self.links.setdefault((min(a, b), max(a, b)), []).append(link)
        neighbours: list[list[int]] = [[] for _ in self.names]
        for a, b in self.links:
            neighbours[a].append(b)
            neighbours[b].append(a)
        self.neighbours = neighbours
        # Whether any switch with a tier above it may refuse to bounce routes up there.
        self.refusing = any(
            not self.valley_ok[x] and any(self.tier[m] > self.tier[x] for m in neighbours[x])
            for x in range(len(self.names))
        )
        # Switches of one tier cabled alike (the same neighbours, as many links to each) are twins:
        # swapping two maps the fabric onto itself. A switch's class is named by its first twin.
        shapes: dict[tuple, int] = {}
        self.twin = [
            shapes.setdefault((self.tier[i], self.valley_ok[i], self.shape(i)), i)
            for i in range(len(self.names))
        ]
        self.switch_links = [link for pair in sorted(self.links) for link in self.links[pair]]

    def shape(self, node: int) -> tuple[tuple[int, int], ...]:
        """A switch's neighbours and how many links go to each."""
        links = self.links
        return tuple(sorted((n, len(links[(min(node, n), max(node, n))])) for n in self.neighbours[node]))

    def pair(self, link: Link) -> tuple[int, int] | None:
        a, b = self.index.get(link.a.device), self.index.get(link.b.device)
        return None if a is None or b is None else (min(a, b), max(a, b))

    def lost(self, failed: Iterable[Link]) -> frozenset[tuple[int, int]]:
        """The device pairs a set of failed links leaves without any link."""
        down: dict[tuple[int, int], int] = {}
        for link in failed:
            pair = self.pair(link)
            if pair is not None:
                down[pair] = down.get(pair, 0) + 1
        return frozenset(p for p, n in down.items() if n >= len(self.links[p]))

    def channel(self, tail: int, head: int) -> tuple[Endpoint, Endpoint]:
        """The first link (in port order) between two devices, crossed from `tail` to `head`."""
        links = self.links[(min(tail, head), max(tail, head))]
        name = self.names[tail]
        ends = sorted(
            ((link.a, link.b) if link.a.device == name else (link.b, link.a) for link in links),
            key=lambda ends: port_sort_key(ends[0].interface),
        )
        return ends[0]


@dataclass(slots=True)
class _Routes:
    """eBGP best paths toward one destination leaf: hop count and next hops of every switch."""

    dist: bytearray
    hops: list[tuple[int, ...]]
    # The switches that gained next hops the plan's routes lack (a repair); None: any may have.
    grown: frozenset[int] | None = None


def _routes(sw: _Switches, dest: int, lost: frozenset[tuple[int, int]]) -> _Routes:
    """Breadth first from the destination: a switch takes the neighbours one hop closer whose route it
    accepts (one that does not only turn up again where the upper tier's ASN is shared)."""
    n = len(sw.names)
    dist = bytearray(b"\xff") * n
    hops: list[tuple[int, ...]] = [()] * n
    dist[dest] = 0
    up_only = bytearray(n)
    tier, neighbours, valley_ok = sw.tier, sw.neighbours, sw.valley_ok
    frontier = [dest]
    level = 0
    while frontier:
        level += 1
        found: dict[int, list[int]] = {}
        for node in frontier:
            refuses_down = node != dest and up_only[node] and not valley_ok[node]
            here = tier[node]
            for other in neighbours[node]:
                if dist[other] != _FAR or (refuses_down and tier[other] > here):
                    continue
                if lost and (min(node, other), max(node, other)) in lost:
                    continue
                found.setdefault(other, []).append(node)
        for node, via in found.items():
            dist[node] = level
            hops[node] = tuple(via)
            up_only[node] = all(tier[v] > tier[node] for v in via)
        frontier = list(found)
    return _Routes(dist, hops)


class _Carriers:
    """Which switches forward traffic toward a destination: every other leaf sends some, and a switch
    carries it when a carrier has it as a next hop (asked lazily: only valley candidates need it).
    `lost`: device pairs whose next hops the routes still name but no traffic can take (the plan's
    routes of a destination a scenario does not change beyond dropping them)."""

    def __init__(
        self, sw: _Switches, routes: _Routes, dest: int, lost: frozenset[tuple[int, int]] = frozenset()
    ) -> None:
        self.sw, self.routes, self.dest, self.lost = sw, routes, dest, lost
        self.known: dict[int, bool] = {}

    def __call__(self, node: int) -> bool:
        found = self.known.get(node)
        if found is None:
            self.known[node] = False  # a node is never its own upstream
            dist, hops, lost = self.routes.dist, self.routes.hops, self.lost
            found = (self.sw.tier[node] == 1 and node != self.dest and dist[node] != _FAR) or any(
                dist[m] == dist[node] + 1
                and node in hops[m]
                and not (lost and (min(m, node), max(m, node)) in lost)
                and self(m)
                for m in self.sw.neighbours[node]
            )
            self.known[node] = found
        return found


class _PlanTurns:
    """The turns (from, via, to) of the plan's traffic toward every leaf, by the switch they turn at:
    at `via`, for each next hop `to`, the groups of destinations whose traffic enters `via` from the
    same switches, as a bit mask of `via`'s neighbours (bit i: `sw.neighbours[via][i]`). A fabric's
    destinations share few such groups per switch (a super-spine: one per SU), so every
    destination's dependencies fit in a few entries a channel."""

    def __init__(self, sw: _Switches, plan: dict[int, _Routes]) -> None:
        self.bit = [{m: 1 << i for i, m in enumerate(sw.neighbours[b])} for b in range(len(sw.names))]
        self.leaves = [
            sum(1 << i for i, m in enumerate(sw.neighbours[b]) if sw.tier[m] == 1)
            for b in range(len(sw.names))
        ]
        grouped: list[dict[tuple[int, tuple[int, ...]], list[int]]] = [{} for _ in sw.names]
        tier, n = sw.tier, len(sw.names)
        for dest, routes in plan.items():
            dist, hops = routes.dist, routes.hops
            # Carriers from the farthest switch inward: a leaf sends, a carrier's next hops carry.
            order = sorted((x for x in range(n) if dist[x] != _FAR), key=dist.__getitem__, reverse=True)
            carried = bytearray(n)
            entering = [0] * n
            for x in order:
                if tier[x] == 1 and x != dest:
                    carried[x] = 1
                if not carried[x]:
                    continue
                for b in hops[x]:
                    carried[b] = 1
                    if b != dest:
                        entering[b] |= self.bit[b][x]
            for b in order:
                if entering[b]:
                    grouped[b].setdefault((entering[b], hops[b]), []).append(dest)
        self.turns: list[dict[int, list[tuple[int, tuple[int, ...]]]]] = [{} for _ in sw.names]
        for b, groups in enumerate(grouped):
            for (mask, out), dests in groups.items():
                for c in out:
                    self.turns[b].setdefault(c, []).append((mask, tuple(dests)))


class _ScenarioGraph:
    """The channel dependency graph of a scenario, asked turn by turn: the plan's turns of the
    destinations it leaves unchanged (whose traffic still reaches the turn's first switch once the
    lost next hops are dropped), the repaired routes' turns of those it changes, none over a lost
    device pair. Channels are numbered `tail * switches + head`."""

    def __init__(
        self,
        sw: _Switches,
        plan: dict[int, _Routes],
        turns: _PlanTurns,
        changed: dict[int, _Routes],
        lost: frozenset[tuple[int, int]],
    ) -> None:
        self.sw, self.plan, self.turns, self.changed, self.lost = sw, plan, turns, changed, lost
        self.n = len(sw.names)
        self._carriers: dict[int, _Carriers] = {}
        self._into: dict[tuple[int, int], int] = {}

    def carries(self, dest: int, node: int) -> bool:
        found = self._carriers.get(dest)
        if found is None:
            changed = self.changed.get(dest)
            routes, lost = (self.plan[dest], self.lost) if changed is None else (changed, frozenset())
            found = self._carriers[dest] = _Carriers(self.sw, routes, dest, lost)
        return found(node)

    def alive(self, x: int, y: int) -> bool:
        return not self.lost or (min(x, y), max(x, y)) not in self.lost

    def turn(self, a: int, b: int, c: int) -> bool:
        """Whether traffic entering `b` from `a` waits for the channel from `b` to `c`."""
        if not (self.alive(a, b) and self.alive(b, c)):
            return False
        bit = self.turns.bit[b][a]
        changed = self.changed
        for mask, dests in self.turns.turns[b].get(c, ()):
            if mask & bit:
                for d in dests:
                    if d not in changed and self.carries(d, a):
                        return True
        for d, routes in changed.items():
            hops = routes.hops
            if d != b and c in hops[b] and b in hops[a] and self.carries(d, a):
                return True
        return False

    def entering(self, b: int, c: int, among: int) -> int:
        """Of the channels into `b` (a mask of `b`'s neighbours, `among`), those whose traffic waits
        for the channel from `b` to `c`."""
        found = 0
        neighbours, changed = self.sw.neighbours[b], self.changed
        for mask, dests in self.turns.turns[b].get(c, ()):
            some = mask & among & ~found
            if not some or all(d in changed for d in dests):
                continue
            # A leaf sends toward every other: it carries whatever lost next hops are dropped.
            found |= some & self.turns.leaves[b]
            some &= ~self.turns.leaves[b]
            while some:
                low = some & -some
                a = neighbours[low.bit_length() - 1]
                if any(d not in changed and self.carries(d, a) for d in dests):
                    found |= low
                some ^= low
        for d, routes in changed.items():
            if d == b or c not in routes.hops[b]:
                continue
            key = (d, b)
            into = self._into.get(key)
            if into is None:
                into = 0
                for i, a in enumerate(neighbours):
                    if b in routes.hops[a] and self.carries(d, a):
                        into |= 1 << i
                self._into[key] = into
            found |= into & among
        return found

    def reaching(self, targets: Iterable[int]) -> set[int]:
        """The channels from which some target channel can be reached (the targets among them).
        Backwards from the targets; each switch keeps the mask of its incoming channels not yet
        found, so a channel is asked for only those."""
        n, neighbours = self.n, self.sw.neighbours
        seen = set(targets)
        stack = list(seen)
        pending: dict[int, int] = {}
        while stack:
            b, c = divmod(stack.pop(), n)
            left = pending.get(b)
            if left is None:
                left = 0
                for i, a in enumerate(neighbours[b]):
                    if a * n + b not in seen and self.alive(a, b):
                        left |= 1 << i
            if left and self.alive(b, c):
                found = self.entering(b, c, left)
                left &= ~found
                while found:
                    low = found & -found
                    channel = neighbours[b][low.bit_length() - 1] * n + b
                    seen.add(channel)
                    stack.append(channel)
                    found ^= low
            pending[b] = left
        return seen

    def in_cycles(self, valleys: list[tuple[int, int, int]]) -> tuple[list[tuple[int, int, int]], set[int]]:
        """The valley dependencies that lie on a cycle's way (none: no cycle through a valley), and
        the channels that reach one of them. A valley whose second channel reaches no first channel
        of another is on no cycle; dropped until none is: then each valley left leads to one, and
        following them must come round, a cycle."""
        n = self.n
        left = valleys
        while True:
            reach = self.reaching(a * n + b for a, b, _ in left) if left else set()
            kept = [v for v in left if v[1] * n + v[2] in reach]
            if len(kept) == len(left):
                return kept, reach
            left = kept

    def shortest(self, valleys: list[tuple[int, int, int]], within: set[int]) -> list[tuple[int, int]] | None:
        """The shortest cycle through a valley dependency: breadth first from each valley's second
        channel to its first, over the channels that reach a valley (any cycle's), in switch order."""
        n, neighbours = self.n, self.sw.neighbours
        best: list[int] | None = None
        for a, b, c in valleys:
            start, goal = b * n + c, a * n + b
            if start not in within or goal not in within:
                continue
            parent = {start: -1}
            level = [start]
            depth = 1
            while level and goal not in parent and (best is None or depth + 1 < len(best)):
                following = []
                for channel in level:
                    x, y = divmod(channel, n)
                    for z in sorted(neighbours[y]):
                        nxt = y * n + z
                        if nxt in parent or nxt not in within or not self.turn(x, y, z):
                            continue
                        parent[nxt] = channel
                        following.append(nxt)
                level = following
                depth += 1
            if goal in parent:
                path = [goal]
                while parent[path[-1]] != -1:
                    path.append(parent[path[-1]])
                if best is None or len(path) < len(best):
                    best = path[::-1]
        return None if best is None else [divmod(channel, n) for channel in best]


def _valleys(
    sw: _Switches,
    routes: _Routes,
    dest: int,
    also: Iterable[int] = (),
    carried: bool = True,
    base: _Routes | None = None,
) -> list[tuple[int, int, int]]:
    """The down-up turns traffic toward `dest` takes: a carrier's next hop below it that goes up.
    Of a repair, only where it changed next hops (and at `also`): elsewhere the plan's turns stand.
    `carried=False`: every such turn, whether traffic takes it or not."""
    tier, hops = sw.tier, routes.hops
    if routes.grown is None or base is None:
        pairs: Iterable[tuple[int, int]] = ((n, m) for n, via in enumerate(hops) for m in via)
    else:
        # A new turn needs a next hop the plan did not have, into its middle or out of it upwards
        # (`also`: where the plan has turns no traffic took, which a repair may start to carry).
        old, grown = base.hops, routes.grown
        starts = [(a, b) for a in grown for b in hops[a] if b not in old[a]]
        starts += [(a, b) for a in also for b in hops[a]]
        raised = [b for b in grown if any(tier[c] > tier[b] and c not in old[b] for c in hops[b])]
        mids = [(a, b) for b in raised for a in sw.neighbours[b] if b in hops[a]]
        pairs = itertools.chain(starts, mids)
    carries: _Carriers | None = None
    found = []
    for node, mid in pairs:
        if mid == dest or tier[mid] >= tier[node]:
            continue
        if carried:
            carries = carries or _Carriers(sw, routes, dest)
            if not carries(node):
                continue
        found += [(node, mid, out) for out in hops[mid] if tier[out] > tier[mid]]
    return found


def _repaired(sw: _Switches, base: _Routes, dest: int, lost: frozenset[tuple[int, int]]) -> _Routes | None:
    """The plan's routes toward `dest` repaired for the lost device pairs: next hops over them are
    dropped, a switch left without any (or whose route would now only turn up where its upper peers
    refuse that) is searched again from its neighbours, in rising distance. None where a repaired
    switch would give another a route it refused before (the search then starts afresh)."""
    tier, neighbours, valley_ok = sw.tier, sw.neighbours, sw.valley_ok
    dist, hops = bytearray(base.dist), list(base.hops)

    # Each switch's next hops dropped so far (its lost peers first); a switch is looked at again
    # once every drop queued before it is in, first in first out.
    gone: dict[int, set[int]] = {}
    for x, y in lost:
        gone.setdefault(x, set()).add(y)
        gone.setdefault(y, set()).add(x)
    cut = {x: frozenset(peers) for x, peers in gone.items()}
    nothing: frozenset[int] = frozenset()
    # Where no switch refuses to bounce, every route is accepted: the test is skipped.
    strict = sw.refusing
    base_hops = base.hops

    def up_only(node: int, via: tuple[int, ...]) -> bool:
        return node != dest and bool(via) and all(tier[h] > tier[node] for h in via)

    queue = collections.deque(gone)
    queued = set(gone)

    def drop(node: int, upper_only: bool) -> None:
        """`node` is gone as a next hop of its neighbours (of those above it only)."""
        for m in neighbours[node]:
            if node in base_hops[m] and not (upper_only and tier[m] <= tier[node]):
                dropped = gone.setdefault(m, set())
                if node not in dropped:
                    dropped.add(node)
                    if m not in queued:
                        queued.add(m)
                        queue.append(m)

    dirty: set[int] = set()
    while queue:
        node = queue.popleft()
        queued.discard(node)
        if node == dest or node in dirty or base.dist[node] == _FAR:
            continue
        out = gone[node]
        via = hops[node] = tuple(h for h in base_hops[node] if h not in out)
        if not via:
            dirty.add(node)
            drop(node, False)
        elif not valley_ok[node] and up_only(node, via) and not up_only(node, base_hops[node]):
            drop(node, True)
    if not dirty:
        return _Routes(dist, hops, frozenset())

    def accepts(x: int, n: int) -> bool:
        return not (tier[x] > tier[n] and not valley_ok[n] and up_only(n, hops[n]))

    for node in dirty:
        dist[node], hops[node] = _FAR, ()
    buckets: dict[int, list[int]] = {}
    for node in dirty:
        cuts = cut.get(node, nothing)
        levels = [
            dist[n]
            for n in neighbours[node]
            if n not in dirty and dist[n] != _FAR and n not in cuts and (not strict or accepts(node, n))
        ]
        if levels:
            buckets.setdefault(min(levels) + 1, []).append(node)
    done: set[int] = set()
    level = min(buckets, default=_FAR)
    while level < _FAR and buckets:
        for node in buckets.pop(level, ()):
            if node in done:
                continue
            done.add(node)
            dist[node] = level
            cuts = cut.get(node, nothing)
            hops[node] = tuple(
                n
                for n in neighbours[node]
                if dist[n] == level - 1 and n not in cuts and (not strict or accepts(node, n))
            )
            for m in neighbours[node]:
                if m in dirty and m not in done and m not in cuts and (not strict or accepts(m, node)):
                    buckets.setdefault(level + 1, []).append(m)
        level += 1
    grown = set(done)  # the searched switches, and those a searched one joins as a next hop
    for node in done:
        cuts = cut.get(node, nothing)
        for m in neighbours[node]:
            if m in dirty or m == dest or dist[m] == _FAR or m in cuts or (strict and not accepts(m, node)):
                continue
            if dist[m] > dist[node] + 1:
                return None
            if dist[m] == dist[node] + 1 and node not in hops[m]:
                if not valley_ok[m] and up_only(m, hops[m]) and tier[node] < tier[m]:
                    return None
                hops[m] = (*hops[m], node)
                grown.add(m)
    return _Routes(dist, hops, frozenset(grown))


def _plan_routes(sw: _Switches) -> dict[int, _Routes]:
    """The plan's routes toward every leaf. The routes toward a twin leaf are those toward the first
    of its class with the two swapped, so only one of each class is searched."""
    plan: dict[int, _Routes] = {}
    for leaf in sw.leaves:
        first = sw.twin[leaf]
        plan[leaf] = (
            _routes(sw, leaf, frozenset()) if first == leaf else _swapped(sw, plan[first], first, leaf)
        )
    return plan


def _needed(tier: list[int], node: int, via: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """(switch, *next hops) of sets of next hops (in index order) that a route cannot lose all of
    without changing beyond dropping them: all of them, or all those downwards (without them the
    route would only turn up). Sets of more than NEEDS_INDEXED next hops are not named."""
    if not via:
        return
    if len(via) <= NEEDS_INDEXED:
        yield (node, *sorted(via))
    down = sorted(v for v in via if tier[v] < tier[node])
    if down and len(down) < len(via) and len(down) <= NEEDS_INDEXED:
        yield (node, *down)


def _needs(sw: _Switches, routes: _Routes) -> list[tuple[int, ...]]:
    return [need for node, via in enumerate(routes.hops) for need in _needed(sw.tier, node, via)]


def _swap_needs(needs: list[tuple[int, ...]], a: int, b: int) -> list[tuple[int, ...]]:
    swap = {a: b, b: a}
    return [(swap.get(n[0], n[0]), *sorted(swap.get(h, h) for h in n[1:])) for n in needs]


def _swap_all(items: Iterable[tuple[int, ...]], a: int, b: int) -> list[tuple[int, ...]]:
    """Tuples of switches with twins `a` and `b` swapped."""
    swap = {a: b, b: a}
    return [tuple(swap.get(x, x) for x in item) for item in items]


def _swapped(sw: _Switches, routes: _Routes, a: int, b: int) -> _Routes:
    """Routes toward twin `b` from those toward twin `a`: only the twins and their neighbours change."""
    dist = bytearray(routes.dist)
    dist[a], dist[b] = dist[b], dist[a]
    hops = list(routes.hops)
    hops[a], hops[b] = hops[b], hops[a]
    swap = {a: b, b: a}
    for node in (a, b, *sw.neighbours[a]):
        hops[node] = tuple(swap.get(h, h) for h in hops[node])
    grown = None if routes.grown is None else frozenset(swap.get(n, n) for n in routes.grown)
    return _Routes(dist, hops, grown)


class DeadlockModel:
    """The plan's routes toward every leaf, and what a set of failed links does to them."""

    def __init__(self, fabric: Fabric, plan: BgpPlan) -> None:
        sw = self.sw = _Switches(fabric, plan)
        self.plan = _plan_routes(sw)
        # What follows is read off the first leaf of each twin class and swapped onto its twins.
        # (switch, *next hops) -> destinations whose route at that switch needs one of them.
        needs: dict[tuple[int, ...], list[int]] = {}
        self.plan_valleys: list[tuple[int, tuple[int, int, int]]] = []
        # Per destination, the switches where a down-up turn exists in the plan's next hops, carried
        # or not (a repair may start sending traffic there).
        self.turns: dict[int, list[int]] = {}
        first: dict[int, tuple[list, list, list]] = {}
        for dest, routes in self.plan.items():
            twin = sw.twin[dest]
            if twin == dest:
                needed = _needs(sw, routes)
                valleys = _valleys(sw, routes, dest)
                turns = [(a,) for a in sorted({a for a, _, _ in _valleys(sw, routes, dest, carried=False)})]
                first[dest] = (needed, valleys, turns)
            else:
                needed, valleys, turns = first[twin]
                needed = _swap_needs(needed, twin, dest)
                valleys, turns = _swap_all(valleys, twin, dest), _swap_all(turns, twin, dest)
            for need in needed:
                needs.setdefault(need, []).append(dest)
            self.plan_valleys += [(dest, (a, b, c)) for a, b, c in valleys]
            if turns:
                self.turns[dest] = sorted(a for (a,) in turns)
        self.needs = needs
        self.verdicts: dict[tuple, tuple[bool, bool]] = {}
        self._plan_turns: _PlanTurns | None = None

    def _repairs(self, lost: frozenset[tuple[int, int]]) -> tuple[dict[int, _Routes], dict[int, int]]:
        """The routes of every destination a scenario changes beyond dropping next hops, and which
        of them are a twin's swapped (destination -> that twin)."""
        gone: dict[int, list[int]] = {}
        for a, b in lost:
            gone.setdefault(a, []).append(b)
            gone.setdefault(b, []).append(a)
        changed: set[int] = set()
        for node, peers in gone.items():
            peers.sort()
            if len(peers) > NEEDS_INDEXED:
                lose = set(peers)
                tier = self.sw.tier
                changed.update(
                    dest
                    for dest, routes in self.plan.items()
                    if any(lose.issuperset(n[1:]) for n in _needed(tier, node, routes.hops[node]))
                )
                continue
            for size in range(1, len(peers) + 1):
                for some in itertools.combinations(peers, size):
                    changed.update(self.needs.get((node, *some), ()))
        touched = {x for pair in lost for x in pair}
        found: dict[int, _Routes] = {}
        swapped: dict[int, int] = {}
        # Twin leaves no lost link touches stay twins: one repair serves its whole class.
        done: dict[int, int] = {}
        for dest in sorted(changed):
            twin = done.get(self.sw.twin[dest])
            if twin is not None and dest not in touched:
                found[dest] = _swapped(self.sw, found[twin], twin, dest)
                swapped[dest] = twin
                continue
            repaired = _repaired(self.sw, self.plan[dest], dest, lost)
            found[dest] = repaired if repaired is not None else _routes(self.sw, dest, lost)
            if dest not in touched:
                done[self.sw.twin[dest]] = dest
        return found, swapped

    def verdict(self, scenario: Scenario) -> tuple[bool, bool]:
        """Whether a scenario has a cycle, and whether it has valley dependencies in use. Scenarios
        that are images of each other under swapping twins are judged alike: one is searched."""
        lost = self.sw.lost(scenario.links)
        key = self._orbit(lost)
        found = self.verdicts.get(key) if key is not None else None
        if found is None:
            cyclic, valleys = self._search(lost)
            found = (cyclic, bool(valleys))
            if key is not None:
                self.verdicts[key] = found
        return found

    def _orbit(self, lost: frozenset[tuple[int, int]]) -> tuple | None:
        """The same key for lost device pairs that swapping twins maps onto each other (a switch named
        by its class and by the order it first appears in), None for more than three pairs."""
        if len(lost) > 3:
            return None
        twin = self.sw.twin
        # Two ends of a link are never twins (a twin would neighbour itself): order ends by class.
        pairs = [(a, b) if twin[a] < twin[b] else (b, a) for a, b in lost]
        keys = []
        for order in itertools.permutations(pairs):
            label: dict[int, int] = {}
            count: dict[int, int] = {}
            for x in itertools.chain.from_iterable(order):
                if x not in label:
                    label[x] = count[twin[x]] = count.get(twin[x], -1) + 1
            keys.append(tuple((twin[x], label[x]) for x in itertools.chain.from_iterable(order)))
        return min(keys)

    def cycle(self, scenario: Scenario) -> tuple[Cycle | None, list[tuple[int, int, int]]]:
        """The shortest witness cycle through a valley dependency of this scenario (None: no cycle),
        and the valley dependencies in use."""
        best, valleys = self._shortest(self.sw.lost(scenario.links))
        if best is None:
            return None, valleys
        channels = tuple(self.sw.channel(tail, head) for tail, head in best)
        return Cycle(scenario, _rotated(channels)), valleys

    def _valleys_of(
        self, lost: frozenset[tuple[int, int]]
    ) -> tuple[dict[int, _Routes], list[tuple[int, int, int]]]:
        """The routes a scenario changes, and the valley dependencies in use."""
        changed, swapped = self._repairs(lost) if lost else ({}, {})
        # A plan's turn stays in use where traffic still reaches it: a lost next hop may have been
        # the only way there, though the destination's routes change no further.
        carriers: dict[int, _Carriers] = {}
        kept = [
            (a, b, c)
            for d, (a, b, c) in self.plan_valleys
            if d not in changed
            and not _crosses((a, b, c), lost)
            and carriers.setdefault(d, _Carriers(self.sw, self.plan[d], d, lost))(a)
        ]
        fresh: dict[int, list[tuple[int, int, int]]] = {}
        for d, r in changed.items():
            twin = swapped.get(d)
            if twin is None:
                fresh[d] = _valleys(self.sw, r, d, self.turns.get(d, ()), base=self.plan[d])
            else:
                fresh[d] = [(a, b, c) for a, b, c in _swap_all(fresh[twin], twin, d)]
        found = itertools.chain(kept, itertools.chain.from_iterable(fresh.values()))
        return changed, sorted({v for v in found if not _crosses(v, lost)})

    def _graph(self, changed: dict[int, _Routes], lost: frozenset[tuple[int, int]]) -> _ScenarioGraph:
        """The scenario's channel dependency graph over every channel: a cycle through a valley may
        climb to devices no valley touches (two failures in two SUs close one over the super-spines).
        The plan's turns are gathered once, at the first scenario that needs them."""
        if self._plan_turns is None:
            self._plan_turns = _PlanTurns(self.sw, self.plan)
        return _ScenarioGraph(self.sw, self.plan, self._plan_turns, changed, lost)

    def _shortest(
        self, lost: frozenset[tuple[int, int]]
    ) -> tuple[list[tuple[int, int]] | None, list[tuple[int, int, int]]]:
        """The shortest cycle of channels through a valley dependency, and those in use."""
        changed, valleys = self._valleys_of(lost)
        if not valleys:
            return None, []
        graph = self._graph(changed, lost)
        on_cycles, reach = graph.in_cycles(valleys)
        return (graph.shortest(on_cycles, reach) if on_cycles else None), valleys

    def _search(self, lost: frozenset[tuple[int, int]]) -> tuple[bool, list[tuple[int, int, int]]]:
        """Whether a cycle runs through a valley dependency, and those in use."""
        changed, valleys = self._valleys_of(lost)
        if not valleys:
            return False, []
        on_cycles, _ = self._graph(changed, lost).in_cycles(valleys)
        return bool(on_cycles), valleys


def _crosses(dependency: tuple[int, int, int], lost: frozenset[tuple[int, int]]) -> bool:
    """Whether a dependency crosses a device pair left without links (its plan route no longer can)."""
    if not lost:
        return False
    a, b, c = dependency
    return (min(a, b), max(a, b)) in lost or (min(b, c), max(b, c)) in lost


def _rotated(channels: tuple[tuple[Endpoint, Endpoint], ...]) -> tuple[tuple[Endpoint, Endpoint], ...]:
    """The cycle starting at its smallest channel: one cycle reads the same whichever valley found it."""
    start = min(range(len(channels)), key=lambda i: (channels[i][0].device, channels[i][0].interface))
    return channels[start:] + channels[:start]


def scenarios(fabric: Fabric, down: Iterable[Link] = ()) -> Iterator[Scenario]:
    """The plan, the links seen down (if any), every single switch-to-switch link failure, and the
    double failures: every pair up to DOUBLE_SAMPLE pairs, else DOUBLE_SAMPLE pairs drawn with seed
    DOUBLE_SEED (the same pairs on every run of the same fabric)."""
    yield Scenario("plan")
    seen = tuple(down)
    if seen:
        yield Scenario("down now", seen)
    switch = {d.name for d in fabric.devices.values() if d.role in _TIER}
    links = [link for link in fabric.links if link.a.device in switch and link.b.device in switch]
    for link in links:
        yield Scenario("single", (link,))
    pairs = len(links) * (len(links) - 1) // 2
    if pairs <= DOUBLE_SAMPLE:
        for a, b in itertools.combinations(links, 2):
            yield Scenario("double", (a, b))
        return
    rng = random.Random(DOUBLE_SEED)
    for _ in range(DOUBLE_SAMPLE):
        i, j = rng.sample(range(len(links)), 2)
        yield Scenario("double", (links[min(i, j)], links[max(i, j)]))


def analyse(fabric: Fabric, plan: BgpPlan, down: Iterable[Link] = ()) -> Analysis:
    """Every scenario judged for valley dependencies and cycles; the first cycle kept (the links
    down now first, then the plan, single and double failures in order)."""
    return judge(DeadlockModel(fabric, plan), scenarios(fabric, down))


def judge(model: DeadlockModel, judged: Iterable[Scenario]) -> Analysis:
    """Scenarios judged in order: each one's verdict, and the witness cycle and valley dependencies
    named of the first that has them."""
    result = Analysis()
    for scenario in judged:
        result.scenarios += 1
        cyclic, valleys = model.verdict(scenario)
        result.with_cycle += cyclic
        if (cyclic and not result.cycles) or (valleys and not result.valleys):
            found, named = model.cycle(scenario)
            if named and not result.valleys:
                names = model.sw.names
                result.valleys = [(names[b], names[a], names[c]) for a, b, c in named]
            if found is not None and not result.cycles:
                result.cycles.append(found)
    return result
