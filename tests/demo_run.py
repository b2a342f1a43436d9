"""`netcfg demo` of a lab as a user runs it: its own process, its JSON report read back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def demo_report(inventory: Path, out: Path, *options: str) -> dict:
    """The JSON report of `netcfg demo INVENTORY [OPTIONS]`, which must exit 1 (its seeded faults are
    errors)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "netcfg",
            "demo",
            str(inventory),
            *options,
            "--format",
            "json",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 1, done.stderr
    return json.loads(done.stdout)


def device_rules(report: dict) -> set[tuple[str, str]]:
    return {(f["device"], f["rule"]) for f in report["findings"]}
