"""The Thor host script: rendered from a DeviceState, and read back (as rendered or hand-edited)."""

from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace

from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.parsing import many, ttp_parse
from netcfg.platforms.linux_host import (
    NIC_PLACEHOLDER,
    ScriptLocations,
    generic_text,
    named_locations,
    params,
    script_locations,
    tokens,
)
from netcfg.platforms.thor.bnxt import (
    CC_FIELDS,
    CC_ORDER,
    ROCE_BANDWIDTH,
    BnxtNic,
    app_entry,
    from_port,
    hex_value,
    priorities,
    shape,
    to_port,
)
from netcfg.templating import template

PLATFORM = "thor"
# parse_config's name for the script in `unparsed` (and in `locations`, for where it went wrong).
HOST_SCRIPT = "host script"
# A configfs or sysfs attribute -> the InterfaceState fields it decides.
FIELDS_BY_ATTRIBUTE = {
    **CC_FIELDS,
    "default_roce_mode": ("roce_mode",),
    "default_roce_tos": ("roce_tos",),
    "mtu": ("mtu",),
}


def render_script(state: DeviceState, device: Device) -> str:
    nics = []
    for nic in device.nics:
        bnxt = from_port(state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev)))
        nics.append(
            SimpleNamespace(
                netdev=nic.netdev,
                rdma=nic.rdma_device,
                rail=nic.rail,
                mtu=bnxt.mtu,
                pfc=None if bnxt.pfc is None else ",".join(map(str, sorted(bnxt.pfc))) or "none",
                ets=_ets_options(bnxt),
                apps=None if bnxt.apps is None else " ".join(",".join(map(str, app)) for app in bnxt.apps),
                cm=params([("default_roce_mode", bnxt.roce_mode), ("default_roce_tos", bnxt.cm_tos)]),
                cc=params([(k, hex_value(bnxt.cc[k])) for k in CC_ORDER if k in bnxt.cc]),
            )
        )
    return template("thor/host.sh.j2").render(name=state.name, nics=nics)


def _ets_options(nic: BnxtNic) -> str:
    if nic.prio_tc is None or nic.tc_tsa is None:
        return ""
    tsa = ",".join(f"{tc}:{algorithm}" for tc, algorithm in sorted(nic.tc_tsa.items()))
    prio_tc = ",".join(f"{p}:{tc}" for p, tc in sorted(nic.prio_tc.items()))
    return f"tsa={tsa} priority2tc={prio_tc} tcbw={100 - ROCE_BANDWIDTH},{ROCE_BANDWIDTH}"


def parse_script(text: str, device: Device) -> DeviceState:
    state = DeviceState(name=device.name, platform=PLATFORM, facets=frozenset({"qos"}))
    if "\r" in text:
        # bash reads `\r` as part of each word (`enabled=3\r`): such a script fails on the host.
        state.unparsed[HOST_SCRIPT] = "CRLF line ending; expected LF"
        state.locations[HOST_SCRIPT] = text.count("\n", 0, text.index("\r")) + 1
        return state
    shapes, unparsed, where = _script_nics(generic_text(text, device), len(device.nics))
    if HOST_SCRIPT in unparsed:
        state.unparsed = dict(unparsed)
        return state
    names = tuple(nic.netdev for nic in device.nics)
    state.interfaces = {name: shape(port, name) for name, port in zip(names, shapes, strict=True)}
    state.unparsed = {key.format(*names): why for key, why in unparsed.items()}
    state.locations = named_locations(where, names)
    return state


# Where the settings of a generic host script stand: ((NIC index, ".field" or ""), line), hashable.


@lru_cache(maxsize=256)
def _script_nics(text: str, nics: int) -> tuple[list[InterfaceState], dict[str, str], ScriptLocations]:
    """NIC settings of a generic host script (NIC i as `@netdev{i}` / `@rdma{i}`); unparsed keys use
    `{i}` for names; where each NIC's settings stand."""
    data = ttp_parse(PLATFORM, "host_script", text)
    if not data:
        return [], {HOST_SCRIPT: "no bnxtqos, set_apps, set_cm or set_cc line found"}, ()
    bnxt = [BnxtNic() for _ in range(nics)]
    unparsed: dict[str, str] = {}
    # Lines in the order the script runs them, hand-edited `echo` lines last (as they override).
    for kind in ("mtu", "pfc", "ets", "apps", "cm", "cc", "echo"):
        for row in many(data.get(kind)):
            # The NIC a line is about: its netdev or RDMA device, or the one its sysfs path names.
            name = row["path"] if kind == "echo" else row.get("dev", row.get("rdma"))
            found = NIC_PLACEHOLDER.search(str(name))
            if found is None or int(found.group(1)) >= nics:
                continue
            index = int(found.group(1))
            try:
                _apply_line(bnxt[index], kind, row)
            except ValueError as exc:
                unparsed[f"{kind} line of {{{index}}}"] = str(exc)
    ports = [to_port(nic, f"{{{i}}}") for i, nic in enumerate(bnxt)]
    return ports, unparsed, script_locations(text, nics, _line_fields)


def _apply_line(nic: BnxtNic, kind: str, row: dict) -> None:
    """One script line into the NIC's Broadcom settings; raises ValueError on a value it cannot read."""
    if kind == "mtu":
        nic.mtu = int(row["value"])
    elif kind == "pfc":
        nic.pfc = priorities(str(row["value"]), ",")
    elif kind == "ets":
        nic.prio_tc, nic.tc_tsa = ets_options(tokens(row["options"]))
    elif kind == "apps":
        nic.apps = [app_entry(word) for word in tokens(str(row.get("apps", "")))]
    elif kind == "echo":
        attribute = str(row["path"]).rstrip("/").rsplit("/", 1)[-1]
        _set_value(nic, str(row["path"]), attribute, str(row["value"]).strip("\"'"))
    else:
        folder = "/cc/" if kind == "cc" else "/rdma_cm/"
        for word in tokens(row["params"]):
            key, _, value = word.partition("=")
            _set_value(nic, folder, key, value)


def _set_value(nic: BnxtNic, path: str, attribute: str, value: str) -> None:
    if "/cc/" in path and attribute in CC_FIELDS:
        # The driver reads every cc value with %x: `echo 26 > roce_dscp` sets DSCP 38.
        nic.cc[attribute] = int(value, 16)
    elif "/rdma_cm/" in path and attribute == "default_roce_mode":
        nic.roce_mode = value
    elif "/rdma_cm/" in path and attribute == "default_roce_tos":
        nic.cm_tos = kernel_int(value)
    elif path.endswith("/mtu"):
        nic.mtu = int(value)


def kernel_int(value: str) -> int:
    """A number as the kernel's kstrtou8(s, 0) reads it: 0x hex, leading-zero octal, else decimal."""
    value = value.strip()
    if value.lower().startswith("0x"):
        return int(value, 16)
    return int(value, 8) if len(value) > 1 and value.startswith("0") else int(value)


def ets_options(words: list[str]) -> tuple[dict[int, int], dict[int, str]]:
    """`tsa=0:ets,1:ets,2:strict priority2tc=0:0,...,3:1,...` -> (priority -> TC, TC -> algorithm)."""
    options = dict(word.partition("=")[::2] for word in words)
    if "tsa" not in options or "priority2tc" not in options:
        raise ValueError("set_ets without tsa= and priority2tc=")
    tsa = {int(tc): algorithm for tc, _, algorithm in (p.partition(":") for p in options["tsa"].split(","))}
    prio_tc = {int(p): int(tc) for p, _, tc in (m.partition(":") for m in options["priority2tc"].split(","))}
    return prio_tc, tsa


_ECHO_TARGET = re.compile(r"/(?:cc|ports/1|@netdev\d+)/(\w+)$")


def _line_fields(words: list[str]) -> list[str]:
    """The InterfaceState fields one script line sets (its words as the shell splits them)."""
    command = words[0] if words else ""
    if command == "ip" and "mtu" in words:
        return ["mtu"]
    if command == "bnxtqos" and "set_pfc" in words:
        return ["pfc_enabled", "no_drop_priorities"]
    if command == "bnxtqos" and "set_ets" in words:
        return ["strict_queues"]
    if command == "set_apps":
        return ["dscp_map"]
    if command in ("set_cm", "set_cc"):
        keys = [w.partition("=")[0] for w in words[2:]]
    elif command == "echo" and ">" in words and (found := _ECHO_TARGET.search(words[-1])):
        keys = [found.group(1)]
    else:
        return []
    return [f for key in keys for f in FIELDS_BY_ATTRIBUTE.get(key, ())]
