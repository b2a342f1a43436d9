"""The host's own tools (ethtool, lldpcli, mlnx_qos, bnxtqos, ...), found and run the way a
scheduler's hook needs: slurmd starts prologs and health checks without PATH, and a hook that hangs
or leaves a process behind holds up the node's jobs.

A tool is looked up on PATH, then in the system's program folders. It runs in a process group of
its own, so that on its timeout, at the deadline, on success or when netcfg itself is stopped, the
tool and every process it started are killed; on Linux the kernel also kills the tool when netcfg
dies by SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from contextlib import suppress

from netcfg.deadline import Deadline

# Where Debian, RHEL and the NIC vendors' packages install them, sbin first: a prolog runs as root.
SYSTEM_FOLDERS = ("/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/local/bin")
# After a kill, how long the pipes may take to close; a process that left the group keeps them
# open, and then its output is given up rather than waited for.
_DRAIN_S = 1.0


def find_tool(name: str) -> str | None:
    """The program `name` runs: from PATH when it is set and holds it, else from SYSTEM_FOLDERS."""
    if "/" in name:
        return name if os.access(name, os.X_OK) else None
    path = os.environ.get("PATH")
    found = shutil.which(name, path=path) if path else None
    return found or shutil.which(name, path=os.pathsep.join(SYSTEM_FOLDERS))


def not_found(name: str) -> str:
    where = "on PATH or in " if os.environ.get("PATH") else "(no PATH) in "
    return f"{name} is not installed (not found {where}{', '.join(SYSTEM_FOLDERS)})"


def run_tool(argv: list[str], timeout_s: float, deadline: Deadline) -> tuple[str, str | None]:
    """(stdout, None) of a tool that ran and exited 0 within `timeout_s` and the deadline; else
    ("", why not, on one line)."""
    program = find_tool(argv[0])
    if program is None:
        return "", not_found(argv[0])
    budget = min(timeout_s, deadline.remaining())
    if budget <= 0:
        return "", deadline.why("not started")
    try:
        child = subprocess.Popen(
            [program, *argv[1:]],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_tool_environment(),
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
    except PermissionError:
        return "", f"{program} is not executable"
    except OSError as exc:
        return "", f"{program} cannot be started: {exc.strerror or exc}"
    try:
        out, err = child.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        _kill_group(child)
        if budget < timeout_s:
            return "", deadline.why(f"no answer from {argv[0]}")
        return "", f"no answer within {timeout_s:g} s (--timeout)"
    finally:
        # Also on success and on Interrupted: whatever the tool started and left behind ends with it.
        _kill_group(child)
    if child.returncode != 0:
        said = (err or out).decode("utf-8", "replace").strip().splitlines()
        return "", f"exit {child.returncode}" + (f": {said[0][:120]}" if said else "")
    return out.decode("utf-8", "replace"), None


def _tool_environment() -> dict[str, str]:
    # A tool that runs others (mlnx_qos is a Python script) needs a PATH as much as netcfg does.
    env = dict(os.environ)
    env.setdefault("PATH", os.pathsep.join(SYSTEM_FOLDERS))
    return env


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    try:
        child.communicate(timeout=_DRAIN_S)
    except subprocess.TimeoutExpired:
        for pipe in (child.stdout, child.stderr):
            if pipe is not None:
                pipe.close()
        child.wait()


def _die_with_parent() -> None:
    """In the child, before exec: the kernel kills it when netcfg dies, even by SIGKILL."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
