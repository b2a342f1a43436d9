"""Drift between two sets of device states: what an operator reads after a scheduled audit."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from netcfg.drift import _text, drift, settings
from netcfg.model import DeviceState, InterfaceState
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


# Values of every kind a port setting holds, with the pairs whose texts differ although Python finds
# them equal (0 and off, 1 and on).
_SCALARS = [None, 0, 1, True, False, 9214, 1500, "x", "unknown"]
_VALUES = [*_SCALARS, frozenset(), frozenset({3}), frozenset({3, 4}), {}, {26: 3}, {26: 4}, {"a": {1: 2}}]


def _by_text(before: DeviceState, after: DeviceState) -> list[tuple[str, str, str]]:
    """Every setting written out on both sides and compared as text: what drift must report."""

    def written(state: DeviceState) -> dict[str, str]:
        return {key: _text(value) for key, value in settings(state).items()}

    a, b = written(before), written(after)
    pairs = [(key, a.get(key, "absent"), b.get(key, "absent")) for key in sorted(set(a) | set(b))]
    return [(key, was, now) for key, was, now in pairs if was != now]


@settings_(max_examples=300, deadline=None)
@given(data=st.data())
def test_drift_reports_exactly_the_settings_whose_text_changed(lab_fabric, lab_policy, data):
    leaf = intent_states(lab_fabric, lab_policy)["leaf-su1-r1"]
    names = sorted(leaf.interfaces)
    fields = [f.name for f in dataclasses.fields(InterfaceState) if f.name != "name"]
    changed = dict(leaf.interfaces)
    for _ in range(data.draw(st.integers(0, 6))):
        port = data.draw(st.sampled_from(names))
        field = data.draw(st.sampled_from(fields))
        changed[port] = dataclasses.replace(changed[port], **{field: data.draw(st.sampled_from(_VALUES))})
    if data.draw(st.booleans()):
        changed.pop(data.draw(st.sampled_from(names)))
    after = dataclasses.replace(leaf, interfaces=changed)
    found = [(c.setting, c.before, c.after) for c in drift({"leaf": leaf}, {"leaf": after})]
    assert found == _by_text(leaf, after)
