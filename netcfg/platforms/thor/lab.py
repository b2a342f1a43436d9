"""What a simulated Linux server with Broadcom Thor NICs prints (`bnxtqos get_qos`, the configfs
dump, `ethtool`, counters, LLDP), the defaults Broadcom's driver applies, and how its shell behaves over
SSH: the lab's Thor simulator."""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar

from netcfg.model import Device, DeviceState, InterfaceState, Nic
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux import host as linux_host
from netcfg.platforms.linux.host import LLDP, ethtool_command
from netcfg.platforms.simulator import CliProfile, Simulator, bash_profile, register_simulator
from netcfg.platforms.thor.bnxt import (
    ECN_MARKINGS,
    PRIORITIES,
    BnxtNic,
    from_port,
    hex_value,
)
from netcfg.platforms.thor.commands import BNXT_EN, configfs_command, qos_command
from netcfg.platforms.thor.counters import BNXT_COUNTERS, LINK_MODES, stats_lines
from netcfg.platforms.thor.parse import CC_MODES
from netcfg.templating import template


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
    out[LLDP.cli] = linux_host.render_lldp(state)
    return out | render_readings(state, device)


def render_readings(state: DeviceState, device: Device) -> dict[str, str]:
    return linux_counters.render_readings(state, device, BNXT_COUNTERS, LINK_MODES, stats_lines)


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
    running.append(("congestion control mode (cc_mode)", CC_MODES.get(cc["cc_mode"], "Invalid")))
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


@register_simulator
class ThorSimulator(Simulator):
    platform_name: ClassVar[str] = "thor"
    cli_profile: ClassVar[CliProfile] = bash_profile()
    # A Thor2 (BCM57608) firmware as `ethtool -i` prints it before `/pkg` (AMD MI300X servers).
    version: ClassVar[str] = "232.0.219.16"

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        return render_outputs(state, device)

    def render_readings(self, state: DeviceState, device: Device) -> dict[str, str]:
        return render_readings(state, device)

    def factory_qos(self, state: DeviceState, device: Device) -> DeviceState:
        """Broadcom's defaults on every NIC (CNP priority 7 where NVIDIA's is 6); MTU, firmware and
        the CNP gap stay as they are (netcfg has no source for bnxt's default gap)."""
        (roce_dscp, roce_prio), (cnp_dscp, cnp_prio) = BROADCOM_ROCE, BROADCOM_CNP
        ports = {
            name: dataclasses.replace(
                port,
                trust="dscp",
                pfc_enabled=True,
                no_drop_priorities=frozenset({roce_prio}),
                dscp_map={roce_dscp: roce_prio, cnp_dscp: cnp_prio},
                strict_queues=frozenset({cnp_prio}),
                roce_mode="RoCE v2",
                roce_tos=roce_dscp << 2 | BROADCOM_ECN_MARKING,
                ecn_np_priorities=frozenset({roce_prio}),
                ecn_rp_priorities=frozenset({roce_prio}),
                cnp_dscp=cnp_dscp,
                cnp_priority=cnp_prio,
                dcqcn=dict(port.dcqcn),
                ecn=dict(port.ecn),
            )
            for name, port in state.interfaces.items()
        }
        return dataclasses.replace(state, interfaces=ports)


# What a Thor2 host runs before anyone sets RoCE up differently: Broadcom's defaults as its
# bnxt_re_conf package applies them at driver load (bnxt_setupcc.sh: RoCE DSCP 26 on priority 3,
# CNP DSCP 48 on priority 7 on strict TC2, PFC and congestion control on, RoCE TOS DSCP << 2 with
# the firmware marking ECT(1); the Juniper/AMD validated design lists the same values).
BROADCOM_ROCE = (26, 3)


BROADCOM_CNP = (48, 7)


BROADCOM_ECN_MARKING = 1
