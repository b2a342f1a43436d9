"""Cabling CSVs: netcfg's own columns, or a NetBox cable export read as it comes.

One row per cable. The header says which form a file is in; every field is checked before it becomes
a link, and every refusal names the file, the line and what was expected.

| meaning             | netcfg        | NetBox CSV (import / export) | NetBox table export            |
| ------------------- | ------------- | ---------------------------- | ------------------------------ |
| device, side A      | `device_a`    | `side_a_device`              | `Device A` (`Side A` before 3.3) |
| interface, side A   | `interface_a` | `side_a_name`                | `Termination A`                |
| device, side B      | `device_b`    | `side_b_device`              | `Device B` (`Side B` before 3.3) |
| interface, side B   | `interface_b` | `side_b_name`                | `Termination B`                |
| speed, Gb/s         | `speed_gbps`  | `speed_gbps` (optional)      | `speed_gbps` (optional)        |
| length              | `cable_m` (m) | `length` + `length_unit`     | `Length` (`3 m`, `3.00 Meters`) |
| termination type    |               | `side_a_type`, `side_b_type` (`dcim.interface`) |             |

Other columns (label, status, colour, ...) are ignored. Speed and length missing from a file or a row
come from the inventory's `cabling_defaults`; without a default they are refused.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from netcfg.errors import InputError
from netcfg.files import read_text
from netcfg.model import Endpoint, Fabric, Link
from netcfg.naming import safe_device_name, safe_interface

CABLING_COLUMNS = ("device_a", "interface_a", "device_b", "interface_b", "speed_gbps", "cable_m")
MIN_SPEED_GBPS, MAX_SPEED_GBPS = 1, 1600
# Longer than any RoCE link (single-mode optics reach 10 km); beyond it PFC headroom is meaningless.
MAX_CABLE_M = 10_000.0

# Header names (compared case-insensitively) of each meaning, across the forms above.
_ALIASES: dict[str, tuple[str, ...]] = {
    "device_a": ("device_a", "side_a_device", "device a", "side a"),
    "interface_a": ("interface_a", "side_a_name", "termination a"),
    "device_b": ("device_b", "side_b_device", "device b", "side b"),
    "interface_b": ("interface_b", "side_b_name", "termination b"),
    "speed_gbps": ("speed_gbps",),
    "cable_m": ("cable_m",),
    "length": ("length",),
    "length_unit": ("length_unit", "length unit"),
    "type_a": ("side_a_type",),
    "type_b": ("side_b_type",),
}
_ENDS = ("device_a", "interface_a", "device_b", "interface_b")
EXPECTED_HEADER = (
    f"expected netcfg's header {','.join(CABLING_COLUMNS)} or a NetBox cable export "
    "(side_a_device,side_a_name,side_b_device,side_b_name,length,length_unit or "
    "Device A,Termination A,Device B,Termination B,Length)"
)
# NetBox's length units (CableLengthUnitChoices: value and display name), in metres.
_UNITS: dict[str, float] = {}
for _metres, _names in (
    (1000.0, ("km", "kilometer", "kilometers", "kilometre", "kilometres")),
    (1.0, ("m", "meter", "meters", "metre", "metres")),
    (0.01, ("cm", "centimeter", "centimeters", "centimetre", "centimetres")),
    (1609.344, ("mi", "mile", "miles")),
    (0.3048, ("ft", "foot", "feet")),
    (0.0254, ("in", "inch", "inches")),
):
    _UNITS.update(dict.fromkeys(_names, _metres))
_NUMBER = re.compile(r"(\d+(?:\.\d*)?|\.\d+)", re.ASCII)
_LENGTH = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)", re.ASCII)
# What an empty cell looks like in a NetBox table export.
_EMPTY = {"", "\u2014", "&mdash;"}
_INTERFACE_TYPE = "dcim.interface"
_UNIT_NAMES = "km, m, cm, mi, ft or in (or NetBox's Kilometers, Meters, Centimeters, Miles, Feet, Inches)"


UNIT_NAMES = _UNIT_NAMES


def metres_per_unit(unit: str) -> float | None:
    """Metres in one NetBox length unit (its value `m` or its label `Meters`); None if unknown."""
    return _UNITS.get(unit.casefold())


@dataclass(frozen=True, slots=True)
class CablingDefaults:
    speed_gbps: int | None = None
    cable_m: float | None = None


def read_cabling(path: Path, defaults: CablingDefaults = CablingDefaults()) -> list[tuple[Link, str]]:
    """Links from a cabling CSV, each with the `file:line` of its row."""
    text = read_text(path, "cabling CSV")
    rows = _rows(text, path)
    header = next(rows, None)
    if header is None:
        raise InputError(f"{path}:1", f"cabling CSV is empty; {EXPECTED_HEADER}")
    columns = _columns(header[1], path, defaults)
    out = []
    for where, values in rows:
        if len(values) != len(header[1]):
            raise InputError(
                where, f"{len(values)} values; expected {len(header[1])}, one per column of the header"
            )
        out.append((_link(values, columns, where, defaults), where))
    if not out:
        raise InputError(f"{path}:2", "no cables after the header; expected one row per cable")
    return out


def _rows(text: str, path: Path) -> Iterator[tuple[str, list[str]]]:
    """(`file:line` of the row's first line, values); blank lines skipped, line ends as written."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    last = 0
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(
                f"{path}:{last + 1}", f"unreadable CSV ({exc}); expected one cable per line"
            ) from None
        where, last = f"{path}:{last + 1}", reader.line_num
        if values:
            yield where, [v.strip() for v in values]


def _columns(header: list[str], path: Path, defaults: CablingDefaults) -> dict[str, int]:
    """Column index of each meaning the header carries."""
    names = [h.strip().casefold() for h in header]
    columns: dict[str, int] = {}
    for meaning, aliases in _ALIASES.items():
        found = [i for i, n in enumerate(names) if n in aliases]
        if len(found) > 1:
            raise InputError(
                f"{path}:1",
                f"columns {', '.join(repr(header[i].strip()) for i in found)} both give {meaning}; "
                "expected one column each",
            )
        if found:
            columns[meaning] = found[0]
    missing = [m for m in _ENDS if m not in columns]
    if missing:
        raise InputError(f"{path}:1", f"missing column(s) {', '.join(missing)}; {EXPECTED_HEADER}")
    if "cable_m" in columns and "length" in columns:
        raise InputError(f"{path}:1", "columns cable_m and length both give the cable length; expected one")
    if "speed_gbps" not in columns and defaults.speed_gbps is None:
        raise InputError(
            f"{path}:1",
            "no speed_gbps column; expected one, or cabling_defaults.speed_gbps in the inventory "
            "(NetBox exports carry no speed)",
        )
    if "cable_m" not in columns and "length" not in columns and defaults.cable_m is None:
        raise InputError(
            f"{path}:1",
            "no cable length column (cable_m, or NetBox's length); expected one, or "
            "cabling_defaults.cable_m in the inventory",
        )
    return columns


def _link(values: list[str], columns: dict[str, int], where: str, defaults: CablingDefaults) -> Link:
    cells = {m: values[i] for m, i in columns.items() if values[i] not in _EMPTY}
    for side in ("a", "b"):
        kind = cells.get(f"type_{side}", "")
        if kind and kind.casefold() != _INTERFACE_TYPE:
            raise InputError(
                f"{where}: side_{side}_type",
                f"{kind[:40]!r}; expected {_INTERFACE_TYPE} (only cables between interfaces: filter the "
                "NetBox export to the fabric's interface cables)",
            )
    ends = []
    for meaning in _ENDS:
        value = cells.get(meaning, "")
        if not value:
            raise InputError(f"{where}: {meaning}", "missing value; expected a device or interface name")
        if "," in value:
            raise InputError(
                f"{where}: {meaning}",
                f"{value[:60]!r} lists several terminations; expected one device and interface per cable end",
            )
        check = safe_device_name if meaning.startswith("device") else safe_interface
        try:
            ends.append(check(value))
        except ValueError as exc:
            raise InputError(f"{where}: {meaning}", str(exc)) from None
    return Link(
        Endpoint(ends[0], ends[1]),
        Endpoint(ends[2], ends[3]),
        _speed(cells.get("speed_gbps", ""), where, defaults),
        _cable_m(cells, where, defaults),
    )


def _speed(value: str, where: str, defaults: CablingDefaults) -> int:
    expected = f"a whole number of Gb/s from {MIN_SPEED_GBPS} to {MAX_SPEED_GBPS}"
    if not value:
        if defaults.speed_gbps is None:
            raise InputError(f"{where}: speed_gbps", f"missing value; expected {expected}")
        return defaults.speed_gbps
    if not value.isascii() or not value.isdigit() or not MIN_SPEED_GBPS <= int(value) <= MAX_SPEED_GBPS:
        raise InputError(f"{where}: speed_gbps", f"{value[:40]!r}; expected {expected}")
    return int(value)


def _cable_m(cells: dict[str, str], where: str, defaults: CablingDefaults) -> float:
    """Metres, from netcfg's cable_m or NetBox's length and unit (a unit column or `3 m` in the cell)."""
    expected = f"a length above 0 and at most {MAX_CABLE_M:,.0f} m"
    if "cable_m" in cells:
        field, text, number, unit = "cable_m", cells["cable_m"], cells["cable_m"], "m"
        if not _NUMBER.fullmatch(text):
            raise InputError(f"{where}: cable_m", f"{text[:40]!r}; expected {expected}, in metres")
    elif "length" in cells:
        field, text = "length", cells["length"]
        match = _LENGTH.fullmatch(text)
        if match is None:
            raise InputError(
                f"{where}: length", f"{text[:40]!r}; expected a number and a unit ({_UNIT_NAMES})"
            )
        number, inline = match.groups()
        column = cells.get("length_unit", "")
        if inline and column and inline.casefold() != column.casefold():
            raise InputError(
                f"{where}: length", f"{text!r} and length_unit {column[:20]!r} disagree; expected one unit"
            )
        unit = inline or column
        if not unit:
            raise InputError(f"{where}: length_unit", f"missing for length {text!r}; expected {_UNIT_NAMES}")
    elif defaults.cable_m is not None:
        return defaults.cable_m
    else:
        raise InputError(f"{where}: cable_m", f"missing value; expected {expected}")
    factor = _UNITS.get(unit.casefold())
    if factor is None:
        raise InputError(f"{where}: length_unit", f"{unit[:20]!r}; expected {_UNIT_NAMES}")
    metres = float(number) * factor
    if not (math.isfinite(metres) and 0 < metres <= MAX_CABLE_M):
        raise InputError(f"{where}: {field}", f"{text[:40]!r}; expected {expected}")
    return metres


def write_cabling(fabric: Fabric, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CABLING_COLUMNS)
        for link in fabric.links:
            cable = int(link.cable_m) if link.cable_m == int(link.cable_m) else link.cable_m
            w.writerow(
                [link.a.device, link.a.interface, link.b.device, link.b.interface, link.speed_gbps, cable]
            )
