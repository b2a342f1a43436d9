"""Rules on real-shaped configs: only the plan's fabric ports count, and the QoS chain is followed."""

from __future__ import annotations

import dataclasses

import pytest

from netcfg.checks import run_checks
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
