"""Intended vs running config per switch: a unified diff and what to apply to restore intent.

Each platform says how (`Platform.remediate`); for CLI configs the tree comparison is hier_config's,
and netcfg only picks the driver and the texts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

# Running sections the intended config lacks, negated per hier_config call (see `remediation_lines`).
_NEGATED_AT_ONCE = 256


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
    commands = "\n".join(remediation_lines(hier_platform, "\n".join(have), "\n".join(want)))
    return Remediation(device, diff, commands)


def remediation_lines(hier_platform: str, running: str, intended: str) -> list[str]:
    """hier_config's remediation from `running` to `intended` (WorkflowRemediation's, line for line),
    in time linear in the size of the configs.

    hier_config negates each running section the intended config lacks in the remediation it is
    building, and every negation renames a child there, which rebuilds the look-up table of all its
    siblings: 10,000 such interfaces took 50 million steps, 100,000 over two minutes. Those
    top-level sections are negated here a batch at a time, into the remediation that hier_config
    then completes with the rest of the running config, as its own first pass would have left it.
    """
    # Imported by the commands that compare configs only: it costs every other command's start-up.
    from hier_config import HConfig, get_hconfig
    from hier_config import Platform as HierPlatform

    platform = HierPlatform[hier_platform]
    have, want = get_hconfig(platform, running), get_hconfig(platform, intended)
    gone, kept = [], HConfig(have.driver)
    for child in have.children:
        if child.text not in want.children and not child.is_idempotent_command(want.children):
            gone.append(child)
        else:
            kept.add_deep_copy_of(child)
    delta = HConfig(have.driver)
    for start in range(0, len(gone), _NEGATED_AT_ONCE):
        batch = HConfig(have.driver)
        for child in gone[start : start + _NEGATED_AT_ONCE]:
            batch.add_deep_copy_of(child)
        for negated in batch.config_to_get_to(HConfig(have.driver)).children:
            delta.add_deep_copy_of(negated)
    return list(kept.config_to_get_to(want, delta).set_order_weight().dump_simple())
