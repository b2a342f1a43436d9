"""Cabling-plan rules: the inventory's own cabling against the rail-optimised design.

They read only the Fabric, so they hold for every source of state, and run before everything else:
a plan that puts NIC 2 on the leaf of rail 1 makes every later verdict about that cable moot. The
compact form builds its cabling by rule and passes them by construction; an explicit inventory's
cabling CSV (a DCIM export) is where they find mistakes. Findings name the CSV row.
"""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.model import Endpoint, Fabric, Link, Role
from netcfg.rules import CheckContext, Issue, Severity, rule

# The tiers a cable may join: hosts to leaves, leaves to spines, spines to super-spines.
_ADJACENT = {
    frozenset({Role.HOST, Role.LEAF}),
    frozenset({Role.LEAF, Role.SPINE}),
    frozenset({Role.SPINE, Role.SUPERSPINE}),
}
_UPLINK = {Role.HOST: "a leaf", Role.LEAF: "a host or a spine", Role.SPINE: "a leaf or a super-spine"}


def _row(fabric: Fabric, end: Endpoint) -> str:
    where = fabric.cabling_rows.get(end)
    return f" ({where})" if where else ""


def _at(fabric: Fabric, end: Endpoint) -> dict[str, object]:
    """The CSV row of a cable as an Issue's file and line, so reports point at the row to fix."""
    return _location(fabric.cabling_rows.get(end))


def _location(where: str | None) -> dict[str, object]:
    path, _, line = (where or "").rpartition(":")
    return {"file": path, "line": int(line)} if path and line.isdigit() else {}


@rule("plan.tier", Severity.ERROR, scope="fabric", facet=None)
def check_tier(ctx: CheckContext) -> Iterator[Issue]:
    """Every cable joins adjacent tiers of the plan: a host NIC to a leaf, a leaf to a spine, a spine to
    a super-spine. A host cabled to a spine or to another host, or a device cabled to itself, is
    reported on its lower end."""
    fabric = ctx.fabric
    for link in fabric.links:
        a, b = fabric.devices[link.a.device], fabric.devices[link.b.device]
        if a.name == b.name:
            problem = f"is cabled to another port of the same device ({link.b})"
        elif frozenset({a.role, b.role}) in _ADJACENT:
            continue
        else:
            problem = f"is cabled to {b.role.value} port {link.b}"
        uplink = _UPLINK.get(a.role, "a spine")
        yield Issue(
            a.name,
            link.a.interface,
            f"{a.role.value} port cabled to {uplink}",
            f"{b.role.value} {link.b}",
            f"{a.role.value} port {link.a} {problem}{_row(fabric, link.a)}; a {a.role.value} connects to "
            + uplink,
            **_at(fabric, link.a),
        )


@rule("plan.rail_mismatch", Severity.ERROR, scope="fabric", facet=None)
def check_rail_mismatch(ctx: CheckContext) -> Iterator[Issue]:
    """NIC i of every server is cabled to a leaf of rail i. A NIC on the leaf of another rail, or on
    a leaf whose rail the inventory does not say, breaks the rail-optimised design."""
    fabric = ctx.fabric
    for host in fabric.by_role(Role.HOST):
        for nic in host.nics:
            end = Endpoint(host.name, nic.netdev)
            peer = fabric.peer(end)
            leaf = fabric.devices[peer.device] if peer is not None else None
            if leaf is None or leaf.role != Role.LEAF or leaf.rail == nic.rail:
                continue
            rail = f"rail {leaf.rail}" if leaf.rail is not None else "no rail in the inventory"
            yield Issue(
                host.name,
                nic.netdev,
                f"a leaf of rail {nic.rail}",
                f"{leaf.name} ({rail})",
                f"NIC {end} of rail {nic.rail} is cabled to {peer}, a leaf of {rail}{_row(fabric, end)}",
                **_at(fabric, end),
            )


@rule("plan.su_mismatch", Severity.WARNING, scope="fabric", facet=None)
def check_su_mismatch(ctx: CheckContext) -> Iterator[Issue]:
    """A server is cabled to the leaves of its own scalable unit (where the inventory gives both SUs)."""
    fabric = ctx.fabric
    for host in fabric.by_role(Role.HOST):
        for local, _, remote in fabric.links_of(host.name):
            leaf = fabric.devices[remote.device]
            if leaf.role == Role.LEAF and None not in (host.su, leaf.su) and host.su != leaf.su:
                yield Issue(
                    host.name,
                    local.interface,
                    f"a leaf of SU {host.su}",
                    f"{leaf.name} (SU {leaf.su})",
                    f"{local} of SU {host.su} is cabled to {remote}, a leaf of SU {leaf.su}"
                    f"{_row(fabric, local)}",
                    **_at(fabric, local),
                )


@rule("plan.nic_uncabled", Severity.ERROR, scope="fabric", facet=None)
def check_nic_uncabled(ctx: CheckContext) -> Iterator[Issue]:
    """Every NIC of every server has a cable in the plan: a NIC without one is missing from its rail,
    and nothing about it would be checked."""
    fabric = ctx.fabric
    for host in fabric.by_role(Role.HOST):
        for nic in host.nics:
            if fabric.peer(Endpoint(host.name, nic.netdev)) is None:
                yield Issue(
                    host.name,
                    nic.netdev,
                    f"a cable to a leaf of rail {nic.rail}",
                    "no cable",
                    f"NIC {host.name}:{nic.netdev} of rail {nic.rail} has no cable in the plan",
                )


@rule("plan.host_port", Severity.ERROR, scope="fabric", facet=None)
def check_host_port(ctx: CheckContext) -> Iterator[Issue]:
    """A server is cabled only on the NICs the inventory lists: a cable on another interface reaches a
    port that netcfg neither configures nor checks."""
    fabric = ctx.fabric
    for host in fabric.by_role(Role.HOST):
        nics = {nic.netdev for nic in host.nics}
        for local, _, remote in fabric.links_of(host.name):
            if local.interface not in nics:
                yield Issue(
                    host.name,
                    local.interface,
                    "one of " + (", ".join(sorted(nics)) or "its NICs (none listed)"),
                    local.interface,
                    f"{local} (to {remote}) is not a NIC of {host.name} in the inventory"
                    + _row(fabric, local),
                    **_at(fabric, local),
                )


@rule("plan.rail_without_leaf", Severity.ERROR, scope="fabric", facet=None)
def check_rail_without_leaf(ctx: CheckContext) -> Iterator[Issue]:
    """Every rail of the fabric has at least one leaf."""
    fabric = ctx.fabric
    rails = {d.rail for d in fabric.by_role(Role.LEAF)}
    for rail in range(1, fabric.rails + 1):
        if rail not in rails:
            yield Issue(
                "(fabric)",
                None,
                f"a leaf of rail {rail}",
                "none",
                f"rail {rail} of {fabric.rails} has no leaf in the inventory",
            )


@rule("plan.duplicate_link", Severity.WARNING, scope="fabric", facet=None)
def check_duplicate_link(ctx: CheckContext) -> Iterator[Issue]:
    """A cable is listed once. A repeated row (the same two ports, either way round) is ignored; one
    that disagrees with the first on speed or length is an error, as the plan is then ambiguous."""
    for link, where, first in ctx.fabric.repeated_links:
        kept = ctx.fabric.link_at(link.a)
        assert kept is not None  # a repeat is only recorded for a cable already listed
        conflict = _differs(kept, link)
        yield Issue(
            link.a.device,
            link.a.interface,
            "each cable listed once",
            f"listed again at {where}",
            f"cable {link.a} - {link.b} at {where} repeats {first}"
            + (f"; they disagree on {conflict}, the first is used" if conflict else ""),
            Severity.ERROR if conflict else None,
            **_location(where),
        )


def _differs(first: Link, again: Link) -> str:
    parts = []
    if first.speed_gbps != again.speed_gbps:
        parts.append(f"speed ({first.speed_gbps} vs {again.speed_gbps} Gb/s)")
    if first.cable_m != again.cable_m:
        parts.append(f"length ({first.cable_m:g} vs {again.cable_m:g} m)")
    return " and ".join(parts)
