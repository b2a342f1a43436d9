"""NX-OS: parse(render(x)) == x over random policies, fabrics and drifted states, in config text and
in live outputs, lossless and lossy; damaged outputs never make the parser raise."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.inventory import InventorySpec, expand_topology
from netcfg.lab.devices import live_states
from netcfg.model import DSCP_VALUES, Device, DeviceState, Fabric, Role, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.nxos.parse import DEFAULT_WATCHDOG_INTERVAL_MS
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy, WatchdogPolicy
from tests.test_roundtrip import ECN, SETTINGS, damaged, policies

NXOS = get_platform("nxos")
FIXTURES = Path(__file__).parent / "fixtures" / "nxos"
PRIORITY = st.integers(0, 7)


@st.composite
def nxos_policies(draw: st.DrawFn) -> Policy:
    """Random policies, lossless or lossy, with a PFC watchdog NX-OS can time: it polls every
    100-1000 ms and detects and restores after whole numbers of polls (others: see below)."""
    polling = draw(st.integers(100, 1000))
    watchdog = WatchdogPolicy(
        polling_ms=polling,
        detection_ms=polling * draw(st.integers(1, 10)),
        restoration_ms=polling * draw(st.integers(1, 60)),
        action="drop",
    )
    mode = draw(st.sampled_from(["lossless", "lossy"]))
    return draw(policies()).model_copy(update={"mode": mode, "pfc_watchdog": watchdog})


@st.composite
def nxos_fabrics(draw: st.DrawFn) -> Fabric:
    spec = InventorySpec.model_validate(
        {
            "name": "random",
            "platforms": {"switch": "nxos", "host": "connectx"},
            "topology": {
                "scalable_units": draw(st.integers(1, 2)),
                "servers_per_su": draw(st.integers(1, 3)),
                "rails": draw(st.integers(1, 3)),
                "host_links": {"cable_m": draw(st.integers(1, 100)), "leaf_port": "Ethernet1/{port}"},
                "spine": {
                    "count": draw(st.integers(1, 3)),
                    "leaf_first_port": 49,
                    "leaf_port": "Ethernet1/{port}",
                    "spine_port": "Ethernet1/{port}",
                },
            },
        }
    )
    assert spec.topology is not None
    built = expand_topology(spec, spec.topology, "random")
    return Fabric("random", spec.topology.rails, built.devices, built.links, "random")


def nxos_drift(state: DeviceState, data: st.DataObject, *, live: bool) -> DeviceState:
    """Drift as NX-OS can hold it. What NX-OS keeps device-wide drifts device-wide: the PFC
    priorities the network-qos classes pause (every port with PFC on pauses them all) and which
    priority pauses a class (tc_pfc). Per port: MTU, PFC on/off (and `auto` in a config, which only
    the hardware resolves live), the watchdog, ECN and strict queues, and the classification: CoS
    trust, no classification, or a DSCP map of the port's own, on fewer than half of the ports (the
    device's DSCP map is the policy most ports bind)."""
    tc_pfc = data.draw(st.dictionaries(PRIORITY, PRIORITY, max_size=2))
    tc_pfc = {tc: p for tc, p in tc_pfc.items() if tc != p}
    extra = data.draw(st.sets(PRIORITY.filter(lambda p: p not in tc_pfc), max_size=2))
    paused = frozenset(tc_pfc.values()) | extra
    ports = dict(state.interfaces)
    names = sorted(ports)
    own = data.draw(st.lists(st.sampled_from(names), max_size=(len(names) - 1) // 2, unique=True))
    pfc_modes = [True, False] if live else [True, False, None]
    for name in names:
        port = ports[name]
        pfc = data.draw(st.sampled_from([port.pfc_enabled, *pfc_modes]))
        changes = {
            "mtu": data.draw(st.sampled_from([port.mtu, 1500, 9000])),
            "pfc_enabled": pfc,
            "no_drop_priorities": None if pfc is None else paused if pfc else frozenset(),
            "watchdog": data.draw(st.booleans()),
            "ecn": data.draw(st.sampled_from([{}, port.ecn, {data.draw(PRIORITY): data.draw(ECN)}])),
            "strict_queues": frozenset(data.draw(st.sets(PRIORITY, max_size=2))),
        }
        if name in own:
            trust, dscp_map = data.draw(
                st.sampled_from(
                    [
                        ("cos", {}),
                        ("none", {}),
                        (
                            "dscp",
                            data.draw(st.dictionaries(st.sampled_from(DSCP_VALUES), PRIORITY, min_size=1)),
                        ),
                    ]
                )
            )
            changes |= {"trust": trust, "dscp_map": dscp_map}
        ports[name] = dataclasses.replace(port, **changes)
    dscp_map = state.dscp_map | data.draw(st.dictionaries(st.sampled_from(DSCP_VALUES), PRIORITY, max_size=3))
    return dataclasses.replace(state, interfaces=ports, tc_pfc=tc_pfc, dscp_map=dscp_map)


def _switches(fabric: Fabric) -> list[Device]:
    return [d for d in fabric.devices.values() if d.platform == "nxos"]


@SETTINGS
@given(policy=nxos_policies(), fabric=nxos_fabrics(), data=st.data())
def test_parse_render_config_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    live = live_states(fabric, policy)
    for device in _switches(fabric):
        drifted = nxos_drift(live[device.name], data, live=False)
        intent = dataclasses.replace(drifted, facets=frozenset({"qos"}), os_version=None, model=None, lldp=[])
        assert NXOS.parse_config(NXOS.render_config(intent, device), device) == as_expressed(intent)


@SETTINGS
@given(policy=nxos_policies(), fabric=nxos_fabrics(), data=st.data())
def test_parse_render_outputs_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    live = live_states(fabric, policy)
    for device in _switches(fabric):
        state = nxos_drift(live[device.name], data, live=True)
        outputs = simulator(NXOS.name).render_outputs(state, device)
        by_file = {c.file: outputs[c.cli] for c in NXOS.commands(device)}
        assert NXOS.parse_outputs(by_file, device) == as_expressed(state)


def as_expressed(state: DeviceState) -> DeviceState:
    """The state as NX-OS holds it after netcfg's render: the watchdog on or off, its timers at the
    switch's defaults (netcfg renders no timer line): the 100 ms poll, detection and restoration unknown."""
    wd = state.watchdog
    if wd is None or not wd.enabled:
        return state
    return dataclasses.replace(
        state, watchdog=Watchdog(True, "drop", None, None, DEFAULT_WATCHDOG_INTERVAL_MS)
    )


@settings(max_examples=30, deadline=None)
@given(
    polling=st.integers(1, 5000),
    detection=st.integers(1, 60_000),
    restoration=st.integers(1, 60_000),
    action=st.sampled_from(["drop", "errdisable", "forward"]),
)
def test_any_policy_watchdog_renders_only_the_documented_line(
    polling: int, detection: int, restoration: int, action: str
) -> None:
    """Whatever the policy times, NX-OS gets the one watchdog line Cisco documents; read back, the
    watchdog is on with unknown timers, never the policy's numbers presented as the switch's."""
    device = Device("leaf1", Role.LEAF, "nxos")
    state = DeviceState("leaf1", "nxos", watchdog=Watchdog(True, action, detection, restoration, polling))
    text = NXOS.render_config(state, device)
    assert [line for line in text.splitlines() if "watch-dog" in line] == [
        "priority-flow-control watch-dog-interval on"
    ]
    assert NXOS.parse_config(text, device).watchdog == as_expressed(state).watchdog


def _lab_outputs(lab_fabric: Fabric, lab_policy: Policy) -> dict[str, str]:
    """What a healthy lab leaf prints, the lab's fabric with its switches on NX-OS."""
    devices = {
        n: dataclasses.replace(d, platform="nxos") if d.is_switch else d
        for n, d in lab_fabric.devices.items()
    }
    fabric = Fabric(lab_fabric.name, lab_fabric.rails, devices, lab_fabric.links, lab_fabric.policy_ref)
    device = devices["leaf-su1-r1"]
    outputs = simulator(NXOS.name).render_outputs(live_states(fabric, lab_policy)[device.name], device)
    return {c.file: outputs[c.cli] for c in NXOS.commands(device)}


@settings(max_examples=100, deadline=None)
@given(data=st.data(), source=st.sampled_from(["lab", "production-shaped"]))
def test_damaged_outputs_never_crash_the_parser(
    lab_fabric, lab_policy, data: st.DataObject, source: str
) -> None:
    """Whatever an NX-OS switch prints, lab-rendered or production-shaped, parsing gives a state
    (with unknowns), never an exception; so does a damaged config file."""
    device = Device("leaf-su1-r1", Role.LEAF, "nxos", su=1, rail=1)
    if source == "lab":
        files = _lab_outputs(lab_fabric, lab_policy)
    else:
        files = {
            c.file: (FIXTURES / f"{c.file}.txt").read_text(encoding="utf-8") for c in NXOS.commands(device)
        }
    state = NXOS.parse_outputs(data.draw(damaged(files)), device)
    assert state.name == device.name
    config = data.draw(damaged({"config": files["show_running-config"]}))["config"]
    assert NXOS.parse_config(config, device).name == device.name
