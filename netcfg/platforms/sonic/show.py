"""SONiC `show` outputs: `show version`, and the tables sonic-utilities prints with tabulate's
"simple" format (a header line, a line of dashes per column, one row per line), read by the
columns the dash line marks, so cells with spaces (`GigabitEthernet 0/2`, transceiver types) and
layouts with more or fewer columns (FEC, Vlan, HISTORY in newer releases) read alike."""

from __future__ import annotations

import re

_DASHES = re.compile(r"\s*-+(?: +-+)+\s*")
_VERSION = re.compile(r"^SONiC Software Version:\s*(?:SONiC[.-])?(\S+)\s*$", re.M)
_HWSKU = re.compile(r"^HW ?SKU:\s*(\S+)\s*$", re.M | re.I)
_POLL = re.compile(r"^Changed polling interval to (\d+)ms", re.M)


def read_table(text: str) -> tuple[list[str], list[dict[str, str]]] | None:
    """(column names, rows as name -> cell) of the first table in the text; None where there is none."""
    tables = read_tables(text, first=True)
    return tables[0] if tables else None


def read_tables(text: str, first: bool = False) -> list[tuple[list[str], list[dict[str, str]]]]:
    """Every table in the text, in order (`show pfc counters` prints Rx then Tx, `show queue
    counters` one per port)."""
    lines = text.splitlines()
    found = []
    i = 1
    while i < len(lines):
        line = lines[i]
        if not _DASHES.fullmatch(line) or not lines[i - 1].strip():
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"-+", line)]
        names = _cells(lines[i - 1], starts)
        rows = []
        i += 1
        while i < len(lines) and lines[i].strip() and set(lines[i].strip()) != {"-"}:
            rows.append(dict(zip(names, _cells(lines[i], starts), strict=True)))
            i += 1
        found.append((names, rows))
        if first:
            break
    return found


def _cells(row: str, starts: list[int]) -> list[str]:
    bounds = [*starts[1:], max(len(row), starts[-1])]
    if any(0 < b < len(row) and row[b - 1] != " " and row[b] != " " for b in starts[1:]):
        # A row that does not sit under its dashes (a copy whose leading spaces were stripped)
        # still has two spaces between cells, as tabulate pads them.
        split = re.split(r" {2,}", row.strip())
        if len(split) == len(starts):
            return split
    # What sits left of the first dashes is still the first cell (a doc copy's outdented row).
    return [row[a:b].strip() for a, b in zip([0, *starts[1:]], bounds, strict=True)]


def table(headers: list[str], rows: list[list[str]], right: bool | list[bool]) -> str:
    """Rows as tabulate's "simple" format prints them (sonic-utilities' tables); `right` for every
    column, or per column (tabulate's default puts numbers right and text left)."""
    aligns = right if isinstance(right, list) else [right] * len(headers)
    # tabulate pads headers by two (its MIN_PADDING): "PFC0" heads a column six wide.
    widths = [max([len(h) + 2, *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        padded = (c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, aligns, strict=True))
        return "  ".join(padded).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


def version(text: str) -> tuple[str | None, str | None]:
    """(SONiC version without its `SONiC.` prefix, HwSKU) from `show version`."""
    found, sku = _VERSION.search(text), _HWSKU.search(text)
    return (found.group(1) if found else None, sku.group(1) if sku else None)


def poll_interval(text: str) -> int | None:
    """`pfcwd show config`'s "Changed polling interval to 100ms" line."""
    found = _POLL.search(text)
    return int(found.group(1)) if found else None
