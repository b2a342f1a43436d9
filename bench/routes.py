"""Route-table benchmark: the deadlock analysis of the installed routes of the 32,768-GPU fabric.

Generates the fabric `netcfg inventory generate` writes by default (128 SUs x 32 servers x 8 rails,
three tiers), gives every switch the route table the lab's eBGP installs (each leaf's subnet by ECMP
over every shortest path), and runs the analysis of `lossless.route_*`: clean, then with one valley
route installed on a spine. Prints seconds per stage, tables, destinations and peak RSS. Not a test:
`make bench-routes`. Target on a 2-core machine: the clean analysis <= 5 s.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path

from scratch import DEFAULT, machine_speed, scratch_dir

from netcfg.forwarding import analyse_routes
from netcfg.generate import write_generated_inventory
from netcfg.inventory import load_fabric
from netcfg.lab.routes import installed, lab_routes
from netcfg.model import DeviceState, Role


def main() -> None:
    loop_s = machine_speed()
    with scratch_dir(DEFAULT, "routes-") as tmp:
        fabric = load_fabric(write_generated_inventory(Path(tmp), "bench", 128, 32, 8))
    started = time.perf_counter()
    tables = lab_routes(fabric)
    built = time.perf_counter()
    states = {
        name: DeviceState(name, fabric.devices[name].platform, routes=routes)
        for name, routes in tables.items()
    }
    prefixes = sum(len(t) for t in tables.values())
    print(f"fabric: {len(fabric.devices)} devices, {len(tables)} switches, {prefixes} routes in all")
    print(f"lab route tables: {built - started:.1f} s")
    t0 = time.perf_counter()
    clean = analyse_routes(fabric, states)
    t1 = time.perf_counter()
    print(
        f"clean analysis: {t1 - t0:.2f} s for {clean.destinations} destinations; "
        f"{len(clean.valleys)} valleys (target <= 5 s)"
    )
    # One spine sends a leaf of its own SU's subnet down to another leaf of that SU, which sends it up.
    spine = next(d for d in fabric.devices.values() if d.role == Role.SPINE)
    leaves = [
        remote
        for _, _, remote in fabric.links_of(spine.name)
        if fabric.devices[remote.device].role == Role.LEAF
    ]
    target = leaves[0].device
    bounce = next(r for r in leaves if r.device != target)
    port = fabric.peer(bounce).interface  # type: ignore[union-attr]
    local = next(local for local, _, remote in fabric.links_of(spine.name) if remote == bounce)
    routes = installed(fabric, spine.name, tables[spine.name], [f"{target} {local.interface}"])
    states[spine.name] = DeviceState(spine.name, spine.platform, routes=routes)
    t2 = time.perf_counter()
    faulty = analyse_routes(fabric, states)
    t3 = time.perf_counter()
    print(
        f"with a valley ({spine.name} via {bounce.device}:{port}): {t3 - t2:.2f} s; "
        f"{len(faulty.valleys)} valleys, cycle: {faulty.describe_cycle() or 'none'}"
    )
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {rss_mib:.0f} MiB")
    print(f"machine speed: {loop_s:.2f} s for the reference loop")


if __name__ == "__main__":
    main()
