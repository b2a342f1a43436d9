"""`netcfg diff` for Cumulus: the `nv set` / `nv unset` lines that bring the applied configuration back to
intent, ending with `nv config apply`.

Both configurations are compared setting by setting: every list (`swp1-4`, `dscp 10,21`) is expanded so
that the same settings written in other groupings compare equal. Only settings netcfg renders and reads
are touched: a BGP neighbour, a user account, a port outside the plan or a QoS profile netcfg does not
write is never unset.
"""

from __future__ import annotations

import re

from netcfg.platforms.cumulus.defaults import DEFAULT_GLOBAL
from netcfg.platforms.cumulus.grammar import setting_role
from netcfg.platforms.cumulus.names import compact_names, expand_names, expand_numbers
from netcfg.remediation import Remediation, unified_diff

_LISTS = re.compile(r"(?<=\s)(dscp|traffic-class|switch-priority) (\d+(?:[,-]\d+)+)(?=\s|$)")


def remediate(device: str, intended: str, running: str) -> Remediation:
    want = _settings(intended, None)
    ports = {line.split()[2] for line in want if line.startswith("set interface ")}
    have = _settings(running, ports)
    want = _named_as(want, have)
    # A QoS profile netcfg does not write (an operator's own for storage ports) is not netcfg's; the
    # default-global ones apply to every fabric port without a profile of its own, so they are.
    profiles = {_profile(s) for s in want} - {None}
    have = {s: None for s in have if _theirs(_profile(s), profiles) is False}
    diff = unified_diff(device, [f"nv {s}" for s in sorted(have)], [f"nv {s}" for s in sorted(want)])
    if not diff:
        return Remediation(device, "", "")
    paths = {path_of(s) for s in want}
    gone = [s for s in have if s not in want and path_of(s) not in paths]
    unset = [f"nv unset {path_of(s)[len('set ') :]}" for s in gone]
    commands = [*unset, *_grouped([s for s in want if s not in have]), "nv config apply"]
    return Remediation(device, diff, "\n".join(commands))


def _settings(text: str, ports: set[str] | None) -> dict[str, None]:
    """The settings netcfg owns in a config (`set ...`, one port and one number each), in order; of the
    ports named in `ports` only (all when None)."""
    out: dict[str, None] = {}
    valued: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("nv set "):
            continue
        for setting in atoms(line[len("nv ") :]):
            if not _owned(setting):
                continue
            if ports is not None and setting.startswith("set interface ") and setting.split()[2] not in ports:
                continue
            # A later value of a setting replaces the earlier one, as NVUE applies them in order.
            if setting_role(setting) != "member":
                earlier = valued.get(path_of(setting))
                if earlier is not None and earlier != setting:
                    del out[earlier]
                valued[path_of(setting)] = setting
            out[setting] = None
    return out


_PROFILE = re.compile(r"set qos (mapping|pfc|congestion-control|egress-scheduler) (\S+)( .*)?")
_BINDING = re.compile(
    r"(set interface \S+ qos (mapping|pfc|congestion-control|egress-scheduler) profile) (\S+)"
)


def _theirs(profile: tuple[str, str] | None, mine: set[tuple[str, str] | None]) -> bool:
    """Whether a setting is in a QoS profile netcfg neither writes nor relies on (default-global)."""
    return profile is not None and profile not in mine and profile[1] != DEFAULT_GLOBAL


def _profile(setting: str) -> tuple[str, str] | None:
    """The QoS profile a device-wide setting is part of, by kind and name."""
    found = _PROFILE.fullmatch(setting)
    return None if found is None else (found.group(1), found.group(2))


def _named_as(want: dict[str, None], have: dict[str, None]) -> dict[str, None]:
    """The intended settings with each of netcfg's own QoS profiles named as the running profile that
    holds the same settings: a profile the switch has under another name is the same profile."""

    def contents(settings: dict[str, None]) -> dict[tuple[str, str], frozenset[str]]:
        found: dict[tuple[str, str], set[str]] = {}
        for setting in settings:
            m = _PROFILE.fullmatch(setting)
            if m and m.group(2) != DEFAULT_GLOBAL:
                found.setdefault((m.group(1), m.group(2)), set()).add(m.group(3) or "")
        return {key: frozenset(value) for key, value in found.items()}

    running = {(kind, body): name for (kind, name), body in reversed(contents(have).items())}
    renames = {
        key: running[(key[0], body)] for key, body in contents(want).items() if (key[0], body) in running
    }
    if not renames:
        return want
    out: dict[str, None] = {}
    for setting in want:
        profile, binding = _PROFILE.fullmatch(setting), _BINDING.fullmatch(setting)
        if profile and (profile.group(1), profile.group(2)) in renames:
            new = renames[(profile.group(1), profile.group(2))]
            setting = f"set qos {profile.group(1)} {new}{profile.group(3) or ''}"
        elif binding and (binding.group(2), binding.group(3)) in renames:
            setting = f"{binding.group(1)} {renames[(binding.group(2), binding.group(3))]}"
        out[setting] = None
    return out


def atoms(setting: str) -> list[str]:
    words = setting.split(" ", 3)
    if len(words) >= 3 and words[1] == "interface":
        names = expand_names(words[2]) or [words[2]]
        rest = " " + words[3] if len(words) > 3 else ""
        return [a for name in names for a in _numbered(f"set interface {name}{rest}")]
    return _numbered(setting)


def _numbered(setting: str) -> list[str]:
    found = _LISTS.search(setting)
    if found is None:
        return [setting]
    numbers = expand_numbers(found.group(2), 63) or []
    pieces = [setting[: found.start(2)] + str(n) + setting[found.end(2) :] for n in numbers]
    return [a for piece in pieces for a in _numbered(piece)]


def _owned(setting: str) -> bool:
    return setting_role(setting) is not None


def path_of(setting: str) -> str:
    """The setting without its value: what `nv unset` takes, and what a new value replaces."""
    role = setting_role(setting)
    if role == "member":
        return setting
    if role == "description":
        return setting.split(" description ", 1)[0] + " description"
    return setting.rsplit(" ", 1)[0]


def _grouped(settings: list[str]) -> list[str]:
    """Per-port settings that are the same on several ports as one line (`nv set interface swp1-4 ...`)."""
    by_rest: dict[str, list[str]] = {}
    lines: list[str] = []
    for s in settings:
        words = s.split(" ", 3)
        if words[1] == "interface" and len(words) == 4:
            if words[3] not in by_rest:
                lines.append(words[3])
            by_rest.setdefault(words[3], []).append(words[2])
        else:
            lines.append(s)
    return [
        f"nv set interface {compact_names(by_rest[line])} {line}" if line in by_rest else f"nv {line}"
        for line in lines
    ]
