"""Snapshot benchmark: `netcfg check --snapshot S --previous P` of two full-size lab snapshots, run as
a user runs it (the CLI in a subprocess), with its wall time, its peak RSS and the machine-speed loop
timed beside each run.

The two snapshots (the 32,768-GPU fabric by default: 6,400 devices, 196,608 ports with LLDP and
counters, five minutes apart) are written once into `--dir` and kept there for later runs
(`--fresh` writes them again). Both layouts are kept: one file per device (what netcfg writes) and a
folder per device of a file per command (what users and other tools make), converted with
`netcfg snapshot convert`.

`--compare CHECKOUT` runs the same check with another netcfg checkout (previous main, say) on the
per-command folders (`--compare-layout device`: on the device files), interleaved with this one's
runs: other work on a shared machine moves every figure, so compare each run's ratio to its loop.
Every run writes its findings as JSON; the bench fails unless all runs of a layout found exactly the
same.
`--floor` also times what any reader of the two snapshots pays before it parses a fact: reading
and JSON-decoding every device file, and one pass of one short regular expression over every
output. Set against the target, it says how much of it is left for parsing and checking.
Target on a 2-core machine: at most 10 s, 1 GiB. Not a test: run it with `make bench-snapshot`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from scratch import DEFAULT, installed_env, machine_speed

ROOT = Path(__file__).resolve().parent.parent


def _python(checkout: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {str(checkout)!r}); from netcfg.cli import main; sys.exit(main())",
    ]


def write_snapshots(folder: Path, scalable_units: int, servers_per_su: int, rails: int) -> None:
    """The inventory and two lab snapshots taken five minutes apart, in both layouts."""
    from netcfg.cli import main as netcfg
    from netcfg.generate import write_generated_inventory
    from netcfg.inventory import load_fabric
    from netcfg.lab.snapshot import write_simulated_snapshot
    from netcfg.policy import load_policy
    from netcfg.snapshot import DEVICE_FILES

    folder.mkdir(parents=True, exist_ok=True)
    path = write_generated_inventory(folder, "bench", scalable_units, servers_per_su, rails)
    fabric = load_fabric(path)
    policy = load_policy(fabric.policy_ref)
    start = time.time() - 300
    for reading, name in enumerate(("before", "after")):
        t = time.perf_counter()
        write_simulated_snapshot(
            fabric, policy, {}, folder / name, start + 300 * reading, reading, layout=DEVICE_FILES
        )
        print(f"  wrote {name}: {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        # The folders are this benchmark's own, from an earlier write (--fresh, or one cut short).
        convert = ["snapshot", "convert", str(folder / name), "-o", str(folder / f"{name}-folders")]
        code = netcfg([*convert, "--overwrite"])
        if code != 0:
            raise SystemExit(f"snapshot convert of {folder / name} exited {code}")
        print(f"  converted {name} to folders: {time.perf_counter() - t:.1f} s")
    (folder / "complete").write_text("both snapshots written\n", encoding="utf-8")


def _tree_rss_mib(pid: int) -> float:
    """RSS of a process and all its descendants, summed (pages they share counted in each)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / 1024


class TreePeak(threading.Thread):
    """The largest `_tree_rss_mib` of a process seen while it runs, sampled every 20 ms: what a
    check and its worker processes hold at once (each one's own peak is all `wait4` reports)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, _tree_rss_mib(self.pid))


def reading_floor(folder: Path) -> tuple[float, float, int, int]:
    """(read and decode s, one regex pass s, bytes on disk, characters of output) of one snapshot's
    device files, a file at a time (only one file's outputs are held at once)."""
    import orjson

    header = re.compile(r"\n(\S+) is (\w+)")
    decode = scan = 0.0
    size = chars = 0
    for path in sorted(folder.glob("*.jsonl")):
        t = time.perf_counter()
        data = path.read_bytes()
        outputs = [orjson.loads(line)["output"] for line in data.split(b"\n") if line.strip()]
        decode += time.perf_counter() - t
        t = time.perf_counter()
        for text in outputs:
            header.findall(text)
        scan += time.perf_counter() - t
        size += len(data)
        chars += sum(map(len, outputs))
    return decode, scan, size, chars


def write_bytecode(checkout: Path, pycache: Path) -> None:
    """One `netcfg check` of the bundled lab's intent, for the bytecode of `checkout`'s modules (and
    the libraries they load) to be there before the timed runs, as it is for an installed netcfg."""
    done = subprocess.run(
        [*_python(checkout), "check", str(ROOT / "inventories" / "lab")],
        env=installed_env(checkout, pycache),
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(
            f"netcfg check of the lab ({checkout}) exited {done.returncode}: {done.stderr[-2000:]}"
        )


def run_check(
    checkout: Path, folder: Path, layout: str, report: Path, pycache: Path
) -> tuple[float, float, float, float, int, list]:
    """(wall s, CPU s, peak RSS MiB, peak RSS of the process tree MiB, exit code, findings) of one
    `netcfg check` of the two snapshots, its bytecode under `pycache` (`installed_env`)."""
    suffix = "-folders" if layout == "folders" else ""
    argv = [
        *_python(checkout),
        "check",
        str(folder / "fabric.yaml"),
        "--snapshot",
        str(folder / f"after{suffix}"),
        "--previous",
        str(folder / f"before{suffix}"),
        "--format",
        "json",
        "--output",
        str(report),
    ]
    env = installed_env(checkout, pycache)
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=checkout)
    tree = TreePeak(proc.pid)
    tree.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    tree.done.set()
    tree.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"netcfg check ({checkout}, {layout}) exited {proc.returncode}: {err[-2000:]}")
    findings = json.loads(report.read_text(encoding="utf-8"))["findings"]
    rss = usage.ru_maxrss / 1024
    return wall, usage.ru_utime + usage.ru_stime, rss, max(rss, tree.peak), proc.returncode, findings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scalable-units", type=int, default=128)
    ap.add_argument("--servers-per-su", type=int, default=32)
    ap.add_argument("--rails", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=DEFAULT, help="where the two snapshots are kept")
    ap.add_argument("--fresh", action="store_true", help="write the snapshots again")
    ap.add_argument("--compare", type=Path, help="another netcfg checkout, run on the per-command folders")
    ap.add_argument(
        "--compare-layout", default="folders", help="the layout --compare reads: device or folders"
    )
    ap.add_argument(
        "--layouts", default="device", help="this checkout's layouts to check: device, folders or both"
    )
    ap.add_argument(
        "--floor", action="store_true", help="also time reading and one regex pass over both snapshots"
    )
    args = ap.parse_args()
    folder = args.dir / f"snapshot-{args.scalable_units}x{args.servers_per_su}x{args.rails}"
    if args.fresh or not (folder / "complete").exists():
        print(f"writing the inventory and two lab snapshots into {folder}")
        if (folder / "complete").exists():
            (folder / "complete").unlink()
        # In a child: Linux keeps a forked process's memory high-water mark across exec, so every
        # check started afterwards from a parent grown by writing 6,400 devices reported its size.
        writer = multiprocessing.get_context("fork").Process(
            target=write_snapshots, args=(folder, args.scalable_units, args.servers_per_su, args.rails)
        )
        writer.start()
        writer.join()
        if writer.exitcode != 0:
            raise SystemExit(f"writing the snapshots failed (exit {writer.exitcode})")
    layouts = ["device", "folders"] if args.layouts == "both" else [args.layouts]
    runs = [(ROOT, layout) for layout in layouts]
    if args.compare:
        runs.append((args.compare.resolve(), args.compare_layout))
    figures: dict[tuple[Path, str], list[tuple[float, float, float, float, float]]] = {
        run: [] for run in runs
    }
    print("netcfg check --snapshot after --previous before (target <= 10 s, <= 1,024 MiB):")
    # Per layout: a finding may name the file it was read from (a device file or a command's file).
    found: dict[str, list[list]] = {layout: [] for _, layout in runs}
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-pycache-") as pycache:
        for checkout in dict.fromkeys(checkout for checkout, _ in runs):
            write_bytecode(checkout, Path(pycache))
        for i in range(args.runs):
            for checkout, layout in runs:
                loop = machine_speed()
                with tempfile.TemporaryDirectory(prefix="bench-snapshot-") as scratch:
                    wall, cpu, rss, tree, code, findings = run_check(
                        checkout, folder, layout, Path(scratch) / "r.json", Path(pycache)
                    )
                found[layout].append(findings)
                figures[(checkout, layout)].append((wall, cpu, rss, tree, loop))
                print(
                    f"  run {i + 1} {checkout.name:<10} {layout:<8} {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
                    f"{rss:7,.0f} MiB ({tree:,.0f} MiB with workers), exit {code}  "
                    f"(10M-step loop {loop:.2f} s; wall/loop {wall / loop:5.1f})"
                )
    for layout, all_found in found.items():
        if any(findings != all_found[0] for findings in all_found):
            raise SystemExit(
                f"the runs on {layout} found different findings: every checkout must find the same"
            )
        print(f"every run on {layout} found the same {len(all_found[0])} findings")
    for (checkout, layout), rows in figures.items():
        if not rows:
            continue
        walls, cpus, rsses, trees, loops = (list(column) for column in zip(*rows, strict=True))
        ratio = statistics.median(w / lp for w, _, _, _, lp in rows)
        print(
            f"{checkout.name:<10} {layout:<8} median {statistics.median(walls):6.2f} s wall "
            f"(min {min(walls):.2f}), {statistics.median(cpus):.2f} s CPU, peak {max(rsses):,.0f} MiB "
            f"({max(trees):,.0f} MiB with workers); wall/loop {ratio:.1f}, "
            f"loop {statistics.median(loops):.2f} s"
        )
    if args.floor:
        # After the checks: what this process reads in must not be a high-water mark they inherit.
        loop = machine_speed()
        decode = scan = 0.0
        for name in ("before", "after"):
            d, r, size, chars = reading_floor(folder / name)
            decode, scan = decode + d, scan + r
            print(
                f"floor {name}: {size / 1e6:,.0f} MB of device files, {chars / 1e6:,.0f} M characters of "
                f"output; read and decoded in {d:.2f} s, one regex pass {r:.2f} s"
            )
        print(
            f"floor of both readings: {decode + scan:.2f} s of CPU before a fact is parsed "
            f"({(decode + scan) / 2:.2f} s on each of 2 cores at best; 10M-step loop {loop:.2f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
