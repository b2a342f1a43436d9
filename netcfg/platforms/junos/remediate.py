"""Intended vs running Junos config: the `delete`/`set` lines that restore intent, by hier_config.

Only what netcfg writes is compared, so nothing else is ever deleted: the host name, the MTU and
description of the ports netcfg configures, their class-of-service bindings (notification profile,
scheduler map, a unit's classifiers), and the class-of-service objects netcfg names (`ROCE-*`, the
`NO-LOSS*` and `CNP` forwarding classes). A switch's BGP, users, buffer partitions, an operator's own
classifiers or a unit's rewrite rules are neither shown nor touched; a binding of one of them on a
fabric port is replaced by netcfg's, as setting a single-valued leaf replaces it.
"""

from __future__ import annotations

import re

from netcfg.platforms.junos.syntax import Statement, read_config
from netcfg.remediation import Remediation, remediation_lines, unified_diff

_OWN_NAME = re.compile(r"ROCE(?:-[A-Z0-9-]+)?|NO-LOSS(?:-\d)?|CNP")
# class-of-service object kinds netcfg renders, and where the object's name stands in the path.
_OBJECTS = {
    "forwarding-classes": 3,
    "classifiers": 3,
    "drop-profiles": 2,
    "schedulers": 2,
    "scheduler-maps": 2,
    "congestion-notification-profile": 2,
}
_BINDINGS = ("congestion-notification-profile", "scheduler-map")
# Leaves that take a list of values, one `set` line each: setting one value replaces no other.
_LISTS = frozenset({"code-points", "fill-level", "drop-probability"})


def _line(statement: Statement) -> str:
    return "set " + " ".join(_quoted(w) for w in statement.path)


def _quoted(word: str) -> str:
    return word if word and re.fullmatch(r"[^\s\"{};\[\]#]+", word) else '"' + word.replace('"', '\\"') + '"'


def managed_lines(text: str, ports: set[str]) -> list[str]:
    """The `set` lines of a config (either form) that netcfg writes, in the config's order."""
    out = []
    for s in read_config(text).statements:
        p = s.path
        owned = (
            p[:2] == ("system", "host-name")
            or (p[0] == "interfaces" and len(p) > 2 and p[1] in ports and p[2] in ("mtu", "description"))
            or (
                p[:2] == ("class-of-service", "interfaces")
                and len(p) > 3
                and p[2] in ports
                and _binding(p[3:])
            )
            or (
                p[0] == "class-of-service"
                and len(p) > 1
                and p[1] in _OBJECTS
                and len(p) > _OBJECTS[p[1]]
                and _OWN_NAME.fullmatch(p[_OBJECTS[p[1]]]) is not None
            )
        )
        if owned:
            out.append(_line(s))
    return out


def _binding(path: tuple[str, ...]) -> bool:
    """Whether a port's class-of-service statement is one netcfg binds: its notification profile,
    scheduler map, or a unit's classifier; a unit's rewrite rules or shaping stay the operator's."""
    if path[0] in _BINDINGS:
        return True
    return path[0] == "unit" and len(path) > 2 and path[2] == "classifiers"


def remediation(device: str, intended: str, running: str, hier_platform: str) -> Remediation:
    ports = {
        s.path[1] for s in read_config(intended).statements if s.path[0] == "interfaces" and len(s.path) > 1
    }
    want, have = managed_lines(intended, ports), managed_lines(running, ports)
    diff = unified_diff(device, have, want)
    commands = remediation_lines(hier_platform, "\n".join(have), "\n".join(want))
    # A leaf that takes one value (mtu, a profile binding, a timer) is replaced by setting it: the
    # `delete` of its old value is not needed, and Junos would refuse one naming a stale value.
    replaced = {_leaf(c) for c in commands if c.startswith("set ")} - {None}
    kept = [c for c in commands if not (c.startswith("delete ") and _leaf(c) in replaced)]
    return Remediation(device, diff, "\n".join(kept))


def _leaf(command: str) -> tuple[str, ...] | None:
    """The path of the single-valued leaf a command sets or deletes; None for a list value."""
    words = command.split()[1:]
    return tuple(words[:-1]) if len(words) > 1 and words[-2] not in _LISTS else None
