"""The deadlock analysis against an oracle written from its definition: on small generated Clos fabrics
(two or three tiers, irregular cabling, parallel links, shared or unique ASNs, links seen down), the
verdict of a scenario (every one of a small fabric, a hundred spread over a larger one's) equals that
of the whole channel dependency graph built afresh with networkx."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.deadlock import DeadlockModel, analyse, scenarios
from netcfg.model import BgpPlan, Device, Endpoint, Fabric, Link, Role

TIER = {Role.LEAF: 1, Role.SPINE: 2, Role.SUPERSPINE: 3}


@st.composite
def fabrics(draw) -> Fabric:
    """SUs of leaves and spines, spine p of every SU joined to the super-spines of plane p; some cables
    left out and some doubled, so that not every device has a twin."""
    sus, leaves, spines = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    per_plane = draw(st.integers(0 if sus == 1 else 1, 2))
    devices: dict[str, Device] = {}
    pairs: list[tuple[str, str]] = []
    for su in range(1, sus + 1):
        for s in range(1, spines + 1):
            devices[f"s{su}-{s}"] = Device(f"s{su}-{s}", Role.SPINE, "eos")
            pairs += [(f"s{su}-{s}", f"x{s}-{k}") for k in range(1, per_plane + 1)]
        for r in range(1, leaves + 1):
            devices[f"l{su}-{r}"] = Device(f"l{su}-{r}", Role.LEAF, "eos")
            pairs += [(f"l{su}-{r}", f"s{su}-{s}") for s in range(1, spines + 1)]
    for s in range(1, spines + 1):
        for k in range(1, per_plane + 1):
            devices[f"x{s}-{k}"] = Device(f"x{s}-{k}", Role.SUPERSPINE, "eos")
    missing = draw(st.sets(st.sampled_from(pairs), max_size=2)) if len(pairs) > 3 else set()
    links: list[Link] = []
    ports: dict[str, int] = {}
    for a, b in pairs:
        if (a, b) in missing:
            continue
        for _ in range(draw(st.integers(1, 2)) if a.startswith("l") else 1):
            ends = []
            for name in (a, b):
                ports[name] = ports.get(name, 0) + 1
                ends.append(Endpoint(name, f"Ethernet{ports[name]}"))
            links.append(Link(ends[0], ends[1], 400, 30))
    return Fabric("oracle", 1, devices, links, "roce-lossless")


def oracle_has_cycle(fabric: Fabric, plan: BgpPlan, failed: tuple[Link, ...]) -> tuple[bool, nx.DiGraph]:
    """eBGP best paths toward every leaf (shortest AS path, ECMP over ties, a route refused by a device
    above one whose route only goes up where that tier may not bounce), every channel dependency
    of traffic some leaf sends, and whether they close a cycle."""
    role = {name: d.role for name, d in fabric.devices.items() if d.role in TIER}
    alive = nx.Graph()
    gone = set(failed)
    for link in fabric.links:
        if link not in gone and link.a.device in role and link.b.device in role:
            alive.add_edge(link.a.device, link.b.device)
    graph = nx.DiGraph()
    for dest in (n for n in role if role[n] == Role.LEAF and n in alive):
        hops: dict[str, list[str]] = {dest: []}
        level = [dest]
        while level:
            found: dict[str, list[str]] = {}
            for node in level:
                only_up = node != dest and all(TIER[role[h]] > TIER[role[node]] for h in hops[node])
                refuses = only_up and not plan.valley_allowed(role[node])
                for other in alive[node]:
                    if other in hops or (refuses and TIER[role[other]] > TIER[role[node]]):
                        continue
                    found.setdefault(other, []).append(node)
            hops.update(found)
            level = list(found)
        routes = nx.DiGraph((node, h) for node, via in hops.items() for h in via)
        senders = [n for n in hops if role[n] == Role.LEAF and n != dest]
        carried = set(senders).union(*(nx.descendants(routes, s) for s in senders))
        for node in carried:
            for mid in hops[node]:
                for out in hops[mid]:
                    graph.add_edge((node, mid), (mid, out))
    return not nx.is_directed_acyclic_graph(graph), graph


@settings(max_examples=40, deadline=None)
@given(fabrics(), st.sampled_from(["shared", "unique"]), st.sampled_from(["shared", "unique"]), st.data())
def test_scenarios_have_the_verdict_of_the_whole_graph_built_afresh(fabric, spine, superspine, data):
    plan = BgpPlan(spine, superspine)
    switch = [link for link in fabric.links if link.a.device in fabric.devices]
    down = tuple(data.draw(st.lists(st.sampled_from(switch), max_size=3, unique=True))) if switch else ()
    model = DeadlockModel(fabric, plan)
    every = list(scenarios(fabric, down))
    verdicts = []
    for scenario in every:
        cyclic = model.verdict(scenario)[0]
        assert (model.cycle(scenario)[0] is not None) == cyclic, scenario.describe()
        verdicts.append(cyclic)
    # The oracle builds everything again for each scenario: it judges a hundred of them at most,
    # spread over all (a small fabric's every one), and the first one with a cycle.
    step = max(1, len(every) // 100)
    first = next((scenario for scenario, cyclic in zip(every, verdicts, strict=True) if cyclic), None)
    judged = {*every[::step], *([first] if first is not None else [])}
    for scenario, cyclic in zip(every, verdicts, strict=True):
        if scenario in judged:
            assert oracle_has_cycle(fabric, plan, scenario.links)[0] == cyclic, scenario.describe()
    found = analyse(fabric, plan, down)
    assert found.scenarios == len(every)
    assert found.with_cycle == sum(verdicts)
    assert (found.cycles[0].scenario if found.cycles else None) == first
    if first is not None:
        # The witness is a cycle of the oracle's graph: each channel waits on the next.
        _, graph = oracle_has_cycle(fabric, plan, first.links)
        ring = [(tail.device, head.device) for tail, head in found.cycles[0].channels]
        assert all(graph.has_edge(ring[i - 1], ring[i]) for i in range(len(ring)))


def test_two_failures_in_two_sus_close_a_cycle_over_the_super_spines(tmp_path):
    """Leaf 1 of SU 1 loses spine 1 and leaf 1 of SU 2 spine 2: with an ASN per spine each SU's other
    leaf bounces the traffic toward the cut-off leaf, and the two valleys wait on each other through
    the super-spines of both planes, devices no valley touches (a search kept to the valley devices
    misses it). The generator's fabric, beyond 64 switches."""
    from netcfg.deadlock import Scenario
    from netcfg.generate import write_generated_inventory
    from netcfg.inventory import load_fabric

    fabric = load_fabric(write_generated_inventory(tmp_path, "two-su", 32, 2, 2))
    plan = BgpPlan("unique", "shared")
    ends = {(link.a.device, link.b.device): link for link in fabric.links}
    failed = (ends["leaf-su1-r1", "spine-su1-1"], ends["leaf-su2-r1", "spine-su2-2"])
    cycle, _ = DeadlockModel(fabric, plan).cycle(Scenario("down now", failed))
    assert oracle_has_cycle(fabric, plan, failed)[0] and cycle is not None
    devices = [tail.device for tail, _ in cycle.channels]
    assert len(devices) == 8 and {"superspine-p1-1", "superspine-p2-1"} <= set(devices)
