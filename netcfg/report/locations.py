"""Where a finding points: its config file and line, else the inventory entry of its device."""

from __future__ import annotations

from pathlib import Path

import yaml

from netcfg.errors import InputError
from netcfg.rules import Finding


def file_line(finding: Finding) -> str:
    """`file:line` (or just `file`) as people and CI annotations read it; "" when there is no file."""
    if finding.file is None:
        return ""
    return f"{finding.file}:{finding.line}" if finding.line is not None else finding.file


def repo_relative_uri(path: str, root: Path) -> str:
    """`path` relative to the repository root, with forward slashes, as SARIF consumers resolve it.

    A file outside the root cannot be named relative to it; an absolute path would leak the
    machine's layout and GitHub would not match it to the repository.
    """
    absolute = Path(path).resolve()
    base = root.resolve()
    try:
        return absolute.relative_to(base).as_posix()
    except ValueError:
        raise InputError(
            f"{path}",
            f"is outside the repository root {base}; SARIF paths are relative to it "
            "(run netcfg from the repository, or give --repo-root)",
        ) from None


class Places:
    """Where each finding stands in the repository, as CI tools resolve it: the config file and line
    of the setting, else the device's entry in the inventory (live audits, rendered intent), since a
    finding without a file is dropped by code scanning and placed nowhere by the annotators.

    `strict`: a file outside `root` is refused (SARIF, Code Quality: only repository paths resolve);
    otherwise it keeps the path it was given (JUnit, which Jenkins also reads outside any repository)."""

    def __init__(self, root: Path, inventory: str | None, strict: bool = True) -> None:
        self.root = root
        self.strict = strict
        self.inventory = self.path(inventory) if inventory else None
        self.lines = device_lines(inventory) if inventory else {}

    def path(self, path: str) -> str:
        if self.strict:
            return repo_relative_uri(path, self.root)
        try:
            return repo_relative_uri(path, self.root)
        except InputError:
            return path

    def of(self, finding: Finding) -> tuple[str, int] | None:
        """(path, 1-based line); line 1 stands for a file whose line netcfg does not know."""
        if finding.file is not None:
            return self.path(finding.file), finding.line or 1
        if self.inventory is not None:
            line = self.lines.get(finding.device) or self.lines.get("") or 1
            return self.inventory, line
        return None


def device_lines(inventory: str) -> dict[str, int]:
    """1-based line of each device's entry in an explicit inventory; the `topology` line stands for
    every device of a compact one (key "")."""
    try:
        node = yaml.compose(Path(inventory).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    lines = {}
    for key, value in node.value:
        if key.value == "topology":
            lines[""] = key.start_mark.line + 1
        elif key.value == "devices" and isinstance(value, yaml.SequenceNode):
            for entry in value.value:
                if isinstance(entry, yaml.MappingNode):
                    for k, v in entry.value:
                        if k.value == "name" and isinstance(v, yaml.ScalarNode):
                            lines[v.value] = entry.start_mark.line + 1
    return lines
