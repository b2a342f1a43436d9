"""Write a snapshot straight from simulated devices, without SSH (examples, fixtures, tests)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from netcfg import __version__
from netcfg.lab.devices import (
    DeviceFaults,
    PrintedText,
    apply_faults,
    cable_faults,
    check_printed,
    live_states,
    port_rates,
    with_printed,
)
from netcfg.lab.health import PortRates, with_counters, with_link_state
from netcfg.lab.routes import LabRoutes
from netcfg.model import Device, DeviceState, Fabric
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy
from netcfg.snapshot import CREATED_FORMAT, FOLDERS, SnapshotWriter


@dataclass(slots=True)
class SimulatedDevice:
    """One lab device: its settings with its faults applied, and its counters as read at any time."""

    device: Device
    state: DeviceState
    rates: tuple[PortRates, dict[str, PortRates]]
    roce_queue: int
    reads: int = 0
    printed: dict[str, list[PrintedText]] = field(default_factory=dict)
    # Every output as the first reading rendered it: later readings render only what changes.
    rendered: dict[str, str] | None = None
    # The fabric's route tables, printed only when a route command is asked for.
    routes: LabRoutes | None = None
    _route_outputs: dict[str, str | None] = field(default_factory=dict)

    def route_output(self, cli: str) -> str | None:
        """The route table the device prints if `cli` is one of its platform's route commands, else
        None."""
        if self.routes is None:
            return None
        played = simulator(self.device.platform)
        source = next((s for s in played.platform.route_tables if s.command.cli == cli), None)
        if source is None:
            return None
        if cli not in self._route_outputs:
            table = self.routes.table(self.device.name, source.family)
            self._route_outputs[cli] = played.render_routes(table, source.family)
        return self._route_outputs[cli]

    def outputs(self, now: float | None = None) -> dict[str, str]:
        """{command cli -> output} as the device prints them at `now` (default: the current time);
        each call is one more reading (flaps and storms count readings)."""
        at = time.time() if now is None else now
        state = with_counters(self.state, self.rates, self.roce_queue, at, self.reads)
        self.reads += 1
        played = simulator(self.device.platform)
        readings = played.render_readings(state, self.device) if self.rendered is not None else None
        if readings is None:
            self.rendered = played.render_outputs(state, self.device)
            outputs = dict(self.rendered)
        else:
            outputs = self.rendered | readings
        return with_printed(outputs, self.printed, self.device.name) if self.printed else outputs

    def prime(self) -> None:
        """Render the outputs that hold the device's settings before its first reading, as a device
        holds its configuration before anyone asks (a lab serving a thousand devices starts them
        all); no reading is counted."""
        if self.rendered is None:
            state = with_counters(self.state, self.rates, self.roce_queue, time.time(), self.reads)
            self.rendered = simulator(self.device.platform).render_outputs(state, self.device)


def simulated_devices(
    fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults]
) -> dict[str, SimulatedDevice]:
    faults = cable_faults(fabric, faults)
    routes = LabRoutes(fabric, {name: f.installed_routes for name, f in faults.items() if f.installed_routes})
    out = {}
    for name, state in live_states(fabric, policy).items():
        device = fabric.devices[name]
        state = with_link_state(state, device, fabric)
        printed = {}
        if name in faults:
            state = apply_faults(state, faults[name], device)
            check_printed(faults[name], device)
            printed = faults[name].prints
        queue = state.queue_of(policy.roce.priority)
        out[name] = SimulatedDevice(
            device,
            state,
            port_rates(faults.get(name)),
            queue,
            printed=printed,
            routes=routes if device.is_switch else None,
        )
    return out


def simulated_outputs(
    fabric: Fabric,
    policy: Policy,
    faults: dict[str, DeviceFaults],
    at: float | None = None,
    reads: int = 0,
) -> dict[str, dict[str, str]]:
    """device -> {command cli -> output} as the lab's devices print them at `at` (default: now),
    after `reads` earlier readings."""
    out = {}
    for name, simulated in simulated_devices(fabric, policy, faults).items():
        simulated.reads = reads
        out[name] = simulated.outputs(at)
    return out


def write_simulated_snapshot(
    fabric: Fabric,
    policy: Policy,
    faults: dict[str, DeviceFaults],
    target: Path,
    at: float | None = None,
    reads: int = 0,
    layout: str = FOLDERS,
    routes: bool = False,
) -> Path:
    """A snapshot as the lab's devices would be collected at `at` (default: now).

    In a folder per device of a file per command by default: lab snapshots are where faults are
    planted by hand, in one output's file. `layout=DEVICE_FILES` writes them as collection does.
    `routes`: with each switch's route table, as `--routes` collects it.
    """
    at = round(time.time() if at is None else at, 3)
    # Writing the same simulated snapshot again replaces the earlier one, and only if netcfg wrote it.
    writer = SnapshotWriter(target, replace=True, layout=layout)
    devices = {}
    for name, simulated in simulated_devices(fabric, policy, faults).items():
        simulated.reads = reads
        outputs = simulated.outputs(at)
        device = fabric.devices[name]
        platform = simulator(device.platform).platform
        commands = platform.commands(device)
        for source in platform.route_tables if routes else ():
            if (printed := simulated.route_output(source.command.cli)) is not None:
                commands, outputs = [*commands, source.command], {**outputs, source.command.cli: printed}
        digest = writer.write_device(
            name,
            {c.file: platform.saved_output(outputs[c.cli]) for c in commands},
            platform.counter_files(device),
        )
        devices[name] = {
            "platform": device.platform,
            "commands": [c.cli for c in commands],
            "error": None,
            "fingerprint": digest,
            "read_at": at,
        }
    meta = {
        "netcfg_version": __version__,
        "fabric": fabric.name,
        "created": datetime.fromtimestamp(at, UTC).strftime(CREATED_FORMAT),
        "source": "simulated (netcfg lab snapshot)",
        "devices": devices,
    }
    return writer.commit(meta)
