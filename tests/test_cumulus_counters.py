"""Cumulus link state and counters: production-shaped outputs read right, the lab's counters read back as the
lab plays them (faults included), unreadable outputs are one unknown each, and a live audit over SSH
collects them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, live_states
from netcfg.lab.health import with_counters, with_link_state
from netcfg.lab.snapshot import simulated_devices, write_simulated_snapshot
from netcfg.model import Device, Fabric, PortCounters, Role
from netcfg.nornir_inventory import Login
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy, load_policy
from netcfg.sources import snapshot_states, unchanged_devices
from tests.live_lab import live_audit
from tests.test_cumulus_live import write_inventory
from tests.test_cumulus_roundtrip import cumulus_fabrics, cumulus_policies

NV = get_platform("cumulus")
FIXTURES = Path(__file__).parent / "fixtures" / "cumulus"
SWITCH = Device("leaf-su1-r1", Role.LEAF, "cumulus")
COUNTER_FILES = [c.file for c in NV.commands(SWITCH) if c.counters]
PASSWORD = "counters-Cumulus-pass"


@pytest.fixture(scope="module")
def inventory(tmp_path_factory):
    return write_inventory(tmp_path_factory.mktemp("cumulus-counters"))


@pytest.fixture(scope="module")
def fabric(inventory) -> Fabric:
    return load_fabric(inventory)


@pytest.fixture(scope="module")
def policy(fabric, inventory) -> Policy:
    return load_policy(fabric.policy_ref, inventory)


def outputs(**replace: str) -> dict[str, str]:
    """leaf-su1-r1's collected outputs as real-shaped fixtures (by snapshot file), some replaced."""
    files = {
        "nv_show_system": "nv_show_system_5.16.txt",
        "nv_config_show_commands": "leaf-su1-r1_nv_config_show_commands.txt",
        "nv_show_qos_roce": "nv_show_qos_roce_lossless.txt",
        "nv_show_interface_json": "nv_show_interface_json.txt",
        "lldpcli_show_neighbors": "lldpcli_show_neighbors.txt",
    } | {f: f"{f}.txt" for f in COUNTER_FILES}
    return {f: (FIXTURES / p).read_text() for f, p in files.items()} | replace


def interfaces_json(edit) -> str:
    data = json.loads((FIXTURES / "nv_show_interface_json.txt").read_text())
    edit(data)
    return json.dumps(data, indent=2)


# --- production-shaped outputs -----------------------------------------------------------------------


def test_real_shaped_counters_read_as_printed(fabric):
    state = NV.parse_outputs(outputs(), fabric.devices["leaf-su1-r1"])
    assert state.unparsed == {} and {"link", "counters"} <= state.facets
    # The configuration names the management port, the loopback and the shut ports too: each reads as
    # the JSON says, and a loopback's `unknown` says nothing of a link.
    link = {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()}
    assert link == {
        **{n: (True, 400) for n in ("swp1", "swp2", "swp3", "swp4", "swp31", "swp32")},
        **{f"swp{n}": (False, None) for n in range(5, 31)},
        "eth0": (True, 1),
        "lo": (None, None),
    }
    assert sorted(state.counters) == ["swp1", "swp2", "swp3", "swp31", "swp32", "swp4"]
    assert state.counters["swp1"] == PortCounters(
        link_downs=1,
        fec_corrected=4_118_902 + 3_990_117 + 4_270_553 + 4_002_981,
        fec_uncorrected=0,
        crc_errors=0,
        symbol_errors=0,
        pause_rx={p: 44_012 if p == 3 else 0 for p in range(8)},
        pause_tx={p: 39_870 if p == 3 else 0 for p in range(8)},
        ecn_marked={q: 8812 if q == 3 else 0 for q in range(8)},
        queue_drops=dict.fromkeys(range(8), 0),
        no_buffer_discards=0,  # the RoCE row; the non-RoCE traffic's 3 discards are not lossless drops
        watchdog_storms=dict.fromkeys(range(8), 0),
        stormed=frozenset(),
    )
    swp2, swp3, swp4 = (state.counters[p] for p in ("swp2", "swp3", "swp4"))
    assert swp2.pause_rx[3] == 918_220_431 and swp2.watchdog_storms[3] == 4 and swp2.stormed == frozenset()
    assert (swp3.link_downs, swp3.crc_errors, swp3.symbol_errors, swp3.fec_uncorrected) == (9, 5210, 311, 117)
    assert swp3.fec_corrected == 982_110_447 + 991_002_118 + 978_200_331 + 990_001_223
    assert (swp4.queue_drops[3], swp4.no_buffer_discards) == (17, 1204)


def test_a_shut_port_a_down_port_and_a_slow_port(fabric):
    """swp4 shut (admin down), swp2's link down, swp3 running at 200G: the grep of up ports skips the
    two down ports, so they have no counters, and the others keep theirs."""

    def edit(data):
        data["swp4"]["link"] |= {"admin-status": "down", "oper-status": "down", "speed": ""}
        data["swp2"]["link"] |= {"oper-status": "down"}
        data["swp3"]["link"] |= {"speed": "200G"}

    def without(file: str, *ports: str) -> str:
        sections = (FIXTURES / f"{file}.txt").read_text().split("interface ")
        return "".join(f"interface {s}" for s in sections if s and s.split("\n", 1)[0] not in ports)

    counters = {f: without(f, "swp2", "swp4") for f in COUNTER_FILES}
    state = NV.parse_outputs(
        outputs(nv_show_interface_json=interfaces_json(edit), **counters), fabric.devices["leaf-su1-r1"]
    )
    assert state.unparsed == {}
    link = {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()}
    assert link["swp2"] == (False, None) and link["swp4"] == (False, None) and link["swp3"] == (True, 200)
    assert sorted(state.counters) == ["swp1", "swp3", "swp31", "swp32"]


def test_a_breakout_port_outside_the_plan_keeps_its_own_counters(fabric):
    """swp49s0 (a 4x breakout lane) is up with no plan entry: its counters are its own, no port of the
    plan borrows them, and the plan's ports read as before."""
    given_outputs = outputs()
    for file in COUNTER_FILES:
        text = given_outputs[file]
        swp1 = text.split("interface swp2\n")[0].replace("interface swp1\n", "interface swp49s0\n")
        given_outputs[file] = text + swp1
    state = NV.parse_outputs(given_outputs, fabric.devices["leaf-su1-r1"])
    assert state.unparsed == {} and "swp49s0" not in state.interfaces
    assert state.counters["swp49s0"] == dataclasses.replace(state.counters["swp1"], link_downs=None)


def test_releases_before_5_11_print_no_link_state_and_no_down_count(fabric):
    """Before 5.11 the JSON has no `oper-status` and counts ups and downs together: the link state is
    unknown (no "link" facet), not down, and the link-down count is left unknown, not halved."""

    def edit(data):
        for entry in data.values():
            entry["link"].pop("oper-status", None)
            stats = entry["link"].get("stats", {})
            for key in ("carrier-up-count", "carrier-down-count"):
                stats.pop(key, None)

    state = NV.parse_outputs(
        outputs(nv_show_interface_json=interfaces_json(edit)), fabric.devices["leaf-su1-r1"]
    )
    assert "link" not in state.facets and "counters" in state.facets
    assert all(p.oper_up is None and p.speed_gbps is None for p in state.interfaces.values())
    assert all(c.link_downs is None for c in state.counters.values())


def test_fec_of_releases_5_10_to_5_14_through_the_phy_detail_fallback(fabric):
    """Before 5.15 `link phy health` does not exist: nv prints its error, and `link phy-detail` answers
    with one `phy-raw-errors-laneN` row per lane."""
    detail = (
        "Error: The requested item does not exist.\n"
        "                           operational\n"
        "-------------------------  -----------------\n"
        "time-since-last-clear-min  2880\n"
        "phy-received-bits          15561574400000000\n"
        "symbol-errors              0\n"
        "effective-errors           3\n"
        + "".join(f"phy-raw-errors-lane{n}       {n * 1000 + 7}\n" for n in range(8))
    )
    text = "".join(f"interface {p}\n{detail}" for p in ("swp1", "swp2", "swp3", "swp31", "swp32", "swp4"))
    state = NV.parse_outputs(outputs(nv_show_interface_link_phy_health=text), fabric.devices["leaf-su1-r1"])
    assert state.unparsed == {} and "counters" in state.facets
    assert (state.counters["swp1"].fec_uncorrected, state.counters["swp1"].fec_corrected) == (3, 28_056)


@pytest.mark.parametrize(
    ("speed", "gbps"),
    [("400G", 400), ("1.6T", 1600), ("800G", 800), ("100M", None), ("", None), ("auto", None)],
)
def test_operational_speeds_as_nvue_prints_them(fabric, speed, gbps):
    def edit(data):
        data["swp1"]["link"]["speed"] = speed

    state = NV.parse_outputs(
        outputs(nv_show_interface_json=interfaces_json(edit)), fabric.devices["leaf-su1-r1"]
    )
    assert state.interfaces["swp1"].speed_gbps == gbps


@pytest.mark.parametrize("file", COUNTER_FILES)
@pytest.mark.parametrize(
    "text",
    [
        None,  # the output was cut short before this command
        "Error: The requested item does not exist.\n",  # e.g. `link phy health` before Cumulus 5.15
        "interface swp1\nError: The requested item does not exist.\n",
        "interface swp1\n-bash: nv: command not found\n",
    ],
)
def test_an_unreadable_counter_output_is_one_unknown_and_drops_only_the_counters(fabric, file, text):
    given_outputs = outputs()
    if text is None:
        del given_outputs[file]
    else:
        given_outputs[file] = text
    state = NV.parse_outputs(given_outputs, fabric.devices["leaf-su1-r1"])
    command = next(c.cli for c in NV.commands(SWITCH) if c.file == file)
    assert list(state.unparsed) == [command]
    assert state.facets == {"qos", "version", "lldp", "link"}


def test_the_counter_commands_are_read_only_pipelines_a_batch_carries():
    """One pipeline per command, every port in it: no `;`, `"` or `$` that would break the batch's
    marker echo, and nothing but `grep`, `cut`, `xargs`, `sh -c` and `nv show`."""
    commands = [c for c in NV.commands(SWITCH) if c.counters]
    assert len(commands) == 5 and not any(set(c.cli) & set(';"$`') for c in commands)
    settings_line, batch = NV.batches(SWITCH)
    assert is_read_only(NV, batch.cli) and is_read_only(NV, settings_line.cli)
    # Settings first, on their own line: a switch slow to count its ports still gives its settings.
    assert list(batch.commands) == commands and not set(settings_line.commands) & set(commands)
    for command in commands:
        assert command.cli.startswith(
            "grep -lx up /sys/class/net/swp*/operstate | cut -d/ -f5 | xargs -I% sh -c"
        )
        assert "nv show interface % " in command.cli and " set " not in command.cli
    assert not is_read_only(NV, commands[0].cli.replace("nv show", "nv action clear"))
    # The batch's marker lines give each pipeline's output back under its own file.
    marked = "".join(f"=== {c.cli} ===\ninterface swp1\n{c.file}\n" for c in commands)
    split = batch.split(marked)
    assert all(split[c.file] == f"interface swp1\n{c.file}\n" for c in commands)


# --- the lab: its counters and faults read back ------------------------------------------------------


FAULTS = {
    "leaf-su1-r1": DeviceFaults(speed_gbps={"swp1": 200}, link_down=["swp2"], pause_storm=["swp3"]),
    "leaf-su1-r2": DeviceFaults(flapping=["swp31"], fec_errors=["swp1"], crc_errors=["swp2"]),
    "leaf-su2-r1": DeviceFaults(lossless_drops=["swp4"], watchdog_off=["swp4"]),
}


def test_the_lab_reads_back_as_it_plays_its_faults(fabric, policy):
    for name, simulated in simulated_devices(fabric, policy, FAULTS).items():
        device = fabric.devices[name]
        if device.platform != NV.name:
            continue
        at = 1_790_000_000.0
        played = with_counters(simulated.state, simulated.rates, simulated.roce_queue, at, simulated.reads)
        got = simulated.outputs(at)
        state = NV.parse_outputs({c.file: got[c.cli] for c in NV.commands(device)}, device)
        assert state.unparsed == {}, name
        assert state.counters == played.counters, name
        # A down link runs at no speed: NVUE prints none for it, whatever speed the lab's plan gives it.
        assert {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()} == {
            n: (p.oper_up, p.speed_gbps if p.oper_up else None) for n, p in played.interfaces.items()
        }, name
    r1 = NV.parse_outputs(
        {c.file: t for c, t in _by_command(simulated_devices(fabric, policy, FAULTS)["leaf-su1-r1"], fabric)},
        fabric.devices["leaf-su1-r1"],
    )
    assert r1.interfaces["swp1"].speed_gbps == 200 and r1.interfaces["swp2"].oper_up is False
    assert "swp2" not in r1.counters and r1.counters["swp3"].stormed == {3}


def _by_command(simulated, fabric):
    got = simulated.outputs()
    return [(c, got[c.cli]) for c in NV.commands(fabric.devices[simulated.device.name])]


@st.composite
def random_counters(draw: st.DrawFn) -> PortCounters:
    maybe = st.none() | st.integers(0, 2**63)
    per_class = st.dictionaries(st.integers(0, 7), st.integers(0, 2**63), max_size=8)
    return PortCounters(
        link_downs=draw(maybe),
        fec_corrected=draw(maybe),
        fec_uncorrected=draw(maybe),
        crc_errors=draw(maybe),
        symbol_errors=draw(maybe),
        pause_rx=draw(per_class),
        pause_tx=draw(per_class),
        ecn_marked=draw(per_class),
        queue_drops=draw(per_class),
        no_buffer_discards=draw(maybe),
        watchdog_storms=draw(per_class),
        stormed=frozenset(draw(st.sets(st.integers(0, 7), max_size=3))),
    )


# Few examples: each renders and parses every switch of a random fabric, and the counters' shapes are
# few (a field printed or not, a class present or not).
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=cumulus_policies(), fabric=cumulus_fabrics(), data=st.data())
def test_link_state_and_counters_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    """Any link state and any counters NVUE prints read back as they were printed."""
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform != NV.name:
            continue
        state = with_link_state(live, device, fabric)
        ports = {}
        for port_name, port in state.interfaces.items():
            up = data.draw(st.sampled_from([True, True, False]))
            speed = data.draw(st.sampled_from([100, 200, 400, 800, 1600])) if up else None
            ports[port_name] = dataclasses.replace(port, oper_up=up, speed_gbps=speed)
        counters = {n: data.draw(random_counters()) for n, p in ports.items() if p.oper_up}
        facets = live.facets | {"link"} | ({"counters"} if counters else set())
        state = dataclasses.replace(state, interfaces=ports, counters=counters, facets=frozenset(facets))
        got = simulator(NV.name).render_outputs(state, device)
        parsed = NV.parse_outputs({c.file: got[c.cli] for c in NV.commands(device)}, device)
        assert parsed.unparsed == {}
        assert parsed.counters == state.counters
        assert parsed.interfaces == state.interfaces and parsed.facets == state.facets


# --- live: collected over SSH through the lab --------------------------------------------------------


def test_a_live_audit_collects_the_link_state_and_counters_the_lab_plays(fabric, policy, tmp_path_factory):
    login = Login("auditor", PASSWORD)
    faults = {"leaf-su1-r1": FAULTS["leaf-su1-r1"]}
    audit = live_audit(fabric, policy, faults, login, tmp_path_factory)
    states = snapshot_states(fabric, audit.snapshot)
    leaf = states["leaf-su1-r1"]
    assert leaf.unparsed == {} and {"link", "counters"} <= leaf.facets
    assert (leaf.interfaces["swp1"].speed_gbps, leaf.interfaces["swp4"].speed_gbps) == (200, 400)
    assert leaf.interfaces["swp2"].oper_up is False and "swp2" not in leaf.counters
    storm, calm = leaf.counters["swp3"], leaf.counters["swp4"]
    assert storm.stormed == {3} and calm.stormed == frozenset()
    assert storm.pause_rx[3] > 1000 * calm.pause_rx[3] > 0
    assert {n: c.state for n, c in audit.collected.items()} == states
    assert all(s.unparsed == {} for n, s in states.items() if fabric.devices[n].platform == NV.name)


def test_counters_moving_between_snapshots_leave_a_healthy_switch_unchanged(fabric, policy, tmp_path):
    """Drift skips a switch whose settings did not change, however far its counters moved; a flapping
    link's down count is in `nv show interface -o json` (settings and link state), so its switch is
    parsed again rather than skipped."""
    faults = {"leaf-su1-r2": DeviceFaults(flapping=["swp1"])}
    before = write_simulated_snapshot(fabric, policy, faults, tmp_path / "a", at=1_790_000_000.0)
    after = write_simulated_snapshot(fabric, policy, faults, tmp_path / "b", at=1_790_086_400.0, reads=1)
    same = unchanged_devices(before, after)
    switches = {n for n, d in fabric.devices.items() if d.platform == NV.name}
    assert switches - same == {"leaf-su1-r2"}
    moved = snapshot_states(fabric, after)["leaf-su1-r1"].counters["swp1"]
    assert moved.fec_corrected > snapshot_states(fabric, before)["leaf-su1-r1"].counters["swp1"].fec_corrected
