"""Link state and counters of the lab's devices: what a fabric that has carried traffic reports.

A counter reads as a rate times the seconds since `EPOCH`, so any two readings (two audits, two
`lab snapshot`s, two lab processes) of a healthy port give the same healthy rate. Events (a flap, a
watchdog storm) count the lab's readings of the device instead, so two audits always see one
between them, however close together they run, and the first reading already shows one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from netcfg.model import Device, DeviceState, Fabric, InterfaceState, PcieLink, PortCounters

# 2026-01-01T00:00:00Z: counters read as if the fabric had run since then.
EPOCH = 1_767_225_600.0
# The PCIe link of a healthy NIC: Gen5 x16.
PCIE_GEN5_X16 = PcieLink(width=16, max_width=16, speed_gts=32.0, max_speed_gts=32.0)


@dataclass(frozen=True, slots=True)
class PortRates:
    """Per-second rates of one port's counters, and the events counted per reading."""

    fec_corrected: float = 40.0
    fec_uncorrected: float = 0.0
    crc_errors: float = 0.0
    # Pause frames per no-drop priority, each way: a loaded lossless fabric pauses now and then.
    pause: float = 5.0
    # ECN-marked packets on the RoCE queue (switches) / CNPs each way (NICs).
    ecn_marked: float = 800.0
    lossless_drops: float = 0.0
    cnp_sent: float = 400.0
    retransmits: float = 0.2
    out_of_buffer: float = 0.0
    flaps_per_reading: int = 0
    storms_per_reading: int = 0


HEALTHY = PortRates()
# What each fault changes in a port's rates (DeviceFaults names them).
FEC_ERRORS = {"fec_corrected": 2_500_000.0, "fec_uncorrected": 30.0}
CRC_ERRORS = {"crc_errors": 12.0}
PAUSE_STORM = {"pause": 900_000.0, "storms_per_reading": 1}
LOSSLESS_DROPS = {"lossless_drops": 1500.0}
FLAPPING = {"flaps_per_reading": 1}
NO_CNP = {"cnp_sent": 0.0}


def _count(rate: float, now: float) -> int:
    return int(rate * (now - EPOCH))


def port_counters(
    port: InterfaceState, rates: PortRates, roce_queue: int, now: float, reads: int
) -> PortCounters:
    """The counters a port with these settings and rates shows at `now`, after `reads` earlier readings."""
    # A flapping or storming port has done so before anyone looks: the first reading shows one event.
    events = reads + 1
    paused = sorted(port.no_drop_priorities or ()) if port.pfc_enabled is not False else []
    pauses = {p: _count(rates.pause, now) for p in paused}
    counters = PortCounters(
        link_downs=1 + rates.flaps_per_reading * events,
        fec_corrected=_count(rates.fec_corrected, now),
        fec_uncorrected=_count(rates.fec_uncorrected, now),
        crc_errors=_count(rates.crc_errors, now),
        symbol_errors=_count(rates.crc_errors, now),
        pause_rx=pauses,
        pause_tx=dict(pauses),
        ecn_marked={roce_queue: _count(rates.ecn_marked, now)},
        queue_drops={roce_queue: _count(rates.lossless_drops, now)},
        no_buffer_discards=_count(rates.lossless_drops, now),
        watchdog_storms={p: rates.storms_per_reading * events for p in paused} if port.watchdog else {},
        stormed=frozenset(paused) if rates.storms_per_reading and port.watchdog else frozenset(),
    )
    if port.roce_mode is not None or port.ecn_np_priorities is not None:
        # A NIC: it is the notification point for what it receives and the reaction point for what
        # it sends, so CNPs flow both ways at the same rate on a healthy rail.
        counters.ecn_marked_roce = _count(rates.ecn_marked, now)
        counters.cnp_sent = _count(rates.cnp_sent, now)
        counters.cnp_handled = _count(HEALTHY.cnp_sent, now)
        counters.retransmits = _count(rates.retransmits, now)
        counters.out_of_buffer = _count(rates.out_of_buffer, now)
    return counters


def with_link_state(state: DeviceState, device: Device, fabric: Fabric) -> DeviceState:
    """The state with every cabled port up at the plan's speed, and host NICs on a full PCIe link."""
    speeds = {local.interface: link.speed_gbps for local, link, _ in fabric.links_of(device.name)}
    ports = dict(state.interfaces)
    for name, speed in speeds.items():
        port = ports.get(name) or InterfaceState(name=name)
        pcie = PCIE_GEN5_X16 if not device.is_switch else None
        ports[name] = dataclasses.replace(port, oper_up=True, speed_gbps=speed, pcie=pcie)
    return dataclasses.replace(state, interfaces=ports, facets=state.facets | {"link", "counters"})


def with_counters(
    state: DeviceState,
    rates: tuple[PortRates, dict[str, PortRates]],
    roce_queue: int,
    now: float,
    reads: int,
) -> DeviceState:
    """The state with the counters of its cabled, running ports as read at `now`; `rates`: those of
    the device's ports, and of the ports a fault changes."""
    default, by_port = rates
    counters = {
        name: port_counters(port, by_port.get(name, default), roce_queue, now, reads)
        for name, port in state.interfaces.items()
        if port.oper_up
    }
    return dataclasses.replace(state, counters=counters, read_at=round(now, 3))
