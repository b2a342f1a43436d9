"""The idempotent host script that configures a server's ConnectX NICs (templates/connectx/)."""

from __future__ import annotations

from types import SimpleNamespace

from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.platforms.connectx.commands import PRIORITIES
from netcfg.platforms.linux.host import (
    params,
)
from netcfg.templating import template

NP_DCQCN = ("min_time_between_cnps",)


def _bitmap(prios: frozenset[int] | None) -> str | None:
    return None if prios is None else ",".join("1" if p in prios else "0" for p in PRIORITIES)


def _prio_list(prios: frozenset[int] | None) -> str | None:
    return None if prios is None else ",".join(map(str, sorted(prios))) or "none"


def _mlnx_qos_options(port: InterfaceState) -> str:
    options = []
    if port.trust:
        options.append(f"--trust {port.trust}")
    if port.no_drop_priorities is not None:
        options.append(f"--pfc {_bitmap(port.no_drop_priorities)}")
    if port.cable_m is not None:
        options.append(f"--cable_len {port.cable_m}")
    return " ".join(options)


def np_values(port: InterfaceState) -> list[tuple[str, int]]:
    values = [("cnp_dscp", port.cnp_dscp), ("cnp_802p_prio", port.cnp_priority)]
    values += [(k, port.dcqcn[k]) for k in NP_DCQCN if k in port.dcqcn]
    return [(k, v) for k, v in values if v is not None]


def render_config(state: DeviceState, device: Device) -> str:
    nics = []
    for nic in device.nics:
        port = state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev))
        overrides = sorted((d, p) for d, p in (port.dscp_map or {}).items() if d >> 3 != p)
        nics.append(
            SimpleNamespace(
                netdev=nic.netdev,
                rdma=nic.rdma_device,
                rail=nic.rail,
                mtu=port.mtu,
                qos=_mlnx_qos_options(port),
                dscp2prio=overrides,
                np=_prio_list(port.ecn_np_priorities),
                rp=_prio_list(port.ecn_rp_priorities),
                np_values=params(np_values(port)),
                rp_values=params(sorted((k, v) for k, v in port.dcqcn.items() if k not in NP_DCQCN)),
                cm_values=params(
                    [("default_roce_mode", port.roce_mode), ("default_roce_tos", port.roce_tos)]
                ),
            )
        )
    return template("connectx/host.sh.j2").render(name=state.name, nics=nics)
