"""The garbage collector paused over bulk work that builds many objects and no cycles to free."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """No collection while the block runs: parsing thousands of states and checking them allocates
    millions of objects that all live on, and each collection walks them again for nothing freed.
    Nested blocks are fine; the collector comes back as the outermost found it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
