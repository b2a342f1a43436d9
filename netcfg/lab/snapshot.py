"""Write a snapshot straight from simulated devices, without SSH (examples, fixtures, tests)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from netcfg import __version__
from netcfg.lab.devices import DeviceFaults, apply_faults, live_states
from netcfg.model import Fabric
from netcfg.platforms import get_platform
from netcfg.policy import Policy
from netcfg.snapshot import SnapshotWriter


def simulated_outputs(
    fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults]
) -> dict[str, dict[str, str]]:
    """device -> {command cli -> output} as the lab's devices print them."""
    out = {}
    for name, state in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if name in faults:
            state = apply_faults(state, faults[name], device)
        out[name] = get_platform(device.platform).render_outputs(state, device)
    return out


def write_simulated_snapshot(
    fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults], target: Path
) -> Path:
    # Writing the same simulated snapshot again replaces the earlier one, and only if netcfg wrote it.
    writer = SnapshotWriter(target, replace=True)
    devices = {}
    for name, outputs in simulated_outputs(fabric, policy, faults).items():
        device = fabric.devices[name]
        commands = get_platform(device.platform).commands(device)
        digest = writer.write_device(name, {c.file: outputs[c.cli] for c in commands})
        devices[name] = {
            "platform": device.platform,
            "commands": [c.cli for c in commands],
            "error": None,
            "fingerprint": digest,
        }
    meta = {
        "netcfg_version": __version__,
        "fabric": fabric.name,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": "simulated (netcfg lab snapshot)",
        "devices": devices,
    }
    return writer.commit(meta)
