"""parse(render(x)) == x for every platform, over random valid policies, fabrics and drifted states."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.inventory import InventorySpec, expand_topology
from netcfg.lab.devices import live_states
from netcfg.model import DeviceState, Fabric
from netcfg.platforms import get_platform
from netcfg.policy import Policy

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    roce_dscp, cnp_dscp = draw(st.lists(st.integers(0, 63), min_size=2, max_size=2, unique=True))
    roce_prio, cnp_prio = draw(st.lists(st.integers(0, 7), min_size=2, max_size=2, unique=True))
    ecn_min = draw(st.integers(1, 5000))
    switch_mtu = draw(st.integers(1500, 9216))  # a policy with host MTU above switch MTU is refused
    return Policy.model_validate(
        {
            "name": "random",
            "roce": {"dscp": roce_dscp, "priority": roce_prio},
            "cnp": {"dscp": cnp_dscp, "priority": cnp_prio},
            "cnp_strict": draw(st.booleans()),
            "ecn": {
                "min_kbytes": ecn_min,
                "max_kbytes": draw(st.integers(ecn_min, 20000)),
                "probability": draw(st.integers(1, 100)),
            },
            "pfc_watchdog": {
                "detection_ms": draw(st.integers(10, 5000)),
                "restoration_ms": draw(st.integers(10, 5000)),
                "polling_ms": draw(st.integers(5, 1000)),
                "action": draw(st.sampled_from(["drop", "errdisable"])),
            },
            "mtu": {"switch": switch_mtu, "host": draw(st.integers(1500, switch_mtu))},
            "host": {
                "roce_tos": draw(st.none() | st.integers(0, 3).map(lambda ecn: roce_dscp << 2 | ecn)),
                "min_time_between_cnps_us": draw(st.integers(0, 100)),
                "dcqcn": {
                    "rpg_time_reset": draw(st.integers(1, 3000)),
                    "rpg_ai_rate": draw(st.integers(1, 100)),
                },
            },
        }
    )


@st.composite
def fabrics(draw: st.DrawFn) -> Fabric:
    rails = draw(st.integers(1, 4))
    spines = draw(st.integers(1, 3))
    spec = InventorySpec.model_validate(
        {
            "name": "random",
            "topology": {
                "scalable_units": draw(st.integers(1, 2)),
                "servers_per_su": draw(st.integers(1, 3)),
                "rails": rails,
                "host_links": {"cable_m": draw(st.integers(1, 100))},
                "spine": {"count": spines, "leaf_first_port": 40},
            },
        }
    )
    assert spec.topology is not None
    b = expand_topology(spec, spec.topology, "random")
    return Fabric("random", rails, b.devices, b.links, "random")


def drift(state: DeviceState, data: st.DataObject) -> DeviceState:
    """Change some ports the way real drift does, so rendering must fall back from the shared profile."""
    ports = dict(state.interfaces)
    for name in data.draw(st.lists(st.sampled_from(sorted(ports)), max_size=3, unique=True)):
        port = ports[name]
        no_drop = frozenset(data.draw(st.sets(st.integers(0, 7), max_size=2)))
        ports[name] = dataclasses.replace(
            port,
            mtu=data.draw(st.sampled_from([port.mtu, 1500, 9000])),
            trust=data.draw(st.sampled_from(["dscp", "pcp" if state.platform == "connectx" else "cos"])),
            no_drop_priorities=no_drop,
            # A ConnectX NIC has no PFC switch apart from its per-priority bitmap.
            pfc_enabled=bool(no_drop) if state.platform == "connectx" else port.pfc_enabled,
            ecn={} if data.draw(st.booleans()) else port.ecn,
        )
    return dataclasses.replace(state, interfaces=ports)


@SETTINGS
@given(policy=policies(), fabric=fabrics(), data=st.data())
def test_parse_render_config_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        platform = get_platform(device.platform)
        intent = dataclasses.replace(
            drift(live, data), facets=frozenset({"qos"}), os_version=None, model=None, lldp=[]
        )
        for port in intent.interfaces.values():
            port.firmware = port.driver = None
        assert platform.parse_config(platform.render_config(intent, device), device) == intent


@SETTINGS
@given(policy=policies(), fabric=fabrics(), data=st.data())
def test_parse_render_outputs_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        platform = get_platform(device.platform)
        state = drift(live, data)
        outputs = platform.render_outputs(state, device)
        by_file = {c.file: outputs[c.cli] for c in platform.commands(device)}
        assert platform.parse_outputs(by_file, device) == state


@st.composite
def damaged(draw: st.DrawFn, outputs: dict[str, str]) -> dict[str, str]:
    """Outputs with lines dropped, repeated from elsewhere, or with a character changed."""
    pool = [line for text in outputs.values() for line in text.splitlines()]
    out = {}
    for file, text in outputs.items():
        lines = text.splitlines()
        for _ in range(draw(st.integers(0, 5))):
            op = draw(st.sampled_from(["drop", "insert", "edit"]))
            if op == "insert" or not lines:
                lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(pool)))
                continue
            i = draw(st.integers(0, len(lines) - 1))
            if op == "drop" or not lines[i]:
                del lines[i]
            else:
                j = draw(st.integers(0, len(lines[i]) - 1))
                lines[i] = (
                    lines[i][:j] + draw(st.sampled_from(["", "x", ":", ",", " ", "9"])) + lines[i][j + 1 :]
                )
        out[file] = "\n".join(lines) + "\n"
    return out


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_damaged_outputs_never_crash_the_parser(lab_fabric, lab_policy, data: st.DataObject) -> None:
    """Whatever a device prints, parsing gives a state (with unknowns), never an exception."""
    fabric = lab_fabric
    live = live_states(fabric, lab_policy)
    for name in ("leaf-su1-r1", "gpu01"):
        device = fabric.devices[name]
        platform = get_platform(device.platform)
        outputs = platform.render_outputs(live[name], device)
        files = {c.file: outputs[c.cli] for c in platform.commands(device)}
        state = platform.parse_outputs(data.draw(damaged(files)), device)
        assert state.name == name
