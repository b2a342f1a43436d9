"""Per-link rules: both ends of every cable agree, whatever the policy says."""

from __future__ import annotations

from netcfg.model import DeviceState, Endpoint, InterfaceState, Link, ip_classification
from netcfg.rules import CheckContext, Issue, Severity, rule, show


def _port(state: DeviceState, end: Endpoint) -> InterfaceState:
    return state.interfaces.get(end.interface) or InterfaceState(name=end.interface)


def _mismatch(link: Link, what: str, va: object, vb: object, policy_value: object) -> tuple[Issue, ...]:
    """The issue of a link whose ends differ (`va` != `vb`), named on the end that leaves the policy
    (the upper end if both do). Callers compare first: nearly every link agrees, and its rule then
    reads nothing more of the policy."""
    a_is_culprit = vb == policy_value
    culprit = link.a if a_is_culprit else link.b
    mine, peer = (va, vb) if a_is_culprit else (vb, va)
    return (
        Issue(
            culprit.device,
            culprit.interface,
            f"{what} as on the peer ({show(peer)})",
            show(mine),
            f"{what} disagrees with the other end of the link: {show(mine)} here, {show(peer)} on the peer",
        ),
    )


@rule("link.trust_mismatch", Severity.ERROR, scope="link", fields=("trust",))
def check_link_trust(link: Link, a: DeviceState, b: DeviceState, ctx: CheckContext) -> tuple[Issue, ...]:
    """Both ends of a link trust the same field (DSCP), so a packet keeps its class across the cable.
    Trusting both DSCP and 802.1p is DSCP trust for the IP packets RoCE sends."""
    va, vb = _port(a, link.a).trust, _port(b, link.b).trust
    if va == vb or ip_classification(va) == ip_classification(vb):
        return ()
    return _mismatch(link, "trust mode", va, vb, ctx.policy.trust)


@rule("link.dscp_mismatch", Severity.ERROR, scope="link", fields=("dscp_map",))
def check_link_dscp(link: Link, a: DeviceState, b: DeviceState, ctx: CheckContext) -> tuple[Issue, ...]:
    """Both ends map the RoCE DSCP to the same priority."""
    dscp = ctx.policy.roce.dscp
    va, vb = a.dscp_priority(dscp, link.a.interface), b.dscp_priority(dscp, link.b.interface)
    if va == vb:
        return ()
    return _mismatch(link, f"DSCP {dscp} priority", va, vb, ctx.policy.roce.priority)


@rule("link.pfc_mismatch", Severity.ERROR, scope="link", fields=("no_drop_priorities",))
def check_link_pfc(link: Link, a: DeviceState, b: DeviceState, ctx: CheckContext) -> tuple[Issue, ...]:
    """Both ends pause the same priorities: pauses for a priority the peer ignores protect nothing."""
    va, vb = _port(a, link.a).no_drop_priorities, _port(b, link.b).no_drop_priorities
    if va == vb:
        return ()
    return _mismatch(link, "PFC priorities", va, vb, ctx.policy.lossless_priorities)


@rule("link.mtu_mismatch", Severity.ERROR, scope="link", fields=("mtu",))
def check_link_mtu(link: Link, a: DeviceState, b: DeviceState, ctx: CheckContext) -> tuple[Issue, ...]:
    """A host MTU never exceeds its leaf port's MTU; switch-to-switch links have equal MTUs."""
    ma, mb = _port(a, link.a).mtu, _port(b, link.b).mtu
    if ma is None or mb is None or ma == mb:
        return ()
    host_side = a.platform != b.platform and ctx.fabric.devices[link.a.device].role == "host"
    if host_side and ma < mb:
        return ()
    b_is_culprit = mb != ctx.policy.mtu.switch
    culprit = link.b if b_is_culprit else link.a
    mine, peer = (mb, ma) if b_is_culprit else (ma, mb)
    return (
        Issue(
            culprit.device,
            culprit.interface,
            "host MTU <= switch MTU" if host_side else "equal MTU on both ends",
            f"{mine} (peer {peer})",
            f"MTU {mine} here does not fit MTU {peer} on the other end: jumbo RoCE frames will be dropped",
        ),
    )
