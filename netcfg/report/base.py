"""What every report holds: the findings plus a summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from netcfg.checks import Finding, Severity


@dataclass(slots=True)
class Report:
    fabric: str
    source: str
    devices_checked: int
    findings: list[Finding]
    extra: dict[str, object] = field(default_factory=dict)

    def summary(self) -> dict[str, object]:
        counts = Counter(f.severity.value for f in self.findings)
        return {
            "fabric": self.fabric,
            "source": self.source,
            "devices_checked": self.devices_checked,
            "findings": {s.value: counts.get(s.value, 0) for s in Severity},
            **self.extra,
        }
