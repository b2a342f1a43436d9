"""config_db JSON as SONiC keeps it: tables of entries of fields, with the line of every key.

`show runningconfiguration all` prints config_db nested (TABLE -> key -> field -> value); redis dumps
and sonic-utilities' mock tables write flat `TABLE|key` top-level keys instead. Both read into the
same tables. `json.loads` keeps no positions, so one small scan of the text finds the line of every
key (for file:line findings) and the spans of secrets (for masking): the scan also works on text
that is cut short, which a collected output may be.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

# A JSON string (no raw newline, as JSON allows none), a structural character, or a newline.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,\n]')
# config_db table names are upper case: PORT, PORT_QOS_MAP, PFC_WD; flat form `TABLE|key`.
_TABLE = re.compile(r"[A-Z][A-Z0-9_]*")
Path = tuple[str, ...]


class Unreadable(Exception):
    """The text is not a config_db document (or a value in it cannot be read)."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why


@dataclass(frozen=True, slots=True)
class Key:
    """One key of the document, or (is_key False) one string value: its path (tables normalised to
    TABLE, key, field), line and character span in the text."""

    path: Path
    line: int
    start: int
    end: int
    is_key: bool


def scan(text: str) -> Iterator[Key]:
    """Every key and every string value of a JSON text in order, also of a text cut short."""
    # Per open container: is it an object, the key its current value sits under, is a key expected.
    stack: list[list] = []
    path: list[str] = []
    line = 1
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token[0] == '"':
            top = stack[-1] if stack else None
            value = _decode(token)
            if top is not None and top[0] and top[2]:
                top[1], top[2] = value, False
                yield Key(_normal((*path, value)), line, match.start(), match.end(), True)
            elif top is not None and top[0]:
                yield Key(_normal((*path, top[1])), line, match.start(), match.end(), False)
        elif token in "{[":
            if stack:
                top = stack[-1]
                path.append(top[1] if top[0] else "")
            stack.append([token == "{", "", True])
        elif token in "}]":
            if stack:
                stack.pop()
            if path:
                path.pop()
        elif token == "," and stack and stack[-1][0]:
            stack[-1][2] = True


# A key that starts a line, as SONiC (`json.dumps(indent=4)`) and every JSON formatter print them.
_LINE_KEY = re.compile(r'^([ \t]*)"((?:[^"\\\n]|\\.)*)"[ \t]*:', re.M)


def key_lines(text: str, data: dict) -> dict[Path, int]:
    """The line of every key that starts a line, by its path, its nesting read from the indentation.

    One regex pass at C speed (a token scan costs ten times as much at fabric scale). A key within a
    line (`{"profile": "X"}`) is on its entry's line, which findings fall back to; a path the
    indentation would misread is not one of the document's and is left out."""
    lines: dict[Path, int] = {}
    # Per open key: its indentation, its path, and the value under it (None: not the document's).
    stack: list[tuple[int, Path, object]] = []
    line, last = 1, 0
    for match in _LINE_KEY.finditer(text):
        start = match.start()
        line += text.count("\n", last, start)
        last = start
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = match.group(2)
        if "\\" in key:
            key = _decode(f'"{key}"')
        if stack:
            _, parent, node = stack[-1]
            path = (*parent, key)
            node = node.get(key) if isinstance(node, dict) else None
        else:
            node = data.get(key)
            path = _normal((key,))
        stack.append((indent, path, node))
        if node is not None:
            lines.setdefault(path, line)
    return lines


def _decode(token: str) -> str:
    if "\\" not in token:
        return token[1:-1]
    try:
        return json.loads(token)
    except ValueError:
        return token[1:-1]


def _normal(path: Path) -> Path:
    """A flat `TABLE|key` top-level key as the nested (TABLE, key) path."""
    if path and "|" in path[0]:
        table, _, key = path[0].partition("|")
        return (table, key, *path[1:])
    return path


@dataclass(slots=True)
class ConfigDb:
    """The tables of one config_db document. `full`: a whole device's config_db (it has PORT or
    DEVICE_METADATA), where a missing table means nothing is configured there; otherwise a fragment
    (a qos.json or buffers.json as sonic-cfggen renders it), where a missing table is unknown."""

    tables: dict[str, dict[str, dict]]
    full: bool
    lines: dict[Path, int] = field(default_factory=dict)

    def table(self, name: str) -> dict[str, dict] | None:
        """The table's entries; {} where a whole config_db has no such table; None in a fragment."""
        found = self.tables.get(name)
        if found is None and self.full:
            return {}
        return found

    def line(self, *path: str) -> int | None:
        return self.lines.get(path)


class _DuplicateKey(Exception):
    """Raised out of json.loads, which knows no lines: `_duplicate` finds the key's."""


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """An object of the document, refused when a key stands twice in it (json keeps the last)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _DuplicateKey
    return found


def _duplicate(text: str) -> Unreadable:
    """Where a key first stands the second time in its object, by the scan (which knows lines)."""
    seen: dict[Path, int] = {}
    for key in scan(text):
        if key.is_key:
            if key.path in seen:
                return Unreadable(
                    key.line,
                    f"{_named(key.path)[:80]} is given twice (also on line {seen[key.path]}); expected each "
                    "key once (JSON would keep only the last)",
                )
            seen[key.path] = key.line
    return Unreadable(1, "a key given twice in one object; expected each key once")


def _named(path: Path) -> str:
    """A table, entry or field as config_db tools name it: TABLE|key, then the field."""
    return "|".join(path[:2]) + "".join(f".{field}" for field in path[2:])


def json_part(text: str) -> str:
    """The JSON of a config_db text that SONiC's tools opened with warning lines (`show
    runningconfiguration all` and sonic-cfggen print deprecation and platform warnings on stdout
    before the document): those lines are blanked, so every key keeps its line number. A text whose
    first line is JSON, or that has no line opening an object, is returned as it is."""
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.lstrip().startswith("{")), None)
    if not first or any(line.lstrip().startswith(("[", '"', "}")) for line in lines[:first]):
        return text
    return "\n" * first + "\n".join(lines[first:])


def load(text: str) -> ConfigDb:
    """The tables of a config_db JSON text, nested or flat; Unreadable where it is not one, or where
    a key, table or entry is given twice (which JSON readers settle by keeping the last)."""
    text = json_part(text)
    try:
        data = json.loads(text, object_pairs_hook=_unique)
    except _DuplicateKey:
        raise _duplicate(text) from None
    except json.JSONDecodeError as exc:
        raise Unreadable(exc.lineno, f"not JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise Unreadable(1, "JSON nested too deeply for a config_db document") from None
    if not isinstance(data, dict):
        raise Unreadable(1, "a JSON document that is not an object of config_db tables")
    lines = key_lines(text, data)
    tables: dict[str, dict[str, dict]] = {}
    for top, value in data.items():
        table, flat, entry = top.partition("|")
        where = lines.get(_normal((top,)), 1)
        if not _TABLE.fullmatch(table) or (flat and not entry):
            raise Unreadable(
                where, f"{top[:60]!r} is not a config_db table (expected TABLE or TABLE|key, in capitals)"
            )
        entries = {entry: value} if flat else value
        if not isinstance(entries, dict) or not all(isinstance(v, dict) for v in entries.values()):
            raise Unreadable(where, f"{top[:60]}: expected an object of entries, each an object of fields")
        known = tables.setdefault(table, {})
        if (twice := next((key for key in entries if key in known), None)) is not None:
            raise Unreadable(
                lines.get((table, twice), where),
                f"{table}|{twice[:60]} is given twice (nested under {table} and as a flat {table}|key); "
                "expected each entry once",
            )
        known.update(entries)
    if not tables:
        raise Unreadable(1, "an empty JSON object: no config_db table")
    return ConfigDb(tables, "PORT" in tables or "DEVICE_METADATA" in tables, lines)
