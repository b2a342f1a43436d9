"""Drift between two sets of device states: what an operator reads after a scheduled audit."""

from __future__ import annotations

import dataclasses

from netcfg.drift import drift
from netcfg.model import DeviceState
from netcfg.sources import intent_states


def test_a_device_lost_to_collection_is_one_change_not_every_setting(lab_fabric, lab_policy):
    before = intent_states(lab_fabric, lab_policy)
    after = dict(before)
    after["leaf-su1-r1"] = DeviceState("leaf-su1-r1", "eos", collection_error=("unreachable", "refused"))
    after["gpu01"] = DeviceState("gpu01", "connectx", collection_error=("timeout", "no answer"))
    port = after["leaf-su1-r2"].interfaces["Ethernet1"]
    after["leaf-su1-r2"] = dataclasses.replace(
        after["leaf-su1-r2"],
        interfaces={**after["leaf-su1-r2"].interfaces, "Ethernet1": dataclasses.replace(port, mtu=1500)},
    )
    changes = drift(before, after)
    assert [(c.device, c.setting, c.before, c.after) for c in changes] == [
        ("gpu01", "collection", "ok", "timeout"),
        ("leaf-su1-r1", "collection", "ok", "unreachable"),
        ("leaf-su1-r2", "Ethernet1.mtu", "9214", "1500"),
    ]
    # Back again: the device's return is one change too, and unchanged failures are none.
    assert [(c.device, c.after) for c in drift(after, before)] == [
        ("gpu01", "ok"),
        ("leaf-su1-r1", "ok"),
        ("leaf-su1-r2", "9214"),
    ]
    assert drift(after, after) == []


def test_unreadable_output_is_one_change_and_settings_read_on_both_sides_still_count(lab_fabric, lab_policy):
    before = intent_states(lab_fabric, lab_policy)
    after = dict(before)
    leaf = before["leaf-su1-r1"]
    # A running config cut short: the last ports are gone, one that survived has a new MTU.
    kept = dict(list(leaf.interfaces.items())[:2])
    first = next(iter(kept))
    kept[first] = dataclasses.replace(kept[first], mtu=1500)
    after["leaf-su1-r1"] = dataclasses.replace(
        leaf, interfaces=kept, unparsed={"show running-config": "output truncated (no closing 'end' line)"}
    )
    changes = [(c.device, c.setting, c.before, c.after) for c in drift(before, after)]
    assert changes == [
        ("leaf-su1-r1", "unreadable output", "none", "show running-config"),
        ("leaf-su1-r1", f"{first}.mtu", "9214", "1500"),
    ]
