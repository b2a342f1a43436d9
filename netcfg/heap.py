"""Keeping Python's garbage collector out of bulk loops."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection inside: a loop that builds a fabric's hundreds of thousands of ports
    and findings, and no reference cycles, would otherwise have the collector walk every object it
    made so far again and again (a sixth of a check of a large fabric). Collection resumes after it,
    as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """Everything alive now left out of every collection inside (`gc.freeze`), and back in after:
    what a command built to work on and keeps till its end (a fabric, its parsed states) is not
    walked again by each collection its later steps trigger."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
