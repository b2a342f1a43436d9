"""What a Thor host prints when netcfg reads it back, and how those outputs parse.

Per NIC: `bnxtqos -dev=IF get_qos` (ETS, PFC, the DCB app table), a `grep -rH .` dump of its MTU,
RDMA-CM and bnxt_re `cc` configfs values (with `cc/apply`, the firmware's own view), `ethtool -i`,
the link state, PCIe link and counters (netcfg.platforms.linux.counters, with bnxt names from
netcfg.platforms.thor.counters); per host `lldpcli show neighbors`. Also the host script, as
rendered or hand-edited (`parse_script`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux import host as linux_host
from netcfg.platforms.linux.host import (
    HOST_SCRIPT,
    NIC_PLACEHOLDER,
    ScriptLocations,
    ethtool_command,
    generic_text,
    read_host_script,
    script_locations,
    tokens,
)
from netcfg.platforms.thor.bnxt import (
    CC_FIELDS,
    ECN_MARKINGS,
    BnxtNic,
    app_entry,
    priorities,
    shape,
    to_port,
)
from netcfg.platforms.thor.commands import PLATFORM, configfs_command, qos_command
from netcfg.platforms.thor.counters import BNXT_COUNTERS

# `ethtool -i` of a bnxt_en NIC: `232.0.219.16/pkg 232.1.196.16`, the running firmware and the NVM
# package it came in.
_FIRMWARE = re.compile(r"(\S+)/pkg (\S+)")
# cc/apply shows these as words; the attributes show the numbers.
_RUNNING_WORDS = {
    "ecn_enable": {"Enabled": 1, "Disabled": 0},
    "ecn_marking": {text: value for value, text in ECN_MARKINGS.items()},
    "cc_mode": {"DCQCN-D": 0, "DCQCN-P": 1},
}
CC_MODES = {value: text for text, value in _RUNNING_WORDS["cc_mode"].items()}


# --- parse ----------------------------------------------------------------------------------------


def parse_outputs(outputs: dict[str, str], device: Device) -> DeviceState:
    state = DeviceState(name=device.name, platform=PLATFORM, facets=frozenset({"qos", "version", "lldp"}))
    for index, nic in enumerate(device.nics):
        qos, dump = qos_command(nic), configfs_command(nic)
        # get_qos names no NIC, and the dump is keyed by placeholders in place of NIC names: the
        # outputs of thousands of servers are the same texts and parse once.
        settings, qos_error = _read_qos(outputs.get(qos.file) or "")
        if qos_error:
            state.unparsed[qos.cli] = linux_host.refusal(
                outputs.get(qos.file),
                "bnxtqos get_qos output",
                "`bnxtqos -dev=IF get_qos` for QoS",
                qos_error,
            )
        values, dump_error = _read_dump(generic_text(outputs.get(dump.file) or "", device), index)
        if dump_error:
            state.unparsed[dump.cli] = "output missing" if dump.file not in outputs else dump_error
        if qos_error or dump_error:
            # One NIC's QoS unknown leaves the host's QoS unproven: reported once, not guessed at.
            state.facets -= {"qos"}
        port = _port(settings, values, nic.netdev)
        state.interfaces[nic.netdev] = port
        for attribute, texts in values.not_operational:
            state.not_operational[f"{nic.netdev}.{attribute}"] = texts
        ethtool = outputs.get(ethtool_command(nic).file)
        port.driver, firmware = linux_host.read_driver_info(ethtool or "")
        port.firmware = firmware_version(firmware)
        if port.firmware is None:
            state.unparsed[ethtool_command(nic).cli] = linux_host.refusal(
                ethtool, "ethtool -i output", "`ethtool -i IF` for firmware", "no firmware-version line"
            )
            state.facets -= {"version"}
        linux_host.read_nic_gids(state, port, nic, outputs, device)
    linux_counters.read_counters(state, device.nics, outputs, BNXT_COUNTERS)
    linux_host.read_lldp(state, outputs)
    return state


def firmware_version(text: str | None) -> str | None:
    """`232.0.219.16/pkg 232.1.196.16` -> '232.0.219.16'; other drivers' shapes stay whole."""
    if text is None:
        return None
    found = _FIRMWARE.fullmatch(text.strip())
    return found.group(1) if found else text.strip()


class _Dump:
    """A NIC's configfs dump: its values (the firmware's where `cc/apply` shows them), and the cc
    attributes whose written value the firmware does not run: (attribute, (written, running))."""

    def __init__(self) -> None:
        self.nic = BnxtNic()
        self.not_operational: list[tuple[str, tuple[str, str]]] = []


def _port(settings: BnxtNic, values: _Dump, name: str) -> InterfaceState:
    """Both outputs of a NIC together (the parsed pieces are cached and shared: never written to)."""
    dump = values.nic
    nic = BnxtNic(
        mtu=dump.mtu,
        pfc=settings.pfc,
        prio_tc=settings.prio_tc,
        tc_tsa=settings.tc_tsa,
        apps=settings.apps,
        roce_mode=dump.roce_mode,
        cm_tos=dump.cm_tos,
        cc=dump.cc,
    )
    return to_port(nic, name)


@lru_cache(maxsize=256)
def _read_qos(text: str) -> tuple[BnxtNic, str | None]:
    """PFC, ETS and the app table of `get_qos`; the reason when it cannot be read."""
    data = ttp_parse(PLATFORM, "bnxtqos", text)
    nic = BnxtNic()
    pfc = one(data.get("pfc"))
    if "enabled" not in pfc:
        return nic, "no PFC TLV in get_qos output"
    try:
        nic.pfc = priorities(str(pfc["enabled"]), " ")
        nic.apps = [
            app_entry(f"{row['priority']},{row['sel']},{_protocol(str(row['protocol']))}")
            for row in many(data.get("apps"))
            if "protocol" in row
        ]
        ets = one(data.get("ets"))
        if "prio_map" in ets and "tsa_map" in ets:
            nic.prio_tc = dict(_pairs(str(ets["prio_map"]), int))
            nic.tc_tsa = dict(_pairs(str(ets["tsa_map"]), str))
    except (KeyError, ValueError) as exc:
        return BnxtNic(), f"unreadable get_qos value: {exc}"
    return nic, None


def _protocol(text: str) -> int:
    """An app TLV's protocol: a DSCP or port in decimal, an Ethertype in hex (`0x8915`)."""
    return int(text, 0)


def _pairs(text: str, kind: type) -> list[tuple[int, object]]:
    pairs = [word.partition(":") for word in text.split()]
    return [(int(key), kind(value)) for key, sep, value in pairs if sep]


@lru_cache(maxsize=256)
def _read_dump(text: str, index: int) -> tuple[_Dump, str | None]:
    """The NIC's configfs and sysfs values; the reason when its cc folder shows none."""
    data = ttp_parse(PLATFORM, "configfs_dump", text)
    dump = _Dump()
    nic, written = dump.nic, {}
    net, rdma = f"@netdev{index}", f"@rdma{index}"
    for row in many(data.get("values")):
        parts = str(row["path"]).strip("/").split("/")
        value = str(row["value"]).strip()
        try:
            if parts == ["sys", "class", "net", net, "mtu"]:
                nic.mtu = int(value)
            elif parts[:6] == ["sys", "kernel", "config", "rdma_cm", rdma, "ports"] and len(parts) == 8:
                if parts[7] == "default_roce_mode":
                    nic.roce_mode = value
                elif parts[7] == "default_roce_tos":
                    nic.cm_tos = int(value)
            elif parts[:5] == ["sys", "kernel", "config", "bnxt_re", rdma] and _cc_attribute(parts):
                written[parts[-1]] = (int(value, 16), value)
        except ValueError:
            continue
    running = _running(many(data.get("running")), rdma)
    if not written and not running:
        return dump, "no bnxt_re cc values: /sys/kernel/config/bnxt_re/<device> is missing or empty"
    for attribute in sorted(set(written) | set(running)):
        value, text = running.get(attribute) or written[attribute]
        nic.cc[attribute] = value
        if attribute in written and attribute in running and written[attribute][0] != value:
            dump.not_operational.append((attribute, (written[attribute][1], text)))
    return dump, None


def _cc_attribute(parts: list[str]) -> bool:
    return len(parts) == 9 and parts[5:8] == ["ports", "1", "cc"] and parts[8] in CC_FIELDS


def _running(rows: list[dict], rdma: str) -> dict[str, tuple[int, str]]:
    """cc attribute -> (value, text) as `cc/apply` (the firmware) shows it."""
    out: dict[str, tuple[int, str]] = {}
    for row in rows:
        if f"/bnxt_re/{rdma}/" not in str(row["path"]):
            continue
        if "vlan" in row:
            vlan = str(row["vlan"])
            if vlan in ("Enabled", "Disabled"):
                out["disable_prio_vlan_tx"] = (int(vlan == "Disabled"), vlan)
            continue
        key, text = str(row.get("key")), str(row.get("value", "")).strip()
        words = _RUNNING_WORDS.get(key)
        if words is not None and text in words:
            out[key] = (words[text], text)
        elif key in ("roce_prio", "roce_dscp", "cnp_prio", "cnp_dscp") and text.isdigit():
            out[key] = (int(text), text)
        elif key == "min_time_bet_cnp" and (found := re.fullmatch(r"(0x[0-9a-fA-F]+|0) usec", text)):
            out[key] = (int(found.group(1), 16), text)
    return out


# A configfs or sysfs attribute -> the InterfaceState fields it decides.
FIELDS_BY_ATTRIBUTE = {
    **CC_FIELDS,
    "default_roce_mode": ("roce_mode",),
    "default_roce_tos": ("roce_tos",),
    "mtu": ("mtu",),
}


def parse_script(text: str, device: Device) -> DeviceState:
    return read_host_script(text, device, PLATFORM, _script_nics, shape)


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
