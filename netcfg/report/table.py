"""The terminal table: what an operator reads first.

Every cell is a `Text`, never a markup string: device output (a version `4.2[/]F`, a description
`[bold]`) and user paths must print as they are, not restyle or crash the table.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from netcfg.report.base import Report
from netcfg.report.locations import file_line

STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def print_table(report: Report, console: Console) -> None:
    s = report.summary()
    counts = s["findings"]
    if report.findings:
        located = any(f.file for f in report.findings)
        table = Table(
            title=Text(f"netcfg: {report.fabric} ({report.source})"), show_lines=False, expand=False
        )
        columns = ["severity", "rule", "device", "interface"]
        columns += ["file:line"] if located else []
        columns += ["expected", "actual", "message"]
        for col in columns:
            # Identifiers stay whole (a reader greps for them); prose wraps.
            whole = col in {"severity", "rule", "device"}
            table.add_column(col, overflow="fold", no_wrap=whole)
        for f in report.findings:
            cells = [f.rule, f.device, f.interface or ""]
            cells += [file_line(f)] if located else []
            # The message says why: the reason a device could not be collected, what a mismatch costs.
            cells += [f.expected, f.actual, f.message]
            table.add_row(Text(f.severity.value, style=STYLES[f.severity.value]), *map(Text, cells))
        console.print(table)
    console.print(
        Text(f"{report.checked_line()}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))  # type: ignore[union-attr]
    )
