"""`netcfg init DIR`: a starting inventory, faults example and policy to edit, with their schemas."""

from __future__ import annotations

import json
from pathlib import Path

from netcfg.errors import InputError
from netcfg.output import write_new_file
from netcfg.resources import data_path
from netcfg.schema import json_schema

STARTER = "starter"
# File name -> schema written beside the starter files (their `yaml-language-server` lines name them).
SCHEMA_FILES = {"inventory.schema.json": "inventory", "policy.schema.json": "policy"}


def starter_files() -> dict[str, str]:
    """Name -> text of every file `init` writes."""
    folder = data_path("inventories") / STARTER
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.yaml"))}
    for name, schema in SCHEMA_FILES.items():
        files[name] = json.dumps(json_schema(schema), indent=2) + "\n"
    return files


def write_starter(folder: Path) -> list[Path]:
    """Write the starter files into `folder` (created if missing). Refuses to overwrite anything:
    an existing file is the user's, and netcfg never replaces what it did not write."""
    if folder.exists() and not folder.is_dir():
        raise InputError(str(folder), "is not a folder; expected a folder to write the inventory into")
    files = starter_files()
    taken = sorted(name for name in files if (folder / name).exists() or (folder / name).is_symlink())
    if taken:
        raise InputError(
            str(folder / taken[0]), "already exists; netcfg init never overwrites (choose an empty folder)"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(str(folder), f"cannot create the folder ({exc.strerror})") from None
    written = []
    for name, text in files.items():
        write_new_file(folder / name, text)
        written.append(folder / name)
    return written
