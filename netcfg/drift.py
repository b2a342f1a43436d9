"""Drift between two snapshots of one fabric: what changed, per device and setting."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from netcfg.model import DeviceState, Fabric, InterfaceState
from netcfg.rules import show
from netcfg.sources import snapshot_states, unchanged_devices

_PORT_FIELDS = [f.name for f in dataclasses.fields(InterfaceState) if f.name != "name"]


@dataclass(frozen=True, slots=True)
class Change:
    device: str
    setting: str
    before: str
    after: str

    def as_dict(self) -> dict[str, str]:
        return {"device": self.device, "setting": self.setting, "before": self.before, "after": self.after}


def _text(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v)}" for k, v in sorted(value.items())) or "none"
    return show(value)


def settings(state: DeviceState) -> dict[str, object]:
    """Every setting of a device as `setting -> value`, ports as `<interface>.<setting>`."""
    out: dict[str, object] = {
        "os_version": state.os_version,
        "model": state.model,
        "dscp_map": state.dscp_map,
        "tc_queue": state.tc_queue,
        "pfc_watchdog": state.watchdog,
        "collection": state.collection_error[0] if state.collection_error else "ok",
    }
    for port in state.interfaces.values():
        for name in _PORT_FIELDS:
            out[f"{port.name}.{name}"] = getattr(port, name)
    for n in state.lldp:
        out[f"{n.local_interface}.lldp_neighbor"] = f"{n.system_name}:{n.port}"
    return out


def drift(before: dict[str, DeviceState], after: dict[str, DeviceState]) -> list[Change]:
    changes = []
    for device in sorted(set(before) | set(after)):
        if device not in before or device not in after:
            was, now = ("present", "absent") if device in before else ("absent", "present")
            changes.append(Change(device, "device", was, now))
            continue
        was_error, now_error = before[device].collection_error, after[device].collection_error
        if was_error or now_error:
            # A device that could not be collected has no settings to compare: one change says so,
            # where every one of its settings turning "absent" would bury it.
            was, now = (error[0] if error else "ok" for error in (was_error, now_error))
            if was != now:
                changes.append(Change(device, "collection", was, now))
            continue
        a, b = settings(before[device]), settings(after[device])
        unreadable = bool(before[device].unparsed or after[device].unparsed)
        if unreadable:
            # Output that could not be read leaves settings unknown or absent: that is one change
            # (which output), and only settings read on both sides are compared.
            was, now = _unreadable(before[device]), _unreadable(after[device])
            if was != now:
                changes.append(Change(device, "unreadable output", was, now))
        for key in sorted(set(a) | set(b)):
            # Values compared first, texts only where they differ: 1,000 devices of 60 ports each
            # are mostly the same from one audit to the next, and writing every value out cost
            # more than the checks.
            old, new = a.get(key, _ABSENT), b.get(key, _ABSENT)
            if old is new or (old == new and type(old) is type(new)):
                continue
            old_text, new_text = _value_text(old), _value_text(new)
            if old_text != new_text and not (unreadable and {old_text, new_text} & _UNREAD):
                changes.append(Change(device, key, old_text, new_text))
    return changes


_ABSENT = object()


def _value_text(value: object) -> str:
    return "absent" if value is _ABSENT else _text(value)


_UNREAD = {"unknown", "absent"}


def _unreadable(state: DeviceState) -> str:
    return ", ".join(sorted(state.unparsed)) or "none"


def snapshot_drift(
    fabric: Fabric, before: Path, after: Path, after_states: dict[str, DeviceState] | None = None
) -> list[Change]:
    """Drift between two snapshots, parsing only the devices whose outputs changed.

    `after_states`, when the caller has already parsed the newer snapshot, saves parsing it again.
    """
    same = unchanged_devices(before, after)
    if after_states is None:
        after_states = snapshot_states(fabric, after, skip=same)
    return drift(
        snapshot_states(fabric, before, skip=same),
        {name: state for name, state in after_states.items() if name not in same},
    )
