"""A live audit of a lab fabric over real SSH (Nornir + netmiko to the lab on 127.0.0.1), for the
platforms' live tests, and what the drain list a demo wrote drains."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from netmiko import BaseConnection

from netcfg.audit import AuditResult, run_audit
from netcfg.collect import CollectOptions, session_class
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.model import Fabric
from netcfg.nornir_inventory import Login, read_connections
from netcfg.policy import Policy


def live_audit(
    fabric: Fabric,
    policy: Policy,
    faults: dict[str, DeviceFaults],
    login: Login,
    tmp_path_factory: pytest.TempPathFactory,
    timeout_s: float = 3.0,
) -> AuditResult:
    """Serve the fabric with its faults, audit it as `netcfg audit` does, stop the lab."""
    with lab_server(fabric, policy, faults, login.username, login.password) as server:
        connections, known_hosts = write_connection_files(server, tmp_path_factory.mktemp("lab"))
        out = tmp_path_factory.mktemp("audit")
        opts = CollectOptions(workers=20, timeout_s=timeout_s, known_hosts=known_hosts)
        return run_audit(
            fabric,
            policy,
            login,
            out / "snapshots",
            out / "reports",
            opts,
            connections=read_connections(connections),
        )


@contextmanager
def cli_session(device_type: str, port: int, login: Login) -> Iterator[BaseConnection]:
    """A session to one lab device on 127.0.0.1 as collection opens it (netmiko, `session_class`)."""
    sock = socket.create_connection(("127.0.0.1", port))
    conn = session_class(device_type)(
        device_type=device_type,
        host="127.0.0.1",
        port=port,
        sock=sock,
        username=login.username,
        password=login.password,
        fast_cli=True,
        global_delay_factor=0.05,
    )
    try:
        yield conn
    finally:
        conn.disconnect()


def drain_list(path: Path) -> tuple[list[str], list[str]]:
    """The hosts a Slurm drain list drains, and those it names as impacted."""
    lines = path.read_text().splitlines()
    drained = [line.split()[2].removeprefix("nodename=") for line in lines if line.startswith("scontrol")]
    impacted = [line[2:].split(":")[0] for line in lines if line.startswith("# ") and ": netcfg: " in line]
    return drained, impacted
