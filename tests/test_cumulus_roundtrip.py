"""parse(render(x)) == x for Cumulus switches: random policies NVUE can express, random fabrics, states
drifted the ways a Cumulus switch can drift (per-port profiles, trust, PFC, ECN, strict queues, cable
length, watchdog, RoCE mode), lossless and lossy, as a config and as the four collected outputs with
applied-but-not-operational gaps."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.inventory import InventorySpec, expand_topology
from netcfg.lab.devices import live_states
from netcfg.model import DeviceState, Fabric, Watchdog, port_sort_key
from netcfg.platforms import get_platform
from netcfg.platforms.cumulus.defaults import ROCE_MODES, STOCK_DSCP_MAP
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy
from tests.test_roundtrip import ECN, SETTINGS, damaged, policies

NV = get_platform("cumulus")
FIXTURES = Path(__file__).parent / "fixtures" / "cumulus"


@st.composite
def cumulus_policies(draw: st.DrawFn) -> Policy:
    """A random policy as NVUE can run it: the watchdog drops, restores after one polling interval and
    detects after a whole number of them (what it cannot express is tested in test_cumulus.py)."""
    policy = draw(policies())
    wd = policy.pfc_watchdog
    intervals = max(1, round(wd.detection_ms / wd.polling_ms))
    watchdog = wd.model_dump() | {
        "action": "drop",
        "restoration_ms": wd.polling_ms,
        "detection_ms": intervals * wd.polling_ms,
    }
    mode = draw(st.sampled_from(["lossless", "lossy"]))
    return Policy.model_validate(policy.model_dump() | {"pfc_watchdog": watchdog, "mode": mode})


@st.composite
def cumulus_fabrics(draw: st.DrawFn) -> Fabric:
    spec = InventorySpec.model_validate(
        {
            "name": "random",
            "platforms": {"switch": "cumulus", "host": "connectx"},
            "topology": {
                "scalable_units": draw(st.integers(1, 2)),
                "servers_per_su": draw(st.integers(1, 3)),
                "rails": draw(st.integers(1, 3)),
                "host_links": {"cable_m": draw(st.integers(1, 100)), "leaf_port": "swp{port}"},
                "spine": {
                    "count": draw(st.integers(1, 2)),
                    "cable_m": draw(st.integers(1, 500)),
                    "leaf_first_port": 49,
                    "leaf_port": "swp{port}",
                    "spine_port": "swp{port}",
                },
            },
        }
    )
    assert spec.topology is not None
    built = expand_topology(spec, spec.topology, "random")
    return Fabric("random", spec.topology.rails, built.devices, built.links, "random")


def drift(state: DeviceState, data: st.DataObject) -> DeviceState:
    """Change ports and switch-wide settings the ways a Cumulus switch can run them."""
    ports = dict(state.interfaces)
    for name in data.draw(st.lists(st.sampled_from(sorted(ports)), max_size=3, unique=True)):
        port = ports[name]
        no_drop = frozenset(data.draw(st.sets(st.integers(0, 7), max_size=2)))
        table = None
        if data.draw(st.booleans()):
            own = {
                **STOCK_DSCP_MAP,
                **data.draw(st.dictionaries(st.integers(0, 63), st.integers(0, 7), max_size=3)),
            }
            table = own if own != {**STOCK_DSCP_MAP, **state.dscp_map} else None
        ports[name] = dataclasses.replace(
            port,
            mtu=data.draw(st.sampled_from([port.mtu, 1500, 9000, 9216])),
            trust=data.draw(st.sampled_from(["pcp", "dscp", "pcp,dscp"])),
            # PFC on means pausing some priority; off may still name priorities (tx and rx disabled).
            pfc_enabled=bool(no_drop) and data.draw(st.booleans()),
            no_drop_priorities=no_drop,
            ecn=data.draw(st.sampled_from([{}, port.ecn, {data.draw(st.integers(0, 7)): data.draw(ECN)}])),
            strict_queues=frozenset(data.draw(st.sets(st.integers(0, 7), max_size=3))),
            watchdog=data.draw(st.booleans()),
            cable_m=data.draw(st.integers(1, 2000)),
            dscp_map=table,
        )
    dscp_map = {
        **state.dscp_map,
        **data.draw(st.dictionaries(st.integers(0, 63), st.integers(0, 7), max_size=3)),
    }
    tc_queue = data.draw(st.dictionaries(st.integers(0, 7), st.integers(0, 7), max_size=3))
    # None: RoCE not configured, the switch's stock QoS with overrides.
    roce = data.draw(st.sampled_from([state.qos_names.get("roce_mode"), *ROCE_MODES, None]))
    watchdog = (
        state.watchdog if state.watchdog and state.watchdog.enabled else Watchdog(True, "drop", 300, 100, 100)
    )
    # A port's own map that the device's drifted map now equals is the device's map: no own profile.
    shared = {**STOCK_DSCP_MAP, **dscp_map}
    ports = {
        n: dataclasses.replace(p, dscp_map=None) if p.dscp_map == shared else p for n, p in ports.items()
    }
    return dataclasses.replace(
        state,
        interfaces=ports,
        dscp_map=dscp_map,
        tc_queue={**state.tc_queue, **{sp: q for sp, q in tc_queue.items()}},
        qos_names={"roce_mode": roce} if roce else {},
        watchdog=watchdog if any(p.watchdog for p in ports.values()) else Watchdog(enabled=False),
    )


def _identity_free(state: DeviceState) -> DeviceState:
    """tc_queue lists only classes not on their own queue: that is what no line means."""
    return dataclasses.replace(state, tc_queue={sp: q for sp, q in state.tc_queue.items() if sp != q})


@SETTINGS
@given(policy=cumulus_policies(), fabric=cumulus_fabrics(), data=st.data())
def test_config_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform != NV.name:
            continue
        intent = _identity_free(drift(live, data))
        intent = dataclasses.replace(intent, facets=frozenset({"qos"}), os_version=None, model=None, lldp=[])
        assert NV.parse_config(NV.render_config(intent, device), device) == intent


@SETTINGS
@given(policy=cumulus_policies(), fabric=cumulus_fabrics(), data=st.data())
def test_outputs_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    """What the lab prints of a switch, the hardware lagging behind its config in random ways, reads back
    as that switch: its applied configuration and every gap."""
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform != NV.name:
            continue
        state = _identity_free(drift(live, data))
        state.lldp = sorted(state.lldp, key=lambda n: port_sort_key(n.local_interface))
        state.os_version = data.draw(st.sampled_from(["5.9.1", "5.14.0", "5.16.0"]))
        if data.draw(st.booleans()):
            running = _identity_free(drift(state, data))
            for port in running.interfaces.values():
                port.mtu = data.draw(st.sampled_from([port.mtu, 1500]))
            state.not_operational = simulator(NV.name).operational_gap(state, running)
        outputs = simulator(NV.name).render_outputs(state, device)
        by_file = {c.file: outputs[c.cli] for c in NV.commands(device)}
        assert NV.parse_outputs(by_file, device) == state


REAL_SHAPED = {
    "nv_show_system": "nv_show_system_5.16.txt",
    "nv_config_show_commands": "leaf-su1-r1_nv_config_show_commands.txt",
    "nv_show_qos_roce": "nv_show_qos_roce_lossless.txt",
    "nv_show_interface_json": "nv_show_interface_json.txt",
    "nv_show_interface_counters_qos_json": "nv_show_interface_counters_qos_json.txt",
    "nv_show_interface_counters_errors": "nv_show_interface_counters_errors.txt",
    "nv_show_interface_qos_roce_counters": "nv_show_interface_qos_roce_counters.txt",
    "nv_show_interface_qos_pfc_watchdog": "nv_show_interface_qos_pfc_watchdog.txt",
    "nv_show_interface_link_phy_health": "nv_show_interface_link_phy_health.txt",
}


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_damaged_outputs_and_configs_never_crash_the_parser(data: st.DataObject) -> None:
    """Production-shaped outputs and both config forms, damaged: a state with unknowns, never an exception."""
    from netcfg.inventory import load_fabric

    device = load_fabric(FIXTURES / "lab").devices["leaf-su1-r1"]
    files = {f: (FIXTURES / p).read_text() for f, p in REAL_SHAPED.items()}
    assert NV.parse_outputs(data.draw(damaged(files)), device).name == device.name
    name = data.draw(st.sampled_from(["leaf-su1-r1_nv_config_show_commands.txt", "leaf-su1-r1_startup.yaml"]))
    config = data.draw(damaged({"config": (FIXTURES / name).read_text()}))["config"]
    assert NV.parse_config(config, device).name == device.name
