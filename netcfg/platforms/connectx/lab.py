"""What a simulated Linux server with ConnectX NICs prints (`mlnx_qos`, the sysfs and configfs dump,
`ethtool`, counters, LLDP), and how its shell behaves over SSH: the lab's ConnectX simulator."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from netcfg.headroom import headroom
from netcfg.model import Device, DeviceState, InterfaceState, Link, Nic, PgBuffer
from netcfg.platforms.connectx.commands import PRIORITIES, mlnx_qos_command, mlxconfig_command, sysfs_command
from netcfg.platforms.connectx.counters import LINK_MODES, MLX5_COUNTERS, stats_lines
from netcfg.platforms.connectx.parse import DCBX_AGENTS
from netcfg.platforms.connectx.render import NP_DCQCN, np_values
from netcfg.platforms.connectx.roce_accl import render_register, roce_accl_command
from netcfg.platforms.linux import counters as linux_counters
from netcfg.platforms.linux import host as linux_host
from netcfg.platforms.linux.host import (
    LLDP,
    ethtool_command,
)
from netcfg.platforms.simulator import CliProfile, Simulator, bash_profile, register_simulator
from netcfg.templating import template


def _sysfs_values(port: InterfaceState, nic: Nic) -> list[tuple[str, object]]:
    net = f"/sys/class/net/{nic.netdev}"
    cm = f"/sys/kernel/config/rdma_cm/{nic.rdma_device}/ports/1"
    values: list[tuple[str, object]] = [(f"{net}/mtu", port.mtu)]
    for role, prios in (("np", port.ecn_np_priorities), ("rp", port.ecn_rp_priorities)):
        values += [(f"{net}/ecn/roce_{role}/enable/{p}", int(p in (prios or ()))) for p in PRIORITIES]
    values += [(f"{net}/ecn/roce_np/{k}", v) for k, v in np_values(port)]
    values += [(f"{net}/ecn/roce_rp/{k}", v) for k, v in sorted(port.dcqcn.items()) if k not in NP_DCQCN]
    values += [(f"{cm}/default_roce_mode", port.roce_mode), (f"{cm}/default_roce_tos", port.roce_tos)]
    return [(p, v) for p, v in values if v is not None]


def render_outputs(state: DeviceState, device: Device) -> dict[str, str]:
    out = {}
    for index, nic in enumerate(device.nics):
        port = state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev))
        table = port.dscp_map or {}
        by_prio = [
            (
                p,
                ",".join(f"{d:02d}" for d in sorted((d for d, q in table.items() if q == p), reverse=True))
                + ",",
            )
            for p in PRIORITIES
        ]
        sizes = [(port.pg_buffers.get(b) or PgBuffer()).size or 0 for b in PRIORITIES]
        buffers = port.priority_buffers
        out[mlnx_qos_command(nic).cli] = template("connectx/mlnx_qos.j2").render(
            dcbx={v: k for k, v in DCBX_AGENTS.items()}.get(port.dcbx_agent or ""),
            buffers=None if buffers is None else "".join(f"{buffers.get(p, 0)}   " for p in PRIORITIES),
            buffer_sizes="".join(f"{s}," for s in sizes),
            max_buffer_size=MAX_BUFFER_SIZE,
            trust=port.trust or "pcp",
            dscp2prio=by_prio,
            cable_len=port.cable_m if port.cable_m is not None else 7,
            pfc="".join(f"{'1' if p in (port.no_drop_priorities or ()) else '0'}   " for p in PRIORITIES),
            strict=port.strict_queues,
        )
        out[mlxconfig_command(nic).cli] = template("connectx/mlxconfig.j2").render(
            device=nic.rdma_device, params=_firmware_params(port)
        )
        out[sysfs_command(nic).cli] = template("connectx/sysfs_dump.j2").render(
            values=_sysfs_values(port, nic)
        )
        out[ethtool_command(nic).cli] = linux_host.render_driver_info(
            driver=port.driver or "mlx5_core",
            version="24.10-1.1.4",
            firmware=f"{port.firmware} ({port.psid})" if port.psid else str(port.firmware),
            bus=f"{0x17 + index * 0x10:02x}",
            eeprom=False,
        )
        out[roce_accl_command(nic).cli] = render_register(port)
    out[LLDP.cli] = linux_host.render_lldp(state)
    return out | render_readings(state, device)


def render_readings(state: DeviceState, device: Device) -> dict[str, str]:
    return linux_counters.render_readings(state, device, MLX5_COUNTERS, LINK_MODES, stats_lines)


def _flag(value: bool) -> str:
    return "True(1)" if value else "False(0)"


def _firmware_params(port: InterfaceState) -> list[tuple[str, str, str]]:
    """(parameter, default, current) of a single-port card: the firmware's defaults (IEEE and CEE on,
    willing) but where the port's DCBX says otherwise, around the RoCE parameters NVIDIA's tools show."""
    mode, willing = port.dcbx_mode, port.dcbx_willing
    ieee = True if mode is None else mode in ("ieee", "auto")
    cee = True if mode is None else mode in ("cee", "auto")
    planes = (
        [] if port.nic_planes is None else [("NUM_OF_PLANES_P1", "0", str(_planes_value(port.nic_planes)))]
    )
    return [
        ("ROCE_CC_PRIO_MASK_P1", "255", "255"),
        ("CNP_802P_PRIO_P1", "6", "6"),
        ("CNP_DSCP_P1", "48", "48"),
        ("LLDP_NB_DCBX_P1", _flag(False), _flag(False)),
        ("LLDP_NB_RX_MODE_P1", "OFF(0)", "OFF(0)"),
        ("LLDP_NB_TX_MODE_P1", "OFF(0)", "OFF(0)"),
        ("DCBX_IEEE_P1", _flag(True), _flag(ieee)),
        ("DCBX_CEE_P1", _flag(True), _flag(cee)),
        ("DCBX_WILLING_P1", _flag(True), _flag(True if willing is None else willing)),
        ("NUM_OF_TC_P1", "_8_TCs(0)", "_8_TCs(0)"),
        ("NUM_OF_PFC_P1", "8", "8"),
        *planes,
    ]


def _planes_value(planes: int) -> int:
    # One plane shows as 0, as NVIDIA's NIC profiles set it outside hardware plane load balancing.
    return planes if planes > 1 else 0


@register_simulator
class ConnectXSimulator(Simulator):
    platform_name: ClassVar[str] = "connectx"
    cli_profile: ClassVar[CliProfile] = bash_profile()
    version: ClassVar[str] = "28.41.1000"

    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        return render_outputs(state, device)

    def render_readings(self, state: DeviceState, device: Device) -> dict[str, str]:
        return render_readings(state, device)

    def live_nic(self, port: InterfaceState, link: Link | None) -> InterfaceState:
        """DCBX run by the OS (mlnx_qos's own default), and receive buffers as the mlx5 driver sizes
        them from `--cable_len`: the lossless priorities in buffer 1, with room for the headroom the
        cable needs plus a frame, everything else in lossy buffer 0."""
        lossless = port.no_drop_priorities or frozenset()
        need = headroom(link.speed_gbps, link.cable_m, port.mtu or 9000).bytes if link and lossless else 0
        sizes = {0: LOSSY_BUFFER, 1: need + (port.mtu or 9000) if lossless else 0}
        return dataclasses.replace(
            port,
            dcbx_agent="os",
            priority_buffers={p: int(p in lossless) for p in PRIORITIES},
            pg_buffers={b: PgBuffer(size=sizes.get(b, 0)) for b in PRIORITIES},
        )


# The lossy buffer and the buffers' total the lab's NICs print: the sizes of the example in NVIDIA's
# mlnx-tools commit b8c08c5 ("mlnx_qos: Print max_buffer_size instead of total_size").
LOSSY_BUFFER = 187200
MAX_BUFFER_SIZE = 2044224
