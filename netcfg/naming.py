"""Names from an inventory, and the naming patterns that make them.

A name reaches a switch CLI line, a root shell script on a host, `/sys/class/net/<netdev>/...` paths
and the file and folder names of rendered configs and snapshots. Each kind of name has its own
pattern, so no inventory value can inject a CLI line, escape a folder or name a sysfs file it should
not. Naming patterns allow plain `{placeholder}` and zero-padded `{placeholder:03d}` only: Python's
full format language would let `{server:>99999999}` allocate gigabytes and `{su.__class__}` reach
attributes.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

from netcfg.snapshot import META_FILE

_LITERAL = re.compile(r"[A-Za-z0-9._:/-]*")
_SPEC = re.compile(r"(?:0([1-9])d?|d)?")
MAX_PATTERN = 64


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 70 else f"{value[:60]!r}... ({len(value):,} characters)"


@dataclass(frozen=True, slots=True)
class NameKind:
    """One kind of name: what it is called, the pattern it must match, and what that means."""

    noun: str
    regex: re.Pattern[str]
    expected: str
    reserved: frozenset[str] = frozenset()

    def __call__(self, value: str) -> str:
        """The value when it is a safe name of this kind; ValueError saying what was expected."""
        if not self.regex.fullmatch(value) or value in self.reserved:
            raise ValueError(f"{_shown(value)} is not a safe {self.noun}: expected {self.expected}")
        return value


safe_interface = NameKind(
    "name",
    re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}"),
    "at most 64 letters, digits and . _ : / -, starting with a letter or digit (no spaces, newlines, "
    "';' or '!' that could inject a CLI line)",
)
# Device names are also file and folder names (rendered configs, snapshots): no '/'.
safe_device_name = NameKind(
    "name",
    re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}"),
    "at most 64 letters, digits and . _ : -, starting with a letter or digit (no '/', spaces, newlines, "
    f"';' or '!'; it names files and CLI lines; {META_FILE!r} is reserved)",
    frozenset({META_FILE}),
)
# Linux interface names: at most IFNAMSIZ - 1 = 15 characters, and they appear in /sys paths.
safe_netdev = NameKind(
    "name for a Linux network or RDMA device",
    re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,14}"),
    "at most 15 letters, digits and . _ -, starting with a letter or digit",
)


Parts = tuple[tuple[str, str | None, int], ...]


@lru_cache(maxsize=256)
def _parse(pattern: str) -> Parts:
    """(literal, placeholder or None, zero-pad width) triples; ValueError naming what is wrong."""
    if len(pattern) > MAX_PATTERN:
        raise ValueError(f"{_shown(pattern)} is longer than {MAX_PATTERN} characters")
    try:
        pieces = list(string.Formatter().parse(pattern))
    except ValueError as exc:
        raise ValueError(f"{_shown(pattern)} has unbalanced braces ({exc})") from None
    parts = []
    for literal, name, spec, conversion in pieces:
        if not _LITERAL.fullmatch(literal):
            raise ValueError(
                f"{_shown(pattern)} is not a safe naming pattern: expected letters, digits, . _ : / - and "
                "{placeholders} only"
            )
        if name is None:
            parts.append((literal, None, 0))
            continue
        if not name.isidentifier() or conversion or not _SPEC.fullmatch(spec or ""):
            shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise ValueError(
                f"{_shown(pattern)} uses {shown}: expected a plain {{placeholder}} or a zero-padded one "
                "such as {server:03d} (width 1-9); no attributes, indexes, conversions or other formats"
            )
        width = _SPEC.fullmatch(spec or "").group(1)  # type: ignore[union-attr]
        parts.append((literal, name, int(width or 0)))
    if parts and not (parts[0][0][:1].isalnum() or (not parts[0][0] and parts[0][1])):
        raise ValueError(
            f"{_shown(pattern)} starts with {parts[0][0][:1]!r}: expected a name that starts with a letter "
            "or digit (a leading '-' would read as a command-line option)"
        )
    if not parts:
        raise ValueError("empty naming pattern: expected a name with {placeholders}")
    return tuple(parts)


def pattern_of(kind: NameKind, *placeholders: str) -> Callable[[str], str]:
    """A pydantic validator for a naming pattern of names of this kind, using these placeholders."""

    def check(value: str) -> str:
        for _, name, width in _parse(value):
            if name is not None and name not in placeholders:
                raise ValueError(
                    f"{_shown(value)} uses {{{name}}}: expected only "
                    + ", ".join("{" + p + "}" for p in placeholders)
                )
            if width and name in _TEXT_PLACEHOLDERS:
                raise ValueError(f"{_shown(value)} pads {{{name}}}, a text: expected a plain {{{name}}}")
        # The shortest name it makes: what its literal text allows shows already.
        sample = format_name(value, dict.fromkeys(placeholders, 1))
        if not kind.regex.fullmatch(sample) or sample in kind.reserved:
            raise ValueError(
                f"{_shown(value)} makes names such as {sample!r}, not a safe {kind.noun}: "
                f"expected {kind.expected}"
            )
        return value

    return check


# Placeholders whose values are names, not numbers: padding them is meaningless.
_TEXT_PLACEHOLDERS = frozenset({"name"})


def format_name(pattern: str, values: Mapping[str, int | str | None]) -> str:
    """The pattern with its placeholders filled in; KeyError naming a placeholder with no value."""
    out = []
    for literal, name, width in _parse(pattern):
        out.append(literal)
        if name is None:
            continue
        value = values.get(name)
        if value is None:
            raise KeyError(name)
        out.append(str(value).zfill(width) if width else str(value))
    return "".join(out)


def placeholders_of(pattern: str) -> Collection[str]:
    return {name for _, name, _ in _parse(pattern) if name is not None}
