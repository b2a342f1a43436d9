"""DeviceState into NX-OS config: the three MQC layers, `system qos`, the PFC watchdog, interfaces.

What the state says, NX-OS writes this way:
- The device's DSCP map is one `type qos` policy (ROCE_QOS), a class map per qos-group, bound on
  every port that classifies on DSCP with the device's map; a port with a map of its own, or that
  trusts CoS, binds a policy of its own; a port that trusts nothing binds none.
- The PFC priorities that ports with PFC on pause are the `pause pfc-cos` of the network-qos classes:
  class N pauses priority `tc_pfc[N]` (N itself when tc_pfc leaves it out). Every class carries MTU
  9216 (the platform maximum), so no class caps a port below its interface MTU.
- ECN and strict priority per queue: the queuing policy most ports share is the system's, ports
  that differ bind their own. A strict queue is `priority level L` (level 1 for the highest queue);
  ECN queues and the default queue share the bandwidth that strict queues leave.

What NX-OS cannot express is refused rather than dropped: an egress queue other than the class's
own (qos-group N always leaves on queue N).

The PFC watchdog is `priority-flow-control watch-dog-interval on`, globally and per port: the one
watchdog line Cisco's documentation and Cisco's own RoCE scripts write. Its timers (poll interval,
shutdown and restore multipliers) are left at the switch's defaults: no vendor source confirms how
their lines are spelt, and a line the switch rejects would stop a push halfway.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

from netcfg.model import DeviceState, EcnSetting, InterfaceState, switch_rewrite
from netcfg.platforms.nxos import balancing
from netcfg.templating import template

CLASSIFY = "ROCE_QOS"
NETWORK_QOS = "ROCE_NETWORK_QOS"
QUEUING = "ROCE_QUEUING"
# The largest MTU a network-qos class takes (Nexus 9000): the class never caps a port's MTU.
CLASS_MTU = 9216


@dataclass(frozen=True, slots=True)
class Live:
    """What a running switch adds to its config text: the `show running-config` header lines, its
    version line, and device lines (users, SNMP) that carry secrets to mask."""

    version: str
    bios: str
    changed: str
    now: str
    globals: tuple[str, ...]


def render(state: DeviceState, live: Live | None = None) -> str:
    """The config text; `live` writes it as the switch prints it, leaving out what NX-OS shows only
    when it differs from its default (an MTU of 1500)."""
    if state.tc_queue:
        tc, queue = next(iter(sorted(state.tc_queue.items())))
        raise ValueError(f"{state.name}: NX-OS sends qos-group {tc} to queue {tc}, not {queue}")
    classify = _Classification(state)
    queuing = _Queuing(state)
    nq_classes = _network_qos_classes(state)
    watchdog = _watchdog_lines(state)
    global_watchdog = state.watchdog is not None and state.watchdog.enabled
    interfaces = [
        SimpleNamespace(
            name=name, lines=_port_lines(port, classify, queuing, global_watchdog, live is not None)
        )
        for name, port in state.interfaces.items()
    ]
    policies = [
        *classify.policies,
        SimpleNamespace(
            kind="network-qos", name=NETWORK_QOS, class_type="type network-qos ", classes=nq_classes
        ),
        *queuing.policies,
    ]
    return template("nxos/config.j2").render(
        name=state.name,
        live=live,
        class_maps=classify.class_maps,
        policies=policies,
        network_qos=NETWORK_QOS,
        queuing=QUEUING,
        watchdog=watchdog,
        load_sharing=[line] if (line := balancing.render_line(state.hash_fields, state.hash_seed)) else [],
        interfaces=interfaces,
    )


def _ranges(values: list[int]) -> str:
    """[24, 25, 26, 30] -> '24-26,30'."""
    runs: list[list[int]] = []
    for v in sorted(set(values)):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


class _Classification:
    """The `type qos` policies and which one each port binds."""

    def __init__(self, state: DeviceState) -> None:
        self.class_maps: list[SimpleNamespace] = []
        self.policies: list[SimpleNamespace] = []
        # A port's own map is its own policy even where it equals the device's: the parser tells the
        # device's map from a port's by the policy a port binds.
        self._own: dict[tuple, str] = {}
        # NX-OS re-marks in the classification policy (`set dscp`): the lab's one rewrite, as every
        # port of the switch runs it.
        self._remark = switch_rewrite(state.interfaces.values()) or {}
        self._add(CLASSIFY, "dscp", state.dscp_map)

    def binding(self, port: InterfaceState) -> str | None:
        trust = port.trust
        if trust in (None, "none"):
            return None
        if trust in ("cos", "pcp"):
            # NX-OS knows CoS only: an 802.1p trust by either name is a class map matching CoS.
            return self._own_policy("cos", {g: g for g in range(1, 8)})
        if port.dscp_map is None:
            return CLASSIFY
        return self._own_policy("dscp", port.dscp_map)

    def _own_policy(self, criterion: str, mapping: dict[int, int]) -> str:
        key = (criterion, tuple(sorted(mapping.items())))
        if key not in self._own:
            suffix = "COS" if criterion == "cos" else str(len(self._own) + 2)
            self._own[key] = self._add(f"{CLASSIFY}_{suffix}", criterion, mapping)
        return self._own[key]

    def _add(self, name: str, criterion: str, mapping: dict[int, int]) -> str:
        by_group: dict[int, list[int]] = {}
        for value, group in sorted(mapping.items()):
            by_group.setdefault(group, []).append(value)
        classes = []
        for group, values in sorted(by_group.items()):
            cm = f"{name}_QG{group}"
            self.class_maps.append(
                SimpleNamespace(kind="qos", name=cm, criterion=criterion, values=_ranges(values))
            )
            remark = [f"set dscp {self._remark[group]}"] if group in self._remark else []
            classes.append(SimpleNamespace(name=cm, lines=[f"set qos-group {group}", *remark]))
        self.policies.append(SimpleNamespace(kind="qos", name=name, class_type="", classes=classes))
        return name


def _shape(port: InterfaceState) -> tuple:
    return tuple(sorted(port.ecn.items())), port.strict_queues


class _Queuing:
    """The egress queuing policies: the shape most ports share is the system's."""

    def __init__(self, state: DeviceState) -> None:
        shapes = Counter(_shape(p) for p in state.interfaces.values())
        system = shapes.most_common(1)[0][0] if shapes else ((), frozenset())
        self._names = {system: QUEUING}
        for shape in shapes:
            self._names.setdefault(shape, f"{QUEUING}_{len(self._names) + 1}")
        self.policies = [_queuing_policy(name, *shape) for shape, name in self._names.items()]

    def binding(self, port: InterfaceState) -> str | None:
        name = self._names[_shape(port)]
        return None if name == QUEUING else name


def _queuing_policy(name: str, ecn_items: tuple, strict: frozenset[int]) -> SimpleNamespace:
    ecn = dict(ecn_items)
    weighted = sorted({q for q in ecn if q not in strict} | ({0} - strict))
    share = 100 // len(weighted) if weighted else 0
    levels = {q: level for level, q in enumerate(sorted(strict, reverse=True), 1)}
    classes = []
    for queue in [*range(7, 0, -1), 0]:
        lines = []
        if queue in levels:
            lines.append(f"priority level {levels[queue]}")
        else:
            extra = 100 - share * len(weighted) if queue == 0 else 0
            lines.append(f"bandwidth remaining percent {share + extra if queue in weighted else 0}")
        if queue in ecn:
            lines.append(_wred(ecn[queue]))
        classes.append(SimpleNamespace(name=f"c-out-8q-q{queue or '-default'}", lines=lines))
    return SimpleNamespace(kind="queuing", name=name, class_type="type queuing ", classes=classes)


def _threshold(value: int) -> str:
    for unit, size in (("mbytes", 1_000_000), ("kbytes", 1000)):
        if value % size == 0:
            return f"{value // size} {unit}"
    return f"{value} bytes"


def _wred(e: EcnSetting) -> str:
    return (
        f"random-detect minimum-threshold {_threshold(e.min_bytes)} maximum-threshold "
        f"{_threshold(e.max_bytes)} drop-probability {e.probability} weight 0 ecn"
    )


def paused_priorities(state: DeviceState) -> frozenset[int]:
    """The PFC priorities the system pauses: what ports with PFC on pause (or, where none has PFC
    on, what any port names), plus those tc_pfc gives classes. A port with PFC off pauses nothing,
    whatever the system pauses."""
    ports = list(state.interfaces.values())
    on = [p for p in ports if p.pfc_enabled] or ports
    return frozenset(v for p in on for v in p.no_drop_priorities or ()) | frozenset(state.tc_pfc.values())


def _network_qos_classes(state: DeviceState) -> list[SimpleNamespace]:
    """Class of qos-group N pauses tc_pfc[N]; a paused priority P no tc_pfc entry names is paused
    in the class of qos-group P."""
    pauses = dict(state.tc_pfc)
    for priority in sorted(paused_priorities(state) - set(state.tc_pfc.values())):
        if priority in pauses:
            raise ValueError(
                f"{state.name}: NX-OS pauses priority {priority} in the class of qos-group {priority}, "
                f"which tc_pfc has paused by {pauses[priority]}"
            )
        pauses[priority] = priority
    classes = [
        SimpleNamespace(name=f"c-8q-nq{group}", lines=[f"mtu {CLASS_MTU}", f"pause pfc-cos {cos}"])
        for group, cos in sorted(pauses.items())
        if group
    ]
    default = [f"mtu {CLASS_MTU}"] + ([f"pause pfc-cos {pauses[0]}"] if 0 in pauses else [])
    return [*classes, SimpleNamespace(name="c-8q-nq-default", lines=default)]


def _watchdog_lines(state: DeviceState) -> list[str]:
    wd = state.watchdog
    return ["priority-flow-control watch-dog-interval on"] if wd is not None and wd.enabled else []


def _port_lines(
    port: InterfaceState, classify: _Classification, queuing: _Queuing, global_watchdog: bool, live: bool
) -> list[str]:
    lines = []
    if port.description:
        lines.append(f"description {port.description}")
    if port.mtu is not None and not (live and port.mtu == 1500):
        lines.append(f"mtu {port.mtu}")
    if port.pfc_enabled is not None:
        lines.append(f"priority-flow-control mode {'on' if port.pfc_enabled else 'off'}")
    if port.watchdog or (port.watchdog is False and global_watchdog):
        lines.append(f"priority-flow-control watch-dog-interval {'on' if port.watchdog else 'off'}")
    qos = classify.binding(port)
    if qos is not None:
        lines.append(f"service-policy type qos input {qos}")
    out = queuing.binding(port)
    if out is not None:
        lines.append(f"service-policy type queuing output {out}")
    lines += ["switchport" if port.switched else "no switchport", "no shutdown"]
    return lines
