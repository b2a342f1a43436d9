"""Junos (QFX) link state and counters: `show interfaces extensive` and `show interfaces queue` as a
QFX prints them (management, aggregate and loopback interfaces, a down port, a shut port, a breakout
channel, logical units), the lab's outputs read back to the lab's link state and counters (faults
included, random counters by hypothesis), and output that cannot be read named once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import EPOCH, HEALTHY, with_counters
from netcfg.lab.snapshot import SimulatedDevice, simulated_devices
from netcfg.model import Device, DeviceState, Endpoint, PortCounters, Role
from netcfg.nornir_inventory import Login
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.platforms.junos import counters
from netcfg.platforms.simulator import simulator
from netcfg.policy import load_policy
from netcfg.sources import snapshot_states
from tests.live_lab import live_audit
from tests.test_junos import write_junos_lab
from tests.test_roundtrip import SETTINGS

JUNOS = get_platform("junos")
FIXTURES = Path(__file__).parent / "fixtures" / "junos"
EXTENSIVE, QUEUE = "show_interfaces_extensive", "show_interfaces_queue"
# When the lab's counters are read in these tests (a fixed time: two runs read the same).
NOW = 1_780_000_000.0
LEAF = "leaf-su1-r1"
FAULTS = {
    LEAF: DeviceFaults(
        speed_gbps={"et-0/0/1": 200},
        link_down=["et-0/0/30"],
        pause_storm=["et-0/0/0"],
        fec_errors=["et-0/0/31"],
        crc_errors=["et-0/0/31"],
        lossless_drops=["et-0/0/1"],
    )
}


@pytest.fixture(scope="module")
def junos_lab(tmp_path_factory):
    inventory = write_junos_lab(tmp_path_factory.mktemp("inv"))
    fabric = load_fabric(inventory)
    return fabric, load_policy(str(inventory / "policy.yaml"))


def _files(simulated: SimulatedDevice) -> dict[str, str]:
    outputs = simulated.outputs(NOW)
    return {c.file: outputs[c.cli] for c in JUNOS.commands(simulated.device)}


def as_junos_prints(state: DeviceState) -> dict[str, PortCounters]:
    """The state's counters as Junos shows them: the PFC watchdog's storms are not printed."""
    return {
        name: dataclasses.replace(c, watchdog_storms={}, stormed=frozenset())
        for name, c in state.counters.items()
    }


def _lab_read(simulated: SimulatedDevice) -> DeviceState:
    """The simulated device's state as the lab prints it at NOW."""
    return with_counters(simulated.state, simulated.rates, simulated.roce_queue, NOW, simulated.reads)


# --- outputs as a QFX prints them -------------------------------------------------------------------


def _fixture_state() -> DeviceState:
    files = {
        EXTENSIVE: (FIXTURES / "show_interfaces_extensive_qfx5240.txt").read_text(),
        QUEUE: (FIXTURES / "show_interfaces_queue_qfx5240.txt").read_text(),
    }
    return JUNOS.parse_outputs(files, Device("leaf1", Role.LEAF, "junos", su=1, rail=1))


def test_a_qfx_reads_as_printed_ports_only():
    state = _fixture_state()
    assert {"link", "counters"} <= state.facets
    assert not {"show interfaces extensive", "show interfaces queue"} & set(state.unparsed)
    # Management, aggregate and loopback interfaces and logical units are not fabric ports.
    assert {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()} == {
        "et-0/0/0": (True, 400),
        "et-0/0/1": (False, 400),
        "et-0/0/2": (False, 800),  # administratively down: its link is down too
        "et-0/0/3:0": (True, 200),
    }
    assert set(state.counters) == set(state.interfaces)
    up = state.counters["et-0/0/0"]
    assert up == PortCounters(
        link_downs=3,
        fec_corrected=3107761250,
        fec_uncorrected=2,
        crc_errors=41,
        symbol_errors=6,
        pause_rx={p: 48211093 if p == 3 else 0 for p in range(8)},
        pause_tx={p: 35006211 if p == 3 else 0 for p in range(8)},
        ecn_marked={0: 0, 3: 7733001284, 4: 0, 7: 0},
        queue_drops={0: 2204, 3: 31, 4: 0, 7: 0},
        no_buffer_discards=17,
    )
    down = state.counters["et-0/0/1"]
    assert (down.link_downs, down.fec_uncorrected, down.pause_tx[3], down.ecn_marked) == (
        9,
        1290,
        40044,
        {3: 40211877},
    )
    # A shut port prints its error lines but no MAC or FEC statistics, and no ECN line per queue.
    shut = state.counters["et-0/0/2"]
    assert (shut.link_downs, shut.no_buffer_discards, shut.fec_corrected, shut.crc_errors, shut.pause_rx) == (
        0,
        0,
        None,
        None,
        {},
    )
    assert (shut.queue_drops, shut.ecn_marked) == ({3: 0}, {})
    assert state.counters["et-0/0/3:0"].ecn_marked == {3: 118220431}


def test_speeds_as_junos_writes_them():
    assert [
        counters.speed_gbps(t) for t in ("400Gbps", "800Gbps", "1000mbps", "800mbps", "Auto", "Unspecified")
    ] == [
        400,
        800,
        1,
        None,
        None,
        None,
    ]


def test_numbers_with_thousands_separators_read_as_numbers():
    text = (FIXTURES / "show_interfaces_extensive_qfx5240.txt").read_text()
    text = text.replace(
        "FEC Corrected Errors           3107761250", "FEC Corrected Errors        3,107,761,250"
    )
    assert counters.read_extensive(text).ports["et-0/0/0"].counters.fec_corrected == 3107761250


# --- the lab prints what it plays, and reads it back --------------------------------------------------


def test_the_lab_leaf_reads_back_its_link_state_and_counters_faults_included(junos_lab):
    fabric, policy = junos_lab
    simulated = simulated_devices(fabric, policy, FAULTS)[LEAF]
    lab = _lab_read(simulated)
    state = JUNOS.parse_outputs(_files(simulated), simulated.device)
    assert state.unparsed == {} and state.facets == {"qos", "version", "lldp", "link", "counters"}
    assert {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()} == {
        n: (p.oper_up, p.speed_gbps) for n, p in lab.interfaces.items()
    }
    assert state.interfaces["et-0/0/1"].speed_gbps == 200 and state.interfaces["et-0/0/30"].oper_up is False
    assert state.counters == as_junos_prints(lab)
    # The faults show: the storm pauses far more than a healthy port, the down port has no counters
    # (the lab reads none), errors rise on the port with bad optics, the lossless queue drops.
    assert "et-0/0/30" not in state.counters
    storm, healthy = state.counters["et-0/0/0"], state.counters["et-0/0/1"]
    assert storm.pause_rx[3] > 1000 * healthy.pause_rx[3] > 0
    assert state.counters["et-0/0/31"].fec_uncorrected > 0 and state.counters["et-0/0/31"].crc_errors > 0
    assert healthy.queue_drops[simulated.roce_queue] > 0 and healthy.no_buffer_discards > 0


def test_a_state_without_link_state_prints_no_port_and_reads_no_link_facet(junos_lab):
    fabric, policy = junos_lab
    simulated = simulated_devices(fabric, policy, {})[LEAF]
    bare = dataclasses.replace(
        simulated.state,
        interfaces={
            n: dataclasses.replace(p, oper_up=None, speed_gbps=None)
            for n, p in simulated.state.interfaces.items()
        },
    )
    outputs = simulator(JUNOS.name).render_outputs(bare, simulated.device)
    assert outputs["show interfaces extensive"] == outputs["show interfaces queue"] == ""
    state = JUNOS.parse_outputs(
        {c.file: outputs[c.cli] for c in JUNOS.commands(simulated.device)}, simulated.device
    )
    assert state.facets == {"qos", "version", "lldp"} and state.unparsed == {} and state.counters == {}


COUNT = st.integers(0, 10**15)


@st.composite
def port_counters(draw: st.DrawFn) -> PortCounters:
    """Counters Junos prints: any scalar may be missing; pause both ways for the same priorities."""
    maybe = st.none() | COUNT
    paused = draw(st.sets(st.integers(0, 7)))
    queues = st.dictionaries(st.integers(0, 7), COUNT, max_size=4)
    return PortCounters(
        link_downs=draw(maybe),
        fec_corrected=draw(maybe),
        fec_uncorrected=draw(maybe),
        crc_errors=draw(maybe),
        symbol_errors=draw(maybe),
        pause_rx={p: draw(COUNT) for p in paused},
        pause_tx={p: draw(COUNT) for p in paused},
        ecn_marked=draw(queues),
        queue_drops=draw(queues),
        no_buffer_discards=draw(maybe),
    )


def _has_any(c: PortCounters) -> bool:
    scalars = (c.link_downs, c.fec_corrected, c.fec_uncorrected, c.crc_errors, c.symbol_errors)
    return any(v is not None for v in (*scalars, c.no_buffer_discards)) or bool(c.pause_rx)


@SETTINGS
@given(data=st.data())
def test_any_counters_read_back_as_printed(junos_lab, data: st.DataObject):
    fabric, policy = junos_lab
    simulated = simulated_devices(fabric, policy, {})[LEAF]
    ports = {}
    for name, port in simulated.state.interfaces.items():
        up = data.draw(st.booleans(), label=f"{name} up")
        ports[name] = dataclasses.replace(
            port, oper_up=up, speed_gbps=data.draw(st.sampled_from([100, 200, 400, 800]))
        )
    drawn = {
        name: data.draw(port_counters(), label=name)
        for name in data.draw(st.sets(st.sampled_from(sorted(ports))))
    }
    state = dataclasses.replace(simulated.state, interfaces=ports, counters=drawn)
    outputs = simulator(JUNOS.name).render_outputs(state, simulated.device)
    parsed = JUNOS.parse_outputs(
        {c.file: outputs[c.cli] for c in JUNOS.commands(simulated.device)}, simulated.device
    )
    assert parsed.unparsed == {}
    assert {n: (p.oper_up, p.speed_gbps) for n, p in parsed.interfaces.items()} == {
        n: (p.oper_up, p.speed_gbps) for n, p in ports.items()
    }
    # A port whose counters print nothing of the interface section (only its queues) reads as those
    # queues; one that prints nothing at all has no counters.
    expected = {}
    for name, c in drawn.items():
        if _has_any(c):
            expected[name] = c
        elif c.ecn_marked or c.queue_drops:
            expected[name] = PortCounters(ecn_marked=c.ecn_marked, queue_drops=c.queue_drops)
    assert parsed.counters == expected


# --- output that cannot be read ------------------------------------------------------------------------


@pytest.fixture
def lab_files(junos_lab) -> tuple[Device, dict[str, str]]:
    fabric, policy = junos_lab
    simulated = simulated_devices(fabric, policy, FAULTS)[LEAF]
    return simulated.device, _files(simulated)


def _cut(text: str, share: float) -> str:
    lines = text.splitlines()
    return "\n".join(lines[: int(len(lines) * share)]) + "\n"


@pytest.mark.parametrize(
    ("file", "damage", "command", "why", "facets"),
    [
        (
            EXTENSIVE,
            lambda t: _cut(t, 0.4),
            "show interfaces extensive",
            "output cut short: the block of et-0/0/1 ends early",
            set(),
        ),
        (
            QUEUE,
            lambda t: _cut(t, 0.4),
            "show interfaces queue",
            "output cut short: the queues of et-0/0/1 end early",
            {"link"},
        ),
        (
            EXTENSIVE,
            lambda t: "error: syntax error, expecting <command>: extensive\n",
            "show interfaces extensive",
            "no 'Physical interface:' block",
            set(),
        ),
        (
            QUEUE,
            lambda t: "\n".join("x" * len(line) for line in t.splitlines()),
            "show interfaces queue",
            "no 'Physical interface:' block",
            {"link"},
        ),
        (EXTENSIVE, None, "show interfaces extensive", "output missing", set()),
        (QUEUE, None, "show interfaces queue", "output missing", {"link"}),
    ],
)
def test_an_unreadable_counter_output_is_named_once_and_drops_what_it_carries(
    lab_files, file, damage, command, why, facets
):
    device, files = lab_files
    if damage is None:
        del files[file]
    else:
        files[file] = damage(files[file])
    state = JUNOS.parse_outputs(files, device)
    assert state.unparsed == {command: why}
    assert state.facets == {"qos", "version", "lldp"} | facets


def test_counter_commands_are_read_only_and_left_out_of_fingerprints(junos_lab):
    fabric, _ = junos_lab
    device = fabric.devices[LEAF]
    assert JUNOS.counter_files(device) == {EXTENSIVE, QUEUE}
    assert all(is_read_only(JUNOS, c.cli) for c in JUNOS.commands(device))


# --- collected over SSH --------------------------------------------------------------------------------

LIVE_FAULTS = {
    "leaf-su1-r1": DeviceFaults(speed_gbps={"et-0/0/31": 200}),
    "leaf-su1-r2": DeviceFaults(link_down=["et-0/0/30"]),
    "spine1": DeviceFaults(pause_storm=["et-0/0/0"]),
}


def test_an_audit_over_ssh_reads_the_lab_link_state_and_counters_faults_included(junos_lab, tmp_path_factory):
    """netcfg audit of the all-Junos lab (Nornir + netmiko to the lab on 127.0.0.1): the snapshot
    parses to the lab's link state, its counters at the lab's rates, and the seeded faults."""
    fabric, policy = junos_lab
    audit = live_audit(fabric, policy, LIVE_FAULTS, Login("auditor", "Junos-lab-s3cret"), tmp_path_factory)
    states = snapshot_states(fabric, audit.snapshot)
    assert states == {n: c.state for n, c in audit.collected.items()}
    lab = simulated_devices(fabric, policy, LIVE_FAULTS)
    for name in ("leaf-su1-r1", "leaf-su1-r2", "spine1", "spine2"):
        state = states[name]
        assert {"link", "counters"} <= state.facets and state.unparsed == {}
        assert {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()} == {
            n: (p.oper_up, p.speed_gbps) for n, p in lab[name].state.interfaces.items()
        }
        # Counters grow at the lab's rates since its epoch: read at most a few seconds before read_at.
        elapsed = state.read_at - EPOCH
        for port, c in state.counters.items():
            assert (
                HEALTHY.fec_corrected * (elapsed - 30) <= c.fec_corrected <= HEALTHY.fec_corrected * elapsed
            ), port
            assert c.link_downs >= 1 and c.crc_errors == c.fec_uncorrected == 0
    # The half-speed uplink runs at 200G on both ends; the down uplink is down on both ends.
    half = fabric.peer(Endpoint("leaf-su1-r1", "et-0/0/31"))
    down = fabric.peer(Endpoint("leaf-su1-r2", "et-0/0/30"))
    assert half.device == "spine2" and states["spine2"].interfaces[half.interface].speed_gbps == 200
    assert states["leaf-su1-r1"].interfaces["et-0/0/31"].speed_gbps == 200
    assert states["leaf-su1-r2"].interfaces["et-0/0/30"].oper_up is False
    assert down.device == "spine1" and states["spine1"].interfaces[down.interface].oper_up is False
    assert down.interface not in states["spine1"].counters
    # The pause storm: thousands of times the pause frames of a healthy port.
    spine = states["spine1"].counters
    assert down.interface != "et-0/0/0"
    healthy = next(c for p, c in spine.items() if p != "et-0/0/0")
    assert min(spine["et-0/0/0"].pause_rx.values()) > 1000 * max(healthy.pause_rx.values()) > 0
