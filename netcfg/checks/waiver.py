"""The rule about the waivers themselves: one that exempts nothing is named, so none outlives its fault."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from netcfg.rules import CheckContext, Issue, Severity, rule
from netcfg.waivers import Waivers


@rule("waiver.unused", Severity.INFO, scope="waivers", facet=None)
def check_unused(waivers: Waivers, used: set[int], day: date, ctx: CheckContext) -> Iterator[Issue]:
    """A waiver matches no finding of a device this run checked: what it exempted is fixed (or the
    waiver names it wrongly), and it can go. Named at its line in the waivers file."""
    checked = {*ctx.states, "(fabric)"}
    for i, w in enumerate(waivers.entries):
        if i in used or not waivers.covers(i, checked):
            continue
        expired = "" if w.holds_on(day) else f" (it expired on {w.expires})"
        yield Issue(
            "(fabric)",
            None,
            f"a finding that {w.label()} exempts",
            f"no finding matches {w.label()}",
            f"waiver {w.label()} by {w.owner} matches no finding{expired}: remove it if the fault is fixed",
            file=str(waivers.source),
            line=waivers.lines[i],
        )
