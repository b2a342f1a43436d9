"""TTP templates, loaded once per process and reused: building a parser costs more than parsing.

Every TTP call runs under one process-wide lock. TTP is not thread-safe: a parser object writes
itself into module globals (`_ttp_`) that every other parser's functions read, and building one
parses TTP's own sources with `ast` whenever its function cache is absent or stale (always, on a
read-only install), which CPython 3.11 before 3.11.8 cannot do in two threads at once. Parsing is
pure Python under the GIL anyway, so the lock costs collection no parallelism.
"""

from __future__ import annotations

import copy
import logging
import threading
from functools import cache, lru_cache
from typing import Any

from ttp import ttp

from netcfg.resources import data_path

# TTP logs every non-matching variable at WARNING; that is normal for optional lines, not news.
logging.getLogger("ttp").setLevel(logging.CRITICAL)

_lock = threading.Lock()
_parsers: dict[tuple[str, str], ttp] = {}


@cache
def template_text(platform: str, name: str) -> str:
    """A TTP template; `{{ qos_body }}`-style lines pull in a sibling snippet of that name."""
    folder = data_path("templates") / platform / "parse"
    text = (folder / f"{name}.ttp").read_text(encoding="utf-8")
    for snippet in folder.glob("*.ttp"):
        marker = "{{ " + snippet.stem + " }}\n"
        if marker in text:
            text = text.replace(marker, snippet.read_text(encoding="utf-8"))
    return text


@lru_cache(maxsize=1024)
def ttp_parse(platform: str, name: str, data: str) -> dict[str, Any]:
    """Parse `data` with a platform's TTP template; returns the first result dict ({} if none).

    Results are cached by text, because fabrics repeat identical outputs (every NIC's `mlnx_qos`,
    every leaf's `show version`): callers must treat them as read-only.
    """
    with _lock:
        parser = _parsers.get((platform, name))
        if parser is None:
            parser = _parsers[(platform, name)] = ttp(
                template=template_text(platform, name), log_level="CRITICAL"
            )
        parser.clear_input()
        parser.clear_result()
        parser.add_input(data)
        parser.parse(one=True)
        # Copied while the lock is held: TTP's result shares objects with the parser, which the next
        # parse (another device's output, in another collector thread) fills in again. Read after
        # the lock, one leaf's LLDP table came out as a spine's when demos ran side by side.
        try:
            first = _copied(parser.result()[0][0])
        except (IndexError, KeyError, TypeError):
            return {}
    return first if isinstance(first, dict) else {}


_PLAIN = (str, int, float, bool, type(None))


def _copied(value: Any) -> Any:
    """A copy of a TTP result: its dicts and lists copied, the strings and numbers they hold kept
    (they cannot change). A fabric's LLDP tables are new text on every device, so every one is a
    result to copy; `copy.deepcopy`, which tracks every object it copies, took twice as long."""
    kind = type(value)
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is list:
        return [_copied(v) for v in value]
    return value if kind in _PLAIN else copy.deepcopy(value)


def many(value: Any) -> list[dict[str, Any]]:
    """A TTP group as a list of dicts: TTP gives a dict for one match and a list for several."""
    if isinstance(value, dict):
        return [value]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def one(value: Any) -> dict[str, Any]:
    """The first match of a group meant to match once (odd output may repeat its lines)."""
    found = many(value)
    return found[0] if found else {}
