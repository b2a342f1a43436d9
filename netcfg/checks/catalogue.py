"""Every rule netcfg has: importing this module registers the shared rules, then each platform's own
(`Platform.rule_modules`), in `netcfg.rules.RULES`."""

from __future__ import annotations

from importlib import import_module

from netcfg.checks import (
    balancing,
    cabling,
    collection,
    device,
    domain,
    fabric,
    health,
    link,
    lossless,
    nic,
    plan,
    routes,
    waiver,
    watchdog,
)
from netcfg.platforms import registry
from netcfg.rules import RULES, Rule

__all__ = ["RULES", "Rule", "rule_ids"]
_RULE_MODULES = (
    balancing,
    cabling,
    collection,
    device,
    domain,
    fabric,
    health,
    link,
    lossless,
    nic,
    plan,
    routes,
    waiver,
    watchdog,
    *(import_module(m) for p in registry().values() for m in p.rule_modules),
)


def rule_ids() -> frozenset[str]:
    """The id of every registered rule (what waivers and `--rule` filters may name)."""
    return frozenset(RULES)
