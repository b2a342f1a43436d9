"""FRR's route tables (`show ip route json`, `show ipv6 route json`), as Cumulus and SONiC both print
them: their routing suite is FRR, whose zebra writes one JSON object of prefixes, each a list of the
route entries of every protocol that offers one. The entry zebra selected and installed is the one that
forwards, by those of its next hops that are in the FIB. Under BGP unnumbered an IPv4 route's next hop
is the neighbour's IPv6 link-local address (`afi: ipv6`) and the port it was learnt on, which says the
neighbour. It registers no platform; the platforms that run FRR read with it.
"""

from __future__ import annotations

import json
import re

from netcfg.model import InstalledRoute, NextHop
from netcfg.platforms.routes import RouteTable, read_json

_PREFIX = re.compile(r"[0-9a-fA-F.:]+/\d{1,3}")
_SHAPE = "expected FRR's `{}`: an object of prefixes, each a list of route entries"


def read_routes(text: str) -> RouteTable:
    """The IPv4 routes zebra installed in the default VRF, each by its FIB next hops."""
    return _read(text, "show ip route json")


def read_routes6(text: str) -> RouteTable:
    """The IPv6 routes zebra installed in the default VRF, each by its FIB next hops."""
    return _read(text, "show ipv6 route json")


def _read(text: str, cli: str) -> RouteTable:
    shape = _SHAPE.format(cli)
    data = read_json(text, f"`{cli}`")
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return shape
    routes = []
    for prefix, entries in data.items():
        if not _PREFIX.fullmatch(prefix) or not isinstance(entries, list):
            return f"{prefix[:60]!r}: {shape}"
        for entry in entries:
            if not isinstance(entry, dict):
                return f"{prefix}: {shape}"
            if entry.get("vrfName", "default") != "default":
                break
            if not (entry.get("selected") and entry.get("installed", True)):
                continue
            hops = _next_hops(entry.get("nexthops"))
            if hops is None:
                return f"{prefix}: a `nexthops` that is not a list of objects"
            routes.append(InstalledRoute(prefix, str(entry.get("protocol", "unknown")), hops))
            break
    return routes


def _next_hops(found: object) -> tuple[NextHop, ...] | None:
    """The next hops that forward: in the FIB (`fib`), or active where zebra prints no `fib`."""
    if not isinstance(found, list) or not all(isinstance(hop, dict) for hop in found):
        return None
    return tuple(
        NextHop(_text(hop.get("ip")), _text(hop.get("interfaceName")))
        for hop in found
        if hop.get("fib", hop.get("active", False))
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def render_routes(routes: list[InstalledRoute], family: int = 4) -> str:
    """`show ip route json` (`show ipv6 route json`) of a default VRF holding these routes, as zebra
    prints it (for the lab)."""
    afi = f"ipv{family}"
    table = {}
    for route in routes:
        connected = route.attached
        table[route.prefix] = [
            {
                "prefix": route.prefix,
                "prefixLen": int(route.prefix.rsplit("/", 1)[1]),
                "protocol": route.protocol,
                "vrfId": 0,
                "vrfName": "default",
                "selected": True,
                "destSelected": True,
                "distance": 0 if connected else 20,
                "metric": 0,
                "installed": True,
                "table": 254,
                "internalStatus": 16,
                "internalFlags": 8,
                "internalNextHopNum": len(route.next_hops),
                "internalNextHopActiveNum": len(route.next_hops),
                "uptime": "1d02h11m",
                "nexthops": [
                    {
                        "flags": 3,
                        "fib": True,
                        **({"directlyConnected": True} if connected else {"ip": hop.address, "afi": afi}),
                        "interfaceName": hop.interface,
                        "active": True,
                        **({} if connected else {"weight": 1}),
                    }
                    for hop in route.next_hops
                ],
            }
        ]
    return json.dumps(table, indent=2) + "\n"
