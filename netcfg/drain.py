"""The drain list: the hosts to drain for their own NIC, link or cabling trouble, as a scheduler takes
them (Slurm `scontrol` lines, Kubernetes `kubectl` taints and annotations, or JSON), and the hosts a
switch-wide fault only impacts (`netcfg.impact`), named but not drained unless asked.

Three things keep a list from draining a cluster. What drains nothing: info (a waived finding is
info), findings about collection or unreadable output (the device is unknown, which the report
names), the inventory's own cabling plan (`plan.*`) and the waivers themselves. A gate that cannot
judge (most audited devices not collected or not read) writes no list. And a circuit breaker
(`--max-drain`, by default 10% of the inventory's hosts): a list that would drain more is not
written. Either way the previous list is left as it was and the run exits 5, naming why.

Every value is shell-quoted (shlex), so no message can end a line or start a command; comments are
one line each. The file is written whole or not at all, carries netcfg's marker on its first line
(JSON: a `generator` key), and netcfg never replaces a file without it. An empty list is still
written: the scheduler then drains nothing.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from netcfg import __version__
from netcfg.errors import InputError
from netcfg.files import read_bytes
from netcfg.impact import UNREAD, DrainPlan, Reason, drain_plan
from netcfg.model import Fabric, Role
from netcfg.output import write_report
from netcfg.rules import Finding

FORMATS = ("slurm", "kubernetes", "json")
SCOPES = ("own", "impacted")
# The share of the inventory's hosts one list may drain: a wrong switch line, a bad policy push or a
# misread fleet drains a tenth at most before someone looks; a real wave of host faults that large
# needs a person anyway (`--max-drain` lets them through).
DEFAULT_MAX_DRAIN = "10%"
MARKER = "# netcfg drain list"
GENERATOR = "netcfg drain list"
TAINT = "netcfg.io/fabric=degraded:NoSchedule"
ANNOTATION = "netcfg.io/drain-reason"
_SHORT = 120
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


class DrainWithheld(Exception):
    """The list was not written (circuit breaker, or a gate that cannot judge); the previous one stays."""


def reason_dict(reason: Reason) -> dict[str, str | None]:
    return {
        "rule": reason.rule,
        "interface": reason.interface,
        "severity": reason.severity.value,
        "message": reason.message,
    }


def short(reason: Reason) -> str:
    """`netcfg: <rule> <port>: <message>`, on one line and cut to a length a scheduler shows."""
    message = one_line(reason.message)
    if len(message) > _SHORT:
        message = message[: _SHORT - 3].rstrip() + "..."
    # A port name is read from the device too: a newline in it would end a comment or a quoted value.
    port = one_line(reason.interface or "")
    where = f" {port}" if port else ""
    return f"netcfg: {reason.rule}{where}: {message}"


def one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def _summary(reasons: list[Reason]) -> str:
    return short(reasons[0]) + (f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else "")


def render_drain_list(plan: DrainPlan, fmt: str, fabric: str, source: str) -> str:
    """The drain list in one of FORMATS."""
    if fmt == "json":
        data = {
            "generator": GENERATOR,
            "netcfg": __version__,
            "fabric": fabric,
            "source": source,
            "hosts": [{"host": h, "reasons": [reason_dict(r) for r in rs]} for h, rs in plan.drain.items()],
            "impacted": [
                {"host": h, "reasons": [reason_dict(r) for r in rs]} for h, rs in plan.impacted.items()
            ],
        }
        return json.dumps(data, indent=2) + "\n"
    header = (
        f"{MARKER} ({fmt}) of fabric {fabric}, {len(plan.drain)} host(s), {len(plan.impacted)} impacted, "
        f"from {one_line(source)}; written by netcfg {__version__}, which replaces it on its next run"
    )
    lines = [header]
    for host, reasons in plan.drain.items():
        reason, node = _summary(reasons), shlex.quote(host)
        if fmt == "slurm":
            lines.append(f"scontrol update nodename={node} state=drain reason={shlex.quote(reason)}")
        else:
            lines.append(f"kubectl taint nodes {node} {TAINT} --overwrite")
            lines.append(f"kubectl annotate node {node} {shlex.quote(f'{ANNOTATION}={reason}')} --overwrite")
    if plan.impacted:
        lines.append("# impacted, not drained (a switch-wide fault; --drain-scope impacted drains them):")
        lines += [f"# {one_line(host)}: {_summary(reasons)}" for host, reasons in plan.impacted.items()]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class DrainLimit:
    """`--max-drain`: a number of hosts, or a share of the inventory's hosts (`10%`, rounded up, so a
    small fabric can still drain one)."""

    text: str

    @classmethod
    def parse(cls, text: str) -> DrainLimit:
        number = text[:-1] if text.endswith("%") else text
        if not number.isascii() or not number.isdigit() or (text.endswith("%") and int(number) > 100):
            raise ValueError(f"{text[:20]!r}: expected a number of hosts (5) or a share of them (10%)")
        return cls(text)

    def hosts(self, total: int) -> int:
        if self.text.endswith("%"):
            return math.ceil(total * int(self.text[:-1]) / 100)
        return int(self.text)


def cannot_judge(findings: Iterable[Finding], audited: Collection[str]) -> str | None:
    """Why an audit cannot decide whom to drain: none of its devices, or most of them, could not be
    collected or read (the lab died, the management network is down). None when it can."""
    unread = {f.device for f in findings if f.rule.startswith(UNREAD)} & set(audited)
    if not audited or 2 * len(unread) > len(audited):
        return f"{len(unread)} of {len(audited)} audited devices could not be collected or read"
    return None


def _written_by_netcfg(data: bytes) -> bool:
    if data.startswith(MARKER.encode()):
        return True
    try:
        parsed = json.loads(data)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("generator") == GENERATOR


@dataclass(frozen=True, slots=True)
class DrainTarget:
    path: Path
    format: str

    @classmethod
    def from_args(cls, path: str | None, fmt: str | None) -> DrainTarget | None:
        """The drain list a run writes (`--drain-list`, `--drain-format`, else by suffix: `.json` is
        JSON, anything else Slurm), refused now if netcfg may not write it."""
        if path is None:
            if fmt is not None:
                raise InputError("--drain-format", "needs --drain-list FILE")
            return None
        target = cls(Path(path), fmt or ("json" if path.endswith(".json") else "slurm"))
        target.check()
        return target

    @property
    def option(self) -> str:
        return f"--drain-list {self.path}"

    def check(self) -> None:
        """A new file in an existing folder, or a drain list netcfg wrote; anything else is refused."""
        try:
            self.path.stat()
        except FileNotFoundError:
            if not self.path.parent.is_dir():
                raise InputError(
                    self.option, f"folder {self.path.parent} does not exist; expected an existing folder"
                ) from None
            return
        except OSError as exc:
            raise InputError(self.option, f"cannot be read ({exc.strerror})") from None
        # A folder, FIFO or device is refused here, naming the file.
        data = read_bytes(self.path, "drain list")
        if not _written_by_netcfg(data):
            raise InputError(
                self.option,
                f"exists and was not written by netcfg (no '{MARKER}' first line or JSON generator key); "
                "expected a new file or an earlier netcfg drain list",
            )

    def write(
        self,
        fabric: Fabric,
        findings: Iterable[Finding],
        source: str,
        audited: Collection[str],
        scope: str = "own",
        limit: DrainLimit = DrainLimit(DEFAULT_MAX_DRAIN),
    ) -> DrainPlan:
        """Write the drain list whole (temporary file, then rename) and return it; DrainWithheld, and
        the file left as it was, when the audit cannot judge or the list would drain too many."""
        findings = list(findings)
        keep = f"no drain list written, {self.path} is left as it was"
        unjudged = cannot_judge(findings, audited)
        if unjudged is not None:
            raise DrainWithheld(f"cannot judge whom to drain: {unjudged}; {keep}")
        plan = drain_plan(fabric, findings).scoped(scope)
        total = len(fabric.by_role(Role.HOST))
        allowed = limit.hosts(total)
        if len(plan.drain) > allowed:
            causes = Counter(rule for reasons in plan.drain.values() for rule in {r.rule for r in reasons})
            why = ", ".join(f"{rule} ({n})" for rule, n in causes.most_common(3))
            raise DrainWithheld(
                f"--max-drain {limit.text}: would drain {len(plan.drain)} of {total} hosts, more than "
                f"{allowed} ({why}); {keep}"
            )
        self.check()
        write_report(self.path, render_drain_list(plan, self.format, fabric.name, source), "--drain-list")
        return plan
