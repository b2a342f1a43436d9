"""NX-OS link state and counters: production-shaped outputs read as a person reads them, cut-short
outputs named and their facets dropped, the lab's counters (with its faults) read back exactly as a
Nexus prints them, and a live audit over SSH whose snapshot shows the seeded link faults."""

from __future__ import annotations

import dataclasses
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import EPOCH
from netcfg.lab.snapshot import SimulatedDevice, simulated_devices
from netcfg.model import DeviceState, Fabric, PortCounters
from netcfg.nornir_inventory import Login
from netcfg.policy import Policy, load_policy
from netcfg.sources import snapshot_states
from tests.live_lab import live_audit
from tests.test_nxos import LEAF, NXOS, outputs, write_nxos_lab
from tests.test_nxos_roundtrip import as_expressed

QUEUES = range(8)


def test_production_outputs_give_link_state_of_front_panel_ports_only():
    state = NXOS.parse_outputs(outputs(), LEAF)
    assert state.unparsed == {} and {"link", "counters"} <= state.facets
    link = {name: (p.oper_up, p.speed_gbps) for name, p in state.interfaces.items() if p.oper_up is not None}
    assert link == {
        "Ethernet1/1": (True, 400),
        "Ethernet1/2": (True, 200),  # runs at half its 400G
        "Ethernet1/3": (True, 400),
        "Ethernet1/4": (False, 400),  # `is down (Link not connected)`: the speed it is set to
        "Ethernet1/5": (True, 100),
        "Ethernet1/6": (False, None),  # `is down (SFP not inserted)`, `auto-speed`
        "Ethernet1/7": (False, 400),  # `is down (Administratively down)`
        "Ethernet1/31": (True, 400),
        "Ethernet1/32": (True, 400),
        "Ethernet1/49/1": (True, 100),  # breakout
        "Ethernet1/49/2": (False, 100),
    }
    # mgmt0, the loopback, the port-channel and the SVI are not fabric links; the subinterface shares
    # its parent's link.
    assert "Ethernet1/31.100" not in state.interfaces and "Vlan20" not in state.interfaces
    for name in ("mgmt0", "loopback0", "port-channel10"):
        assert state.interfaces[name].oper_up is None
    # Counters of the ports that are up only.
    assert set(state.counters) == {n for n, (up, _) in link.items() if up}


def test_production_counters_as_the_switch_prints_them():
    counters = NXOS.parse_outputs(outputs(), LEAF).counters
    degraded = counters["Ethernet1/2"]
    assert (degraded.link_downs, degraded.crc_errors, degraded.symbol_errors) == (5, 17, 212)  # `17 CRC/FCS`
    assert (degraded.pause_rx[3], degraded.pause_tx[3]) == (0, 412)
    assert degraded.queue_drops == {q: 1207 if q == 0 else 0 for q in QUEUES}
    # The port's `Ingress Overflow Drop Pkts` (19490), not the slice's (71206) printed after it.
    assert degraded.no_buffer_discards == 19490
    # `QOS GROUP 3 [Shutdown]`: the watchdog holds it now, and shut it 4 times.
    assert (degraded.watchdog_storms, degraded.stormed) == ({3: 4}, frozenset({3}))
    uplink = counters["Ethernet1/31"]
    assert (uplink.link_downs, uplink.pause_rx[3], uplink.pause_tx[3]) == (11, 77120, 90211)
    assert (uplink.watchdog_storms, uplink.stormed) == ({3: 1}, frozenset())
    assert counters["Ethernet1/32"].queue_drops[3] == 42
    # A port whose watchdog is off has no storms to count.
    assert counters["Ethernet1/5"].watchdog_storms == {}
    # NX-OS prints no FEC codeword counts and no ECN-marked count in what is collected.
    for c in counters.values():
        assert (c.fec_corrected, c.fec_uncorrected, c.ecn_marked) == (None, None, {})
        assert set(c.pause_rx) == set(c.pause_tx) == set(QUEUES)


def test_a_cut_short_counter_output_is_named_and_counts_nothing():
    queuing = outputs()["show_queuing_interface"]
    cut = queuing[: queuing.index("Egress Queuing for Ethernet1/32")]
    state = NXOS.parse_outputs(outputs(show_queuing_interface=cut), LEAF)
    why = "output cut short: no entry for Ethernet1/32, which 'show interface' shows up"
    assert state.unparsed == {"show queuing interface": why}
    assert "counters" not in state.facets and state.counters == {}
    # The link state stands on its own output.
    assert "link" in state.facets and state.interfaces["Ethernet1/2"].speed_gbps == 200


def test_cut_inside_a_port_block_is_named():
    text = outputs()["show_interface"]
    cut = text[: text.index("    0 Tx pause", text.index("Ethernet1/3 is up"))]
    state = NXOS.parse_outputs(outputs(show_interface=cut), LEAF)
    assert (
        state.unparsed["show interface"]
        == "output cut short: the block of Ethernet1/3 has no 'Tx pause' line"
    )
    assert not {"link", "counters"} & state.facets and state.counters == {}


def test_garbage_is_unreadable_not_a_down_fabric():
    state = NXOS.parse_outputs(
        outputs(show_interface="% Invalid command at '^' marker.\n", show_queuing_interface="garbage\n"), LEAF
    )
    assert state.unparsed["show interface"] == "no '<interface> is up|down' line"
    assert "show queuing interface" in state.unparsed
    assert not {"link", "counters"} & state.facets
    assert all(p.oper_up is None for p in state.interfaces.values())


def test_a_word_in_the_symbol_error_column_is_unreadable_not_a_crash():
    # What hypothesis found: a row of another table's shape (`show users`) under the errors header.
    errors = outputs()["show_interface_counters_errors"]
    rows = errors.splitlines()
    header = next(i for i, line in enumerate(rows) if "Symbol-Err" in line)
    row = next(i for i, line in enumerate(rows) if i > header and line.startswith("Eth1/2 "))
    rows[row] = " ".join(["Eth1/2"] + ["network-admin"] * (len(rows[row].split()) - 1))
    state = NXOS.parse_outputs(outputs(show_interface_counters_errors="\n".join(rows) + "\n"), LEAF)
    assert state.unparsed == {
        "show interface counters errors": "Symbol-Err of Eth1/2 is 'network-admin', not a count"
    }
    assert "counters" not in state.facets and state.counters == {}


# --- the lab ---------------------------------------------------------------------------------------


@cache
def _lab(folder: str) -> tuple[Fabric, Policy]:
    from pathlib import Path

    lab = write_nxos_lab(Path(folder))
    fabric = load_fabric(lab)
    return fabric, load_policy(fabric.policy_ref, lab)


FAULTS = {
    "leaf-su1-r1": DeviceFaults(speed_gbps={"Ethernet1/3": 200}, crc_errors=["Ethernet1/1"]),
    "leaf-su1-r2": DeviceFaults(link_down=["Ethernet1/2"], flapping=["Ethernet1/4"]),
    "leaf-su2-r1": DeviceFaults(pause_storm=["Ethernet1/1"], lossless_drops=["Ethernet1/2"]),
    "leaf-su2-r2": DeviceFaults(watchdog_off=["Ethernet1/3"], fec_errors=["Ethernet1/1"]),
}


def as_nxos_prints(c: PortCounters) -> PortCounters:
    """The lab's counters as a Nexus shows them: every PFC CoS and every qos-group (0 where the lab
    plays no traffic), no FEC codeword counts, no ECN-marked count."""
    return dataclasses.replace(
        c,
        fec_corrected=None,
        fec_uncorrected=None,
        ecn_marked={},
        pause_rx={p: c.pause_rx.get(p, 0) for p in QUEUES},
        pause_tx={p: c.pause_tx.get(p, 0) for p in QUEUES},
        queue_drops={q: c.queue_drops.get(q, 0) for q in QUEUES},
    )


def _read(simulated: SimulatedDevice, now: float) -> tuple[DeviceState, DeviceState]:
    """(what the lab plays, what netcfg reads from what it prints) at `now`."""
    from netcfg.lab.health import with_counters

    played = with_counters(simulated.state, simulated.rates, simulated.roce_queue, now, simulated.reads)
    printed = simulated.outputs(now)
    files = {c.file: printed[c.cli] for c in NXOS.commands(simulated.device)}
    return played, NXOS.parse_outputs(files, simulated.device)


@settings(max_examples=15, deadline=None)
@given(
    device=st.sampled_from([*FAULTS, "spine1", "leaf-su1-r3"]),
    mode=st.sampled_from(["lossless", "lossy"]),
    seconds=st.floats(1, 3e8),
    reads=st.integers(0, 500),
)
def test_the_lab_counters_read_back_as_played(tmp_path_factory, device, mode, seconds, reads):
    fabric, policy = _lab(str(tmp_path_factory.getbasetemp() / f"nxos-counters-{mode}"))
    if mode == "lossy":
        policy = policy.model_copy(update={"mode": "lossy"})
    simulated = simulated_devices(fabric, policy, FAULTS)[device]
    simulated.reads = reads
    played, read = _read(simulated, EPOCH + seconds)
    assert read.unparsed == {} and {"link", "counters"} <= read.facets
    for name, port in played.interfaces.items():
        assert (read.interfaces[name].oper_up, read.interfaces[name].speed_gbps) == (
            port.oper_up,
            port.speed_gbps,
        )
    assert read.counters == {name: as_nxos_prints(c) for name, c in played.counters.items()}
    # The QoS read from the same outputs is untouched by the counters (the watchdog's timers are at
    # NX-OS's defaults, as netcfg renders no timer line).
    assert dataclasses.replace(read, counters={}, facets=frozenset(), read_at=None) == dataclasses.replace(
        as_expressed(played), counters={}, facets=frozenset(), read_at=None
    )


def test_the_lab_faults_show_as_a_nexus_shows_them(tmp_path):
    fabric, policy = _lab(str(tmp_path / "lab"))
    devices = simulated_devices(fabric, policy, FAULTS)
    now = EPOCH + 86_400
    _, half = _read(devices["leaf-su1-r1"], now)
    assert (
        half.interfaces["Ethernet1/3"].speed_gbps == 200
        and half.counters["Ethernet1/1"].crc_errors == 12 * 86_400
    )
    _, down = _read(devices["leaf-su1-r2"], now)
    assert down.interfaces["Ethernet1/2"].oper_up is False and "Ethernet1/2" not in down.counters
    first = down.counters["Ethernet1/4"].link_downs
    _, again = _read(devices["leaf-su1-r2"], now + 60)
    assert again.counters["Ethernet1/4"].link_downs == first + 1  # one more flap per reading
    _, storm = _read(devices["leaf-su2-r1"], now)
    assert storm.counters["Ethernet1/1"].stormed == frozenset({3})
    assert storm.counters["Ethernet1/1"].pause_rx[3] == 900_000 * 86_400
    assert (
        storm.counters["Ethernet1/2"].queue_drops[3] == storm.counters["Ethernet1/2"].no_buffer_discards > 0
    )
    _, off = _read(devices["leaf-su2-r2"], now)
    assert off.counters["Ethernet1/3"].watchdog_storms == {} and off.counters[
        "Ethernet1/1"
    ].watchdog_storms == {3: 0}


# --- live ------------------------------------------------------------------------------------------


def test_a_live_audit_snapshot_holds_the_seeded_link_faults(tmp_path_factory):
    """Over real SSH (Nornir + netmiko cisco_nxos) to the lab: the collected snapshot parses back to
    the lab's link state, and the counters show the seeded flap and pause storm."""
    fabric, policy = _lab(str(tmp_path_factory.mktemp("nxos-live-counters") / "lab"))
    result = live_audit(fabric, policy, FAULTS, Login("auditor", "nx-Lab-c0unters"), tmp_path_factory)
    assert all(c.error is None for c in result.collected.values())
    states = snapshot_states(fabric, result.snapshot)
    played = simulated_devices(fabric, policy, FAULTS)
    for name, simulated in played.items():
        if not fabric.devices[name].is_switch:
            continue
        state = states[name]
        assert state.unparsed == {} and {"link", "counters"} <= state.facets, name
        for port_name, port in simulated.state.interfaces.items():
            assert (state.interfaces[port_name].oper_up, state.interfaces[port_name].speed_gbps) == (
                port.oper_up,
                port.speed_gbps,
            ), f"{name} {port_name}"
        assert set(state.counters) == {n for n, p in simulated.state.interfaces.items() if p.oper_up}
    assert states["leaf-su1-r1"].interfaces["Ethernet1/3"].speed_gbps == 200
    assert states["leaf-su1-r2"].interfaces["Ethernet1/2"].oper_up is False
    # The lab counts each command line as one reading of the device: a flapping port has gone
    # down again by the time `show interface` is read.
    assert states["leaf-su1-r2"].counters["Ethernet1/4"].link_downs > 1
    assert states["leaf-su1-r2"].counters["Ethernet1/1"].link_downs == 1
    assert states["leaf-su2-r1"].counters["Ethernet1/1"].stormed == frozenset({3})
    assert states["leaf-su2-r1"].counters["Ethernet1/1"].watchdog_storms[3] >= 1


def test_pfc_rows_with_a_priority_group_column_and_active_pauses():
    """Releases that print the priority group too (`COS QOS Group PG TxPause TxCount RxPause
    RxCount`, `-` where a CoS has none) and a CoS being paused right now (`Active`)."""
    text = outputs()["show_queuing_interface"]
    start = text.index("PFC_COS QOS_Group", text.index("Ingress Queuing for Ethernet1/31"))
    end = text.index("-----", start)
    rows = "".join(
        f"   {cos}         -         -  Inactive         0        Inactive               0\n"
        if cos != 3
        else "   3         3         3  Active           90211    Active                 77120\n"
        for cos in range(8)
    )
    table = "COS QOS Group        PG   TxPause   TxCount         RxPause         RxCount\n" + rows
    state = NXOS.parse_outputs(outputs(show_queuing_interface=text[:start] + table + text[end:]), LEAF)
    assert state.unparsed == {}
    uplink = state.counters["Ethernet1/31"]
    assert (uplink.pause_tx, uplink.pause_rx) == (
        {c: 90211 if c == 3 else 0 for c in QUEUES},
        {c: 77120 if c == 3 else 0 for c in QUEUES},
    )
