"""PFC deadlock risk and valley routes: the deadlock lab audited live over SSH, config files checked
before a merge, and the analysis itself over any generated two-tier Clos."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.cli import main
from netcfg.deadlock import analyse, scenarios
from netcfg.model import BgpPlan, Device, Endpoint, Fabric, Link, Role
from netcfg.platforms.eos.parse import parse_config
from tests.conftest import ROOT

LAB = ROOT / "inventories" / "lab-deadlock"
FAILED = {"leaf-su1-r1:Ethernet31-spine1:Ethernet1", "leaf-su1-r2:Ethernet32-spine2:Ethernet2"}


def _findings(capsys) -> list[dict]:
    return json.loads(capsys.readouterr().out)["findings"]


def test_the_deadlock_demo_names_exactly_its_faults(tmp_path, capsys):
    assert main(["demo", str(LAB), "--format", "json", "--out", str(tmp_path)]) == 1
    findings = _findings(capsys)
    assert sorted((f["rule"], f["device"], f["interface"]) for f in findings) == [
        ("link.down", "leaf-su1-r1", "Ethernet31"),
        ("link.down", "leaf-su1-r2", "Ethernet32"),
        ("lossless.cbd", "leaf-su1-r3", "Ethernet32"),
        ("lossless.valley", "leaf-su1-r4", "Ethernet32"),
    ]
    cbd = next(f for f in findings if f["rule"] == "lossless.cbd")
    assert cbd["actual"] == "4-channel cycle"
    assert all(link in cbd["message"] for link in FAILED)
    assert "links down now" in cbd["message"]


def test_a_shared_spine_asn_with_the_same_failures_has_no_deadlock_finding(tmp_path, capsys):
    args = ["demo", str(LAB / "shared-asn.yaml"), "--faults", str(LAB / "failures.yaml")]
    assert main([*args, "--format", "json", "--out", str(tmp_path)]) == 1
    assert {f["rule"] for f in _findings(capsys)} == {"link.down"}


def test_a_static_route_toward_a_spine_is_named_at_its_config_line(tmp_path, capsys):
    assert main(["render", str(LAB / "shared-asn.yaml"), "-o", str(tmp_path)]) == 0
    config = tmp_path / "leaf-su1-r2.cfg"
    lines = config.read_text(encoding="utf-8").splitlines()
    at = lines.index("end")
    lines[at:at] = ["ip route 10.0.0.0/8 Null0", "ip route 0.0.0.0/0 Ethernet31 200"]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    code = main(["lossless", str(LAB / "shared-asn.yaml"), "--configs", str(tmp_path), "--format", "json"])
    findings = _findings(capsys)
    assert code == 1
    assert [(f["rule"], f["device"], f["interface"], f["line"]) for f in findings] == [
        ("lossless.valley", "leaf-su1-r2", "Ethernet31", at + 2)
    ]


def test_clean_configs_of_a_shared_asn_get_no_finding_and_unique_asns_their_what_if(tmp_path, capsys):
    """A shared spine ASN (RFC 7938's plan) is clean; an ASN per spine is a deadlock risk even with
    every link up: the first double failure that closes a cycle is named."""
    for fabric, findings in ((LAB / "shared-asn.yaml", 0), (LAB / "fabric.yaml", 1)):
        out = tmp_path / fabric.stem
        assert main(["render", str(fabric), "-o", str(out)]) == 0
        capsys.readouterr()
        assert main(["check", str(fabric), "--configs", str(out), "--format", "json"]) == findings
        found = _findings(capsys)
        assert [f["rule"] for f in found] == ["lossless.cbd"] * findings
        assert all("after the failure of" in f["message"] and f["actual"] == "4-channel cycle" for f in found)


def test_lossless_judges_the_fabric_once_and_its_headline_tells_what_the_finding_found(
    tmp_path, capsys, monkeypatch
):
    """The headline is the analysis the rules ran, not a second one (at 32,768 GPUs each takes seconds)."""
    import netcfg.checks.lossless as lossless_rules

    runs = []

    def counted(*args, **kwargs):
        runs.append(args)
        return analyse(*args, **kwargs)

    monkeypatch.setattr(lossless_rules, "analyse", counted)
    out = tmp_path / "configs"
    assert main(["render", str(LAB / "fabric.yaml"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["lossless", str(LAB / "fabric.yaml"), "--configs", str(out)]) == 1
    printed = " ".join(capsys.readouterr().out.split())
    assert len(runs) == 1
    assert "with a cyclic buffer dependency" in printed and " 0 with a cyclic" not in printed
    assert "lossless.cbd" in printed


def test_without_an_asn_plan_there_is_no_deadlock_verdict(tmp_path, capsys):
    plain = tmp_path / "fabric.yaml"
    plain.write_text(
        (LAB / "fabric.yaml").read_text(encoding="utf-8").replace("  bgp: {spine_asn: unique}\n", ""),
        encoding="utf-8",
    )
    assert main(["lossless", str(plain), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["findings"] == []


def test_eos_static_routes_are_read_with_their_lines():
    text = (
        "! device: leaf1 (DCS-7060X5, EOS-4.32.1F)\ninterface Ethernet31\n   ip address 10.1.0.0/31\n!\n"
        "ip route 0.0.0.0/0 10.1.0.1\nip route vrf MGMT 0.0.0.0/0 Management1 192.168.0.1\n"
        "ip route 10.2.0.0/16 Et32 10.1.0.3 200 tag 7\nend\n"
    )
    state = parse_config(text, Device("leaf1", Role.LEAF, "eos"))
    assert [(r.prefix, r.next_hop, r.interface, r.line) for r in state.static_routes or ()] == [
        ("0.0.0.0/0", "10.1.0.1", None, 5),
        ("0.0.0.0/0", "192.168.0.1", "Management1", 6),
        ("10.2.0.0/16", "10.1.0.3", "Ethernet32", 7),
    ]
    assert state.addresses == {"Ethernet31": "10.1.0.0/31"}


def clos(leaves: int, spines: int) -> Fabric:
    devices = {f"spine{s}": Device(f"spine{s}", Role.SPINE, "eos") for s in range(1, spines + 1)}
    links = []
    for leaf in range(1, leaves + 1):
        devices[f"leaf{leaf}"] = Device(f"leaf{leaf}", Role.LEAF, "eos")
        links += [
            Link(
                Endpoint(f"leaf{leaf}", f"Ethernet{30 + s}"),
                Endpoint(f"spine{s}", f"Ethernet{leaf}"),
                400,
                30,
            )
            for s in range(1, spines + 1)
        ]
    return Fabric("clos", 1, devices, links, "roce-lossless")


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(2, 4))
def test_a_shared_spine_asn_never_has_a_cycle_whatever_fails(leaves, spines):
    """Up-down routes only: every single and double link failure of any two-tier Clos is cycle free."""
    found = analyse(clos(leaves, spines), BgpPlan("shared"))
    assert found.cycles == [] and found.valleys == []
    assert found.scenarios == len(list(scenarios(clos(leaves, spines))))


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 7), st.integers(2, 3))
def test_unique_spine_asns_close_a_cycle_after_the_crossed_double_failure(leaves, spines):
    """With an ASN per spine, two leaves that each lost a different spine route through valleys at the
    leaves that kept both: a 4-channel cycle. With two spines the plan and single failures stay free."""
    fabric = clos(leaves, spines)
    plan = BgpPlan("unique")
    crossed = [fabric.links[0], fabric.links[spines + 1]]  # leaf1-spine1 and leaf2-spine2
    found = analyse(fabric, plan, down=crossed if spines == 2 else ())
    if spines == 2:
        cycle = found.cycles[0]
        assert cycle.scenario.kind == "down now" and len(cycle.channels) == 4
        spines_on_cycle = {end.device for tail, head in cycle.channels for end in (tail, head)}
        assert {"spine1", "spine2"} <= spines_on_cycle
    first_kinds = {c.scenario.kind for c in found.cycles}
    assert "plan" not in first_kinds and "single" not in first_kinds


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 6), st.integers(2, 4), st.data())
def test_twin_leaves_share_routes_as_a_search_of_their_own_finds(leaves, spines, data):
    """The plan's routes toward a twin leaf, derived by swapping, equal a search toward it."""
    from netcfg.deadlock import DeadlockModel, _routes

    fabric = clos(leaves, spines)
    plan = BgpPlan(data.draw(st.sampled_from(["shared", "unique"])))
    model = DeadlockModel(fabric, plan)
    for dest, routes in model.plan.items():
        searched = _routes(model.sw, dest, frozenset())
        assert routes.dist == searched.dist
        assert [sorted(h) for h in routes.hops] == [sorted(h) for h in searched.hops]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(2, 4), st.sampled_from(["shared", "unique"]), st.data())
def test_repaired_routes_equal_a_fresh_search_whatever_fails(leaves, spines, mode, data):
    """A scenario's routes, repaired from the plan's, are those a fresh search finds."""
    from netcfg.deadlock import DeadlockModel, _repaired, _routes

    fabric = clos(leaves, spines)
    model = DeadlockModel(fabric, BgpPlan(mode))
    failed = data.draw(st.lists(st.sampled_from(fabric.links), max_size=4, unique=True))
    lost = model.sw.lost(failed)
    for dest, base in model.plan.items():
        repaired = _repaired(model.sw, base, dest, lost)
        if repaired is None:
            continue
        searched = _routes(model.sw, dest, lost)
        assert repaired.dist == searched.dist
        assert [sorted(h) for h in repaired.hops] == [sorted(h) for h in searched.hops]


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(2, 3), st.sampled_from(["shared", "unique"]), st.data())
def test_a_scenario_finds_the_down_up_turns_a_search_of_every_destination_finds(leaves, spines, mode, data):
    """The incremental scenario (plan routes repaired, turns looked for where next hops changed) finds
    every down-up turn in use that searching every destination afresh finds."""
    from netcfg.deadlock import DeadlockModel, Scenario, _routes, _valleys

    fabric = clos(leaves, spines)
    model = DeadlockModel(fabric, BgpPlan(mode))
    failed = tuple(data.draw(st.lists(st.sampled_from(fabric.links), min_size=1, max_size=3, unique=True)))
    lost = model.sw.lost(failed)
    searched = set()
    for dest in model.plan:
        searched.update(_valleys(model.sw, _routes(model.sw, dest, lost), dest))
    _, valleys = model.cycle(Scenario("double", failed))
    assert set(valleys) == searched


def test_a_three_tier_fabric_is_judged_alike_incrementally_and_by_fresh_searches(tmp_path):
    """The generator's three-tier fabric (per-SU spines, super-spine planes), every scenario: the
    repaired routes find the turns fresh searches find; a shared ASN per tier has no cycle, an ASN
    per spine one after a crossed double failure inside an SU."""
    from netcfg.deadlock import DeadlockModel, _routes, _valleys
    from netcfg.generate import write_generated_inventory
    from netcfg.inventory import load_fabric

    fabric = load_fabric(write_generated_inventory(tmp_path, "three", 3, 2, 2))
    assert analyse(fabric, BgpPlan("shared", "shared")).cycles == []
    model = DeadlockModel(fabric, BgpPlan("unique", "unique"))
    for scenario in scenarios(fabric):
        lost = model.sw.lost(scenario.links)
        searched = set()
        for dest in model.plan:
            searched.update(_valleys(model.sw, _routes(model.sw, dest, lost), dest))
        assert set(model.cycle(scenario)[1]) == searched, scenario.describe()
    found = analyse(fabric, BgpPlan("unique", "shared"))
    assert found.cycles[0].scenario.kind == "double" and len(found.cycles[0].channels) == 4
