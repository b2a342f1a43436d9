"""Live collection: Nornir runs one task per device; the task drives netmiko over SSH.

Settings follow the measurements in live-collection-notes.md: a socket with TCP_NODELAY handed to
netmiko, no prompt search before each command, a small delay factor, the connection closed at the end
of each host's task. A device that fails becomes a collection error in the snapshot; what it printed
before failing is kept.

A collection either commits a complete snapshot or leaves nothing: a write error (OutputError) or a
signal (Interrupted, see `raise_on_signals`) stops every device, ends the collector processes and
removes the temporary folders.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import random
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, partial
from multiprocessing import get_context
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for_any
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any

import paramiko
from netmiko import BaseConnection
from netmiko.exceptions import NetmikoAuthenticationException, ReadTimeout
from netmiko.ssh_dispatcher import ssh_dispatcher
from nornir.core import Nornir
from nornir.core.inventory import Host
from nornir.core.task import AggregatedResult, MultiResult, Result, Task
from paramiko.hostkeys import HostKeyEntry
from paramiko.ssh_exception import BadHostKeyException, SSHException

from netcfg import __version__
from netcfg.errors import InputError, Interrupted, OutputError
from netcfg.model import Device, DeviceState, Fabric
from netcfg.nornir_inventory import Login, nornir_inventory
from netcfg.platforms import get_platform
from netcfg.snapshot import SnapshotWriter, as_saved
from netcfg.sources import device_state

# paramiko logs a reset connection at ERROR, and with no handler Python prints that on stderr; the
# device's collection error already says what happened.
logging.getLogger("paramiko").addHandler(logging.NullHandler())

# A known_hosts file is a line per host: even 100,000 devices stay far below this.
KNOWN_HOSTS_MAX_BYTES = 64 * 1024 * 1024
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# How OpenSSH names key types: ssh-ed25519, ecdsa-sha2-nistp256, sk-ssh-ed25519@openssh.com, ...
_KEY_TYPE = re.compile(r"[a-z0-9][a-z0-9@._-]*")


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

    def matches(self, device: Device) -> bool:
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
        ]
        return " ".join(o for o in options if o) or "selection"


def selected_devices(fabric: Fabric, selection: Selection | None) -> list[str]:
    """Names of the devices `selection` picks, sorted; InputError if it picks none."""
    names = sorted(n for n, d in fabric.devices.items() if selection is None or selection.matches(d))
    if not names:
        where = selection.describe() if selection is not None else fabric.source
        raise InputError(where, f"matches no device of the inventory {fabric.source}; nothing collected")
    return names


@contextmanager
def raise_on_signals() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise Interrupted in the main thread.

    SIGTERM would otherwise end the process on the spot, leaving its temporary folders and collector
    processes behind. Only the first signal raises, so a second Ctrl-C cannot cut the clean-up short;
    a signal the process was started with ignored (`nohup`, a background job) stays ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def interrupt(signum: int, _frame: object) -> None:
        nonlocal raised
        if not raised:
            raised = True
            raise Interrupted(signum)

    previous = {}
    for signum in _STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


class _Stop:
    """Ends a collection early: no device starts after `set`, and live SSH sockets are shut down.

    A shut socket ends paramiko's transport, and the session class below then fails its read at
    once instead of waiting out the device's timeout.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        return self._event.wait(seconds)

    def set(self) -> None:
        self._event.set()
        with self._lock:
            live = list(self._sockets)
        for sock in live:
            _shut(sock)

    @contextmanager
    def watching(self, sock: socket.socket) -> Iterator[None]:
        with self._lock:
            self._sockets.add(sock)
        if self._event.is_set():
            _shut(sock)
        try:
            yield
        finally:
            with self._lock:
                self._sockets.discard(sock)


def _shut(sock: socket.socket) -> None:
    with suppress(OSError):  # already closed, or never connected
        sock.shutdown(socket.SHUT_RDWR)


class _StoppableRunner:
    """Nornir runner: `workers` daemon threads that take no new device once the collection stops.

    Nornir's ThreadedRunner joins its pool on the way out, and Python joins it again at exit: an
    interrupted collection would go on until every queued device had answered or timed out.
    """

    def __init__(self, workers: int, stop: _Stop) -> None:
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
    """TCP with NODELAY: paramiko leaves Nagle on, which stalls every handshake by ~85 ms."""
    sock = socket.create_connection((host.hostname, host.port), timeout=opts.timeout_s)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_known_hosts(path: Path) -> paramiko.HostKeys:
    """Host keys from an OpenSSH known_hosts file; InputError naming the file or line that is not one.

    paramiko skips lines it cannot read without a word: a file that is not a known_hosts file would
    then refuse every device as unknown instead of being named as the mistake.
    """
    where = f"--known-hosts {path}"
    expected = "expected an OpenSSH known_hosts file"
    if not path.is_file():
        raise InputError(where, f"not a regular file; {expected}")
    try:
        if path.stat().st_size > KNOWN_HOSTS_MAX_BYTES:
            raise InputError(where, f"larger than {KNOWN_HOSTS_MAX_BYTES >> 20} MiB; {expected}")
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(where, f"cannot be read ({exc.strerror}); {expected}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{where}:{line}", f"not UTF-8 text; {expected}") from None
    keys = paramiko.HostKeys()
    for number, line in enumerate(text.splitlines(), 1):
        line = " ".join(line.split())
        if not line or line.startswith("#"):
            continue
        if line.startswith("@revoked"):
            raise InputError(
                f"{where}:{number}", "@revoked is not supported: remove the revoked key's lines instead"
            )
        if line.startswith("@"):
            # @cert-authority: netcfg trusts no host certificate, so such hosts are refused, not let in.
            continue
        fields = line.split(" ")
        if len(fields) < 3 or not _KEY_TYPE.fullmatch(fields[1]):
            raise InputError(f"{where}:{number}", "expected 'HOSTS KEY-TYPE BASE64-KEY' (a known_hosts line)")
        try:
            entry = HostKeyEntry.from_line(line, number)
        except Exception:  # paramiko's key classes raise several kinds of error on corrupt key data
            raise InputError(f"{where}:{number}", "the key is not a valid base64 SSH public key") from None
        if entry is not None:  # None: a key type paramiko cannot use; such a host is refused
            for name in entry.hostnames:
                keys.add(name, entry.key.get_name(), entry.key)
    return keys


def split_known_hosts(every: paramiko.HostKeys, hosts: list[Host], folder: Path) -> dict[str, Path]:
    """One small known_hosts file per device.

    netmiko has paramiko re-read the whole file on every connection: with a thousand devices that
    parsing cost more CPU than the SSH sessions themselves. Keys are still checked before any password
    is sent; a device missing from the file gets an empty one and is refused.
    """
    out = {}
    for host in hosts:
        name = host.hostname if host.port == 22 else f"[{host.hostname}]:{host.port}"
        mine = paramiko.HostKeys()
        for key_type, key in (every.lookup(name) or {}).items():
            mine.add(name, key_type, key)
        path = folder / f"{host.name}.known_hosts"
        try:
            mine.save(str(path))
        except OSError as exc:
            raise OutputError.from_os_error(path, exc) from None
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
    """What collection changes in netmiko's class for a platform: two round trips it does not need,
    and a read that notices a closed session.

    Measured one device at a time on the lab, the round trips were a fifth of each device's client
    CPU and about half of its wall time.
    """

    def _try_session_preparation(self, force_data: bool = True) -> None:
        # netmiko would send a RETURN and sleep 100 ms to make the device talk. A device prints its
        # prompt after login anyway, and netmiko's first read sends the RETURN itself if it does not.
        super()._try_session_preparation(force_data=False)  # type: ignore[misc]

    def read_channel(self) -> str:
        # netmiko polls a closed channel until its read timeout; a session the device (or a stopped
        # collection) closed has nothing more to say.
        output = super().read_channel()  # type: ignore[misc]
        if not output and getattr(self.remote_conn, "closed", False):  # type: ignore[attr-defined]
            raise EOFError("the SSH session was closed")
        return output

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


def _session(
    host: Host, sock: socket.socket, device: Device, opts: CollectOptions, found: DeviceCollection
) -> None:
    """Run the platform's commands over SSH into `found`; a device's failure becomes `found.error`."""
    platform = get_platform(device.platform)
    conn = None
    try:
        conn = session_class(host.platform)(**_netmiko_args(host, sock, opts))
        for batch in platform.batches(device):
            t = time.monotonic()
            text = send(conn, batch.cli, opts.timeout_s)
            elapsed = round(time.monotonic() - t, 4)
            for file, output in batch.split(text).items():
                found.outputs[file] = as_saved(platform.mask_secrets(output))
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
    if isinstance(exc, NetmikoAuthenticationException):
        return "auth", f"login as {host.username!r} refused by {where}"
    if isinstance(exc, EOFError):
        return "timeout", f"the SSH session closed after {done} command(s)"
    if isinstance(exc, SSHException):
        return "timeout", f"SSH session failed after {done} command(s) ({' '.join(str(exc).split())})"
    late = f"no complete answer within {opts.timeout_s:g} s after {done} command(s)"
    return "timeout", f"{late} ({exc.__class__.__name__})"


def collect_device(
    task: Task, fabric: Fabric, writer: SnapshotWriter, opts: CollectOptions, stop: _Stop
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
            _session(host, sock, device, opts, found)
    if stop.is_set():
        return Result(host=host, result=None, failed=True)
    found.seconds = round(time.monotonic() - started, 4)
    try:
        found.fingerprint = writer.write_device(host.name, found.outputs)
    except OutputError:
        stop.set()
        return Result(host=host, result=None, failed=True)
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
    on_done: Callable[[], object] | None,
    stop: _Stop,
) -> dict[str, DeviceCollection]:
    for name, path in keys.items():
        if name in nr.inventory.hosts:
            nr.inventory.hosts[name].data["known_hosts_file"] = path
    if on_done is not None:
        nr = nr.with_processors([_DeviceDone(on_done)])
    try:
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

    login: Login
    connections: dict[str, dict] | None
    opts: CollectOptions
    names: list[str]
    target: Path
    tmp: Path
    keys: dict[str, Path]
    parent_pid: int


@contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held back while collector processes start.

    A collector is born with its parent's handlers (forked) or Python's (spawned); held back, no
    signal reaches it before it has set its own, and the parent gets them as soon as the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _die_with_parent(parent_pid: int) -> None:
    """Linux: the kernel ends this collector when the netcfg process that started it dies, even by
    SIGKILL, which leaves it no chance to end its collectors itself."""
    if sys.platform != "linux":
        return
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the request was in place
        os._exit(1)


def _shard_main(fabric: Fabric, shard: _Shard, results: Connection, progress: bool) -> None:
    """A collector process: collect its devices and send ("done", 1) per device, then ("found", ...)
    or ("error", exception)."""
    # The parent ends its collectors itself, with SIGTERM; a Ctrl-C at the terminal reaches the whole
    # process group, and must not make each collector print a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(shard.parent_pid)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    lock = threading.Lock()

    def report(message: tuple[str, object]) -> None:
        with lock:  # devices finish on many threads; a Connection is not thread-safe
            results.send(message)

    stop = _Stop()
    nr = _nornir(
        fabric, shard.login, shard.connections, _StoppableRunner(shard.opts.workers, stop), shard.names
    )
    writer = SnapshotWriter(shard.target, shard.tmp)
    on_done = partial(report, ("done", 1)) if progress else None
    try:
        found = _run(nr, fabric, writer, shard.opts, shard.keys, on_done, stop)
    except Exception as exc:
        try:
            report(("error", exc))
        except Exception:  # an exception that does not pickle still reaches the parent, as text
            report(("error", RuntimeError(f"{exc.__class__.__name__}: {exc}")))
        return
    report(("found", found))


def _process_context() -> BaseContext:
    """fork where it is safe (Linux, no other thread in this process), else spawn.

    A forked collector starts with netmiko imported and the fabric loaded; a spawned one spends
    about a second of CPU importing them again, time in which nothing is collected.
    """
    if sys.platform == "linux" and threading.active_count() == 1:
        return get_context("fork")
    return get_context("spawn")


_Collector = tuple[BaseProcess, Connection]


def _start_collectors(fabric: Fabric, shards: list[_Shard], progress: bool) -> list[_Collector]:
    context = _process_context()
    collectors = []
    with _stop_signals_blocked():
        for number, shard in enumerate(shards, 1):
            receive, send_end = context.Pipe(duplex=False)
            process = context.Process(
                target=_shard_main,
                args=(fabric, shard, send_end, progress),
                name=f"netcfg-collector-{number}",
                daemon=True,
            )
            process.start()
            send_end.close()
            collectors.append((process, receive))
    return collectors


def _gather(
    collectors: list[_Collector], advance: Callable[[], object] | None
) -> dict[str, DeviceCollection]:
    """Every collector's devices; the first collector's error is raised."""
    found: dict[str, DeviceCollection] = {}
    pending = {receive: process for process, receive in collectors}
    while pending:
        for ready in wait_for_any(list(pending)):
            assert isinstance(ready, Connection)
            try:
                kind, value = ready.recv()
            except EOFError:
                process = pending.pop(ready)
                process.join()
                raise RuntimeError(
                    f"collector process {process.pid} ended (exit code {process.exitcode}) "
                    "before reporting its devices"
                ) from None
            if kind == "error":
                raise value
            if kind == "found":
                found |= value
                del pending[ready]
            elif advance is not None:
                advance()
    return found


def _end_collectors(collectors: list[_Collector]) -> None:
    """No collector outlives the collection: those still running (interrupted, or after another's
    error) are terminated, and every one is reaped."""
    for process, _ in collectors:
        if process.is_alive():
            process.terminate()
    for process, receive in collectors:
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join()
        receive.close()


def _collect_in_processes(
    fabric: Fabric, shards: list[_Shard], total: int, progress: bool
) -> dict[str, DeviceCollection]:
    collectors = _start_collectors(fabric, shards, progress)
    try:
        # The bar (and its refresh thread) starts only now, after the collectors are forked.
        with _progress_bar(progress, total) as advance:
            return _gather(collectors, advance)
    finally:
        _end_collectors(collectors)


def collect(
    fabric: Fabric,
    login: Login,
    target: Path,
    opts: CollectOptions,
    selection: Selection | None = None,
    connections: dict[str, dict] | None = None,
    *,
    replace: bool = False,
) -> tuple[Path, dict[str, DeviceCollection]]:
    """Collect the selected devices into a snapshot at `target` (written atomically).

    `target` must not exist, be an empty folder, or (with `replace`) be an earlier netcfg snapshot;
    anything else is refused (InputError) before a device is contacted. A write error raises
    OutputError, and an exception or signal leaves no snapshot and no temporary folder behind.

    With `opts.processes` > 1 the devices are split over that many processes, each with its own
    Nornir runner: one Python process tops out at about one core of SSH work.
    """
    names = selected_devices(fabric, selection)
    stop = _Stop()
    nr = _nornir(fabric, login, connections, _StoppableRunner(opts.workers, stop), names)
    host_keys = read_known_hosts(opts.known_hosts) if opts.known_hosts is not None else None
    writer = SnapshotWriter(target, replace=replace)
    started = datetime.now(UTC)
    t0 = time.monotonic()
    keys_dir: Path | None = None
    try:
        keys: dict[str, Path] = {}
        if host_keys is not None:
            keys_dir = Path(tempfile.mkdtemp(prefix=".known_hosts.", dir=writer.target.parent))
            keys = split_known_hosts(host_keys, list(nr.inventory.hosts.values()), keys_dir)
        if opts.processes > 1 and len(names) > opts.processes:
            shards = [
                _Shard(
                    login,
                    connections,
                    opts,
                    names[i :: opts.processes],
                    writer.target,
                    writer.tmp,
                    keys,
                    os.getpid(),
                )
                for i in range(opts.processes)
            ]
            found = _collect_in_processes(fabric, shards, len(names), opts.progress)
        else:
            with _progress_bar(opts.progress, len(names)) as advance:
                found = _run(nr, fabric, writer, opts, keys, advance, stop)
        meta = _meta(fabric, found, started, time.monotonic() - t0)
    except BaseException:
        writer.abort()
        raise
    finally:
        if keys_dir is not None:
            shutil.rmtree(keys_dir, ignore_errors=True)
    return writer.commit(meta), found


def _meta(fabric: Fabric, found: dict[str, DeviceCollection], started: datetime, seconds: float) -> dict:
    return {
        "netcfg_version": __version__,
        "fabric": fabric.name,
        "created": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seconds": round(seconds, 3),
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
