"""Offline benchmark: generate the 32,768-GPU fabric, render every device, parse it back, check it.

Prints seconds per stage, devices per second, CPU milliseconds per device for render and parse,
peak RSS, and the time and size of the fabric's HTML report. Not a test: run it with `make bench`.
Targets on a 2-core machine: all stages <= 20 s, <= 1.5 GiB, render <= 1.3 ms per device.

`--mix` spreads the switches over every switch platform netcfg has and the hosts over every host
platform, and prints render and parse CPU per device for each platform.

First it runs `netcfg check` of the generated inventory as a user runs it (a process of the CLI,
rendered intent parsed back and checked, the table printed) `--cli-runs` times and prints each
run's wall time and peak RSS with the machine-speed loop timed beside it (target <= 5 s and
<= 1 GiB). `--against DIR` runs the netcfg of another checkout (previous main) on the same
inventory, interleaved with this one's, and prints the ratio of the medians: on a shared machine
only such interleaved ratios compare two versions.

Then it writes two snapshots of what the lab's devices print five minutes apart, at 1/4, 1/2 and full
size (running configs, NIC read-backs, every LLDP table, link state and counters), parses both and
checks the second against the first (counter deltas included), and prints the check time of each:
the rules must stay linear in devices + links (target <= 3 s at full size).

By default everything runs in one process: shipping 6,400 parsed states back from worker processes
costs more than the parsing itself. `--workers N` forks N workers for intent, render and parse.
Per-device figures are CPU time (process_time), measured where the work runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from scratch import DEFAULT, file_creation_ms, installed_env, machine_speed, scratch_dir

from netcfg.checks.runner import run_checks
from netcfg.generate import write_generated_inventory
from netcfg.intent import device_intent
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.model import DeviceState, Fabric
from netcfg.platforms import get_platform
from netcfg.platforms.base import registry
from netcfg.policy import Policy, load_policy
from netcfg.report import Report
from netcfg.report.html import html_report
from netcfg.report.layout import fabric_layout
from netcfg.snapshot import DEVICE_FILES
from netcfg.sources import snapshot_states

# Set before the pool forks, so workers inherit the fabric instead of loading it again.
_FABRIC: Fabric | None = None
_POLICY: Policy | None = None


def _work(names: list[str]) -> tuple[list[DeviceState], float, float, float, dict[str, list[float]]]:
    assert _FABRIC is not None and _POLICY is not None
    intent_s = render_s = parse_s = 0.0
    states = []
    # platform -> [devices, render CPU s, parse CPU s]
    per_platform: dict[str, list[float]] = {}
    clock = time.process_time
    for name in names:
        device = _FABRIC.devices[name]
        platform = get_platform(device.platform)
        t0 = clock()
        intent = device_intent(device, _FABRIC, _POLICY)
        t1 = clock()
        text = platform.render_config(intent, device)
        t2 = clock()
        states.append(platform.parse_config(text, device))
        t3 = clock()
        intent_s, render_s, parse_s = intent_s + t1 - t0, render_s + t2 - t1, parse_s + t3 - t2
        figures = per_platform.setdefault(device.platform, [0, 0.0, 0.0])
        figures[0] += 1
        figures[1] += t2 - t1
        figures[2] += t3 - t2
    return states, intent_s, render_s, parse_s, per_platform


def mixed_platforms(names: str = "all") -> dict:
    """Inventory `platforms` spreading switches over the switch platforms named (by rail for leaves,
    by index for spines, by plane for super-spines) and hosts over the host platforms named; "all":
    every platform netcfg has."""
    chosen = set(registry()) if names == "all" else set(names.split(","))
    unknown = chosen - set(registry())
    if unknown:
        raise SystemExit(f"--mix: unknown platform(s) {', '.join(sorted(unknown))}")
    switches = sorted(n for n, p in registry().items() if p.kind == "switch" and n in chosen)
    hosts = sorted(n for n, p in registry().items() if p.kind == "host" and n in chosen) or ["connectx"]
    overrides = []
    for i, platform in enumerate(switches[1:], 1):
        digits = "".join(str(d) for d in range(10) if d % len(switches) == i)
        overrides += [
            {"role": "leaf", "devices": f"leaf-su*-r*[{digits}]", "platform": platform},
            {"role": "spine", "devices": f"spine-su*-*[{digits}]", "platform": platform},
            {"role": "superspine", "devices": f"superspine-p*[{digits}]-*", "platform": platform},
        ]
    for i, platform in enumerate(hosts[1:], 1):
        digits = "".join(str(d) for d in range(10) if d % len(hosts) == i)
        overrides.append({"role": "host", "devices": f"*[{digits}]", "platform": platform})
    return {"switch": switches[0], "host": hosts[0], "overrides": overrides}


def peak_rss_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def cli_check(inventory: Path, tree: Path, pycache: Path) -> tuple[float, float, int]:
    """`netcfg check INVENTORY` in a process of its own, with `tree`'s netcfg: (wall seconds, peak
    RSS MiB, exit code). The table goes to a pipe, as in CI; the bytecode is kept under `pycache`
    (`installed_env`)."""
    env = installed_env(tree, pycache)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "netcfg", "check", str(inventory)],
        env=env,
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"netcfg check {inventory} ({tree}): exit {proc.returncode}\n{output.decode()}")
    return wall, usage.ru_maxrss / 1024, proc.returncode


def cli_checks(inventory: Path, runs: int, against: Path | None, pycache: Path) -> None:
    """`runs` CLI checks of this tree (and of `against`, interleaved), each with the loop beside it,
    after one run of each that writes its bytecode."""
    trees = {"this tree": Path(__file__).resolve().parent.parent}
    if against is not None:
        trees["--against"] = against.resolve()
    print("netcfg check of the inventory, as a user runs it (target <= 5 s and <= 1,024 MiB):")
    for tree in trees.values():
        cli_check(inventory, tree, pycache)
    walls: dict[str, list[float]] = {name: [] for name in trees}
    for run in range(runs):
        for name, tree in trees.items():
            loop = machine_speed()
            wall, rss, code = cli_check(inventory, tree, pycache)
            walls[name].append(wall)
            print(
                f"  run {run + 1} {name:<10} {wall:6.2f} s, peak RSS {rss:6,.0f} MiB, exit {code} "
                f"(a 10M-step loop just before: {loop:.2f} s)"
            )
    medians = {name: statistics.median(w) for name, w in walls.items()}
    for name, median in medians.items():
        print(f"  median {name:<10} {median:6.2f} s")
    if against is not None:
        print(f"  this tree / --against: {medians['this tree'] / medians['--against']:.2f}")


def main() -> int:
    global _FABRIC, _POLICY
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scalable-units", type=int, default=128)
    ap.add_argument("--servers-per-su", type=int, default=32)
    ap.add_argument("--rails", type=int, default=8)
    ap.add_argument("--workers", type=int, default=1, help="worker processes (1: no pool)")
    ap.add_argument(
        "--mix",
        nargs="?",
        const="all",
        help="spread switches and hosts over these platforms (comma list; bare: every platform netcfg has)",
    )
    ap.add_argument(
        "--dir",
        type=Path,
        default=DEFAULT,
        help="where inventories and snapshots are written (a fresh subfolder)",
    )
    ap.add_argument("--cli-runs", type=int, default=3, help="runs of `netcfg check` as a process (0: none)")
    ap.add_argument("--against", type=Path, help="a netcfg checkout to run interleaved with this one")
    ap.add_argument("--cli-only", action="store_true", help="stop after the `netcfg check` runs")
    args = ap.parse_args()
    platforms = mixed_platforms(args.mix) if args.mix else None
    # A policy every platform can express (NVUE restores a queue one poll after the last pause).
    mix_policy = Path(__file__).resolve().parent.parent / "inventories" / "lab-multi" / "policy.yaml"
    policy_file = str(mix_policy) if args.mix else None
    stages: dict[str, float] = {}
    with scratch_dir(args.dir, "offline-") as tmp:
        t = time.perf_counter()
        path = write_generated_inventory(
            Path(tmp), "bench", args.scalable_units, args.servers_per_su, args.rails, platforms, policy_file
        )
        fabric = _FABRIC = load_fabric(path)
        policy = _POLICY = load_policy(fabric.policy_ref)
        stages["generate + load inventory"] = time.perf_counter() - t
        if args.cli_runs:
            cli_checks(path, args.cli_runs, args.against, Path(tmp) / "pycache")
        if args.cli_only:
            return 0

    n = len(fabric.devices)
    names = list(fabric.devices)
    size = max(1, n // (args.workers * 16))
    chunks = [names[i : i + size] for i in range(0, n, size)]
    t = time.perf_counter()
    states: dict[str, DeviceState] = {}
    cpu = [0.0, 0.0, 0.0]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_work, chunks))
    else:
        results = [_work(chunk) for chunk in chunks]
    per_platform: dict[str, list[float]] = {}
    for chunk_states, *times, chunk_platforms in results:
        states.update((s.name, s) for s in chunk_states)
        cpu = [a + b for a, b in zip(cpu, times, strict=True)]
        for name, figures in chunk_platforms.items():
            total = per_platform.setdefault(name, [0, 0.0, 0.0])
            per_platform[name] = [a + b for a, b in zip(total, figures, strict=True)]
    stages[f"intent + render + parse ({args.workers} proc)"] = time.perf_counter() - t

    t = time.perf_counter()
    findings = run_checks(fabric, policy, states)
    stages["check"] = time.perf_counter() - t

    total = sum(stages.values())
    gpus = sum(len(d.nics) for d in fabric.devices.values())
    print(f"fabric: {gpus:,} GPUs, {n:,} devices, {len(fabric.links):,} links; {len(findings)} findings")
    for stage, secs in stages.items():
        print(f"  {stage:<36} {secs:7.2f} s   {n / secs:9,.0f} devices/s")
    print(f"  {'total':<36} {total:7.2f} s   {n / total:9,.0f} devices/s   (target <= 20 s)")
    print(
        f"CPU per device: intent {cpu[0] / n * 1000:.3f} ms, render {cpu[1] / n * 1000:.3f} ms "
        f"(target <= 1.3 ms; pyavd ~40 ms), parse {cpu[2] / n * 1000:.3f} ms"
    )
    for name, (count, render_cpu, parse_cpu) in sorted(per_platform.items()):
        print(
            f"  {name:<10} {int(count):>6,} devices: render {render_cpu / count * 1000:.3f} ms, "
            f"parse {parse_cpu / count * 1000:.3f} ms of CPU per device"
        )
    print(f"peak RSS: {peak_rss_mib():,.0f} MiB (target <= 1,536 MiB)")
    t = time.perf_counter()
    page = html_report(Report(fabric.name, "bench", n, findings, layout=fabric_layout(fabric, states)))
    print(f"HTML report: {time.perf_counter() - t:.2f} s, {len(page) / 1e6:.2f} MB (target: seconds)")
    if findings:
        return 1
    del states
    return snapshot_check_scaling(
        args.scalable_units, args.servers_per_su, args.rails, platforms, policy_file, args.dir
    )


def snapshot_check_scaling(
    scalable_units: int,
    servers_per_su: int,
    rails: int,
    platforms: dict | None,
    policy_file: str | None,
    folder: Path,
) -> int:
    """Check time of two live-shaped lab snapshots taken five minutes apart (running configs, NIC
    read-backs, LLDP tables, link state and counters), the second judged against the first, at 1/4,
    1/2 and full size. Each size is parsed and checked in a process of its own, as `netcfg check
    --snapshot NEW --previous OLD` runs, not on the heap the earlier sizes left behind."""
    print(
        "check of a lab snapshot against the one before it, counters included (target <= 3 s at full size):"
    )
    failed = 0
    with scratch_dir(folder, "probe-") as probe:
        print(f"  creating a file in {folder} takes {file_creation_ms(Path(probe)):.2f} ms of CPU")
    peak = 0.0
    for share in (4, 2, 1):
        with scratch_dir(folder, "snapshots-") as tmp:
            path = write_generated_inventory(
                Path(tmp),
                "bench",
                max(1, scalable_units // share),
                servers_per_su,
                rails,
                platforms,
                policy_file,
            )
            fabric = load_fabric(path)
            policy = load_policy(fabric.policy_ref)
            t = time.perf_counter()
            start = time.time() - 300
            for reading, name in enumerate(("before", "after")):
                write_simulated_snapshot(
                    fabric, policy, {}, Path(tmp) / name, start + 300 * reading, reading, layout=DEVICE_FILES
                )
            write_s = time.perf_counter() - t
            with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
                figures = pool.submit(_parse_and_check, str(path), tmp).result()
        parse_s, check_s, loop_s, ports, counted, findings, rss = figures
        peak = max(peak, rss)
        failed += bool(findings)
        print(
            f"  1/{share}: {len(fabric.devices):>6,} devices, {len(fabric.links):>7,} links, "
            f"{ports:>7,} LLDP ports, {counted:>7,} ports with counters: write 2 snapshots {write_s:6.2f} s, "
            f"parse both {parse_s:6.2f} s, check {check_s:5.2f} s (a 10M-step loop then: {loop_s:.2f} s), "
            f"{findings} findings"
        )
    print(f"peak RSS of a parse-and-check process: {peak:,.0f} MiB")
    return 1 if failed else 0


def _parse_and_check(inventory: str, folder: str) -> tuple[float, float, float, int, int, int, float]:
    """In a fresh process: parse both snapshots and check; (parse s, check s, loop s, LLDP ports,
    ports with counters, findings, peak RSS MiB)."""
    fabric = load_fabric(Path(inventory))
    policy = load_policy(fabric.policy_ref)
    t = time.perf_counter()
    before, after = (snapshot_states(fabric, Path(folder) / name) for name in ("before", "after"))
    parse_s = time.perf_counter() - t
    t = time.perf_counter()
    findings = run_checks(fabric, policy, after, before)
    check_s = time.perf_counter() - t
    ports = sum(len(s.lldp) for s in after.values())
    counted = sum(len(s.counters) for s in after.values())
    return parse_s, check_s, machine_speed(), ports, counted, len(findings), peak_rss_mib()


if __name__ == "__main__":
    sys.exit(main())
