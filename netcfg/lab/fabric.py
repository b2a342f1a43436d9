"""A whole fabric as lab devices: each answers its platform's commands from its simulated state."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from netcfg.lab.devices import DeviceFaults
from netcfg.lab.profile import LabDevice, TransportFault
from netcfg.lab.snapshot import simulated_outputs
from netcfg.lab.sshserver import LabServer
from netcfg.model import Fabric
from netcfg.platforms import get_platform
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


def shell_responder(outputs: dict[str, str]) -> Callable[[str], str | None]:
    """Answers single commands, and `;`-chained lines with `echo "..."` markers as a shell would."""

    def respond(line: str) -> str | None:
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


def lab_devices(fabric: Fabric, policy: Policy, faults: dict[str, DeviceFaults]) -> list[LabDevice]:
    devices = []
    for name, outputs in simulated_outputs(fabric, policy, faults).items():
        platform = get_platform(fabric.devices[name].platform)
        devices.append(
            LabDevice(
                name=name,
                profile=platform.cli_profile,
                responder=shell_responder(outputs),
                fault=transport_fault(faults.get(name)),
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
