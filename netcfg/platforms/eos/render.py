"""EOS config text from a DeviceState (Jinja2 templates in templates/eos/)."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from types import SimpleNamespace

from netcfg.model import DeviceState, EcnSetting, InterfaceState, switch_rewrite
from netcfg.templating import template

PROFILE = "ROCE_LOSSLESS"


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


def _threshold(value: int) -> str:
    for unit, size in (("mbytes", 1_000_000), ("kbytes", 1000)):
        if value % size == 0:
            return f"{value // size} {unit}"
    return f"{value} bytes"


def _qos_lines(port: InterfaceState) -> tuple[str, ...]:
    """Config lines for the QoS of one port, in the order EOS shows them."""
    ecn = tuple(sorted(port.ecn.items()))
    return _qos_lines_for(
        port.trust, port.pfc_enabled, port.no_drop_priorities, port.watchdog, ecn, port.strict_queues
    )


@lru_cache(maxsize=1024)
def _qos_lines_for(
    trust: str | None,
    pfc_enabled: bool | None,
    no_drop: frozenset[int] | None,
    watchdog: bool | None,
    ecn_items: tuple[tuple[int, EcnSetting], ...],
    strict_queues: frozenset[int],
) -> tuple[str, ...]:
    # Fabric ports share a handful of QoS settings: build each set of lines once.
    ecn = dict(ecn_items)
    lines = []
    if trust is not None:
        lines.append("no qos trust" if trust == "none" else f"qos trust {trust}")
    if pfc_enabled is not None:
        lines.append("priority-flow-control on" if pfc_enabled else "no priority-flow-control")
    lines += [f"priority-flow-control priority {p} no-drop" for p in sorted(no_drop or ())]
    if watchdog:
        lines.append("priority-flow-control pause watchdog")
    for queue in sorted(set(ecn) | set(strict_queues)):
        lines += ["!", f"tx-queue {queue}"]
        if queue in strict_queues:
            lines.append("   priority strict")
        if queue in ecn:
            e = ecn[queue]
            lines.append(
                f"   random-detect ecn minimum-threshold {_threshold(e.min_bytes)} "
                f"maximum-threshold {_threshold(e.max_bytes)} max-mark-probability {e.probability}"
            )
    return tuple(lines)


def _by_value(mapping: dict[int, int]) -> dict[int, list[int]]:
    """{26: 3, 27: 3} -> {3: [26, 27]}: EOS writes one map line per target."""
    out: dict[int, list[int]] = {}
    for key, value in sorted(mapping.items()):
        out.setdefault(value, []).append(key)
    return out


def render_config(state: DeviceState) -> str:
    """The EOS config of a switch in this state: one shared `qos profile`, per-port overrides inline."""
    qos = {name: _qos_lines(port) for name, port in state.interfaces.items()}
    common = Counter(q for q in qos.values() if q).most_common(1)
    profile_lines = common[0][0] if common else ()
    interfaces = []
    for name, port in state.interfaces.items():
        shared = bool(profile_lines) and qos[name] == profile_lines
        # Namespaces, not dicts: Jinja resolves `i.name` by attribute first, and a miss is slow.
        interfaces.append(
            SimpleNamespace(
                name=name,
                description=port.description,
                mtu=port.mtu,
                switched=port.switched,
                # EOS runs DCBX only where asked (it is off by default): only a dialect is written.
                dcbx=port.dcbx_mode if port.dcbx_mode in ("ieee", "cee") else None,
                profile=PROFILE if shared else None,
                lines=() if shared else qos[name],
            )
        )
    by_tc = _by_value(state.dscp_map)
    wd = state.watchdog
    watchdog = None
    if wd is not None and wd.enabled and wd.detection_ms and wd.restoration_ms and wd.polling_ms:
        watchdog = {
            "timeout": _seconds(wd.detection_ms),
            "recovery": _seconds(wd.restoration_ms),
            "polling": _seconds(wd.polling_ms),
            "action": wd.action or "drop",
        }
    return template("eos/config.j2").render(
        name=state.name,
        profiles=[SimpleNamespace(name=PROFILE, lines=profile_lines)] if profile_lines else [],
        interfaces=interfaces,
        dscp_maps=[(tc, " ".join(map(str, ds))) for tc, ds in sorted(by_tc.items())],
        tc_queues=[(q, " ".join(map(str, tcs))) for q, tcs in sorted(_by_value(state.tc_queue).items())],
        # EOS rewrites DSCP for the whole switch (`qos rewrite dscp`).
        rewrite=switch_rewrite(state.interfaces.values()),
        watchdog=watchdog,
        routes=[
            " ".join(filter(None, (r.prefix, r.interface, r.next_hop))) for r in state.static_routes or ()
        ],
    )
