"""Reporters turn findings into text; each registers under the name `--format` takes."""

from __future__ import annotations

from collections.abc import Callable

from netcfg.report.base import Report, rules_not_run
from netcfg.report.codequality import codequality_report
from netcfg.report.formats import json_report, junit_report, markdown_report
from netcfg.report.golden_config import golden_config_report
from netcfg.report.html import html_report
from netcfg.report.sarif import sarif_report

Renderer = Callable[[Report], str]
FORMATS: dict[str, Renderer] = {
    "codequality": codequality_report,
    # Nautobot Golden Config's ConfigCompliance records, per device and feature.
    "golden-config": golden_config_report,
    "html": html_report,
    "json": json_report,
    "junit": junit_report,
    "markdown": markdown_report,
    "sarif": sarif_report,
}

__all__ = ["FORMATS", "Report", "rules_not_run"]
