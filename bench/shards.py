"""Sharded collection benchmark: the lab serves N devices (3,000 by default); one `netcfg collect`
takes them all, then N_SHARDS `netcfg collect --shard I/N` processes (standing in for the tasks of a
Slurm job array or Kubernetes Indexed Job) take them at once, `netcfg merge` joins the shards and
`netcfg check --snapshot` judges both. One shard is killed (SIGKILL) mid-collection, as a failed
array task: its snapshot must not commit, and merge must exit 2 naming it; that shard is then re-run
alone, the shards merged, and the findings must be identical to the unsharded run's. Not a test:
run it with `make bench-shards`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import yaml
from live import start_lab, write_inventory
from scratch import DEFAULT, machine_speed, scratch_dir

from netcfg.inventory import load_fabric
from netcfg.model import Role
from netcfg.nornir_inventory import Login


def netcfg(*argv: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "netcfg", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(proc: subprocess.Popen, allowed: tuple[int, ...] = (0, 1)) -> str:
    out, err = proc.communicate()
    if proc.returncode not in allowed:
        raise SystemExit(f"{' '.join(map(str, proc.args))}: exit {proc.returncode}\n{err}")
    return out + err


def findings(inventory: Path, snapshot: Path, env: dict[str, str]) -> list[dict]:
    out, _ = netcfg(
        "check", str(inventory), "--snapshot", str(snapshot), "--format", "json", env=env
    ).communicate()
    # A message naming a lab port (an unreachable device) differs between two runs of the lab.
    return json.loads(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", out))["findings"]


def seed_faults(inventory: Path, path: Path) -> Path:
    """A few faults of the demo's kinds spread over the fabric, so the findings compared are real."""
    fabric = load_fabric(inventory)
    leaves = [d.name for d in fabric.by_role(Role.LEAF)]
    hosts = [d.name for d in fabric.devices.values() if not d.is_switch]
    spines = [d.name for d in fabric.by_role(Role.SPINE)]
    faults = {
        leaves[0]: {"pfc_priority": 4},
        leaves[len(leaves) // 2]: {"ecn": False},
        hosts[1]: {"trust": "pcp"},
        hosts[len(hosts) // 3]: {"firmware": "28.39.1002"},
        hosts[-1]: {"transport": "unreachable"},
        spines[-1]: {"os_version": "4.28.9M"},
    }
    path.write_text(yaml.safe_dump({"devices": faults}))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=3000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--workers", type=int, default=12, help="Nornir workers per collector process")
    ap.add_argument("--kill-after", type=float, default=2.0, help="seconds before the killed shard's SIGKILL")
    ap.add_argument("--dir", type=Path, default=DEFAULT)
    args = ap.parse_args()
    login = Login("bench", secrets.token_urlsafe(12))
    env = os.environ | {"NETCFG_USERNAME": login.username, "NETCFG_PASSWORD": login.password}
    print(f"machine speed: {machine_speed():.2f} s for the fixed loop")
    with scratch_dir(args.dir, "shards-") as name:
        tmp = Path(name)
        inventory = write_inventory(tmp, args.devices)
        state = tmp / "lab"
        state.mkdir()
        lab = start_lab(inventory, state, login, seed_faults(inventory, tmp / "faults.yaml"))
        conn = ("--connections", str(state / "connections.json"), "--known-hosts", str(state / "known_hosts"))
        collect = ("collect", str(inventory), "--workers", str(args.workers), *conn)
        try:
            t0 = time.perf_counter()
            finished(netcfg(*collect, "-o", str(tmp / "whole"), "--processes", "2", env=env))
            whole_s = time.perf_counter() - t0
            shards = [tmp / f"shard-{i}" for i in range(args.shards)]
            killed = 3 % args.shards
            t0 = time.perf_counter()
            running = [
                netcfg(*collect, "-o", str(s), "--shard", f"{i}/{args.shards}", env=env)
                for i, s in enumerate(shards)
            ]
            # A killed array task: SIGKILL once its collection is under way, so nothing of it can
            # commit; the others run on.
            time.sleep(args.kill_after)
            running[killed].kill()
            running[killed].communicate()
            for i, proc in enumerate(running):
                if i != killed:
                    finished(proc)
            shards_s = time.perf_counter() - t0
            committed = (shards[killed] / "meta.json").exists()
            print(
                f"  {args.shards} shards at once {shards_s:.1f} s, shard {killed} killed after "
                f"{args.kill_after:g} s: its snapshot committed: {committed}"
            )
            # As the Slurm recipe's `$run/shard-*` glob: whatever snapshots exist.
            present = [str(s) for s in shards if s.exists()]
            proc = netcfg("merge", *present, "-o", str(tmp / "partial"), env=env)
            said = finished(proc, (2,))
            named = f"shard {killed}/{args.shards} missing" in said
            print(f"  merge without it: exit {proc.returncode}, names it: {named}: {said.strip()}")
            t0 = time.perf_counter()
            alone = ("-o", str(shards[killed]), "--shard", f"{killed}/{args.shards}")
            finished(netcfg(*collect, *alone, env=env))
            rerun_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            finished(netcfg("merge", *map(str, shards), "-o", str(tmp / "merged"), env=env), (0,))
            merge_s = time.perf_counter() - t0
            devices = len(json.loads((tmp / "whole" / "meta.json").read_text())["devices"])
            sizes = [len(json.loads((s / "meta.json").read_text())["devices"]) for s in shards]
            print(f"{devices} devices: one collection {whole_s:.1f} s ({devices / whole_s:.0f} devices/s)")
            print(
                f"  shard {killed} re-run alone {rerun_s:.1f} s; shards hold {min(sizes)}-{max(sizes)} "
                f"devices each; merge {merge_s:.2f} s"
            )
            one, merged = findings(inventory, tmp / "whole", env), findings(inventory, tmp / "merged", env)
            same = one == merged
            print(f"  findings: {len(one)} unsharded, {len(merged)} merged, identical: {same}")
        finally:
            lab.terminate()
            lab.wait(10)
    return 0 if same and named and not committed else 1


if __name__ == "__main__":
    sys.exit(main())
