"""The garbage collector paused over bulk work that builds many objects and no cycles to free."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(*, keep: bool = False) -> Iterator[None]:
    """No collection while the block runs: parsing thousands of states and checking them allocates
    millions of objects that all live on, and each collection walks them again for nothing freed.
    Nested blocks are fine; the collector comes back as the outermost found it.

    `keep`: what the block built lives on (parsed states), so it is moved out of the collector's
    sight (`gc.freeze`) instead of being walked by the first collection after the block, which
    finds every object allocated in it still young. Freed as usual once no longer referenced.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
        if enabled:
            gc.enable()
