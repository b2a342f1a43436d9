"""The deadlock analysis of collected route tables, end to end: lab snapshots and a live collection
over SSH with `--routes`, read back by every switch platform's parser, judged by the lossless rules;
and the analysis held to the whole channel dependency graph built afresh with networkx."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.checks.runner import run_checks
from netcfg.collect import CollectOptions, collect
from netcfg.forwarding import analyse_routes
from netcfg.lab.devices import load_faults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.lab.routes import lab_routes, leaf_subnets
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.model import DeviceState, Endpoint, InstalledRoute, NextHop
from netcfg.nornir_inventory import Login, read_connections
from netcfg.platforms import get_platform
from netcfg.sources import snapshot_states

ROOT = Path(__file__).resolve().parents[1]
DEADLOCK = ROOT / "inventories" / "lab-deadlock"
MULTI = ROOT / "inventories" / "lab-multi"
ROUTE_RULES = ("lossless.route_cbd", "lossless.route_valley", "lossless.route_unknown")
# The cycle of Hu et al. (HotNets 2016) the deadlock lab's routes.yaml installs, channel by channel.
DEADLOCK_CYCLE = (
    "leaf-su1-r3:Ethernet32>spine2:Ethernet3 -> spine2:Ethernet4>leaf-su1-r4:Ethernet32 -> "
    "leaf-su1-r4:Ethernet31>spine1:Ethernet4 -> spine1:Ethernet3>leaf-su1-r3:Ethernet31"
)


# The valleys the deadlock lab's routes.yaml installs, in each family, at the two leaves that turn.
R3_V4 = ("lossless.route_valley", "leaf-su1-r3", "Ethernet32", "172.16.0.0/24 via 10.128.0.10 Ethernet32")
R3_V6 = (
    "lossless.route_valley",
    "leaf-su1-r3",
    "Ethernet32",
    "2001:db8:172::/64 via 2001:db8:128::a Ethernet32",
)
R4_V4 = ("lossless.route_valley", "leaf-su1-r4", "Ethernet31", "172.16.1.0/24 via 10.128.0.12 Ethernet31")
R4_V6 = (
    "lossless.route_valley",
    "leaf-su1-r4",
    "Ethernet31",
    "2001:db8:172:1::/64 via 2001:db8:128::c Ethernet31",
)


def _findings(fabric, snapshot: Path):
    from netcfg.cli import load

    _, policy = load(fabric.source)
    states = snapshot_states(fabric, snapshot)
    return [f for f in run_checks(fabric, policy, states) if f.rule in ROUTE_RULES]


def _snapshot(tmp_path: Path, inventory: Path, faults: Path | None = None) -> tuple[object, Path]:
    from netcfg.cli import load

    fabric, policy = load(str(inventory))
    out = write_simulated_snapshot(
        fabric, policy, load_faults(faults, fabric), tmp_path / "snap", routes=True
    )
    return fabric, out


def _table_file(fabric, device: str, family: int) -> str:
    """The snapshot file of a switch's route table of `family`."""
    sources = get_platform(fabric.devices[device].platform).route_tables
    return next(f"{s.command.file}.txt" for s in sources if s.family == family)


def _rows(findings) -> list[tuple[str, str, str | None, str]]:
    return sorted((f.rule, f.device, f.interface, f.actual) for f in findings)


def test_a_clean_table_gives_no_finding(tmp_path):
    fabric, snap = _snapshot(tmp_path, DEADLOCK / "shared-asn.yaml")
    states = snapshot_states(fabric, snap)
    assert all(states[name].routes and states[name].routes6 for name in ("spine1", "spine2", "leaf-su1-r1"))
    assert _findings(fabric, snap) == []
    found = analyse_routes(fabric, states)
    # The lab is dual-stack: each leaf's IPv4 and IPv6 subnet is a destination.
    assert (found.destinations, found.unknown, found.valleys, found.cycle) == (8, [], [], None)


def test_installed_valley_routes_give_exactly_their_valleys_and_cycle(tmp_path):
    fabric, snap = _snapshot(tmp_path, DEADLOCK / "shared-asn.yaml", DEADLOCK / "routes.yaml")
    findings = _findings(fabric, snap)
    assert _rows(findings) == [
        ("lossless.route_cbd", "leaf-su1-r3", "Ethernet32", "4-channel cycle"),
        R3_V4,
        R3_V6,
        R4_V4,
        R4_V6,
    ]
    cbd = next(f for f in findings if f.rule == "lossless.route_cbd")
    assert DEADLOCK_CYCLE in cbd.message
    valley = next(f for f in findings if f.rule == "lossless.route_valley" and f.device == "leaf-su1-r3")
    assert "spine1 sends traffic toward 172.16.0.0/24 down here" in valley.message
    assert "up again to spine2" in valley.message


def test_a_missing_table_gives_no_verdict_through_that_switch(tmp_path):
    fabric, snap = _snapshot(tmp_path, DEADLOCK / "shared-asn.yaml", DEADLOCK / "routes.yaml")
    (snap / "spine1" / _table_file(fabric, "spine1", 4)).unlink()
    (snap / "spine1" / _table_file(fabric, "spine1", 6)).unlink()
    findings = _findings(fabric, snap)
    # spine2's route down to leaf-su1-r4 and its route up are both shown: that valley stands. The
    # one that bounces off leaf-su1-r3 starts at spine1, whose table is unknown; so is the cycle.
    assert _rows(findings) == [
        ("lossless.route_unknown", "(fabric)", None, "1 of 6 switches without one"),
        R4_V4,
        R4_V6,
    ]
    unknown = next(f for f in findings if f.rule == "lossless.route_unknown")
    assert "no route table from spine1: 8 of 8 destinations get no verdict" in unknown.message


def test_a_missing_ipv6_table_leaves_only_the_ipv6_destinations_unknown(tmp_path):
    """A switch that showed its IPv4 table but not its IPv6 one: the IPv4 valleys and cycle through
    it are judged, the IPv6 destinations whose traffic crosses it are unknown, never clean."""
    fabric, snap = _snapshot(tmp_path, DEADLOCK / "shared-asn.yaml", DEADLOCK / "routes.yaml")
    (snap / "spine1" / _table_file(fabric, "spine1", 6)).unlink()
    findings = _findings(fabric, snap)
    assert _rows(findings) == [
        ("lossless.route_cbd", "leaf-su1-r3", "Ethernet32", "4-channel cycle"),
        ("lossless.route_unknown", "(fabric)", None, "1 of 6 switches without one"),
        R3_V4,
        R4_V4,
        R4_V6,
    ]
    unknown = next(f for f in findings if f.rule == "lossless.route_unknown")
    assert "no IPv6 route table from spine1: 4 of 8 destinations get no verdict" in unknown.message


def test_a_clean_fabric_with_one_table_missing_is_unknown_not_clean(tmp_path):
    fabric, snap = _snapshot(tmp_path, DEADLOCK / "shared-asn.yaml")
    (snap / "leaf-su1-r2" / "show_ip_route.txt").unlink()
    assert _rows(_findings(fabric, snap)) == [
        ("lossless.route_unknown", "(fabric)", None, "1 of 6 switches without one"),
    ]


def test_without_route_tables_nothing_is_judged_or_named(tmp_path):
    from netcfg.cli import load

    fabric, policy = load(str(DEADLOCK / "shared-asn.yaml"))
    snap = write_simulated_snapshot(fabric, policy, {}, tmp_path / "snap")
    assert not any((snap / "spine1").glob("show_ip_route*"))
    assert _findings(fabric, snap) == []
    assert analyse_routes(fabric, snapshot_states(fabric, snap)) is None


def test_an_unreadable_table_is_named_once_and_unknown(tmp_path):
    from netcfg.cli import load

    fabric, snap = _snapshot(tmp_path, DEADLOCK / "shared-asn.yaml")
    (snap / "spine2" / "show_ip_route.txt").write_text("% Invalid input (privileged mode required)\n")
    _, policy = load(fabric.source)
    findings = run_checks(fabric, policy, snapshot_states(fabric, snap))
    named = [(f.rule, f.device) for f in findings if "show ip route" in f.message or f.rule in ROUTE_RULES]
    assert sorted(named) == [("lossless.route_unknown", "(fabric)"), ("parse.unknown_output", "spine2")]


LOGIN = Login("auditor", "routes-Lab-pass")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    from netcfg.cli import load

    fabric, policy = load(str(MULTI / "fabric.yaml"))
    faults = load_faults(MULTI / "routes.yaml", fabric)
    with lab_server(fabric, policy, faults, LOGIN.username, LOGIN.password) as server:
        connections, known_hosts = write_connection_files(server, tmp_path_factory.mktemp("lab"))
        out = tmp_path_factory.mktemp("collect")
        found = {}
        for routes in (False, True):
            opts = CollectOptions(workers=20, timeout_s=3.0, known_hosts=known_hosts, routes=routes)
            found[routes], _ = collect(
                fabric, LOGIN, out / f"routes-{routes}", opts, connections=read_connections(connections)
            )
        yield fabric, policy, found


def test_live_collection_with_routes_reads_every_platforms_table_over_ssh(mixed):
    fabric, policy, found = mixed
    states = snapshot_states(fabric, found[True])
    switches = [d for d in fabric.devices.values() if d.is_switch]
    assert {d.platform for d in switches} == {"eos", "cumulus", "sonic", "nxos", "junos"}
    for device in switches:
        state = states[device.name]
        assert state.routes and state.routes6, device.name
        assert not {s.command.cli for s in get_platform(device.platform).route_tables} & set(state.unparsed)
    # What each switch installed, in each family, is what the lab's eBGP (with the faults' routes)
    # gave it: each platform's IPv6 table read as its IPv4 one.
    for family, field in ((4, "routes"), (6, "routes6")):
        tables = lab_routes(fabric, family)
        for device in switches:
            read = getattr(states[device.name], field)
            faulted = {r.prefix for r in tables[device.name]} - {r.prefix for r in read}
            assert not faulted, (device.name, family)
    leaf = states["leaf-su2-r2"]
    for family, read in ((4, leaf.routes), (6, leaf.routes6)):
        assert {r.prefix: r.next_hops for r in read} == {
            r.prefix: r.next_hops for r in lab_routes(fabric, family)["leaf-su2-r2"]
        }
    assert _rows(f for f in run_checks(fabric, policy, states) if f.rule in ROUTE_RULES) == [
        ("lossless.route_cbd", "leaf-su1-r3", "Ethernet32", "4-channel cycle"),
        ("lossless.route_valley", "leaf-su1-r3", "Ethernet32", "172.16.0.0/24 via 10.128.0.10 Ethernet32"),
        (
            "lossless.route_valley",
            "leaf-su1-r3",
            "Ethernet32",
            "2001:db8:172::/64 via 2001:db8:128::a Ethernet32",
        ),
        (
            "lossless.route_valley",
            "leaf-su1-r4",
            "Ethernet1/31",
            "172.16.1.0/24 via 10.128.0.12 Ethernet1/31",
        ),
        (
            "lossless.route_valley",
            "leaf-su1-r4",
            "Ethernet1/31",
            "2001:db8:172:1::/64 via 2001:db8:128::c Ethernet1/31",
        ),
    ]


def test_default_collection_does_not_ask_for_route_tables(mixed):
    fabric, _, found = mixed
    states = snapshot_states(fabric, found[False])
    assert all(s.routes is None and s.routes6 is None for s in states.values())
    for device in fabric.devices.values():
        for source in get_platform(device.platform).route_tables:
            assert not list((found[False]).glob(f"{device.name}*/{source.command.file}*"))


# --- the analysis against the whole channel dependency graph -----------------------------------


def _oracle(fabric, states: dict[str, DeviceState]) -> tuple[set[tuple[str, str, str]], bool]:
    """Every down-up turn that traffic takes and whether the channel dependency graph has a cycle,
    from the tables alone: each destination followed from every other leaf, hop by hop."""
    tier = {"leaf": 1, "spine": 2, "superspine": 3}
    switches = {d.name: tier[d.role.value] for d in fabric.devices.values() if d.is_switch}
    owner = {prefix: leaf for leaf, (prefix, _) in leaf_subnets(fabric).items()}

    def hops(device: str, prefix: str) -> list[str]:
        route = next((r for r in states[device].routes if r.prefix == prefix), None)
        if route is None:
            return []
        far = (fabric.peer(Endpoint(device, h.interface)) for h in route.next_hops)
        return sorted({e.device for e in far if e is not None and e.device in switches})

    graph = nx.DiGraph()
    turns = set()
    for prefix, dest in owner.items():
        carried = set()
        frontier = [
            (leaf, nxt)
            for leaf in switches
            if switches[leaf] == 1 and leaf != dest
            for nxt in hops(leaf, prefix)
        ]
        while frontier:
            channel = frontier.pop()
            if channel in carried:
                continue
            carried.add(channel)
            tail, node = channel
            if node == dest:
                continue
            for nxt in hops(node, prefix):
                graph.add_edge(channel, (node, nxt))
                frontier.append((node, nxt))
                if switches[tail] > switches[node] < switches[nxt]:
                    turns.add((tail, node, nxt))
    return turns, not nx.is_directed_acyclic_graph(graph)


@pytest.fixture(scope="module")
def small():
    from netcfg.cli import load

    fabric, _ = load(str(DEADLOCK / "shared-asn.yaml"))
    return fabric, lab_routes(fabric)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_valleys_and_cycles_match_the_whole_graph(small, data):
    """Random routes installed in place of the lab's eBGP ones: the analysis names exactly the
    down-up turns traffic takes, and a cycle exactly where the whole graph has one."""
    from netcfg.lab.routes import installed

    fabric, tables = small
    switches = [d.name for d in fabric.devices.values() if d.is_switch]
    subnets = leaf_subnets(fabric)
    ports = {
        s: [local.interface for local, _, remote in fabric.links_of(s) if remote.device in switches]
        for s in switches
    }
    changed = dict(tables)
    for _ in range(data.draw(st.integers(1, 6))):
        device = data.draw(st.sampled_from(switches))
        leaf = data.draw(st.sampled_from(sorted(subnets)))
        if leaf == device:
            continue
        chosen = data.draw(st.lists(st.sampled_from(ports[device]), min_size=1, max_size=2, unique=True))
        changed[device] = installed(fabric, device, changed[device], [f"{leaf} {','.join(chosen)}"])
    states = {s: DeviceState(s, fabric.devices[s].platform, routes=changed[s]) for s in switches}
    found = analyse_routes(fabric, states)
    turns, cyclic = _oracle(fabric, states)
    assert {(v.sender, v.device, v.toward) for v in found.valleys} == turns
    assert (found.cycle is not None) == cyclic
    if found.cycle is not None:
        # The witness is a cycle: each channel ends where the next one starts.
        for (_, head), (tail, _) in itertools.pairwise([*found.cycle, found.cycle[0]]):
            assert head.device == tail.device


def test_a_next_hop_by_address_alone_resolves_through_the_switchs_subnets(small):
    """NX-OS prints a recursive BGP path without its port: the address finds it among the switch's
    connected subnets; an address in none of them leaves the destination's traffic unknown."""
    fabric, tables = small
    switches = [d.name for d in fabric.devices.values() if d.is_switch]

    def analysed(hops_of):
        routes = {
            s: [
                dataclasses.replace(r, next_hops=hops_of(r.next_hops)) if r.protocol == "bgp" else r
                for r in tables[s]
            ]
            for s in switches
        }
        return analyse_routes(fabric, {s: DeviceState(s, "nxos", routes=routes[s]) for s in switches})

    by_address = analysed(lambda hops: tuple(NextHop(h.address, None) for h in hops))
    assert (by_address.unknown, by_address.valleys, by_address.unresolved) == ([], [], [])
    elsewhere = analysed(lambda hops: tuple(NextHop("192.0.2.1", None) for _ in hops))
    assert elsewhere.unresolved == switches
    assert sorted(elsewhere.unknown) == sorted(p for p, _ in leaf_subnets(fabric).values())


def _dual_stack(fabric, faults: dict[str, list[str]]) -> dict[str, DeviceState]:
    from netcfg.lab.routes import LabRoutes

    tables = LabRoutes(fabric, faults)
    return {
        d.name: DeviceState(
            d.name, d.platform, routes=tables.table(d.name, 4), routes6=tables.table(d.name, 6)
        )
        for d in fabric.devices.values()
        if d.is_switch
    }


def test_bgp_unnumbered_next_hops_reach_the_neighbour_at_the_far_end_of_their_port(small):
    """IPv4 routes learnt over IPv6 link-local sessions (BGP unnumbered, as FRR prints them) name
    the neighbour's fe80:: address and the port: the port says which neighbour, and the valleys and
    cycle are those of numbered next hops. A link-local address without its port says nothing (every
    port holds fe80::/64), so the traffic it carries is unknown."""
    fabric, _ = small
    faults = load_faults(DEADLOCK / "routes.yaml", fabric)
    numbered = _dual_stack(fabric, {n: f.installed_routes for n, f in faults.items() if f.installed_routes})

    def unnumbered(keep_port: bool) -> dict[str, DeviceState]:
        found = {}
        for name, state in numbered.items():
            routes = [
                dataclasses.replace(
                    r,
                    next_hops=tuple(
                        NextHop(f"fe80::{i + 1:x}", h.interface if keep_port else None)
                        for i, h in enumerate(r.next_hops)
                    ),
                )
                if r.protocol == "bgp"
                else r
                for r in state.routes
            ]
            # Every port's link-local subnet, as zebra installs it.
            links = [r for r in state.routes6 if r.protocol == "connected"]
            local = [InstalledRoute("fe80::/64", "connected", r.next_hops) for r in links[:1]]
            found[name] = dataclasses.replace(state, routes=routes, routes6=[*state.routes6, *local])
        return found

    expected = analyse_routes(fabric, numbered)
    by_port = analyse_routes(fabric, unnumbered(True))
    assert expected.cycle is not None
    assert {(v.sender, v.device, v.toward, v.destination) for v in by_port.valleys} == {
        (v.sender, v.device, v.toward, v.destination) for v in expected.valleys
    }
    assert (by_port.cycle, by_port.unknown, by_port.unresolved) == (expected.cycle, [], [])
    assert all(v.next_hop.address.startswith("fe80::") for v in by_port.valleys if "." in v.destination)
    portless = analyse_routes(fabric, unnumbered(False))
    assert sorted(portless.unknown) == sorted(p for p, _ in leaf_subnets(fabric, 4).values())
    assert portless.unresolved


def test_a_destination_is_matched_by_routes_of_its_own_family_only(small):
    """A leaf without an IPv6 route toward a subnet drops that IPv6 traffic even where an IPv4 default
    route would send it up: the IPv4 valley is named, no IPv6 one."""
    fabric, _ = small
    faults = {"spine1": ["leaf-su1-r1 Ethernet3"], "leaf-su1-r3": ["0.0.0.0/0 Ethernet32"]}
    states = _dual_stack(fabric, faults)
    v4, v6 = leaf_subnets(fabric, 4)["leaf-su1-r1"][0], leaf_subnets(fabric, 6)["leaf-su1-r1"][0]
    turning = states["leaf-su1-r3"]
    states["leaf-su1-r3"] = dataclasses.replace(
        turning,
        routes=[r for r in turning.routes if r.prefix != v4],
        routes6=[r for r in turning.routes6 if r.prefix != v6],
    )
    found = analyse_routes(fabric, states)
    assert [(v.sender, v.device, v.toward, v.destination, v.prefix) for v in found.valleys] == [
        ("spine1", "leaf-su1-r3", "spine2", v4, "0.0.0.0/0")
    ]
    assert found.unknown == []
