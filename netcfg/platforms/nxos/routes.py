"""NX-OS's route table, `show ip route` as text: a section per VRF (`IP Route Table for VRF
"default"`), each route a line `prefix, ubest/mbest: N/M[, attached]` followed by its paths, one
`via` line each; a `*via` is a best unicast path (ECMP: several). Only the default VRF is read."""

from __future__ import annotations

import re

from netcfg.model import InstalledRoute, NextHop
from netcfg.platforms.nxos.text import normal_name
from netcfg.platforms.routes import RouteTable

_VRF = re.compile(r'IP Route Table for VRF "([^"]+)"')
_ROUTE = re.compile(r"([0-9a-fA-F.:]+/\d{1,3}), ubest/mbest: \d+/\d+.*")
# `*via 10.0.0.1, Eth1/49, [20/0], 1d02h, bgp-65100, external, tag 65100`; the interface is left
# out of a recursive path, and a path to a null interface names no address.
_VIA = re.compile(r"(\*?)via ([^,\s]+),(?: ([^,\[\s]+),)? \[\d+/\d+\], [^,]+, ([^,\s]+).*")
_ADDRESS = re.compile(r"[0-9a-fA-F]*[.:][0-9a-fA-F.:]*")
# NX-OS's path types by what they are to netcfg (`bgp-65100`, `ospf-1`: the process after a dash).
_PROTOCOLS = {"direct": "connected", "local": "local", "static": "static", "bgp": "bgp"}


def read_routes(text: str) -> RouteTable:
    routes: list[InstalledRoute] = []
    vrf: str | None = None
    prefix: str | None = None
    kind = ""
    hops: list[NextHop] = []
    seen_table = False

    def close() -> None:
        if prefix is not None and vrf == "default" and hops:
            routes.append(InstalledRoute(prefix, kind, tuple(hops)))

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if found := _VRF.fullmatch(line):
            close()
            vrf, prefix, hops, seen_table = found.group(1), None, [], True
        elif found := _ROUTE.fullmatch(line):
            close()
            prefix, kind, hops = found.group(1), "", []
        elif line.startswith(("*via", "via")):
            via = _VIA.fullmatch(line)
            if via is None or prefix is None:
                return f"line {number}: {line[:80]!r}: expected '*via ADDRESS, [INTERFACE,] [x/y], AGE, TYPE'"
            best, first, interface, source = via.groups()
            kind = kind or _PROTOCOLS.get(source.split("-")[0], source)
            if best:
                address = first if _ADDRESS.fullmatch(first) else None
                port = interface if address is not None else (interface or first)
                hops.append(NextHop(address, normal_name(port) if port else None))
    close()
    if not seen_table:
        return "no 'IP Route Table for VRF' line: expected the text of `show ip route`"
    return routes


_HEADER = """IP Route Table for VRF "default"
'*' denotes best ucast next-hop
'**' denotes best mcast next-hop
'[x/y]' denotes [preference/metric]
'%<string>' in via output denotes VRF <string>

"""


def render_routes(routes: list[InstalledRoute]) -> str:
    """`show ip route` of a default VRF holding these routes, as NX-OS prints it (for the lab)."""
    lines = [_HEADER.rstrip("\n"), ""]
    for route in routes:
        attached = ", attached" if route.attached else ""
        lines.append(f"{route.prefix}, ubest/mbest: {len(route.next_hops)}/0{attached}")
        for hop in route.next_hops:
            port = (hop.interface or "").replace("Ethernet", "Eth", 1)
            if route.attached:
                own = route.prefix.split("/")[0]
                lines.append(f"    *via {own}, {port}, [0/0], 1d02h, direct")
            else:
                lines.append(f"    *via {hop.address}, {port}, [20/0], 1d02h, bgp-65000, external, tag 65000")
    return "\n".join(lines) + "\n"
