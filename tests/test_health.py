"""Health rules on two readings of the lab's devices: each counter and link fault is named exactly once
per symptom, on the ports it is on, and a healthy fabric gives none."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from netcfg.checks.health import Readings, grown
from netcfg.checks.runner import run_checks
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import EPOCH, with_counters
from netcfg.lab.snapshot import simulated_devices
from netcfg.model import DeviceState, Fabric, PortCounters
from netcfg.policy import Policy

# Rules of this module's concern: configuration rules are tested elsewhere.
HEALTH = ("link.", "host.pcie", "host.cnp", "host.retrans", "host.out_of", "pfc.pause", "pfc.watchdog_storms")
HEALTH += ("queue.", "health.")
T0 = EPOCH + 300 * 86_400


def readings(
    fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults], seconds: float = 300
) -> tuple[dict[str, DeviceState], dict[str, DeviceState]]:
    """(earlier, now): two readings `seconds` apart, as two audits would collect them."""
    devices = simulated_devices(fabric, policy, faults)

    def at(t: float) -> dict[str, DeviceState]:
        out = {}
        for name, sim in devices.items():
            state = dataclasses.replace(sim.state)
            out[name] = with_counters(state, sim.rates, sim.roce_queue, t, sim.reads)
            sim.reads += 1
        return out

    return at(T0), at(T0 + seconds)


def health_findings(fabric: Fabric, policy: Policy, faults: dict, **kw) -> set[tuple[str, str, str | None]]:
    before, now = readings(fabric, policy, faults)
    findings = run_checks(fabric, policy, now, previous=before, **kw)
    return {(f.device, f.rule, f.interface) for f in findings if f.rule.startswith(HEALTH)}


def test_a_healthy_fabric_gives_no_health_finding(lab_fabric: Fabric, lab_policy: Policy) -> None:
    assert health_findings(lab_fabric, lab_policy, {}) == set()


def test_each_fault_is_named_on_its_ports(lab_fabric: Fabric, lab_policy: Policy) -> None:
    faults = {
        "leaf-su1-r2": DeviceFaults(speed_gbps={"Ethernet3": 200}),
        "spine1": DeviceFaults(flapping=["Ethernet2"]),
        "leaf-su2-r1": DeviceFaults(fec_errors=["Ethernet1"], crc_errors=["Ethernet2"]),
        "leaf-su2-r3": DeviceFaults(pause_storm=["Ethernet1"]),
        "leaf-su2-r4": DeviceFaults(lossless_drops=["Ethernet2"]),
        "gpu03": DeviceFaults(no_cnp=True),
        "gpu04": DeviceFaults(pcie_width={"eth2": 8}),
    }
    leaf_of_spine1_e2 = lab_fabric.peer(
        next(e for e, *_ in lab_fabric.links_of("spine1") if e.interface == "Ethernet2")
    )
    host_of_r2_e3 = lab_fabric.peer(
        next(e for e, *_ in lab_fabric.links_of("leaf-su1-r2") if e.interface == "Ethernet3")
    )
    assert leaf_of_spine1_e2 is not None and host_of_r2_e3 is not None
    assert health_findings(lab_fabric, lab_policy, faults) == {
        # A cable's speed and its flaps show on both of its ends.
        ("leaf-su1-r2", "link.degraded", "Ethernet3"),
        (host_of_r2_e3.device, "link.degraded", host_of_r2_e3.interface),
        ("spine1", "link.flapping", "Ethernet2"),
        (leaf_of_spine1_e2.device, "link.flapping", leaf_of_spine1_e2.interface),
        ("leaf-su2-r1", "link.fec_uncorrected", "Ethernet1"),
        ("leaf-su2-r1", "link.fec_corrected", "Ethernet1"),
        ("leaf-su2-r1", "link.crc_errors", "Ethernet2"),
        ("leaf-su2-r3", "pfc.pause_storm", "Ethernet1"),
        ("leaf-su2-r3", "pfc.watchdog_storms", "Ethernet1"),
        ("leaf-su2-r4", "queue.lossless_drops", "Ethernet2"),
        ("gpu03", "host.cnp_loop", "eth0-3"),
        ("gpu04", "host.pcie_degraded", "eth2"),
    }


def test_findings_give_the_rate_over_the_time_between_readings(
    lab_fabric: Fabric, lab_policy: Policy
) -> None:
    before, now = readings(
        lab_fabric, lab_policy, {"leaf-su2-r1": DeviceFaults(fec_errors=["Ethernet1"])}, 600
    )
    findings = run_checks(lab_fabric, lab_policy, now, previous=before)
    (fec,) = [f for f in findings if f.rule == "link.fec_uncorrected"]
    assert fec.actual == "18,000 in 10 min (30.0/s)"
    assert fec.expected == "uncorrectable FEC at most 0/s"


def test_lossy_mode_expects_no_pause_frames_at_all(lab_fabric: Fabric, lab_policy: Policy) -> None:
    """A lossy policy judging a fabric that still pauses: every pausing port is named, a storm or not."""
    lossy = lab_policy.model_copy(update={"mode": "lossy"})
    before, now = readings(lab_fabric, lab_policy, {})
    findings = [f for f in run_checks(lab_fabric, lossy, now, previous=before) if f.rule == "pfc.pause_storm"]
    assert {f.device for f in findings} == set(lab_fabric.devices)
    assert all("lossy policy expects none" in f.message for f in findings)


def test_a_watchdog_holding_a_queue_stormed_is_named_without_an_earlier_reading(
    lab_fabric: Fabric, lab_policy: Policy
) -> None:
    _, now = readings(lab_fabric, lab_policy, {"leaf-su2-r3": DeviceFaults(pause_storm=["Ethernet1"])})
    findings = [f for f in run_checks(lab_fabric, lab_policy, now) if f.rule.startswith(HEALTH)]
    assert [(f.device, f.rule, f.interface, f.actual) for f in findings] == [
        ("leaf-su2-r3", "pfc.watchdog_storms", "Ethernet1", "queue 3 stormed now")
    ]


def test_errors_since_the_go_live_baseline_are_named_when_the_last_interval_was_quiet(
    lab_fabric: Fabric, lab_policy: Policy
) -> None:
    baseline, now = readings(lab_fabric, lab_policy, {})
    port = now["leaf-su1-r1"].counters["Ethernet1"]
    now["leaf-su1-r1"].counters["Ethernet1"] = dataclasses.replace(port, crc_errors=port.crc_errors + 7)
    previous = {name: dataclasses.replace(s, counters=dict(s.counters)) for name, s in now.items()}
    findings = run_checks(lab_fabric, lab_policy, now, previous=previous, baseline=baseline)
    assert [(f.device, f.rule, f.interface, f.actual) for f in findings if f.rule.startswith(HEALTH)] == [
        ("leaf-su1-r1", "health.since_baseline", "Ethernet1", "7 CRC errors")
    ]


def test_a_counter_cleared_between_readings_counts_from_the_clear() -> None:
    counted = Readings(
        ["Ethernet1"], [PortCounters(crc_errors=5)], [PortCounters(crc_errors=1_000_000)], 60.0
    )
    assert counted.rising(counted.values(lambda c: c.crc_errors), 0) == [("Ethernet1", 5)]


@given(
    before=st.integers(0, 2**64),
    now=st.integers(0, 2**64),
    seconds=st.floats(0.001, 1e7),
    per_s=st.floats(0, 1e9),
)
def test_a_delta_is_never_negative_and_a_rate_is_judged_against_its_threshold(
    before: int, now: int, seconds: float, per_s: float
) -> None:
    counted = Readings(
        ["p"], [PortCounters(fec_corrected=now)], [PortCounters(fec_corrected=before)], seconds
    )
    delta = grown(now, before)
    assert delta is not None and delta >= 0
    assert delta == (now - before if now >= before else now)
    assert counted.exceeds(delta, per_s) == (delta > 0 and (per_s == 0 or delta / seconds > per_s))


COUNTS = st.one_of(st.none(), st.integers(0, 50), st.integers(0, 2**64))
SECONDS = st.one_of(st.none(), st.floats(0.001, 1e6))
PER_S = st.one_of(st.just(0.0), st.floats(0, 100))


def _counted(
    counter: str, ports: list[tuple[object, object]], seconds: float | None
) -> tuple[list[str], Readings]:
    """Ports p0, p1, ... whose `counter` reads (now, before) as given."""
    names = [f"p{i}" for i in range(len(ports))]
    now = [PortCounters(**{counter: value}) for value, _ in ports]
    before = [PortCounters(**{counter: value}) for _, value in ports]
    return names, Readings(names, now, before, seconds)


@given(ports=st.lists(st.tuples(COUNTS, COUNTS), max_size=12), seconds=SECONDS, per_s=PER_S)
# A counter cleared in between: its delta is negative, but what it shows now is new.
@example(ports=[(10, 10), (6_000, 1_000_000)], seconds=60.0, per_s=1.0)
def test_ports_judged_together_give_what_each_port_judged_alone_gives(
    ports: list[tuple[int | None, int | None]], seconds: float | None, per_s: float
) -> None:
    """`rising` first asks all ports at once whether any can be over the threshold; whatever the counts
    (missing, cleared, equal, huge), it names exactly the ports that one port at a time names."""
    names, counted = _counted("crc_errors", ports, seconds)
    one_by_one = [
        (name, count)
        for name, (now, before) in zip(names, ports, strict=True)
        if (count := grown(now, before)) and counted.exceeds(count, per_s)
    ]
    assert counted.rising(counted.values(lambda c: c.crc_errors), per_s) == one_by_one


MAPS = st.dictionaries(st.integers(0, 7), st.integers(0, 10**6), max_size=3)


@given(ports=st.lists(st.tuples(MAPS, MAPS), max_size=8), seconds=SECONDS, per_s=PER_S)
def test_counter_maps_judged_key_by_key_give_each_port_in_order(
    ports: list[tuple[dict[int, int], dict[int, int]]], seconds: float | None, per_s: float
) -> None:
    """Pause frames per priority: each (port, priority) over the threshold, in port order then priority
    order, exactly as judging one port and one priority at a time gives them."""
    names, counted = _counted("pause_rx", ports, seconds)
    one_by_one = [
        (name, key, count)
        for name, (now, before) in zip(names, ports, strict=True)
        for key in sorted(now)
        if (count := grown(now[key], before.get(key))) and counted.exceeds(count, per_s)
    ]
    assert counted.rising_per_key(lambda c: c.pause_rx, per_s) == one_by_one


@pytest.mark.parametrize("missing", ["before", "now"])
def test_a_counter_one_reading_does_not_show_is_not_judged(missing: str) -> None:
    shown, absent = PortCounters(crc_errors=10), PortCounters()
    counted = Readings(
        ["p"], [absent if missing == "now" else shown], [absent if missing == "before" else shown], 1.0
    )
    assert counted.rising(counted.values(lambda c: c.crc_errors), 0) == []


def test_each_reading_prints_what_a_full_render_of_that_reading_prints():
    """The lab renders a device's settings once and its counters at every reading: every reading of
    every platform, with the mixed lab's faults (flaps, storms, a link down, printed secrets), is
    what rendering the whole device at that reading gives."""
    from netcfg.inventory import load_fabric
    from netcfg.lab.devices import load_faults, with_printed
    from netcfg.platforms.simulator import simulator
    from netcfg.policy import load_policy
    from tests.conftest import ROOT

    lab = ROOT / "inventories" / "lab-multi"
    fabric = load_fabric(lab)
    policy = load_policy(fabric.policy_ref, lab)
    faults = load_faults(lab / "faults.yaml", fabric)
    devices = simulated_devices(fabric, policy, faults)
    fresh = simulated_devices(fabric, policy, faults)
    assert {d.device.platform for d in devices.values()} >= {"eos", "cumulus", "sonic", "nxos", "junos"}
    for name, sim in devices.items():
        if name.startswith("leaf"):
            sim.prime()  # as a lab serving them does: no reading counted
        for reading in range(4):
            at = T0 + 300 * reading
            copy = fresh[name]
            state = with_counters(copy.state, copy.rates, copy.roce_queue, at, reading)
            whole = simulator(copy.device.platform).render_outputs(state, copy.device)
            if copy.printed:
                whole = with_printed(whole, copy.printed, name)
            assert sim.outputs(at) == whole, (name, reading)
