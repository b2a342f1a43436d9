"""Sharded collection benchmark: the lab serves N devices (3,000 by default); one `netcfg collect`
takes them all, then N_SHARDS `netcfg collect --shard I/N` processes (standing in for the tasks of a
Slurm job array or Kubernetes Indexed Job) take them at once, `netcfg merge` joins the shards and
`netcfg check --snapshot` judges both. Prints the times and whether the findings are identical; then
drops one shard (a killed array task) and checks that merge exits 2 naming it, re-runs that shard
alone and checks the identity again. Not a test: run it with `make bench-shards`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
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
            t0 = time.perf_counter()
            running = [
                netcfg(*collect, "-o", str(s), "--shard", f"{i}/{args.shards}", env=env)
                for i, s in enumerate(shards)
            ]
            for proc in running:
                finished(proc)
            shards_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            finished(netcfg("merge", *map(str, shards), "-o", str(tmp / "merged"), env=env), (0,))
            merge_s = time.perf_counter() - t0
            devices = len(json.loads((tmp / "whole" / "meta.json").read_text())["devices"])
            sizes = [len(json.loads((s / "meta.json").read_text())["devices"]) for s in shards]
            print(f"{devices} devices: one collection {whole_s:.1f} s ({devices / whole_s:.0f} devices/s)")
            print(
                f"  {args.shards} shards at once {shards_s:.1f} s ({devices / shards_s:.0f} devices/s), "
                f"{min(sizes)}-{max(sizes)} devices each; merge {merge_s:.2f} s"
            )
            one, merged = findings(inventory, tmp / "whole", env), findings(inventory, tmp / "merged", env)
            same = one == merged
            print(f"  findings: {len(one)} unsharded, {len(merged)} merged, identical: {same}")
            # A killed array task: its snapshot never committed.
            shutil.rmtree(shards[3])
            proc = netcfg("merge", *map(str, shards[:3] + shards[4:]), "-o", str(tmp / "partial"), env=env)
            said = finished(proc, (2,))
            named = f"shard 3/{args.shards} missing" in said
            print(f"  shard 3 killed: merge exit {proc.returncode}, names it: {named}")
            finished(netcfg(*collect, "-o", str(shards[3]), "--shard", f"3/{args.shards}", env=env))
            finished(netcfg("merge", *map(str, shards), "-o", str(tmp / "again"), env=env), (0,))
            restored = findings(inventory, tmp / "again", env) == one
            print(f"  shard 3 re-run alone: findings identical again: {restored}")
        finally:
            lab.terminate()
            lab.wait(10)
    return 0 if same and named and restored else 1


if __name__ == "__main__":
    sys.exit(main())
