"""Rules on real-shaped configs: only the plan's fabric ports count, and the QoS chain is followed."""

from __future__ import annotations

import dataclasses

import pytest

from netcfg.checks.runner import run_checks
from netcfg.platforms import get_platform
from netcfg.render import render_fabric
from netcfg.sources import intent_states

# What production configs carry beyond netcfg's rendering: none of it is a fabric port of the plan.
PRODUCTION_EXTRAS = """!
interface Management1
   description oob-mgmt
   ip address 10.10.0.11/24
!
interface Loopback0
   ip address 10.255.0.11/32
!
interface Ethernet40
   description spare
   shutdown
!
interface Vlan4094
   mtu 1500
   no autostate
!
"""


def _states(fabric, policy, edits):
    """States parsed from rendered configs, each edited as a person would edit the file."""
    files = render_fabric(fabric, policy, None)
    states = {}
    for name, device in fabric.devices.items():
        platform = get_platform(device.platform)
        text = files[name + platform.config_suffix]
        for old, new in edits.get(name, []):
            assert old in text, f"{name}: {old!r} not in the rendered config"
            text = text.replace(old, new)
        states[name] = platform.parse_config(text, device)
    return states


def _found(fabric, policy, states):
    return {(f.device, f.rule): f for f in run_checks(fabric, policy, states)}


def test_management_loopback_vlan_and_shut_ports_leave_a_correct_rail_clean(lab_fabric, lab_policy):
    extras = [("!\nend", PRODUCTION_EXTRAS + "end")]
    states = _states(lab_fabric, lab_policy, {"leaf-su1-r1": extras, "spine1": extras})
    assert "Management1" in states["leaf-su1-r1"].interfaces
    assert _found(lab_fabric, lab_policy, states) == {}


def test_ecn_thresholds_equal_within_tolerance_are_consistent(lab_fabric, lab_policy):
    # 150 kbytes and 153,600 bytes (150 KiB) are both the policy's 150 KB within its 10 % tolerance.
    kib = [
        (
            "minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
            "minimum-threshold 153600 bytes maximum-threshold 1536000 bytes",
        )
    ]
    states = _states(lab_fabric, lab_policy, {"leaf-su1-r1": kib})
    assert _found(lab_fabric, lab_policy, states) == {}


def test_a_tie_in_a_two_leaf_rail_names_only_the_leaf_that_leaves_the_policy(lab_fabric, lab_policy):
    pfc4 = [("priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop")]
    found = _found(lab_fabric, lab_policy, _states(lab_fabric, lab_policy, {"leaf-su2-r2": pfc4}))
    rail = [f for (device, rule), f in found.items() if rule == "rail.qos_consistency"]
    assert [f.device for f in rail] == ["leaf-su2-r2"]
    assert "policy" in rail[0].message
    assert (rail[0].expected, rail[0].actual) == ("PFC no-drop: {3}", "PFC no-drop: {4}")


def test_two_leaves_of_a_rail_both_off_policy_are_both_named(lab_fabric, lab_policy):
    edits = {
        "leaf-su1-r3": [
            ("priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop")
        ],
        "leaf-su2-r3": [
            ("priority-flow-control priority 3 no-drop", "priority-flow-control priority 5 no-drop")
        ],
    }
    found = _found(lab_fabric, lab_policy, _states(lab_fabric, lab_policy, edits))
    assert {d for d, r in found if r == "rail.qos_consistency"} == {"leaf-su1-r3", "leaf-su2-r3"}


@pytest.mark.parametrize(
    ("tc_queue", "rule"),
    [({3: 4}, "ecn.enabled"), ({6: 5}, "cnp.strict_queue")],
    ids=["roce-class-on-a-queue-without-ecn", "cnp-class-on-a-queue-that-is-not-strict"],
)
def test_ecn_and_strict_priority_are_checked_on_the_queue_that_carries_the_class(
    lab_fabric, lab_policy, tc_queue, rule
):
    states = intent_states(lab_fabric, lab_policy)
    states["leaf-su1-r4"] = dataclasses.replace(states["leaf-su1-r4"], tc_queue=tc_queue)
    found = _found(lab_fabric, lab_policy, states)
    assert (("leaf-su1-r4", rule)) in found
    assert {d for d, _ in found} == {"leaf-su1-r4"}


def test_lossy_intent_renders_and_reads_back_clean(lab_fabric):
    from netcfg.policy import load_policy

    lossy = load_policy("roce-lossy")
    states = _states(lab_fabric, lossy, {})
    assert states["leaf-su1-r1"].interfaces["Ethernet1"].pfc_enabled is False
    assert states["gpu01"].interfaces["eth0"].no_drop_priorities == frozenset()
    # ECN marking stays on the RoCE queue and the NICs' NP/RP on the RoCE priority.
    assert 3 in states["leaf-su1-r1"].interfaces["Ethernet1"].ecn
    assert states["gpu01"].interfaces["eth0"].ecn_np_priorities == frozenset({3})
    assert run_checks(lab_fabric, lossy, states) == []


def test_a_lossless_fabric_checked_against_the_lossy_policy_is_named_for_its_pfc(lab_fabric, lab_policy):
    from netcfg.policy import load_policy

    found = _found(lab_fabric, load_policy("roce-lossy"), _states(lab_fabric, lab_policy, {}))
    rules = {rule for _, rule in found}
    # PFC still on is the finding; the watchdog and headroom are not asked for in lossy mode.
    assert rules == {"pfc.enabled", "pfc.no_drop_priorities"}
    assert {d for d, _ in found} == set(lab_fabric.devices)


def test_the_dscp_rule_follows_the_class_to_the_pfc_priority_that_pauses_it(lab_fabric, lab_policy):
    states = intent_states(lab_fabric, lab_policy)
    # DSCP 26 still lands in class 3, but class 3 is paused as priority 4 (NX-OS `pause pfc-cos 4`).
    states["spine1"] = dataclasses.replace(states["spine1"], tc_pfc={3: 4})
    found = _found(lab_fabric, lab_policy, states)
    # Its ports still make 3 no-drop, not the 4 that pauses RoCE's class: RoCE is not lossless there.
    # And the paths through it are lossy there: said once, for the hop.
    assert set(found) == {
        ("spine1", "qos.dscp_map"),
        ("spine1", "pfc.no_drop_priorities"),
        ("spine1", "lossless.path"),
    }
    assert (found["spine1", "qos.dscp_map"].expected, found["spine1", "qos.dscp_map"].actual) == ("3", "4")
    no_drop = found["spine1", "pfc.no_drop_priorities"]
    assert (no_drop.expected, no_drop.actual) == ("{4}", "{3}")


def test_a_design_carrying_roce_on_another_queue_is_named_once_and_judged_on_its_own_queue(
    lab_fabric, lab_policy
):
    """RoCE DSCP 26 -> class 5 -> queue 5, no-drop 5, ECN on queue 5: one finding says what the
    device does; ECN and PFC are judged on the queue and priority RoCE rides, and CNP DSCP 48 on
    the queue it lands in (a strict queue 3 here)."""
    states = intent_states(lab_fabric, lab_policy)
    leaf = states["leaf-su1-r1"]
    ecn = next(iter(leaf.interfaces.values())).ecn[3]
    ports = {
        name: dataclasses.replace(
            port, no_drop_priorities=frozenset({5}), ecn={5: ecn}, strict_queues=frozenset({3})
        )
        for name, port in leaf.interfaces.items()
    }
    dscp_map = {**leaf.dscp_map, 26: 5, 48: 3}
    states["leaf-su1-r1"] = dataclasses.replace(leaf, dscp_map=dscp_map, interfaces=ports)
    found = {k: v for k, v in _found(lab_fabric, lab_policy, states).items() if k[0] == "leaf-su1-r1"}
    assert {rule for _, rule in found} >= {"qos.dscp_map"}
    assert not {rule for _, rule in found} & {
        "ecn.enabled",
        "ecn.thresholds",
        "cnp.strict_queue",
        "pfc.no_drop_priorities",
    }
    said = {f.message for f in run_checks(lab_fabric, lab_policy, states) if f.rule == "qos.dscp_map"}
    assert said == {
        "RoCE DSCP 26 rides priority 5 (queue 5) on this device; the policy expects priority 3",
        "CNP DSCP 48 rides priority 3 (queue 3) on this device; the policy expects priority 6",
    }


def test_headroom_short_of_the_plan_is_named_with_both_figures(lab_fabric, lab_policy):
    from netcfg.headroom import headroom
    from netcfg.model import Endpoint, PgBuffer

    states = intent_states(lab_fabric, lab_policy)
    leaf = states["leaf-su1-r1"]

    def planned(port: str) -> int:
        link = lab_fabric.link_at(Endpoint("leaf-su1-r1", port))
        return headroom(link.speed_gbps, link.cable_m, lab_policy.mtu.switch).bytes

    ports = {
        name: dataclasses.replace(port, pg_buffers={3: PgBuffer(xoff=planned(name))})
        for name, port in leaf.interfaces.items()
    }
    need = planned("Ethernet2")
    ports["Ethernet2"] = dataclasses.replace(ports["Ethernet2"], pg_buffers={3: PgBuffer(xoff=20_480)})
    ports["Ethernet3"] = dataclasses.replace(ports["Ethernet3"], pg_buffers={0: PgBuffer(xoff=need)})
    states["leaf-su1-r1"] = dataclasses.replace(leaf, interfaces=ports)
    found = [f for f in run_checks(lab_fabric, lab_policy, states)]
    assert [(f.rule, f.interface, f.actual) for f in found] == [
        ("pfc.headroom", "Ethernet2", "20,480 B"),
        ("pfc.headroom", "Ethernet3", "no buffer"),
    ]
    assert f"{need:,} B" in found[0].expected and "400 Gb/s over 3 m" in found[0].expected


def test_a_cable_length_left_at_the_platform_default_is_a_warning(lab_fabric, lab_policy):
    edit = {"gpu01": [("--cable_len 3", "--cable_len 7")]}
    found = _found(lab_fabric, lab_policy, _states(lab_fabric, lab_policy, edit))
    assert set(found) == {("gpu01", "pfc.cable_length")}
    f = found["gpu01", "pfc.cable_length"]
    assert (f.severity.value, f.interface, f.actual) == ("warning", "eth0-3", "7 m (the platform default)")


def test_hosts_that_disagree_on_the_cnp_priority_are_named_once_for_the_fabric(lab_fabric, lab_policy):
    states = intent_states(lab_fabric, lab_policy)
    for name in ("gpu05", "gpu06"):
        ports = {n: dataclasses.replace(p, cnp_priority=7) for n, p in states[name].interfaces.items()}
        states[name] = dataclasses.replace(states[name], interfaces=ports)
    found = run_checks(lab_fabric, lab_policy, states)
    agreement = [f for f in found if f.rule == "host.cnp_agreement"]
    assert [(f.device, f.actual) for f in agreement] == [("(fabric)", "priority 7 on 2 connectx host(s)")]
    assert "gpu05, gpu06" in agreement[0].message
    assert {(f.device, f.rule) for f in found} - {("(fabric)", "host.cnp_agreement")} == {
        ("gpu05", "host.roce"),
        ("gpu06", "host.roce"),
    }


def test_a_cnp_class_per_nic_family_is_mapped_and_made_strict_on_every_switch(lab_fabric, lab_policy):
    from netcfg.platforms import get_platform

    per_family = lab_policy.model_copy(
        update={"cnp_by_platform": {"connectx": type(lab_policy.cnp)(dscp=40, priority=7)}}
    )
    states = _states(lab_fabric, per_family, {})
    assert run_checks(lab_fabric, per_family, states) == []
    leaf = states["leaf-su1-r1"]
    assert (leaf.dscp_map[48], leaf.dscp_map[40]) == (6, 7)
    assert leaf.interfaces["Ethernet1"].strict_queues == frozenset({6, 7})
    assert states["gpu01"].interfaces["eth0"].cnp_dscp == 40
    assert get_platform("connectx").name in per_family.cnp_by_platform


@pytest.mark.parametrize(
    ("cnp_by_platform", "expected"),
    [
        ({"Thor": {"dscp": 48, "priority": 7}}, "unknown platform 'Thor'"),
        ({"connectx": {"dscp": 48, "priority": 7}}, "CNP DSCP 48 is given priorities 6 and 7"),
        ({"connectx": {"dscp": 26, "priority": 7}}, "must differ from roce"),
    ],
)
def test_per_family_cnp_classes_a_switch_cannot_map_are_refused(tmp_path, capsys, cnp_by_platform, expected):
    import yaml

    from tests.conftest import LAB, ROOT
    from tests.test_bad_input import error_of

    policy = yaml.safe_load((ROOT / "policies" / "roce-lossless.yaml").read_text())
    policy["cnp_by_platform"] = cnp_by_platform
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(policy))
    spec = yaml.safe_load((LAB / "fabric.yaml").read_text())
    spec["policy"] = "policy.yaml"
    (tmp_path / "fabric.yaml").write_text(yaml.safe_dump(spec))
    err = error_of(capsys, "check", tmp_path)
    assert "policy.yaml" in err and "cnp_by_platform" in err and expected in err, err


def test_a_rail_mixing_nic_families_is_not_firmware_skew_but_a_skewed_family_is(tmp_path):
    import yaml

    from netcfg.inventory import load_fabric
    from netcfg.lab.devices import live_states
    from netcfg.policy import load_policy
    from tests.conftest import LAB

    spec = yaml.safe_load((LAB / "fabric.yaml").read_text())
    spec["platforms"] = {
        "switch": "eos",
        "host": "connectx",
        "overrides": [{"devices": "gpu0[5-8]", "platform": "thor"}],
    }
    spec["topology"]["names"]["rdma_device"] = "rdma{nic0}"
    (tmp_path / "fabric.yaml").write_text(yaml.safe_dump(spec))
    fabric = load_fabric(tmp_path)
    assert {n: d.platform for n, d in fabric.devices.items() if not d.is_switch} == {
        **{f"gpu0{i}": "connectx" for i in range(1, 5)},
        **{f"gpu0{i}": "thor" for i in range(5, 9)},
    }
    policy = load_policy(fabric.policy_ref)
    states = live_states(fabric, policy)
    assert run_checks(fabric, policy, states) == []
    ports = {n: dataclasses.replace(p, firmware="232.0.100.1") for n, p in states["gpu06"].interfaces.items()}
    states["gpu06"] = dataclasses.replace(states["gpu06"], interfaces=ports)
    skew = [f for f in run_checks(fabric, policy, states) if f.rule == "firmware.rail_skew"]
    assert [(f.device, f.expected, f.actual) for f in skew] == [("gpu06", "232.0.219.16", "232.0.100.1")]
