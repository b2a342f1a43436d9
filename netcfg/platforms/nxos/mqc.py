"""NX-OS MQC objects read from a config tree, and what they do to the vendor-neutral QoS chain.

Three layers, each with its own class names (Cisco Nexus 9000 QoS configuration guide):
- `type qos` (ingress classification): class maps match DSCP or CoS, `set qos-group N` picks the
  traffic class. The first class that matches wins; `class-default` takes the rest.
- `type network-qos` (system-wide): the class of qos-group N (`c-8q-nqN`, `c-8q-nq-default` for 0,
  or a class map matching `qos-group N`) is lossless when it has `pause pfc-cos P` (PFC priority P
  pauses it) or `pause no-drop` (older Nexus 3000/5000 spelling, which pauses the class's own CoS).
- `type queuing` (egress): the class of queue N (`c-out-8q-qN`, `c-out-8q-q-default` for 0, or a
  class map matching `qos-group N`) carries qos-group N; `random-detect ... ecn` marks it,
  `priority [level L]` makes it strict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from netcfg.model import DSCP_VALUES, EcnSetting, PgBuffer
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.nxos.text import Node

PLATFORM = "nxos"
UNIT_BYTES = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
# RFC 2474 / 2597 / 3246 code point names, as NX-OS accepts them in `match dscp`.
DSCP_NAMES = {
    "default": 0,
    **{f"cs{n}": n * 8 for n in range(8)},
    **{f"af{c}{d}": c * 8 + d * 2 for c in range(1, 5) for d in range(1, 4)},
    "ef": 46,
}
_NQ_CLASS = re.compile(r"c-(?:8q-)?nq(\d)")
_QUEUE_CLASS = re.compile(r"c-out-(?:8q-)?q(\d)")
_DEFAULT_CLASSES = frozenset(
    {"class-default", "c-8q-nq-default", "c-nq-default", "c-out-8q-q-default", "c-out-q-default"}
)


@dataclass(frozen=True, slots=True)
class ClassMap:
    kind: str
    name: str
    dscp: tuple[int, ...] = ()
    cos: tuple[int, ...] = ()
    qos_groups: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PolicyClass:
    """One `class` of a policy map and what it sets; `lines` gives each action's line."""

    name: str
    line: int
    qos_group: int | None = None
    # `set dscp N`: packets of the class leave re-marked to DSCP N.
    dscp: int | None = None
    pause_cos: tuple[int, ...] | None = None
    buffer: PgBuffer | None = None
    mtu: int | None = None
    priority_level: int | None = None
    ecn: EcnSetting | None = None
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class PolicyMap:
    kind: str
    name: str
    line: int
    classes: dict[str, PolicyClass] = field(default_factory=dict)


@dataclass(slots=True)
class Mqc:
    """Every class map and policy map of a config, by type and name."""

    class_maps: dict[tuple[str, str], ClassMap] = field(default_factory=dict)
    policy_maps: dict[tuple[str, str], PolicyMap] = field(default_factory=dict)

    def policy(self, kind: str, name: str | None) -> PolicyMap | None:
        return self.policy_maps.get((kind, name)) if name is not None else None


def read_mqc(nodes: list[Node]) -> Mqc:
    mqc = Mqc()
    for node in nodes:
        words = node.words
        if words[0] == "class-map" and len(words) >= 2:
            kind, name = _kind_and_name(words[1:])
            mqc.class_maps[(kind, name)] = _class_map(kind, name, node)
        elif words[0] == "policy-map" and len(words) >= 2:
            kind, name = _kind_and_name(words[1:])
            # A policy map opened twice is one policy: config mode adds to (or redefines) its classes.
            policy = mqc.policy_maps.setdefault((kind, name), PolicyMap(kind, name, node.line))
            for child in node.children:
                if child.words[0] == "class" and len(child.words) >= 2:
                    cls = _policy_class(_kind_and_name(child.words[1:])[1], child)
                    policy.classes[cls.name] = cls
    return mqc


def _kind_and_name(words: list[str]) -> tuple[str, str]:
    """`type queuing match-any NAME` -> ('queuing', 'NAME'); no `type` means type qos."""
    kind = "qos"
    if len(words) >= 3 and words[0] == "type":
        kind, words = words[1], words[2:]
    if len(words) >= 2 and words[0] in ("match-any", "match-all"):
        words = words[1:]
    return kind, words[0] if words else ""


def _class_map(kind: str, name: str, node: Node) -> ClassMap:
    found: dict[str, list[int]] = {"dscp": [], "cos": [], "qos-group": []}
    for match in many(ttp_parse(PLATFORM, "class_map", node.body()).get("matches")):
        criterion = match.get("kind")
        if criterion in found:
            names = DSCP_NAMES if criterion == "dscp" else {}
            found[criterion] += numbers(str(match.get("values", "")), names)
    return ClassMap(kind, name, tuple(found["dscp"]), tuple(found["cos"]), tuple(found["qos-group"]))


def _policy_class(name: str, node: Node) -> PolicyClass:
    data = ttp_parse(PLATFORM, "policy_class", node.body())
    lines = {}
    for child in node.children:
        key = {
            "set": "qos_group",
            "pause": "pause",
            "priority": "priority",
            "random-detect": "ecn",
            "mtu": "mtu",
        }.get(child.words[0])
        if key is not None:
            lines.setdefault(key, child.line)
    pause = one(data.get("pause"))
    pause_cos = None
    if "cos" in pause:
        pause_cos = tuple(numbers(str(pause["cos"])))
    elif pause.get("no_drop"):
        pause_cos = ()  # the class's own CoS: resolved by `paused_classes`
    buffer = None
    if "size" in pause:
        # NX-OS gives the buffer and the fill levels that send XOFF and XON: what is left above the
        # pause threshold is the headroom that absorbs what arrives after the pause.
        buffer = PgBuffer(pause["size"], pause["size"] - pause["xoff_at"], pause["xon_at"])
        if pause_cos is None:
            pause_cos = ()
    priority = one(data.get("priority"))
    wred = one(data.get("wred")).get("options")
    return PolicyClass(
        name=name,
        line=node.line,
        qos_group=one(data.get("qos_group")).get("value"),
        dscp=one(data.get("set_dscp")).get("value"),
        pause_cos=pause_cos,
        buffer=buffer,
        mtu=one(data.get("mtu")).get("value"),
        priority_level=priority.get("level"),
        ecn=ecn_setting(str(wred)) if wred is not None else None,
        lines=lines,
    )


def ecn_setting(options: str) -> EcnSetting | None:
    """`minimum-threshold 150 kbytes maximum-threshold 3000 kbytes drop-probability 7 weight 0 ecn`
    -> thresholds in bytes; None when the line marks nothing (WRED drops without `ecn`). A threshold
    in another unit or left to the platform (`threshold burst-optimized`) is -1: it cannot be compared."""
    words = options.split()
    if "ecn" not in words:
        return None

    def after(keyword: str, count: int) -> list[str]:
        if keyword not in words:
            return []
        at = words.index(keyword) + 1
        return words[at : at + count]

    return EcnSetting(
        _bytes(after("minimum-threshold", 2)),
        _bytes(after("maximum-threshold", 2)),
        _int(after("drop-probability", 1)),
    )


def _bytes(value_unit: list[str]) -> int:
    if len(value_unit) != 2 or value_unit[1] not in UNIT_BYTES:
        return -1
    try:
        return int((Decimal(value_unit[0]) * UNIT_BYTES[value_unit[1]]).to_integral_value())
    except InvalidOperation:
        return -1


def _int(words: list[str]) -> int:
    return int(words[0]) if words and words[0].isdigit() else -1


def numbers(text: str, names: dict[str, int] | None = None) -> list[int]:
    """'24-26, 30' or 'af31 cs6' -> the numbers, in order; anything else in the list is skipped."""
    out: list[int] = []
    for word in re.split(r"[\s,]+", text.strip()):
        low, _, high = word.partition("-")
        if names and word in names:
            out.append(names[word])
        elif low.isdigit() and (not high or high.isdigit()) and int(high or low) - int(low) < 64:
            out += range(int(low), int(high or low) + 1)
    return out


# --- what the layers do to the chain --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Classification:
    """What one `type qos` policy does to the packets of a port."""

    dscp_map: dict[int, int]
    trust: str
    line: int
    # qos-group -> the DSCP its class re-marks packets to (`set dscp`); None where classes of one
    # group re-mark differently.
    remark: dict[int, int | None] = field(default_factory=dict)


def classification(policy: PolicyMap, mqc: Mqc) -> Classification:
    """DSCP -> qos-group of a `type qos` policy, first matching class first; the DSCPs no class
    matches go where `class-default` sends them, if it sets a qos-group.

    Trust is what the classes look at: CoS on a routed fabric is the trust finding, so any class
    matching CoS makes the port trust CoS; DSCP classes alone trust DSCP; neither trusts nothing."""
    mapped: dict[int, int] = {}
    remark: dict[int, int | None] = {}
    taken: set[int] = set()
    criteria: set[str] = set()
    default_group = None
    for cls in policy.classes.values():
        if cls.dscp is not None:
            group = cls.qos_group or 0
            remark[group] = cls.dscp if remark.get(group, cls.dscp) == cls.dscp else None
        if cls.name == "class-default":
            default_group = cls.qos_group
            continue
        cm = mqc.class_maps.get(("qos", cls.name))
        if cm is None:
            continue
        criteria |= {name for name, values in (("dscp", cm.dscp), ("cos", cm.cos)) if values}
        for dscp in cm.dscp:
            if dscp in DSCP_VALUES and dscp not in taken:
                taken.add(dscp)
                if cls.qos_group is not None:
                    mapped[dscp] = cls.qos_group
    if default_group is not None:
        mapped |= {d: default_group for d in DSCP_VALUES if d not in taken}
    trust = "cos" if "cos" in criteria else "dscp" if "dscp" in criteria else "none"
    return Classification(mapped, trust, policy.line, remark)


def class_group(kind: str, name: str, mqc: Mqc) -> int | None:
    """The qos-group a network-qos or queuing class stands for (its queue, for queuing)."""
    if name in _DEFAULT_CLASSES:
        return 0
    found = (_NQ_CLASS if kind == "network-qos" else _QUEUE_CLASS).fullmatch(name)
    if found:
        return int(found.group(1))
    cm = mqc.class_maps.get((kind, name))
    return cm.qos_groups[0] if cm is not None and cm.qos_groups else None


def undefined_classes(policy: PolicyMap | None, mqc: Mqc) -> list[str]:
    """The classes a network-qos or queuing policy names that are neither NX-OS's own (`c-8q-nq3`,
    `c-out-q3`, the defaults) nor class maps of the config: what they would set is unknown."""
    if policy is None:
        return []
    return [
        name
        for name in policy.classes
        if class_group(policy.kind, name, mqc) is None and (policy.kind, name) not in mqc.class_maps
    ]


def paused_classes(policy: PolicyMap | None, mqc: Mqc) -> dict[int, tuple[int, ...]]:
    """qos-group -> the PFC priorities that pause its class, for the lossless classes of a
    network-qos policy. `pause no-drop` without `pfc-cos` pauses the class's own CoS (qos-group N is
    CoS N unless a class says otherwise)."""
    if policy is None:
        return {}
    out = {}
    for cls in policy.classes.values():
        group = class_group("network-qos", cls.name, mqc)
        if group is not None and cls.pause_cos is not None:
            out[group] = cls.pause_cos or (group,)
    return out


@dataclass(frozen=True, slots=True)
class QueueShape:
    """What one egress queuing policy does: ECN per queue, strict queues, and where each is set."""

    ecn: dict[int, EcnSetting]
    strict: frozenset[int]
    ecn_line: int
    strict_line: int


def queue_shape(policy: PolicyMap, mqc: Mqc) -> QueueShape:
    ecn, strict = {}, set()
    ecn_line = strict_line = policy.line
    for cls in policy.classes.values():
        queue = class_group("queuing", cls.name, mqc)
        if queue is None:
            continue
        if cls.ecn is not None:
            ecn[queue] = cls.ecn
            ecn_line = cls.lines.get("ecn", cls.line) if ecn_line == policy.line else ecn_line
        if cls.priority_level is not None:
            strict.add(queue)
            strict_line = cls.lines.get("priority", cls.line) if strict_line == policy.line else strict_line
    return QueueShape(ecn, frozenset(strict), ecn_line, strict_line)


def class_mtus(policy: PolicyMap | None, mqc: Mqc) -> dict[int, tuple[int | None, int]]:
    """qos-group -> (its network-qos class MTU, None where the class names none; the line that sets
    it, else the class's line)."""
    if policy is None:
        return {}
    out = {}
    for cls in policy.classes.values():
        group = class_group("network-qos", cls.name, mqc)
        if group is not None:
            out[group] = (cls.mtu, cls.lines.get("mtu", cls.line))
    return out


def ingress_buffers(policy: PolicyMap | None, mqc: Mqc) -> dict[int, PgBuffer]:
    """Ingress buffers (`pause buffer-size ... pause-threshold ... resume-threshold ...`) by the
    priority group of the class (its qos-group): per port in an input queuing policy, for every port
    in the network-qos policy."""
    if policy is None:
        return {}
    out = {}
    for cls in policy.classes.values():
        group = class_group(policy.kind, cls.name, mqc)
        if group is not None and cls.buffer is not None:
            out[group] = cls.buffer
    return out
