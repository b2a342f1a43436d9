"""Shards of a fabric for collection spread over a batch scheduler's array tasks.

A device belongs to shard `hash(name) mod N`: a shard keeps its devices when others are added to the
inventory (only the new ones are placed), and every task of an array computes the same split with no
list passed between them. The scheduler says which task this is: Slurm job arrays set
`SLURM_ARRAY_TASK_ID`, Kubernetes Indexed Jobs `JOB_COMPLETION_INDEX`; `--shard auto/N` reads them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass

from netcfg.errors import InputError

# Where schedulers put an array task's index, in the order asked.
INDEX_VARIABLES = ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX")
# More shards than this would leave most of them empty even on a 100,000-GPU fleet's 15,000 devices.
MAX_SHARDS = 4096
_EXPECTED = (
    "expected I/N with 0 <= I < N <= 4096, or auto/N "
    "(the index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)"
)


@dataclass(frozen=True, slots=True)
class Shard:
    index: int
    count: int

    def holds(self, device: str) -> bool:
        return shard_of(device, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(device: str, count: int) -> int:
    """The shard of `count` that `device` belongs to (blake2b: the same on every machine and Python)."""
    digest = hashlib.blake2b(device.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count


def parse_shard(text: str, environ: Mapping[str, str] = os.environ) -> Shard:
    """`I/N` or `auto/N`; InputError naming the option (or the variable `auto` read) otherwise."""
    index_text, slash, count_text = text.partition("/")
    if not slash or not count_text.isdigit() or len(count_text) > 4:
        raise InputError(f"--shard {text[:40]}", _EXPECTED)
    count = int(count_text)
    if not 1 <= count <= MAX_SHARDS:
        raise InputError(f"--shard {text}", _EXPECTED)
    where = f"--shard {text}"
    if index_text == "auto":
        found = next(((name, environ[name]) for name in INDEX_VARIABLES if environ.get(name)), None)
        if found is None:
            raise InputError(
                where, "auto needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX, and neither is set"
            )
        where, index_text = f"{found[0]}={found[1][:20]}", found[1]
    if not index_text.isdigit() or len(index_text) > 4 or int(index_text) >= count:
        raise InputError(where, f"a shard index from 0 to {count - 1} ({_EXPECTED})")
    return Shard(int(index_text), count)
