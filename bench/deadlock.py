"""Deadlock benchmark: the PFC channel dependency analysis of a 32,768-GPU fabric.

`--fabric generated` (the default): the fabric `netcfg inventory generate` writes by default (128 SUs x
32 servers x 8 rails, three tiers; four parallel links from each leaf to each of its SU's 8 spines),
with an ASN per spine and per super-spine (the plan that lets valley routes in, so every scenario is
judged rather than refused by the AS-path check). No failure of one or two links leaves a leaf or
spine pair without a link there, so no scenario has a valley route in use and none reaches the graph
search. `--fabric valleys`: the same 32,768 GPUs (128 SUs x 32 servers x 8 rails) with each leaf
cabled once to each of 2 spines per SU (16 super-spines per plane): a leaf that loses one spine and
another that loses the other route toward each other through valleys, so double failures do reach
the search, over the dependencies of every leaf's traffic.

Runs the whole analysis: the plan's routes toward every leaf, every single link failure and the
sampled double failures. Prints seconds per stage, scenarios, how many had valley routes in use,
peak RSS and the machine-speed loop. Not a test: `make bench-deadlock` runs both fabrics, each in a
process of its own. Target on a 2-core machine: the whole analysis <= 30 s and <= 1.5 GiB.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import time
from pathlib import Path

import yaml
from scratch import DEFAULT, machine_speed, scratch_dir

from netcfg.deadlock import DeadlockModel, judge, scenarios
from netcfg.generate import generated_spec, write_generated_inventory
from netcfg.inventory import load_fabric
from netcfg.model import BgpPlan, Fabric


def generated_fabric(folder: Path) -> Fabric:
    return load_fabric(write_generated_inventory(folder, "bench", 128, 32, 8))


def valley_rich_fabric(folder: Path) -> Fabric:
    """128 SUs x 32 servers x 8 rails, each leaf cabled once to each of its SU's 2 spines, spine p of
    every SU to the 16 super-spines of plane p."""
    spec = generated_spec("bench-valleys", 128, 32, 8)
    spec["topology"]["spine"].update(count=2, links_per_leaf=1)
    spec["topology"]["superspine"].update(per_plane=16, spine_first_port=9)
    path = folder / "fabric.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return load_fabric(path)


FABRICS = {"generated": generated_fabric, "valleys": valley_rich_fabric}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fabric", choices=sorted(FABRICS), default="generated", help="which fabric")
    parser.add_argument("--stride", type=int, default=1, help="judge every Nth scenario (default 1: all)")
    args = parser.parse_args()
    loop_s = machine_speed()
    with scratch_dir(DEFAULT, "deadlock-") as tmp:
        fabric = FABRICS[args.fabric](Path(tmp))
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
    with_valleys = sum(valleys for _, valleys in model.verdicts.values())
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"fabric ({args.fabric}): {len(fabric.devices)} devices, {switches} switches, "
        f"{channels} switch channels"
    )
    print(f"plan routes toward {len(model.plan)} leaves: {built - started:.1f} s")
    print(
        f"scenarios: {judged} (plan, single and sampled double failures) in {done - built:.1f} s; "
        f"{len(model.verdicts)} searched, the others images of those under swapping twins; "
        f"{with_valleys} of those searched with valley routes in use; {cycles} with a cycle"
    )
    projected = built - started + (done - built) * len(every) / judged
    label = "whole analysis" if args.stride == 1 else f"whole analysis, projected from 1 in {args.stride}"
    print(f"{label}: {projected:.1f} s for {len(every)} scenarios (target <= 30 s)")
    print(f"CPU time of the analysis: {cpu_done - cpu_started:.1f} s")
    print(f"peak RSS: {rss_mib:.0f} MiB (target <= 1536 MiB)")
    print(f"machine speed: {loop_s:.2f} s for the reference loop")


if __name__ == "__main__":
    main()
