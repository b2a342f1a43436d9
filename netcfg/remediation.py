"""Intended vs running config per switch: a unified diff and the commands that restore intent.

The config tree comparison is hier_config's; netcfg only picks the platform driver and the texts.
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
    commands: str


def _body(text: str) -> list[str]:
    """Config lines without the leading `! ...` banner a device or renderer prints."""
    lines = text.splitlines()
    while lines and (lines[0].startswith("! ") or lines[0] == "!"):
        lines.pop(0)
    return lines


def remediate(device: str, hier_platform: str, intended: str, running: str) -> Remediation:
    want, have = _body(intended), _body(running)
    diff = "\n".join(difflib.unified_diff(have, want, f"{device} running", f"{device} intended", lineterm=""))
    platform = HierPlatform[hier_platform]
    workflow = WorkflowRemediation(
        get_hconfig(platform, "\n".join(have)), get_hconfig(platform, "\n".join(want))
    )
    commands = "\n".join(workflow.remediation_config.dump_simple())
    return Remediation(device, diff, commands)
