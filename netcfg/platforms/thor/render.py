"""The Thor host script, rendered from a DeviceState the way Broadcom's bnxt_setupcc.sh configures a NIC."""

from __future__ import annotations

from types import SimpleNamespace

from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.platforms.linux.host import (
    params,
)
from netcfg.platforms.thor.bnxt import (
    CC_ORDER,
    ROCE_BANDWIDTH,
    STRICT_TC,
    BnxtNic,
    from_port,
    hex_value,
)
from netcfg.templating import template


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
                ets_fallback=_ets_fallback(bnxt),
                apps=None if bnxt.apps is None else " ".join(",".join(map(str, app)) for app in bnxt.apps),
                cm=params([("default_roce_mode", bnxt.roce_mode), ("default_roce_tos", bnxt.cm_tos)]),
                cc=params([(k, hex_value(bnxt.cc[k])) for k in CC_ORDER if k in bnxt.cc]),
            )
        )
    return template("thor/host.sh.j2").render(name=state.name, nics=nics)


def _ets_options(nic: BnxtNic, tcs: int | None = None) -> str:
    """set_ets's options; `tcs`: only the first that many TSA entries."""
    if nic.prio_tc is None or nic.tc_tsa is None:
        return ""
    tsa = ",".join(f"{tc}:{algorithm}" for tc, algorithm in sorted(nic.tc_tsa.items())[:tcs])
    prio_tc = ",".join(f"{p}:{tc}" for p, tc in sorted(nic.prio_tc.items()))
    return f"tsa={tsa} priority2tc={prio_tc} tcbw={100 - ROCE_BANDWIDTH},{ROCE_BANDWIDTH}"


def _ets_fallback(nic: BnxtNic) -> str:
    """What bnxt_setupcc.sh writes when the firmware refuses eight TCs: the three it uses."""
    if nic.tc_tsa is None or len(nic.tc_tsa) <= STRICT_TC + 1:
        return ""
    return _ets_options(nic, STRICT_TC + 1)


# Where the settings of a generic host script stand: ((NIC index, ".field" or ""), line), hashable.
