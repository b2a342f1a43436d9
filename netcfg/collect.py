"""Live collection: Nornir runs one task per device; the task drives netmiko over SSH.

Settings follow the measurements in live-collection-notes.md: a socket with TCP_NODELAY handed to
netmiko, no prompt search before each command, a small delay factor, the connection closed at the end
of each host's task. A device that fails becomes a collection error in the snapshot; what it printed
before failing is kept.
"""

from __future__ import annotations

import fnmatch
import random
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, partial
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from multiprocessing.queues import Queue
from pathlib import Path
from queue import Empty
from typing import Any

import paramiko
from netmiko import BaseConnection
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException, ReadTimeout
from netmiko.ssh_dispatcher import ssh_dispatcher
from nornir.core import Nornir
from nornir.core.inventory import Host
from nornir.core.task import AggregatedResult, MultiResult, Result, Task
from nornir.plugins.runners import ThreadedRunner
from paramiko.ssh_exception import BadHostKeyException, SSHException

from netcfg import __version__
from netcfg.model import DeviceState, Fabric
from netcfg.nornir_inventory import Login, nornir_inventory
from netcfg.platforms import get_platform
from netcfg.snapshot import SnapshotWriter, as_saved
from netcfg.sources import device_state


@dataclass(frozen=True, slots=True)
class CollectOptions:
    workers: int = 50
    processes: int = 1
    timeout_s: float = 10.0
    jitter_s: float = 0.0
    known_hosts: Path | None = None
    progress: bool = False
    # Parse each device as soon as it is collected, in the collector: an audit then needs no
    # separate parse of the snapshot, and the parsing overlaps other devices' network waits.
    parse: bool = False


@dataclass(slots=True)
class DeviceCollection:
    outputs: dict[str, str] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)
    error: tuple[str, str] | None = None
    seconds: float = 0.0
    fingerprint: str = ""
    state: DeviceState | None = None


@dataclass(frozen=True, slots=True)
class Selection:
    device_glob: str | None = None
    role: str | None = None
    rail: int | None = None

    def matches(self, host: Host) -> bool:
        if self.device_glob and not fnmatch.fnmatch(host.name, self.device_glob):
            return False
        if self.role and host.data["role"] != self.role:
            return False
        return not (self.rail is not None and self.rail not in host.data["rails"])


def _connect(host: Host, opts: CollectOptions) -> socket.socket:
    """TCP with NODELAY: paramiko leaves Nagle on, which stalls every handshake by ~85 ms."""
    sock = socket.create_connection((host.hostname, host.port), timeout=opts.timeout_s)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def split_known_hosts(known_hosts: Path, hosts: list[Host], folder: Path) -> dict[str, Path]:
    """One small known_hosts file per device.

    netmiko has paramiko re-read the whole file on every connection: with a thousand devices that
    parsing cost more CPU than the SSH sessions themselves. Keys are still checked before any password
    is sent; a device missing from the file gets an empty one and is refused.
    """
    every = paramiko.HostKeys(str(known_hosts))
    out = {}
    for host in hosts:
        name = host.hostname if host.port == 22 else f"[{host.hostname}]:{host.port}"
        mine = paramiko.HostKeys()
        for key_type, key in (every.lookup(name) or {}).items():
            mine.add(name, key_type, key)
        path = folder / f"{host.name}.known_hosts"
        mine.save(str(path))
        out[host.name] = path
    return out


def _netmiko_args(host: Host, sock: socket.socket, opts: CollectOptions) -> dict[str, Any]:
    args: dict[str, Any] = {
        "device_type": host.platform,
        "host": host.hostname,
        "port": host.port,
        "username": host.username,
        "password": host.password,
        "sock": sock,
        "fast_cli": True,
        "global_delay_factor": 0.05,
        "conn_timeout": opts.timeout_s,
        "auth_timeout": opts.timeout_s,
        "banner_timeout": opts.timeout_s,
        "read_timeout_override": opts.timeout_s,
        "use_keys": False,
        "allow_agent": False,
    }
    known = host.data.get("known_hosts_file")
    if known is not None:
        args |= {
            "ssh_strict": True,
            "system_host_keys": False,
            "alt_host_keys": True,
            "alt_key_file": str(known),
        }
    else:
        args |= {"ssh_strict": False, "system_host_keys": False}
    return args


class _ReadOnlySession:
    """What collection changes in netmiko's class for a platform: two round trips it does not need.

    Measured one device at a time on the lab, they were a fifth of each device's client CPU and
    about half of its wall time.
    """

    def _try_session_preparation(self, force_data: bool = True) -> None:
        # netmiko would send a RETURN and sleep 100 ms to make the device talk. A device prints its
        # prompt after login anyway, and netmiko's first read sends the RETURN itself if it does not.
        super()._try_session_preparation(force_data=False)  # type: ignore[misc]

    def cleanup(self, command: str = "exit") -> None:
        # Collection never enters config mode, so there is nothing to leave; closing the SSH channel
        # ends the CLI session as `exit` would.
        return None


@cache
def session_class(device_type: str) -> type[BaseConnection]:
    """netmiko's connection class for `device_type`, as collection uses it (see `_ReadOnlySession`)."""
    base = ssh_dispatcher(device_type)
    return type(f"ReadOnly{base.__name__}", (_ReadOnlySession, base), {})


def prompt_pattern(base_prompt: str) -> str:
    """The prompt at the very end of the output.

    netmiko's default waits for the bare hostname anywhere in what it has read, so any output holding
    the hostname (a running config does) ends at the first 64 KiB read and the rest is lost.
    """
    return rf"{re.escape(base_prompt)}[^\n]*[#>$]\s*$"


def send(conn: BaseConnection, command: str, timeout_s: float) -> str:
    return conn.send_command(
        command,
        expect_string=prompt_pattern(conn.base_prompt),
        auto_find_prompt=False,
        read_timeout=timeout_s,
    )


def collect_device(task: Task, fabric: Fabric, writer: SnapshotWriter, opts: CollectOptions) -> Result:
    """Run the platform's commands on one device and save them; never raises."""
    host = task.host
    device = fabric.devices[host.name]
    platform = get_platform(device.platform)
    found = DeviceCollection()
    started = time.monotonic()
    if opts.jitter_s:
        time.sleep(random.uniform(0, opts.jitter_s))
    conn = None
    try:
        sock = _connect(host, opts)
    except OSError as exc:
        found.error = (
            "unreachable",
            f"{host.hostname}:{host.port}: {exc.strerror or exc.__class__.__name__}",
        )
    else:
        try:
            conn = session_class(host.platform)(**_netmiko_args(host, sock, opts))
            for batch in platform.batches(device):
                t = time.monotonic()
                text = send(conn, batch.cli, opts.timeout_s)
                elapsed = round(time.monotonic() - t, 4)
                for file, output in batch.split(text).items():
                    found.outputs[file] = as_saved(platform.mask_secrets(output))
                    found.durations[file] = elapsed
        except NetmikoAuthenticationException:
            found.error = ("auth", f"login as {host.username!r} refused by {host.hostname}:{host.port}")
        except BadHostKeyException:
            found.error = ("auth", f"host key of {host.hostname}:{host.port} differs from known_hosts")
        except SSHException as exc:
            # paramiko reports an unknown host key as a bare SSHException: tell it apart from a dead session.
            if "known_hosts" in str(exc):
                found.error = ("auth", f"host key of {host.hostname}:{host.port} is not in known_hosts")
            else:
                found.error = ("timeout", f"SSH session failed after {len(found.outputs)} command(s) ({exc})")
        except (NetmikoTimeoutException, ReadTimeout, TimeoutError, EOFError, OSError) as exc:
            done = len(found.outputs)
            found.error = (
                "timeout",
                f"no complete answer within {opts.timeout_s:g} s after {done} command(s) "
                f"({exc.__class__.__name__})",
            )
        finally:
            if conn is not None:
                conn.disconnect()
            else:
                sock.close()
    found.seconds = round(time.monotonic() - started, 4)
    found.fingerprint = writer.write_device(host.name, found.outputs)
    if opts.parse:
        found.state = device_state(device, found.outputs, found.error)
    return Result(host=host, result=found, failed=found.error is not None)


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("collecting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
    )


class _DeviceDone:
    """Nornir processor that calls `on_done` as each device finishes, to advance a progress bar."""

    def __init__(self, on_done: Callable[[], object]) -> None:
        self.on_done = on_done

    def task_started(self, task: Task) -> None: ...
    def task_completed(self, task: Task, result: AggregatedResult) -> None: ...
    def task_instance_started(self, task: Task, host: Host) -> None: ...
    def subtask_instance_started(self, task: Task, host: Host) -> None: ...
    def subtask_instance_completed(self, task: Task, host: Host, result: MultiResult) -> None: ...

    def task_instance_completed(self, task: Task, host: Host, result: MultiResult) -> None:
        self.on_done()


@contextmanager
def _progress_bar(show: bool, total: int) -> Iterator[Callable[[], object] | None]:
    """A rich progress bar while the block runs, and the callable that advances it (None if hidden)."""
    if not show:
        yield None
        return
    with _progress() as bar:
        task_id = bar.add_task("collect", total=total)
        yield lambda: bar.advance(task_id)


def _nornir(
    fabric: Fabric,
    login: Login,
    connections: dict[str, dict] | None,
    workers: int,
    names: Iterable[str] | None,
) -> Nornir:
    nr = Nornir(inventory=nornir_inventory(fabric, login, connections), runner=ThreadedRunner(workers))
    if names is not None:
        wanted = set(names)
        nr = nr.filter(filter_func=lambda host: host.name in wanted)
    return nr


def _run(
    nr: Nornir,
    fabric: Fabric,
    writer: SnapshotWriter,
    opts: CollectOptions,
    keys: dict[str, Path],
    on_done: Callable[[], object] | None,
) -> dict:
    for name, path in keys.items():
        if name in nr.inventory.hosts:
            nr.inventory.hosts[name].data["known_hosts_file"] = path
    if on_done is not None:
        nr = nr.with_processors([_DeviceDone(on_done)])
    result = nr.run(task=collect_device, fabric=fabric, writer=writer, opts=opts, on_failed=True)
    return {name: _unwrap(name, multi) for name, multi in result.items()}


@dataclass(frozen=True, slots=True)
class _Shard:
    """One collector process's part of the fabric."""

    login: Login
    connections: dict[str, dict] | None
    opts: CollectOptions
    names: list[str]
    target: Path
    tmp: Path
    keys: dict[str, Path]


_shard_fabric: Fabric | None = None
# Where a collector process reports each finished device, for the parent's progress bar.
_shard_done: Queue | None = None


def _init_shard(fabric: Fabric, done: Queue | None) -> None:
    global _shard_fabric, _shard_done
    _shard_fabric, _shard_done = fabric, done


def _collect_shard(shard: _Shard) -> dict[str, DeviceCollection]:
    assert _shard_fabric is not None, "collector process started without its fabric"
    nr = _nornir(_shard_fabric, shard.login, shard.connections, shard.opts.workers, shard.names)
    writer = SnapshotWriter(shard.target, shard.tmp)
    on_done = partial(_shard_done.put, 1) if _shard_done is not None else None
    return _run(nr, _shard_fabric, writer, shard.opts, shard.keys, on_done)


def _follow(done: Queue, futures: list[Future], total: int, advance: Callable[[], object]) -> None:
    """Advance the bar for each device the collector processes report, until all have finished."""
    received = 0
    while received < total:
        try:
            done.get(timeout=0.2)
        except Empty:
            if all(f.done() for f in futures):
                return
            continue
        received += 1
        advance()


def _process_context() -> BaseContext:
    """fork where it is safe (Linux, no other thread in this process), else spawn.

    A forked collector starts with netmiko imported and the fabric loaded; a spawned one spends
    about a second of CPU importing them again, time in which nothing is collected.
    """
    if sys.platform == "linux" and threading.active_count() == 1:
        return get_context("fork")
    return get_context("spawn")


def collect(
    fabric: Fabric,
    login: Login,
    target: Path,
    opts: CollectOptions,
    selection: Selection | None = None,
    connections: dict[str, dict] | None = None,
) -> tuple[Path, dict[str, DeviceCollection]]:
    """Collect the selected devices into a snapshot at `target` (written atomically).

    With `opts.processes` > 1 the devices are split over that many processes, each with its own
    Nornir runner: one Python process tops out at about one core of SSH work.
    """
    nr = _nornir(fabric, login, connections, opts.workers, None)
    if selection is not None:
        nr = nr.filter(filter_func=selection.matches)
    names = sorted(nr.inventory.hosts)
    writer = SnapshotWriter(target)
    keys_dir = Path(tempfile.mkdtemp(prefix=".known_hosts.", dir=target.parent))
    started = datetime.now(UTC)
    t0 = time.monotonic()
    try:
        keys = {}
        if opts.known_hosts is not None:
            keys = split_known_hosts(opts.known_hosts, list(nr.inventory.hosts.values()), keys_dir)
        if opts.processes > 1 and len(names) > opts.processes:
            shards = [
                _Shard(
                    login,
                    connections,
                    opts,
                    names[i :: opts.processes],
                    target,
                    writer.tmp,
                    keys,
                )
                for i in range(opts.processes)
            ]
            context = _process_context()
            done = context.Queue() if opts.progress else None
            found: dict[str, DeviceCollection] = {}
            with ProcessPoolExecutor(
                opts.processes, mp_context=context, initializer=_init_shard, initargs=(fabric, done)
            ) as pool:
                futures = [pool.submit(_collect_shard, shard) for shard in shards]
                # The bar (and its refresh thread) starts only now, after the collectors are forked.
                with _progress_bar(opts.progress, len(names)) as advance:
                    if done is not None and advance is not None:
                        _follow(done, futures, len(names), advance)
                for future in futures:
                    found |= future.result()
        else:
            with _progress_bar(opts.progress, len(names)) as advance:
                found = _run(nr, fabric, writer, opts, keys, advance)
    except BaseException:
        writer.abort()
        raise
    finally:
        shutil.rmtree(keys_dir, ignore_errors=True)
    meta = {
        "netcfg_version": __version__,
        "fabric": fabric.name,
        "created": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seconds": round(time.monotonic() - t0, 3),
        "devices": {
            name: {
                "platform": fabric.devices[name].platform,
                "commands": [
                    c.cli for c in get_platform(fabric.devices[name].platform).commands(fabric.devices[name])
                ],
                "durations": f.durations,
                "seconds": f.seconds,
                "error": {"kind": f.error[0], "message": f.error[1]} if f.error else None,
                "fingerprint": f.fingerprint,
            }
            for name, f in sorted(found.items())
        },
    }
    return writer.commit(meta), found


def _unwrap(name: str, multi: MultiResult) -> DeviceCollection:
    """The task's DeviceCollection; an unexpected exception inside Nornir becomes a timeout-kind error."""
    value = multi[0].result if multi else None
    if isinstance(value, DeviceCollection):
        return value
    exc = multi[0].exception if multi else None
    return DeviceCollection(
        error=("timeout", f"collection failed ({exc.__class__.__name__ if exc else 'no result'})")
    )
