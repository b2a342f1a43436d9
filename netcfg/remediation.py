"""Intended vs running config per switch: a unified diff and what to apply to restore intent.

Each platform says how (`Platform.remediate`); for CLI configs the tree comparison is hier_config's,
and netcfg only picks the driver and the texts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from hier_config import Platform as HierPlatform
from hier_config import WorkflowRemediation, get_hconfig


@dataclass(frozen=True, slots=True)
class Remediation:
    device: str
    diff: str
    # What to apply, in the platform's own form (CLI lines, `nv set` lines, a JSON patch).
    commands: str


def unified_diff(device: str, running: list[str], intended: list[str]) -> str:
    return "\n".join(
        difflib.unified_diff(running, intended, f"{device} running", f"{device} intended", lineterm="")
    )


def _body(text: str) -> list[str]:
    """Config lines without the leading `! ...` banner a device or renderer prints."""
    lines = text.splitlines()
    while lines and (lines[0].startswith("! ") or lines[0] == "!"):
        lines.pop(0)
    return lines


def hier_config_remediation(device: str, hier_platform: str, intended: str, running: str) -> Remediation:
    want, have = _body(intended), _body(running)
    diff = unified_diff(device, have, want)
    platform = HierPlatform[hier_platform]
    workflow = WorkflowRemediation(
        get_hconfig(platform, "\n".join(have)), get_hconfig(platform, "\n".join(want))
    )
    commands = "\n".join(workflow.remediation_config.dump_simple())
    return Remediation(device, diff, commands)
