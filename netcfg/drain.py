"""The drain list: the hosts whose NIC, link or cabling findings would slow a job, as a scheduler takes
them (Slurm `scontrol` lines, Kubernetes `kubectl` taints and annotations, or JSON).

A host is drained for an error or warning on the host itself, or on a switch port whose planned
cable ends at the host (a leaf port with ECN off slows the NIC behind it). What drains nothing: info
(a waived finding is info), findings about collection or unreadable output (the device is unknown,
which the report names; draining on unknown would drain the fabric whenever the management network
hiccups), the inventory's own cabling plan (`plan.*`) and the waivers themselves.

Every value is shell-quoted (shlex), so no message can end a line or start a command. The file is
written whole or not at all, carries netcfg's marker on its first line (JSON: a `generator` key), and
netcfg never replaces a file without it. An empty list is still written: the scheduler then drains
nothing.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from netcfg import __version__
from netcfg.errors import InputError
from netcfg.files import read_bytes
from netcfg.model import Endpoint, Fabric, Role, expand_ports, port_sort_key
from netcfg.output import write_report
from netcfg.rules import Finding, Severity

FORMATS = ("slurm", "kubernetes", "json")
MARKER = "# netcfg drain list"
GENERATOR = "netcfg drain list"
TAINT = "netcfg.io/fabric=degraded:NoSchedule"
ANNOTATION = "netcfg.io/drain-reason"
_NOT_HOST_HEALTH = ("collect.", "parse.", "state.", "plan.", "waiver.")
_SHORT = 120
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


@dataclass(frozen=True, slots=True)
class Reason:
    """One finding that drains a host; `interface` is the host's port, or `switch:port` for a
    finding on the switch end of the host's cable."""

    rule: str
    interface: str | None
    severity: Severity
    message: str

    def as_dict(self) -> dict[str, str | None]:
        return {
            "rule": self.rule,
            "interface": self.interface,
            "severity": self.severity.value,
            "message": self.message,
        }

    def short(self) -> str:
        """`netcfg: <rule> <port>: <message>`, on one line and cut to a length a scheduler shows."""
        message = one_line(self.message)
        if len(message) > _SHORT:
            message = message[: _SHORT - 3].rstrip() + "..."
        where = f" {self.interface}" if self.interface else ""
        return f"netcfg: {self.rule}{where}: {message}"


def one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def drain_reasons(fabric: Fabric, findings: Iterable[Finding]) -> dict[str, list[Reason]]:
    """Host -> the findings that drain it (worst first), hosts in name order."""
    hosts: dict[str, list[Reason]] = {}
    for f in findings:
        device = fabric.devices.get(f.device)
        if device is None or f.severity == Severity.INFO or f.rule.startswith(_NOT_HOST_HEALTH):
            continue
        if device.role == Role.HOST:
            hosts.setdefault(f.device, []).append(Reason(f.rule, f.interface, f.severity, f.message))
            continue
        for port in expand_ports(f.interface) if f.interface else ():
            peer = fabric.peer(Endpoint(f.device, port))
            if peer is not None and fabric.devices[peer.device].role == Role.HOST:
                reason = Reason(f.rule, f"{f.device}:{port}", f.severity, f.message)
                hosts.setdefault(peer.device, []).append(reason)
    return {
        host: sorted(set(reasons), key=lambda r: (-r.severity.rank, r.rule, port_sort_key(r.interface or "")))
        for host, reasons in sorted(hosts.items(), key=lambda item: port_sort_key(item[0]))
    }


def render_drain_list(hosts: dict[str, list[Reason]], fmt: str, fabric: str, source: str) -> str:
    """The drain list in one of FORMATS."""
    if fmt == "json":
        data = {
            "generator": GENERATOR,
            "netcfg": __version__,
            "fabric": fabric,
            "source": source,
            "hosts": [{"host": h, "reasons": [r.as_dict() for r in rs]} for h, rs in hosts.items()],
        }
        return json.dumps(data, indent=2) + "\n"
    header = (
        f"{MARKER} ({fmt}) of fabric {fabric}, {len(hosts)} host(s), from {one_line(source)}; "
        f"written by netcfg {__version__}, which replaces it on its next run"
    )
    lines = [header]
    for host, reasons in hosts.items():
        reason = reasons[0].short() + (f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else "")
        node = shlex.quote(host)
        if fmt == "slurm":
            lines.append(f"scontrol update nodename={node} state=drain reason={shlex.quote(reason)}")
        else:
            lines.append(f"kubectl taint nodes {node} {TAINT} --overwrite")
            lines.append(f"kubectl annotate node {node} {shlex.quote(f'{ANNOTATION}={reason}')} --overwrite")
    return "\n".join(lines) + "\n"


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

    def write(self, fabric: Fabric, findings: Iterable[Finding], source: str) -> int:
        """Write the drain list whole (temporary file, then rename); returns how many hosts it drains."""
        hosts = drain_reasons(fabric, findings)
        self.check()
        write_report(self.path, render_drain_list(hosts, self.format, fabric.name, source), "--drain-list")
        return len(hosts)
