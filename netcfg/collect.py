"""Live collection: Nornir runs one task per device; the task drives netmiko over SSH.

Settings follow the measurements in live-collection-notes.md: a socket with TCP_NODELAY handed to
netmiko, no prompt search before each command, a small delay factor, the connection closed at the end
of each host's task. A device that fails becomes a collection error in the snapshot; what it printed
before failing is kept.

A collection either commits a complete snapshot or leaves nothing: a write error (OutputError) or a
signal (Interrupted, see `netcfg.interrupt.raise_on_signals`) stops every device, ends the collector
processes and removes the temporary folders.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import gc
import logging
import random
import re
import select
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any

from netmiko import BaseConnection
from netmiko.exceptions import ReadTimeout
from netmiko.ssh_dispatcher import ssh_dispatcher
from nornir.core import Nornir
from nornir.core.inventory import Host
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.core.task import AggregatedResult, MultiResult, Result, Task
from paramiko import Channel
from paramiko.ssh_exception import AuthenticationException, BadHostKeyException, SSHException

from netcfg import __version__
from netcfg.errors import InputError, OutputError
from netcfg.exec_ssh import ExecSession, GcmFirstTransport, connect_socket
from netcfg.gcpause import paused_gc
from netcfg.interrupt import Stop
from netcfg.known_hosts import read_known_hosts, split_known_hosts
from netcfg.model import Device, DeviceState, Fabric
from netcfg.nornir_inventory import Login, nornir_inventory
from netcfg.platforms import get_platform
from netcfg.platforms.base import Batch, Platform
from netcfg.processes import ChildProcesses
from netcfg.scratch import Scratch, sweep
from netcfg.shard import Shard
from netcfg.snapshot import CREATED_FORMAT, SnapshotWriter
from netcfg.sources import device_state

# paramiko logs a reset connection at ERROR, and with no handler Python prints that on stderr; the
# device's collection error already says what happened.
logging.getLogger("paramiko").addHandler(logging.NullHandler())

# The Nornir connection plugin of platforms collected over an exec channel (`Platform.exec_channel`).
EXEC_PLUGIN = "netcfg_exec"
ConnectionPluginRegister.register(EXEC_PLUGIN, ExecSession)


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
    # Also each switch's route table (`--routes`): the deadlock analysis of the installed routes.
    routes: bool = False


@dataclass(slots=True)
class DeviceCollection:
    outputs: dict[str, str] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)
    error: tuple[str, str] | None = None
    seconds: float = 0.0
    fingerprint: str = ""
    state: DeviceState | None = None
    # When the device answered (seconds since the epoch): counter rates are deltas over this time.
    read_at: float | None = None


@dataclass(frozen=True, slots=True)
class Selection:
    device_glob: str | None = None
    role: str | None = None
    rail: int | None = None
    shard: Shard | None = None

    def matches(self, device: Device) -> bool:
        if self.shard is not None and not self.shard.holds(device.name):
            return False
        if self.device_glob and not fnmatch.fnmatch(device.name, self.device_glob):
            return False
        if self.role and device.role.value != self.role:
            return False
        # A server belongs to every rail its NICs are on, so `--rail N` also selects its servers.
        rails = {nic.rail for nic in device.nics} | ({device.rail} if device.rail is not None else set())
        return self.rail is None or self.rail in rails

    def describe(self) -> str:
        """The selection as the command-line options that make it."""
        options = [
            f"--device {self.device_glob}" if self.device_glob else "",
            f"--role {self.role}" if self.role else "",
            f"--rail {self.rail}" if self.rail is not None else "",
            f"--shard {self.shard}" if self.shard is not None else "",
        ]
        return " ".join(o for o in options if o) or "selection"


def selected_devices(fabric: Fabric, selection: Selection | None) -> list[str]:
    """Names of the devices `selection` picks, sorted; InputError if it picks none, unless it is a
    shard: with more shards than devices some shards hold none, and `merge` needs every shard."""
    names = sorted(n for n, d in fabric.devices.items() if selection is None or selection.matches(d))
    if not names and (selection is None or selection.shard is None):
        where = selection.describe() if selection is not None else fabric.source
        raise InputError(where, f"matches no device of the inventory {fabric.source}; nothing collected")
    return names


class _StoppableRunner:
    """Nornir runner: `workers` daemon threads that take no new device once the collection stops.

    Nornir's ThreadedRunner joins its pool on the way out, and Python joins it again at exit: an
    interrupted collection would go on until every queued device had answered or timed out.
    """

    def __init__(self, workers: int, stop: Stop) -> None:
        self.workers = workers
        self.stop = stop

    def run(self, task: Task, hosts: list[Host]) -> AggregatedResult:
        todo: SimpleQueue[Host] = SimpleQueue()
        for host in hosts:
            todo.put(host)
        done: SimpleQueue[tuple[str, MultiResult]] = SimpleQueue()

        def work() -> None:
            while not self.stop.is_set():
                try:
                    host = todo.get_nowait()
                except Empty:
                    return
                done.put((host.name, task.copy().start(host)))

        threads = [
            threading.Thread(target=work, name="netcfg-collect", daemon=True)
            for _ in range(min(self.workers, len(hosts)))
        ]
        for thread in threads:
            thread.start()
        result = AggregatedResult(task.name)
        while len(result) < len(hosts):
            try:
                name, multi = done.get(timeout=0.2)
            except Empty:
                if self.stop.is_set() and not any(t.is_alive() for t in threads) and done.empty():
                    break
                continue
            result[name] = multi
        return result


def _connect(host: Host, opts: CollectOptions) -> socket.socket:
    return connect_socket(host.hostname, host.port or 22, opts.timeout_s)


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


# How long a read waits for a device's bytes before it gives netmiko "nothing yet" (see
# `_ReadOnlySession.read_channel`): no longer than netmiko's shortest sleep after such a read.
_DATA_WAIT_S = 0.01


class _ReadOnlySession:
    """What collection changes in netmiko's class for a platform: two round trips it does not need,
    a read that notices a closed session, and no search for terminal codes in text without ESC.

    Measured one device at a time on the lab, the round trips were a fifth of each device's client
    CPU and about half of its wall time.
    """

    def _try_session_preparation(self, force_data: bool = True) -> None:
        # netmiko would send a RETURN and sleep 100 ms to make the device talk. A device prints its
        # prompt after login anyway, and netmiko's first read sends the RETURN itself if it does not.
        super()._try_session_preparation(force_data=False)  # type: ignore[misc]

    def read_channel(self) -> str:
        # netmiko reads without waiting and sleeps 10-25 ms after every read that found nothing: a
        # command took at least one such sleep, and six commands a switch ~220 ms on the lab. Waiting
        # (a little) for the device's bytes returns as soon as they arrive, so the read after the
        # command's echo usually holds its whole answer and netmiko never sleeps.
        channel = self.remote_conn  # type: ignore[attr-defined]
        waits = not getattr(self, "_clearing", False)
        if waits and isinstance(channel, Channel) and not channel.closed and not channel.recv_ready():
            select.select([channel], [], [], _DATA_WAIT_S)
        # netmiko polls a closed channel until its read timeout; a session the device (or a stopped
        # collection) closed has nothing more to say.
        output = super().read_channel()  # type: ignore[misc]
        if not output and getattr(self.remote_conn, "closed", False):  # type: ignore[attr-defined]
            raise EOFError("the SSH session was closed")
        return output

    def clear_buffer(self, *args: Any, **kwargs: Any) -> str:
        # It reads until a read finds nothing: waiting for bytes there only delays its end.
        self._clearing = True
        try:
            return super().clear_buffer(*args, **kwargs)  # type: ignore[misc]
        finally:
            self._clearing = False

    def command_echo_read(self, cmd: str, read_timeout: float) -> str:
        # netmiko keeps what arrived after the echo for its next read, which comes only after a
        # 25 ms sleep; handed over with the echo, an answer already in (a device sends its echo
        # and short answers in one packet) ends send_command at once.
        echo = super().command_echo_read(cmd, read_timeout)  # type: ignore[misc]
        rest, self._read_buffer = self._read_buffer, ""  # type: ignore[attr-defined]
        return echo + rest

    def strip_ansi_escape_codes(self, string_buffer: str) -> str:
        # Every code netmiko strips begins with ESC, and each is a regex pass over every chunk read:
        # on long tables, a tenth of the collector's CPU spent finding none.
        if "\x1b" not in string_buffer:
            return string_buffer
        return super().strip_ansi_escape_codes(string_buffer)  # type: ignore[misc]

    def _connect_params_dict(self) -> dict[str, Any]:
        # The same cipher preference as the hosts' exec sessions (see GcmFirstTransport).
        return super()._connect_params_dict() | {"transport_factory": GcmFirstTransport}  # type: ignore[misc]

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


def collected_batches(platform: Platform, device: Device, opts: CollectOptions) -> list[Batch]:
    """The platform's command lines, and with `--routes` each of its route tables on a line of its
    own: a table is the largest output, and a switch too slow to print it keeps every other output."""
    batches = platform.batches(device)
    if opts.routes:
        batches += [Batch((source.command,)) for source in platform.route_tables]
    return batches


def _exec_session(
    task: Task, sock: socket.socket, device: Device, opts: CollectOptions, found: DeviceCollection
) -> None:
    """Run the platform's command lines, each on an exec channel of one SSH session, into `found`;
    a device's failure becomes `found.error`."""
    host = task.host
    platform = get_platform(device.platform)
    extras = {
        "sock": sock,
        "timeout_s": opts.timeout_s,
        "known_hosts_file": host.data.get("known_hosts_file"),
    }
    opened = False
    try:
        conn = host.open_connection(EXEC_PLUGIN, task.nornir.config, extras=extras)
        opened = True
        for batch in collected_batches(platform, device, opts):
            t = time.monotonic()
            # Without its last line break, as netmiko's shell session gives an output (the prompt's
            # line taken with it): a host's snapshot is the same whichever way it was read.
            text = conn.run(batch.cli).removesuffix("\n")
            elapsed = round(time.monotonic() - t, 4)
            for file, output in batch.split(text).items():
                found.outputs[file] = platform.saved_output(output)
                found.durations[file] = elapsed
    except (SSHException, EOFError, OSError) as exc:
        found.error = _failure(exc, host, opts, len(found.outputs))
    finally:
        if opened:
            host.close_connection(EXEC_PLUGIN)
        else:
            sock.close()


def _session(
    host: Host, sock: socket.socket, device: Device, opts: CollectOptions, found: DeviceCollection
) -> None:
    """Run the platform's commands over netmiko's interactive session into `found`; a device's
    failure becomes `found.error`."""
    platform = get_platform(device.platform)
    conn = None
    try:
        conn = session_class(host.platform)(**_netmiko_args(host, sock, opts))
        for batch in collected_batches(platform, device, opts):
            t = time.monotonic()
            text = send(conn, batch.cli, opts.timeout_s)
            elapsed = round(time.monotonic() - t, 4)
            for file, output in batch.split(text).items():
                found.outputs[file] = platform.saved_output(output)
                found.durations[file] = elapsed
    except (SSHException, ReadTimeout, EOFError, OSError) as exc:  # netmiko's are SSHExceptions too
        found.error = _failure(exc, host, opts, len(found.outputs))
    finally:
        if conn is not None:
            conn.disconnect()
        else:
            sock.close()


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and the exceptions it was raised from or while handling (netmiko re-raises paramiko's)."""
    seen: BaseException | None = exc
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__


def _failure(exc: BaseException, host: Host, opts: CollectOptions, done: int) -> tuple[str, str]:
    """A device's failed SSH session as a collection error (kind, message)."""
    where = f"{host.hostname}:{host.port}"
    causes = list(_causes(exc))
    if any(isinstance(e, BadHostKeyException) for e in causes):
        # netmiko wraps it in a NetmikoTimeoutException: a possible man in the middle is no timeout.
        return (
            "auth",
            f"host key of {where} differs from known_hosts (possible man-in-the-middle); not logged in",
        )
    if any(isinstance(e, SSHException) and "not found in known_hosts" in str(e) for e in causes):
        return "auth", f"host key of {where} is not in known_hosts; not logged in"
    if isinstance(exc, AuthenticationException):  # netmiko's is paramiko's too
        return "auth", f"login as {host.username!r} refused by {where}"
    if isinstance(exc, EOFError):
        return "timeout", f"the SSH session closed after {done} command(s)"
    if isinstance(exc, SSHException):
        return "timeout", f"SSH session failed after {done} command(s) ({' '.join(str(exc).split())})"
    late = f"no complete answer within {opts.timeout_s:g} s after {done} command(s)"
    return "timeout", f"{late} ({exc.__class__.__name__})"


def collect_device(
    task: Task, fabric: Fabric, writer: SnapshotWriter, opts: CollectOptions, stop: Stop
) -> Result:
    """Run the platform's commands on one device and save them.

    A device's failure is its collection error; a failure to save stops the whole collection
    (`writer.error`). Either way nothing is raised into Nornir, which would log a traceback.
    """
    host = task.host
    device = fabric.devices[host.name]
    found = DeviceCollection()
    started = time.monotonic()
    if stop.is_set() or (opts.jitter_s and stop.wait(random.uniform(0, opts.jitter_s))):
        return Result(host=host, result=None, failed=True)
    try:
        sock = _connect(host, opts)
    except OSError as exc:
        found.error = (
            "unreachable",
            f"{host.hostname}:{host.port}: {exc.strerror or exc.__class__.__name__}",
        )
    else:
        with stop.watching(sock):
            if get_platform(device.platform).exec_channel:
                _exec_session(task, sock, device, opts, found)
            else:
                _session(host, sock, device, opts, found)
        found.read_at = round(time.time(), 3)
    if stop.is_set():
        return Result(host=host, result=None, failed=True)
    found.seconds = round(time.monotonic() - started, 4)
    counters = get_platform(device.platform).counter_files(device)
    try:
        found.fingerprint = writer.write_device(host.name, found.outputs, counters)
    except OutputError:
        stop.set()
        return Result(host=host, result=None, failed=True)
    if opts.parse:
        _parse(device, found)
    return Result(host=host, result=found, failed=found.error is not None)


def _parse(device: Device, found: DeviceCollection) -> None:
    found.state = device_state(device, found.outputs, found.error)
    found.state.read_at = found.read_at


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("collecting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
    )


# Called as each device finishes, with its name and what was collected (None: the collection
# stopped before it was done).
OnDone = Callable[[tuple[str, "DeviceCollection | None"]], object]


class _DeviceDone:
    """Nornir processor that calls `on_done` as each device finishes: to advance a progress bar, or
    to send the device to the parent process at once."""

    def __init__(self, on_done: OnDone) -> None:
        self.on_done = on_done

    def task_started(self, task: Task) -> None: ...
    def task_completed(self, task: Task, result: AggregatedResult) -> None: ...
    def task_instance_started(self, task: Task, host: Host) -> None: ...
    def subtask_instance_started(self, task: Task, host: Host) -> None: ...
    def subtask_instance_completed(self, task: Task, host: Host, result: MultiResult) -> None: ...

    def task_instance_completed(self, task: Task, host: Host, result: MultiResult) -> None:
        value = result[0].result if result else None
        self.on_done((host.name, value if isinstance(value, DeviceCollection) else None))


@contextmanager
def _progress_bar(show: bool, total: int) -> Iterator[Callable[..., object] | None]:
    """A rich progress bar while the block runs, and the callable that advances it (None if hidden;
    it takes and ignores what the device that finished gave)."""
    if not show:
        yield None
        return
    with _progress() as bar:
        task_id = bar.add_task("collect", total=total)
        yield lambda _done=None: bar.advance(task_id)


def _nornir(
    fabric: Fabric,
    login: Login,
    connections: dict[str, dict] | None,
    runner: _StoppableRunner,
    names: Iterable[str] | None,
) -> Nornir:
    nr = Nornir(inventory=nornir_inventory(fabric, login, connections), runner=runner)
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
    on_done: OnDone | None,
    stop: Stop,
) -> dict[str, DeviceCollection]:
    for name, path in keys.items():
        if name in nr.inventory.hosts:
            nr.inventory.hosts[name].data["known_hosts_file"] = path
    if on_done is not None:
        nr = nr.with_processors([_DeviceDone(on_done)])
    try:
        # Every SSH session allocates thousands of objects and few cycles: collection passes would
        # walk the fabric and the parsed states again for next to nothing freed.
        with paused_gc():
            result = nr.run(
                task=collect_device, fabric=fabric, writer=writer, opts=opts, stop=stop, on_failed=True
            )
    except BaseException:
        stop.set()
        raise
    if writer.error is not None:
        raise writer.error
    return {name: _unwrap(multi) for name, multi in result.items()}


@dataclass(frozen=True, slots=True)
class _Shard:
    """One collector process's part of the fabric."""

    fabric: Fabric
    login: Login
    connections: dict[str, dict] | None
    opts: CollectOptions
    names: list[str]
    target: Path
    tmp: Path
    keys: dict[str, Path]


def _collect_shard(shard: _Shard, send: Callable[[object], None] | None) -> list[str]:
    """A collector process's work: its devices, into the parent's temporary folder, each sent to the
    parent as soon as it is done; returns the names of those collected.

    The parent parses them, not this process: parsed states cost more to pickle and unpickle (1.7 ms
    a device, the unpickling all in the parent once the last device was in) than parsing costs, and
    the parent otherwise sits waiting for its collectors.
    """
    assert send is not None  # _collect_in_processes always follows its collectors
    # The process ends once its devices are sent: a collection after them would walk every object
    # its sessions left (a third of a second for 500 devices) to free memory nobody needs again.
    gc.disable()
    stop = Stop()
    runner = _StoppableRunner(shard.opts.workers, stop)
    nr = _nornir(shard.fabric, shard.login, shard.connections, runner, shard.names)
    writer = SnapshotWriter(shard.target, shard.tmp)
    opts = dataclasses.replace(shard.opts, parse=False)
    return sorted(_run(nr, shard.fabric, writer, opts, shard.keys, send, stop))


@contextmanager
def _alongside(work: Callable[[], object] | None) -> Iterator[None]:
    """`work` on a thread of its own while the block runs; a block that ends normally waits for it.

    A block ended by an error or a signal does not: the thread is a daemon, and its work is dropped.
    """
    if work is None:
        yield
        return
    thread = threading.Thread(target=work, name="netcfg-meanwhile", daemon=True)
    thread.start()
    yield
    thread.join()


class _Parsing:
    """Parses the devices the collector processes send, on a thread of its own, as they arrive.

    The thread that receives them only queues them: a parse done there would hold up the pipes,
    and with them every collector thread waiting to send its device.
    """

    def __init__(self, fabric: Fabric, parse: bool) -> None:
        self._fabric, self._parse = fabric, parse
        self._todo: SimpleQueue[tuple[str, DeviceCollection] | None] = SimpleQueue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="netcfg-parse", daemon=True)
        self.found: dict[str, DeviceCollection] = {}

    def __enter__(self) -> _Parsing:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._todo.put(None)
        if exc[0] is None:
            self._thread.join()
            if self._error is not None:
                raise self._error

    def add(self, name: str, collection: DeviceCollection) -> None:
        self.found[name] = collection
        if self._parse:
            self._todo.put((name, collection))

    def _work(self) -> None:
        while (item := self._todo.get()) is not None:
            if self._error is None:
                try:
                    _parse(self._fabric.devices[item[0]], item[1])
                except BaseException as exc:  # netcfg's own bug: raised again in the caller's thread
                    self._error = exc


def _collect_in_processes(
    shards: list[_Shard], total: int, opts: CollectOptions, meanwhile: Callable[[], object] | None
) -> dict[str, DeviceCollection]:
    # The bar (and its refresh thread), `meanwhile` and the parser start only after the collectors
    # are forked.
    with (
        ChildProcesses(_collect_shard, shards, True) as collectors,
        _progress_bar(opts.progress, total) as advance,
        _alongside(meanwhile),
        paused_gc(),
        _Parsing(shards[0].fabric, opts.parse) as parsing,
    ):

        def arrived(done: object) -> None:
            name, collection = done  # type: ignore[misc]
            if collection is not None:
                parsing.add(name, collection)
            if advance is not None:
                advance()

        parts = collectors.results(arrived)
    lost = sorted({name for part in parts for name in part} - parsing.found.keys())
    if lost:
        raise RuntimeError(f"collector processes reported {len(lost)} device(s) they never sent: {lost[:5]}")
    return parsing.found


def collect(
    fabric: Fabric,
    login: Login,
    target: Path,
    opts: CollectOptions,
    selection: Selection | None = None,
    connections: dict[str, dict] | None = None,
    *,
    replace: bool = False,
    meanwhile: Callable[[], object] | None = None,
) -> tuple[Path, dict[str, DeviceCollection]]:
    """Collect the selected devices into a snapshot at `target` (written atomically).

    `meanwhile` runs on a thread of this process while the devices are collected (an audit reads
    the previous snapshot then, in the time collection spends waiting on devices); collect returns
    once it is done too. It reports its own result and errors.

    `target` must not exist, be an empty folder, or (with `replace`) be an earlier netcfg snapshot;
    anything else is refused (InputError) before a device is contacted. A write error raises
    OutputError, and an exception or signal leaves no snapshot and no temporary folder behind.

    With `opts.processes` > 1 the devices are split over that many processes, each with its own
    Nornir runner: one Python process tops out at about one core of SSH work.
    """
    names = selected_devices(fabric, selection)
    stop = Stop()
    nr = _nornir(fabric, login, connections, _StoppableRunner(opts.workers, stop), names)
    host_keys = read_known_hosts(opts.known_hosts) if opts.known_hosts is not None else None
    writer = SnapshotWriter(target, replace=replace)
    started = datetime.now(UTC)
    t0 = time.monotonic()
    keys_dir: Scratch | None = None
    try:
        keys: dict[str, Path] = {}
        if host_keys is not None:
            keys_dir = _keys_folder(writer.target.parent)
            keys = split_known_hosts(host_keys, list(nr.inventory.hosts.values()), keys_dir.path)
        if opts.processes > 1 and len(names) > opts.processes:
            shards = [
                _Shard(
                    fabric,
                    login,
                    connections,
                    opts,
                    names[i :: opts.processes],
                    writer.target,
                    writer.tmp,
                    keys,
                )
                for i in range(opts.processes)
            ]
            found = _collect_in_processes(shards, len(names), opts, meanwhile)
        else:
            with _progress_bar(opts.progress, len(names)) as advance, _alongside(meanwhile):
                # An empty shard is written as one, without starting a runner on no host.
                found = _run(nr, fabric, writer, opts, keys, advance, stop) if names else {}
        meta = _meta(fabric, found, started, time.monotonic() - t0)
        if selection is not None and selection.shard is not None:
            # What `netcfg merge` joins this snapshot by, and checks the others against.
            shard, rest = selection.shard, dataclasses.replace(selection, shard=None)
            chosen = rest.describe() if rest != Selection() else ""
            meta["shard"] = {"index": shard.index, "count": shard.count, "selection": chosen}
    except BaseException:
        writer.abort()
        raise
    finally:
        if keys_dir is not None:
            shutil.rmtree(keys_dir.path, ignore_errors=True)
            keys_dir.release()
    return writer.commit(meta), found


def _keys_folder(parent: Path) -> Scratch:
    """The working folder of per-device known_hosts files, after removing those killed runs left."""
    sweep(parent, (".known_hosts",))
    try:
        return Scratch(parent, "known_hosts")
    except OSError as exc:
        raise OutputError.from_os_error(parent / ".known_hosts", exc) from None


def _meta(fabric: Fabric, found: dict[str, DeviceCollection], started: datetime, seconds: float) -> dict:
    return {
        "netcfg_version": __version__,
        "fabric": fabric.name,
        "created": started.strftime(CREATED_FORMAT),
        "seconds": round(seconds, 3),
        "devices": {
            name: {
                "platform": fabric.devices[name].platform,
                "commands": _collected(fabric.devices[name], f),
                "durations": f.durations,
                "seconds": f.seconds,
                "error": {"kind": f.error[0], "message": f.error[1]} if f.error else None,
                "fingerprint": f.fingerprint,
                "read_at": f.read_at,
            }
            for name, f in sorted(found.items())
        },
    }


def _collected(device: Device, found: DeviceCollection) -> list[str]:
    """The commands a device was collected with: its platform's, and its route tables if read."""
    platform = get_platform(device.platform)
    tables = [s.command.cli for s in platform.route_tables if s.command.file in found.outputs]
    return [c.cli for c in platform.commands(device)] + tables


def _unwrap(multi: MultiResult) -> DeviceCollection:
    """The task's DeviceCollection. An exception here is netcfg's own (a device's failure is its
    collection error), so it is raised, never reported as the device's."""
    value = multi[0].result if multi else None
    if isinstance(value, DeviceCollection):
        return value
    exc = multi[0].exception if multi else None
    if isinstance(exc, BaseException):
        raise exc
    raise RuntimeError("a collection task returned no result")
