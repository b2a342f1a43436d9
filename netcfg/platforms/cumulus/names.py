"""NVUE lists: `swp1-4,swp31-32`, `swp1-2,5-6` (-> swp1, swp2, swp5, swp6), `0,3`, `24-31`.

NVUE takes and prints interface and number lists in this compact form (`nv set interface -h`:
"multiple interfaces using ranging (e.g. swp1-2,5-6 -> swp1,swp2,swp5,swp6)").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A range longer than any switch has ports, or a list longer than any line NVUE prints, is a typo or
# hostile input, not a list to expand (and a regular expression over a huge token would take quadratic time).
MAX_RANGE = 4096
MAX_LIST = 4096
_ITEM = re.compile(r"(?P<prefix>[A-Za-z0-9_.:/-]*?)(?P<first>\d+)(?:-(?P<last>\d+))?")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:/-]*")


def expand_names(text: str) -> list[str] | None:
    """The names a list stands for, in order; None when it is not a list NVUE would take."""
    if len(text) > MAX_LIST:
        return None
    out: list[str] = []
    prefix = ""
    for item in text.split(","):
        found = _ITEM.fullmatch(item)
        if found is None:
            if not _NAME.fullmatch(item):
                return None
            out.append(item)  # a name without a trailing number: lo, mgmt
            continue
        if found["prefix"]:
            prefix = found["prefix"]
        elif not prefix:
            return None
        first = int(found["first"])
        last = int(found["last"]) if found["last"] else first
        if last < first or last - first >= MAX_RANGE:
            return None
        out += [f"{prefix}{n}" for n in range(first, last + 1)]
    return out


def expand_numbers(text: str, highest: int) -> list[int] | None:
    """`0,3` or `24-31` -> the numbers; None when one is not a number from 0 to `highest`."""
    if len(text) > MAX_LIST:
        return None
    out: list[int] = []
    for item in text.split(","):
        low, _, high = item.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            return None
        first, last = int(low), int(high or low)
        if first > last or last > highest:
            return None
        out += range(first, last + 1)
    return out


def compact_names(names: Iterable[str]) -> str:
    """['swp1', 'swp2', 'swp3', 'swp31'] -> 'swp1-3,swp31', as NVUE prints interface lists."""
    groups: dict[str, list[int]] = {}
    plain: list[str] = []
    for name in names:
        found = re.fullmatch(r"(.*?\D)(\d+)", name)
        if found is None:
            plain.append(name)
        else:
            groups.setdefault(found.group(1), []).append(int(found.group(2)))
    parts = []
    for prefix, numbers in groups.items():
        parts += [f"{prefix}{run}" for run in _runs(numbers)]
    return ",".join(parts + plain)


def compact_numbers(numbers: Iterable[int]) -> str:
    """[0, 1, 2, 3, 7] -> '0-3,7'."""
    return ",".join(_runs(numbers))


def _runs(numbers: Iterable[int]) -> list[str]:
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return [f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
