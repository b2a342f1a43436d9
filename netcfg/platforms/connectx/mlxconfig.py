"""The firmware's DCBX agent and the planes its port is split over, as `mlxconfig -e -d DEV q` shows
them (MFT's mlxconfig, or mstflint's mstconfig: the same table). `-e` adds the Default and Current
columns to Next Boot; only Current is what the NIC runs now, so a table without it (plain `q`) tells
nothing about the running settings."""

from __future__ import annotations

import re
from dataclasses import dataclass

# `        DCBX_IEEE_P1                                True(1)              True(1)              True(1)`
# A leading `*` marks a parameter whose next-boot value differs from the current one.
_ROW = re.compile(r"^\*?\s+([A-Z][A-Z0-9_]*)((?:\s+\S+)+)\s*$")
_HEADER = re.compile(r"^Configurations:(.*)$")
_BOOL = re.compile(r"(True|False)\((\d)\)")
# An integer parameter: `2`, or an enumerated one as `NAME(2)`.
_NUMBER = re.compile(r"(\d+)|\w+\((\d+)\)")


@dataclass(frozen=True, slots=True)
class FirmwareDcbx:
    """The firmware DCBX of one port: the dialects it answers in and whether it is willing."""

    ieee: bool | None
    cee: bool | None
    willing: bool | None

    @property
    def mode(self) -> str | None:
        """ "ieee", "cee", "auto" (both: the firmware answers in the peer's dialect) or "off"."""
        if self.ieee is None or self.cee is None:
            return None
        modes = {(True, True): "auto", (True, False): "ieee", (False, True): "cee"}
        return modes.get((self.ieee, self.cee), "off")


class NotCurrentValues(ValueError):
    """The table holds no Current column: the values shown are what the NIC runs after a reset."""


def current_values(text: str) -> dict[str, str]:
    """Parameter -> its Current value. Raises NotCurrentValues for a table of next-boot values only,
    ValueError for text that holds no configuration table."""
    columns: list[str] | None = None
    values: dict[str, str] = {}
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            columns = re.split(r"\s{2,}", header.group(1).strip())
            continue
        if columns is None:
            continue
        row = _ROW.match(line)
        if row is None:
            continue
        cells = row.group(2).split()
        if len(cells) == len(columns) and "Current" in columns:
            values[row.group(1)] = cells[columns.index("Current")]
    if columns is None:
        raise ValueError("no `Configurations:` table")
    if "Current" not in columns:
        raise NotCurrentValues(
            f"mlxconfig table of {' and '.join(columns) or 'no'} values only (plain `q`): the running "
            "settings are unknown; netcfg reads `mlxconfig -e -d DEV q`"
        )
    return values


def firmware_dcbx(values: dict[str, str], port: int) -> FirmwareDcbx:
    """The firmware DCBX settings of port `port` (1-based: `_P1`, `_P2`); None where not shown."""

    def flag(name: str) -> bool | None:
        found = _BOOL.fullmatch(values.get(f"{name}_P{port}", ""))
        return None if found is None else found.group(2) == "1"

    return FirmwareDcbx(flag("DCBX_IEEE"), flag("DCBX_CEE"), flag("DCBX_WILLING"))


def planes(values: dict[str, str], port: int) -> int | None:
    """How many planes port `port`'s lanes are split over (`NUM_OF_PLANES_P<port>`; NVIDIA's
    Spectrum-X NIC profiles set it to the plane count for hardware plane load balancing and to 0 for
    every other mode, one plane). None: the firmware shows no such parameter, or not as a number."""
    found = _NUMBER.fullmatch(values.get(f"NUM_OF_PLANES_P{port}", ""))
    return None if found is None else max(int(found.group(1) or found.group(2)), 1)
