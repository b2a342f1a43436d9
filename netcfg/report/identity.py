"""What tells one finding from another in CI tools that merge by name: JUnit test case names and the
fingerprints of SARIF and GitLab Code Quality.

Code scanning folds results with one `partialFingerprints` value into one alert, GitLab keeps one
Code Quality entry per fingerprint, and a JUnit report with two cases of one name shows one. The
merged finding's `item` (device.rule.ports) is not enough: a rule may find two things wrong on one
device without naming a port (two duplicate addresses), or two settings of one port.

A fingerprint must also survive the next run of the same finding: it leaves out the line (an edit
above the setting moves it), the file (a config folder is moved or checked out elsewhere), the
message and, for a finding on ports, the value found (a counter reads higher each audit; the
finding is the port, the rule and what was expected of it).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence

from netcfg.rules import Finding


def identity(f: Finding) -> tuple[str, ...]:
    """The parts that make a finding the same finding on the next run."""
    # Without ports, what was found is what tells two findings of one device and rule apart.
    return (f.rule, f.device, f.interface or "", f.expected, "" if f.interface else f.actual)


def fingerprints(findings: Sequence[Finding], scope: str = "") -> list[str]:
    """A stable SHA-256 per finding, distinct within the report (and, with a `scope` such as the
    fabric's name, from another report's).

    Findings identical in every identifying part (a rule yielding the same thing twice) are told
    apart by their order among themselves, sorted by what else they say, so the same set of
    findings gets the same fingerprints whatever order the rules ran in."""
    keys = [identity(f) for f in findings]
    counts = Counter(keys)
    twins = sorted(
        (i for i, key in enumerate(keys) if counts[key] > 1), key=lambda i: _order(keys[i], findings[i])
    )
    seen: Counter[tuple[str, ...]] = Counter()
    for i in twins:
        seen[keys[i]] += 1
        if seen[keys[i]] > 1:
            keys[i] = (*keys[i], str(seen[keys[i]]))
    # JSON keeps the parts apart whatever characters they hold.
    return [hashlib.sha256(json.dumps([scope, *key] if scope else key).encode()).hexdigest() for key in keys]


def case_names(findings: Sequence[Finding]) -> list[str]:
    """A JUnit test case name per finding: its `item`; where two findings share one, what each
    expected after it, and where that is shared too, what each found; `#2`, `#3` for exact twins."""
    items = Counter(f.item for f in findings)
    expected = Counter((f.item, f.expected) for f in findings)
    names = []
    for f in findings:
        if items[f.item] == 1:
            names.append(f.item)
        elif expected[(f.item, f.expected)] == 1:
            names.append(f"{f.item} (expected {f.expected})")
        else:
            names.append(f"{f.item} (expected {f.expected}, found {f.actual})")
    taken: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 1
        while candidate in taken:
            n += 1
            candidate = f"{name} #{n}"
        taken.add(candidate)
        out.append(candidate)
    return out


def _order(key: tuple[str, ...], f: Finding) -> tuple[object, ...]:
    # Every field of the finding, so that only findings equal in all of them tie (and those cannot
    # be told apart anyway): a severity left out let two twins swap fingerprints between runs.
    return (key, f.severity.value, f.actual, f.message, f.file or "", f.line is None, f.line or 0)
