"""Fabric health end to end: the lab over real SSH, three audits (go-live baseline, then two nightly
ones), and the counter findings each audit can and cannot make."""

from __future__ import annotations

import json
import secrets

from netcfg.audit import run_audit
from netcfg.collect import CollectOptions
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.model import Endpoint, Fabric
from netcfg.nornir_inventory import Login, read_connections
from netcfg.policy import Policy

HEALTH_RULES = {
    "link.flapping",
    "host.cnp_loop",
    "host.pcie_degraded",
    "link.degraded",
    "health.since_baseline",
}


def test_audits_judge_counters_against_the_previous_audit_and_the_go_live_baseline(
    lab_fabric: Fabric, lab_policy: Policy, tmp_path
) -> None:
    faults = {
        "gpu02": DeviceFaults(flapping=["eth1"]),
        "gpu03": DeviceFaults(no_cnp=True),
        "gpu04": DeviceFaults(pcie_width={"eth2": 8}),
    }
    leaf = lab_fabric.peer(Endpoint("gpu02", "eth1"))
    assert leaf is not None
    login = Login("health", secrets.token_urlsafe(12))
    with lab_server(lab_fabric, lab_policy, faults, login.username, login.password) as server:
        connections, known_hosts = write_connection_files(server, tmp_path / "lab")
        opts = CollectOptions(workers=20, timeout_s=5.0, known_hosts=known_hosts)
        results = [
            run_audit(
                lab_fabric,
                lab_policy,
                login,
                tmp_path / "snapshots",
                tmp_path / "reports",
                opts,
                connections=read_connections(connections),
                baseline=audit == 0,
            )
            for audit in range(3)
        ]

    def health(result) -> set[tuple[str, str, str | None]]:
        return {(f.device, f.rule, f.interface) for f in result.findings if f.rule in HEALTH_RULES}

    first, second, third = results
    # The go-live audit has nothing to compare counters with: only what one reading shows.
    assert health(first) == {("gpu04", "host.pcie_degraded", "eth2")}
    assert "link.flapping" in first.report.not_run and "health.since_baseline" in first.report.not_run
    now = {
        ("gpu04", "host.pcie_degraded", "eth2"),
        ("gpu03", "host.cnp_loop", "eth0-3"),
        ("gpu02", "link.flapping", "eth1"),
        (leaf.device, "link.flapping", leaf.interface),
    }
    # The second judges rates against the first, which is also the baseline: not named twice.
    assert health(second) == now
    assert "health.since_baseline" in second.report.not_run
    # The third judges rates against the second, and error counters against the go-live baseline.
    assert health(third) == now | {
        ("gpu02", "health.since_baseline", "eth1"),
        (leaf.device, "health.since_baseline", leaf.interface),
    }
    record = json.loads((tmp_path / "snapshots" / "lab" / "baseline.json").read_text())
    assert record["snapshot"] == first.snapshot.name
    summary = json.loads(third.reports["json"].read_text())["summary"]
    assert summary["baseline"] == str(first.snapshot) and summary["drift_against"] == str(second.snapshot)
