"""Run every registered rule over a fabric's states and merge per-port repeats into one finding."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg import waivers
from netcfg.checks.catalogue import RULES
from netcfg.gcpause import paused_gc
from netcfg.model import DeviceState, Fabric, Link, expand_ports, port_ranges, port_sort_key
from netcfg.platforms import get_platform
from netcfg.policy import Policy
from netcfg.rules import CheckContext, Finding, Issue, Rule, Severity
from netcfg.waivers import Decision


def run_checks(
    fabric: Fabric,
    policy: Policy,
    states: dict[str, DeviceState],
    previous: dict[str, DeviceState] | None = None,
    baseline: dict[str, DeviceState] | None = None,
    *,
    memo: dict[str, object] | None = None,
) -> list[Finding]:
    """Every rule over the states, merged into findings; the fabric's waivers (if any) applied.

    `previous`: an earlier reading of the devices that counter rates are judged against (default:
    the `baseline`, if any); `baseline`: the go-live reading. `memo`: where the fabric-wide analyses
    of this run are kept, for a caller that reports them too (see `CheckContext.memo`)."""
    ctx = CheckContext(fabric, policy, states, previous or baseline or {}, baseline or {})
    if memo is not None:
        ctx.memo = memo
    raw: list[tuple[Rule, Issue]] = []
    with paused_gc():
        for r in RULES.values():
            if r.scope == "fabric":
                raw += [(r, issue) for issue in r.func(ctx)]
        raw += _device_issues([r for r in RULES.values() if r.scope == "device"], ctx)
        raw += _link_issues([r for r in RULES.values() if r.scope == "link"], ctx)
        raw = [(r, i) for r, i in raw if not _unread(r, i, states)]
        if fabric.waivers is None:
            return _merge([(r, i, None) for r, i in raw], states)
        day = waivers.today()
        decided = [(r, i, fabric.waivers.decide(r.id, i.device, i.interface, day)) for r, i in raw]
        used = {d.index for _, _, d in decided if d is not None}
        for r in RULES.values():
            if r.scope == "waivers":
                decided += [(r, issue, None) for issue in r.func(fabric.waivers, used, day, ctx)]
        return _merge(decided, states)


def _applies(r: Rule, state: DeviceState, kind: str) -> bool:
    if r.facet is not None and r.facet not in state.facets:
        return False
    if r.platforms is not None and state.platform not in r.platforms:
        return False
    return r.roles is None or kind in r.roles


def _unread(r: Rule, issue: Issue, states: dict[str, DeviceState]) -> bool:
    """An issue about settings the source did not show is no verdict: the rule read an empty or
    default value where the device said nothing. `parse.incomplete` names those settings instead,
    once per device."""
    if not r.fields:
        return False
    state = states.get(issue.device)
    if state is None:
        return False
    if issue.interface is None:
        return not state.unread.isdisjoint(r.fields)
    if issue.interface in state.interfaces:
        return state.port_unread(issue.interface, r.fields)
    # An issue about several ports names them as ranges ('Ethernet1-4,31').
    return any(state.port_unread(port, r.fields) for port in expand_ports(issue.interface))


def _device_issues(rules: list[Rule], ctx: CheckContext) -> list[tuple[Rule, Issue]]:
    """Every device rule, device by device: the rules of one device read the same ports, which then
    stay in the CPU's caches (rule by rule, each rule walked the whole fabric's states again)."""
    raw: list[tuple[Rule, Issue]] = []
    # Which rules apply depends only on the device's platform, what it was read as and which facets
    # were read: a fabric has thousands of devices but a handful of such kinds.
    applicable: dict[tuple[str, str, frozenset[str]], list[Rule]] = {}
    for name, state in ctx.states.items():
        device = ctx.fabric.devices[name]
        key = (device.platform, state.platform, state.facets)
        these = applicable.get(key)
        if these is None:
            kind = get_platform(device.platform).kind
            these = applicable[key] = [r for r in rules if _applies(r, state, kind)]
        for r in these:
            # A rule that returns an empty tuple or list (nearly all, at fabric scale) is skipped
            # without a comprehension; a generator is always walked.
            if issues := r.func(state, device, ctx):
                raw += [(r, issue) for issue in issues]
    return raw


def _link_issues(rules: list[Rule], ctx: CheckContext) -> list[tuple[Rule, Issue]]:
    """Every link rule, link by link, for the same reason as `_device_issues`."""
    raw: list[tuple[Rule, Issue]] = []
    for link, a, b in _checked_links(ctx):
        for r in rules:
            if r.facet in a.facets and r.facet in b.facets and (issues := r.func(link, a, b, ctx)):
                raw += [(r, issue) for issue in issues]
    return raw


def _checked_links(ctx: CheckContext) -> Iterator[tuple[Link, DeviceState, DeviceState]]:
    """(link, state of one end, of the other) of each link with both ends read."""
    states = ctx.states
    for link in ctx.fabric.links:
        a, b = states.get(link.a.device), states.get(link.b.device)
        if a is not None and b is not None:
            yield link, a, b


def _merge(raw: list[tuple[Rule, Issue, Decision | None]], states: dict[str, DeviceState]) -> list[Finding]:
    """Ports of one device failing one rule the same way (and under the same waiver) become one
    finding listing the ports.

    The finding points where its issue says, else at the first of those ports in the file its device
    was read from. A waiver that holds makes it info; either way the message names the waiver."""
    groups: dict[tuple, list[str | None]] = {}
    # Per group: the message, a place the issue names itself (a cabling CSV row), the rule's fields.
    told: dict[tuple, tuple[str, tuple[str | None, int | None] | None, tuple[str, ...]]] = {}
    for r, i, decision in raw:
        severity = Severity.INFO if decision is not None and decision.holds else i.severity or r.severity
        key = (
            r.id,
            severity,
            i.device,
            i.expected,
            i.actual,
            i.message if not i.interface else "",
            decision.index if decision is not None else None,
        )
        groups.setdefault(key, []).append(i.interface)
        message = f"{i.message}; {decision.note()}" if decision is not None else i.message
        place = (i.file, i.line) if i.file else None
        told[key] = (message, place or (told[key][1] if key in told else None), i.fields + r.fields)
    findings = []
    for key, ifaces in groups.items():
        rule_id, severity, device, expected, actual, _, _ = key
        message, place, fields = told[key]
        names = sorted({n for n in ifaces if n}, key=port_sort_key)
        interface = port_ranges(names) if names else None
        if len(names) > 1:
            message = f"{message} (on {len(names)} ports)"
        state = states.get(device)
        file = state.source_file if state is not None else None
        # A line means something only in a file a person can open (a config file of a repository).
        line = state.line_of(names[0] if names else None, fields) if file else None
        file, line = place or (file, line)
        findings.append(
            Finding(rule_id, Severity(severity), device, interface, expected, actual, message, file, line)
        )
    findings.sort(key=_report_order)
    return findings


def _report_order(f: Finding) -> tuple[bool, int, str, str, str]:
    # Cabling plans are checked before anything else: plan.* findings lead the report, whatever
    # their severity, as they make later findings about the same cables moot.
    return (not f.rule.startswith("plan."), -f.severity.rank, f.device, f.rule, f.interface or "")


def worst(findings: list[Finding]) -> Severity | None:
    return max((f.severity for f in findings), key=lambda s: s.rank, default=None)
