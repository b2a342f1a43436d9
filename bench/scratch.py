"""What the benchmarks need of the machine: where they write inventories, snapshots and reports,
what creating a file costs there, and how fast the machine runs Python just now.

Snapshots are a file per device (and, converted for comparison, a file per command and device), so
their writing is as fast as the disk's file creation. The default is `out/bench` in the project, on
the disk an operator keeps snapshots on, not the system's temporary folder: on the development
machine creating a file in /tmp costs about 1 ms of CPU, 25 times what it costs on the same disk
elsewhere.
"""

from __future__ import annotations

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
