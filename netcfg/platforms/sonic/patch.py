"""Remediation for config_db: an RFC 6902 JSON patch (what SONiC's `config apply-patch` takes) from the
running config to the intended one, made by the jsonpatch library, limited to what netcfg owns.

Owned: the fabric ports' entries of the per-port QoS tables (PORT_QOS_MAP, QUEUE, PFC_WD, and
BUFFER_PG but for lossy groups such as PG 0), the maps and profiles netcfg defines (by name), and the
fields netcfg sets on PORT and CABLE_LENGTH. Everything else (other ports, SONiC's stock maps, pools,
lossy buffers, BGP, the hostname, ...) is outside the comparison, so the patch never removes or
changes it.
"""

from __future__ import annotations

import json

import jsonpatch

from netcfg.errors import InputError
from netcfg.platforms.sonic.configdb import Unreadable, load
from netcfg.platforms.sonic.parse import PORT_TABLES, reference, split_key
from netcfg.platforms.sonic.render import render_text
from netcfg.remediation import Remediation, unified_diff

# Tables where netcfg owns only the fields it writes; DEVICE_METADATA (the hostname) is the device's.
FIELD_TABLES = ("PORT", "CABLE_LENGTH")
NOT_PATCHED = ("DEVICE_METADATA",)


def remediation(device: str, intended: str, running: str, source: str) -> Remediation:
    want = {t: entries for t, entries in json.loads(intended).items() if t not in NOT_PATCHED}
    try:
        have = load(running).tables
    except Unreadable as exc:
        raise InputError(f"{device}: {source}:{exc.line}", f"{exc.why}; expected config_db JSON") from None
    view = owned(have, want)
    for table in view:
        # A table netcfg now leaves empty keeps its entries outside netcfg's: remove entry by entry.
        want.setdefault(table, {})
    patch = jsonpatch.make_patch(view, want)
    diff = unified_diff(device, render_text(view).splitlines(), render_text(want).splitlines())
    if not patch.patch:
        return Remediation(device, "", "")
    return Remediation(device, diff, json.dumps(patch.patch, indent=2))


def owned(have: dict[str, dict], want: dict[str, dict]) -> dict[str, dict]:
    """The part of the running config netcfg's intended tables speak for."""
    ports = set(want.get("PORT", {}))
    profiles = have.get("BUFFER_PROFILE", {})
    view: dict[str, dict] = {}
    for table, entries in have.items():
        mine = want.get(table, {})
        if table in PORT_TABLES:
            view[table] = {
                k: v
                for k, v in entries.items()
                if k in mine or (_ports_of(k) <= ports and not _lossy_group(table, v, profiles))
            }
        elif table in FIELD_TABLES and table in want:
            view[table] = {k: {f: v[f] for f in mine[k] if f in v} for k, v in entries.items() if k in mine}
        elif table in want:
            view[table] = {k: v for k, v in entries.items() if k in mine}
    return view


def _ports_of(key: str) -> set[str]:
    return set(split_key(key)[0]) or {key}


def _lossy_group(table: str, fields: dict, profiles: dict[str, dict]) -> bool:
    """A priority group on a lossy profile (PG 0 as SONiC's buffer template sets it): the device's
    own buffer setup, which the QoS chain does not model and the patch leaves alone."""
    if table != "BUFFER_PG":
        return False
    profile = profiles.get(reference(str(fields.get("profile", ""))))
    return profile is not None and "xoff" not in profile
