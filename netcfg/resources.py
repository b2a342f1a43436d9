"""Where bundled templates, policies and example inventories live.

In a wheel they are package data under `netcfg/_data/`; in a source checkout (and an editable
install) they are the top-level folders of the repository.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_path(name: str) -> Path:
    """Folder `name` (templates, policies, inventories) of the installed package or checkout."""
    packaged = _PACKAGE / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / name
