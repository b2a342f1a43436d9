"""Fabric-wide rules: consistency within a rail, firmware skew, CNP agreement (cabling: cabling.py)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from netcfg.checks.device import ecn_within_policy
from netcfg.model import Device, DeviceState, EcnSetting, Role, Watchdog, ip_classification
from netcfg.policy import KB
from netcfg.rules import CheckContext, Issue, Severity, fabric_ports, rule, show

# A fingerprint entry the source did not show (a value None the source gave reads "unknown"), and
# the setting each entry reads.
UNSHOWN = "not shown"
_FINGERPRINT_FIELDS = {
    "RoCE DSCP class": "dscp_map",
    "CNP DSCP class": "dscp_map",
    "trust": "trust",
    "PFC": "pfc_enabled",
    "PFC no-drop": "no_drop_priorities",
    "ECN": "ecn",
    "CNP queue strict": "strict_queues",
    "PFC watchdog": "watchdog",
    "PFC watchdog timers": "watchdog",
}


def qos_fingerprint(state: DeviceState, device: Device, ctx: CheckContext) -> dict[str, str]:
    """What the policy needs identical across a rail, read on the leaf's fabric ports of the plan only
    (a management port or a shut spare has no QoS and must not make a correct leaf look different).

    Values the policy judges equal are written equal: ECN thresholds within the policy's tolerance
    show as the policy band, whether the leaf says 150 kbytes or 153,600 bytes.
    """
    p = ctx.policy
    ports = fabric_ports(state, device, ctx)
    # The queues the RoCE and CNP DSCPs ride on this leaf (its own chain), else the policy's.
    roce_queue, cnp_queue = (
        chain.queue if (chain := state.chain(tc.dscp)) is not None else state.queue_of(tc.priority)
        for tc in (p.roce, p.cnp)
    )

    def common(values: Iterable[object]) -> str:
        shown = {show(v) for v in set(values)}
        return " / ".join(sorted(shown)) if shown else "none"

    interfaces = state.interfaces
    # Nearly every leaf shows everything: then no entry is looked at port by port.
    shown = not state.unread and all(
        (found := interfaces.get(port.name)) is not None and not found.unread for port in ports
    )

    def unread(field: str) -> bool:
        return not shown and (
            field in state.unread or any(state.port_unread(port.name, (field,)) for port in ports)
        )

    fp = {
        "RoCE DSCP class": show(state.dscp_priority(p.roce.dscp)),
        "CNP DSCP class": show(state.dscp_priority(p.cnp.dscp)),
        "trust": common(ip_classification(port.trust) for port in ports),
        "PFC": common(port.pfc_enabled for port in ports),
        "PFC no-drop": common(port.no_drop_priorities for port in ports),
        "ECN": common(_ecn_text(e, ctx) for e in {port.ecn.get(roce_queue) for port in ports}),
    }
    if p.cnp_strict:
        fp["CNP queue strict"] = common(cnp_queue in port.strict_queues for port in ports)
    if p.watchdog_required:
        fp["PFC watchdog"] = common(port.watchdog for port in ports) + f", {_watchdog_action(state.watchdog)}"
        fp["PFC watchdog timers"] = _watchdog_timers(state.watchdog)
    # A setting the leaf's source did not show is unknown, whatever an empty value would say.
    for key, field in _FINGERPRINT_FIELDS.items():
        if key in fp and unread(field):
            fp[key] = UNSHOWN
    return fp


# The watchdog lines (`watchdog.<field>` locations) each watchdog entry of the fingerprint covers.
_WATCHDOG_PARTS = {
    "PFC watchdog": {"watchdog.action"},
    "PFC watchdog timers": {"watchdog.detection_ms", "watchdog.restoration_ms", "watchdog.polling_ms"},
}


def _places(diff: dict[str, str], watchdog: Watchdog | None, reference: Watchdog | None) -> tuple[str, ...]:
    """The settings a rail finding is about, the watchdog's differing action or timers first."""
    covered = set().union(*(_WATCHDOG_PARTS.get(k, ()) for k in diff))
    parts = [p for p in watchdog.differing(reference) if p in covered] if watchdog is not None else []
    return tuple(dict.fromkeys((*parts, *(_FINGERPRINT_FIELDS[k] for k in diff))))


def policy_watchdog(ctx: CheckContext) -> Watchdog:
    """The watchdog a leaf that does exactly what the policy says runs."""
    wd = ctx.policy.pfc_watchdog
    return Watchdog(wd.enabled, wd.action, wd.detection_ms, wd.restoration_ms, wd.polling_ms)


def policy_fingerprint(ctx: CheckContext) -> dict[str, str]:
    """The fingerprint of a leaf that does exactly what the policy says."""
    p = ctx.policy
    band = EcnSetting(p.ecn.min_kbytes * KB, p.ecn.max_kbytes * KB, p.ecn.probability)
    watchdog = policy_watchdog(ctx)
    fp = {
        "RoCE DSCP class": show(p.roce.priority),
        "CNP DSCP class": show(p.cnp.priority),
        "trust": show(p.trust),
        "PFC": show(p.lossless),
        "PFC no-drop": show(p.lossless_priorities),
        "ECN": _ecn_text(band, ctx),
    }
    if p.cnp_strict:
        fp["CNP queue strict"] = show(True)
    if p.watchdog_required:
        fp["PFC watchdog"] = f"{show(True)}, {_watchdog_action(watchdog)}"
        fp["PFC watchdog timers"] = _watchdog_timers(watchdog)
    return fp


def _ecn_text(value: EcnSetting | None, ctx: CheckContext) -> str:
    if value is None:
        return "off"
    if ecn_within_policy(value, ctx.policy):
        e = ctx.policy.ecn
        return f"policy band ({e.min_kbytes}-{e.max_kbytes} KB, {e.probability}%)"
    return f"{value.min_bytes}-{value.max_bytes} B {value.probability}%"


def _watchdog_action(value: Watchdog | None) -> str:
    return "off" if value is None or not value.enabled else show(value.action)


def _watchdog_timers(value: Watchdog | None) -> str:
    """Detection/restoration/poll; a timer the leaf did not show (NX-OS leaves them to its defaults
    unless a line sets them) makes the timers unknown, never a difference."""
    if value is None or not value.enabled:
        return "off"
    timers = (value.detection_ms, value.restoration_ms, value.polling_ms)
    return UNSHOWN if None in timers else "/".join(str(t) for t in timers) + " ms"


@rule("rail.qos_consistency", Severity.ERROR, scope="fabric", kinds=["switch"])
def check_rail_consistency(ctx: CheckContext) -> Iterator[Issue]:
    """All leaves of a rail agree on what the policy asks of them (DSCP classes, trust, PFC, ECN on the
    RoCE queue, strict CNP queue, watchdog), read on the fabric ports of the plan. A leaf that differs
    is named with the settings that differ from its rail's majority, or from the policy when there is
    no majority."""
    rails: dict[int, list[tuple[DeviceState, Device]]] = defaultdict(list)
    for device in ctx.fabric.by_role(Role.LEAF):
        state = ctx.states.get(device.name)
        if device.rail is not None and state is not None and "qos" in state.facets:
            rails[device.rail].append((state, device))
    for rail, members in sorted(rails.items()):
        if len(members) < 2:
            continue
        prints = {state.name: qos_fingerprint(state, device, ctx) for state, device in members}
        counts = Counter(tuple(sorted(fp.items())) for fp in prints.values()).most_common()
        majority = len(counts) == 1 or counts[0][1] > counts[1][1]
        reference = dict(counts[0][0]) if majority else policy_fingerprint(ctx)
        against = "the rest of rail" if majority else "the policy, as rail has no majority,"
        # The watchdog the reference runs, to point a leaf's finding at the timer it sets otherwise.
        reference_watchdog = (
            next(s.watchdog for s, _ in members if tuple(sorted(prints[s.name].items())) == counts[0][0])
            if majority
            else policy_watchdog(ctx)
        )
        for name, fp in prints.items():
            # A setting the leaf's source did not show is not judged here (parse.incomplete names it).
            diff = {k: v for k, v in fp.items() if v != reference[k] and UNSHOWN not in (v, reference[k])}
            if diff:
                yield Issue(
                    name,
                    None,
                    "; ".join(f"{k}: {reference[k]}" for k in diff),
                    "; ".join(f"{k}: {v}" for k, v in diff.items()),
                    f"leaf differs from {against} {rail} in: {', '.join(diff)}",
                    fields=_places(diff, ctx.states[name].watchdog, reference_watchdog),
                )


@rule("firmware.rail_skew", Severity.WARNING, scope="fabric", facet="version")
def check_rail_skew(ctx: CheckContext) -> Iterator[Issue]:
    """All NICs of one family on a rail run one firmware, and all leaves of one platform on a rail one
    NOS version; the odd ones out are named against their group's majority. (A rail may mix vendors:
    a ConnectX and a Thor firmware are not versions of one thing.)"""
    groups: dict[tuple[str, int], dict[tuple[str, str | None], str]] = defaultdict(dict)
    for device in ctx.fabric.devices.values():
        state = ctx.states.get(device.name)
        if state is None or "version" not in state.facets or state.collection_error:
            continue
        if device.role == Role.LEAF and device.rail is not None and state.os_version:
            groups[(f"leaf {device.platform} NOS", device.rail)][(device.name, None)] = state.os_version
        for nic in device.nics:
            port = state.interfaces.get(nic.netdev)
            if port is not None and port.firmware:
                what = f"{device.platform} NIC firmware"
                groups[(what, nic.rail)][(device.name, nic.netdev)] = port.firmware
    for (what, rail), versions in sorted(groups.items()):
        counts = Counter(versions.values()).most_common()
        if len(counts) < 2 or counts[0][1] == counts[1][1]:
            if len(counts) >= 2:
                yield Issue(
                    "(fabric)",
                    None,
                    f"one {what} on rail {rail}",
                    ", ".join(sorted(set(versions.values()))),
                    f"rail {rail} runs several {what} versions with no majority",
                )
            continue
        majority = counts[0][0]
        for (name, iface), version in sorted(versions.items()):
            if version != majority:
                yield Issue(
                    name,
                    iface,
                    majority,
                    version,
                    f"{what} {version} differs from the majority of its rail ({majority})",
                )


@rule("host.cnp_agreement", Severity.ERROR, scope="fabric", fields=("cnp_priority",))
def check_cnp_agreement(ctx: CheckContext) -> Iterator[Issue]:
    """The NICs of the fabric agree on the CNP priority: one per fabric, or the one the policy gives
    their NIC family (`cnp_by_platform`). When they disagree (Broadcom's default is 7 where NVIDIA's is
    6), the hosts that differ are named by family and priority: switches queue a CNP by its class, and
    CNPs on a class nobody made strict wait behind data."""
    seen: set[int] = set()
    differ: dict[tuple[str, int], list[str]] = defaultdict(list)
    for device in ctx.fabric.by_role(Role.HOST):
        state = ctx.states.get(device.name)
        if state is None or "qos" not in state.facets or state.collection_error:
            continue
        want = ctx.policy.cnp_for(device.platform).priority
        found = {p.cnp_priority for p in fabric_ports(state, device, ctx) if p.cnp_priority is not None}
        seen |= found
        for priority in sorted(found - {want}):
            differ[(device.platform, priority)].append(device.name)
    if len(seen) < 2:
        return
    for (platform, priority), hosts in sorted(differ.items()):
        want = ctx.policy.cnp_for(platform).priority
        shown = ", ".join(hosts[:10]) + (f" and {len(hosts) - 10} more" if len(hosts) > 10 else "")
        yield Issue(
            "(fabric)",
            None,
            f"CNP priority {want} on every {platform} NIC",
            f"priority {priority} on {len(hosts)} {platform} host(s)",
            f"NICs disagree on the CNP priority: {platform} hosts {shown} mark CNPs with priority "
            f"{priority}, where the fabric expects {want}",
        )
