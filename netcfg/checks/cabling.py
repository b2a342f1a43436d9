"""Cabling at bring-up: LLDP and link state against the plan, one rule per kind of fault.

Every planned cable gets at most one finding, however many of its ends see it wrong, and a cable
that explains a finding of a planned cable is not named again as unexpected:

- `link.down`: a port of the cable reports its link down. That is all it gets: a down port hears no
  neighbour, which says nothing about where its cable goes.
- `cabling.swapped`: two planned cables with their ends crossed (A reaches B's peer, B reaches A's),
  one finding on the device that holds both swapped ends.
- `cabling.wrong_neighbor`: the cable reaches another port than the plan's.
- `cabling.no_neighbor`: the port is up (or its link state unknown) and hears nobody.
- `cabling.unexpected`: a port the plan does not use hears a device of the fabric.

LLDP of both ends counts, switch side and host side. A cable is named from its lower end (host NIC,
then leaf, then spine) when that end sees it wrong, else from its upper end; a wrong or swapped
neighbour wins over silence, as it says where the cable went. An end whose device gave no LLDP table
(not collected, or LLDP unreadable) is judged by what ports outside the plan hear of it; a planned
port that hears it is named on its own cable, so one observation makes one finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from netcfg.model import Link, Role, port_sort_key
from netcfg.rules import CheckContext, Issue, Severity, rule

# (device, port): tuples hash far faster than Endpoint objects, and a fabric has ~200,000 of them.
Port = tuple[str, str]
_TIER = {Role.HOST: 0, Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}
DOWN, SWAPPED, WRONG, SILENT, UNEXPECTED = (
    "link.down",
    "cabling.swapped",
    "cabling.wrong_neighbor",
    "cabling.no_neighbor",
    "cabling.unexpected",
)


def _text(port: Port) -> str:
    return f"{port[0]}:{port[1]}"


class _Observed:
    """What LLDP and link state show, indexed once per run by device, then port: lookups per cable
    stay O(1), and the cables of one device are judged against that device's small tables (one table
    of a fabric's ~200,000 ports costs a cache miss per lookup)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        # What each port hears, for the devices whose own LLDP table was read.
        self.heard: dict[str, dict[str, list[Port]]] = {}
        self.down: dict[str, set[str]] = {}
        self._planned: dict[Port, tuple[Port, Link]] | None = None
        self._heard_by: dict[Port, list[Port]] | None = None
        for name, state in ctx.states.items():
            if state.collection_error:
                continue
            if "link" in state.facets:
                down = {p.name for p in state.interfaces.values() if p.oper_up is False}
                if down:
                    self.down[name] = down
            if "lldp" not in state.facets:
                continue
            mine: dict[str, list[Port]] = {}
            self.heard[name] = mine
            for n in state.lldp:
                remote = (n.system_name, n.port)
                seen = mine.get(n.local_interface)
                if seen is None:
                    mine[n.local_interface] = [remote]
                else:
                    seen.append(remote)

    def doubtful(self) -> tuple[set[int], list[Port]]:
        """The planned cables that are not plainly fine (an end down, unread or not hearing its
        planned peer), by `id`, and the ports that hear a neighbour but are in no planned cable."""
        fabric = self.ctx.fabric
        doubtful: set[int] = set()
        unplanned: list[Port] = []
        for name in fabric.devices:
            mine = self.heard.get(name)
            down = self.down.get(name, ())
            cabled = fabric.links_of(name)
            for local, link, remote in cabled:
                port = local.interface
                seen = mine.get(port) if mine is not None else None
                if seen is None or port in down or (remote.device, remote.interface) not in seen:
                    doubtful.add(id(link))
            if mine:
                unplanned += [(name, port) for port in mine.keys() - {end.interface for end, _, _ in cabled}]
        # Sorted, as set order changes from run to run and so would the findings'.
        return doubtful, sorted(unplanned)

    @property
    def planned(self) -> dict[Port, tuple[Port, Link]]:
        """Each planned port's peer and cable: built only when a cable needs it, as `heard_by`."""
        if self._planned is None:
            self._planned = {}
            for link in self.ctx.fabric.links:
                a, b = (link.a.device, link.a.interface), (link.b.device, link.b.interface)
                self._planned[a], self._planned[b] = (b, link), (a, link)
        return self._planned

    @property
    def heard_by(self) -> dict[Port, list[Port]]:
        """Who hears each port: built only when a cable needs it (a healthy fabric's never does)."""
        if self._heard_by is None:
            self._heard_by = {}
            for name, mine in self.heard.items():
                for port, remotes in mine.items():
                    for remote in remotes:
                        self._heard_by.setdefault(remote, []).append((name, port))
        return self._heard_by

    def hears(self, port: Port) -> list[Port]:
        mine = self.heard.get(port[0])
        return mine.get(port[1], []) if mine is not None else []

    def is_down(self, port: Port) -> bool:
        return port[1] in self.down.get(port[0], ())

    def oper_up(self, port: Port) -> bool | None:
        state = self.ctx.states.get(port[0])
        if state is None or "link" not in state.facets or state.collection_error:
            return None
        iface = state.interfaces.get(port[1])
        return iface.oper_up if iface is not None else None

    def seen(self, end: Port, peer: Port) -> tuple[list[Port], bool] | None:
        """Where the cable at `end` goes, when not to `peer`: the ports seen and whether `end`'s own
        LLDP said so (else ports outside the plan heard `end`). None: nothing says it is wrong."""
        if end[0] in self.heard:
            own = self.hears(end)
            if peer in own:
                return None
            return (own, True) if own else (self.strays(end), False)
        if peer in self.heard_by.get(end, []):
            return None
        strays = self.strays(end)
        return (strays, False) if strays else None

    def strays(self, end: Port) -> list[Port]:
        """Ports outside the plan that hear `end`. A planned port hearing it is named on its own
        cable, so it is no evidence here: one observation, one finding."""
        return [p for p in self.heard_by.get(end, []) if p not in self.planned]

    def around(self, port: Port) -> list[Port]:
        return self.hears(port) + self.heard_by.get(port, [])


@dataclass(frozen=True, slots=True)
class _Broken:
    end: Port
    peer: Port
    seen: list[Port]
    own: bool


def _classified(ctx: CheckContext) -> dict[str, list[Issue]]:
    """The issues of every cabling rule, worked out once per run (each rule asks for its own)."""
    cached = ctx.memo.get("cabling")
    if cached is None:
        cached = ctx.memo["cabling"] = _classify(ctx)
    return cached  # type: ignore[return-value]


def _classify(ctx: CheckContext) -> dict[str, list[Issue]]:
    obs = _Observed(ctx)
    out: dict[str, list[Issue]] = {DOWN: [], SWAPPED: [], WRONG: [], SILENT: [], UNEXPECTED: []}
    if not obs.heard and not obs.down:
        # No LLDP and no link down anywhere (rendered intent, config files): nothing says a cable
        # is wrong or down, and judging each of the fabric's cables would only find that out.
        return out
    doubtful, unplanned = obs.doubtful()
    # Cables that may be wrong, judged once every planned port is known (strays need the plan).
    broken_ends: list[tuple[Link, Port, Port]] = []
    broken: dict[int, _Broken] = {}
    explained: set[Port] = set()
    for link in ctx.fabric.links if doubtful else ():
        if id(link) not in doubtful:
            continue
        a, b = (link.a.device, link.a.interface), (link.b.device, link.b.interface)
        a_down, b_down = obs.is_down(a), obs.is_down(b)
        if a_down or b_down:
            out[DOWN].append(_down(a if a_down else b, a_down and b_down))
            explained |= {a, b}
            continue
        broken_ends.append((link, a, b))
    for link, a, b in broken_ends:
        verdicts = [
            _Broken(end, peer, *found)
            for end, peer in ((a, b), (b, a))
            if (found := obs.seen(end, peer)) is not None
        ]
        if verdicts:
            # A port seen elsewhere says where the cable went; silence only that it is missing.
            broken[id(link)] = next((v for v in verdicts if v.seen), verdicts[0])
            explained |= {a, b}
    paired: set[int] = set()
    for key, fault in broken.items():
        if key in paired:
            continue
        partner = _swap_partner(obs, fault, key, broken)
        if partner is not None:
            paired |= {key, partner[1]}
            out[SWAPPED] += _swapped(fault, partner[0])
        elif fault.seen:
            out[WRONG].append(_wrong(ctx, fault))
        else:
            out[SILENT].append(_silent(fault, obs.oper_up(fault.end)))
    out[UNEXPECTED] = list(_unexpected(ctx, obs, explained, unplanned))
    return out


def _swap_partner(
    obs: _Observed, fault: _Broken, key: int, broken: dict[int, _Broken]
) -> tuple[tuple[Port, Port], int] | None:
    """The other planned cable crossed with this one: `end` reaches z, and z's planned peer w
    reaches `peer`. Returns ((z, w), the other cable's key)."""
    for z in fault.seen:
        found = obs.planned.get(z)
        if found is None:
            continue
        w, other = found
        if id(other) != key and id(other) in broken and fault.peer in obs.around(w):
            return (z, w), id(other)
    return None


def _swapped(fault: _Broken, crossed: tuple[Port, Port]) -> list[Issue]:
    """One finding for both cables, on the device holding both swapped ends (where a person swaps
    them back); cables crossed between four devices are named on the first cable's end."""
    z, w = crossed
    # Planned: end-peer and w-z. Found: end-z and w-peer.
    if fault.end[0] == w[0]:
        ends = [(fault.end, fault.peer, z), (w, z, fault.peer)]
    elif fault.peer[0] == z[0]:
        ends = [(fault.peer, fault.end, w), (z, w, fault.end)]
    else:
        crossing = f"{_text(fault.end)} reaches {_text(z)} and {_text(w)} reaches {_text(fault.peer)}"
        return [
            Issue(
                fault.end[0],
                fault.end[1],
                f"{_text(fault.end)} to {_text(fault.peer)}, {_text(w)} to {_text(z)}",
                f"{_text(fault.end)} to {_text(z)}, {_text(w)} to {_text(fault.peer)}",
                f"two cables crossed: {crossing}, each the other's planned peer",
            )
        ]
    ends.sort(key=lambda e: port_sort_key(e[0][1]))
    device = ends[0][0][0]
    expected = ", ".join(f"{port[1]} to {_text(planned)}" for port, planned, _ in ends)
    actual = ", ".join(f"{port[1]} to {_text(found)}" for port, _, found in ends)
    (p, _, q), (r, _, s) = ends
    message = (
        f"cables swapped on {device}: {p[1]} reaches {_text(q)} and {r[1]} reaches {_text(s)}, "
        "each the other's planned peer"
    )
    return [Issue(device, port[1], expected, actual, message) for port, _, _ in ends]


def _rail_note(ctx: CheckContext, fault: _Broken, seen: Port) -> str:
    """' (a leaf of rail 1, not rail 2)' when a NIC reaches a leaf of another rail than its own."""
    devices = ctx.fabric.devices
    host, planned, found = devices.get(fault.end[0]), devices.get(fault.peer[0]), devices.get(seen[0])
    if host is None or planned is None or found is None or host.role != Role.HOST:
        return ""
    if found.role == Role.LEAF and found.rail is not None and found.rail != planned.rail:
        return f" (a leaf of rail {found.rail}, not rail {planned.rail})"
    return ""


def _wrong(ctx: CheckContext, fault: _Broken) -> Issue:
    shown = ", ".join(map(_text, fault.seen))
    planned = _text(fault.peer)
    if fault.own:
        note = _rail_note(ctx, fault, fault.seen[0])
        message = f"cabling differs from the plan: {_text(fault.end)} should reach {planned}, "
        message += f"LLDP sees {shown}{note}"
        actual = shown
    else:
        message = f"cabling differs from the plan: {_text(fault.end)} should reach {planned}, "
        message += f"LLDP of {shown} sees it there"
        actual = f"seen by {shown}"
    return Issue(fault.end[0], fault.end[1], planned, actual, message)


def _silent(fault: _Broken, oper_up: bool | None) -> Issue:
    state = "its link is up" if oper_up else "its link state is not known"
    return Issue(
        fault.end[0],
        fault.end[1],
        _text(fault.peer),
        "no neighbour (link up)" if oper_up else "no neighbour (link state unknown)",
        f"{_text(fault.end)} should reach {_text(fault.peer)} and hears no LLDP neighbour; {state}",
    )


def _down(end: Port, both: bool) -> Issue:
    return Issue(
        end[0],
        end[1],
        "link up",
        "down on both ends" if both else "down",
        "link down on a planned cable" + (" (both ends report it down)" if both else ""),
    )


def _unexpected(
    ctx: CheckContext, obs: _Observed, explained: set[Port], unplanned: list[Port]
) -> Iterator[Issue]:
    """Cables on ports the plan does not use (`unplanned`: those that hear a neighbour), to a device
    of the fabric, each named once (from its lower end) and only when no finding of a planned cable
    already explains it."""
    devices = ctx.fabric.devices
    named: set[tuple[Port, Port]] = set()
    for local in unplanned:
        remotes = obs.hears(local)
        if obs.oper_up(local) is False:
            continue
        for remote in remotes:
            far = devices.get(remote[0])
            if far is None or remote in explained:
                continue
            pair = (min(local, remote), max(local, remote))
            if pair in named:
                continue
            named.add(pair)
            here = devices[local[0]]
            end, other = local, remote
            if remote not in obs.planned and (_TIER[far.role], far.name) < (_TIER[here.role], here.name):
                end, other = remote, local
            yield Issue(
                end[0],
                end[1],
                "no cable (the port is not in the plan)",
                _text(other),
                f"unexpected cable: {_text(end)} is not in the plan, and LLDP shows it cabled to "
                f"{_text(other)}",
            )


@rule(DOWN, Severity.ERROR, scope="fabric", facet="link", fields=("oper_up",))
def check_link_down(ctx: CheckContext) -> Iterator[Issue]:
    """A planned cable whose link is down, named on its lower end (both ends when both say so): down,
    not a cabling fault, so no other cabling rule names it. A port whose link state the platform
    does not print is unknown, never down."""
    yield from _classified(ctx)[DOWN]


@rule(SWAPPED, Severity.ERROR, scope="fabric", facet="lldp")
def check_swapped(ctx: CheckContext) -> Iterator[Issue]:
    """Two planned cables with their ends crossed: port A reaches B's planned peer and B reaches A's.
    One finding names both ports, on the device that holds both swapped ends (where the two cables
    are swapped back), from whichever side's LLDP shows it."""
    yield from _classified(ctx)[SWAPPED]


@rule(WRONG, Severity.ERROR, scope="fabric", facet="lldp")
def check_wrong_neighbor(ctx: CheckContext) -> Iterator[Issue]:
    """LLDP shows a planned cable reaching another port than the plan's (NIC i on the leaf of another
    rail, a leaf port on another server). One finding per cable: from its lower end when that end
    sees it wrong, else from its upper end."""
    yield from _classified(ctx)[WRONG]


@rule(SILENT, Severity.ERROR, scope="fabric", facet="lldp")
def check_no_neighbor(ctx: CheckContext) -> Iterator[Issue]:
    """A port of a planned cable whose link is up, or whose link state the platform does not print,
    hears no LLDP neighbour (the cable is missing, or LLDP is off at the far end). One finding per
    cable, on its lower end when both ends are silent."""
    yield from _classified(ctx)[SILENT]


@rule(UNEXPECTED, Severity.WARNING, scope="fabric", facet="lldp")
def check_unexpected(ctx: CheckContext) -> Iterator[Issue]:
    """A port the plan does not use hears a device of the fabric: a cable nobody planned (a spare
    patched in, a second uplink). Named once, on its lower end, unless the far port belongs to a
    planned cable already named by another cabling finding (a cable moved to a spare port is one
    wrong neighbour, not also an unexpected cable)."""
    yield from _classified(ctx)[UNEXPECTED]
