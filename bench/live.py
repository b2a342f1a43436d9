"""Live benchmark: the lab serves N devices from its own process; netcfg audits all of them over SSH.

Prints devices/s for collection and for checks, CPU seconds of the collector and of the lab, and
peak RSS; then runs again with 10 % of the devices given transport faults and verifies that every
faulty device is named and no healthy device's output is lost. Not a test: run it with
`make bench-live`. Targets on 2 cores: >= 150 devices/s end to end healthy, >= 100 with the faults.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from scratch import DEFAULT, file_creation_ms, machine_speed, scratch_dir

from netcfg.audit import run_audit
from netcfg.collect import CollectOptions
from netcfg.inventory import load_fabric
from netcfg.nornir_inventory import Login, read_connections
from netcfg.platforms import get_platform
from netcfg.policy import load_policy

FAULT_KINDS = ["unreachable", "auth_fail", "silent", "truncate", "garble"]
EXPECTED_RULE = {
    "unreachable": "collect.unreachable",
    "auth_fail": "collect.auth",
    "silent": "collect.timeout",
    "truncate": "parse.unknown_output",
    "garble": "parse.unknown_output",
}


def write_inventory(folder: Path, devices: int) -> Path:
    """Lab proportions (per SU: 8 servers with 4 NICs, 4 rail leaves) plus 16 spines."""
    sus = max(1, (devices - 16) // 12)
    spec = {
        "name": "bench",
        "policy": "roce-lossless",
        "topology": {
            "scalable_units": sus,
            "servers_per_su": 8,
            "rails": 4,
            "spine": {"count": 16, "leaf_first_port": 33},
        },
    }
    path = folder / "fabric.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_and_pool_cpu() -> float:
    """CPU of this process and its reaped children: the collector processes (the lab is reaped later)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def start_lab(inventory: Path, state: Path, login: Login, faults: Path | None) -> subprocess.Popen:
    env = os.environ | {"NETCFG_USERNAME": login.username, "NETCFG_PASSWORD": login.password}
    cmd = [sys.executable, "-m", "netcfg", "lab", "serve", str(inventory), "--state-dir", str(state)]
    if faults is not None:
        cmd += ["--faults", str(faults)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (state / "known_hosts").is_file():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"lab did not start: {proc.stderr.read() if proc.stderr else ''}")
        time.sleep(0.05)
    return proc


def run(
    inventory: Path,
    tmp: Path,
    login: Login,
    workers: int,
    processes: int,
    timeout: float,
    faults: dict[str, str],
) -> bool:
    fabric = load_fabric(inventory)
    policy = load_policy(fabric.policy_ref)
    faults_file = None
    if faults:
        faults_file = tmp / "faults.yaml"
        faults_file.write_text(yaml.safe_dump({"devices": {n: {"transport": k} for n, k in faults.items()}}))
    state = Path(tempfile.mkdtemp(prefix="lab-", dir=tmp))
    lab = start_lab(inventory, state, login, faults_file)
    try:
        lab_cpu0 = cpu_seconds(lab.pid)
        self0 = _own_and_pool_cpu()
        opts = CollectOptions(
            workers=workers, processes=processes, timeout_s=timeout, known_hosts=state / "known_hosts"
        )
        t0 = time.perf_counter()
        result = run_audit(
            fabric,
            policy,
            login,
            tmp / "snapshots",
            tmp / "reports",
            opts,
            connections=read_connections(state / "connections.json"),
        )
        total = time.perf_counter() - t0
        self1 = _own_and_pool_cpu()
        lab_cpu = cpu_seconds(lab.pid) - lab_cpu0
    finally:
        lab.terminate()
        lab.wait(10)
    meta = json.loads((result.snapshot / "meta.json").read_text())
    collect_s = meta["seconds"]
    n = len(fabric.devices)
    hosts = sum(1 for d in fabric.devices.values() if not d.is_switch)
    label = f"with {len(faults)} transport faults (timeout {timeout:g} s)" if faults else "healthy"
    print(f"\n{label}: {n} devices ({hosts} hosts, {n - hosts} switches), {processes} x {workers} workers")
    commands = [get_platform(d.platform).commands(d) for d in fabric.devices.values()]
    counted = sum(c.counters for cs in commands for c in cs)
    print(
        f"  commands {sum(map(len, commands)):,} ({counted:,} of them counters and link state), "
        f"previous reading to judge counters against: {'yes' if result.previous else 'no'}"
    )
    print(f"  collect  {collect_s:6.2f} s  {n / collect_s:7.1f} devices/s")
    print(
        f"  check    {total - collect_s:6.2f} s  {n / max(total - collect_s, 1e-9):7.1f} devices/s"
        " (parse + checks + drift + reports)"
    )
    target = 100 if faults else 150
    print(f"  total    {total:6.2f} s  {n / total:7.1f} devices/s end to end (target >= {target})")
    print(
        f"  CPU: collector {self1 - self0:.2f} s (all collector processes), lab {lab_cpu:.2f} s; "
        f"per device {(self1 - self0) / n * 1000:.1f} ms and {lab_cpu / n * 1000:.1f} ms"
    )
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # Reaped children so far: the collector processes of this and earlier runs, and earlier labs.
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  peak RSS: audit process {own:.0f} MiB, largest child process so far {child:.0f} MiB")
    named = {(f.device, f.rule) for f in result.findings}
    ok = True
    for device, kind in faults.items():
        if (device, EXPECTED_RULE[kind]) not in named:
            print(f"  MISSED: {device} ({kind}) not reported as {EXPECTED_RULE[kind]}")
            ok = False
    lost = [name for name, c in result.collected.items() if name not in faults and c.error]
    stray = {d for d, _ in named} - set(faults) - {"(fabric)"}
    print(
        f"  faulty devices named: {sum(1 for d in faults if any(x == d for x, _ in named))}/{len(faults)}; "
        f"healthy devices with errors: {len(lost)}; healthy devices with findings: {len(stray)}"
    )
    for f in [f for f in result.findings if f.device in stray][:5]:
        print(
            f"  stray: {f.device} {f.rule} {f.interface} expected {f.expected} actual {f.actual}: {f.message}"
        )
    return ok and not lost and not stray


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--devices", type=int, default=1000)
    # With hosts on exec channels and netmiko's reads no longer sleeping, a device's session is
    # mostly waiting on the lab, which shares the cores: 2 x 24 gave 126 devices/s where 2 x 12
    # gave 104 on the same slow minute, for no more CPU per device.
    ap.add_argument("--workers", type=int, default=24, help="Nornir workers per collector process")
    ap.add_argument("--processes", type=int, default=2, help="collector processes")
    ap.add_argument("--timeout", type=float, default=3.0, help="per-device timeout in the faulty run")
    ap.add_argument("--fault-percent", type=float, default=10)
    ap.add_argument(
        "--dir",
        type=Path,
        default=DEFAULT,
        help="where snapshots and reports are written (a fresh subfolder)",
    )
    args = ap.parse_args()
    login = Login("bench", secrets.token_urlsafe(12))
    with scratch_dir(args.dir, "live-") as tmp_name:
        tmp = Path(tmp_name)
        print(
            f"machine speed: a 10M-step Python loop takes {machine_speed():.2f} s; creating a file in "
            f"{args.dir} takes {file_creation_ms(tmp):.2f} ms of CPU"
        )
        inventory = write_inventory(tmp, args.devices)
        healthy = run(inventory, tmp, login, args.workers, args.processes, 10.0, {})
        names = sorted(load_fabric(inventory).devices)
        rng = random.Random(7)
        chosen = rng.sample(names, int(len(names) * args.fault_percent / 100))
        faults = {name: FAULT_KINDS[i % len(FAULT_KINDS)] for i, name in enumerate(chosen)}
        faulty = run(inventory, tmp, login, args.workers, args.processes, args.timeout, faults)
    return 0 if healthy and faulty else 1


if __name__ == "__main__":
    sys.exit(main())
