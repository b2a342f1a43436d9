"""Junos: parse(render(x)) over random policies, fabrics and drifted states, lossless and lossy.

Intent of a policy Junos can express comes back exactly. Any other state comes back as Junos holds
it (`junos_form`), and that differs from the state only where `facts` says Junos expresses the
policy differently.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from netcfg.intent import fabric_intent
from netcfg.lab.devices import live_states
from netcfg.model import DeviceState, Fabric
from netcfg.platforms import get_platform
from netcfg.platforms.junos import facts
from netcfg.platforms.junos.render import junos_form
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy
from tests.test_roundtrip import SETTINGS, damaged, drift, fabrics, policies

JUNOS = get_platform("junos")
FIXTURES = Path(__file__).parent / "fixtures" / "junos"
STEP = facts.FILL_STEP_BYTES


def all_junos(fabric: Fabric) -> Fabric:
    for device in fabric.devices.values():
        if device.is_switch:
            device.platform = "junos"
    return fabric


@st.composite
def any_mode(draw: st.DrawFn) -> Policy:
    data = draw(policies()).model_dump()
    data["mode"] = draw(st.sampled_from(["lossless", "lossy"]))
    return Policy.model_validate(data)


@st.composite
def junos_policies(draw: st.DrawFn) -> Policy:
    """Policies whose every setting a Junos config can write: ECN at whole fill levels of the
    reference buffer, watchdog detection a whole number of polls, action drop."""
    data = draw(any_mode()).model_dump()
    low = draw(st.integers(1, 98))
    high = draw(st.integers(low + 1, 99))
    data["ecn"] |= {"min_kbytes": low * STEP // 1000, "max_kbytes": high * STEP // 1000}
    poll = draw(st.integers(5, 1000))
    data["pfc_watchdog"] |= {
        "polling_ms": poll,
        "detection_ms": poll * draw(st.integers(1, 5)),
        "action": "drop",
    }
    return Policy.model_validate(data)


@SETTINGS
@given(policy=junos_policies(), fabric=fabrics())
def test_intent_of_a_policy_junos_can_express_comes_back_exactly(policy: Policy, fabric: Fabric) -> None:
    fabric = all_junos(fabric)
    for name, state in fabric_intent(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform == "junos":
            assert JUNOS.parse_config(JUNOS.render_config(state, device), device) == state


def drifted_configs(fabric: Fabric, policy: Policy, data: st.DataObject):
    """Each Junos switch with a drifted state of what its config holds (no version, model or LLDP)."""
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform == "junos":
            state = drift(live, data)
            yield (
                device,
                dataclasses.replace(state, facets=frozenset({"qos"}), os_version=None, model=None, lldp=[]),
            )


@SETTINGS
@given(policy=any_mode(), fabric=fabrics(), data=st.data())
def test_drifted_config_comes_back_as_junos_holds_it(policy: Policy, fabric: Fabric, data: st.DataObject):
    for device, state in drifted_configs(all_junos(fabric), policy, data):
        held = junos_form(state)
        assert JUNOS.parse_config(JUNOS.render_config(state, device), device) == held
        assert junos_form(held) == held
        assert_differs_only_as_documented(state, held)


@SETTINGS
@given(policy=any_mode(), fabric=fabrics(), data=st.data())
def test_switched_ports_keep_what_they_pause_whichever_pfc_the_renderer_writes(
    policy: Policy, fabric: Fabric, data: st.DataObject
):
    """A switched unit without a mode is an access port (untagged), which 802.1p PFC does not pause:
    the renderer writes a switched port that 802.1p PFC pauses as a trunk, so it reads back paused."""
    for device, state in drifted_configs(all_junos(fabric), policy, data):
        for port in state.interfaces.values():
            port.switched = data.draw(st.booleans()) or None
        held = junos_form(state)
        parsed = JUNOS.parse_config(JUNOS.render_config(state, device), device)
        assert parsed == held
        for port_name, port in held.interfaces.items():
            assert parsed.interfaces[port_name].no_drop_priorities == port.no_drop_priorities


@SETTINGS
@given(policy=any_mode(), fabric=fabrics(), data=st.data())
def test_drifted_live_outputs_come_back_as_junos_holds_them(
    policy: Policy, fabric: Fabric, data: st.DataObject
):
    fabric = all_junos(fabric)
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform != "junos":
            continue
        state = drift(live, data)
        outputs = simulator(JUNOS.name).render_outputs(state, device)
        by_file = {c.file: outputs[c.cli] for c in JUNOS.commands(device)}
        parsed = JUNOS.parse_outputs(by_file, device)
        assert parsed == junos_form(state)
        assert parsed.facets == {"qos", "version", "lldp"} and parsed.unparsed == {}


def assert_differs_only_as_documented(state: DeviceState, held: DeviceState) -> None:
    assert held.tc_queue == state.tc_queue
    trusting = [p for p in state.interfaces.values() if p.trust == "dscp"]
    assert held.dscp_map == (state.dscp_map if trusting else {})
    queues_with_class = {state.queue_of(tc) for tc in range(8)} | {
        q for q in range(8) if q not in state.tc_queue
    }
    for name, port in state.interfaces.items():
        got = held.interfaces[name]
        assert (got.mtu, got.description, got.watchdog) == (port.mtu, port.description, port.watchdog)
        assert got.trust == {"cos": "pcp"}.get(port.trust, port.trust)
        assert got.no_drop_priorities == port.no_drop_priorities
        assert got.pfc_enabled == bool(port.no_drop_priorities)
        assert got.cable_m == port.cable_m
        # A queue takes a scheduler only through a class: one whose own number is carried elsewhere
        # and that no class uses has none.
        assert set(got.ecn) == set(port.ecn) & queues_with_class
        assert got.strict_queues == port.strict_queues & queues_with_class
        for queue, want in port.ecn.items():
            if queue not in got.ecn:
                continue
            have = got.ecn[queue]
            assert have.probability == want.probability
            assert 0 <= have.min_bytes < have.max_bytes <= facts.MAX_FILL_PERCENT * STEP
            assert have.min_bytes % STEP == have.max_bytes % STEP == 0
            on_grid = want.min_bytes % STEP == want.max_bytes % STEP == 0
            if on_grid and want.min_bytes < want.max_bytes <= facts.MAX_FILL_PERCENT * STEP:
                assert have == want
            elif facts.fill_percent(want.min_bytes) < facts.fill_percent(want.max_bytes):
                # Otherwise the nearest whole fill levels, where they stay apart and within 99 %.
                assert abs(have.min_bytes - want.min_bytes) <= STEP // 2
                assert abs(have.max_bytes - min(want.max_bytes, facts.MAX_FILL_PERCENT * STEP)) <= STEP // 2
    wd, want = held.watchdog, state.watchdog
    assert wd is not None and want is not None
    if any(p.watchdog for p in state.interfaces.values()):
        assert (wd.enabled, wd.action, wd.polling_ms, wd.restoration_ms) == (
            True,
            "drop",
            want.polling_ms,
            want.restoration_ms,
        )
        assert wd.detection_ms is not None and want.detection_ms is not None and want.polling_ms is not None
        assert wd.detection_ms % want.polling_ms == 0
        assert abs(wd.detection_ms - want.detection_ms) <= max(
            want.polling_ms // 2, want.polling_ms - want.detection_ms
        )
    else:
        assert not wd.enabled


REAL_SHAPED = {
    "show_configuration_display_set": "display_set_apstra_qfx5240.set",
    "show_version": "show_version_qfx5220_evo.txt",
    "show_lldp_neighbors": "show_lldp_neighbors_qfx5220.txt",
}


@SETTINGS
@given(data=st.data())
def test_damaged_outputs_and_configs_never_crash_the_parser(lab_fabric, lab_policy, data: st.DataObject):
    """Lab outputs, production-shaped outputs and a brace config, damaged: a state, never an exception."""
    device = lab_fabric.devices["leaf-su1-r1"]
    state = live_states(lab_fabric, lab_policy)["leaf-su1-r1"]
    outputs = simulator(JUNOS.name).render_outputs(state, device)
    lab = {c.file: outputs[c.cli] for c in JUNOS.commands(device)}
    real = {f: (FIXTURES / p).read_text(encoding="utf-8") for f, p in REAL_SHAPED.items()}
    for files in (lab, real):
        assert JUNOS.parse_outputs(data.draw(damaged(files)), device).name == device.name
    brace = data.draw(damaged({"c": (FIXTURES / "brace_groups_inactive.conf").read_text(encoding="utf-8")}))
    assert JUNOS.parse_config(brace["c"], device).name == device.name
