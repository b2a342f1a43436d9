"""One asyncssh server, in one background asyncio loop, that plays many simulated network devices.

Every device gets its own listening port on the loopback interface, as devices in a real inventory have
their own addresses, so collectors run unchanged against the lab. The server is generic: what a device
prints comes from the :class:`LabDevice` data it is given (see :mod:`netcfg.lab.session`).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import signal
import socket
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import TracebackType

import asyncssh

from netcfg.lab.profile import LabDevice, TransportFault
from netcfg.lab.session import serve_process
from netcfg.platforms.simulator import CliProfile

try:
    import resource
except ImportError:  # Windows: no RLIMIT_NOFILE, and its socket limit is far above 1,024 anyway.
    resource = None  # type: ignore[assignment]

__all__ = ["KEX_ALGS", "CliProfile", "LabDevice", "LabServer", "TransportFault"]

log = logging.getLogger(__name__)

# What OpenSSH-based switch OSes (EOS, NX-OS, SONiC, Cumulus) offer. Left alone, paramiko 5 and asyncssh
# agree on post-quantum mlkem768x25519-sha256, which no switch speaks. OpenSSH offers curve25519 under both
# names, and the @libssh.org one is the only one paramiko knows.
KEX_ALGS = (
    "curve25519-sha256",
    "curve25519-sha256@libssh.org",
    "ecdh-sha2-nistp256",
    "diffie-hellman-group14-sha256",
)

_START_TIMEOUT_S = 60.0
_STOP_TIMEOUT_S = 10.0
# Python runs a signal's handler only when the main thread next runs Python code, and a main thread
# blocked on a lock is not woken by a signal whose C handler ran just before it blocked (or on
# another thread): waking this often bounds how late a stop request is seen.
_SIGNAL_CHECK_S = 0.25


@dataclass(frozen=True)
class _Credentials:
    username: str
    password: str = field(repr=False)

    def match(self, username: str, password: str) -> bool:
        # Constant time, and '&' rather than 'and' so a wrong username costs as long as a wrong password.
        return hmac.compare_digest(username.encode(), self.username.encode()) & hmac.compare_digest(
            password.encode(), self.password.encode()
        )


class _DeviceSSHServer(asyncssh.SSHServer):
    """Authentication for one connection to one device; also tracks live connections for shutdown."""

    def __init__(
        self,
        credentials: _Credentials,
        connections: set[asyncssh.SSHServerConnection],
        device: LabDevice,
    ) -> None:
        self._credentials = credentials
        self._connections = connections
        self._device = device
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self._connections.discard(self._conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return not self._device.fault.auth_fail and self._credentials.match(username, password)


class LabServer:
    """Many simulated devices served over SSH from one background thread.

    Bound to loopback only: the lab accepts one shared password and must never be reachable from the
    network. Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        devices: Sequence[LabDevice],
        *,
        username: str,
        password: str,
        host: str = "127.0.0.1",
    ) -> None:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"the lab SSH server listens on loopback addresses only, not {host!r}")
        duplicates = sorted(name for name, count in Counter(d.name for d in devices).items() if count > 1)
        if duplicates:
            raise ValueError(f"duplicate device names: {', '.join(duplicates)}")
        self.host = host
        self.ports: dict[str, int] = {}
        self._devices = tuple(devices)
        self._credentials = _Credentials(username, password)
        # Fresh per server and never written to disk: clients learn it from write_known_hosts().
        self._host_key = asyncssh.generate_private_key("ssh-ed25519")
        key_type, key_data = self._host_key.export_public_key().decode().split()[:2]
        self.host_public_key = f"{key_type} {key_data}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._acceptors: list[asyncssh.SSHAcceptor] = []
        self._connections: set[asyncssh.SSHServerConnection] = set()
        self._closed_ports: list[socket.socket] = []

    def __enter__(self) -> LabServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Bind every device's port and serve them from a daemon thread; return once all are bound."""
        if self._thread is not None:
            raise RuntimeError("LabServer is already running")
        _raise_fd_limit()
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="netcfg-lab-ssh", daemon=True)
        self._thread.start()
        try:
            ports = asyncio.run_coroutine_threadsafe(self._listen(), loop).result(_START_TIMEOUT_S)
            for device in self._devices:
                if device.fault.refuse:
                    ports[device.name] = self._reserve_closed_port()
        except BaseException:
            self.stop()
            raise
        self.ports = {device.name: ports[device.name] for device in self._devices}

    def stop(self) -> None:
        """Close listeners and live sessions, then end the background thread. Safe to call twice."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(_STOP_TIMEOUT_S)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            for sock in self._closed_ports:
                sock.close()
            self._closed_ports.clear()
            self._loop = self._thread = None

    def serve_forever(
        self, on_ready: Callable[[LabServer], AbstractContextManager[object] | None] | None = None
    ) -> None:
        """Start, call ``on_ready``, block until SIGINT (Ctrl-C) or SIGTERM, then stop.

        ``on_ready`` may return a context manager (e.g. files telling clients where the lab is): it is
        entered at once and exited when the lab stops, before the listeners close. Both signals only
        ask for the stop, so a second one cannot cut the clean-up short. Call it from the main thread:
        that is the only thread Python delivers signals to.
        """
        stop_requested = threading.Event()
        previous = {
            signum: signal.signal(signum, lambda _signum, _frame: stop_requested.set())
            for signum in (signal.SIGINT, signal.SIGTERM)
        }
        try:
            with ExitStack() as stack:
                self.start()
                stack.callback(self.stop)
                session = on_ready(self) if on_ready is not None else None
                if session is not None:
                    stack.enter_context(session)
                while not stop_requested.wait(_SIGNAL_CHECK_S):
                    pass
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler if handler is not None else signal.SIG_DFL)

    def write_known_hosts(self, path: Path) -> None:
        """Write an OpenSSH known_hosts file, one line per listening device, for strict host-key checks."""
        if not self.ports:
            raise RuntimeError("start() the LabServer first: ports are assigned when it binds")
        lines = [
            f"[{self.host}]:{self.ports[device.name]} {self.host_public_key}\n"
            for device in self._devices
            if not device.fault.refuse
        ]
        path.write_text("".join(lines), encoding="utf-8")

    async def _listen(self) -> dict[str, int]:
        listening = [device for device in self._devices if not device.fault.refuse]
        ports = await asyncio.gather(*(self._listen_one(device) for device in listening))
        return {device.name: port for device, port in zip(listening, ports, strict=True)}

    async def _listen_one(self, device: LabDevice) -> int:
        acceptor = await asyncssh.create_server(
            partial(_DeviceSSHServer, self._credentials, self._connections, device),
            self.host,
            0,
            server_host_keys=[self._host_key],
            kex_algs=list(KEX_ALGS),
            public_key_auth=False,
            kbdint_auth=False,
            gss_host=None,
            agent_forwarding=False,
            allow_scp=False,
            line_editor=False,
            encoding="utf-8",
            # A stray byte from a client is a typo to a CLI, not a reason to drop the session.
            errors="replace",
            process_factory=partial(serve_process, device),
        )
        self._acceptors.append(acceptor)
        return acceptor.get_port()

    def _reserve_closed_port(self) -> int:
        # Bound but never listening: the port cannot be handed to anyone else, and connecting to it gets
        # an immediate RST, exactly like a host with nothing on port 22.
        family = socket.AF_INET6 if ipaddress.ip_address(self.host).version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind((self.host, 0))
        self._closed_ports.append(sock)
        return sock.getsockname()[1]

    async def _shutdown(self) -> None:
        acceptors, connections = list(self._acceptors), list(self._connections)
        self._acceptors.clear()
        for acceptor in acceptors:
            acceptor.close()
        for conn in connections:
            conn.close()
        await asyncio.gather(
            *(acceptor.wait_closed() for acceptor in acceptors),
            *(conn.wait_closed() for conn in connections),
        )
        # Sessions still mid-handshake or mid-sleep would otherwise die with the loop and warn about it.
        pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def _raise_fd_limit() -> None:
    """Lift the soft open-files limit to the hard one.

    Each device needs a listening socket and each session another; 1,000 devices overflow the common
    soft limit of 1,024, and netmiko then reports the EMFILE as a misleading "TCP connection failed".
    """
    if resource is None:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as exc:  # macOS refuses RLIM_INFINITY as a soft limit
        log.warning("could not raise the open-files limit from %s to %s: %s", soft, hard, exc)
