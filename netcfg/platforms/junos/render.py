"""DeviceState -> Junos `set` lines (the display-set form `load set` takes), and `junos_form`: the
state as a Junos config can hold it.

The renderer writes the `junos_form` of what it is given, so parse(render(state)) ==
junos_form(state) for every state, and == state where Junos can express all of it (intent of a
policy Junos can express). What `junos_form` changes is exactly what `facts` says Junos expresses
differently; `junos.inexpressible` reports it where a policy asks for it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from types import SimpleNamespace

from netcfg.model import DeviceState, EcnSetting, InterfaceState, Watchdog, switch_rewrite
from netcfg.platforms.junos import balancing, facts
from netcfg.templating import template

DSCP_CLASSIFIER = "ROCE-DSCP"
PCP_CLASSIFIER = "ROCE-PCP"
SCHEDULER_MAP = "ROCE"
PRIORITIES = range(8)
# Unicast output queues of QFX switches.
QUEUES = range(8)
_UNKNOWN_ECN = EcnSetting(-1, -1, -1)


# --- what Junos can hold ----------------------------------------------------------------------


def junos_ecn(setting: EcnSetting) -> EcnSetting:
    """ECN as a drop profile of whole fill levels: low below high, the last at most 99 %."""
    if min(setting.min_bytes, setting.max_bytes, setting.probability) < 0:
        return _UNKNOWN_ECN
    low, high = facts.fill_percent(setting.min_bytes), facts.fill_percent(setting.max_bytes)
    if low >= high:
        low, high = (high - 1, high) if high > 0 else (0, 1)
    return EcnSetting(facts.fill_bytes(low), facts.fill_bytes(high), setting.probability)


def junos_watchdog(watchdog: Watchdog | None) -> Watchdog:
    """The watchdog a profile's `pfc-watchdog` runs: drop, detection a whole number of polls."""
    wd = watchdog if watchdog is not None and watchdog.enabled else Watchdog(enabled=True)
    poll = wd.polling_ms or facts.DEFAULT_POLL_MS
    polls = (
        max(1, (wd.detection_ms + poll // 2) // poll) if wd.detection_ms else facts.DEFAULT_DETECTION_POLLS
    )
    return Watchdog(
        enabled=True,
        action=facts.WATCHDOG_ACTION,
        detection_ms=polls * poll,
        restoration_ms=wd.restoration_ms or facts.DEFAULT_RECOVERY_MS,
        polling_ms=poll,
    )


def _trust(trust: str | None) -> str | None:
    return {"dscp": "dscp", "pcp": "pcp", "cos": "pcp"}.get(trust or "")


def junos_form(state: DeviceState) -> DeviceState:
    """The state as a Junos config holds it (see `facts` for each difference)."""
    ports: dict[str, InterfaceState] = {}
    mode = balancing.device_mode(state)
    for name, port in state.interfaces.items():
        trust = _trust(port.trust)
        no_drop = frozenset(p for p in port.no_drop_priorities or () if p in PRIORITIES)
        watchdog = bool(port.watchdog)
        has_cnp = bool(no_drop) or watchdog or port.cable_m is not None
        ports[name] = InterfaceState(
            name=name,
            description=port.description,
            mtu=port.mtu,
            # Only a switched unit is written: rendered intent names no unit families.
            switched=True if port.switched else None,
            trust=trust,
            pfc_enabled=bool(no_drop),
            no_drop_priorities=no_drop,
            ecn={q: junos_ecn(e) for q, e in port.ecn.items() if q in QUEUES},
            strict_queues=frozenset(q for q in port.strict_queues if q in QUEUES),
            watchdog=watchdog,
            dscp_map=dict(port.dscp_map) if trust == "dscp" and port.dscp_map is not None else None,
            # DLB is one setting for every ECMP group of the switch.
            lb_mode=mode,
            dscp_rewrite=None if port.dscp_rewrite is None else dict(port.dscp_rewrite),
            cable_m=(port.cable_m if port.cable_m is not None else facts.DEFAULT_CABLE_M)
            if has_cnp
            else None,
        )
    device_map = _device_map(state, ports)
    for port in ports.values():
        if port.dscp_map == device_map:
            port.dscp_map = None
    tc_queue = {tc: q for tc, q in state.tc_queue.items() if tc in PRIORITIES and q in QUEUES and tc != q}
    classes = class_queues(device_map, ports, tc_queue)
    for port in ports.values():
        # Schedulers hang on forwarding classes: a queue no class can use takes none.
        port.ecn = {q: e for q, e in port.ecn.items() if q in classes.values()}
        port.strict_queues = frozenset(q for q in port.strict_queues if q in classes.values())
    ports = {n: p for n, p in ports.items() if _has_statement(p)}
    watchdog = (
        junos_watchdog(state.watchdog) if any(p.watchdog for p in ports.values()) else Watchdog(enabled=False)
    )
    return dataclasses.replace(
        state,
        dscp_map=device_map,
        tc_queue=tc_queue,
        tc_pg={},
        tc_pfc={},
        qos_names={},
        not_operational={},
        interfaces=ports,
        watchdog=watchdog,
        lldp=list(state.lldp),
        unparsed=dict(state.unparsed),
        locations={},
    )


def _device_map(state: DeviceState, ports: dict[str, InterfaceState]) -> dict[int, int]:
    """The DSCP map bound to the most DSCP-trusting ports (ties: the device's own, then the first
    port's), as a reader of the config will take it; empty when no port binds one."""
    maps = [
        p.dscp_map if p.dscp_map is not None else state.dscp_map for p in ports.values() if p.trust == "dscp"
    ]
    if not maps:
        return {}
    keys = [tuple(sorted(m.items())) for m in maps]
    counts = Counter(keys)
    best = max(counts.values())
    own = tuple(sorted(state.dscp_map.items()))
    chosen = own if counts.get(own) == best else next(k for k in keys if counts[k] == best)
    return dict(chosen)


def _has_statement(port: InterfaceState) -> bool:
    return any(
        (
            port.description,
            port.mtu is not None,
            port.trust,
            port.cable_m is not None,
            port.ecn,
            port.strict_queues,
            port.dscp_rewrite,
        )
    )


def class_queues(
    device_map: dict[int, int], ports: dict[str, InterfaceState], tc_queue: dict[int, int]
) -> dict[int, int]:
    """Traffic class -> queue of every forwarding class the config needs: the classes DSCPs land
    in, the lossless ones (paused, or on another queue than their priority), and a class for each
    queue that has a scheduler but no class yet, where its number is free."""
    lossless = _lossless(ports, tc_queue)
    tcs = set(device_map.values()) | lossless
    for port in ports.values():
        tcs |= set((port.dscp_map or {}).values())
    classes = {tc: tc_queue.get(tc, tc) for tc in tcs if tc in PRIORITIES}
    wanted = {q for p in ports.values() for q in (*p.ecn, *p.strict_queues)}
    for queue in sorted(wanted - set(classes.values())):
        if queue not in classes:
            classes[queue] = queue
    return classes


def _lossless(ports: dict[str, InterfaceState], tc_queue: dict[int, int]) -> set[int]:
    return {p for port in ports.values() for p in port.no_drop_priorities or ()} | set(tc_queue)


# --- set lines ----------------------------------------------------------------------------------


def render_config(state: DeviceState) -> str:
    s = junos_form(state)
    ports = s.interfaces
    classes = class_queues(s.dscp_map, ports, s.tc_queue)
    lossless = _lossless(ports, s.tc_queue) & set(classes)
    class_names = _class_names(classes, lossless, ports)
    maps = _named_maps(s.dscp_map, ports)
    profiles, port_profile = _cnps(s, classes)
    drop_profiles, schedulers, scheduler_maps, port_scheduler_map = _schedulers(ports, classes, class_names)
    ieee_profiles = {p.name for p in profiles if any(kind == "ieee-802.1" for kind, _ in p.inputs)}
    interfaces = []
    for name, port in ports.items():
        classifier = None
        if port.trust == "dscp":
            classifier = ("dscp", maps[_key(port.dscp_map if port.dscp_map is not None else s.dscp_map)])
        elif port.trust == "pcp":
            classifier = ("ieee-802.1", PCP_CLASSIFIER)
        interfaces.append(
            SimpleNamespace(
                name=name,
                description=_word(port.description) if port.description else None,
                mtu=port.mtu,
                switched=port.switched,
                # 802.1p PFC pauses only tagged frames, and a switched unit without a mode is an
                # access port (untagged): one paused by 802.1p priorities is written as a trunk.
                trunk=bool(port.switched) and port_profile.get(name) in ieee_profiles,
                cnp=port_profile.get(name),
                scheduler_map=port_scheduler_map.get(name),
                classifier=classifier,
                rewrite=REWRITE_RULE if port.dscp_rewrite else None,
            )
        )
    pcp = any(p.trust == "pcp" for p in ports.values())
    return template("junos/config.j2").render(
        name=s.name,
        interfaces=interfaces,
        classes=[
            SimpleNamespace(name=class_names[tc], queue=q, priority=tc if tc in lossless else None)
            for tc, q in sorted(classes.items())
        ],
        dscp_classifiers=[
            SimpleNamespace(
                name=name,
                points=[(class_names[tc], facts.dscp_bits(d)) for d, tc in sorted(dict(key).items())],
            )
            for key, name in maps.items()
            if any(_uses(p, s.dscp_map, key) for p in ports.values())
        ],
        pcp_classifier=[(class_names[tc], facts.ieee_bits(tc)) for tc in sorted(classes)] if pcp else [],
        pcp_name=PCP_CLASSIFIER,
        drop_profiles=drop_profiles,
        schedulers=schedulers,
        scheduler_maps=scheduler_maps,
        profiles=profiles,
        load_balancing=balancing.render_lines(s),
        rewrites=_rewrite_points(ports, class_names),
        rewrite_rule=REWRITE_RULE,
    )


REWRITE_RULE = "REMARK"


def _rewrite_points(ports: dict[str, InterfaceState], class_names: dict[int, str]) -> list[tuple[str, str]]:
    """The lab's one DSCP rewrite rule: (forwarding class, code point) of the first port that
    re-marks, for the classes the config has."""
    rewrite = switch_rewrite(ports.values()) or {}
    return [(class_names[tc], facts.dscp_bits(d)) for tc, d in rewrite.items() if tc in class_names]


def _word(text: str) -> str:
    """A value as one Junos word: quoted when it holds anything but plain characters."""
    if text and all(c.isalnum() or c in "._:/-" for c in text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(mapping: dict[int, int]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(mapping.items()))


def _uses(port: InterfaceState, device_map: dict[int, int], key: tuple) -> bool:
    return port.trust == "dscp" and _key(port.dscp_map if port.dscp_map is not None else device_map) == key


def _named_maps(device_map: dict[int, int], ports: dict[str, InterfaceState]) -> dict[tuple, str]:
    """One classifier per distinct map; the device-wide one sorts first, as readers break ties."""
    names = {_key(device_map): DSCP_CLASSIFIER}
    for port in ports.values():
        if port.dscp_map is not None and _key(port.dscp_map) not in names:
            names[_key(port.dscp_map)] = f"{DSCP_CLASSIFIER}-P{len(names):03d}"
    return names


def _class_names(
    classes: dict[int, int], lossless: set[int], ports: dict[str, InterfaceState]
) -> dict[int, str]:
    strict = {q for p in ports.values() for q in p.strict_queues}
    lossy_strict = [tc for tc in classes if tc not in lossless and classes[tc] in strict]
    names = {}
    for tc in classes:
        if tc in lossless:
            names[tc] = "NO-LOSS" if len(lossless) == 1 else f"NO-LOSS-{tc}"
        else:
            names[tc] = "CNP" if lossy_strict == [tc] else f"ROCE-TC{tc}"
    return names


def _cnps(s: DeviceState, classes: dict[int, int]) -> tuple[list[SimpleNamespace], dict[str, str]]:
    """Congestion-notification profiles, one per distinct port behaviour, and each port's profile."""
    wd = s.watchdog if s.watchdog is not None and s.watchdog.enabled else None
    shapes: dict[tuple, str] = {}
    profiles = []
    port_profile = {}
    for name, port in s.interfaces.items():
        if port.cable_m is None:
            continue
        no_drop = sorted(port.no_drop_priorities or ())
        effective = port.dscp_map if port.dscp_map is not None else s.dscp_map
        by_tc = {tc: sorted(d for d, t in effective.items() if t == tc) for tc in no_drop}
        dscp_based = port.trust == "dscp" and no_drop and all(by_tc.values())
        inputs = (
            tuple(("dscp", facts.dscp_bits(d)) for d in sorted(d for ds in by_tc.values() for d in ds))
            if dscp_based
            else tuple(("ieee-802.1", facts.ieee_bits(p)) for p in no_drop)
        )
        outputs = tuple((facts.ieee_bits(p), classes.get(p, p)) for p in no_drop)
        shape = (inputs, outputs, port.cable_m, bool(port.watchdog))
        if shape not in shapes:
            base = f"ROCE-{port.cable_m}M"
            taken = sum(1 for n in shapes.values() if n == base or n.startswith(f"{base}-"))
            shapes[shape] = base if not taken else f"{base}-{taken + 1}"
            profiles.append(
                SimpleNamespace(
                    name=shapes[shape],
                    inputs=inputs,
                    outputs=outputs,
                    cable_m=port.cable_m,
                    watchdog=wd if port.watchdog else None,
                    # junos_form makes detection a whole number of polls.
                    polls=wd.detection_ms // wd.polling_ms if port.watchdog and wd else None,
                )
            )
        port_profile[name] = shapes[shape]
    return profiles, port_profile


def _schedulers(
    ports: dict[str, InterfaceState], classes: dict[int, int], class_names: dict[int, str]
) -> tuple[list[SimpleNamespace], list[SimpleNamespace], list[SimpleNamespace], dict[str, str]]:
    """Drop profiles, schedulers and scheduler maps for the ports' ECN and strict queues."""
    drop_profiles: dict[tuple[int, int, int], str] = {}
    schedulers: dict[tuple, SimpleNamespace] = {}
    maps: dict[tuple, str] = {}
    port_map = {}
    shapes = Counter()
    port_shape = {}
    for name, port in ports.items():
        queues = sorted(set(port.ecn) | set(port.strict_queues))
        shape = tuple((q, port.ecn.get(q), q in port.strict_queues) for q in queues)
        if shape:
            shapes[shape] += 1
            port_shape[name] = shape
    ordered = sorted(shapes, key=lambda sh: -shapes[sh])
    for index, shape in enumerate(ordered):
        maps[shape] = SCHEDULER_MAP if index == 0 else f"{SCHEDULER_MAP}-{index + 1}"
    entries = {}
    for shape in ordered:
        entries[maps[shape]] = []
        for queue, ecn, strict in shape:
            drop = None
            if ecn is not None and ecn != _UNKNOWN_ECN:
                points = (
                    facts.fill_percent(ecn.min_bytes),
                    facts.fill_percent(ecn.max_bytes),
                    ecn.probability,
                )
                drop = drop_profiles.setdefault(points, "ROCE-ECN-{}-{}-{}".format(*points))
            key = (ecn is not None, drop, strict)
            if key not in schedulers:
                parts = [
                    "ROCE-S",
                    *(["ECN"] if ecn is not None else []),
                    *([drop.removeprefix("ROCE-ECN-")] if drop else []),
                    *(["STRICT"] if strict else []),
                ]
                schedulers[key] = SimpleNamespace(
                    name="-".join(parts), ecn=ecn is not None, drop=drop, strict=strict
                )
            for tc, q in sorted(classes.items()):
                if q == queue:
                    entries[maps[shape]].append((class_names[tc], schedulers[key].name))
    for name, shape in port_shape.items():
        port_map[name] = maps[shape]
    return (
        [SimpleNamespace(name=n, points=p) for p, n in drop_profiles.items()],
        list(schedulers.values()),
        [SimpleNamespace(name=n, entries=e) for n, e in entries.items()],
        port_map,
    )
