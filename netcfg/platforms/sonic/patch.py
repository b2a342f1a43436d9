"""Remediation for config_db: an RFC 6902 JSON patch (what SONiC's `config apply-patch` takes) from the
running config to the intended one, made by the jsonpatch library, limited to what netcfg owns.

Owned, field by field: on the fabric ports, the PORT_QOS_MAP fields that bind netcfg's maps and PFC,
the QUEUE ECN profile (and the scheduler of a queue netcfg makes strict, or one on netcfg's own
scheduler), the PFC_WD entries and the BUFFER_PG groups but for lossy ones such as PG 0; the fields
netcfg sets on PORT and CABLE_LENGTH; and the maps and profiles netcfg defines, by name. Everything
else (other ports, an operator's port shaper or DWRR schedulers on the fabric ports, SONiC's stock
maps, pools, lossy buffers, BGP, the hostname, ...) stays as it is: the patch is computed between the
running tables and the same tables with only the owned fields set to intent, so no operation names a
field outside them.
"""

from __future__ import annotations

import copy
import json

import jsonpatch

from netcfg.errors import InputError
from netcfg.platforms.sonic.configdb import Unreadable, load
from netcfg.platforms.sonic.names import MAP_TABLES
from netcfg.platforms.sonic.parse import PORT_TABLES, reference, split_key
from netcfg.platforms.sonic.render import render_text
from netcfg.remediation import Remediation, unified_diff

# Tables where netcfg owns only the fields it writes; DEVICE_METADATA (the hostname) is the device's.
FIELD_TABLES = ("PORT", "CABLE_LENGTH", "SWITCH_HASH")
NOT_PATCHED = ("DEVICE_METADATA",)
# PORT_QOS_MAP fields netcfg writes on a port; others (a port shaper's `scheduler`) are the operator's.
_PORT_QOS_FIELDS = frozenset({*MAP_TABLES, "pfc_enable", "pfcwd_sw_enable"})

Tables = dict[str, dict[str, dict]]


def remediation(device: str, intended: str, running: str, source: str) -> Remediation:
    want = {t: entries for t, entries in json.loads(intended).items() if t not in NOT_PATCHED}
    try:
        have = load(running).tables
    except Unreadable as exc:
        raise InputError(f"{device}: {source}:{exc.line}", f"{exc.why}; expected config_db JSON") from None
    view = owned(have, want)
    # Sorted: a set's order changes from run to run, and so would the patch's.
    touched = sorted(set(view) | set(want))
    before = {t: have[t] for t in touched if t in have}
    patch = jsonpatch.make_patch(before, restored(have, want))
    if not patch.patch:
        return Remediation(device, "", "")
    diff = unified_diff(device, render_text(view).splitlines(), render_text(want).splitlines())
    return Remediation(device, diff, json.dumps(patch.patch, indent=2))


def owned(have: Tables, want: Tables) -> Tables:
    """The part of the running config netcfg's intended tables speak for, field by field."""
    view: Tables = {}
    for table, entries in have.items():
        if table not in want and table not in PORT_TABLES:
            continue
        part = {}
        for key, fields in entries.items():
            mine = {f: v for f, v in fields.items() if owns_field(table, key, f, v, have, want)}
            if mine:
                part[key] = mine
        if part or table in want:
            view[table] = part
    return view


def owns_field(table: str, key: str, field: str, value: object, have: Tables, want: Tables) -> bool:
    """Whether netcfg owns one field of a running entry."""
    mine = want.get(table, {})
    if table in FIELD_TABLES:
        return key in mine and field in mine[key]
    if table not in PORT_TABLES:
        return key in mine
    if key not in mine and not _ports_of(key) <= set(want.get("PORT", {})):
        return False
    if table == "PORT_QOS_MAP":
        return field in _PORT_QOS_FIELDS or field in mine.get(key, {})
    if table == "QUEUE" and field == "scheduler":
        return field in mine.get(key, {}) or str(value) in want.get("SCHEDULER", {})
    if table == "BUFFER_PG":
        return key in mine or not _lossy(value, have.get("BUFFER_PROFILE", {}))
    return True


def restored(have: Tables, want: Tables) -> Tables:
    """The running tables netcfg's intent touches, with every owned field as intended and every other
    field as it is; an entry left with no field is gone."""
    out: Tables = {}
    for table in sorted(set(owned(have, want)) | set(want)):
        entries = copy.deepcopy(have.get(table, {}))
        for key, fields in list(entries.items()):
            kept = {f: v for f, v in fields.items() if not owns_field(table, key, f, v, have, want)}
            if kept or not fields:
                entries[key] = kept
            else:
                del entries[key]
        for key, fields in want.get(table, {}).items():
            entries[key] = {**entries.get(key, {}), **fields}
        out[table] = entries
    return out


def _ports_of(key: str) -> set[str]:
    return set(split_key(key)[0]) or {key}


def _lossy(profile: object, profiles: dict[str, dict]) -> bool:
    """A priority group on a lossy profile (PG 0 as SONiC's buffer template sets it): the device's
    own buffer setup, which the QoS chain does not model and the patch leaves alone."""
    found = profiles.get(reference(str(profile)))
    return found is not None and "xoff" not in found
