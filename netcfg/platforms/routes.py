"""Route tables: what every switch platform's reader shares, and how a read table joins the state.

A route table is collected only when asked (`--routes`): on a switch of a large fabric it holds
thousands of prefixes, more than every other output together. Whichever way a snapshot came to hold
it, it is read; a table that cannot be read leaves the routes unknown and says why once.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from netcfg.model import DeviceState, InstalledRoute, NextHop

if TYPE_CHECKING:
    from netcfg.platforms.base import Platform

# What a platform's reader gives: the default VRF's routes, or why the text is no route table.
RouteTable = list[InstalledRoute] | str


def read_json(text: str, what: str) -> object | str:
    """The JSON document of a `| json` output, or why it is none (`what` names the command's form)."""
    try:
        return json.loads(text)
    except ValueError as exc:
        where = f"line {exc.lineno}: " if isinstance(exc, json.JSONDecodeError) else ""
        return f"{where}not JSON ({what} refused, or the output was cut short)"
    except RecursionError:
        return "JSON nested too deeply for a route table"


def read_routes(platform: Platform, outputs: dict[str, str], state: DeviceState) -> None:
    """Each route table of `outputs` (where it holds one) read into `state.routes` (IPv4) or
    `state.routes6` (IPv6), or why not into `state.unparsed` under the command's name; a family
    without a readable table stays unknown (None)."""
    # Routes that forward alike share one tuple of next hops: the analysis caches what it learns of
    # a tuple by its identity, and a fabric's tables repeat a handful of next-hop sets.
    shared: dict[tuple[NextHop, ...], tuple[NextHop, ...]] = {}
    for source in platform.route_tables:
        if source.command.file not in outputs:
            continue
        found = source.read(outputs[source.command.file])
        if isinstance(found, str):
            state.unparsed[source.command.cli] = found
            continue
        table = [
            InstalledRoute(r.prefix, r.protocol, shared.setdefault(r.next_hops, r.next_hops)) for r in found
        ]
        if source.family == 6:
            state.routes6 = table
        else:
            state.routes = table
        state.facets |= {"routes"}


class TextTable:
    """The routes of a route table printed as text (NX-OS, Junos), gathered as its lines are read:
    a table header names the table (a VRF, a routing table), a destination line opens a route, the
    lines after it add its protocol and next hops. Only the routes of the `wanted` table are kept,
    each once its next route or table begins, or the text ends (`routes`)."""

    def __init__(self, wanted: str) -> None:
        self.wanted = wanted
        self.found: list[InstalledRoute] = []
        self.table: str | None = None
        self.prefix: str | None = None
        self.protocol = ""
        self.hops: list[NextHop] = []
        self.seen_table = False

    def begin_table(self, name: str) -> None:
        self._close()
        self.table, self.prefix, self.protocol, self.hops, self.seen_table = name, None, "", [], True

    def begin_route(self, prefix: str) -> None:
        self._close()
        self.prefix, self.protocol, self.hops = prefix, "", []

    def routes(self) -> list[InstalledRoute]:
        self._close()
        self.prefix = None
        return self.found

    def _close(self) -> None:
        # A route without a protocol printed no path the reader knows (it is no route to follow).
        if self.prefix is not None and self.table == self.wanted and self.protocol:
            self.found.append(InstalledRoute(self.prefix, self.protocol, tuple(self.hops)))
