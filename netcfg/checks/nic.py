"""Host NIC rules beyond the policy's settings: the receive buffer a lossless priority lands in, the
GID jobs address, and DCBX agreeing with the switch port across the cable."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.headroom import headroom
from netcfg.model import Device, DeviceState, InterfaceState, Link
from netcfg.rules import CheckContext, Issue, Severity, fabric_ports, rule, show

ROCE_V2 = "RoCE v2"


@rule("host.receive_buffer", Severity.ERROR, kinds=["host"], fields=("priority_buffers", "pg_buffers"))
def check_receive_buffer(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The NIC receive buffer each lossless priority is mapped to holds the PFC headroom its cable
    needs (the frame in flight, the cable round trip, the switch's reaction and its frame, for the
    planned speed and cable length, roce-reference §9): a smaller one drops RoCE even with PFC on.
    Checked where the NIC's tools show the buffers (mlnx_qos `buffer` row and receive buffer sizes)."""
    p = ctx.policy
    for local, link, _ in ctx.fabric.links_of(device.name):
        port = state.interfaces.get(local.interface)
        if port is None or port.priority_buffers is None:
            continue
        mtu = port.mtu or p.mtu.host
        need = headroom(link.speed_gbps, link.cable_m, mtu).bytes
        plan = f"{link.speed_gbps} Gb/s over {link.cable_m:g} m, MTU {mtu}"
        for priority in sorted(p.lossless_priorities):
            buffer = port.priority_buffers.get(priority)
            found = None if buffer is None else port.pg_buffers.get(buffer)
            size = None if found is None else found.size
            if size is not None and size >= need:
                continue
            where = "no receive buffer" if buffer is None else f"receive buffer {buffer}"
            have = "unknown size" if size is None else f"{size:,} B"
            yield Issue(
                state.name,
                port.name,
                f">= {need:,} B for priority {priority} ({plan})",
                f"{where}: {have}",
                f"lossless priority {priority} lands in {where} of {have}, short of the {need:,} B of "
                f"headroom the plan needs ({plan}): the NIC drops RoCE before its pause takes effect",
            )


@rule("host.gid", Severity.ERROR, kinds=["host"], fields=("gids",))
def check_gid(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Every NIC holds a routable RoCE v2 GID at the policy's GID index (`host.gid_index`, the index
    jobs pass as NCCL_IB_GID_INDEX): a RoCE v1 or link-local GID there, or none, leaves jobs unable
    to reach other hosts across the routed fabric. Checked where the GID table was read."""
    index = ctx.policy.host.gid_index
    for port in fabric_ports(state, device, ctx):
        if port.gids is None:
            continue
        gid = port.gids.get(index)
        if gid is not None and gid.type == ROCE_V2 and not gid.address.lower().startswith("fe80:"):
            continue
        actual = "no GID" if gid is None else f"{show(gid.type)} {gid.address}"
        if gid is not None and gid.netdev:
            actual += f" on {gid.netdev}"
        yield Issue(
            state.name,
            port.name,
            f"routable {ROCE_V2} GID at index {index}",
            actual,
            f"GID index {index} holds {actual}, not a routable {ROCE_V2} GID: jobs using that index "
            "(NCCL_IB_GID_INDEX) cannot reach other hosts",
        )


def _dcbx(port: InterfaceState | None) -> tuple[str | None, bool | None]:
    return (None, None) if port is None else (port.dcbx_mode, port.dcbx_willing)


# The dialects each DCBX mode answers in: "auto" (ConnectX firmware with IEEE and CEE both on, Junos
# `auto-negotiate`) follows the peer's; "off" speaks none, so its peer negotiates nothing with it.
DCBX_DIALECTS = {"ieee": frozenset({"ieee"}), "cee": frozenset({"cee"}), "auto": frozenset({"ieee", "cee"})}


def dcbx_disagrees(a: str | None, b: str | None) -> bool:
    """Both ends speak DCBX, in dialects with none in common. Unknown or off ends never disagree:
    a port without DCBX runs its own static PFC, which the PFC rules judge."""
    ours, theirs = DCBX_DIALECTS.get(a or ""), DCBX_DIALECTS.get(b or "")
    return ours is not None and theirs is not None and ours.isdisjoint(theirs)


@rule("link.dcbx_mismatch", Severity.ERROR, scope="link", fields=("dcbx_mode", "dcbx_willing"))
def check_link_dcbx(link: Link, a: DeviceState, b: DeviceState, ctx: CheckContext) -> tuple[Issue, ...]:
    """Both ends of a host link that run DCBX speak a common dialect (IEEE 802.1Qaz or CEE 1.01),
    and not both are willing to take the other's settings: a dialect mismatch is the classic reason
    PFC silently does not negotiate, and with both willing neither end decides. Read from the NIC
    firmware's agent (`mlxconfig -e q` DCBX_IEEE/CEE/WILLING, when mlnx_qos says `Firmware
    controlled`) and the switch config (EOS `dcbx mode`, Junos `protocols dcbx ... dcbx-version`);
    judged only where both ends show it."""
    if ctx.fabric.devices[link.a.device].is_switch == ctx.fabric.devices[link.b.device].is_switch:
        return ()
    (mode_a, willing_a), (mode_b, willing_b) = (
        _dcbx(a.interfaces.get(link.a.interface)),
        _dcbx(b.interfaces.get(link.b.interface)),
    )
    if dcbx_disagrees(mode_a, mode_b):
        return (
            Issue(
                link.a.device,
                link.a.interface,
                f"DCBX {mode_b} as on {link.b}",
                f"DCBX {mode_a}",
                f"DCBX {mode_a} here, {mode_b} on {link.b}: the two ends do not understand each other's "
                "PFC and ETS TLVs, so PFC does not negotiate",
            ),
        )
    if willing_a and willing_b and mode_a != "off" and mode_b != "off":
        return (
            Issue(
                link.a.device,
                link.a.interface,
                f"at most one willing end ({link.b} is willing)",
                "willing",
                f"both this NIC and {link.b} are DCBX willing: neither end's PFC settings decide, so the "
                "link may run whichever the other advertises",
            ),
        )
    return ()
