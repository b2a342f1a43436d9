"""Snapshots: plain folders of raw command output, `<snapshot>/<device>/<command>.txt` + `meta.json`.

Written to a temporary folder and renamed when complete, so a reader never sees half a snapshot.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from netcfg.files import list_dir, read_text

META_FILE = "meta.json"


def read_device_outputs(folder: Path) -> dict[str, str]:
    """Command outputs of one device keyed by command file name (without `.txt`).

    Hidden files (`.DS_Store`, macOS `._*` companions) and other suffixes are not outputs. Every
    output is read bounded and as strict UTF-8 (netcfg saves UTF-8), line ends as `\n`.
    """
    outputs = {}
    for path in list_dir(folder, "device folder of command outputs"):
        if path.suffix == ".txt" and not path.name.startswith("."):
            outputs[path.stem] = as_saved(read_text(path, "command output"))
    return outputs


def as_saved(text: str) -> str:
    """Output as a snapshot keeps it: line endings as `\n`, which is also how Python reads it back.

    Collection parses what it saves without reading it back: this keeps both texts the same.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def fingerprint(outputs: dict[str, str]) -> str:
    """A digest of one device's outputs, kept in `meta.json`.

    Between two audits most devices print exactly what they printed before: drift compares these
    digests and parses only the devices whose digests differ.
    """
    digest = hashlib.blake2b(digest_size=16)
    for file, text in sorted(outputs.items()):
        digest.update(f"{file}\0{len(text)}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class SnapshotWriter:
    """Collects device outputs into a temporary sibling folder, then renames it into place."""

    def __init__(self, target: Path, tmp: Path | None = None) -> None:
        """`tmp` joins a writer another process started (collection sharded over processes)."""
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = tmp or Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))

    def write_device(self, device: str, outputs: dict[str, str]) -> str:
        """Save one device's outputs; returns their fingerprint for `meta.json`."""
        folder = self.tmp / device
        folder.mkdir(exist_ok=True)
        for file, text in outputs.items():
            (folder / f"{file}.txt").write_text(text, encoding="utf-8")
        return fingerprint(outputs)

    def commit(self, meta: dict[str, Any]) -> Path:
        (self.tmp / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if self.target.exists():
            shutil.rmtree(self.target)
        self.tmp.replace(self.target)
        return self.target

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)
