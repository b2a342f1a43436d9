"""NX-OS's route tables, `show ip route` and `show ipv6 route` as text: a section per VRF (`IP Route
Table for VRF "default"`, `IPv6 Routing Table for VRF "default"`), each route a line `prefix,
ubest/mbest: N/M[, attached]` followed by its paths, one `via` line each; a `*via` is a best unicast
path (ECMP: several). An IPv6 path learnt over a link-local session names the neighbour's `fe80::`
address and the port; a `%VRF` after an address names the VRF it resolves in. Only the default VRF
is read."""

from __future__ import annotations

import re

from netcfg.model import InstalledRoute, NextHop
from netcfg.platforms.nxos.text import normal_name
from netcfg.platforms.routes import RouteTable, TextTable

_VRF = re.compile(r'IP(?:v6)? Rout(?:e|ing) Table for VRF "([^"]+)"')
_ROUTE = re.compile(r"([0-9a-fA-F.:]+/\d{1,3}), ubest/mbest: \d+/\d+.*")
# `*via 10.0.0.1, Eth1/49, [20/0], 1d02h, bgp-65100, external, tag 65100`; the interface is left
# out of a recursive path, and a path to a null interface names no address.
_VIA = re.compile(r"(\*?)via ([^,\s]+),(?: ([^,\[\s]+),)? \[\d+/\d+\], [^,]+, ([^,\s]+).*")
_ADDRESS = re.compile(r"[0-9a-fA-F]*[.:][0-9a-fA-F.:]*")
# NX-OS's path types by what they are to netcfg (`bgp-65100`, `ospf-1`: the process after a dash).
_PROTOCOLS = {"direct": "connected", "local": "local", "static": "static", "bgp": "bgp"}


def read_routes(text: str) -> RouteTable:
    return _read(text, "show ip route")


def read_routes6(text: str) -> RouteTable:
    return _read(text, "show ipv6 route")


def _read(text: str, cli: str) -> RouteTable:
    table = TextTable("default")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if found := _VRF.fullmatch(line):
            table.begin_table(found.group(1))
        elif found := _ROUTE.fullmatch(line):
            table.begin_route(found.group(1))
        elif line.startswith(("*via", "via")):
            via = _VIA.fullmatch(line)
            if via is None or table.prefix is None:
                return f"line {number}: {line[:80]!r}: expected '*via ADDRESS, [INTERFACE,] [x/y], AGE, TYPE'"
            best, first, interface, source = via.groups()
            if best:
                table.protocol = table.protocol or _PROTOCOLS.get(source.split("-")[0], source)
                first = first.split("%", 1)[0]
                address = first if _ADDRESS.fullmatch(first) else None
                port = interface if address is not None else (interface or first)
                table.hops.append(NextHop(address, normal_name(port) if port else None))
    if not table.seen_table:
        return f"no 'Route Table for VRF' line: expected the text of `{cli}`"
    return table.routes()


_LEGEND = """'*' denotes best ucast next-hop
'**' denotes best mcast next-hop
'[x/y]' denotes [preference/metric]"""
# The IPv4 legend explains `%VRF`; the IPv6 one does not, and each `direct` path ends in a comma.
_HEADERS = {
    4: f"IP Route Table for VRF \"default\"\n{_LEGEND}\n'%<string>' in via output denotes VRF <string>",
    6: f'IPv6 Routing Table for VRF "default"\n{_LEGEND}',
}
_DIRECT = {4: "direct", 6: "direct,"}


def render_routes(routes: list[InstalledRoute], family: int = 4) -> str:
    """`show ip route` (`show ipv6 route`) of a default VRF holding these routes, as NX-OS prints it
    (for the lab)."""
    lines = [_HEADERS[family], ""]
    for route in routes:
        attached = ", attached" if route.attached else ""
        lines.append(f"{route.prefix}, ubest/mbest: {len(route.next_hops)}/0{attached}")
        for hop in route.next_hops:
            port = (hop.interface or "").replace("Ethernet", "Eth", 1)
            if route.attached:
                own = route.prefix.split("/")[0]
                lines.append(f"    *via {own}, {port}, [0/0], 1d02h, {_DIRECT[family]}")
            else:
                lines.append(f"    *via {hop.address}, {port}, [20/0], 1d02h, bgp-65000, external, tag 65000")
    return "\n".join(lines) + "\n"
