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
    """The route table of `outputs` (where it holds one) read into `state.routes`, or why not into
    `state.unparsed` under the command's name; without a table the routes stay unknown (None)."""
    command = platform.route_command
    if command is None or command.file not in outputs:
        return
    found = platform.parse_routes(outputs[command.file])
    if isinstance(found, str):
        state.unparsed[command.cli] = found
        return
    # Routes that forward alike share one tuple of next hops: the analysis caches what it learns of
    # a tuple by its identity, and a fabric's tables repeat a handful of next-hop sets.
    shared: dict[tuple[NextHop, ...], tuple[NextHop, ...]] = {}
    state.routes = [
        InstalledRoute(r.prefix, r.protocol, shared.setdefault(r.next_hops, r.next_hops)) for r in found
    ]
    state.facets |= {"routes"}
