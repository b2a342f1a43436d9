"""Offline benchmark: generate the 32,768-GPU fabric, render every device, parse it back, check it.

Prints seconds per stage, devices per second and peak RSS. Not a test: run it with `make bench`.
Targets on a 2-core machine: all stages <= 20 s, <= 1.5 GiB, render <= 1.3 ms per device.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from netcfg.checks import run_checks
from netcfg.generate import write_generated_inventory
from netcfg.intent import fabric_intent
from netcfg.inventory import load_fabric
from netcfg.model import DeviceState
from netcfg.platforms import get_platform
from netcfg.policy import load_policy

_FABRIC = None


def _init(path: str) -> None:
    global _FABRIC
    _FABRIC = load_fabric(Path(path))


def _parse_chunk(items: list[tuple[str, str]]) -> list[DeviceState]:
    out = []
    for name, text in items:
        device = _FABRIC.devices[name]
        out.append(get_platform(device.platform).parse_config(text, device))
    return out


def peak_rss_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scalable-units", type=int, default=128)
    ap.add_argument("--servers-per-su", type=int, default=32)
    ap.add_argument("--rails", type=int, default=8)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for the parse stage")
    args = ap.parse_args()
    stages: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        path = write_generated_inventory(
            Path(tmp), "bench", args.scalable_units, args.servers_per_su, args.rails
        )
        fabric = load_fabric(path)
        policy = load_policy(fabric.policy_ref)
        stages["generate + load inventory"] = time.perf_counter() - t
        n = len(fabric.devices)

        t = time.perf_counter()
        intent = fabric_intent(fabric, policy)
        stages["intent"] = time.perf_counter() - t

        t = time.perf_counter()
        rendered = {}
        for name, state in intent.items():
            device = fabric.devices[name]
            rendered[name] = get_platform(device.platform).render_config(state, device)
        stages["render"] = render_s = time.perf_counter() - t
        del intent

        t = time.perf_counter()
        items = list(rendered.items())
        size = max(1, len(items) // (args.workers * 8))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        states: dict[str, DeviceState] = {}
        with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(str(path),)) as pool:
            for chunk in pool.map(_parse_chunk, chunks):
                states.update((s.name, s) for s in chunk)
        stages[f"parse ({args.workers} processes)"] = time.perf_counter() - t
        del rendered, items, chunks

        t = time.perf_counter()
        findings = run_checks(fabric, policy, states)
        stages["check"] = time.perf_counter() - t

    total = sum(stages.values())
    gpus = sum(len(d.nics) for d in fabric.devices.values())
    print(f"fabric: {gpus:,} GPUs, {n:,} devices, {len(fabric.links):,} links; {len(findings)} findings")
    for stage, secs in stages.items():
        print(f"  {stage:<28} {secs:7.2f} s   {n / secs:9,.0f} devices/s")
    print(f"  {'total':<28} {total:7.2f} s   {n / total:9,.0f} devices/s   (target <= 20 s)")
    print(f"render per device: {render_s / n * 1000:.3f} ms (target <= 1.3 ms; pyavd ~40 ms)")
    print(f"peak RSS: {peak_rss_mib():,.0f} MiB (target <= 1,536 MiB)")
    return 0 if not findings else 1


if __name__ == "__main__":
    sys.exit(main())
