"""Checks read only DeviceState, Fabric and Policy. Importing this package registers every rule."""

from netcfg.checks import collection, device, fabric, link, plan
from netcfg.checks.base import RULES, Finding, Severity
from netcfg.checks.runner import run_checks, worst

__all__ = ["RULES", "Finding", "Severity", "run_checks", "worst"]
_RULE_MODULES = (collection, device, fabric, link, plan)
