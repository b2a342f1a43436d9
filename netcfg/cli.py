"""Command line: parse arguments, call the pipeline, pick a reporter, set the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from netcfg import __version__
from netcfg.checks.catalogue import RULES
from netcfg.checks.runner import run_checks
from netcfg.cli_types import drain_limit, fabric_name, seconds, whole_number
from netcfg.drain import DEFAULT_MAX_DRAIN, SCOPES, DrainLimit, DrainTarget, DrainWithheld
from netcfg.drain import FORMATS as DRAIN_FORMATS
from netcfg.drift import Change, snapshot_drift
from netcfg.errors import InputError, Interrupted, OutputError
from netcfg.explain import explain_headroom
from netcfg.gcpause import frozen
from netcfg.generate import write_generated_inventory
from netcfg.hostcheck import DEFAULT_DEADLINE_S
from netcfg.interrupt import raise_on_signals
from netcfg.inventory import MAX_COUNT, inventory_file, load_fabric
from netcfg.merge import DEFAULT_WINDOW_S
from netcfg.model import DeviceState, Fabric
from netcfg.output import write_report
from netcfg.platforms import get_platform, platform_names
from netcfg.policy import Policy, load_policy
from netcfg.render import render_fabric, write_rendered
from netcfg.report import FORMATS, Report, rules_not_run
from netcfg.report.layout import fabric_layout
from netcfg.report.table import print_table
from netcfg.report.text import neutral
from netcfg.rules import Finding, Severity
from netcfg.sources import (
    SnapshotReadings,
    config_states,
    intent_states,
    missing_configs,
    snapshot_readings,
    snapshot_states,
    unreadable_output,
)

if TYPE_CHECKING:
    # SSH collection pulls in netmiko and paramiko: imported by the commands that collect.
    from netcfg.audit import AuditResult
    from netcfg.collect import CollectOptions, Selection

    # Nornir's inventory (and ruamel.yaml under it): only the commands that reach devices need it.
    from netcfg.nornir_inventory import Login

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
# netcfg could not write its output (disk full, no permission): nothing half-written was kept.
EXIT_WRITE = 4
# The drain list was withheld (circuit breaker, or an audit that cannot judge): the previous one stays.
EXIT_DRAIN_WITHHELD = 5
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
    return fabric, load_policy(fabric.policy_ref, Path(fabric.source).parent, platforms=platform_names())


def load_checked(inventory: str, args: argparse.Namespace) -> tuple[Fabric, Policy]:
    """The fabric and policy of a command that reports findings, with the waivers they meet."""
    from netcfg.waivers import waivers_for

    fabric, policy = load(inventory)
    waivers = Path(args.waivers) if args.waivers else None
    fabric.waivers = waivers_for(Path(fabric.source), fabric.devices, waivers, RULES)
    return fabric, policy


@command("render")
def cmd_render(args: argparse.Namespace, console: Console) -> int:
    fabric, policy = load(args.inventory)
    unknown = [d for d in args.device or [] if d not in fabric.devices]
    if unknown:
        raise InputError(f"--device {unknown[0]}", f"not in the inventory {fabric.source}")
    files = render_fabric(fabric, policy, args.device)
    out = Path(args.output)
    write_rendered(files, out, overwrite=args.overwrite)
    console.print(Text(f"rendered {len(files)} devices into {out}/"))
    if args.explain:
        explain_headroom(fabric, policy, args.device, console)
    return EXIT_OK


def _states(
    args: argparse.Namespace, fabric: Fabric, policy: Policy, readings: SnapshotReadings | None = None
) -> tuple[dict, str]:
    if args.configs and args.snapshot:
        raise InputError("--configs/--snapshot", "give one source of state, not both")
    if args.allow_missing and not args.configs:
        raise InputError("--allow-missing", "is about a config folder: give --configs too")
    if args.configs:
        states = config_states(fabric, Path(args.configs))
        if not args.allow_missing:
            missing_configs(fabric, states, Path(args.configs))
        return states, f"configs {args.configs}"
    if args.snapshot:
        states = readings.current() if readings is not None else snapshot_states(fabric, Path(args.snapshot))
        return states, f"snapshot {args.snapshot}"
    return intent_states(fabric, policy), "rendered intent"


def emit(report: Report, args: argparse.Namespace, console: Console) -> int:
    """Print or write the report; exit 1 when a finding is at or above --fail-on."""
    report.repo_root = Path(args.repo_root) if args.repo_root else None
    report.fail_on = Severity(args.fail_on)
    if report.inventory is None and getattr(args, "inventory", None):
        report.inventory = str(inventory_file(Path(args.inventory)))
    if args.format == "table" and not args.output:
        print_table(report, console)
    else:
        text = table_text(report) if args.format == "table" else FORMATS[args.format](report)
        if args.output:
            write_report(Path(args.output), text)
            console.print(Text(f"wrote {args.format} report to {args.output}"))
        else:
            sys.stdout.write(text)
    return exit_code(report.findings, Severity(args.fail_on))


def table_text(report: Report) -> str:
    """The terminal table as plain text, for a file."""
    import io

    buffer = io.StringIO()
    print_table(report, Console(file=buffer, width=160, markup=False, emoji=False, color_system=None))
    return buffer.getvalue()


def exit_code(findings: list[Finding], fail_on: Severity) -> int:
    return EXIT_FINDINGS if any(f.severity.rank >= fail_on.rank for f in findings) else EXIT_OK


@command("check")
def cmd_check(args: argparse.Namespace, console: Console) -> int:
    fabric, policy = load_checked(args.inventory, args)
    earlier = [
        (option, Path(getattr(args, option))) for option in ("previous", "baseline") if getattr(args, option)
    ]
    snapshot = Path(args.snapshot) if args.snapshot and not args.configs else None
    # The snapshot and its earlier readings are read by two processes, a share of the devices each.
    with snapshot_readings(fabric, snapshot, earlier) as readings:
        states, source = _states(args, fabric, policy, readings)
        # The fabric and its states live until the command ends: the collections that reading
        # earlier snapshots and building the report trigger need not walk their objects again.
        with frozen():
            return _check_states(args, console, fabric, policy, states, source, readings)


def _check_states(
    args: argparse.Namespace,
    console: Console,
    fabric: Fabric,
    policy: Policy,
    states: dict[str, DeviceState],
    source: str,
    readings: SnapshotReadings | None,
) -> int:
    earlier = {}
    for option in ("previous", "baseline"):
        folder = getattr(args, option)
        if folder and (not args.snapshot or readings is None):
            raise InputError(f"--{option}", "compares counters with a snapshot: give --snapshot too")
        # Rules read an earlier reading's counters only: its settings and LLDP are not parsed.
        earlier[option] = readings.states(option) if folder and readings else None
    findings = run_checks(fabric, policy, states, earlier["previous"], earlier["baseline"])
    report = Report(
        fabric.name,
        source,
        len(states),
        findings,
        not_run=rules_not_run(
            states.values(),
            collected=False,
            previous=bool(earlier["previous"] or earlier["baseline"]),
            baseline=bool(earlier["baseline"]),
        ),
        inventory=fabric.source,
        layout=fabric_layout(fabric, states),
    )
    if args.configs:
        report.planned, report.config_folder = len(fabric.devices), args.configs
    return emit(report, args, console)


@command("lossless")
def cmd_lossless(args: argparse.Namespace, console: Console) -> int:
    """The fabric-wide rules alone (lossless domain, PFC deadlock, load balancing), with what the
    deadlock analysis judged."""
    from netcfg.checks.lossless import deadlock_analysis
    from netcfg.checks.routes import route_analysis
    from netcfg.rules import CheckContext

    fabric, policy = load_checked(args.inventory, args)
    states, source = _states(args, fabric, policy)
    # The rules' own analyses, kept: the headline below reports them instead of running them again.
    ctx = CheckContext(fabric, policy, states)
    findings = [
        f for f in run_checks(fabric, policy, states, memo=ctx.memo) if f.rule.startswith(LOSSLESS_RULES)
    ]
    analysis = deadlock_analysis(ctx)
    # Machine formats keep stdout to themselves: the analysis' headline goes to stderr then.
    if args.format != "table":
        console = Console(stderr=True)
    if analysis is None:
        why = "no topology.bgp ASN plan" if fabric.bgp is None else "the policy is not lossless"
        console.print(Text(f"deadlock: no verdict ({why}: the routing model is unknown)"), style="yellow")
    else:
        console.print(
            Text(
                f"deadlock: {analysis.scenarios} scenarios judged (plan, links down now, single and "
                f"sampled double link failures); {analysis.with_cycle} with a cyclic buffer dependency"
            )
        )
    tables = route_analysis(ctx)
    if tables is not None:
        console.print(
            Text(
                f"route tables: {tables.switches - len(tables.missing)} of {tables.switches} switches; "
                f"{tables.destinations} destinations, {len(tables.unknown)} without a verdict; "
                f"{len(tables.valleys)} valley routes, "
                + (
                    f"{'a' if tables.cycle else 'no'} cyclic buffer dependency"
                    if tables.searched
                    else "no cycle search (over its budget; every cycle needs a valley route)"
                )
            )
        )
    report = Report(fabric.name, source, len(states), findings, inventory=fabric.source)
    return emit(report, args, console)


# What `netcfg lossless` reports: the fabric-wide rules (lossless domain, PFC deadlock, load
# balancing), the PFC rules of every port, and what could not be read or collected (a port the
# source does not show is unknown, not lossless).
LOSSLESS_RULES = ("lossless.", "pfc.", "lb.", "parse.", "state.", "collect.")


@command("host-check")
def cmd_host_check(args: argparse.Namespace, console: Console) -> int:
    from netcfg.hostcheck import fit, host_check, this_host

    try:
        fabric, policy = load(args.inventory)
        device = this_host(fabric, args.host)
        # slurmd stops a prolog with SIGTERM: the tools then running are ended, not left behind.
        with raise_on_signals():
            result = host_check(
                fabric,
                policy,
                device,
                Path(args.root),
                args.interval,
                args.timeout,
                args.deadline,
                save=Path(args.save) if args.save else None,
            )
    except Interrupted as exc:
        return _interrupted(exc)
    except InputError as exc:
        if args.format != "npd":
            raise
        # The plugin's stdout is the condition's message: bad input says so there too (Unknown).
        print(fit(f"netcfg: error: {exc}"))
        return EXIT_USAGE
    failing = [f for f in result.findings if f.severity.rank >= Severity(args.fail_on).rank]
    if args.format == "npd":
        print(result.short_line(failing))
        return EXIT_USAGE if result.cannot_judge else EXIT_FINDINGS if failing else EXIT_OK
    # The headline first (node-problem-detector shows the start of stdout); machine formats keep
    # stdout to themselves and get it on stderr.
    headline = result.headline(failing)
    if result.cannot_judge:
        print(headline)
        return EXIT_USAGE
    print(headline, file=sys.stdout if args.format == "table" and not args.output else sys.stderr)
    report = Report(fabric.name, f"host-check {device.name}", 1, result.findings, inventory=fabric.source)
    report.not_run = rules_not_run([result.state], collected=False)
    return emit(report, args, console)


@command("rules")
def cmd_rules(args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    table = Table(title="netcfg rules")
    for col in ("id", "severity", "scope", "what it checks"):
        table.add_column(col, overflow="fold")
    for r in sorted(RULES.values(), key=lambda r: r.id):
        table.add_row(*map(Text, (r.id, r.severity.value, r.scope, r.doc)))
    console.print(table)
    return EXIT_OK


@command("schema")
def cmd_schema(args: argparse.Namespace, console: Console) -> int:
    import json

    from netcfg.schema import json_schema

    sys.stdout.write(json.dumps(json_schema(args.kind), indent=2) + "\n")
    return EXIT_OK


@command("policy-schema")
def cmd_policy_schema(args: argparse.Namespace, console: Console) -> int:
    """Kept for scripts written before `netcfg schema`: the same as `netcfg schema policy`."""
    args.kind = "policy"
    return cmd_schema(args, console)


@command("init")
def cmd_init(args: argparse.Namespace, console: Console) -> int:
    from netcfg.init import write_starter

    folder = Path(args.folder)
    written = write_starter(folder)
    console.print(Text(f"wrote {', '.join(p.name for p in written)} into {folder}/"))
    console.print(Text(f"next: edit {folder / 'fabric.yaml'}, then: netcfg check {folder}"))
    return EXIT_OK


@command("inventory generate")
def cmd_generate(args: argparse.Namespace, console: Console) -> int:
    path = write_generated_inventory(
        Path(args.output), args.name, args.scalable_units, args.servers_per_su, args.rails
    )
    fabric = load_fabric(path)
    console.print(f"wrote {path}: {len(fabric.devices)} devices, {len(fabric.links)} links")
    return EXIT_OK


@command("inventory from-netbox")
def cmd_from_netbox(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from netcfg.model import Role
    from netcfg.netbox.fetch import fetch, parse_filters, read_token, shown_url
    from netcfg.netbox.place import parse_mapping, place
    from netcfg.netbox.write import inventory_files, write_inventory

    filters = parse_filters(args.filter or [])
    roles = parse_mapping(args.role or [], "--role", [r.value for r in Role])
    platforms = parse_mapping(args.platform or [], "--platform", platform_names())
    token = read_token(args.token_env)
    placed = place(fetch(args.url, token, filters), roles, platforms)
    shown = " ".join(f"{k}={v}" for k, values in filters.items() for v in values)
    files = inventory_files(placed, args.name, f"{shown_url(args.url)} ({shown})")
    # The inventory is loaded as `netcfg check` will load it before anything reaches --output.
    with tempfile.TemporaryDirectory(prefix="netcfg-netbox-") as scratch:
        load(str(write_inventory(Path(scratch), files, overwrite=False)))
    path = write_inventory(Path(args.output), files, args.overwrite)
    fabric = load_fabric(path)
    console.print(
        Text(
            f"wrote {path}: {len(fabric.devices)} devices, {len(fabric.links)} links; {placed.left_out} "
            "cable(s) left out (console, power, management, or to devices outside the filter)"
        )
    )
    return EXIT_OK


@command("lab snapshot")
def cmd_lab_snapshot(args: argparse.Namespace, console: Console) -> int:
    from netcfg.lab.devices import faults_named, load_faults
    from netcfg.lab.snapshot import write_simulated_snapshot

    fabric, policy = load(args.inventory)
    faults_file = Path(args.faults) if args.faults else None
    faults = load_faults(faults_file, fabric)
    with faults_named(faults_file):
        path = write_simulated_snapshot(fabric, policy, faults, Path(args.output), routes=args.routes)
    console.print(f"wrote simulated snapshot of {len(fabric.devices)} devices to {path}/")
    return EXIT_OK


@command("snapshot convert")
def cmd_snapshot_convert(args: argparse.Namespace, console: Console) -> int:
    from netcfg.snapshot import convert_snapshot

    path, layout, devices = convert_snapshot(
        Path(args.source), Path(args.output), args.to, replace=args.overwrite
    )
    shown = "a file per device" if layout == "device" else "a folder per device"
    console.print(Text(f"converted {devices} devices into {path}/ ({shown})"))
    return EXIT_OK


def _login_and_connections(args: argparse.Namespace, fabric: Fabric) -> tuple[Login, dict | None]:
    from netcfg.nornir_inventory import read_connections, read_login

    connections = read_connections(Path(args.connections)) if args.connections else None
    return read_login(fabric), connections


def _collect_options(args: argparse.Namespace) -> CollectOptions:
    from netcfg.collect import CollectOptions

    if args.no_host_key_check:
        known_hosts = None
    else:
        known_hosts = Path(args.known_hosts).expanduser()
        if not known_hosts.exists():
            raise InputError(
                f"--known-hosts {args.known_hosts}",
                "file not found; host keys are checked by default (give a known_hosts file, or "
                "--no-host-key-check for a lab)",
            )
    return CollectOptions(
        workers=args.workers,
        processes=args.processes,
        timeout_s=args.timeout,
        jitter_s=args.jitter,
        known_hosts=known_hosts,
        progress=sys.stdout.isatty(),
        routes=args.routes,
    )


def _selection(args: argparse.Namespace) -> Selection:
    from netcfg.collect import Selection
    from netcfg.shard import parse_shard

    shard = parse_shard(args.shard) if args.shard is not None else None
    return Selection(device_glob=args.device, role=args.role, rail=args.rail, shard=shard)


def _interrupted(exc: Interrupted) -> int:
    print(f"netcfg: interrupted by {exc.signal_name}: stopped, nothing half-written kept", file=sys.stderr)
    return exc.exit_code


@command("collect")
def cmd_collect(args: argparse.Namespace, console: Console) -> int:
    from netcfg.collect import collect

    fabric, _ = load(args.inventory)
    login, connections = _login_and_connections(args, fabric)
    opts, selection = _collect_options(args), _selection(args)
    try:
        with raise_on_signals():
            path, found = collect(
                fabric, login, Path(args.output), opts, selection, connections, replace=args.overwrite
            )
    except Interrupted as exc:
        return _interrupted(exc)
    failed = {n: f.error for n, f in found.items() if f.error}
    console.print(f"collected {len(found) - len(failed)}/{len(found)} devices into {path}/")
    for name, (kind, message) in sorted(failed.items()):
        console.print(f"  {name}: {kind}: {neutral(message)}", markup=False)
    return EXIT_FINDINGS if failed else EXIT_OK


@command("merge")
def cmd_merge(args: argparse.Namespace, console: Console) -> int:
    from netcfg.merge import merge_shards

    path = merge_shards(
        [Path(p) for p in args.shards], Path(args.output), args.window, replace=args.overwrite
    )
    console.print(f"merged {len(args.shards)} shards into {path}/")
    return EXIT_OK


@command("audit")
def cmd_audit(args: argparse.Namespace, console: Console) -> int:
    from netcfg.audit import run_audit

    fabric, policy = load_checked(args.inventory, args)
    login, connections = _login_and_connections(args, fabric)
    opts, selection = _collect_options(args), _selection(args)
    drain = DrainTarget.from_args(args.drain_list, args.drain_format)  # refused before collecting
    try:
        with raise_on_signals():
            result = run_audit(
                fabric,
                policy,
                login,
                Path(args.snapshots),
                Path(args.reports),
                opts,
                selection,
                connections,
                baseline=args.baseline,
            )
    except Interrupted as exc:
        return _interrupted(exc)
    withheld = plan = None
    if drain is not None:
        try:
            plan = drain.write(
                fabric,
                result.findings,
                result.report.source,
                result.collected,
                args.drain_scope,
                args.max_drain,
            )
        except DrainWithheld as exc:
            withheld = exc
    code = _print_audit(result, args, console)
    if plan is not None and drain is not None:
        _notes(args, console).print(
            f"drain list ({drain.format}): {drain.path}, {len(plan.drain)} host(s) to drain, "
            f"{len(plan.impacted)} impacted"
        )
    if withheld is not None:
        print(f"netcfg: drain list withheld: {withheld}", file=sys.stderr)
        return EXIT_DRAIN_WITHHELD
    return code


def _notes(args: argparse.Namespace, console: Console) -> Console:
    """Where narration goes: stderr when stdout carries a machine-readable report."""
    return console if args.format == "table" or args.output else plain_console(stderr=True)


def plain_console(stderr: bool = False) -> Console:
    """A console that prints text as it is: device output and paths may hold `[...]`, which rich
    would otherwise read as markup (and restyle, or fail on), or `:name:`, which it reads as emoji.
    A pipe or CI log gets wide lines rather than rich's 80-column default."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(
        stderr=stderr,
        markup=False,
        emoji=False,
        highlight=False,
        width=None if stream.isatty() else 160,
    )


def _print_audit(result: AuditResult, args: argparse.Namespace, console: Console) -> int:
    code = emit(result.report, args, console)
    notes = _notes(args, console)
    notes.print(f"snapshot: {result.snapshot}")
    if result.nothing_read:
        # The next audit compares with an older run (or none): the operator should know why.
        baseline = (
            ", and it was not recorded as the go-live baseline" if getattr(args, "baseline", False) else ""
        )
        notes.print(
            "no device was read: the snapshot is kept for inspection, but the next audit does not "
            f"compare with it{baseline}"
        )
    if result.previous is not None:
        notes.print(f"drift against {result.previous}: {len(result.changes)} change(s)")
        print_changes(result.changes, notes, limit=20)
    for fmt, path in result.reports.items():
        notes.print(f"{fmt} report: {path}")
    return code


def print_changes(changes: list[Change], console: Console, limit: int | None = None) -> None:
    from rich.table import Table

    if not changes:
        return
    table = Table(title="drift")
    for col in ("device", "setting", "before", "after"):
        table.add_column(col, overflow="fold")
    for c in changes[:limit]:
        table.add_row(*(Text(neutral(v)) for v in (c.device, c.setting, c.before, c.after)))
    console.print(table)
    if limit is not None and len(changes) > limit:
        console.print(f"... and {len(changes) - limit} more (see the JSON report)")


@command("drift")
def cmd_drift(args: argparse.Namespace, console: Console) -> int:
    fabric, _ = load(args.inventory)
    changes = snapshot_drift(fabric, Path(args.before), Path(args.after))
    if args.format == "json":
        import json

        sys.stdout.write(json.dumps([c.as_dict() for c in changes], indent=2) + "\n")
    else:
        print_changes(changes, console)
        console.print(f"{len(changes)} change(s) between {args.before} and {args.after}")
    return EXIT_FINDINGS if changes else EXIT_OK


@command("diff")
def cmd_diff(args: argparse.Namespace, console: Console) -> int:
    from netcfg.intent import device_intent
    from netcfg.snapshot import device_entries, is_device_file, read_device_outputs

    fabric, policy = load(args.inventory)
    snapshot = Path(args.snapshot)
    if not snapshot.is_dir():
        raise InputError(str(snapshot), "snapshot folder not found")
    entries = device_entries(snapshot, fabric.devices)
    drifted = 0
    for name, device in fabric.devices.items():
        platform = get_platform(device.platform)
        path = entries.get(name)
        if platform.running_config_file is None or path is None or (args.device and name not in args.device):
            continue
        running = read_device_outputs(path).get(platform.running_config_file)
        if running is None:
            continue
        # No remediation can be computed from what `check` reports as an unreadable output, nor from
        # another platform's config (it would negate everything).
        problem = unreadable_output(running) or platform.not_running_config(running)
        if problem is not None:
            line, why = problem
            file = f"{platform.running_config_file}.txt"
            where = f"{path}: {file}:{line}" if is_device_file(path) else f"{path / file}:{line}"
            raise InputError(f"{name}: {where}", why)
        # Masked again: a snapshot edited by hand or saved by another tool may hold a secret, and
        # the diff prints running-config lines.
        running = platform.mask_secrets(running)
        intended = platform.render_config(device_intent(device, fabric, policy), device)
        fix = platform.remediate(name, intended, running)
        if fix is None or not fix.diff:
            continue
        drifted += 1
        console.rule(name)
        # Running config lines are the device's text: neutral, as in every report, and as they are.
        _verbatim(console, neutral(fix.diff))
        console.print("commands to restore intent:", style="bold")
        _verbatim(console, neutral(fix.commands) or "(none)")
    console.print(f"{drifted} switch(es) differ from intent")
    return EXIT_FINDINGS if drifted else EXIT_OK


def _verbatim(console: Console, text: str) -> None:
    """Config text as it is: rich would wrap its lines at the terminal width (no longer a diff one
    can apply), and it splits a long text into lines in time growing with the square of its size."""
    console.file.write(text + "\n")


@command("lab serve")
def cmd_lab_serve(args: argparse.Namespace, console: Console) -> int:
    from netcfg.lab.devices import faults_named, load_faults
    from netcfg.lab.fabric import connection_files, lab_server
    from netcfg.nornir_inventory import read_login

    fabric, policy = load(args.inventory)
    login = read_login(fabric)
    faults_file = Path(args.faults) if args.faults else None
    faults = load_faults(faults_file, fabric)
    with faults_named(faults_file):
        server = lab_server(fabric, policy, faults, login.username, login.password)

    @contextmanager
    def ready(_server: object) -> Iterator[None]:
        # The files exist while the lab runs, and are removed when Ctrl-C or SIGTERM stops it.
        with connection_files(server, Path(args.state_dir)) as (connections, known_hosts):
            console.print(
                f"lab: {len(server.ports)} devices on {server.host}, ports "
                f"{min(server.ports.values())}-{max(server.ports.values())}"
            )
            console.print(f"connections: {connections}\nknown_hosts: {known_hosts}")
            console.print(
                f"try: netcfg audit {args.inventory} --connections {connections} --known-hosts {known_hosts}"
            )
            console.print("Ctrl-C stops the lab.")
            yield

    server.serve_forever(on_ready=ready)
    return EXIT_OK


@command("demo")
def cmd_demo(args: argparse.Namespace, console: Console) -> int:
    from netcfg.demo import run_demo
    from netcfg.resources import data_path

    inventory = args.inventory or str(data_path("inventories") / "lab")
    fabric, policy = load_checked(inventory, args)
    faults = Path(args.faults) if args.faults else None
    try:
        # SIGTERM, as Ctrl-C, stops the lab and releases the demo's folder.
        with raise_on_signals():
            result = run_demo(fabric, policy, faults, Path(args.out), _notes(args, console), args.routes)
    except Interrupted as exc:
        return _interrupted(exc)
    result.report.inventory = fabric.source
    return _print_audit(result, args, console)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="netcfg", description="RoCE configuration generator and validator for AI GPU fabrics.")
    p.add_argument("--version", action="version", version=f"netcfg {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    r = sub.add_parser("render", help="render every device's config from inventory + policy")
    r.add_argument("inventory")
    r.add_argument(
        "-o", "--output", default="out/rendered", help="folder to write into (default out/rendered)"
    )
    r.add_argument(
        "--overwrite",
        action="store_true",
        help="replace configs in the folder that were edited since netcfg wrote them, or that it never wrote",
    )
    r.add_argument("--device", action="append", help="only this device (repeatable)")
    r.add_argument("--explain", action="store_true", help="show the PFC headroom computed per lossless port")

    c = sub.add_parser("check", help="check rendered intent, config files or a snapshot against the policy")
    _add_sources(c)
    c.add_argument(
        "--previous", help="an earlier snapshot of the same fabric: counter rates are judged since it"
    )
    c.add_argument("--baseline", help="the go-live snapshot: error counters are compared with it")
    add_report_args(c)

    lo = sub.add_parser(
        "lossless",
        help="the fabric-wide analysis (lossless domain, PFC deadlock, load balancing) of intent, config "
        "files or a snapshot",
    )
    _add_sources(lo)
    add_report_args(lo)

    hc = sub.add_parser("host-check", help="on a GPU server: read its NICs locally, judge them (exit 0/1/2)")
    hc.add_argument("--inventory", required=True, help="the inventory the server is a host of")
    hc.add_argument("--host", help="the server's name in the inventory (default: this machine's hostname)")
    hc.add_argument("--root", default="/", help="filesystem whose /sys is read (default /)")
    hc.add_argument(
        "--save",
        metavar="DIR",
        help="also keep the reading as a one-host snapshot in DIR (replacing netcfg's earlier one), "
        "for `netcfg merge`",
    )
    # The longest a scheduler's hook may sensibly take: a value beyond it is a typo, not a wish.
    hook_s = 600.0
    hc.add_argument(
        "--interval",
        type=seconds(False, hook_s),
        default=0.0,
        help="read the counters twice, S seconds apart, to judge their rates (default 0: once)",
    )
    hc.add_argument(
        "--timeout", type=seconds(True, hook_s), default=10.0, help="per-command timeout, s (default 10)"
    )
    hc.add_argument(
        "--deadline",
        type=seconds(True, hook_s),
        default=DEFAULT_DEADLINE_S,
        help=f"the whole check, interval included, s (default {DEFAULT_DEADLINE_S:g}); then: cannot judge",
    )
    # npd: node-problem-detector's custom plugin protocol, one line of at most 80 characters.
    add_report_args(hc, own_formats=["npd"])

    sub.add_parser("rules", help="list every rule with its id, severity and what it checks")
    sc = sub.add_parser("schema", help="print the JSON Schema of an inventory, policy or waivers file")
    sc.add_argument("kind", choices=["inventory", "policy", "waivers"])
    sub.add_parser("policy-schema", help="the same as `netcfg schema policy`")
    it = sub.add_parser("init", help="write a starting inventory, faults example and policy to edit")
    it.add_argument("folder", help="folder to write into (created if missing; existing files are kept)")

    inv = sub.add_parser("inventory", help="inventory tools").add_subparsers(
        dest="inventory_command", required=True, parser_class=_Parser
    )
    g = inv.add_parser("generate", help="write a large rail-optimised inventory (32,768 GPUs by default)")
    g.add_argument("-o", "--output", required=True, help="folder to write fabric.yaml into")
    g.add_argument("--name", type=fabric_name, default="gen", help="fabric name (default gen)")
    g.add_argument("--scalable-units", type=whole_number(1, MAX_COUNT), default=128, help="SUs (default 128)")
    g.add_argument(
        "--servers-per-su", type=whole_number(1, MAX_COUNT), default=32, help="servers per SU (default 32)"
    )
    g.add_argument("--rails", type=whole_number(1, 64), default=8, help="rails = NICs per server (default 8)")

    nb = inv.add_parser(
        "from-netbox", help="write the explicit inventory of a fabric held in NetBox (devices, cables)"
    )
    nb.add_argument("url", help="NetBox's base URL, e.g. https://netbox.example.com")
    nb.add_argument(
        "--token-env",
        required=True,
        help="environment variable holding the NetBox API token (never the token)",
    )
    nb.add_argument(
        "--filter",
        action="append",
        required=True,
        help="NetBox device filter KEY=VALUE, e.g. site=pod1 or tag=ai-fabric (repeatable)",
    )
    nb.add_argument("--name", type=fabric_name, required=True, help="fabric name of the inventory")
    nb.add_argument("-o", "--output", required=True, help="folder to write fabric.yaml and cabling.csv into")
    nb.add_argument(
        "--overwrite", action="store_true", help="replace files in the folder that netcfg did not write"
    )
    nb.add_argument("--role", action="append", help="map a NetBox role slug: SLUG=leaf|spine|superspine|host")
    nb.add_argument("--platform", action="append", help="map a NetBox platform slug: SLUG=eos|sonic|...")

    lab = sub.add_parser("lab", help="the simulated fabric").add_subparsers(
        dest="lab_command", required=True, parser_class=_Parser
    )
    ls = lab.add_parser("snapshot", help="write a snapshot of simulated devices without SSH")
    ls.add_argument("inventory")
    ls.add_argument("--faults", help="faults YAML applied to the simulated devices")
    ls.add_argument("-o", "--output", required=True)
    ls.add_argument(
        "--routes", action="store_true", help="with each switch's route table, as --routes collects"
    )
    lsv = lab.add_parser("serve", help="serve the fabric's simulated devices over SSH on 127.0.0.1")
    lsv.add_argument("inventory")
    lsv.add_argument("--faults", help="faults YAML (settings and transport faults per device)")
    lsv.add_argument("--state-dir", default="out/lab", help="where connections.json and known_hosts go")

    sn = sub.add_parser("snapshot", help="snapshot folders").add_subparsers(
        dest="snapshot_command", required=True, parser_class=_Parser
    )
    sc = sn.add_parser(
        "convert",
        help="write a snapshot in the other layout (file per device <-> folder of a file per command)",
    )
    sc.add_argument("source", help="the snapshot to convert (left as it is)")
    sc.add_argument("-o", "--output", required=True, help="snapshot folder to write: new or empty")
    sc.add_argument(
        "--to",
        choices=["device", "folders"],
        help="the layout to write (default: the one the source is not in)",
    )
    sc.add_argument("--overwrite", action="store_true", help="replace an earlier netcfg snapshot at --output")

    co = sub.add_parser("collect", help="collect every device over SSH into a snapshot")
    co.add_argument("inventory")
    co.add_argument(
        "-o",
        "--output",
        required=True,
        help="snapshot folder to write: new or empty (anything else is refused, nothing is removed)",
    )
    co.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier netcfg snapshot at --output (if it holds only what netcfg wrote)",
    )
    add_collect_args(co)

    au = sub.add_parser("audit", help="collect into snapshots/<fabric>/<time>/, check, report drift")
    au.add_argument("inventory")
    au.add_argument(
        "--snapshots", default="snapshots", help="root of timestamped snapshots (default snapshots)"
    )
    au.add_argument(
        "--reports", default="reports", help="where JSON, Markdown and HTML reports go (default reports)"
    )
    au.add_argument(
        "--baseline",
        action="store_true",
        help="record this audit as the go-live baseline that later audits compare error counters with",
    )
    add_collect_args(au)
    add_report_args(au)
    au.add_argument(
        "--drain-list", help="write the hosts to drain (their own NIC, link or cabling faults) here"
    )
    au.add_argument(
        "--drain-format",
        choices=DRAIN_FORMATS,
        help="scontrol lines, kubectl taints, or JSON (default: json for a .json file, else slurm)",
    )
    au.add_argument(
        "--drain-scope",
        choices=SCOPES,
        default="own",
        help="own: hosts with their own fault (default); impacted: also the hosts behind a switch-wide fault",
    )
    au.add_argument(
        "--max-drain",
        type=drain_limit,
        default=DrainLimit(DEFAULT_MAX_DRAIN),
        help=f"write no list draining over N hosts or P%% of the inventory's (default {DEFAULT_MAX_DRAIN})",
    )

    me = sub.add_parser("merge", help="join the shard snapshots of `collect --shard I/N` into one snapshot")
    me.add_argument("shards", nargs="+", help="every shard's snapshot folder")
    me.add_argument("-o", "--output", required=True, help="snapshot folder to write: new or empty")
    me.add_argument(
        "--window",
        type=seconds(True, 86_400.0),
        default=float(DEFAULT_WINDOW_S),
        help=f"longest span from the first shard's start to the last's end (default {DEFAULT_WINDOW_S} s)",
    )
    me.add_argument("--overwrite", action="store_true", help="replace an earlier netcfg snapshot at --output")

    dr = sub.add_parser("drift", help="what changed between two snapshots, per device and setting")
    dr.add_argument("before")
    dr.add_argument("after")
    dr.add_argument("--inventory", required=True, help="the inventory both snapshots belong to")
    dr.add_argument("--format", choices=["table", "json"], default="table")

    df = sub.add_parser("diff", help="per switch: intended vs running config and the commands to restore it")
    df.add_argument("inventory")
    df.add_argument("--snapshot", required=True)
    df.add_argument("--device", action="append", help="only this device (repeatable)")

    de = sub.add_parser("demo", help="start the lab with its faults, audit it live over SSH, stop it")
    de.add_argument("inventory", nargs="?", help="inventory to simulate (default: the bundled lab)")
    de.add_argument("--faults", help="faults YAML (default: faults.yaml beside the inventory)")
    de.add_argument("--out", default="out/demo", help="where snapshots and reports go (default ./out/demo)")
    de.add_argument("--routes", action="store_true", help="the audits also collect each switch's route table")
    add_report_args(de)
    return p


def add_collect_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=whole_number(1, 10_000),
        default=50,
        help="devices collected at once per process (default 50)",
    )
    p.add_argument(
        "--processes", type=whole_number(1, 256), default=1, help="collector processes (about one core each)"
    )
    p.add_argument(
        "--timeout", type=seconds(True), default=10.0, help="per-device connect/command timeout, s"
    )
    p.add_argument(
        "--jitter", type=seconds(False), default=0.0, help="random start delay per device, up to S seconds"
    )
    p.add_argument("--known-hosts", default="~/.ssh/known_hosts", help="known_hosts file for host-key checks")
    p.add_argument("--no-host-key-check", action="store_true", help="accept any host key (labs only)")
    p.add_argument(
        "--routes",
        action="store_true",
        help="also collect each switch's route table, for the deadlock analysis of the installed routes",
    )
    p.add_argument("--connections", help="JSON device -> {hostname, port} (as `netcfg lab serve` writes)")
    p.add_argument("--device", help="only devices whose name matches this glob")
    p.add_argument("--role", choices=["leaf", "spine", "superspine", "host"])
    p.add_argument("--rail", type=whole_number(1, 64), help="only the leaves and NICs of this rail")
    p.add_argument(
        "--shard",
        metavar="I/N",
        help="only shard I of N (by a hash of the device name); auto/N takes I from SLURM_ARRAY_TASK_ID "
        "or JOB_COMPLETION_INDEX",
    )


def _add_sources(p: argparse.ArgumentParser) -> None:
    """What `check` and `lossless` judge: the inventory's rendered intent, config files or a snapshot."""
    p.add_argument("inventory")
    p.add_argument("--configs", help="folder of <device>.cfg / <device>.sh files (pre-merge check)")
    p.add_argument(
        "--allow-missing",
        action="store_true",
        help="with --configs: check the devices that have a config file, list the others as not checked",
    )
    p.add_argument(
        "--snapshot", help="snapshot folder: <device>.jsonl files, or <device>/<command>.txt folders"
    )


def add_report_args(p: argparse.ArgumentParser, own_formats: Sequence[str] = ()) -> None:
    p.add_argument("--format", choices=["table", *FORMATS, *own_formats], default="table")
    p.add_argument("--output", help="write the report to this file instead of stdout")
    p.add_argument(
        "--repo-root",
        help="folder SARIF file paths are relative to: the repository root (default: the current folder)",
    )
    p.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default="error",
        help="exit 1 when a finding is at or above this severity (default error)",
    )
    p.add_argument(
        "--waivers", help="waivers file (default: waivers.yaml beside the inventory, if there is one)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    console = plain_console()
    try:
        args = build_parser().parse_args(argv)
        sub = (
            getattr(args, "inventory_command", None)
            or getattr(args, "lab_command", None)
            or getattr(args, "snapshot_command", None)
        )
        name = " ".join(filter(None, [args.command, sub]))
        return COMMANDS[name](args, console)
    except InputError as exc:
        # One plain line: rich would wrap it at the terminal width.
        print(f"netcfg: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OutputError as exc:
        print(f"netcfg: error: {exc}", file=sys.stderr)
        return EXIT_WRITE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        print(f"netcfg: internal error: {crash_report(exc)}", file=sys.stderr)
        return EXIT_INTERNAL


def crash_report(exc: BaseException) -> str:
    """One line on netcfg's own failure, with the traceback saved to a private file for the bug report.

    It is netcfg's bug, never the input's or a device's: saying so keeps operators from chasing
    their fabric for it.
    """
    import os
    import tempfile
    import traceback

    what = f"{exc.__class__.__name__}: {exc}".splitlines()[0][:300]
    text = "".join(traceback.format_exception(exc))
    try:
        fd, path = tempfile.mkstemp(prefix="netcfg-crash-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"netcfg {__version__}\n{text}")
    except OSError as err:
        sys.stderr.write(text)
        return f"{what} (a bug in netcfg; the traceback above could not be saved: {err.strerror})"
    return f"{what} (a bug in netcfg, not in the input or the devices; traceback in {path})"


if __name__ == "__main__":
    sys.exit(main())
