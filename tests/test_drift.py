"""Drift between two sets of device states: what an operator reads after a scheduled audit."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from netcfg.drift import _text, drift, settings
from netcfg.model import DeviceState, InstalledRoute, InterfaceState, NextHop, StaticRoute
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


def _leaf_with(state: DeviceState, **changes: object) -> DeviceState:
    return dataclasses.replace(state, **changes)


def test_route_table_hash_and_static_route_changes_are_drift_and_an_uncollected_table_is_none(
    lab_fabric, lab_policy
):
    """A valley route learnt overnight, an ECMP member lost, a new hash seed and a static route added
    are what a scheduled audit must show; a table not collected this time is unknown, not empty."""
    before = intent_states(lab_fabric, lab_policy)
    leaf = before["leaf-su1-r1"]
    up1, up2 = NextHop("10.1.0.1", "Ethernet31"), NextHop("10.1.0.3", "Ethernet32")
    table = [
        InstalledRoute("10.0.0.0/8", "bgp", (up1, up2)),
        InstalledRoute("10.1.0.0/31", "connected", (NextHop(None, "Ethernet31"),)),
        InstalledRoute("192.168.9.0/24", "bgp", (up2,)),
    ]
    before["leaf-su1-r1"] = _leaf_with(leaf, routes=table, hash_seed=1, static_routes=[])
    after = dict(before)
    after["leaf-su1-r1"] = _leaf_with(
        leaf,
        # The same ECMP set printed in another order is no change; one member lost is.
        routes=[
            InstalledRoute("10.0.0.0/8", "bgp", (up1,)),
            InstalledRoute("10.1.0.0/31", "connected", (NextHop(None, "Ethernet31"),)),
            InstalledRoute("10.2.0.0/16", "bgp", (up2,)),
            InstalledRoute("192.168.9.0/24", "bgp", (up2,)),
        ],
        hash_seed=7,
        static_routes=[
            StaticRoute("0.0.0.0/0", "10.1.0.3", "Ethernet32", line=91),
            StaticRoute("0.0.0.0/0", "10.1.0.1", "Ethernet31", line=90),
        ],
    )
    changes = [(c.setting, c.before, c.after) for c in drift(before, after) if c.device == "leaf-su1-r1"]
    assert changes == [
        ("ecmp_hash_seed", "1", "7"),
        ("static_route 0.0.0.0/0", "absent", "Ethernet31 10.1.0.1; Ethernet32 10.1.0.3"),
        (
            "route 10.0.0.0/8",
            "bgp via Ethernet31 10.1.0.1, Ethernet32 10.1.0.3",
            "bgp via Ethernet31 10.1.0.1",
        ),
        ("route 10.2.0.0/16", "absent", "bgp via Ethernet32 10.1.0.3"),
    ]
    shuffled = dict(before)
    shuffled["leaf-su1-r1"] = _leaf_with(
        before["leaf-su1-r1"], routes=[InstalledRoute("10.0.0.0/8", "bgp", (up2, up1)), *table[1:]]
    )
    assert drift(before, shuffled) == []
    # Not collected with --routes this time, and a config that does not show static routes.
    unknown = dict(after)
    unknown["leaf-su1-r1"] = _leaf_with(after["leaf-su1-r1"], routes=None, static_routes=None)
    assert [c.setting for c in drift(after, unknown)] == []
    # IPv6 is its own table: a route lost from it is drift, and a table not read stays unknown.
    v6 = InstalledRoute("2001:db8:172:2::/64", "bgp", (NextHop("fe80::1", "Ethernet31"),))
    dual = dict(after)
    dual["leaf-su1-r1"] = _leaf_with(after["leaf-su1-r1"], routes6=[v6])
    lost = dict(dual)
    lost["leaf-su1-r1"] = _leaf_with(dual["leaf-su1-r1"], routes6=[])
    assert [(c.setting, c.before, c.after) for c in drift(dual, lost)] == [
        ("route 2001:db8:172:2::/64", "bgp via Ethernet31 fe80::1", "absent")
    ]
    assert drift(dual, after) == []
