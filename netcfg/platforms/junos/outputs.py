"""Junos operational commands netcfg collects, read with TTP, and printed the same way for the lab."""

from __future__ import annotations

import re

from netcfg.model import LldpNeighbor
from netcfg.parsing import many, one, ttp_parse

PLATFORM = "junos"
_INTERFACE = re.compile(r"[A-Za-z][A-Za-z0-9]*-?\d+(?:/\d+)*(?::\d+)?(?:\.\d+)?")
_LLDP_HEADER = re.compile(r"^Local Interface\s+Parent Interface\s+Chassis Id\s+Port info\s+System Name", re.M)


def read_version(text: str) -> tuple[str | None, str | None]:
    """(model, version) from `show version`."""
    data = ttp_parse(PLATFORM, "show_version", text)
    version = one(data.get("version")).get("version") or one(data.get("boot")).get("version")
    return one(data.get("model")).get("model"), version


def read_lldp(text: str) -> list[LldpNeighbor] | None:
    """Neighbours from `show lldp neighbors`; None when the text holds no neighbour table."""
    if not _LLDP_HEADER.search(text):
        return None
    rows = many(ttp_parse(PLATFORM, "show_lldp_neighbors", text).get("neighbors"))
    return [
        LldpNeighbor(r["local"], r["system_name"], r["port"])
        for r in rows
        if _INTERFACE.fullmatch(str(r.get("local", ""))) and r.get("system_name")
    ]


def read_count(text: str) -> int | None:
    """The line count `| count` printed."""
    return one(ttp_parse(PLATFORM, "count", text).get("count")).get("lines")
