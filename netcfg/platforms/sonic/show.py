"""SONiC `show` outputs: `show version`, and the tables sonic-utilities prints with tabulate's
"simple" format (a header line, a line of dashes per column, one row per line), read by the
columns the dash line marks, so cells with spaces (`GigabitEthernet 0/2`, transceiver types) and
layouts with more or fewer columns (FEC, Vlan, HISTORY in newer releases) read alike."""

from __future__ import annotations

import re
from functools import lru_cache
from operator import itemgetter

_DASHES = re.compile(r"\s*-+(?: +-+)+\s*")
_VERSION = re.compile(r"^SONiC Software Version:\s*(?:SONiC[.-])?(\S+)\s*$", re.M)
_HWSKU = re.compile(r"^HW ?SKU:\s*(\S+)\s*$", re.M | re.I)
_POLL = re.compile(r"^Changed polling interval to (\d+)ms", re.M)
# The dash line under a table's header; its rows end at a blank line or a line of dashes.
_DASH_LINE = re.compile(r"^[ \t]*-+(?: +-+)+[ \t]*$", re.M)
_TABLE_END = re.compile(r"\n[ \t]*(?:\n|$)|\n[ \t]*-[- \t]*(?:\n|$)")


def read_table(text: str) -> tuple[list[str], list[dict[str, str]]] | None:
    """(column names, rows as name -> cell) of the first table in the text; None where there is none."""
    tables = read_tables(text, first=True)
    return tables[0] if tables else None


def read_tables(text: str, first: bool = False) -> list[tuple[list[str], list[dict[str, str]]]]:
    """Every table in the text, in order."""
    lines = text.splitlines()
    found = []
    i = 1
    while i < len(lines):
        line = lines[i]
        if not line.lstrip().startswith("-") or not _DASHES.fullmatch(line) or not lines[i - 1].strip():
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"-+", line)]
        names = _cells(lines[i - 1], starts)
        rows = []
        i += 1
        while i < len(lines) and (row := lines[i]).strip(" -"):
            rows.append(dict(zip(names, _cells(row, starts), strict=True)))
            i += 1
        found.append((names, rows))
        if first:
            break
    return found


def columns(text: str, *wanted: str) -> list[list[tuple[str, ...]]]:
    """The wanted columns' cells, row by row, of every table that has them all (`show pfc
    counters` prints an Rx then a Tx table, `show queue counters` one per port).

    For counter tables, whose cells are single words (N/A where there is no value): a row is
    matched as whole words, one per column, in C; a row that is not (a cell with a space) is read
    by its dashes instead."""
    found = []
    for table in _DASH_LINE.finditer(text):
        starts = [m.start() for m in re.finditer(r"-+", table.group())]
        above = text.rfind("\n", 0, max(table.start() - 1, 0)) + 1
        header = text[above : max(table.start() - 1, 0)]
        names = _cells(header, starts) if header.strip() else []
        if not set(wanted) <= set(names):
            continue
        end = _TABLE_END.search(text, table.end())
        body = text[table.end() + 1 : end.start() if end else len(text)]
        if not body.strip():
            found.append([])
            continue
        picks = [names.index(w) for w in wanted]
        pattern, order = _row_pattern(len(names), tuple(picks))
        rows = pattern.findall(body)
        lines = body.splitlines()
        if len(rows) != len(lines):
            rows = [tuple(cells[i] for i in picks) for cells in (_cells(line, starts) for line in lines)]
        elif len(picks) == 1:
            rows = [(r,) for r in rows]
        elif order is not None:
            rows = list(map(order, rows))
        found.append(rows)
    return found


@lru_cache(maxsize=64)
def _row_pattern(width: int, picks: tuple[int, ...]) -> tuple[re.Pattern[str], itemgetter | None]:
    """A whole row of `width` words, capturing the picked ones; and how to put the captures (in
    column order) in the order they were asked for, where that differs."""
    order = sorted(set(picks))
    cells = [r"(\S+)" if i in order else r"\S+" for i in range(width)]
    pattern = re.compile(r"^[ \t]*" + r"[ \t]+".join(cells) + r"[ \t]*$", re.M)
    same = list(picks) == order or len(picks) == 1
    return pattern, None if same else itemgetter(*(order.index(p) for p in picks))


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
    columns = zip(*rows, strict=True) if rows else ([] for _ in headers)
    widths = [max([len(h) + 2, *map(len, cells)]) for h, cells in zip(headers, columns, strict=True)]
    line = "  ".join(f"{{:{'>' if r else '<'}{w}}}" for w, r in zip(widths, aligns, strict=True)).format
    out = [line(*headers).rstrip(), "  ".join("-" * w for w in widths)]
    out += [line(*r).rstrip() for r in rows]
    return "\n".join(out) + "\n"


def version(text: str) -> tuple[str | None, str | None]:
    """(SONiC version without its `SONiC.` prefix, HwSKU) from `show version`."""
    found, sku = _VERSION.search(text), _HWSKU.search(text)
    return (found.group(1) if found else None, sku.group(1) if sku else None)


def poll_interval(text: str) -> int | None:
    """`pfcwd show config`'s "Changed polling interval to 100ms" line."""
    found = _POLL.search(text)
    return int(found.group(1)) if found else None
