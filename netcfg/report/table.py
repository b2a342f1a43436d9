"""The terminal table: what an operator reads first."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from netcfg.report.base import Report

STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def print_table(report: Report, console: Console) -> None:
    s = report.summary()
    counts = s["findings"]
    if report.findings:
        table = Table(title=f"netcfg: {report.fabric} ({report.source})", show_lines=False, expand=False)
        for col in ("severity", "rule", "device", "interface", "expected", "actual"):
            table.add_column(col, overflow="fold")
        for f in report.findings:
            table.add_row(
                f"[{STYLES[f.severity.value]}]{f.severity.value}[/]",
                f.rule,
                f.device,
                f.interface or "",
                f.expected,
                f.actual,
            )
        console.print(table)
    console.print(
        f"{report.devices_checked} devices checked: " + ", ".join(f"{v} {k}" for k, v in counts.items())  # type: ignore[union-attr]
    )
