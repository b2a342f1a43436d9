"""Fabric-wide rules: consistency within a rail, cabling against the rail plan, firmware skew."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from netcfg.checks.base import CheckContext, Issue, Severity, rule, show
from netcfg.intent import device_intent
from netcfg.model import DeviceState, EcnSetting, Role, Watchdog


def qos_fingerprint(state: DeviceState) -> dict[str, str]:
    """The QoS settings of a switch that must be identical across its rail (MTU is checked apart)."""
    ports = list(state.interfaces.values())

    def common(attr: str) -> str:
        values = {_text(getattr(p, attr)) for p in ports}
        return " / ".join(sorted(values)) if values else "none"

    return {
        "dscp map": ", ".join(f"{d}->{tc}" for d, tc in sorted(state.dscp_map.items())) or "none",
        "trust": common("trust"),
        "PFC": common("pfc_enabled"),
        "PFC no-drop": common("no_drop_priorities"),
        "ECN": common("ecn"),
        "strict queues": common("strict_queues"),
        "PFC watchdog": _text(state.watchdog),
    }


def _text(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"queue {k}: {_text(v)}" for k, v in sorted(value.items())) or "none"
    if isinstance(value, EcnSetting):
        return f"{value.min_bytes}-{value.max_bytes} B {value.probability}%"
    if isinstance(value, Watchdog):
        return (
            "off"
            if not value.enabled
            else (f"{value.action} {value.detection_ms}/{value.restoration_ms}/{value.polling_ms} ms")
        )
    return show(value)


@rule("rail.qos_consistency", Severity.ERROR, scope="fabric", kinds=["switch"])
def check_rail_consistency(ctx: CheckContext) -> Iterator[Issue]:
    """All leaves of a rail have the same QoS fingerprint; a leaf that differs is named with the settings
    that differ from the rest of its rail."""
    rails: dict[int, list[DeviceState]] = defaultdict(list)
    for device in ctx.fabric.by_role(Role.LEAF):
        state = ctx.states.get(device.name)
        if device.rail is not None and state is not None and "qos" in state.facets:
            rails[device.rail].append(state)
    for rail, states in sorted(rails.items()):
        if len(states) < 2:
            continue
        prints = {s.name: qos_fingerprint(s) for s in states}
        counts = Counter(repr(sorted(p.items())) for p in prints.values())
        reference = _reference(ctx, states, prints, counts)
        for name, fp in prints.items():
            diff = {k: v for k, v in fp.items() if v != reference[k]}
            if diff:
                yield Issue(
                    name,
                    None,
                    "; ".join(f"{k}: {reference[k]}" for k in diff),
                    "; ".join(f"{k}: {v}" for k, v in diff.items()),
                    f"leaf differs from the rest of rail {rail} in: {', '.join(diff)}",
                )


def _reference(ctx: CheckContext, states: list[DeviceState], prints: dict, counts: Counter) -> dict[str, str]:
    """The rail's majority fingerprint; on a tie, the one the policy intends."""
    ranked = counts.most_common()
    if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
        return next(p for p in prints.values() if repr(sorted(p.items())) == ranked[0][0])
    device = ctx.fabric.devices[states[0].name]
    return qos_fingerprint(device_intent(device, ctx.fabric, ctx.policy))


@rule("rail.cabling", Severity.ERROR, scope="fabric", facet="lldp")
def check_rail_cabling(ctx: CheckContext) -> Iterator[Issue]:
    """LLDP shows every cable where the rail plan puts it: NIC i on the leaf of rail i at the planned
    port, every leaf seeing its planned servers and spines. One finding per cable, from the lower end
    when it disagrees, else from the upper end."""
    for link in ctx.fabric.links:
        for end, peer in ((link.a, link.b), (link.b, link.a)):
            state = ctx.states.get(end.device)
            if state is None or "lldp" not in state.facets or state.collection_error:
                continue
            seen = [n for n in state.lldp if n.local_interface == end.interface]
            if any(n.system_name == peer.device and n.port == peer.interface for n in seen):
                continue
            planned = f"{peer.device}:{peer.interface}"
            seen_text = ", ".join(f"{n.system_name}:{n.port}" for n in seen) or "no neighbour"
            yield Issue(
                end.device,
                end.interface,
                planned,
                seen_text,
                f"cabling differs from the rail plan: {end} should reach {planned}, LLDP sees {seen_text}",
            )
            break


@rule("firmware.rail_skew", Severity.WARNING, scope="fabric", facet="version")
def check_rail_skew(ctx: CheckContext) -> Iterator[Issue]:
    """All NICs of a rail run one firmware and all leaves of a rail one NOS version; the odd ones out
    are named against the rail's majority."""
    groups: dict[tuple[str, int], dict[tuple[str, str | None], str]] = defaultdict(dict)
    for device in ctx.fabric.devices.values():
        state = ctx.states.get(device.name)
        if state is None or "version" not in state.facets or state.collection_error:
            continue
        if device.role == Role.LEAF and device.rail is not None and state.os_version:
            groups[("leaf NOS", device.rail)][(device.name, None)] = state.os_version
        for nic in device.nics:
            port = state.interfaces.get(nic.netdev)
            if port is not None and port.firmware:
                groups[("NIC firmware", nic.rail)][(device.name, nic.netdev)] = port.firmware
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
