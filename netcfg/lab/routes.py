"""The route tables the lab's switches install: eBGP over every switch-to-switch link of the plan,
best paths by AS-path length with ECMP over every tie (RFC 7938), and the faults that install a route
of their own.

The lab's fabric is dual-stack, with addresses of its own: link k of the plan between two switches
is 10.128.0.0/31 + 2k and 2001:db8:128::/127 + 2k (the upper end holds the even address), and the
i-th leaf of the inventory owns 172.16.0.0/24 + i and 2001:db8:172:i::/64 on its first host port (a
leaf without hosts owns none). A leaf's subnet is advertised once; every other switch reaches it by
all its neighbours one AS hop closer.
"""

from __future__ import annotations

import ipaddress
from collections import deque

from netcfg.errors import InputError
from netcfg.model import Endpoint, Fabric, InstalledRoute, Link, NextHop, Role, port_sort_key

# Per address family: the first link's address, its prefix length, the first leaf subnet, its
# length, and how far apart two leaves' subnets are.
_PLAN = {
    4: (ipaddress.IPv4Address("10.128.0.0"), 31, ipaddress.IPv4Address("172.16.0.0"), 24, 1 << 8),
    6: (ipaddress.IPv6Address("2001:db8:128::"), 127, ipaddress.IPv6Address("2001:db8:172::"), 64, 1 << 64),
}


def _switch_links(fabric: Fabric) -> list[Link]:
    return [
        link
        for link in fabric.links
        if fabric.devices[link.a.device].is_switch and fabric.devices[link.b.device].is_switch
    ]


def addresses(fabric: Fabric, family: int = 4) -> dict[Endpoint, str]:
    """Each end of a switch-to-switch link and its address of `family` (4 or 6)."""
    first = _PLAN[family][0]
    found = {}
    for k, link in enumerate(_switch_links(fabric)):
        found[link.b] = str(first + 2 * k)
        found[link.a] = str(first + 2 * k + 1)
    return found


def leaf_subnets(fabric: Fabric, family: int = 4) -> dict[str, tuple[str, str]]:
    """Each leaf with hosts: its subnet of `family` (4 or 6) and the host port it is attached on."""
    _, _, first, length, step = _PLAN[family]
    found = {}
    for i, leaf in enumerate(fabric.by_role(Role.LEAF)):
        ports = sorted(
            (
                local.interface
                for local, _, remote in fabric.links_of(leaf.name)
                if not fabric.devices[remote.device].is_switch
            ),
            key=port_sort_key,
        )
        if ports:
            found[leaf.name] = (f"{first + step * i}/{length}", ports[0])
    return found


def lab_routes(fabric: Fabric, family: int = 4) -> dict[str, list[InstalledRoute]]:
    """Every switch's route table of `family` (4 or 6): its links' subnets (connected), its own
    subnet, and each other leaf's subnet by eBGP best paths."""
    address = addresses(fabric, family)
    first, length = _PLAN[family][:2]
    switches = [d.name for d in fabric.devices.values() if d.is_switch]
    ports: dict[str, dict[str, list[Endpoint]]] = {name: {} for name in switches}
    tables: dict[str, list[InstalledRoute]] = {name: [] for name in switches}
    for k, link in enumerate(_switch_links(fabric)):
        prefix = f"{first + 2 * k}/{length}"
        for local, remote in ((link.a, link.b), (link.b, link.a)):
            ports[local.device].setdefault(remote.device, []).append(local)
            tables[local.device].append(
                InstalledRoute(prefix, "connected", (NextHop(None, local.interface),))
            )
    subnets = leaf_subnets(fabric, family)
    # A switch reaches most leaves by the same neighbours (a leaf: all its spines): one tuple each.
    shared: dict[tuple[str, tuple[str, ...]], tuple[NextHop, ...]] = {}
    neighbours = {name: sorted(peers) for name, peers in ports.items()}
    for leaf, (prefix, port) in subnets.items():
        tables[leaf].append(InstalledRoute(prefix, "connected", (NextHop(None, port),)))
        for node, closer in _best_paths(neighbours, leaf).items():
            key = (node, tuple(closer))
            hops = shared.get(key)
            if hops is None:
                hops = shared[key] = tuple(
                    NextHop(address[fabric.peer(local)], local.interface)  # type: ignore[index]
                    for peer in closer
                    for local in ports[node][peer]
                )
            tables[node].append(InstalledRoute(prefix, "bgp", hops))
    return tables


def _best_paths(neighbours: dict[str, list[str]], dest: str) -> dict[str, list[str]]:
    """Each switch's neighbours one hop closer to `dest` (breadth first, ties kept: ECMP)."""
    dist = {dest: 0}
    closer: dict[str, list[str]] = {}
    queue = deque([dest])
    while queue:
        node = queue.popleft()
        for peer in neighbours[node]:
            if peer not in dist:
                dist[peer] = dist[node] + 1
                queue.append(peer)
            if dist[peer] == dist[node] + 1:
                closer.setdefault(peer, []).append(node)
    return closer


def installed(
    fabric: Fabric, device: str, table: list[InstalledRoute], routes: list[str], family: int = 4
) -> list[InstalledRoute]:
    """The table of `family` with each fault route in place of the one it replaces: `DEST
    PORT[,PORT...]`, DEST a prefix (of that family, or the route is the other table's) or a leaf's
    name (its subnet of the family), each port a planned link of the switch whose far end's address
    of the family is the next hop."""
    address = addresses(fabric, family)
    subnets = leaf_subnets(fabric, family)
    table = list(table)
    for n, text in enumerate(routes):
        where = f"faults: devices.{device}.installed_routes[{n}]"
        dest, _, listed = text.partition(" ")
        prefix = subnets[dest][0] if dest in subnets else dest
        try:
            version = ipaddress.ip_network(prefix).version
        except ValueError:
            raise InputError(where, f"{dest!r}: expected a prefix or the name of a leaf with hosts") from None
        hops = []
        for port in filter(None, listed.split(",")):
            far = fabric.peer(Endpoint(device, port))
            if far is None or far not in address:
                raise InputError(where, f"{port!r}: expected a port of a planned link to another switch")
            hops.append(NextHop(address[far], port))
        if not hops:
            raise InputError(where, "expected 'DEST PORT[,PORT...]'")
        if version != family:
            continue
        table = [r for r in table if r.prefix != prefix] + [InstalledRoute(prefix, "bgp", tuple(hops))]
    return table


class LabRoutes:
    """The lab fabric's route tables, worked out when a device is first asked for one (a lab of
    thousands of switches starts without them: only `--routes` asks), with the faults' routes."""

    def __init__(self, fabric: Fabric, faults: dict[str, list[str]]) -> None:
        self.fabric = fabric
        self.faults = faults
        self._tables: dict[int, dict[str, list[InstalledRoute]]] = {}
        for device, routes in faults.items():
            if not fabric.devices[device].is_switch:
                raise InputError(
                    f"faults: devices.{device}.installed_routes", f"expected a switch; {device} is a host"
                )
            installed(fabric, device, [], routes)  # refused now, not when a table is first asked for

    def table(self, device: str, family: int = 4) -> list[InstalledRoute]:
        if family not in self._tables:
            tables = lab_routes(self.fabric, family)
            for name, routes in self.faults.items():
                tables[name] = installed(self.fabric, name, tables[name], routes, family)
            self._tables[family] = tables
        return self._tables[family][device]
