"""A Junos config's class of service, read into the vendor-neutral model (see `facts` for how).

`read_cos` collects the objects a config defines (forwarding classes, classifiers, drop profiles,
schedulers, scheduler maps, congestion-notification profiles) and what each interface binds, with
the line of every statement; `cos_state` follows the bindings of every interface into a
DeviceState. A setting the config does not show stays None (unknown), never a guess.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from collections import Counter
from dataclasses import dataclass, field

from netcfg.model import DeviceState, EcnSetting, InterfaceState, Watchdog
from netcfg.platforms.junos import facts
from netcfg.platforms.junos.syntax import Statement


@dataclass(slots=True)
class ForwardingClass:
    queue: int | None = None
    no_loss: bool = False
    pfc_priority: int | None = None
    line: int = 0


@dataclass(slots=True)
class DropProfile:
    fills: list[int] = field(default_factory=list)
    probabilities: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Scheduler:
    ecn: int | None = None  # line of explicit-congestion-notification
    drop_profile: str | None = None
    strict: int | None = None  # line of `priority strict-high`


@dataclass(slots=True)
class Cnp:
    line: int = 0  # the profile's first statement
    dscp_pfc: dict[int, int] = field(default_factory=dict)  # DSCP -> line
    ieee_pfc: dict[int, int] = field(default_factory=dict)  # priority -> line
    flow_control: dict[int, int] = field(default_factory=dict)  # priority -> queue it pauses
    cable_m: tuple[int, int] | None = None  # (metres, line)
    watchdog: int | None = None  # line of pfc-watchdog
    # A pfc-watchdog option netcfg does not know: the action QFX5230/5240 take (drop or forward),
    # whose statement netcfg has not confirmed, makes the profile's action unknown, not drop.
    unknown_watchdog_option: bool = False
    poll_ms: int | None = None
    detection_polls: int | None = None
    recovery_ms: int | None = None


@dataclass(slots=True)
class Binding:
    """What `class-of-service interfaces <name>` binds (each with its line)."""

    cnp: tuple[str, int] | None = None
    scheduler_map: tuple[str, int] | None = None
    dscp: tuple[str, int] | None = None
    ieee: tuple[str, int] | None = None
    rewrite: tuple[str, int] | None = None


@dataclass(slots=True)
class Cos:
    classes: dict[str, ForwardingClass] = field(default_factory=dict)
    dscp_classifiers: dict[str, dict[int, tuple[str, int]]] = field(default_factory=dict)
    drop_profiles: dict[str, DropProfile] = field(default_factory=dict)
    schedulers: dict[str, Scheduler] = field(default_factory=dict)
    scheduler_maps: dict[str, dict[str, str]] = field(default_factory=dict)
    cnps: dict[str, Cnp] = field(default_factory=dict)
    bindings: dict[str, Binding] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)  # interface -> first line
    mtu: dict[str, tuple[int, int]] = field(default_factory=dict)
    description: dict[str, str] = field(default_factory=dict)
    dscp_aliases: dict[str, int] = field(default_factory=dict)
    first_line: dict[str, int] = field(default_factory=dict)  # device-wide setting -> line
    # `interfaces interface-range NAME`: its members (with the line naming them) and its MTU.
    ranges: dict[str, dict[str, int]] = field(default_factory=dict)
    range_mtu: dict[str, tuple[int, int]] = field(default_factory=dict)
    # `protocols dcbx interface NAME|all ...`: the DCBX mode (None: the statement names none, so the
    # default, auto-negotiate) with its line.
    dcbx: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    # `interfaces NAME unit N family F`: the families a port's (or a range's) units carry, with the
    # first line naming each: `ethernet-switching` makes a unit switched, `inet`/`inet6` routed.
    families: dict[str, dict[str, int]] = field(default_factory=dict)
    # `rewrite-rules dscp NAME forwarding-class FC loss-priority low code-point BITS`: NAME -> FC ->
    # the DSCP packets of that class leave with.
    dscp_rewrites: dict[str, dict[str, int]] = field(default_factory=dict)
    range_families: dict[str, dict[str, int]] = field(default_factory=dict)
    # How a port's (or a range's) frames arrive, from its `interfaces` stanza: see `Tagging`.
    tagging: dict[str, Tagging] = field(default_factory=dict)
    range_tagging: dict[str, Tagging] = field(default_factory=dict)
    # `interfaces NAME ether-options 802.3ad AE`: a member port takes its aggregate's units.
    lag_parent: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Tagging:
    """What an `interfaces NAME` stanza says of VLAN tags, each with its first line. 802.1p (IEEE)
    PFC reads the priority in the VLAN header, so it pauses only tagged frames (Juniper,
    "Understanding PFC Using DSCP at Layer 3 for Untagged Traffic")."""

    tags: int | None = None  # vlan-tagging, flexible-/stacked-vlan-tagging, a unit's vlan-id, a trunk
    native: int | None = None  # native-vlan-id: a port that takes untagged frames beside tagged ones
    unit: int | None = None  # a unit with a family: the stanza shows how the port carries traffic

    @property
    def frames(self) -> str | None:
        """How the port's frames arrive: "tagged", "untagged", "mixed" (a native VLAN beside tagged
        ones: which RoCE rides is not in the switch's config), or None where no unit is shown."""
        if self.native is not None:
            return "mixed"
        if self.tags is not None:
            return "tagged"
        return "untagged" if self.unit is not None else None

    def merge(self, other: Tagging) -> Tagging:
        return Tagging(self.tags or other.tags, self.native or other.native, self.unit or other.unit)


def _int(word: str) -> int | None:
    return int(word) if word.isdigit() and len(word) < 10 else None


def _after(path: tuple[str, ...], key: str) -> str | None:
    try:
        return path[path.index(key) + 1]
    except (ValueError, IndexError):
        return None


def read_cos(statements: list[Statement]) -> Cos:
    cos = Cos()
    for s in statements:
        p = s.path
        if p[:2] == ("interfaces", "interface-range") and len(p) >= 4:
            _interface_range(cos, p[2], p[3:], s.line)
        elif p[0] == "interfaces" and len(p) >= 3:
            _interface(cos, p[1], p[2:], s.line)
        elif p[0] == "class-of-service" and len(p) >= 3:
            _class_of_service(cos, p[1], p[2:], s.line)
        elif p[:3] == ("protocols", "dcbx", "interface") and len(p) >= 4:
            _dcbx(cos, p[3], p[4:], s.line)
    for name, members in cos.ranges.items():
        for port, line in members.items():
            cos.ports.setdefault(port, line)
            # A port's own MTU overrides its range's.
            if name in cos.range_mtu and port not in cos.mtu:
                cos.mtu[port] = cos.range_mtu[name]
            if name in cos.range_families and port not in cos.families:
                cos.families[port] = cos.range_families[name]
            if name in cos.range_tagging:
                own = cos.tagging.get(port, Tagging())
                cos.tagging[port] = own.merge(cos.range_tagging[name])
    return cos


# Most ports one `member-range` or `[a-b]` member may name: beyond any switch, so a text that names
# more is not read as ports (it would cost memory, not describe a device).
_MAX_RANGE = 1024
_BRACKETS = re.compile(r"(.*)\[(\d+)-(\d+)\](.*)")
_NUMBERED = re.compile(r"(.*?)(\d+)")


def _interface_range(cos: Cos, name: str, rest: tuple[str, ...], line: int) -> None:
    members = cos.ranges.setdefault(name, {})
    if rest[0] == "member" and len(rest) == 2:
        bracket = _BRACKETS.fullmatch(rest[1])
        if bracket is None:
            members.setdefault(rest[1], line)
        else:
            head, low, high, tail = bracket.groups()
            for n in _span(int(low), int(high)):
                members.setdefault(f"{head}{n}{tail}", line)
    elif rest[0] == "member-range" and len(rest) == 4 and rest[2] == "to":
        first, last = _NUMBERED.fullmatch(rest[1]), _NUMBERED.fullmatch(rest[3])
        if first and last and first.group(1) == last.group(1):
            for n in _span(int(first.group(2)), int(last.group(2))):
                members.setdefault(f"{first.group(1)}{n}", line)
    elif rest[0] == "mtu" and len(rest) == 2 and _int(rest[1]) is not None:
        cos.range_mtu[name] = (int(rest[1]), line)
    else:
        if _family(rest) is not None:
            cos.range_families.setdefault(name, {}).setdefault(_family(rest), line)
        _tagging(cos.range_tagging.setdefault(name, Tagging()), rest, line)


def _dcbx(cos: Cos, name: str, rest: tuple[str, ...], line: int) -> None:
    """`dcbx-version` (Junos 13.2 on; 12.3 spelled it `mode`): auto-negotiate, ieee-dcbx or
    dcbx-version-1.01. Any other statement under the interface leaves its mode as it was."""
    if len(rest) == 2 and rest[0] in ("dcbx-version", "mode"):
        cos.dcbx[name] = (rest[1], line)
    else:
        cos.dcbx.setdefault(name, (None, line))


# Junos's DCBX modes, vendor-neutral; an interface under `protocols dcbx` without one auto-negotiates.
_DCBX_MODES = {None: "auto", "auto-negotiate": "auto", "ieee-dcbx": "ieee", "dcbx-version-1.01": "cee"}


def _span(low: int, high: int) -> range:
    return range(low, high + 1) if 0 <= high - low < _MAX_RANGE else range(0)


def _interface(cos: Cos, name: str, rest: tuple[str, ...], line: int) -> None:
    if "*" in name:
        return
    cos.ports.setdefault(name, line)
    if rest[0] == "mtu" and len(rest) == 2 and _int(rest[1]) is not None:
        cos.mtu[name] = (int(rest[1]), line)
    elif rest[0] == "description" and len(rest) == 2:
        cos.description[name] = rest[1]
    elif rest[:2] == ("ether-options", "802.3ad") and len(rest) == 3:
        cos.lag_parent[name] = rest[2]
    else:
        if _family(rest) is not None:
            cos.families.setdefault(name, {}).setdefault(_family(rest), line)
        _tagging(cos.tagging.setdefault(name, Tagging()), rest, line)


# Physical-interface statements that make a port's units take VLAN-tagged frames.
_TAGGING = frozenset({"vlan-tagging", "flexible-vlan-tagging", "stacked-vlan-tagging"})
# A unit statement that names the VLAN(s) the unit takes.
_UNIT_VLANS = frozenset({"vlan-id", "vlan-id-list", "vlan-id-range", "vlan-tags"})
_TRUNK = (("interface-mode", "trunk"), ("port-mode", "trunk"))


def _tagging(tagging: Tagging, rest: tuple[str, ...], line: int) -> None:
    if rest[0] in _TAGGING:
        tagging.tags = tagging.tags or line
    elif rest[0] == "native-vlan-id":
        tagging.native = tagging.native or line
    elif rest[0] == "unit" and len(rest) >= 3 and rest[2] in _UNIT_VLANS:
        tagging.tags = tagging.tags or line
    elif _family(rest) is not None:
        tagging.unit = tagging.unit or line
        # ELS spells a trunk `interface-mode trunk`, the older QFX CLI `port-mode trunk`; without
        # either an ethernet-switching unit is an access port (untagged).
        if rest[3] == "ethernet-switching" and rest[4:6] in _TRUNK:
            tagging.tags = tagging.tags or line
        elif rest[3] == "ethernet-switching" and rest[4:5] == ("native-vlan-id",):
            tagging.native = tagging.native or line


def frames(cos: Cos, port: str) -> str | None:
    """How the frames a port takes arrive (`Tagging.frames`), from its stanza, or its aggregate's
    for a LAG member."""
    own = cos.tagging.get(port, Tagging())
    parent = cos.lag_parent.get(port)
    if own.unit is None and parent is not None:
        own = own.merge(cos.tagging.get(parent, Tagging()))
    return own.frames


def _family(rest: tuple[str, ...]) -> str | None:
    """The family of a `unit N family F ...` statement."""
    return rest[3] if len(rest) >= 4 and rest[0] == "unit" and rest[2] == "family" else None


# A unit of one of these families routes; `ethernet-switching` switches.
_ROUTED_FAMILIES = frozenset({"inet", "inet6", "mpls"})


def _class_of_service(cos: Cos, kind: str, p: tuple[str, ...], line: int) -> None:
    if kind == "forwarding-classes" and p[0] == "class" and len(p) >= 2:
        fc = cos.classes.setdefault(p[1], ForwardingClass(line=line))
        cos.first_line.setdefault("tc_queue", line)
        queue, priority = _int(_after(p, "queue-num") or ""), _int(_after(p, "pfc-priority") or "")
        fc.queue = queue if queue is not None else fc.queue
        fc.pfc_priority = priority if priority is not None else fc.pfc_priority
        fc.no_loss = fc.no_loss or "no-loss" in p[2:]
    elif kind == "code-point-aliases" and p[0] == "dscp" and len(p) == 3:
        bits = facts.code_point(p[2], 6, {})
        if bits is not None:
            cos.dscp_aliases[p[1]] = bits
    elif kind == "classifiers" and p[0] == "dscp" and len(p) >= 4 and p[2] == "forwarding-class":
        entry = cos.dscp_classifiers.setdefault(p[1], {})
        point = _after(p, "code-points")
        if point is not None:
            dscp = facts.code_point(point, 6, facts.DSCP_ALIASES | cos.dscp_aliases)
            if dscp is not None:
                entry[dscp] = (p[3], line)
    elif kind == "rewrite-rules" and p[0] == "dscp" and len(p) >= 4 and p[2] == "forwarding-class":
        point = _after(p, "code-point")
        low = _after(p, "loss-priority") in (None, "low")
        dscp = facts.code_point(point, 6, facts.DSCP_ALIASES | cos.dscp_aliases) if point else None
        if dscp is not None and low:
            cos.dscp_rewrites.setdefault(p[1], {}).setdefault(p[3], dscp)
    elif kind == "drop-profiles" and len(p) == 4 and p[1] == "interpolate":
        _drop_point(cos.drop_profiles.setdefault(p[0], DropProfile()), p[2], p[3])
    elif kind == "drop-profiles" and len(p) >= 3 and p[1] == "fill-level":
        profile = cos.drop_profiles.setdefault(p[0], DropProfile())
        _drop_point(profile, "fill-level", p[2])
        _drop_point(profile, "drop-probability", _after(p, "drop-probability") or "")
    elif kind == "schedulers" and len(p) >= 2:
        _scheduler(cos.schedulers.setdefault(p[0], Scheduler()), p[1:], line)
    elif kind == "scheduler-maps" and len(p) >= 5 and p[1] == "forwarding-class" and p[3] == "scheduler":
        cos.scheduler_maps.setdefault(p[0], {})[p[2]] = p[4]
    elif kind == "congestion-notification-profile" and len(p) >= 2:
        _cnp(cos, cos.cnps.setdefault(p[0], Cnp(line=line)), p[1:], line)
    elif kind == "interfaces" and len(p) >= 2:
        _binding(cos, p[0], p[1:], line)


def _drop_point(profile: DropProfile, what: str, value: str) -> None:
    number = _int(value)
    if number is None or number > 100:
        return
    if what == "fill-level":
        profile.fills.append(number)
    elif what == "drop-probability":
        profile.probabilities.append(number)


def _scheduler(scheduler: Scheduler, p: tuple[str, ...], line: int) -> None:
    if p[0] == "explicit-congestion-notification":
        scheduler.ecn = line
    elif p[0] == "priority" and p[1:] == ("strict-high",):
        scheduler.strict = line
    elif p[0] == "drop-profile-map" and _after(p, "loss-priority") in ("any", "low", None):
        # RoCE is classified with low loss priority: `any` and `low` profiles apply to it.
        scheduler.drop_profile = _after(p, "drop-profile") or scheduler.drop_profile


def _cnp(cos: Cos, cnp: Cnp, p: tuple[str, ...], line: int) -> None:
    if p[0] == "input" and len(p) >= 4 and p[2] == "code-point" and "pfc" in p[4:]:
        if p[1] == "dscp":
            dscp = facts.code_point(p[3], 6, facts.DSCP_ALIASES | cos.dscp_aliases)
            if dscp is not None:
                cnp.dscp_pfc.setdefault(dscp, line)
        elif p[1] == "ieee-802.1":
            priority = facts.code_point(p[3], 3, facts.IEEE_ALIASES)
            if priority is not None:
                cnp.ieee_pfc.setdefault(priority, line)
    elif p[0] == "input" and len(p) == 3 and p[1] == "cable-length" and _int(p[2]) is not None:
        cnp.cable_m = (int(p[2]), line)
    elif p[0] == "output" and len(p) >= 6 and p[1] == "ieee-802.1" and p[4] == "flow-control-queue":
        priority, queue = facts.code_point(p[3], 3, facts.IEEE_ALIASES), _int(p[5])
        if priority is not None and queue is not None:
            cnp.flow_control[priority] = queue
    elif p[0] == "pfc-watchdog":
        cnp.watchdog = cnp.watchdog or line
        option, value = (p[1], _int(p[2])) if len(p) == 3 else (None, None)
        if option == "poll-interval":
            cnp.poll_ms = value
        elif option == "detection":
            cnp.detection_polls = value
        elif option == "recovery":
            cnp.recovery_ms = value
        elif len(p) > 1:
            cnp.unknown_watchdog_option = True


def _binding(cos: Cos, name: str, p: tuple[str, ...], line: int) -> None:
    if name != "all" and "*" not in name:
        cos.ports.setdefault(name, line)
    binding = cos.bindings.setdefault(name, Binding())
    if p[0] == "unit" and len(p) >= 2:
        p = p[2:]
    if len(p) == 2 and p[0] == "congestion-notification-profile":
        binding.cnp = (p[1], line)
    elif len(p) == 2 and p[0] == "scheduler-map":
        binding.scheduler_map = (p[1], line)
    elif len(p) == 3 and p[0] == "classifiers" and p[1] == "dscp":
        binding.dscp = (p[2], line)
    elif len(p) == 3 and p[0] == "classifiers" and p[1] == "ieee-802.1":
        binding.ieee = (p[2], line)
    elif len(p) == 3 and p[0] == "rewrite-rules" and p[1] == "dscp":
        binding.rewrite = (p[2], line)


# --- from objects to the vendor-neutral chain ----------------------------------------------------


def effective_bindings(cos: Cos) -> dict[str, Binding]:
    """Per port, each binding from the most specific place: the port, a wildcard, then `all`."""
    wildcards = sorted((n for n in cos.bindings if "*" in n), key=len)
    out = {}
    for port in cos.ports:
        layers = [cos.bindings.get("all")] + [cos.bindings[w] for w in wildcards if fnmatch.fnmatch(port, w)]
        layers.append(cos.bindings.get(port))
        merged = Binding()
        for layer in layers:
            if layer is None:
                continue
            for name in ("cnp", "scheduler_map", "dscp", "ieee", "rewrite"):
                value = getattr(layer, name)
                if value is not None:
                    setattr(merged, name, value)
        out[port] = merged
    return out


def class_numbers(cos: Cos, classes: dict[str, ForwardingClass]) -> dict[str, int | None]:
    """Forwarding class -> traffic class (facts: the 802.1p priority it is paused on, else its
    queue); None where a lossy class's queue is the number of a lossless class on another queue,
    as it cannot be numbered then without saying something false."""
    pauses = {queue: p for cnp in cos.cnps.values() for p, queue in cnp.flow_control.items()}
    numbers: dict[str, int | None] = {}
    for name, fc in classes.items():
        if fc.queue is None:
            numbers[name] = None
        elif fc.no_loss:
            numbers[name] = fc.pfc_priority if fc.pfc_priority is not None else pauses.get(fc.queue, fc.queue)
    lossless_queue = {numbers[n]: classes[n].queue for n in numbers if numbers[n] is not None}
    for name, fc in classes.items():
        if name not in numbers:
            numbers[name] = None if lossless_queue.get(fc.queue, fc.queue) != fc.queue else fc.queue
    return numbers


def used_classes(cos: Cos) -> dict[str, ForwardingClass]:
    """Configured classes, and the Junos default classes that classifiers or scheduler maps name
    without configuring them (a default class nothing uses carries no traffic of the chain)."""
    used = {fc for entries in cos.dscp_classifiers.values() for fc, _ in entries.values()}
    used |= {fc for mapping in cos.scheduler_maps.values() for fc in mapping}
    defaults = {
        name: ForwardingClass(queue=queue, no_loss=no_loss, pfc_priority=queue if no_loss else None)
        for name, (queue, no_loss) in facts.DEFAULT_CLASSES.items()
        if name in used and name not in cos.classes
    }
    return cos.classes | defaults


def cos_state(state: DeviceState, cos: Cos) -> None:
    """Fill `state` (QoS facet) from a config's class of service."""
    classes = used_classes(cos)
    numbers = class_numbers(cos, classes)
    for name, tc in numbers.items():
        queue = classes[name].queue
        if tc is not None and queue is not None and queue != tc:
            state.tc_queue[tc] = queue
    lossless = {tc for name, tc in numbers.items() if tc is not None and classes[name].no_loss}
    maps = {name: _dscp_map(entries, numbers) for name, entries in cos.dscp_classifiers.items()}
    bindings = effective_bindings(cos)
    device_map_name = _most_bound(bindings)
    state.dscp_map = dict(maps.get(device_map_name, {})) if device_map_name else {}
    if device_map_name in cos.dscp_classifiers:
        lines = [line for _, line in cos.dscp_classifiers[device_map_name].values()]
        if lines:
            state.locations["dscp_map"] = min(lines)
    watchdogs: list[Cnp] = []
    for port in sorted(cos.ports, key=cos.ports.get):
        binding = bindings[port]
        iface = state.interface(port)
        loc = state.locations
        loc[port] = cos.ports[port]
        iface.description = cos.description.get(port)
        if port in cos.mtu:
            iface.mtu, loc[sys.intern(f"{port}.mtu")] = cos.mtu[port]
        families = cos.families.get(port, {})
        if "ethernet-switching" in families:
            iface.switched = True
            loc[sys.intern(f"{port}.switched")] = families["ethernet-switching"]
        elif not _ROUTED_FAMILIES.isdisjoint(families):
            iface.switched = False
        dcbx = cos.dcbx.get(port) or cos.dcbx.get("all")
        if dcbx is not None:
            iface.dcbx_mode, loc[sys.intern(f"{port}.dcbx_mode")] = _DCBX_MODES.get(dcbx[0]), dcbx[1]
        port_map = None
        if binding.dscp is not None:
            iface.trust = "dscp"
            port_map = maps.get(binding.dscp[0], {})
            if binding.dscp[0] != device_map_name:
                iface.dscp_map = dict(port_map)
        elif binding.ieee is not None:
            iface.trust = "pcp"
        classified = binding.dscp or binding.ieee
        if classified is not None:
            loc[sys.intern(f"{port}.trust")] = loc[sys.intern(f"{port}.dscp_map")] = classified[1]
        iface.dscp_rewrite = _port_rewrite(cos, binding, numbers)
        if binding.rewrite is not None:
            loc[sys.intern(f"{port}.dscp_rewrite")] = binding.rewrite[1]
        _port_pfc(iface, cos, binding, port_map, lossless, loc, watchdogs, frames(cos, port))
        _port_schedulers(iface, cos, binding, classes, loc)
    state.watchdog = _watchdog(watchdogs)
    if watchdogs:
        state.locations["watchdog"] = min(w.watchdog or 0 for w in watchdogs)
    if "tc_queue" in cos.first_line:
        state.locations["tc_queue"] = cos.first_line["tc_queue"]


def _port_rewrite(cos: Cos, binding: Binding, numbers: dict[str, int | None]) -> dict[int, int | None] | None:
    """What a port re-marks: the DSCP rewrite rule its unit binds, by traffic class; a QFX applies
    none unless bound. `default` (Junos's own rule) or a rule the config does not define: unknown."""
    if binding.rewrite is None:
        return {}
    rules = cos.dscp_rewrites.get(binding.rewrite[0])
    if rules is None:
        return None
    return {tc: dscp for fc, dscp in rules.items() if (tc := numbers.get(fc)) is not None}


def _dscp_map(entries: dict[int, tuple[str, int]], numbers: dict[str, int | None]) -> dict[int, int]:
    out = {}
    for dscp, (fc, _) in entries.items():
        tc = numbers.get(fc)
        if tc is not None:
            out[dscp] = tc
    return out


def _most_bound(bindings: dict[str, Binding]) -> str | None:
    """The DSCP classifier bound to the most ports (then the first by name): the device-wide map."""
    counts = Counter(b.dscp[0] for b in bindings.values() if b.dscp is not None)
    if not counts:
        return None
    return min(counts, key=lambda name: (-counts[name], name))


def _port_pfc(
    iface: InterfaceState,
    cos: Cos,
    binding: Binding,
    port_map: dict[int, int] | None,
    lossless: set[int],
    loc: dict[str, int],
    watchdogs: list[Cnp],
    port_frames: str | None,
) -> None:
    port = iface.name
    iface.pfc_enabled, iface.no_drop_priorities, iface.watchdog = False, frozenset(), False
    if binding.cnp is None:
        return
    name, bound_line = binding.cnp
    cnp = cos.cnps.get(name)
    # A setting the profile lacks belongs in the profile.
    for field_name in ("pfc_enabled", "no_drop_priorities", "watchdog", "cable_m"):
        loc[sys.intern(f"{port}.{field_name}")] = cnp.line if cnp is not None else bound_line
    if cnp is None:
        # Bound to a profile the config does not define: nothing is known of what it does.
        iface.pfc_enabled = iface.no_drop_priorities = iface.watchdog = None
        return
    # 802.1p PFC pauses the priority in a frame's VLAN header: on a port whose frames are untagged
    # it pauses no priority, and on one that also takes untagged frames whether it pauses RoCE is
    # not known. A port whose units the config does not show carries nothing it shows untagged, so
    # the profile's priorities stand.
    priorities: set[int] | None = set(cnp.ieee_pfc)
    if cnp.ieee_pfc and port_frames == "untagged":
        priorities = set()
    elif cnp.ieee_pfc and port_frames == "mixed":
        priorities = None
    for dscp in cnp.dscp_pfc:
        # DSCP-based PFC pauses the priority of the class the port's classifier puts the DSCP in.
        tc = None if port_map is None else port_map.get(dscp)
        if priorities is None or tc is None or tc not in lossless:
            priorities = None
        else:
            priorities.add(tc)
    pfc_lines = list(cnp.ieee_pfc.values()) + list(cnp.dscp_pfc.values())
    if pfc_lines:
        loc[sys.intern(f"{port}.pfc_enabled")] = loc[sys.intern(f"{port}.no_drop_priorities")] = min(
            pfc_lines
        )
    iface.pfc_enabled = bool(pfc_lines)
    iface.no_drop_priorities = None if priorities is None else frozenset(priorities)
    iface.watchdog = cnp.watchdog is not None
    if cnp.watchdog is not None:
        loc[sys.intern(f"{port}.watchdog")] = cnp.watchdog
        watchdogs.append(cnp)
    if cnp.cable_m is not None:
        iface.cable_m, loc[sys.intern(f"{port}.cable_m")] = cnp.cable_m
    else:
        iface.cable_m = facts.DEFAULT_CABLE_M


def _port_schedulers(
    iface: InterfaceState,
    cos: Cos,
    binding: Binding,
    classes: dict[str, ForwardingClass],
    loc: dict[str, int],
) -> None:
    if binding.scheduler_map is None:
        return
    name, bound_line = binding.scheduler_map
    port = iface.name
    loc[sys.intern(f"{port}.ecn")] = loc[sys.intern(f"{port}.strict_queues")] = bound_line
    strict = set()
    for fc, scheduler_name in sorted(cos.scheduler_maps.get(name, {}).items()):
        queue = classes[fc].queue if fc in classes else None
        scheduler = cos.schedulers.get(scheduler_name)
        if queue is None or scheduler is None:
            continue
        if scheduler.strict is not None:
            strict.add(queue)
            loc[sys.intern(f"{port}.strict_queues")] = scheduler.strict
        if scheduler.ecn is not None and queue not in iface.ecn:
            iface.ecn[queue] = _ecn(cos.drop_profiles.get(scheduler.drop_profile or ""))
            loc[sys.intern(f"{port}.ecn")] = scheduler.ecn
    iface.strict_queues = frozenset(strict)


def _ecn(profile: DropProfile | None) -> EcnSetting:
    """Fill levels as bytes of the reference buffer (facts); -1 where the profile says none."""
    if profile is None or not profile.fills or len(profile.fills) != len(profile.probabilities):
        return EcnSetting(-1, -1, -1)
    points = sorted(zip(profile.fills, profile.probabilities, strict=True))
    top = max(p for _, p in points)
    start = max((f for f, p in points if p == 0), default=points[0][0])
    end = min(f for f, p in points if p == top)
    return EcnSetting(facts.fill_bytes(start), facts.fill_bytes(end), top)


def _watchdog(profiles: list[Cnp]) -> Watchdog:
    """The device-wide watchdog from the profiles ports run it in; a timer they disagree on, or that
    one of them leaves at a default another overrides, is unknown."""
    if not profiles:
        return Watchdog(enabled=False)

    def agreed(values: set[int | None], default: int) -> int | None:
        resolved = {default if v is None else v for v in values}
        return resolved.pop() if len(resolved) == 1 else None

    poll = agreed({c.poll_ms for c in profiles}, facts.DEFAULT_POLL_MS)
    polls = agreed({c.detection_polls for c in profiles}, facts.DEFAULT_DETECTION_POLLS)
    recovery = agreed({c.recovery_ms for c in profiles}, facts.DEFAULT_RECOVERY_MS)
    action = None if any(c.unknown_watchdog_option for c in profiles) else facts.WATCHDOG_ACTION
    return Watchdog(
        enabled=True,
        action=action,
        detection_ms=poll * polls if poll is not None and polls is not None else None,
        restoration_ms=recovery,
        polling_ms=poll,
    )
