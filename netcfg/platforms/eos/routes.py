"""EOS's route tables, `show ip route | json` and `show ipv6 route | json`: VRFs by name, each with
its routes by prefix, every route its type (`connected`, `static`, `eBGP`, ...) and the `vias` it
forwards by (an IPv6 route learnt over a link-local session names the neighbour's `fe80::` address
and the port). Only the default VRF carries the fabric; a management VRF printed with it is left out.
Older EOS releases print `show ipv6 route | json` without VRFs, the routes of the one VRF asked for
(the default, as collected) at the top (NAPALM's EOS driver reads it so)."""

from __future__ import annotations

import json
import re

from netcfg.model import InstalledRoute, NextHop
from netcfg.platforms.routes import RouteTable, read_json

_PREFIX = re.compile(r"[0-9a-fA-F.:]+/\d{1,3}")
# EOS's route types by what they are to netcfg; any other keeps EOS's own name.
_PROTOCOLS = {"connected": "connected", "static": "static", "eBGP": "bgp", "iBGP": "bgp", "bgp": "bgp"}
_SHAPE = "expected `{}`: {{'vrfs': {{'default': {{'routes': {{prefix: route}}}}}}}}{}"
IPV4 = "show ip route | json"
IPV6 = "show ipv6 route | json"


def read_routes(text: str) -> RouteTable:
    return _read(text, IPV4, bare=False)


def read_routes6(text: str) -> RouteTable:
    return _read(text, IPV6, bare=True)


def _read(text: str, cli: str, bare: bool) -> RouteTable:
    """The default VRF's routes; `bare`: the text may hold them at the top, without VRFs."""
    shape = _SHAPE.format(cli, " or {'routes': {prefix: route}}" if bare else "")
    data = read_json(text, f"`{cli}`")
    if isinstance(data, str):
        return data
    vrfs = data.get("vrfs") if isinstance(data, dict) else None
    vrf = vrfs.get("default") if isinstance(vrfs, dict) else None
    if bare and vrfs is None and isinstance(data, dict):
        vrf = data
    table = vrf.get("routes") if isinstance(vrf, dict) else None
    if not isinstance(table, dict):
        return shape
    routes = []
    for prefix, route in table.items():
        vias = route.get("vias", []) if isinstance(route, dict) else None
        if not _PREFIX.fullmatch(prefix) or not isinstance(vias, list):
            return f"{prefix[:60]!r}: {shape}"
        hops = []
        for via in vias:
            if not isinstance(via, dict):
                return f"{prefix}: a via that is not an object"
            hops.append(NextHop(_text(via.get("nexthopAddr")), _text(via.get("interface"))))
        kind = str(route.get("routeType", "unknown"))
        routes.append(InstalledRoute(prefix, _PROTOCOLS.get(kind, kind), tuple(hops)))
    return routes


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def render_routes(routes: list[InstalledRoute], family: int = 4) -> str:
    """`show ip route | json` (`show ipv6 route | json`) of a default VRF holding these routes, as
    EOS prints it (for the lab)."""
    table = {}
    for route in routes:
        kind = "eBGP" if route.protocol == "bgp" else route.protocol
        entry: dict[str, object] = {
            "kernelProgrammed": True,
            "directlyConnected": route.attached,
            "routeAction": "forward",
            "routeLeaked": False,
            "vias": [
                {k: v for k, v in (("nexthopAddr", hop.address), ("interface", hop.interface)) if v}
                for hop in route.next_hops
            ],
            "hardwareProgrammed": True,
            "routeType": kind,
        }
        if not route.attached:
            entry |= {"metric": 0, "preference": 200}
        table[route.prefix] = entry
    vrf: dict[str, object] = {
        "routes": table,
        "allRoutesProgrammedKernel": True,
        "routingDisabled": False,
        "allRoutesProgrammedHardware": True,
    }
    if family == 4:
        vrf["defaultRouteState"] = "notSet"
    return json.dumps({"vrfs": {"default": vrf}}, indent=4) + "\n"
