"""Command line: parse arguments, call the pipeline, pick a reporter, set the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console

from netcfg import __version__
from netcfg.checks import RULES, Finding, Severity, run_checks
from netcfg.errors import InputError
from netcfg.explain import explain_headroom
from netcfg.generate import write_generated_inventory
from netcfg.inventory import load_fabric
from netcfg.model import Fabric
from netcfg.policy import Policy, load_policy
from netcfg.render import render_fabric, write_rendered
from netcfg.report import FORMATS, Report
from netcfg.report.table import print_table
from netcfg.sources import config_states, intent_states, snapshot_states

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
COMMANDS: dict[str, Callable[[argparse.Namespace, Console], int]] = {}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"usage: {self.prog}", message)


def command(name: str) -> Callable[[Callable[[argparse.Namespace, Console], int]], Callable]:
    def wrap(func: Callable[[argparse.Namespace, Console], int]) -> Callable:
        COMMANDS[name] = func
        return func

    return wrap


def load(inventory: str) -> tuple[Fabric, Policy]:
    fabric = load_fabric(Path(inventory))
    return fabric, load_policy(fabric.policy_ref, Path(fabric.source).parent)


@command("render")
def cmd_render(args: argparse.Namespace, console: Console) -> int:
    fabric, policy = load(args.inventory)
    unknown = [d for d in args.device or [] if d not in fabric.devices]
    if unknown:
        raise InputError(f"--device {unknown[0]}", f"not in the inventory {fabric.source}")
    files = render_fabric(fabric, policy, args.device)
    out = Path(args.output)
    write_rendered(files, out)
    console.print(f"rendered {len(files)} devices into {out}/")
    if args.explain:
        explain_headroom(fabric, policy, args.device, console)
    return EXIT_OK


def _states(args: argparse.Namespace, fabric: Fabric, policy: Policy) -> tuple[dict, str]:
    if args.configs and args.snapshot:
        raise InputError("--configs/--snapshot", "give one source of state, not both")
    if args.configs:
        return config_states(fabric, Path(args.configs)), f"configs {args.configs}"
    if args.snapshot:
        return snapshot_states(fabric, Path(args.snapshot)), f"snapshot {args.snapshot}"
    return intent_states(fabric, policy), "rendered intent"


def emit(report: Report, args: argparse.Namespace, console: Console) -> int:
    """Print or write the report; exit 1 when a finding is at or above --fail-on."""
    if args.format == "table":
        print_table(report, console)
    else:
        text = FORMATS[args.format](report)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            console.print(f"wrote {args.format} report to {args.output}")
        else:
            sys.stdout.write(text)
    return exit_code(report.findings, Severity(args.fail_on))


def exit_code(findings: list[Finding], fail_on: Severity) -> int:
    return EXIT_FINDINGS if any(f.severity.rank >= fail_on.rank for f in findings) else EXIT_OK


@command("check")
def cmd_check(args: argparse.Namespace, console: Console) -> int:
    fabric, policy = load(args.inventory)
    states, source = _states(args, fabric, policy)
    findings = run_checks(fabric, policy, states)
    return emit(Report(fabric.name, source, len(states), findings), args, console)


@command("rules")
def cmd_rules(args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    table = Table(title="netcfg rules")
    for col in ("id", "severity", "scope", "what it checks"):
        table.add_column(col, overflow="fold")
    for r in sorted(RULES.values(), key=lambda r: r.id):
        table.add_row(r.id, r.severity.value, r.scope, r.doc)
    console.print(table)
    return EXIT_OK


@command("policy-schema")
def cmd_policy_schema(args: argparse.Namespace, console: Console) -> int:
    import json

    sys.stdout.write(json.dumps(Policy.model_json_schema(), indent=2) + "\n")
    return EXIT_OK


@command("inventory generate")
def cmd_generate(args: argparse.Namespace, console: Console) -> int:
    path = write_generated_inventory(
        Path(args.output), args.name, args.scalable_units, args.servers_per_su, args.rails
    )
    fabric = load_fabric(path)
    console.print(f"wrote {path}: {len(fabric.devices)} devices, {len(fabric.links)} links")
    return EXIT_OK


@command("lab snapshot")
def cmd_lab_snapshot(args: argparse.Namespace, console: Console) -> int:
    from netcfg.lab.devices import load_faults
    from netcfg.lab.snapshot import write_simulated_snapshot

    fabric, policy = load(args.inventory)
    faults = load_faults(Path(args.faults) if args.faults else None, fabric)
    path = write_simulated_snapshot(fabric, policy, faults, Path(args.output))
    console.print(f"wrote simulated snapshot of {len(fabric.devices)} devices to {path}/")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="netcfg", description="RoCE configuration generator and validator for AI GPU fabrics.")
    p.add_argument("--version", action="version", version=f"netcfg {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    r = sub.add_parser("render", help="render every device's config from inventory + policy")
    r.add_argument("inventory")
    r.add_argument(
        "-o", "--output", default="out/rendered", help="folder to write into (default out/rendered)"
    )
    r.add_argument("--device", action="append", help="only this device (repeatable)")
    r.add_argument("--explain", action="store_true", help="show the PFC headroom computed per lossless port")

    c = sub.add_parser("check", help="check rendered intent, config files or a snapshot against the policy")
    c.add_argument("inventory")
    c.add_argument("--configs", help="folder of <device>.cfg / <device>.sh files (pre-merge check)")
    c.add_argument("--snapshot", help="snapshot folder <snapshot>/<device>/<command>.txt")
    add_report_args(c)

    sub.add_parser("rules", help="list every rule with its id, severity and what it checks")
    sub.add_parser("policy-schema", help="print the policy schema (JSON Schema) with defaults")

    inv = sub.add_parser("inventory", help="inventory tools").add_subparsers(
        dest="inventory_command", required=True, parser_class=_Parser
    )
    g = inv.add_parser("generate", help="write a large rail-optimised inventory (32,768 GPUs by default)")
    g.add_argument("-o", "--output", required=True, help="folder to write fabric.yaml into")
    g.add_argument("--name", default="gen")
    g.add_argument("--scalable-units", type=int, default=128)
    g.add_argument("--servers-per-su", type=int, default=32)
    g.add_argument("--rails", type=int, default=8)

    lab = sub.add_parser("lab", help="the simulated fabric").add_subparsers(
        dest="lab_command", required=True, parser_class=_Parser
    )
    ls = lab.add_parser("snapshot", help="write a snapshot of simulated devices without SSH")
    ls.add_argument("inventory")
    ls.add_argument("--faults", help="faults YAML applied to the simulated devices")
    ls.add_argument("-o", "--output", required=True)
    return p


def add_report_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["table", *FORMATS], default="table")
    p.add_argument("--output", help="write the report to this file instead of stdout")
    p.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default="error",
        help="exit 1 when a finding is at or above this severity (default error)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    # A pipe or CI log gets wide lines rather than rich's 80-column default.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    try:
        args = build_parser().parse_args(argv)
        sub = getattr(args, "inventory_command", None) or getattr(args, "lab_command", None)
        name = " ".join(filter(None, [args.command, sub]))
        return COMMANDS[name](args, console)
    except InputError as exc:
        Console(stderr=True, highlight=False).print(f"netcfg: error: {exc}", markup=False)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
