"""Deadlock benchmark: the PFC channel dependency analysis of the 32,768-GPU fabric.

Generates the fabric `netcfg inventory generate` writes by default (128 SUs x 32 servers x 8 rails,
three tiers), gives it an ASN per spine and per super-spine (the plan that lets valley routes in, so
every scenario is judged rather than refused by the AS-path check), and runs the whole analysis: the
plan's routes toward every leaf, every single link failure and the sampled double failures. Prints
seconds per stage, scenarios, peak RSS and the machine-speed loop. Not a test: `make bench-deadlock`.
Target on a 2-core machine: the whole analysis <= 30 s and <= 1.5 GiB.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import time
from pathlib import Path

from scratch import DEFAULT, machine_speed, scratch_dir

from netcfg.deadlock import DeadlockModel, judge, scenarios
from netcfg.generate import write_generated_inventory
from netcfg.inventory import load_fabric
from netcfg.model import BgpPlan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=1, help="judge every Nth scenario (default 1: all)")
    args = parser.parse_args()
    loop_s = machine_speed()
    with scratch_dir(DEFAULT, "deadlock-") as tmp:
        fabric = load_fabric(write_generated_inventory(Path(tmp), "bench", 128, 32, 8))
    plan = BgpPlan("unique", "unique")
    fabric = dataclasses.replace(fabric, bgp=plan)
    started, cpu_started = time.perf_counter(), time.process_time()
    model = DeadlockModel(fabric, plan)
    built = time.perf_counter()
    every = list(scenarios(fabric))
    # Every STRIDE-th scenario is judged (all of them with --stride 1), as `analyse` judges them; the
    # whole run's time is projected from the judged ones (an overestimate: fewer twins' images).
    found = judge(model, every[:: args.stride])
    done, cpu_done = time.perf_counter(), time.process_time()
    judged, cycles = found.scenarios, found.with_cycle
    switches = len(model.sw.names)
    channels = 2 * len(model.sw.switch_links)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"fabric: {len(fabric.devices)} devices, {switches} switches, {channels} switch channels")
    print(f"plan routes toward {len(model.plan)} leaves: {built - started:.1f} s")
    print(
        f"scenarios: {judged} (plan, single and sampled double failures) in {done - built:.1f} s; "
        f"{len(model.verdicts)} searched, the others images of those under swapping twins; "
        f"{cycles} with a cycle"
    )
    projected = built - started + (done - built) * len(every) / judged
    label = "whole analysis" if args.stride == 1 else f"whole analysis, projected from 1 in {args.stride}"
    print(f"{label}: {projected:.1f} s for {len(every)} scenarios (target <= 30 s)")
    print(f"CPU time of the analysis: {cpu_done - cpu_started:.1f} s")
    print(f"peak RSS: {rss_mib:.0f} MiB (target <= 1536 MiB)")
    print(f"machine speed: {loop_s:.2f} s for the reference loop")


if __name__ == "__main__":
    main()
