"""What the benchmarks need of the machine: where they write inventories, snapshots and reports,
what creating a file costs there, and how fast the machine runs Python just now.

Snapshots are a file per device (and, converted for comparison, a file per command and device), so
their writing is as fast as the disk's file creation. The default is `out/bench` in the project, on
the disk an operator keeps snapshots on, not the system's temporary folder: on the development
machine creating a file in /tmp costs about 1 ms of CPU, 25 times what it costs on the same disk
elsewhere.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "out" / "bench"


def scratch_dir(parent: Path, prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A fresh folder under `parent` (created if missing), removed with everything in it at the end."""
    parent.mkdir(parents=True, exist_ok=True)
    return tempfile.TemporaryDirectory(prefix=prefix, dir=parent)


def file_creation_ms(folder: Path, files: int = 500) -> float:
    """CPU milliseconds to create one small file in `folder` (a fresh subfolder, then removed)."""
    with tempfile.TemporaryDirectory(dir=folder) as name:
        started = time.process_time()
        for i in range(files):
            (Path(name) / f"{i}.txt").write_text("x" * 2000, encoding="utf-8")
        return (time.process_time() - started) / files * 1000


def machine_speed() -> float:
    """Seconds for a fixed pure-Python loop: on shared machines the same run varies by a third."""
    started = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - started


def installed_env(tree: Path, pycache: Path) -> dict[str, str]:
    """The environment to run `tree`'s netcfg in as an installed one runs: on PYTHONPATH, its bytecode
    kept under `pycache` (a folder per tree, outside it). An installed netcfg has its bytecode:
    compiling every module again in each run would be a cost of this machine's
    PYTHONDONTWRITEBYTECODE, not of a user's run."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env["PYTHONPYCACHEPREFIX"] = str(pycache / tree.as_posix().strip("/").replace("/", "_"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
