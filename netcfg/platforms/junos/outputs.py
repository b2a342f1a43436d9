"""Junos operational commands netcfg collects, read with TTP, and printed the same way for the lab."""

from __future__ import annotations

import re
import zlib

from netcfg.model import LldpNeighbor
from netcfg.parsing import many, one, ttp_parse
from netcfg.templating import template

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


def show_version(name: str, model: str | None, version: str | None) -> str:
    build = f"{zlib.crc32((version or '').encode()):08x}"[:7]
    return template("junos/show_version.j2").render(name=name, model=model, version=version, build=build)


def show_lldp_neighbors(neighbors: list[LldpNeighbor]) -> str:
    rows = [
        {
            "local": n.local_interface,
            "chassis": _chassis(n.system_name),
            "port": n.port,
            "system_name": n.system_name,
        }
        for n in neighbors
    ]
    return template("junos/show_lldp_neighbors.j2").render(neighbors=rows)


def count(text: str) -> str:
    return f"Count: {len(text.splitlines())} lines"


def _chassis(name: str) -> str:
    h = f"{zlib.crc32(name.encode()):08x}"
    return f"3c:8c:93:{h[0:2]}:{h[2:4]}:{h[4:6]}"
