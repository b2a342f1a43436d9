"""`netcfg host-check`: the gate a GPU server runs on itself before a job, read-only and without SSH.

It produces the host platform's read-back locally, command by command as a collection would get it:
the `grep -rH .` reads of sysfs and configfs (and the GID read, `grep -rsHvx '[0:]*'`) are answered
from the files under `--root` (no shell, no grep; reads bounded and non-blocking, netcfg.sysread),
the other tools (mlnx_qos, bnxtqos, ethtool, lldpcli) run as programs (argv split as the shell
would, no shell, a timeout; netcfg.hosttools). One deadline bounds the whole check: what is not
read by then is left unjudged, by name. The platform parses the outputs, and the rules that judge a
device's state judge this one host; the plan's own rules and the rest of the fabric are not its
business.

Exit codes follow a Slurm prolog (non-zero drains the node) and a Kubernetes node-problem-detector
custom plugin (0 OK, 1 NonOK, 2 Unknown): 0 healthy, 1 findings at or above --fail-on, 2 cannot judge
(bad input; a tool missing, failing or timing out; output netcfg cannot read), 3 netcfg's own error.
The first line on stdout is short and says it all: node-problem-detector keeps only the start of a
plugin's output for its condition message.
"""

from __future__ import annotations

import shlex
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from netcfg import __version__
from netcfg.checks.catalogue import RULES
from netcfg.checks.runner import run_checks
from netcfg.deadline import Deadline
from netcfg.errors import InputError
from netcfg.hosttools import run_tool
from netcfg.model import Device, DeviceState, Fabric, Role
from netcfg.platforms import get_platform
from netcfg.platforms.base import Command, is_read_only
from netcfg.policy import Policy
from netcfg.rules import Finding
from netcfg.snapshot import CREATED_FORMAT, SnapshotWriter
from netcfg.sources import device_state
from netcfg.sysread import Unreadable, grep_files

# node-problem-detector's default `maxOutputLength` is 80: the headline stays within it when it can.
HEADLINE_CHARS = 80
# Well under what a scheduler allows its hooks (slurmd kills a health check after 60 s), so that
# netcfg, not the scheduler, says what took too long.
DEFAULT_DEADLINE_S = 20.0


@dataclass(slots=True)
class LocalReading:
    """The outputs of one round of the host's commands, when they were read, and the commands whose
    output could not be produced (command -> why)."""

    outputs: dict[str, str] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    read_at: float = 0.0


@dataclass(slots=True)
class HostCheck:
    """What the gate found: the host's state, its findings, or why it cannot judge (then no findings)."""

    host: str
    state: DeviceState
    findings: list[Finding]
    cannot_judge: dict[str, str]

    def headline(self, failing: list[Finding]) -> str:
        """One short line: healthy, the rules that failed, or why the host cannot be judged."""
        if self.cannot_judge:
            cli, why = next(iter(self.cannot_judge.items()))
            more = f" (+{len(self.cannot_judge) - 1} more)" if len(self.cannot_judge) > 1 else ""
            return f"{self.host}: cannot judge: {cli}: {why}{more}"
        if not failing:
            return f"{self.host}: healthy" + (f" ({len(self.findings)} notes)" if self.findings else "")
        rules = sorted({f.rule for f in failing})
        return fit(f"{self.host}: {len(failing)} finding{'s' * (len(failing) > 1)}: " + ", ".join(rules))

    def short_line(self, failing: list[Finding]) -> str:
        """The headline within HEADLINE_CHARS, for node-problem-detector: when the host cannot be
        judged, why (which names the tool or file) rather than the command line, which can fill it."""
        if not self.cannot_judge:
            return self.headline(failing)
        why = next(iter(self.cannot_judge.values()))
        more = f" (+{len(self.cannot_judge) - 1} more)" if len(self.cannot_judge) > 1 else ""
        return fit(f"{self.host}: cannot judge: {why}{more}")


def fit(line: str, limit: int = HEADLINE_CHARS) -> str:
    """`line` on one line of at most `limit` characters, cut with "..." when longer."""
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def this_host(fabric: Fabric, name: str | None) -> Device:
    """The inventory's host named `name`, or this machine's (its hostname, or the hostname's first
    label when the inventory names hosts short)."""
    given = name is not None
    candidates = [name] if given else [socket.gethostname(), socket.gethostname().split(".")[0]]
    for candidate in candidates:
        device = fabric.devices.get(candidate or "")
        if device is not None and device.role == Role.HOST:
            return device
    hosts = sorted(n for n, d in fabric.devices.items() if d.role == Role.HOST)
    shown = ", ".join(hosts[:5]) + (f" ... ({len(hosts)} hosts)" if len(hosts) > 5 else "")
    where = f"--host {name}" if given else f"--host (this machine: {candidates[0]})"
    raise InputError(where, f"a host of the inventory {fabric.source} ({shown})")


# The GID read (netcfg.platforms.linux.host.gid_command): `-v -x '[0:]*'` leaves out the empty,
# all-zero GIDs, `-s` the errors of the entries the kernel refuses to read.
GREP_GIDS = ["grep", "-rsHvx", "[0:]*"]


def read_locally(commands: list[Command], root: Path, timeout_s: float, deadline: Deadline) -> LocalReading:
    """Each command's output as the host prints it, produced here: file reads for `grep -rH .`, the
    other commands as programs. Once the deadline has passed, the command at hand fails by it and
    the rest are not run."""
    reading = LocalReading(read_at=round(time.time(), 3))
    for cmd in commands:
        if deadline.passed():
            reading.failures[cmd.cli] = deadline.why("not read")
            break
        argv = shlex.split(cmd.cli)
        try:
            if argv[:3] == ["grep", "-rH", "."]:
                text = grep_files(argv[3:], root, deadline)
                error = None if text.strip() else "no file under the paths it reads"
            elif argv[:3] == GREP_GIDS:
                text = grep_files(argv[3:], root, deadline, quiet=True)
                error = None if text.strip() else "no GID under the paths it reads"
            else:
                text, error = run_tool(argv, timeout_s, deadline)
        except Unreadable as exc:
            text, error = "", str(exc)
        except TimeoutError as exc:
            reading.failures[cmd.cli] = str(exc)
            break
        if error is None and not text.strip():
            error = "printed nothing"
        if error is not None and cmd.optional:
            continue  # what it reads stays unknown; the rest of the host is still judged
        if error is not None:
            reading.failures[cmd.cli] = error
        else:
            reading.outputs[cmd.file] = text
    return reading


def judge(fabric: Fabric, policy: Policy, state: DeviceState, previous: DeviceState | None) -> list[Finding]:
    """The host's findings from the rules that judge a device's state (not the plan's own rules, nor
    `state.missing` for the rest of the fabric). `previous`: the host's earlier reading (--interval),
    for the rules that judge counter rates."""
    earlier = {state.name: previous} if previous is not None else None
    findings = run_checks(fabric, policy, {state.name: state}, previous=earlier)
    return [f for f in findings if f.device == state.name and _judges_a_device(f.rule)]


def _judges_a_device(rule_id: str) -> bool:
    found = RULES[rule_id]
    return found.scope == "device" or found.facet is not None


def host_check(
    fabric: Fabric,
    policy: Policy,
    device: Device,
    root: Path,
    interval_s: float = 0.0,
    timeout_s: float = 10.0,
    deadline_s: float = DEFAULT_DEADLINE_S,
    save: Path | None = None,
) -> HostCheck:
    """Read the host locally (twice, `interval_s` apart, when rates are to be judged) and judge it,
    all within `deadline_s` (the interval included). `save`: also keep the reading there as a
    one-host snapshot (`save_reading`)."""
    if interval_s >= deadline_s:
        raise InputError(f"--interval {interval_s:g}", f"less than --deadline ({deadline_s:g} s)")
    deadline = Deadline(deadline_s)
    platform = get_platform(device.platform)
    if platform.kind != "host":
        raise InputError(f"--host {device.name}", f"a host; its platform {device.platform} is a switch's")
    if not (root / "sys").is_dir():
        raise InputError(f"--root {root}", "a folder holding the host's /sys (default /)")
    commands = platform.commands(device)
    refused = [c.cli for c in commands if not is_read_only(platform, c.cli)]
    if refused:
        raise InputError(f"--host {device.name}", f"read-only commands only, not {refused[0]!r}")
    first = read_locally(commands, root, timeout_s, deadline)
    current, previous = first, None
    if interval_s > 0 and not first.failures:
        time.sleep(interval_s)
        again = read_locally([c for c in commands if c.counters], root, timeout_s, deadline)
        previous = _state(device, first.outputs, first.read_at)
        current = LocalReading({**first.outputs, **again.outputs}, again.failures, again.read_at)
    state = _state(device, current.outputs, current.read_at)
    if save is not None:
        save_reading(fabric, device, current, save)
    cannot_judge = dict(current.failures) or dict(state.unparsed)
    if cannot_judge:
        return HostCheck(device.name, state, [], cannot_judge)
    return HostCheck(device.name, state, judge(fabric, policy, state, previous), {})


def save_reading(fabric: Fabric, device: Device, reading: LocalReading, target: Path) -> Path:
    """The host's reading as a snapshot of one device, as collection writes it (secrets masked,
    written whole or not at all; an earlier one of netcfg's at `target` is replaced): a fleet's hosts
    are read where they run, and `netcfg merge` joins their snapshots with the switches' shards.
    A command that could not be read is left out, so it reads as unknown there too."""
    platform = get_platform(device.platform)
    writer = SnapshotWriter(target, replace=True)
    try:
        commands = platform.commands(device)
        outputs = {
            c.file: platform.saved_output(reading.outputs[c.file])
            for c in commands
            if c.file in reading.outputs
        }
        digest = writer.write_device(device.name, outputs, platform.counter_files(device))
        created = datetime.fromtimestamp(reading.read_at, UTC).strftime(CREATED_FORMAT)
        meta = {
            "netcfg_version": __version__,
            "fabric": fabric.name,
            "created": created,
            "seconds": 0,
            "source": "netcfg host-check",
            "host_check": {"host": device.name, "not_read": sorted(reading.failures)},
            "devices": {
                device.name: {
                    "platform": device.platform,
                    "commands": [c.cli for c in commands],
                    "error": None,
                    "fingerprint": digest,
                    "read_at": reading.read_at,
                }
            },
        }
    except BaseException:
        writer.abort()
        raise
    return writer.commit(meta)


def _state(device: Device, outputs: Mapping[str, str], read_at: float) -> DeviceState:
    state = device_state(device, dict(outputs), None)
    state.read_at = read_at
    return state
