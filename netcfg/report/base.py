"""What every report holds: the findings, a summary, and which rules the source let netcfg run."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from netcfg.checks.catalogue import RULES
from netcfg.model import DeviceState
from netcfg.report.text import neutral
from netcfg.rules import Finding, Severity

if TYPE_CHECKING:
    from netcfg.drift import Change
    from netcfg.report.layout import FabricLayout

# Rules about collecting over SSH: an offline check (intent, config files, a snapshot) never ran them.
COLLECTION_PREFIX = "collect."


@dataclass(slots=True)
class Report:
    fabric: str
    source: str
    devices_checked: int
    findings: list[Finding]
    extra: dict[str, object] = field(default_factory=dict)
    # Rule id -> why it was not checked on this source. A rule left out here was checked: a rule with
    # no finding passed. Test reports must not show an unchecked rule as passed.
    not_run: dict[str, str] = field(default_factory=dict)
    # The inventory file, for locating findings that have no config file (live audits).
    inventory: str | None = None
    # What SARIF paths are relative to (GitHub resolves them from the repository root); None: the
    # current folder.
    repo_root: Path | None = None
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    # Where each device sits (rails, scalable units, host NICs and their leaf ports), for formats that
    # draw the fabric (HTML); None: the report was made without the fabric at hand.
    layout: FabricLayout | None = None
    # What changed since the previous audit; None: there was no earlier audit to compare with.
    drift: list[Change] | None = None
    # The severity from which a finding fails the run (`--fail-on`): test reports show exactly those
    # findings as failed tests, so a passing job never shows a failed test.
    fail_on: Severity = Severity.ERROR
    # The devices of the inventory and the folder of config files they were read from, when the
    # source is a config folder: the summary says how many of them had a file.
    planned: int | None = None
    config_folder: str | None = None

    def __post_init__(self) -> None:
        # Device text reaches every format through here, neutral once for all of them (the terminal
        # table, Markdown, JUnit, SARIF, HTML, JSON): no format can forget it.
        self.source = neutral(self.source)
        self.findings = [_neutral_finding(f) for f in self.findings]
        if self.drift is not None:
            self.drift = [
                dataclasses.replace(c, **{k: neutral(v) for k, v in c.as_dict().items()}) for c in self.drift
            ]

    def summary(self) -> dict[str, object]:
        counts = Counter(f.severity.value for f in self.findings)
        return {
            "fabric": self.fabric,
            "source": self.source,
            "devices_checked": self.devices_checked,
            **({} if self.planned is None else {"devices_planned": self.planned}),
            "findings": {s.value: counts.get(s.value, 0) for s in Severity},
            **self.extra,
        }

    def checked_line(self) -> str:
        """How many devices were checked, and from what: `18 devices checked`, or for a config
        folder `16 of 18 devices checked from config files in configs/`."""
        n = self.devices_checked
        text = (
            f"{n} of {self.planned} devices checked"
            if self.planned not in (None, n)
            else f"{n} devices checked"
        )
        return f"{text} from config files in {self.config_folder}" if self.config_folder else text

    def fails(self, finding: Finding) -> bool:
        """The finding fails the run (it is at or above `--fail-on`)."""
        return finding.severity.rank >= self.fail_on.rank


def _neutral_finding(finding: Finding) -> Finding:
    return dataclasses.replace(
        finding,
        device=neutral(finding.device),
        interface=None if finding.interface is None else neutral(finding.interface),
        expected=neutral(finding.expected),
        actual=neutral(finding.actual),
        message=neutral(finding.message),
    )


def rules_not_run(
    states: Iterable[DeviceState], collected: bool, previous: bool = False, baseline: bool = False
) -> dict[str, str]:
    """The rules a source gave no data for, and why: a config file has no LLDP table, nothing was
    collected in an offline check, and counter rates need an earlier reading (`previous`: there was
    one, the previous audit's or the baseline's; `baseline`: a go-live baseline apart from it)."""
    covered = frozenset().union(*(s.facets for s in states))
    skipped = {}
    for rule in RULES.values():
        if rule.id.startswith(COLLECTION_PREFIX) and not collected:
            skipped[rule.id] = "offline check: this run collected nothing over SSH"
        elif rule.facet is not None and rule.facet not in covered:
            skipped[rule.id] = f"the source has no {rule.facet} data for any device"
        elif rule.compares == "previous" and not previous:
            skipped[rule.id] = (
                "no earlier reading to compare counters with (the first audit, or no --previous)"
            )
        elif rule.compares == "baseline" and not baseline:
            skipped[rule.id] = "no go-live baseline apart from the previous reading (netcfg audit --baseline)"
    return skipped
