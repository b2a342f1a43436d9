"""parse(render(x)) == x for every platform, over random valid policies, fabrics and drifted states."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.inventory import InventorySpec, expand_topology
from netcfg.lab.devices import live_states
from netcfg.model import Device, DeviceState, EcnSetting, Fabric, Role, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator
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


ECN = st.builds(EcnSetting, st.integers(1, 10**8), st.integers(1, 10**8), st.integers(1, 100))


def drift(state: DeviceState, data: st.DataObject) -> DeviceState:
    """Change some ports the way real drift does, so rendering must fall back from the shared profile."""
    ports = dict(state.interfaces)
    switch = state.platform != "connectx"
    for name in data.draw(st.lists(st.sampled_from(sorted(ports)), max_size=3, unique=True)):
        port = ports[name]
        no_drop = frozenset(data.draw(st.sets(st.integers(0, 7), max_size=2)))
        ports[name] = dataclasses.replace(
            port,
            mtu=data.draw(st.sampled_from([port.mtu, 1500, 9000])),
            trust=data.draw(st.sampled_from(["cos" if switch else "pcp", "dscp"])),
            no_drop_priorities=no_drop,
            # A ConnectX NIC has no PFC switch apart from its per-priority bitmap.
            pfc_enabled=port.pfc_enabled if switch else bool(no_drop),
            # Switches mark ECN per queue; a NIC's ECN knobs are per priority (ecn_np/rp_priorities).
            ecn=data.draw(st.sampled_from([{}, port.ecn, {3: data.draw(ECN)}])) if switch else port.ecn,
        )
    # A switch may carry a class on another egress queue than its own number (EOS `qos map
    # traffic-class N to tx-queue M`); the identity is what no line means, so it is never listed.
    tc_queue = data.draw(st.dictionaries(st.integers(0, 7), st.integers(0, 7))) if switch else {}
    tc_queue = {tc: q for tc, q in tc_queue.items() if tc != q}
    return dataclasses.replace(state, interfaces=ports, tc_queue=tc_queue)


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
            if not device.is_switch:
                # What a host's driver, kernel and firmware run beyond its script (live_nic, the GID
                # table, the ROCE_ACCL register, the firmware's planes).
                port.gids = port.priority_buffers = port.dcbx_agent = port.reorder_tolerant = None
                port.nic_planes = None
                port.pg_buffers = {}
        parsed = platform.parse_config(platform.render_config(intent, device), device)
        assert parsed == intent


@SETTINGS
@given(policy=policies(), fabric=fabrics(), data=st.data())
def test_parse_render_outputs_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        platform = get_platform(device.platform)
        state = drift(live, data)
        outputs = simulator(platform.name).render_outputs(state, device)
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
        outputs = simulator(platform.name).render_outputs(live[name], device)
        files = {c.file: outputs[c.cli] for c in platform.commands(device)}
        state = platform.parse_outputs(data.draw(damaged(files)), device)
        assert state.name == name


# --- EOS syntax the renderer never writes, but devices and people do ------------------------------

EOS = get_platform("eos")
LEAF = Device("leaf1", Role.LEAF, "eos")
UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
WATCHDOG_LINES = {
    "timeout": "priority-flow-control pause watchdog default timeout {}",
    "recovery": "priority-flow-control pause watchdog default recovery-time {}",
    "polling": "priority-flow-control pause watchdog default polling-interval {}",
    "action": "priority-flow-control pause watchdog action {}",
}


def _eos_config(global_lines: list[str], queue_lines: list[str]) -> str:
    return "\n".join(
        [
            "! device: leaf1 (DCS-7060X6-64PE, EOS-4.32.1F)",
            "interface Ethernet1",
            "   mtu 9214",
            "   qos trust dscp",
            *queue_lines,
            "!",
            *global_lines,
            "end",
            "",
        ]
    )


@SETTINGS
@given(
    value=st.integers(0, 10**9),
    unit=st.sampled_from(sorted(UNITS)),
    queue=st.sampled_from(["tx-queue", "uc-tx-queue"]),
)
def test_ecn_thresholds_in_any_unit_and_decimal_form_read_as_bytes(value: int, unit: str, queue: str):
    """A threshold written as a decimal of any unit (`0.15 mbytes`) is exactly that many bytes."""
    written = format(Decimal(value) / UNITS[unit], "f")
    line = (
        f"      random-detect ecn minimum-threshold {written} {unit} "
        f"maximum-threshold {written} {unit} max-mark-probability 7"
    )
    state = EOS.parse_config(_eos_config([], [f"   {queue} 3", line]), LEAF)
    assert state.interfaces["Ethernet1"].ecn == {3: EcnSetting(value, value, 7)}


@SETTINGS
@given(
    present=st.lists(st.sampled_from(sorted(WATCHDOG_LINES)), unique=True),
    data=st.data(),
)
def test_watchdog_lines_in_any_order_and_any_subset(present: list[str], data: st.DataObject):
    values = {"timeout": "0.2", "recovery": "0.35", "polling": "0.05", "action": "errdisable"}
    order = data.draw(st.permutations(present))
    state = EOS.parse_config(_eos_config([WATCHDOG_LINES[k].format(values[k]) for k in order], []), LEAF)
    if not present:
        assert state.watchdog == Watchdog(enabled=False)
        return
    assert state.watchdog == Watchdog(
        enabled=True,
        action="errdisable" if "action" in present else None,
        detection_ms=200 if "timeout" in present else None,
        restoration_ms=350 if "recovery" in present else None,
        polling_ms=50 if "polling" in present else None,
    )


@SETTINGS
@given(
    mc_queues=st.lists(st.integers(0, 7), max_size=4, unique=True),
    where=st.integers(0, 2),
    strict=st.booleans(),
)
def test_multicast_queues_never_change_the_unicast_queues(mc_queues: list[int], where: int, strict: bool):
    """`mc-tx-queue N` blocks, wherever they stand, are not the unicast queues the checks read."""
    unicast = [
        "   tx-queue 3",
        "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
        "   tx-queue 6",
        "      priority strict",
    ]
    mc = [
        line
        for q in mc_queues
        for line in (
            f"   mc-tx-queue {q}",
            "      priority strict" if strict else "      no priority",
            "      random-detect ecn count",
        )
    ]
    cut = [0, 2, 4][where]
    plain = EOS.parse_config(_eos_config([], unicast), LEAF).interfaces["Ethernet1"]
    mixed = EOS.parse_config(_eos_config([], unicast[:cut] + mc + unicast[cut:]), LEAF).interfaces[
        "Ethernet1"
    ]
    assert mixed.strict_queues == plain.strict_queues == frozenset({6})
    assert mixed.ecn == plain.ecn == {3: EcnSetting(150_000, 1_500_000, 100)}


FIXTURES = Path(__file__).parent / "fixtures"
REAL_SHAPED = {
    "eos": {
        "show_running-config": "eos/running_config_production.cfg",
        "show_lldp_neighbors": "eos/show_lldp_neighbors.txt",
        "show_version": "eos/show_version_7060x6.txt",
    },
    "connectx": {
        "mlnx_qos_eth0": "connectx/mlnx_qos_tabs_ets_strict.txt",
        "mlnx_qos_eth1": "connectx/mlnx_qos_dscp26_prio4.txt",
        "sysfs_eth0": "connectx/sysfs_eth1.txt",
        "ethtool_eth0": "connectx/ethtool_i_intel_i40e.txt",
        "ethtool_eth1": "connectx/ethtool_i_cx7_psid.txt",
        "lldpcli_show_neighbors": "connectx/lldpcli_show_neighbors.txt",
    },
}
CONFIGS = {"eos": "eos/running_config_production.cfg", "connectx": "connectx/host_hand_edited.sh"}


@settings(max_examples=100, deadline=None)
@given(data=st.data(), platform=st.sampled_from(sorted(REAL_SHAPED)))
def test_damaged_real_shaped_outputs_and_configs_never_crash_the_parser(
    lab_fabric, data: st.DataObject, platform: str
) -> None:
    """Production-shaped outputs and configs, damaged: parsing gives a state, never an exception."""
    device = lab_fabric.devices["leaf-su1-r1" if platform == "eos" else "gpu01"]
    impl = get_platform(platform)
    files = {f: (FIXTURES / p).read_text(encoding="utf-8") for f, p in REAL_SHAPED[platform].items()}
    state = impl.parse_outputs(data.draw(damaged(files)), device)
    assert state.name == device.name
    config = data.draw(damaged({"config": (FIXTURES / CONFIGS[platform]).read_text(encoding="utf-8")}))
    assert impl.parse_config(config["config"], device).name == device.name


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_port_copy_is_dataclasses_replace(data: st.DataObject) -> None:
    """The parsers' fast copy of a shared port shape equals `dataclasses.replace`, and shares no
    field the caller replaces."""
    from netcfg.model import InterfaceState, port_copy

    port = InterfaceState(
        name="Ethernet1",
        mtu=data.draw(st.none() | st.integers(68, 9216)),
        pfc_enabled=data.draw(st.none() | st.booleans()),
        no_drop_priorities=data.draw(st.none() | st.frozensets(st.integers(0, 7))),
        ecn={3: data.draw(ECN)},
    )
    name = data.draw(st.sampled_from(["Ethernet2", "eth0", "swp7"]))
    copied = port_copy(port, name, ecn=dict(port.ecn), description="x")
    assert copied == dataclasses.replace(port, name=name, ecn=dict(port.ecn), description="x")
    assert copied.ecn is not port.ecn and port.name == "Ethernet1" and port.description is None
