"""`show lldp neighbors detail`, as text or as its `| json` form: what many collectors keep instead of
the table netcfg collects. Read from a snapshot a user gives, under the command's file name.

The text gives one `Interface EthernetN detected K LLDP neighbors:` line per port, then K neighbour
blocks (`Neighbor <chassis>/<port>, age ...`, `Port ID : "Ethernet1"`, `System Name: "spine1"`).
The JSON gives `lldpNeighbors` -> port -> `lldpNeighborInfo` [{`systemName`, `chassisId`,
`neighborInterfaceInfo` {`interfaceId` (quoted, as EOS prints it), `interfaceId_v2`}}]. A neighbour
without a system name is named by its chassis ID, as the table's Device ID column names it. Only
front-panel ports count (the table netcfg reads lists `EtN` ports only): Management1's neighbours
are the out-of-band network's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from netcfg.model import LldpNeighbor, port_sort_key

_PORT = re.compile(r"Interface (\S+) detected (\d+) LLDP neighbors:")
_NEIGHBOR = re.compile(r"\s*Neighbor (\S+?)/(.+), age \d+ seconds?")
_PORT_ID = re.compile(r"\s*Port ID\s*:\s*(.*)")
_SYSTEM_NAME = re.compile(r"\s*- System Name:\s*(.*)")


@dataclass(slots=True)
class _Block:
    local: str
    chassis: str
    port: str
    system_name: str | None = None
    # The `Port ID type` line comes right before the port's own `Port ID`; the link aggregation
    # TLV later prints a `Port ID` of its own.
    port_id_next: bool = False


@dataclass(slots=True)
class _Reading:
    blocks: list[_Block] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def read_detail(text: str) -> list[LldpNeighbor] | str:
    """The neighbours of the front-panel ports, from the text or the JSON form; or why it is neither."""
    if text.lstrip().startswith("{"):
        return _read_json(text)
    return _read_text(text)


def _read_text(text: str) -> list[LldpNeighbor] | str:
    reading = _Reading()
    local: str | None = None
    for line in text.splitlines():
        if found := _PORT.fullmatch(line.strip()):
            local = found.group(1)
            reading.counts[local] = int(found.group(2))
        elif local is not None and (found := _NEIGHBOR.fullmatch(line.rstrip())):
            reading.blocks.append(_Block(local, found.group(1), _unquote(found.group(2))))
        elif reading.blocks and reading.blocks[-1].local == local:
            _read_line(reading.blocks[-1], line)
    if not reading.counts:
        return "no 'Interface ... detected N LLDP neighbors' line"
    heard: dict[str, int] = {}
    for block in reading.blocks:
        heard[block.local] = heard.get(block.local, 0) + 1
    short = [name for name, count in reading.counts.items() if heard.get(name, 0) != count]
    if short:
        return f"output cut short: {short[0]} lists fewer neighbours than it says it detected"
    return _front_panel(LldpNeighbor(b.local, b.system_name or b.chassis, b.port) for b in reading.blocks)


def _read_line(block: _Block, line: str) -> None:
    if "- Port ID type:" in line:
        block.port_id_next = True
    elif block.port_id_next and (found := _PORT_ID.fullmatch(line.rstrip())):
        block.port, block.port_id_next = _unquote(found.group(1)), False
    elif found := _SYSTEM_NAME.fullmatch(line.rstrip()):
        block.system_name = _unquote(found.group(1)) or None


def _read_json(text: str) -> list[LldpNeighbor] | str:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "not JSON (EOS refused `| json`, or the output was cut short)"
    ports = data.get("lldpNeighbors") if isinstance(data, dict) else None
    if not isinstance(ports, dict):
        return "no lldpNeighbors object"
    found = []
    for local, entry in ports.items():
        infos = entry.get("lldpNeighborInfo") if isinstance(entry, dict) else None
        if not isinstance(infos, list):
            return f"{local}: no lldpNeighborInfo list"
        for info in infos:
            if not isinstance(info, dict):
                return f"{local}: a neighbour that is not an object"
            port = info.get("neighborInterfaceInfo")
            port = port if isinstance(port, dict) else {}
            name = info.get("systemName") or info.get("chassisId")
            port_id = port.get("interfaceId_v2") or port.get("interfaceId")
            if not isinstance(name, str) or not isinstance(port_id, str):
                return f"{local}: a neighbour without a system name, chassis ID or port ID"
            found.append(LldpNeighbor(local, name, _unquote(port_id)))
    return _front_panel(found)


def _unquote(text: str) -> str:
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _front_panel(neighbours: Iterable[LldpNeighbor]) -> list[LldpNeighbor]:
    found = [n for n in neighbours if n.local_interface.startswith("Ethernet")]
    return sorted(found, key=lambda n: port_sort_key(n.local_interface))
