"""NX-OS's own rule: the network-qos class MTU that caps a switched port of a Nexus 3000/5000."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.model import Device, DeviceState, InterfaceState
from netcfg.rules import CheckContext, Issue, Severity, fabric_ports, rule, show


@rule("nxos.class_mtu", Severity.ERROR, kinds=["switch"], fields=("class_mtu",), platforms=["nxos"])
def check_class_mtu(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """On a Nexus 3000 or 5000 release (6.0(2)U, A, N trains) a switched port carries each class up
    to the MTU of its network-qos class, whatever the port's MTU: the class RoCE travels in takes
    frames of the host MTU, or they are dropped at the leaf (an RDMA class left at `mtu 2240`)."""
    host = ctx.policy.mtu.host
    for port in fabric_ports(state, device, ctx):
        if not port.class_mtu:
            continue
        for tc in _roce_classes(state, port, ctx):
            mtu = port.class_mtu.get(tc)
            if mtu is None or mtu < host:
                yield Issue(
                    state.name,
                    port.name,
                    f"class {tc} MTU at least {host} (host MTU)",
                    show(mtu),
                    f"traffic class {tc} (RoCE) is capped at network-qos class MTU {show(mtu)} on this "
                    f"NX-OS {show(state.os_version)} switched port: host frames of MTU {host} "
                    "do not fit and are dropped",
                )


def _roce_classes(state: DeviceState, port: InterfaceState, ctx: CheckContext) -> list[int]:
    """The class RoCE DSCP lands in on the port; where the port does not classify on DSCP (CoS
    trust), the classes the policy's RoCE priority pauses."""
    priority = ctx.policy.roce.priority
    tc = state.dscp_priority(ctx.policy.roce.dscp, port.name)
    if tc is not None:
        return [tc]
    paused = sorted(g for g in port.class_mtu if state.tc_pfc.get(g, g) == priority)
    return paused or [priority]
