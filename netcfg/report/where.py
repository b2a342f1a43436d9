"""The HTML report's first screen: what is wrong and where, worst first.

At 32,768 GPUs a map of every device cannot say that on one screen, so the page opens on the
scalable units (and the core, which belongs to none) that have findings, each one a <details> that
opens to its devices and then to their ports, and on counts per severity, rule and rail.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from html import escape

from netcfg.model import expand_ports
from netcfg.report.layout import FabricLayout
from netcfg.rules import Finding

# Worst first. Every status is told by an icon and a word, never by its colour alone.
ORDER = ("e", "u", "w", "i")
LABEL = {
    "e": "✖ error",
    "u": "? not checked",
    "w": "▲ warning",
    "i": "ℹ info",
    "o": "✓ no findings",
    "n": "– no state",
}
_NOUN = {
    "e": ("error", "errors"),
    "u": ("not checked",) * 2,
    "w": ("warning", "warnings"),
    "i": ("info",) * 2,
}


def sev(status: str) -> str:
    return f"<span class='sev {status}'>{LABEL[status]}</span>"


def _counts(statuses: Counter[str]) -> str:
    return ", ".join(f"{statuses[s]} {_NOUN[s][statuses[s] > 1]}" for s in ORDER if statuses[s])


def _worst_first(statuses: Counter[str]) -> tuple[int, ...]:
    return tuple(-statuses[s] for s in ORDER)


class Places:
    """Which scalable unit and rails a finding is in: a switch's own; a host's SU and the rails of
    the NICs its ports name (every rail of the host when it names none)."""

    def __init__(self, layout: FabricLayout | None) -> None:
        self.su: dict[str, int | None] = {}
        self.rail: dict[str, int | None] = {}
        self.nic_rail: dict[str, dict[str, int]] = {}
        for s in layout.switches if layout else ():
            self.su[s.name], self.rail[s.name] = s.su, s.rail
        for h in layout.hosts if layout else ():
            self.su[h.name] = h.su
            self.nic_rail[h.name] = {n: nic.rail for nic in h.nics for n in (nic.netdev, nic.rdma_device)}

    def rails(self, f: Finding) -> set[int]:
        if f.device in self.nic_rail:
            nics = self.nic_rail[f.device]
            named = {nics[p] for p in expand_ports(f.interface) if p in nics} if f.interface else set()
            return named or set(nics.values())
        rail = self.rail.get(f.device)
        return {rail} if rail is not None else set()


def where_section(findings: list[Finding], statuses: list[str], layout: FabricLayout | None) -> str:
    if not findings:
        return "<h2 id=where>What is wrong and where</h2><p>Nothing: no findings.</p>"
    places = Places(layout)
    by_unit: dict[int | None, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, f in enumerate(findings):
        by_unit[places.su.get(f.device)][f.device].append(i)

    def _of(ids: list[int]) -> Counter[str]:
        return Counter(statuses[i] for i in ids)

    def unit_counts(devices: dict[str, list[int]]) -> Counter[str]:
        return Counter(statuses[i] for ids in devices.values() for i in ids)

    units = sorted(by_unit.items(), key=lambda u: (_worst_first(unit_counts(u[1])), u[0] is None, u[0] or 0))
    out = [
        "<h2 id=where>What is wrong and where</h2>",
        "<p>Scalable units with findings, worst first; open one for its devices and ports.</p>",
        "<ul class=where>",
    ]
    for su, devices in units:
        counts = unit_counts(devices)
        rails = sorted({r for ids in devices.values() for i in ids for r in places.rails(findings[i])})
        outside = "core and devices outside any SU" if layout else "devices (the report has no fabric layout)"
        name = f"SU {su}" if su is not None else outside
        on_rails = f" · rails {', '.join(map(str, rails))}" if rails else ""
        out.append(
            f"<li><details><summary>{sev(_worst(counts))} <b>{name}</b>: "
            f"{_counts(counts)} on {len(devices)} device(s){on_rails}</summary><ul>"
        )
        ranked = sorted(
            devices.items(), key=lambda d: (_worst_first(Counter(statuses[i] for i in d[1])), d[0])
        )
        for device, ids in ranked:
            dcounts = _of(ids)
            rows = "".join(
                f"<tr><td>{sev(statuses[i])}<td>{escape(findings[i].interface or '(device)')}"
                f"<td>{escape(findings[i].rule)}<td>{escape(findings[i].message)}"
                for i in ids
            )
            out.append(
                f"<li><details><summary>{sev(_worst(dcounts))} {escape(device)}: {_counts(dcounts)}</summary>"
                f"<table class=ft><thead><tr><th>severity<th>port<th>rule<th>message</thead>"
                f"<tbody>{rows}</tbody></table></details>"
            )
        out.append("</ul></details>")
    out.append("</ul>")
    counts = _by_rail(findings, statuses, places) + _by_rule(findings, statuses)
    return "".join(out) + f"<div class=counts>{counts}</div>"


def _worst(counts: Counter[str]) -> str:
    return next(s for s in ORDER if counts[s])


def _by_rail(findings: list[Finding], statuses: list[str], places: Places) -> str:
    per_rail: dict[int, Counter[str]] = defaultdict(Counter)
    for f, s in zip(findings, statuses, strict=True):
        for rail in places.rails(f):
            per_rail[rail][s] += 1
    if not per_rail:
        return ""
    head = "".join(f"<th scope=col>{LABEL[s]}" for s in ORDER)
    rows = "".join(
        f"<tr><th scope=row>rail {r}" + "".join(f"<td>{c[s] or ''}" for s in ORDER)
        for r, c in sorted(per_rail.items(), key=lambda rc: (_worst_first(rc[1]), rc[0]))
    )
    return (
        "<table class=ft id=by-rail><caption>Findings per rail, worst first</caption>"
        f"<thead><tr><th scope=col>rail{head}</thead><tbody>{rows}</tbody></table>"
    )


def _by_rule(findings: list[Finding], statuses: list[str]) -> str:
    per_rule: dict[str, tuple[str, Counter[str]]] = {}
    for f, s in zip(findings, statuses, strict=True):
        per_rule.setdefault(f.rule, (s, Counter()))[1][f.device] += 1
    rows = "".join(
        f"<tr><td>{sev(s)}<td>{escape(rule)}<td>{sum(devices.values())}<td>{len(devices)}"
        for rule, (s, devices) in sorted(
            per_rule.items(), key=lambda r: (ORDER.index(r[1][0]), -sum(r[1][1].values()), r[0])
        )
    )
    return (
        "<table class=ft id=by-rule><caption>Findings per rule</caption><thead><tr><th scope=col>severity"
        f"<th scope=col>rule<th scope=col>findings<th scope=col>devices</thead><tbody>{rows}</tbody></table>"
    )
