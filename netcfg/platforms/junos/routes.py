"""Junos's route tables, `show route table inet.0` and `show route table inet6.0` as text: a table
header (`inet.0: 12 destinations, ...`), then each destination's routes, the active one tagged `*`
(or `+`), each route's next hops on lines of their own; `>` marks the next hops the forwarding table
uses (several under ECMP load balancing). A destination too long for its column (an IPv6 prefix)
stands alone on its line, its routes on the next. A logical unit (`et-0/0/48.0`) forwards on its
physical port, which PFC pauses."""

from __future__ import annotations

import re

from netcfg.model import InstalledRoute, NextHop
from netcfg.platforms.routes import RouteTable, TextTable

_TABLE = re.compile(r"([\w.-]+): \d+ destinations, \d+ routes.*")
_DESTINATION = re.compile(r"([0-9a-fA-F.:]+/\d{1,3})(?:\s+(.*))?")
_ENTRY = re.compile(r"([*+-]?)\[([\w-]+)/\d+\].*")
_HOP = re.compile(r"(>?)\s*(?:to ([0-9a-fA-F.:]+) )?via ([\w./:-]+).*")
_LOCAL = re.compile(r"Local via ([\w./:-]+)")
_UNIT = re.compile(r"\.\d+$")
_PROTOCOLS = {"Direct": "connected", "Local": "local", "Static": "static", "BGP": "bgp"}


def read_routes(text: str) -> RouteTable:
    return _read(text, "inet.0")


def read_routes6(text: str) -> RouteTable:
    return _read(text, "inet6.0")


def _read(text: str, wanted: str) -> RouteTable:
    table = TextTable(wanted)
    active = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if found := _TABLE.fullmatch(line):
            table.begin_table(found.group(1))
            continue
        entry_text = line
        if found := _DESTINATION.fullmatch(line):
            table.begin_route(found.group(1))
            active = False
            entry_text = found.group(2) or ""
        if found := _ENTRY.fullmatch(entry_text):
            if table.prefix is None:
                return f"line {number}: a route entry before any destination"
            active = found.group(1) in ("*", "+")
            if active:
                table.protocol = _PROTOCOLS.get(found.group(2), found.group(2).lower())
            continue
        if not active:
            continue
        if found := _LOCAL.fullmatch(line):
            table.hops.append(NextHop(None, _UNIT.sub("", found.group(1))))
        elif (found := _HOP.fullmatch(line)) and found.group(1):
            table.hops.append(NextHop(found.group(2), _UNIT.sub("", found.group(3))))
    if not table.seen_table:
        return f"no '<table>: N destinations, M routes' line: expected `show route table {wanted}`"
    return table.routes()


def render_routes(routes: list[InstalledRoute], family: int = 4) -> str:
    """`show route table inet.0` (`inet6.0`) of a table holding these routes, as Junos prints it (for
    the lab)."""
    n = len(routes)
    name = "inet.0" if family == 4 else "inet6.0"
    lines = [
        "",
        f"{name}: {n} destinations, {n} routes ({n} active, 0 holddown, 0 hidden)",
        "+ = Active Route, - = Last Active, * = Both",
        "",
    ]
    for route in routes:
        if route.attached:
            lines += _destination(route.prefix, "*[Direct/0] 1d 02:12:00")
            lines += [f"                    >  via {hop.interface}.0" for hop in route.next_hops]
            continue
        lines += _destination(route.prefix, "*[BGP/170] 1d 02:11:03, localpref 100")
        lines.append("                      AS path: 65000 I, validation-state: unverified")
        lines += [f"                    >  to {hop.address} via {hop.interface}.0" for hop in route.next_hops]
    return "\n".join([*lines, "", "{master:0}"]) + "\n"


def _destination(prefix: str, entry: str) -> list[str]:
    """A destination and its active route's first line: on one line where the prefix fits its
    column, else the prefix alone and the route below it."""
    if len(prefix) < 19:
        return [f"{prefix:<19}{entry}"]
    return [prefix, f"{'':<19}{entry}"]
