"""NVUE's `nv show` tables: a key/value block whose columns are `operational` and `applied` (keys
indented by two per level), then titled tables (a title, a line of `=`, a header, a line of dashes).

Columns are found from the line of dashes under each header, not by splitting on spaces: values such
as `ecn, absolute` or `strict priority` hold spaces. Sizes are printed in binary units with two
decimals ("146.48 KB" is 150,000 bytes, "1.43 MB" is 1,500,000 bytes), or as "N Bytes" / "N B".
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

_DASHES = re.compile(r"\s*-+(?:\s{2,}-+)*\s*")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(Bytes|B|KB|MB|GB)")
_UNITS = {"Bytes": 1, "B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}
# No table NVUE prints is this wide: longer lines are cut, so no pattern runs long on a damaged output.
MAX_WIDTH = 4096


@dataclass(slots=True)
class Show:
    """One `nv show` output: rows by dotted key path -> (operational, applied), and tables by title."""

    rows: dict[str, tuple[str, str]] = field(default_factory=dict)
    tables: dict[str, list[dict[str, str]]] = field(default_factory=dict)


def size_text(value: int) -> str:
    """Bytes as NVUE prints a buffer size or threshold."""
    for unit in ("GB", "MB", "KB"):
        if value >= _UNITS[unit]:
            return f"{value / _UNITS[unit]:.2f} {unit}"
    return f"{value} Bytes"


def size_bytes(text: str) -> tuple[int, int] | None:
    """A printed size -> (bytes, the resolution of what was printed); None when it is no size."""
    found = _SIZE.fullmatch(text.strip())
    if found is None:
        return None
    number, unit = found.groups()
    decimals = len(number.partition(".")[2])
    scale = _UNITS[unit]
    value = float(number) * scale
    if not math.isfinite(value):  # digits beyond what a float holds: no buffer is that large
        return None
    return round(value), max(1, round(scale * 10**-decimals / 2))


def _spans(dashes: str) -> list[tuple[int, int]]:
    """Column (start, end) from a line of dashes; each column runs to the next one's start."""
    starts = [m.start() for m in re.finditer(r"-+", dashes)]
    return [(s, starts[i + 1] if i + 1 < len(starts) else 10**6) for i, s in enumerate(starts)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    return [line[a:b].strip() for a, b in spans]


def parse_show(text: str) -> Show:
    """The rows and tables of an `nv show` output, whatever its commands print between them."""
    show = Show()
    lines = [line[:MAX_WIDTH] for line in text.splitlines()]
    i = 0
    spans: list[tuple[int, int]] | None = None
    path: list[str] = []
    while i < len(lines):
        line = lines[i]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"=+\s*", following):
            i = _table(lines, i + 2, line.strip(), show)
            spans = None
            continue
        if _DASHES.fullmatch(line) and line.strip():
            spans = _spans(line)
        elif spans is not None and line.strip():
            cells = _cells(line, spans)
            key = line[: spans[1][0] if len(spans) > 1 else len(line)].rstrip()
            depth = (len(key) - len(key.lstrip())) // 2
            path = [*path[:depth], key.strip()]
            values = [*cells[1:], "", ""]
            show.rows[".".join(path)] = (values[0], values[1])
        i += 1
    return show


def _table(lines: list[str], i: int, title: str, show: Show) -> int:
    """Read the table whose header starts at line i; returns the index of the line after it."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i + 1 >= len(lines) or not _DASHES.fullmatch(lines[i + 1]):
        show.tables.setdefault(title, [])
        return i
    spans = _spans(lines[i + 1])
    names = _cells(lines[i], spans)
    rows = []
    i += 2
    # Some tables (`PFC WD Status`) have a blank line between the dashes and their rows.
    while (
        i + 1 < len(lines) and not lines[i].strip() and lines[i + 1].strip() and not _is_title(lines, i + 1)
    ):
        i += 1
    while i < len(lines) and lines[i].strip():
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if re.fullmatch(r"=+\s*", following):
            break
        rows.append(dict(zip(names, _cells(lines[i], spans), strict=True)))
        i += 1
    show.tables[title] = rows
    return i


def _is_title(lines: list[str], i: int) -> bool:
    return i + 1 < len(lines) and re.fullmatch(r"=+\s*", lines[i + 1]) is not None


def format_rows(rows: list[tuple[str, ...]], columns: tuple[str, ...] = ("operational", "applied")) -> str:
    """Key/value rows (key with its indent, then one value per column) laid out as NVUE prints them."""
    widths = [max([len(r[n]) for r in rows] + [len(h)]) for n, h in enumerate(("", *columns))]
    header = "  ".join(h.ljust(w) for h, w in zip(("", *columns), widths, strict=False)).rstrip()
    out = [header, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows]
    return "\n".join(out) + "\n"


def format_table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A titled NVUE table: an index column, then the given columns."""
    body = [(str(n), *r) for n, r in enumerate(rows)]
    full = ("", *header)
    widths = [max([len(r[c]) for r in body] + [len(full[c]), 1]) for c in range(len(full))]
    lines = [title, "=" * (len(title) + 3)]
    lines.append("    " + "  ".join(h.ljust(w) for h, w in zip(full, widths, strict=True)).rstrip())
    lines.append("    " + "  ".join("-" * w for w in widths))
    lines += ["    " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in body]
    return "\n".join(lines) + "\n"


def json_object(text: str) -> dict | str:
    """The JSON object an `nv show ... -o json` printed; or why the text is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        return f"not JSON ({str(exc).split(':')[0]})"
    except RecursionError:
        return "JSON nested too deeply"
    return data if isinstance(data, dict) else "not a JSON object"
