"""Drift between two snapshots of one fabric: what changed, per device and setting."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from ipaddress import ip_network
from pathlib import Path
from typing import Any

from netcfg.model import DeviceState, Fabric, InstalledRoute, InterfaceState, StaticRoute
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
        "tc_priority_group": state.tc_pg,
        "tc_pfc_priority": state.tc_pfc,
        "ecmp_hash_fields": state.hash_fields,
        "ecmp_hash_seed": state.hash_seed,
        "collection": state.collection_error[0] if state.collection_error else "ok",
    }
    for port in state.interfaces.values():
        for name in _PORT_FIELDS:
            out[f"{port.name}.{name}"] = getattr(port, name)
    for n in state.lldp:
        out[f"{n.local_interface}.lldp_neighbor"] = f"{n.system_name}:{n.port}"
    return out


_Route = StaticRoute | InstalledRoute


def _static_text(route: StaticRoute) -> str:
    return " ".join(part for part in (route.interface, route.next_hop) if part) or "no next hop"


def _route_text(route: InstalledRoute) -> str:
    """A route as drift shows it: its protocol and its next hops in a stable order (ECMP members
    print in any order from one reading to the next)."""
    hops = sorted(" ".join(part for part in (hop.interface, hop.address) if part) for hop in route.next_hops)
    return f"{route.protocol} via {', '.join(hops)}" if hops else route.protocol


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
        was, now = before[device], after[device]
        changes += _route_changes(device, "static_route", was.static_routes, now.static_routes, _static_text)
        changes += _route_changes(device, "route", was.routes, now.routes, _route_text)
        changes += _route_changes(device, "route", was.routes6, now.routes6, _route_text)
    return changes


def _route_changes(
    device: str,
    setting: str,
    before: Sequence[_Route] | None,
    after: Sequence[_Route] | None,
    text: Callable[[Any], str],
) -> list[Change]:
    """The routes that differ between two readings, by prefix. Routes one reading does not show (a
    table not collected or not readable, a config without them) are unknown there: nothing is
    compared, nor is every route 'absent'. Equal tables, the usual case, are passed over whole."""
    if before is None or after is None or before == after:
        return []
    was, now = _by_prefix(before, text), _by_prefix(after, text)
    return [
        Change(device, f"{setting} {prefix}", was.get(prefix, "absent"), now.get(prefix, "absent"))
        for prefix in sorted(was.keys() | now.keys(), key=_prefix_key)
        if was.get(prefix) != now.get(prefix)
    ]


def _by_prefix(routes: Sequence[_Route], text: Callable[[Any], str]) -> dict[str, str]:
    """Each prefix's routes as one text: a config may hold several for a prefix (a floating static
    route beside the preferred one)."""
    found: dict[str, list[str]] = {}
    for route in routes:
        found.setdefault(route.prefix, []).append(text(route))
    return {prefix: "; ".join(sorted(texts)) for prefix, texts in found.items()}


def _prefix_key(prefix: str) -> tuple[int, int, int, str]:
    """Prefixes in address order; one that is no network (a garbled table) after them, as printed."""
    try:
        network = ip_network(prefix, strict=False)
    except ValueError:
        return 7, 0, 0, prefix
    return network.version, int(network.network_address), network.prefixlen, ""


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
    return changed_drift(snapshot_states(fabric, before, skip=same), after_states, same)


def changed_drift(
    before: dict[str, DeviceState], after: dict[str, DeviceState], same: Collection[str]
) -> list[Change]:
    """`drift`, passing over the devices `same` names: those whose outputs (counters and link state
    aside) and collection result both snapshots' `meta.json` fingerprints show unchanged."""
    return drift(
        {name: state for name, state in before.items() if name not in same},
        {name: state for name, state in after.items() if name not in same},
    )
