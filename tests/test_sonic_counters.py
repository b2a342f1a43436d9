"""SONiC link state and counters: production-shaped outputs (a PortChannel row, a port down, a port
shut, N/A cells, commas, multicast queues, one queue table per port) read right, releases without a
command leave its counters unknown, unreadable output is reported once, and the lab's states with
counters and faults read back as they were printed."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import with_counters
from netcfg.lab.snapshot import simulated_devices
from netcfg.model import Device, DeviceState, Fabric, PortCounters
from netcfg.platforms.simulator import simulator
from netcfg.platforms.sonic.commands import COUNTER_COMMANDS
from netcfg.policy import Policy, load_policy
from tests.test_roundtrip import SETTINGS
from tests.test_sonic import FIXTURES, INVENTORY, leaf, outputs, sonic

CLICK_NO_FLAP = (
    "Usage: show interfaces [OPTIONS] COMMAND [ARGS]...\n"
    'Try "show interfaces -h" for help.\n\n'
    "Error: No such command 'flap'.\n"
)


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return load_fabric(INVENTORY)


@pytest.fixture(scope="module")
def policy(fabric: Fabric) -> Policy:
    return load_policy(fabric.policy_ref)


def test_production_outputs_give_link_state_and_counters(fabric):
    state = sonic.parse_outputs(outputs(), leaf(fabric))
    assert state.unparsed == {} and {"link", "counters"} <= state.facets
    link = {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()}
    # Ethernet3 negotiated half its speed; Ethernet4 is down (its 400G is the configured speed, not
    # a running one); Ethernet60 is shut; the PortChannel row is no port of the config.
    assert link == {
        "Ethernet1": (True, 400),
        "Ethernet2": (True, 400),
        "Ethernet3": (True, 200),
        "Ethernet4": (False, None),
        "Ethernet31": (True, 400),
        "Ethernet32": (True, 400),
        "Ethernet60": (False, None),
    }
    # Ethernet60 prints N/A everywhere and never changed state: it has no counters at all.
    assert set(state.counters) == {
        "Ethernet1",
        "Ethernet2",
        "Ethernet3",
        "Ethernet4",
        "Ethernet31",
        "Ethernet32",
    }
    e1, e2, e3, e4 = (state.counters[p] for p in ("Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"))
    # flap_count counts oper changes, the first coming-up included: 1 -> 0 downs, 5 -> 2, 6 -> 3.
    assert (e1.link_downs, e2.link_downs, e3.link_downs, e4.link_downs) == (0, 2, 1, 3)
    assert (e3.fec_corrected, e3.fec_uncorrected, e3.symbol_errors, e3.crc_errors) == (
        871_002_419,
        3_117,
        902_114_876,
        18_204,
    )
    assert e1.pause_rx == {0: 0, 1: 0, 2: 0, 3: 1_482_113, 4: 211_730, 5: 0, 6: 0, 7: 0}
    assert e2.pause_tx[3] == 192_408
    # The watchdog guards 3 and 4 on Ethernet1-4 and 31; Ethernet2:3 is stormed now.
    assert (e2.watchdog_storms, e2.stormed) == ({3: 4, 4: 0}, frozenset({3}))
    assert (e3.watchdog_storms, e3.stormed) == ({3: 1, 4: 0}, frozenset())
    assert state.counters["Ethernet32"].watchdog_storms == {}
    # Unicast queues only: MC8-MC15 are other queues.
    assert e2.queue_drops == {0: 5, 1: 0, 2: 0, 3: 17, 4: 0, 5: 0, 6: 0, 7: 0}
    assert e2.ecn_marked[3] == 160_000 and set(e2.ecn_marked) == set(range(8))
    assert (e1.no_buffer_discards, e2.no_buffer_discards) == (0, 3)
    # A switch has no RoCE NIC counters.
    assert (e1.cnp_sent, e1.cnp_handled, e1.ecn_marked_roce, e1.out_of_buffer, e1.retransmits) == (None,) * 5


def test_releases_without_a_command_or_its_polling_leave_those_counters_unknown(fabric):
    state = sonic.parse_outputs(
        outputs(
            show_interfaces_flap=CLICK_NO_FLAP,
            show_queue_wredcounters=CLICK_NO_FLAP.replace("interfaces", "queue").replace(
                "flap", "wredcounters"
            ),
            show_priority_group_drop_counters=(
                "Warning: PG counters are disabled. Use 'counterpoll pg-drop enable' to enable polling\n"
            ),
            show_queue_counters="COUNTERS_QUEUE_NAME_MAP is empty!\n",
        ),
        leaf(fabric),
    )
    assert state.unparsed == {} and "counters" in state.facets
    for port in state.counters.values():
        assert (port.link_downs, port.no_buffer_discards, port.ecn_marked, port.queue_drops) == (
            None,
            None,
            {},
            {},
        )
    assert state.counters["Ethernet3"].fec_uncorrected == 3_117


def test_a_snapshot_from_before_counters_were_collected_reads_without_them(fabric):
    old = {f: t for f, t in outputs().items() if f not in {c.file for c in COUNTER_COMMANDS}}
    state = sonic.parse_outputs(old, leaf(fabric))
    assert state.unparsed == {} and state.counters == {}
    assert "counters" not in state.facets and "link" in state.facets


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("pfcwd_show_stats", "Permission denied\n"),
        ("show_pfc_counters", (FIXTURES / "show_pfc_counters.txt").read_text().split("\n\n")[0]),
        ("show_interfaces_counters_fec_stats", ""),
        (
            "show_interfaces_counters_errors",
            (FIXTURES / "show_interfaces_counters_errors.txt").read_text().replace("18,204", "18.2k"),
        ),
    ],
)
def test_an_unreadable_counter_output_is_reported_once_and_drops_the_counters(fabric, file, text):
    state = sonic.parse_outputs(outputs(**{file: text}), leaf(fabric))
    (command,) = [c.cli for c in COUNTER_COMMANDS if c.file == file]
    assert set(state.unparsed) == {command}
    assert "counters" not in state.facets and {"qos", "link"} <= state.facets


def test_an_unreadable_interfaces_status_drops_the_link_state(fabric):
    state = sonic.parse_outputs(outputs(show_interfaces_status="Error: timeout\n"), leaf(fabric))
    assert "show interfaces status" in state.unparsed and "link" not in state.facets
    assert all(p.oper_up is None and p.speed_gbps is None for p in state.interfaces.values())


# --- round trip: what the lab prints reads back ---------------------------------------------------


def shown(state: DeviceState) -> DeviceState:
    """The state as SONiC can show it: a port that is down prints its configured speed, not one it
    runs at."""
    ports = {
        n: dataclasses.replace(p, speed_gbps=p.speed_gbps if p.oper_up else None)
        for n, p in state.interfaces.items()
    }
    return dataclasses.replace(state, interfaces=ports)


def roundtrip(state: DeviceState, device) -> DeviceState:
    replies = simulator(sonic.name).render_outputs(state, device)
    return sonic.parse_outputs({c.file: replies[c.cli] for c in sonic.commands(device)}, device)


def test_the_lab_with_every_link_fault_reads_back_as_it_was_played(fabric, policy):
    faults = {
        "leaf-su1-r1": DeviceFaults(
            speed_gbps={"Ethernet3": 200}, link_down=["Ethernet4"], fec_errors=["Ethernet1"]
        ),
        "leaf-su1-r2": DeviceFaults(flapping=["Ethernet2"], crc_errors=["Ethernet1"]),
        "leaf-su2-r1": DeviceFaults(pause_storm=["Ethernet1"], lossless_drops=["Ethernet2"]),
        "spine1": DeviceFaults(watchdog_off=["Ethernet2"], pause_storm=["Ethernet2"]),
    }
    at = 1_782_000_000.0
    parsed = {}
    for name, simulated in simulated_devices(fabric, policy, faults).items():
        if not simulated.device.is_switch:
            continue
        state = with_counters(simulated.state, simulated.rates, simulated.roce_queue, at, reads=4)
        assert state.counters and {"link", "counters"} <= state.facets
        parsed[name] = roundtrip(state, simulated.device)
        assert parsed[name] == shown(state), name
        assert parsed[name].counters == state.counters, name
    leaf1 = parsed["leaf-su1-r1"]
    assert (leaf1.interfaces["Ethernet3"].speed_gbps, leaf1.interfaces["Ethernet4"].oper_up) == (200, False)
    assert "Ethernet4" not in leaf1.counters
    assert leaf1.counters["Ethernet1"].fec_uncorrected > 0 == leaf1.counters["Ethernet2"].fec_uncorrected
    flapping, steady = (parsed["leaf-su1-r2"].counters[p].link_downs for p in ("Ethernet2", "Ethernet3"))
    # Four earlier readings: the flapping port shows its fifth flap on top of the one every port has.
    assert (flapping, steady) == (6, 1)
    storm = parsed["leaf-su2-r1"].counters["Ethernet1"]
    assert storm.stormed == frozenset({3}) and storm.watchdog_storms == {3: 5}
    drops = parsed["leaf-su2-r1"].counters["Ethernet2"]
    assert drops.no_buffer_discards == drops.queue_drops[3] > 0
    # No watchdog on spine1's Ethernet2: its storm shows in pause frames only.
    unguarded = parsed["spine1"].counters["Ethernet2"]
    assert (unguarded.watchdog_storms, unguarded.stormed) == ({}, frozenset())
    assert unguarded.pause_rx[3] > 1000 * parsed["spine1"].counters["Ethernet1"].pause_rx[3]


@pytest.fixture(scope="module")
def lab_switches(fabric: Fabric, policy: Policy) -> dict[str, tuple[DeviceState, Device]]:
    simulated = simulated_devices(fabric, policy, {})
    return {n: (s.state, s.device) for n, s in simulated.items() if s.device.is_switch}


COUNT = st.integers(0, 2**64 - 1)
QUEUE_COUNTS = st.dictionaries(st.integers(0, 7), COUNT, max_size=8)


@st.composite
def port_counters(draw: st.DrawFn) -> PortCounters:
    """Any counters SONiC prints (it has no NIC counters; a port it shows counts for has a FEC count)."""
    storms = draw(QUEUE_COUNTS)
    return PortCounters(
        link_downs=draw(st.integers(0, 10**6)),
        fec_corrected=draw(COUNT),
        fec_uncorrected=draw(st.none() | COUNT),
        crc_errors=draw(st.none() | COUNT),
        symbol_errors=draw(st.none() | COUNT),
        pause_rx=draw(QUEUE_COUNTS),
        pause_tx=draw(QUEUE_COUNTS),
        ecn_marked=draw(QUEUE_COUNTS),
        queue_drops=draw(QUEUE_COUNTS),
        no_buffer_discards=draw(st.none() | COUNT),
        watchdog_storms=storms,
        stormed=frozenset(draw(st.sets(st.sampled_from(sorted(storms)))) if storms else ()),
    )


@SETTINGS
@given(data=st.data())
def test_any_link_state_and_counters_read_back_as_printed(lab_switches, data: st.DataObject) -> None:
    state, device = lab_switches[data.draw(st.sampled_from(sorted(lab_switches)))]
    ports = {}
    for port_name, port in state.interfaces.items():
        oper = data.draw(st.sampled_from([True, True, False, None]))
        speed = data.draw(st.sampled_from([100, 200, 400, 800])) if oper else None
        ports[port_name] = dataclasses.replace(port, oper_up=oper, speed_gbps=speed)
    counted = data.draw(st.lists(st.sampled_from(sorted(ports)), unique=True))
    state = dataclasses.replace(
        state,
        interfaces=ports,
        counters={p: data.draw(port_counters()) for p in sorted(counted)},
        facets=state.facets - {"link", "counters"}
        | ({"link"} if any(p.oper_up is not None for p in ports.values()) else set())
        | ({"counters"} if counted else set()),
    )
    assert roundtrip(state, device) == state
