"""Remediation that touches only what netcfg renders on an EOS switch.

A running config holds far more than netcfg renders: users, SNMP, AAA, routing, VRFs, banners, the
management port. Compared whole with the intended config, each of those lines would come out as a
`no ...` command, and applying them would lock operators out and take the fabric down. Both configs
are cut down to what netcfg owns before hier_config compares them:

- the `qos profile`s the intended config defines (netcfg names them: the whole profile is its own);
- in each planned fabric port, only the lines netcfg renders there or reads back as that port's QoS
  (description, MTU, routed mode, service profile, trust, PFC, and ECN and strict priority in its
  tx-queues); the port's addresses, speed, shutdown or queue shaping stay the operator's;
- device-wide, the PFC lines and the DSCP and traffic-class maps, as far as they name the DSCPs the
  intended config maps and the traffic classes those land in (an operator's own map for storage
  traffic stays).

EOS keeps a map one DSCP (one traffic class) at a time and prints the ones sharing a target on one
line: the maps are compared one DSCP per line, so `qos map dscp 10 26 to traffic-class 3` is 26 (owned)
and 10 (not), and only 26's mapping is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hier_config import HConfig, WorkflowRemediation, get_hconfig
from hier_config import Platform as HierPlatform
from hier_config.child import HConfigChild

from netcfg.remediation import Remediation, unified_diff

HIER_PLATFORM = HierPlatform.ARISTA_EOS
# Lines of a fabric port netcfg renders or reads, without a leading `no `; `switchport` only alone
# (`switchport access vlan 10` is not netcfg's).
_PORT_PREFIXES = ("description ", "mtu ", "service-profile ", "qos trust ", "priority-flow-control")
_PORT_WORDS = ("description", "mtu", "switchport", "service-profile", "qos trust", "priority-flow-control")
_QUEUES = re.compile(r"(?:uc-)?tx-queue \d+")
_QUEUE_LINES = ("priority strict", "random-detect ecn ")
_DSCP_MAP = re.compile(r"(no )?qos map dscp ((?:[\d-]+ )+)to traffic-class (\d+)")
_CLASS_MAP = re.compile(r"(no )?qos map traffic-class ((?:[\d-]+ )+)to tx-queue (\d+)")
_MAPS = ((_DSCP_MAP, "dscp", "traffic-class"), (_CLASS_MAP, "traffic-class", "tx-queue"))


@dataclass(frozen=True, slots=True)
class Scope:
    """What netcfg owns on one switch, from its intended config."""

    ports: frozenset[str]
    profiles: frozenset[str]
    dscps: frozenset[int]
    classes: frozenset[int]

    def owns(self, lineage: tuple[str, ...]) -> bool:
        """Whether a config line (its text and the sections above it, outermost first) is netcfg's."""
        head, *rest = lineage
        words = head.split()
        if words[:2] == ["qos", "profile"]:
            return len(words) == 3 and words[2] in self.profiles
        if words[0] == "interface":
            return len(words) == 2 and words[1] in self.ports and (not rest or _port_line(rest))
        if rest:
            return False
        text = head.removeprefix("no ")
        if text.startswith("priority-flow-control "):
            return True
        dscp, cls = _DSCP_MAP.fullmatch(text), _CLASS_MAP.fullmatch(text)
        if dscp:
            return int(dscp.group(2)) in self.dscps
        return cls is not None and int(cls.group(2)) in self.classes


def _port_line(lineage: list[str]) -> bool:
    line = lineage[0].removeprefix("no ")
    if _QUEUES.fullmatch(line):
        return len(lineage) == 1 or lineage[1].removeprefix("no ").startswith(_QUEUE_LINES)
    return len(lineage) == 1 and (line.startswith(_PORT_PREFIXES) or line in _PORT_WORDS)


def one_per_line(text: str) -> str:
    """The config with each DSCP and traffic-class map line cut into one line per value, as EOS holds
    them (a range `24-27` is four)."""
    out = []
    for line in text.splitlines():
        for pattern, kind, target in _MAPS:
            found = pattern.fullmatch(line)
            if found is not None and (values := _values(found.group(2))):
                no = found.group(1) or ""
                out += [f"{no}qos map {kind} {v} to {target} {found.group(3)}" for v in values]
                break
        else:
            out.append(line)
    return "\n".join(out)


def _values(words: str) -> list[int]:
    out: list[int] = []
    for word in words.split():
        low, _, high = word.partition("-")
        # EOS takes no map value above 63: a wider range is not an EOS line, and is not spelled out.
        if low.isdigit() and (not high or high.isdigit()) and int(high or low) <= 63:
            out += range(int(low), int(high or low) + 1)
    return out


def device_config(text: str) -> HConfig:
    """A config text as hier_config's tree of what the switch holds (maps one value per line)."""
    return get_hconfig(HIER_PLATFORM, one_per_line(text))


def scope_of(intended: HConfig) -> Scope:
    ports, profiles, dscps, classes = set(), set(), set(), set()
    for child in intended.children:
        words = child.text.split()
        if words[0] == "interface":
            ports.add(words[1])
        elif words[:2] == ["qos", "profile"]:
            profiles.add(words[2])
        elif found := _DSCP_MAP.fullmatch(child.text):
            dscps.add(int(found.group(2)))
            classes.add(int(found.group(3)))
        elif found := _CLASS_MAP.fullmatch(child.text):
            classes.add(int(found.group(2)))
    return Scope(frozenset(ports), frozenset(profiles), frozenset(dscps), frozenset(classes))


def owned(config: HConfig, scope: Scope) -> HConfig:
    """The part of a config netcfg owns, as a tree of its own."""
    view = get_hconfig(HIER_PLATFORM)
    _copy_owned(config, view, scope, ())
    return view


def _copy_owned(
    source: HConfig | HConfigChild, into: HConfig | HConfigChild, scope: Scope, above: tuple[str, ...]
) -> None:
    for child in source.children:
        lineage = (*above, child.text)
        if scope.owns(lineage):
            copy = into.add_child(child.text)
            _copy_owned(child, copy, scope, lineage)
            # A section holding only the operator's lines (a queue's shaping) is not netcfg's:
            # kept empty, it would be negated whole.
            if child.children and not copy.children:
                copy.delete()


def text_lines(config: HConfig | HConfigChild, depth: int = 0) -> list[str]:
    """A tree as EOS prints it: three spaces a level."""
    out = []
    for child in config.children:
        out.append("   " * depth + child.text)
        out += text_lines(child, depth + 1)
    return out


def remediation(device: str, intended: str, running: str) -> Remediation:
    want_all = device_config(intended)
    scope = scope_of(want_all)
    want, have = owned(want_all, scope), owned(device_config(running), scope)
    diff = unified_diff(device, text_lines(have), text_lines(want))
    # A tx-queue of a fabric port netcfg no longer configures keeps what the operator set in it
    # (shaping, bandwidth): its ECN and strict lines are negated one by one, never the whole queue.
    for port in have.children:
        target = want.get_child(equals=port.text)
        for queue in port.children:
            if queue.children and target is not None and target.get_child(equals=queue.text) is None:
                target.add_child(queue.text)
    commands = WorkflowRemediation(have, want).remediation_config.dump_simple()
    return Remediation(device, diff, "\n".join(commands))
