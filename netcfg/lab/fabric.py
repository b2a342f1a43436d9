"""A whole fabric as lab devices: each answers its platform's commands from its simulated state."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from functools import cache, partial
from pathlib import Path

from netcfg.errors import InputError, OutputError
from netcfg.folder_lock import folder_lock
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.profile import LabDevice, TransportFault
from netcfg.lab.snapshot import SimulatedDevice, simulated_devices
from netcfg.lab.sshserver import LabServer
from netcfg.model import Fabric
from netcfg.platforms.simulator import Simulator, simulator
from netcfg.policy import Policy


def transport_fault(faults: DeviceFaults | None) -> TransportFault:
    if faults is None:
        return TransportFault()
    kind = faults.transport
    return TransportFault(
        refuse=kind == "unreachable",
        auth_fail=kind == "auth_fail",
        silent=kind == "silent",
        truncate=kind == "truncate",
        garble=kind == "garble",
        latency_s=faults.slow_s,
    )


def shell_responder(
    replies: Mapping[str, str] | Callable[[], Mapping[str, str]],
) -> Callable[[str], str | None]:
    """Answers single commands, and `;`-chained lines with `echo "..."` markers as a shell would.

    `replies`: the outputs by command, or what gives them as read now (a device whose counters move),
    asked once per command line."""

    def respond(line: str) -> str | None:
        outputs = replies() if callable(replies) else replies
        if line in outputs:
            return outputs[line]
        parts = [p.strip() for p in line.split(";")]
        if len(parts) < 2:
            return None
        out = []
        for part in parts:
            echo = re.fullmatch(r'echo "([^"]*)"', part)
            reply = echo.group(1) + "\n" if echo else outputs.get(part)
            if reply is None:
                return None
            out.append(reply if reply.endswith("\n") or not reply else reply + "\n")
        return "".join(out)

    return respond


def read_only_responder(
    played: Simulator, respond: Callable[[str], str | None]
) -> Callable[[str], str | None]:
    """`respond`, for the platform's read-only commands only: anything else gets the platform's
    invalid-input text, as a device would answer a command it refuses, and changes nothing."""

    def gated(line: str) -> str | None:
        return respond(line) if played.answers(line) else None

    return gated


def _session_responder(played: Simulator, simulated: SimulatedDevice) -> Callable[[str], str | None]:
    """One session's replies: the device is read when the session first asks for an output, and
    every later command of the session answers from that reading."""
    respond = shell_responder(cache(simulated.outputs))

    def with_routes(line: str) -> str | None:
        found = simulated.route_output(line)
        return respond(line) if found is None else found

    return read_only_responder(played, with_routes)


def lab_devices(fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults]) -> list[LabDevice]:
    devices = []
    for name, simulated in simulated_devices(fabric, policy, faults).items():
        played = simulator(fabric.devices[name].platform)
        simulated.prime()
        devices.append(
            LabDevice(
                name=name,
                profile=played.cli_profile,
                fault=transport_fault(faults.get(name)),
                sessions=partial(_session_responder, played, simulated),
            )
        )
    return devices


def lab_server(
    fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults], username: str, password: str
) -> LabServer:
    return LabServer(lab_devices(fabric, policy, faults), username=username, password=password)


def write_connection_files(server: LabServer, folder: Path) -> tuple[Path, Path]:
    """`connections.json` (device -> hostname, port) and `known_hosts` for the running lab."""
    folder.mkdir(parents=True, exist_ok=True)
    connections = folder / "connections.json"
    data = {name: {"hostname": server.host, "port": port} for name, port in server.ports.items()}
    connections.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    known_hosts = folder / "known_hosts"
    server.write_known_hosts(known_hosts)
    return connections, known_hosts


@contextmanager
def connection_files(server: LabServer, folder: Path) -> Iterator[tuple[Path, Path]]:
    """`write_connection_files` for as long as the block runs; then what it wrote is removed.

    The folder is locked meanwhile: a second lab on it is refused, naming the first, instead of
    writing over its files (and removing them when it stops). A file is removed only if it still
    holds what this lab wrote, and of the folders only those it created, and only when they are empty.
    """
    where = f"--state-dir {folder}"
    if folder.exists() and not folder.is_dir():
        raise InputError(where, "exists and is not a folder; expected a folder")
    created = [p for p in (folder, *folder.parents) if not p.exists()]
    written: dict[Path, bytes] = {}
    try:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError.from_os_error(exc.filename or folder, exc) from None
        with folder_lock(folder, "lab serve", where):
            try:
                paths = write_connection_files(server, folder)
                written = {path: path.read_bytes() for path in paths}
            except OSError as exc:
                raise OutputError.from_os_error(exc.filename or folder, exc) from None
            try:
                yield paths
            finally:
                _remove([], written)
    finally:
        _remove(created, {})


def _remove(created: list[Path], written: dict[Path, bytes]) -> None:
    for path, data in written.items():
        with suppress(OSError):
            if path.read_bytes() == data:
                path.unlink()
    for path in created:  # innermost first
        with suppress(OSError):
            path.rmdir()
