"""What a Thor host prints when netcfg reads it back, and how those outputs parse.

Per NIC: `bnxtqos -dev=IF get_qos` (ETS, PFC, the DCB app table), a `grep -rH .` dump of its MTU,
RDMA-CM and bnxt_re `cc` configfs values (with `cc/apply`, the firmware's own view), `ethtool -i`,
the link state, PCIe link and counters (netcfg.platforms.linux_counters, with bnxt names from
netcfg.platforms.thor.counters); per host `lldpcli show neighbors`. `render_outputs` prints the
same for the lab.
"""

from __future__ import annotations

import re
from functools import lru_cache

from netcfg.model import Device, DeviceState, InterfaceState, Nic
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms import linux_counters, linux_host
from netcfg.platforms.base import Command
from netcfg.platforms.linux_host import LLDP, ethtool_command, generic_text
from netcfg.platforms.thor.bnxt import (
    CC_FIELDS,
    ECN_MARKINGS,
    PRIORITIES,
    BnxtNic,
    app_entry,
    from_port,
    hex_value,
    priorities,
    to_port,
)
from netcfg.platforms.thor.counters import BNXT_COUNTERS, LINK_MODES, stats_lines
from netcfg.templating import template

PLATFORM = "thor"
BNXT_EN = "bnxt_en"
# `ethtool -i` of a bnxt_en NIC: `232.0.219.16/pkg 232.1.196.16`, the running firmware and the NVM
# package it came in.
_FIRMWARE = re.compile(r"(\S+)/pkg (\S+)")
# cc/apply shows these as words; the attributes show the numbers.
_RUNNING_WORDS = {
    "ecn_enable": {"Enabled": 1, "Disabled": 0},
    "ecn_marking": {text: value for value, text in ECN_MARKINGS.items()},
    "cc_mode": {"DCQCN-D": 0, "DCQCN-P": 1},
}
_CC_MODES = {value: text for text, value in _RUNNING_WORDS["cc_mode"].items()}


def qos_command(nic: Nic) -> Command:
    return Command(f"bnxtqos -dev={nic.netdev} get_qos", f"bnxtqos_{nic.netdev}")


def configfs_command(nic: Nic) -> Command:
    cli = (
        f"grep -rH . /sys/class/net/{nic.netdev}/mtu /sys/kernel/config/rdma_cm/{nic.rdma_device}/ports/1 "
        f"/sys/kernel/config/bnxt_re/{nic.rdma_device}/ports/1/cc"
    )
    return Command(cli, f"configfs_{nic.netdev}")


def nic_commands(nic: Nic) -> list[Command]:
    return [
        qos_command(nic),
        configfs_command(nic),
        ethtool_command(nic),
        *linux_counters.nic_counter_commands(nic),
    ]


# --- parse ----------------------------------------------------------------------------------------


def parse_outputs(outputs: dict[str, str], device: Device) -> DeviceState:
    state = DeviceState(name=device.name, platform=PLATFORM, facets=frozenset({"qos", "version", "lldp"}))
    for index, nic in enumerate(device.nics):
        qos, dump = qos_command(nic), configfs_command(nic)
        # get_qos names no NIC, and the dump is keyed by placeholders in place of NIC names: the
        # outputs of thousands of servers are the same texts and parse once.
        settings, qos_error = _read_qos(outputs.get(qos.file) or "")
        if qos_error:
            state.unparsed[qos.cli] = "output missing" if qos.file not in outputs else qos_error
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
        port.driver, firmware = linux_host.read_driver_info(outputs.get(ethtool_command(nic).file, ""))
        port.firmware = firmware_version(firmware)
        if port.firmware is None:
            state.unparsed[ethtool_command(nic).cli] = "no firmware-version line"
            state.facets -= {"version"}
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


# --- render (the lab's replies) -------------------------------------------------------------------


def render_outputs(state: DeviceState, device: Device) -> dict[str, str]:
    out = {}
    for index, nic in enumerate(device.nics):
        port = state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev))
        bnxt = from_port(port)
        out[qos_command(nic).cli] = _render_qos(bnxt)
        written = {
            key.partition(".")[2]: texts[0]
            for key, texts in state.not_operational.items()
            if key.partition(".")[0] == nic.netdev
        }
        out[configfs_command(nic).cli] = _render_dump(bnxt, nic, written)
        out[ethtool_command(nic).cli] = linux_host.render_driver_info(
            driver=port.driver or BNXT_EN,
            version="1.10.3-232.0.155.5",
            firmware=_firmware_text(port.firmware or ""),
            bus=f"{0x06 + index * 0x10:02x}",
            eeprom=True,
        )
        counters = state.counters.get(nic.netdev)
        out |= linux_counters.render_nic_counters(
            port, counters, nic, BNXT_COUNTERS, LINK_MODES, stats_lines(counters)
        )
    out[LLDP.cli] = linux_host.render_lldp(state)
    return out


_FIRMWARE_VERSION = re.compile(r"\d+\.\d+(\.\d+)*")


def _firmware_text(firmware: str) -> str:
    """`ethtool -i`'s firmware-version: the version and the NVM package it ships in, numbered as
    Broadcom numbers them (232.0.x.y in package 232.1.x.y); other shapes as they are."""
    if not _FIRMWARE_VERSION.fullmatch(firmware):
        return firmware
    major, _, rest = firmware.partition(".")
    return f"{firmware}/pkg {major}.1.{rest.partition('.')[2] or '0'}"


def _render_qos(nic: BnxtNic) -> str:
    tcs = sorted(nic.tc_tsa or {})
    apps = list(reversed(nic.apps or []))
    return template("thor/bnxtqos.j2").render(
        prio_map=" ".join(f"{p}:{tc}" for p, tc in sorted((nic.prio_tc or {}).items())),
        bandwidth=" ".join("0%" if nic.tc_tsa[tc] == "strict" else "50%" for tc in tcs),
        tsa_map=" ".join(f"{tc}:{nic.tc_tsa[tc]}" for tc in tcs),
        pfc=None if nic.pfc is None else " ".join(map(str, sorted(nic.pfc))) or "none",
        apps=[{"priority": p, "sel": s, "protocol": v} for p, s, v in apps],
        rate_limit=" ".join("100%" if tc in tcs else "0%" for tc in PRIORITIES),
    )


def _render_dump(nic: BnxtNic, names: Nic, written: dict[str, str]) -> str:
    cc = {"cc_mode": 0, **nic.cc}
    folder = f"/sys/kernel/config/bnxt_re/{names.rdma_device}/ports/1/cc"
    running = []
    if "ecn_enable" in cc:
        running.append(("ecn status (ecn_enable)", "Enabled" if cc["ecn_enable"] else "Disabled"))
    if "ecn_marking" in cc:
        running.append(("ecn marking (ecn_marking)", ECN_MARKINGS[cc["ecn_marking"]]))
    running.append(("congestion control mode (cc_mode)", _CC_MODES.get(cc["cc_mode"], "Invalid")))
    if "disable_prio_vlan_tx" in cc:
        running.append(
            ("send priority vlan (VLAN 0)", "Disabled" if cc["disable_prio_vlan_tx"] else "Enabled")
        )
    pairs = [("roce_prio", "roce_dscp")] + ([("cnp_prio", "cnp_dscp")] if cc.get("ecn_enable") else [])
    for prio, dscp in pairs:
        if prio in cc and dscp in cc:
            running += [(f"{k.replace('_', ' ')} ({k})", str(cc[k])) for k in (prio, dscp)]
    values = [
        (attribute, written.get(attribute, hex_value(value))) for attribute, value in sorted(cc.items())
    ]
    return template("thor/configfs_dump.j2").render(
        mtu=(f"/sys/class/net/{names.netdev}/mtu", nic.mtu),
        cm=f"/sys/kernel/config/rdma_cm/{names.rdma_device}/ports/1",
        roce_mode=nic.roce_mode,
        roce_tos=nic.cm_tos,
        folder=folder,
        running=running,
        values=values,
    )
