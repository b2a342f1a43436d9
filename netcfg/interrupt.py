"""Stopping a run early and cleanly: signals raised as `Interrupted`, and a stop flag for worker
threads that also cuts their SSH sockets, so nobody waits out a device's timeout."""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from netcfg.errors import Interrupted

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def raise_on_signals() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise Interrupted in the main thread.

    SIGTERM would otherwise end the process on the spot, leaving its temporary folders and child
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
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


class Stop:
    """Ends a collection early: no device starts after `set`, and live SSH sockets are shut down.

    A shut socket ends paramiko's transport, and collection's session class then fails its read at
    once instead of waiting out the device's timeout.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True (at once) if the stop came first."""
        return self._event.wait(seconds)

    def set(self) -> None:
        self._event.set()
        with self._lock:
            live = list(self._sockets)
        for sock in live:
            _shut(sock)

    @contextmanager
    def watching(self, sock: socket.socket) -> Iterator[None]:
        """While the block runs, `set` shuts `sock` down."""
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
