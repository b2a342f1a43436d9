"""Work split over child processes that never outlive the run that started them.

Each job runs in its own process (forked where that is safe, else spawned). Children ignore Ctrl-C,
which a terminal sends to the whole process group, and leave stopping to the parent: when the
parent's block ends, for whatever reason (done, an error, Interrupted), the children still running
are terminated and every one is reaped. On Linux a child also dies with its parent, even a parent
killed by SIGKILL.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing import get_context
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for_any
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from netcfg.interrupt import STOP_SIGNALS

J = TypeVar("J")
R = TypeVar("R")
# What a job runs: the job, and a callable to report a unit of progress (None when nobody follows
# it), with what that unit produced, if the parent is to have it before the job's result.
Work = Callable[[J, Callable[[object], None] | None], R]
_END_WAIT_S = 5.0


def process_context() -> BaseContext:
    """fork where it is safe (Linux, no other thread in this process), else spawn.

    A forked child starts with everything imported and loaded; a spawned one spends about a second
    of CPU importing again, time in which it does no work.
    """
    if sys.platform == "linux" and threading.active_count() == 1:
        return get_context("fork")
    return get_context("spawn")


@contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held back while children start.

    A child is born with its parent's handlers (forked) or Python's (spawned); held back, no signal
    reaches it before it has set its own, and the parent gets them as soon as the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _die_with_parent(parent_pid: int) -> None:
    """Linux: the kernel ends this child when the process that started it dies, even by SIGKILL,
    which leaves the parent no chance to end its children itself."""
    if sys.platform != "linux":
        return
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the request was in place
        os._exit(1)


def _child(work: Work, job: object, results: Connection, progress: bool, parent_pid: int) -> None:
    """Run one job; send ("done", value) per unit of progress, then ("result", R) or ("error", exc)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent_pid)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    lock = threading.Lock()

    def send(message: tuple[str, object]) -> None:
        with lock:  # work may report progress from many threads; a Connection is not thread-safe
            results.send(message)

    try:
        result = work(job, (lambda value=None: send(("done", value))) if progress else None)
    except Exception as exc:
        try:
            send(("error", exc))
        except Exception:  # an exception that does not pickle still reaches the parent, as text
            send(("error", RuntimeError(f"{exc.__class__.__name__}: {exc}")))
        return
    send(("result", result))


class ChildProcesses(Generic[J, R]):
    """One child process per job, for the duration of a `with` block (see the module docstring)."""

    def __init__(self, work: Work[J, R], jobs: Sequence[J], progress: bool) -> None:
        """`work` must be a module-level function (a spawned child imports it by name)."""
        self._work, self._jobs, self._progress = work, list(jobs), progress
        self._children: list[tuple[BaseProcess, Connection]] = []

    def __enter__(self) -> ChildProcesses[J, R]:
        context = process_context()
        try:
            with _stop_signals_blocked():
                for number, job in enumerate(self._jobs, 1):
                    receive, send = context.Pipe(duplex=False)
                    process = context.Process(
                        target=_child,
                        args=(self._work, job, send, self._progress, os.getpid()),
                        name=f"netcfg-worker-{number}",
                        daemon=True,
                    )
                    process.start()
                    send.close()
                    self._children.append((process, receive))
        except BaseException:
            self._end()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._end()

    def results(self, advance: Callable[[object], object] | None = None) -> list[R]:
        """Every job's result, in job order; a job's exception is raised here. `advance` is called
        with each unit of progress's value as it arrives (children stream them while they work)."""
        results: dict[int, Any] = {}
        pending = {receive: index for index, (_, receive) in enumerate(self._children)}
        while pending:
            for ready in wait_for_any(list(pending)):
                assert isinstance(ready, Connection)
                try:
                    kind, value = ready.recv()
                except EOFError:
                    process = self._children[pending[ready]][0]
                    process.join()
                    raise RuntimeError(
                        f"worker process {process.pid} ended (exit code {process.exitcode}) "
                        "before reporting its result"
                    ) from None
                if kind == "error":
                    raise value
                if kind == "result":
                    results[pending.pop(ready)] = value
                elif advance is not None:
                    advance(value)
        return [results[index] for index in range(len(self._children))]

    def _end(self) -> None:
        for process, _ in self._children:
            if process.is_alive():
                process.terminate()
        for process, receive in self._children:
            process.join(_END_WAIT_S)
            if process.is_alive():
                process.kill()
                process.join()
            receive.close()
        self._children.clear()
