"""EOS link state and counters: production-shaped outputs read right, lab states round-trip through
what the switch prints, unreadable outputs are reported once, and a live collection over SSH reads
the lab's link state, counters and faults back."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import with_counters
from netcfg.lab.snapshot import SimulatedDevice, simulated_devices
from netcfg.model import Device, DeviceState, PortCounters, Role
from netcfg.nornir_inventory import Login
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.platforms.eos.commands import SHOW_INTERFACES, SHOW_PFC, SHOW_PFC_WATCHDOG, SHOW_PHY
from netcfg.platforms.eos.lab import pause_counters_json, watchdog_json
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy
from netcfg.sources import snapshot_states
from tests.live_lab import live_audit
from tests.test_roundtrip import damaged, policies

EOS = get_platform("eos")
FIXTURES = Path(__file__).parent / "fixtures" / "eos"
LEAF = Device("leaf-su1-r1", Role.LEAF, "eos")
# What the production switch printed (tests/fixtures/eos), by snapshot file.
PRODUCTION = {
    "show_running-config": "running_config_production.cfg",
    "show_lldp_neighbors": "show_lldp_neighbors.txt",
    "show_interfaces": "show_interfaces_7060x6.txt",
    "show_interfaces_phy_detail": "show_interfaces_phy_detail_7060x6.txt",
    "show_priority-flow-control_counters_detail": "show_priority-flow-control_counters_detail.json",
    "show_priority-flow-control_counters_watchdog": "show_priority-flow-control_counters_watchdog.json",
}
# The lab's faults that show in link state and counters, each on its own switch.
FAULTS = {
    "leaf-su1-r2": DeviceFaults(speed_gbps={"Ethernet3": 200}),
    "leaf-su1-r3": DeviceFaults(link_down=["Ethernet4"]),
    "leaf-su1-r4": DeviceFaults(flapping=["Ethernet2"]),
    "leaf-su2-r1": DeviceFaults(fec_errors=["Ethernet1"]),
    "leaf-su2-r2": DeviceFaults(crc_errors=["Ethernet2"]),
    "leaf-su2-r3": DeviceFaults(pause_storm=["Ethernet1"]),
    "leaf-su2-r4": DeviceFaults(lossless_drops=["Ethernet1"]),
}


def production(**replaced: str | None) -> dict[str, str]:
    files = {file: (FIXTURES / name).read_text(encoding="utf-8") for file, name in PRODUCTION.items()}
    for file, text in replaced.items():
        if text is None:
            files.pop(file)
        else:
            files[file] = text
    return files


def eos_view(state: DeviceState) -> DeviceState:
    """The state as EOS's four counter commands show it: no ECN marks or drops per queue."""
    counters = {
        name: dataclasses.replace(c, ecn_marked={}, queue_drops={}) for name, c in state.counters.items()
    }
    return dataclasses.replace(state, counters=counters)


def link_state(state: DeviceState) -> dict[str, tuple[bool | None, int | None]]:
    return {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items() if p.oper_up is not None}


def parsed_lab(simulated: SimulatedDevice, now: float, reads: int) -> tuple[DeviceState, DeviceState]:
    """(the lab's state at `now` after `reads` readings, what parsing the switch's outputs gives)."""
    state = with_counters(simulated.state, simulated.rates, simulated.roce_queue, now, reads)
    outputs = simulator(EOS.name).render_outputs(state, simulated.device)
    files = {c.file: outputs[c.cli] for c in EOS.commands(simulated.device)}
    return state, EOS.parse_outputs(files, simulated.device)


# --- production-shaped outputs ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def switch() -> DeviceState:
    return EOS.parse_outputs(production(), LEAF)


def test_link_state_and_speed_of_every_front_panel_port(switch: DeviceState):
    link = {n: (p.oper_up, p.speed_gbps) for n, p in switch.interfaces.items() if p.oper_up is not None}
    assert link == {
        "Ethernet1": (True, 400),
        "Ethernet2": (True, 400),
        "Ethernet3": (True, 200),
        "Ethernet4": (False, 400),  # shut: administratively down, EOS prints its configured speed
        "Ethernet31": (True, 400),
        "Ethernet32": (False, 400),
        "Ethernet33/1": (True, 100),
        "Ethernet33/2": (False, 100),
        "Ethernet33/3": (False, 100),
        "Ethernet33/4": (False, 100),
        "Ethernet34": (True, 10),
        "Ethernet35": (True, 10),
    }
    # Management, loopback, port-channel and VLAN interfaces carry no fabric link.
    for name in ("Management1", "Loopback0", "Port-Channel10", "Vlan100"):
        assert name not in switch.interfaces or switch.interfaces[name].oper_up is None
    assert {"link", "counters", "qos", "lldp"} <= switch.facets
    assert switch.unparsed == {}


def test_counters_of_the_ports_that_are_up(switch: DeviceState):
    assert set(switch.counters) == {
        "Ethernet1",
        "Ethernet2",
        "Ethernet3",
        "Ethernet31",
        "Ethernet33/1",
        "Ethernet34",
        "Ethernet35",
    }
    zeros = {p: 0 for p in range(8)}
    assert switch.counters["Ethernet3"] == PortCounters(
        link_downs=2,
        fec_corrected=190233441,
        fec_uncorrected=31,
        crc_errors=0,
        symbol_errors=0,
        pause_rx=zeros | {3: 7731022},
        pause_tx=zeros | {3: 6120933},
        no_buffer_discards=0,
        watchdog_storms={3: 4},
        stormed=frozenset({3}),
    )
    flapped = switch.counters["Ethernet31"]
    assert (flapped.link_downs, flapped.crc_errors, flapped.symbol_errors) == (3, 1831, 1790)
    assert (flapped.watchdog_storms, flapped.stormed) == ({3: 2}, frozenset())
    assert switch.counters["Ethernet2"].no_buffer_discards == 117
    assert switch.counters["Ethernet2"].pause_rx[4] == 12


def test_watchdog_leaves_out_ports_without_events_and_fec_off_prints_nothing(switch: DeviceState):
    # Absent from the watchdog counters: no storm yet on the queues of its no-drop priorities.
    assert switch.counters["Ethernet2"].watchdog_storms == {3: 0, 4: 0}
    # No PFC watchdog on the port: nothing to count.
    assert switch.counters["Ethernet33/1"].watchdog_storms == {}
    # A 100G link without FEC: the switch prints no codeword counts, which stay unknown.
    assert switch.counters["Ethernet33/1"].fec_corrected is None
    assert switch.counters["Ethernet33/1"].fec_uncorrected is None


def test_numbers_with_thousands_separators_read_as_numbers():
    text = (FIXTURES / PRODUCTION["show_interfaces"]).read_text(encoding="utf-8")
    text = text.replace("1831 CRC", "1,831 CRC").replace("7 link status", "7 link status", 1)
    state = EOS.parse_outputs(production(show_interfaces=text), LEAF)
    assert state.counters["Ethernet31"].crc_errors == 1831


# --- what cannot be read ---------------------------------------------------------------------------


def test_a_snapshot_taken_before_counters_were_collected_has_neither_facet():
    old = production(
        show_interfaces=None,
        show_interfaces_phy_detail=None,
        **{
            "show_priority-flow-control_counters_detail": None,
            "show_priority-flow-control_counters_watchdog": None,
        },
    )
    state = EOS.parse_outputs(old, LEAF)
    assert not {"link", "counters"} & state.facets
    assert state.unparsed == {} and state.counters == {}


@pytest.mark.parametrize(
    ("file", "text", "reason"),
    [
        ("show_priority-flow-control_counters_detail", "% Invalid input\n", "not JSON"),
        ("show_priority-flow-control_counters_detail", '{"interfaces": {"Ethernet1": {', "not JSON"),
        (
            "show_priority-flow-control_counters_watchdog",
            json.dumps({"interfaces": {"Ethernet3": {"txQueues": {"3": {"stuckCount": "4"}}}}}),
            "interfaces.Ethernet3.txQueues.3: expected stuckCount and recoveryCount",
        ),
        (
            "show_priority-flow-control_counters_detail",
            # `show priority-flow-control counters` without `detail`: totals, not per priority.
            json.dumps({"interfaceCounters": {"Ethernet1": {"rxFrames": 1, "txFrames": 0}}}),
            "no 'interfaces' object",
        ),
        ("show_interfaces_phy_detail", "% Invalid input\n", "no port blocks"),
    ],
)
def test_an_unreadable_counter_output_is_reported_once_and_drops_the_counters(file, text, reason):
    state = EOS.parse_outputs(production(**{file: text}), LEAF)
    cli = {c.file: c.cli for c in (SHOW_PHY, SHOW_PFC, SHOW_PFC_WATCHDOG)}[file]
    assert list(state.unparsed) == [cli] and reason in state.unparsed[cli]
    assert "counters" not in state.facets and state.counters == {}
    # The link state came from `show interfaces`, which was readable.
    assert "link" in state.facets and state.interfaces["Ethernet3"].speed_gbps == 200


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "output empty"),
        ("% Invalid input\n", "no 'NAME is up, line protocol is up' lines"),
        (
            "Ethernet1 is up, line protocol is up (connected)\n  Full-duplex, 400Gb/s, uni-link: n/a\n",
            "Ethernet1 is up but its error counters are missing",
        ),
    ],
)
def test_unreadable_show_interfaces_is_reported_once(text: str, reason: str):
    state = EOS.parse_outputs(production(show_interfaces=text), LEAF)
    assert state.unparsed == {SHOW_INTERFACES.cli: reason}
    assert "counters" not in state.facets and state.counters == {}


def test_every_counter_command_is_read_only():
    for command in EOS.commands(LEAF):
        assert is_read_only(EOS, command.cli)
    assert EOS.counter_files(LEAF) == {
        c.file for c in (SHOW_INTERFACES, SHOW_PHY, SHOW_PFC, SHOW_PFC_WATCHDOG)
    }
    assert not is_read_only(EOS, "show interfaces | json; clear counters")


# --- the lab: what the switch prints reads back as the state it printed ------------------------------


@pytest.fixture(scope="module")
def simulated(lab_fabric, lab_policy) -> dict[str, SimulatedDevice]:
    devices = simulated_devices(lab_fabric, lab_policy, FAULTS)
    return {name: d for name, d in devices.items() if d.device.platform == "eos"}


@settings(max_examples=20, deadline=None)
@given(
    policy=policies(),
    lossy=st.booleans(),
    data=st.data(),
    now=st.floats(1_767_225_600.0, 1_900_000_000.0),
    reads=st.integers(1, 10_000),
)
def test_lab_link_state_and_counters_round_trip(
    lab_fabric, policy: Policy, lossy: bool, data: st.DataObject, now: float, reads: int
):
    """Any policy (the RoCE priority decides which priorities pause and which queues the watchdog
    watches), lossless or lossy, with every link and counter fault of the lab."""
    policy = policy.model_copy(update={"mode": "lossy"}) if lossy else policy
    switches = {n: d for n, d in simulated_devices(lab_fabric, policy, FAULTS).items() if d.device.is_switch}
    name = data.draw(st.sampled_from(sorted(switches)))
    state, parsed = parsed_lab(switches[name], now, reads)
    # (The QoS settings' own round trip is tests/test_roundtrip.py's.)
    assert parsed.counters == eos_view(state).counters
    assert link_state(parsed) == link_state(state)
    assert {"link", "counters"} <= parsed.facets and parsed.unparsed == {}
    assert any(c.pause_rx for c in parsed.counters.values()) is not lossy


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_damaged_production_outputs_never_crash_the_parser(data: st.DataObject):
    state = EOS.parse_outputs(data.draw(damaged(production())), LEAF)
    assert state.name == LEAF.name
    # What it read of the counters is only ever about ports that are up.
    assert all(state.interfaces[port].oper_up for port in state.counters)


def test_lab_faults_show_in_the_parsed_state(simulated):
    now = 1_780_000_000.0
    # After 5 earlier readings a port that flaps (storms) once a reading shows its sixth event.
    parsed = {name: parsed_lab(d, now, 5)[1] for name, d in simulated.items()}
    healthy = parsed["leaf-su1-r1"].counters["Ethernet1"]
    assert parsed["leaf-su1-r2"].interfaces["Ethernet3"].speed_gbps == 200
    assert parsed["leaf-su1-r3"].interfaces["Ethernet4"].oper_up is False
    assert "Ethernet4" not in parsed["leaf-su1-r3"].counters
    assert parsed["leaf-su1-r4"].counters["Ethernet2"].link_downs == healthy.link_downs + 6
    assert parsed["leaf-su2-r1"].counters["Ethernet1"].fec_uncorrected > healthy.fec_uncorrected == 0
    assert parsed["leaf-su2-r2"].counters["Ethernet2"].crc_errors > healthy.crc_errors == 0
    storm = parsed["leaf-su2-r3"].counters["Ethernet1"]
    assert storm.pause_rx[3] > 1000 * healthy.pause_rx[3]
    assert storm.stormed == {3} and storm.watchdog_storms[3] == 6
    assert parsed["leaf-su2-r4"].counters["Ethernet1"].no_buffer_discards > healthy.no_buffer_discards == 0


def test_a_state_without_link_state_prints_only_the_management_port(lab_fabric, lab_policy):
    from netcfg.lab.devices import live_states

    state = live_states(lab_fabric, lab_policy)["leaf-su1-r1"]
    outputs = simulator(EOS.name).render_outputs(state, lab_fabric.devices["leaf-su1-r1"])
    assert outputs[SHOW_INTERFACES.cli].startswith("Management1 is up")
    files = {c.file: outputs[c.cli] for c in EOS.commands(lab_fabric.devices["leaf-su1-r1"])}
    assert EOS.parse_outputs(files, lab_fabric.devices["leaf-su1-r1"]) == state


# --- live: collected over SSH through the lab ---------------------------------------------------------

PASSWORD = "eos-Counters-lab1"


def test_live_collection_reads_the_labs_link_state_counters_and_faults(
    lab_fabric, lab_policy, simulated, tmp_path_factory
):
    before = time.time()
    audit = live_audit(lab_fabric, lab_policy, FAULTS, Login("auditor", PASSWORD), tmp_path_factory)
    after = time.time()
    states = snapshot_states(lab_fabric, audit.snapshot)
    for name, device in simulated.items():
        parsed = states[name]
        assert parsed.unparsed == {} and {"link", "counters"} <= parsed.facets, name
        # Link state does not move: exactly the lab's.
        link = {
            n: (p.oper_up, p.speed_gbps) for n, p in device.state.interfaces.items() if p.oper_up is not None
        }
        assert {
            n: (p.oper_up, p.speed_gbps) for n, p in parsed.interfaces.items() if p.oper_up is not None
        } == link
        # Counters do: each lies between the lab's readings before and after the collection.
        low = eos_view(with_counters(device.state, device.rates, device.roce_queue, before, 0)).counters
        high = eos_view(with_counters(device.state, device.rates, device.roce_queue, after, 50)).counters
        assert set(parsed.counters) == set(low), name
        for port, counters in parsed.counters.items():
            for f in ("link_downs", "fec_corrected", "fec_uncorrected", "crc_errors", "no_buffer_discards"):
                assert getattr(low[port], f) <= getattr(counters, f) <= getattr(high[port], f), (
                    name,
                    port,
                    f,
                )
            for p, frames in counters.pause_rx.items():
                assert low[port].pause_rx[p] <= frames <= high[port].pause_rx[p]
            assert counters.stormed == high[port].stormed
    assert states["leaf-su1-r2"].interfaces["Ethernet3"].speed_gbps == 200
    assert states["leaf-su1-r3"].interfaces["Ethernet4"].oper_up is False
    assert states["leaf-su2-r3"].counters["Ethernet1"].stormed == {3}
    assert (
        states["leaf-su1-r4"].counters["Ethernet2"].link_downs
        > states["leaf-su1-r1"].counters["Ethernet2"].link_downs
    )


_QUEUES = st.dictionaries(
    st.integers(0, 7), st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)), max_size=8
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=12), _QUEUES, max_size=6))
def test_the_labs_pfc_json_is_what_an_indenting_json_encoder_prints(by_port):
    def encoded(table: str, first: str, second: str) -> str:
        tree = {
            name: {table: {str(q): {first: a, second: b} for q, (a, b) in rows.items()}}
            for name, rows in by_port.items()
        }
        return json.dumps({"interfaces": tree}, indent=4) + "\n"

    assert pause_counters_json(by_port) == encoded("priorities", "rxFrames", "txFrames")
    assert watchdog_json(by_port) == encoded("txQueues", "stuckCount", "recoveryCount")
