"""SONiC's own stock traps, named as its operators know them (the shared rules check the numbers)."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.model import Device, DeviceState
from netcfg.rules import CheckContext, Issue, Severity, fabric_ports, rule, show


@rule("sonic.azure_dscp_map", Severity.ERROR, fields=("dscp_map",), platforms=["sonic"])
def check_azure_dscp_map(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The switch classifies with SONiC's stock AZURE DSCP_TO_TC_MAP (qos_config.j2), which sends
    DSCP 26 and every other DSCP but 3, 4, 5, 8, 46 and 48 to TC 1, a lossy class, while stock
    PORT_QOS_MAP enables PFC on priorities 3 and 4 only, which just DSCP 3 and 4 reach: RoCE then
    drops under incast instead of being paused."""
    name = state.qos_names.get("dscp_to_tc_map")
    p = ctx.policy
    chain = state.chain(p.roce.dscp)
    if name is None or not name.startswith("AZURE") or chain is None or chain.pfc_priority == p.roce.priority:
        return
    pfc = frozenset(q for port in fabric_ports(state, device, ctx) for q in port.no_drop_priorities or ())
    paused = f"; PFC pauses priorities {show(pfc)} (pfc_enable)" if pfc else ""
    yield Issue(
        state.name,
        None,
        f"DSCP {p.roce.dscp} in the class of priority {p.roce.priority}",
        f"DSCP_TO_TC_MAP|{name}: DSCP {p.roce.dscp} -> TC {chain.traffic_class}",
        f"SONiC's stock map DSCP_TO_TC_MAP|{name} is bound: RoCE DSCP {p.roce.dscp} lands in TC "
        f"{chain.traffic_class}, not the class of priority {p.roce.priority}{paused}",
    )


@rule("sonic.pfcwd_coverage", Severity.ERROR, fields=("watchdog",), platforms=["sonic"])
def check_pfcwd_coverage(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Every port with PFC on (a PORT_QOS_MAP `pfc_enable`) has a PFC_WD entry, and `pfcwd_sw_enable`
    (where set) covers its PFC priorities: a port left out is one where a pause storm or deadlock is
    never broken. Stock `pfcwd start_default` skips ports, and it runs only with
    DEVICE_METADATA `default_pfcwd_status` enable."""
    if not ctx.policy.pfc_watchdog.enabled:
        return
    for port in fabric_ports(state, device, ctx):
        if port.no_drop_priorities and port.watchdog is False:
            yield Issue(
                state.name,
                port.name,
                f"PFC_WD|{port.name} covering priorities {show(port.no_drop_priorities)}",
                "not covered",
                f"PFC_WD does not cover this port, which pauses priorities {show(port.no_drop_priorities)} "
                "(pfc_enable): a pause storm here is never broken",
            )


@rule("sonic.wred_not_marking", Severity.ERROR, fields=("ecn",), platforms=["sonic"])
def check_wred_not_marking(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """A WRED_PROFILE a fabric port's queues bind sets `ecn` (ecn_all, ecn_green, ...) but leaves
    `wred_green_enable` false or unset: SAI marks a colour only where its WRED is enabled, so the
    profile marks no green packet, and RoCE is green. The queue reads as ECN off; this names the
    profile that makes it so."""
    for port in fabric_ports(state, device, ctx):
        by_profile: dict[str, list[int]] = {}
        for queue, profile in sorted(port.ecn_not_marking.items()):
            by_profile.setdefault(profile, []).append(queue)
        for profile, queues in by_profile.items():
            why = state.ecn_not_marking.get(profile, "")
            yield Issue(
                state.name,
                port.name,
                f"WRED_PROFILE|{profile} marking green packets (wred_green_enable true)",
                f"WRED_PROFILE|{profile}: {why}",
                f"WRED_PROFILE|{profile} asks for ECN ({why}) but enables WRED for no green packet: "
                f"{'queue' if len(queues) == 1 else 'queues'} {', '.join(map(str, queues))} of this port "
                "bind it and mark nothing RoCE sends",
                file=state.source_file,
                line=state.locations.get(f"ecn_not_marking {profile}"),
            )
