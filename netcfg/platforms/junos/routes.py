"""Junos's route table, `show route table inet.0` as text: a table header (`inet.0: 12 destinations,
...`), then each destination's routes, the active one tagged `*` (or `+`), each route's next hops on
lines of their own; `>` marks the next hops the forwarding table uses (several under ECMP load
balancing). A logical unit (`et-0/0/48.0`) forwards on its physical port, which PFC pauses."""

from __future__ import annotations

import re

from netcfg.model import InstalledRoute, NextHop
from netcfg.platforms.routes import RouteTable

_TABLE = re.compile(r"([\w.-]+): \d+ destinations, \d+ routes.*")
_DESTINATION = re.compile(r"([0-9a-fA-F.:]+/\d{1,3})\s+(.*)")
_ENTRY = re.compile(r"([*+-]?)\[([\w-]+)/\d+\].*")
_HOP = re.compile(r"(>?)\s*(?:to ([0-9a-fA-F.:]+) )?via ([\w./:-]+).*")
_LOCAL = re.compile(r"Local via ([\w./:-]+)")
_UNIT = re.compile(r"\.\d+$")
_PROTOCOLS = {"Direct": "connected", "Local": "local", "Static": "static", "BGP": "bgp"}


def read_routes(text: str) -> RouteTable:
    routes: list[InstalledRoute] = []
    table: str | None = None
    prefix: str | None = None
    active = False
    kind = ""
    hops: list[NextHop] = []
    seen_table = False

    def close() -> None:
        if prefix is not None and table == "inet.0" and kind:
            routes.append(InstalledRoute(prefix, kind, tuple(hops)))

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if found := _TABLE.fullmatch(line):
            close()
            table, prefix, kind, hops, seen_table = found.group(1), None, "", [], True
            continue
        entry_text = line
        if found := _DESTINATION.fullmatch(line):
            close()
            prefix, kind, hops = found.group(1), "", []
            entry_text = found.group(2)
        if found := _ENTRY.fullmatch(entry_text):
            if prefix is None:
                return f"line {number}: a route entry before any destination"
            active = found.group(1) in ("*", "+")
            if active:
                kind = _PROTOCOLS.get(found.group(2), found.group(2).lower())
            continue
        if not active:
            continue
        if found := _LOCAL.fullmatch(line):
            hops.append(NextHop(None, _UNIT.sub("", found.group(1))))
        elif (found := _HOP.fullmatch(line)) and found.group(1):
            hops.append(NextHop(found.group(2), _UNIT.sub("", found.group(3))))
    close()
    if not seen_table:
        return "no '<table>: N destinations, M routes' line: expected the text of `show route table inet.0`"
    return routes


def render_routes(routes: list[InstalledRoute]) -> str:
    """`show route table inet.0` of a table holding these routes, as Junos prints it (for the lab)."""
    n = len(routes)
    lines = [
        "",
        f"inet.0: {n} destinations, {n} routes ({n} active, 0 holddown, 0 hidden)",
        "+ = Active Route, - = Last Active, * = Both",
        "",
    ]
    for route in routes:
        if route.attached:
            lines.append(f"{route.prefix:<19}*[Direct/0] 1d 02:12:00")
            lines += [f"                    >  via {hop.interface}.0" for hop in route.next_hops]
            continue
        lines.append(f"{route.prefix:<19}*[BGP/170] 1d 02:11:03, localpref 100")
        lines.append("                      AS path: 65000 I, validation-state: unverified")
        lines += [f"                    >  to {hop.address} via {hop.interface}.0" for hop in route.next_hops]
    return "\n".join([*lines, "", "{master:0}"]) + "\n"
