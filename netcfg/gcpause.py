"""The garbage collector paused over bulk work that builds many objects and few cycles to free."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


class Kept:
    """What a `paused_gc(keep=True)` block builds and keeps: `one_more` after each item built.

    Every `every` items the young objects are collected once (what parsing left in cycles is freed)
    and the survivors are frozen (`gc.freeze`): they live on, and no later collection walks them
    again. Each object is looked at once, instead of at every collection of its generation.
    """

    def __init__(self, every: int) -> None:
        self.every = every
        self.items = 0

    def one_more(self) -> None:
        self.items += 1
        if self.items % self.every == 0:
            self.settle()

    def settle(self) -> None:
        gc.collect(0)
        gc.freeze()


@contextmanager
def paused_gc(*, keep: bool = False, every: int = 200) -> Iterator[Kept]:
    """No automatic collection while the block runs: parsing thousands of states and checking them
    allocates millions of objects that all live on, and each collection walks them again for nothing
    freed. Nested blocks are fine; the collector comes back as the outermost found it.

    `keep`: what the block builds lives on (parsed states); the block calls `one_more` per item and
    its objects are settled in batches (`Kept`) and at the end, instead of being walked by the first
    collection after the block, which would find every object allocated in it still young.
    """
    enabled = gc.isenabled()
    kept = Kept(every)
    gc.disable()
    try:
        yield kept
    finally:
        if keep:
            kept.settle()
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
