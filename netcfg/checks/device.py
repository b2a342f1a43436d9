"""Per-device rules: every fabric port and every NIC against the policy."""

from __future__ import annotations

import re
from collections.abc import Iterator
from operator import attrgetter

from netcfg.headroom import headroom
from netcfg.intent import host_dcqcn
from netcfg.model import (
    Device,
    DeviceState,
    EcnSetting,
    InterfaceState,
    Watchdog,
    ip_classification,
    port_ranges,
)
from netcfg.platforms import get_platform
from netcfg.policy import KB, Policy, TrafficClass, VersionRule
from netcfg.rules import (
    CheckContext,
    Issue,
    Severity,
    compare,
    compare_ports,
    fabric_port_names,
    fabric_ports,
    kilobytes,
    rule,
    show,
)


@rule("qos.trust", Severity.ERROR, fields=("trust",))
def check_trust(state: DeviceState, device: Device, ctx: CheckContext) -> list[Issue]:
    """Every fabric port and NIC classifies on DSCP, so routed RoCE traffic keeps its class. A port
    that trusts both DSCP and 802.1p (Cumulus's RoCE default) classifies IP packets by DSCP."""
    want = ctx.policy.trust
    ports = [
        p for p in fabric_ports(state, device, ctx) if p.trust != want and ip_classification(p.trust) != want
    ]
    return compare_ports(state.name, ports, "trust mode", want, attrgetter("trust"))


@rule("qos.dscp_map", Severity.ERROR, fields=("dscp_map", "tc_pfc"))
def check_dscp_map(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """RoCE DSCP lands in the class the policy's RoCE priority pauses, and CNP DSCP in the CNP priority's
    class, on every hop (followed through the device's DSCP -> class -> PFC priority chain)."""
    p = ctx.policy
    ports = fabric_ports(state, device, ctx) if not device.is_switch else [None]
    # A switch carries every NIC family's CNPs; a NIC marks its own.
    cnps = p.cnp_classes if device.is_switch else [p.cnp_for(device.platform)]
    classes = [("RoCE", p.roce), *(("CNP", c) for c in cnps)]
    for port in ports:
        iface = port.name if port else None
        for label, tc in classes:
            actual = state.pfc_priority_of(tc.dscp, iface)
            if actual == tc.priority:
                continue
            if actual is None:
                yield from compare(
                    state.name, iface, f"{label} DSCP {tc.dscp} -> priority", tc.priority, None
                )
                continue
            # What the device does, said once: the queue and PFC rules follow the device's own chain.
            queue = roce_queue(state, iface, tc.dscp)
            rides = f"priority {actual}" + (f" (queue {queue})" if device.is_switch else "")
            # The class is the policy's but another priority pauses it: the finding points there.
            paused_elsewhere = state.dscp_priority(tc.dscp, iface) == tc.priority and state.source_file
            yield Issue(
                state.name,
                iface,
                str(tc.priority),
                str(actual),
                f"{label} DSCP {tc.dscp} rides {rides} on this device; "
                f"the policy expects priority {tc.priority}",
                file=state.source_file if paused_elsewhere else None,
                line=state.line_of(iface, ("tc_pfc",)) if paused_elsewhere else None,
            )


@rule("pfc.enabled", Severity.ERROR, fields=("pfc_enabled",))
def check_pfc_enabled(state: DeviceState, device: Device, ctx: CheckContext) -> list[Issue]:
    """PFC is on for every fabric port and NIC, so the lossless priority can be paused; in lossy mode
    it is off everywhere (a port that still pauses spreads congestion instead of marking it)."""
    ports = fabric_ports(state, device, ctx)
    return compare_ports(state.name, ports, "PFC", ctx.policy.lossless, attrgetter("pfc_enabled"))


@rule("pfc.no_drop_priorities", Severity.ERROR, fields=("no_drop_priorities", "dscp_map", "tc_pfc"))
def check_pfc_priority(state: DeviceState, device: Device, ctx: CheckContext) -> list[Issue]:
    """The PFC no-drop set is exactly the priority that pauses the RoCE DSCP's class on this device
    (followed through its DSCP -> class -> PFC priority chain): no more (headroom), no less (drops);
    none in lossy mode. Where that priority is not the policy's, `qos.dscp_map` says so."""
    p = ctx.policy
    ports = fabric_ports(state, device, ctx)
    if not p.lossless:
        return compare_ports(
            state.name, ports, "PFC no-drop priorities", frozenset(), attrgetter("no_drop_priorities")
        )
    issues = []
    shared = state.pfc_priority_of(p.roce.dscp)
    for port in ports:
        if port.trust in PRIORITY_TRUST:
            paused = state.tc_pfc.get(p.roce.priority, p.roce.priority)
        else:
            paused = shared if port.dscp_map is None else state.pfc_priority_of(p.roce.dscp, port.name)
        want = frozenset({p.roce.priority if paused is None else paused})
        if port.no_drop_priorities != want:
            issues += compare(state.name, port.name, "PFC no-drop priorities", want, port.no_drop_priorities)
    return issues


def roce_queue(state: DeviceState, port: str | None, dscp: int) -> int | None:
    """The egress queue packets of this DSCP ride out of a port (None: the DSCP's class is unknown)."""
    chain = state.chain(dscp, port)
    return None if chain is None else chain.queue


# Trust modes that classify on the 802.1p priority the NIC marks, whatever the DSCP.
PRIORITY_TRUST = frozenset({"cos", "pcp"})


def port_queues(state: DeviceState, ports: list[InterfaceState], tc: TrafficClass) -> list[int | None]:
    """The egress queue this traffic class rides out of each port: where the port classifies on
    DSCP, its DSCP's chain (followed once for the device, again only for a port with a DSCP map of
    its own: a fabric has hundreds of thousands of ports, nearly all sharing one); where it trusts
    802.1p, the queue of the priority the NIC marks."""
    shared = roce_queue(state, None, tc.dscp)
    by_priority = state.queue_of(tc.priority)
    return [
        by_priority
        if port.trust in PRIORITY_TRUST
        else shared
        if port.dscp_map is None
        else roce_queue(state, port.name, tc.dscp)
        for port in ports
    ]


@rule("ecn.enabled", Severity.ERROR, kinds=["switch"], fields=("ecn", "dscp_map", "tc_queue"))
def check_ecn_enabled(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """ECN marks the queue the RoCE DSCP rides on this device (followed through its DSCP -> class ->
    queue chain), so DCQCN slows senders before PFC has to pause them."""
    dscp = ctx.policy.roce.dscp
    ports = fabric_ports(state, device, ctx)
    for port, queue in zip(ports, port_queues(state, ports, ctx.policy.roce), strict=True):
        if queue is not None and queue not in port.ecn:
            yield Issue(
                state.name,
                port.name,
                f"ECN on queue {queue}",
                "off",
                f"ECN is off on queue {queue}, which RoCE DSCP {dscp} rides: congestion will only be "
                "handled by PFC pauses",
            )


@rule("ecn.thresholds", Severity.ERROR, kinds=["switch"], fields=("ecn", "dscp_map", "tc_queue"))
def check_ecn_thresholds(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """ECN thresholds and mark probability on the RoCE DSCP's queue are within the policy band
    (tolerance covers KB vs KiB)."""
    e = ctx.policy.ecn
    verdicts: dict[EcnSetting, bool] = {}
    ports = fabric_ports(state, device, ctx)
    for port, queue in zip(ports, port_queues(state, ports, ctx.policy.roce), strict=True):
        got = port.ecn.get(queue) if queue is not None else None
        if got is None:
            continue
        ok = verdicts.get(got)
        if ok is None:
            ok = verdicts[got] = ecn_within_policy(got, ctx.policy)
        if not ok:
            yield Issue(
                state.name,
                port.name,
                f"min {e.min_kbytes} KB, max {e.max_kbytes} KB (+-{e.tolerance_percent}%), {e.probability}%",
                f"min {kilobytes(got.min_bytes)}, max {kilobytes(got.max_bytes)}, {got.probability}%",
                "ECN thresholds outside the policy band: marking too late lets PFC fire first",
            )


def ecn_within_policy(setting: EcnSetting, policy: Policy) -> bool:
    """Thresholds within the policy's tolerance (vendors count KB and KiB differently) and the same
    mark probability."""
    e = policy.ecn
    tol = e.tolerance_percent / 100
    pairs = ((setting.min_bytes, e.min_kbytes * KB), (setting.max_bytes, e.max_kbytes * KB))
    return all(abs(got - want) <= want * tol for got, want in pairs) and setting.probability == e.probability


@rule("cnp.strict_queue", Severity.ERROR, kinds=["switch"], fields=("strict_queues", "dscp_map", "tc_queue"))
def check_cnp_strict(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The queue each CNP DSCP rides on this device (followed through its DSCP -> class -> queue
    chain) is strict priority, so congestion notifications are never queued behind data."""
    if not ctx.policy.cnp_strict:
        return
    ports = fabric_ports(state, device, ctx)
    for cnp in ctx.policy.cnp_classes:
        dscp = cnp.dscp
        for port, queue in zip(ports, port_queues(state, ports, cnp), strict=True):
            if queue is not None and queue not in port.strict_queues:
                yield from compare(
                    state.name, port.name, f"queue {queue} (CNP DSCP {dscp}) strict", True, False
                )


@rule("pfc.watchdog", Severity.ERROR, kinds=["switch"], fields=("watchdog",))
def check_watchdog(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The PFC watchdog is on for lossless ports with the policy's action and timers (breaks pause
    storms): on every fabric port, and on every other port in use that pauses a priority (its link
    up, or LLDP hearing a neighbour there: a storage or frontend port is stormed as well; a spare
    port left down pauses nothing); not required in lossy mode."""
    wd = ctx.policy.pfc_watchdog
    if not ctx.policy.watchdog_required:
        return
    ports = fabric_ports(state, device, ctx)
    planned = {port.name for port in ports}
    heard = {n.local_interface for n in state.lldp}
    pausing = [
        port
        for name, port in state.interfaces.items()
        if name not in planned and port.pauses and (port.oper_up or name in heard)
    ]
    yield from compare_ports(state.name, [*ports, *pausing], "PFC watchdog", True, attrgetter("watchdog"))
    g = state.watchdog
    expected = (wd.action, wd.detection_ms, wd.restoration_ms, wd.polling_ms)
    actual = (g.action, g.detection_ms, g.restoration_ms, g.polling_ms) if g and g.enabled else None
    # A timer the device did not show is unknown, not a difference: only what was read is judged.
    if actual is None or any(a is not None and a != e for a, e in zip(actual, expected, strict=True)):
        if actual is not None:
            found = "action {}, detect {} ms, restore {} ms, poll {} ms".format(*(show(v) for v in actual))
        else:
            # Off only where the device said so; a state that holds no watchdog is unknown.
            found = "not configured" if g is not None else "unknown"
        yield Issue(
            state.name,
            None,
            "action {}, detect {} ms, restore {} ms, poll {} ms".format(*expected),
            found,
            "PFC watchdog action or timers differ from the policy",
            fields=g.differing(Watchdog(True, *expected)) if g is not None else (),
        )


@rule("mtu.switch", Severity.ERROR, kinds=["switch"], fields=("mtu",))
def check_switch_mtu(state: DeviceState, device: Device, ctx: CheckContext) -> list[Issue]:
    """Every fabric switch port has the policy MTU, so jumbo RoCE frames are never dropped mid-path."""
    ports = fabric_ports(state, device, ctx)
    return compare_ports(state.name, ports, "MTU", ctx.policy.mtu.switch, attrgetter("mtu"))


@rule("mtu.host", Severity.ERROR, kinds=["host"], fields=("mtu",))
def check_host_mtu(state: DeviceState, device: Device, ctx: CheckContext) -> list[Issue]:
    """Every NIC has the policy host MTU (at most the switch MTU)."""
    ports = fabric_ports(state, device, ctx)
    return compare_ports(state.name, ports, "MTU", ctx.policy.mtu.host, attrgetter("mtu"))


_ROCE_FIELDS = ("roce_mode", "roce_tos", "ecn_np_priorities", "ecn_rp_priorities", "cnp_dscp", "cnp_priority")
_roce_knobs = attrgetter(*_ROCE_FIELDS)


@rule("host.roce", Severity.ERROR, kinds=["host"], fields=_ROCE_FIELDS)
def check_host_roce(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """NIC RoCE knobs: RoCE v2, TOS carrying the RoCE DSCP with ECT, ECN NP/RP on the RoCE priority,
    CNPs marked with the CNP DSCP and priority."""
    p = ctx.policy
    roce = frozenset({p.roce.priority})
    cnp = p.cnp_for(device.platform)
    # A NIC with every knob as the policy says (and so its TOS on the RoCE DSCP) is one comparison.
    want = (p.host.roce_mode, p.roce_tos, roce, roce, cnp.dscp, cnp.priority)
    for port in fabric_ports(state, device, ctx):
        if _roce_knobs(port) == want:
            continue
        n = port.name
        yield from compare(state.name, n, "default RoCE mode", p.host.roce_mode, port.roce_mode)
        yield from compare(state.name, n, "default RoCE TOS", p.roce_tos, port.roce_tos)
        if port.roce_tos is not None and port.roce_tos >> 2 != p.roce.dscp:
            yield Issue(
                state.name,
                n,
                f"DSCP {p.roce.dscp}",
                f"DSCP {port.roce_tos >> 2}",
                f"RoCE TOS {port.roce_tos} marks DSCP {port.roce_tos >> 2}, not the RoCE DSCP {p.roce.dscp}",
            )
        yield from compare(state.name, n, "ECN notification point priorities", roce, port.ecn_np_priorities)
        yield from compare(state.name, n, "ECN reaction point priorities", roce, port.ecn_rp_priorities)
        yield from compare(state.name, n, "CNP DSCP", cnp.dscp, port.cnp_dscp)
        yield from compare(state.name, n, "CNP 802.1p priority", cnp.priority, port.cnp_priority)


@rule("host.dcqcn", Severity.WARNING, kinds=["host"], fields=("dcqcn",))
def check_dcqcn(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """DCQCN parameters on every NIC match the policy, so all senders react to congestion alike
    (those the NIC has a counterpart for: a Thor NIC has the CNP gap only)."""
    knobs = get_platform(device.platform).dcqcn_knobs
    want = sorted((k, v) for k, v in host_dcqcn(ctx.policy).items() if knobs is None or k in knobs)
    agreed = dict(want).items()
    for port in fabric_ports(state, device, ctx):
        got = port.dcqcn
        if agreed <= got.items():
            continue
        for key, value in want:
            if got.get(key) != value:  # the message is only written for a difference
                yield from compare(state.name, port.name, f"DCQCN {key}", value, got.get(key))


def version_key(version: str) -> tuple[int, ...]:
    """'4.31.2F' -> (4, 31, 2); '28.39.1002' -> (28, 39, 1002)."""
    return tuple(int(x) for x in re.findall(r"\d+", version.split("-")[0]))


def version_allowed(version: str, rule_: VersionRule) -> bool:
    """Allowed when listed, or when at least the minimum; with neither set, anything goes."""
    if version in rule_.allowed:
        return True
    if rule_.minimum is not None:
        return version_key(version) >= version_key(rule_.minimum)
    return not rule_.allowed


def _version_expectation(rule_: VersionRule) -> str:
    parts = []
    if rule_.allowed:
        parts.append("one of " + ", ".join(rule_.allowed))
    if rule_.minimum:
        parts.append(f">= {rule_.minimum}")
    return " or ".join(parts) or "any"


@rule("firmware.allowed", Severity.ERROR, facet="version")
def check_firmware(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """NOS version (switches) and NIC firmware (hosts) are on the policy's allowed list or minimum."""
    rule_ = ctx.policy.firmware.get(device.platform)
    if rule_ is None:
        return
    if device.is_switch:
        versions = [(None, state.os_version)]
    else:
        versions = [(port.name, port.firmware) for port in fabric_ports(state, device, ctx)]
    label = "NOS version" if device.is_switch else "NIC firmware"
    for iface, version in versions:
        if version is None or not version_allowed(version, rule_):
            yield Issue(
                state.name,
                iface,
                _version_expectation(rule_),
                show(version),
                f"{label} {show(version)} is not allowed by the policy ({_version_expectation(rule_)})",
            )


@rule("parse.incomplete", Severity.ERROR, facet=None)
def check_incomplete(state: DeviceState, device: Device, ctx: CheckContext) -> tuple[Issue, ...]:
    """Settings the source did not show (a table, section, referenced profile or port it lacks) are
    named once per device and not judged: missing evidence is unknown, never "off"."""
    if "qos" not in state.facets and not state.unread:
        return ()
    by_port: dict[str, list[str]] = {}
    for port in fabric_port_names(device, ctx):
        found = state.interfaces.get(port)
        what = ("not in the source",) if found is None else tuple(sorted(found.unread))
        if what:
            by_port.setdefault(", ".join(what), []).append(port)
    parts = [", ".join(sorted(state.unread))] if state.unread else []
    parts += [f"{port_ranges(ports)}: {what}" for what, ports in by_port.items()]
    if not parts:
        return ()
    shown = "; ".join(parts)
    return (
        Issue(
            state.name,
            None,
            "every checked setting shown by the source",
            f"not shown: {shown}",
            f"not judged, as the source does not show them: {shown}",
        ),
    )


@rule("parse.unknown_output", Severity.ERROR, facet=None)
def check_unparsed(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Output that could not be read is reported, never taken as a pass."""
    for command, reason in sorted(state.unparsed.items()):
        yield Issue(
            state.name,
            None,
            f"readable output of '{command}'",
            reason,
            f"could not read '{command}': {reason}; its settings are unknown",
        )


@rule("host.driver", Severity.ERROR, facet="version", kinds=["host"], fields=("driver",))
def check_host_driver(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Every NIC runs a driver of the host's platform (mlx5_core for ConnectX): a NIC of another make
    in a rail (an Intel i40e or ice) takes none of the platform's RoCE settings."""
    drivers = get_platform(device.platform).nic_drivers
    if not drivers:
        return
    expected = " or ".join(sorted(drivers))
    for port in fabric_ports(state, device, ctx):
        if port.driver not in drivers:
            yield Issue(
                state.name,
                port.name,
                expected,
                show(port.driver),
                f"NIC driver {show(port.driver)} is not the {device.platform} platform's ({expected}): "
                "its RoCE settings are not applied",
            )


@rule("pfc.headroom", Severity.ERROR, kinds=["switch"], fields=("pg_buffers",))
def check_headroom(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The headroom of the priority group that buffers the RoCE class holds what still arrives after a
    lossless port pauses: the frame in flight, the cable round trip, the peer's reaction and its frame,
    for the planned speed and cable length (roce-reference §9). Checked where the platform exposes its
    buffers."""
    p = ctx.policy
    if not p.lossless:
        return
    for local, link, _ in ctx.fabric.links_of(device.name):
        port = state.interfaces.get(local.interface)
        if port is None or not port.pg_buffers:
            continue
        chain = state.chain(p.roce.dscp, local.interface)
        if chain is None:
            continue
        mtu = port.mtu or p.mtu.switch
        need = headroom(link.speed_gbps, link.cable_m, mtu).bytes
        buffer = port.pg_buffers.get(chain.priority_group)
        have = None if buffer is None else buffer.xoff if buffer.xoff is not None else buffer.size
        if have is None or have < need:
            plan = f"{link.speed_gbps} Gb/s over {link.cable_m:g} m, MTU {mtu}"
            yield Issue(
                state.name,
                port.name,
                f">= {need:,} B headroom ({plan})",
                "no buffer" if have is None else f"{have:,} B",
                f"PFC headroom of priority group {chain.priority_group} is "
                + ("not configured" if have is None else f"{have:,} B")
                + f", short of the {need:,} B the plan needs ({plan}): pauses come too late and RoCE drops",
            )


@rule("pfc.cable_length", Severity.WARNING, fields=("cable_m",))
def check_cable_length(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Ports and NICs that size their PFC headroom from a cable length are set to the planned cable's
    length; one left at the platform's default while the plan says otherwise is named as such."""
    if not ctx.policy.lossless:
        return
    default = get_platform(device.platform).default_cable_m
    for local, link, _ in ctx.fabric.links_of(device.name):
        port = state.interfaces.get(local.interface)
        if port is None or port.cable_m is None or port.cable_m == round(link.cable_m):
            continue
        at_default = " (the platform default)" if port.cable_m == default else ""
        yield Issue(
            state.name,
            port.name,
            f"{round(link.cable_m)} m (the planned cable)",
            f"{port.cable_m} m{at_default}",
            f"cable length {port.cable_m} m{at_default} differs from the planned {link.cable_m:g} m: "
            "PFC headroom is sized for the wrong cable",
        )


@rule("config.not_operational", Severity.ERROR, facet=None, fields=("not_operational",))
def check_not_operational(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """What the device's configuration applies is what its hardware runs: a setting it shows as applied
    but not operational (Cumulus `nv show qos roce`'s two columns, a port's running MTU, a SONiC
    watchdog entry pfcwd does not run, a Thor value written but not applied) is reported with both
    values, whatever the policy says about it."""
    ports = {port.name for port in fabric_ports(state, device, ctx)}
    device_wide = []
    for key, (applied, running) in sorted(state.not_operational.items()):
        port, _, setting = key.rpartition(".")
        if port in ports:
            yield Issue(
                state.name,
                port,
                f"{setting} {applied or 'none'}",
                f"{setting} {running or 'none'}",
                f"{setting} applied {applied or 'none'}, but the port runs {running or 'none'}",
            )
        elif not port:
            device_wide.append((key, applied or "none", running or "none"))
    if device_wide:
        yield Issue(
            state.name,
            None,
            "; ".join(f"{k} {a}" for k, a, _ in device_wide),
            "; ".join(f"{k} {r}" for k, _, r in device_wide),
            "the hardware does not run what is applied: "
            + "; ".join(f"{k} applied {a}, runs {r}" for k, a, r in device_wide),
        )
