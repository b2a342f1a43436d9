"""Checks read only DeviceState, Fabric and Policy. Importing this package registers every rule:
the shared ones here, then each platform's own (`Platform.rule_modules`)."""

from importlib import import_module

from netcfg.checks import cabling, collection, device, fabric, health, link, plan, waiver
from netcfg.checks.base import RULES, Finding, Severity
from netcfg.checks.runner import run_checks, worst
from netcfg.platforms.base import registry

__all__ = ["RULES", "Finding", "Severity", "run_checks", "worst"]
_RULE_MODULES = (
    cabling,
    collection,
    device,
    fabric,
    health,
    link,
    plan,
    waiver,
    *(import_module(m) for p in registry().values() for m in p.rule_modules),
)
