"""`netcfg audit --drain-list`: the hosts a scheduler should drain, from a live audit of the lab over
SSH with seeded host faults, in Slurm, Kubernetes and JSON form; quoting that no message can break;
and the files netcfg may and may not write."""

from __future__ import annotations

import json
import subprocess
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netcfg.cli import main
from netcfg.drain import MARKER, DrainTarget, drain_reasons, render_drain_list
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.model import expand_ports, port_ranges
from netcfg.rules import Finding, Severity
from tests.conftest import LAB

USER, PASSWORD = "auditor", "drain-Lab-pass1"
# A NIC trusting PCP, and a NIC cabled to a spare port of the rail-1 leaf (its plan: the rail-2 leaf).
FAULTS = {"gpu05": DeviceFaults(trust="pcp"), "gpu07": DeviceFaults(lldp={"eth1": "leaf-su2-r1:Ethernet5"})}
SLURM = [
    "scontrol update nodename=gpu05 state=drain reason='netcfg: link.trust_mismatch eth0-3: trust mode "
    "disagrees with the other end of the link: pcp here, dscp on the peer (on 4 ports) (+1 more)'",
    "scontrol update nodename=gpu07 state=drain reason='netcfg: cabling.wrong_neighbor eth1: cabling "
    "differs from the plan: gpu07:eth1 should reach leaf-su2-r2:Ethernet3, LLDP sees leaf-su2-r1:Ethernet5 "
    "(a leaf...'",
]
KUBERNETES = [
    "kubectl taint nodes gpu05 netcfg.io/fabric=degraded:NoSchedule --overwrite",
    "kubectl annotate node gpu05 'netcfg.io/drain-reason=netcfg: link.trust_mismatch eth0-3: trust mode "
    "disagrees with the other end of the link: pcp here, dscp on the peer (on 4 ports) (+1 more)' "
    "--overwrite",
    "kubectl taint nodes gpu07 netcfg.io/fabric=degraded:NoSchedule --overwrite",
    "kubectl annotate node gpu07 'netcfg.io/drain-reason=netcfg: cabling.wrong_neighbor eth1: cabling "
    "differs from the plan: gpu07:eth1 should reach leaf-su2-r2:Ethernet3, LLDP sees leaf-su2-r1:Ethernet5 "
    "(a leaf...' --overwrite",
]


@pytest.fixture(scope="module")
def lab(lab_fabric, lab_policy, tmp_path_factory):
    with lab_server(lab_fabric, lab_policy, FAULTS, USER, PASSWORD) as server:
        yield write_connection_files(server, tmp_path_factory.mktemp("lab"))


def audit(lab, tmp_path: Path, monkeypatch, *extra: str) -> int:
    monkeypatch.setenv("NETCFG_USERNAME", USER)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    connections, known_hosts = lab
    return main(
        [
            "audit",
            str(LAB),
            "--connections",
            str(connections),
            "--known-hosts",
            str(known_hosts),
            "--snapshots",
            str(tmp_path / "snapshots"),
            "--reports",
            str(tmp_path / "reports"),
            "--format",
            "json",
            "--output",
            str(tmp_path / "report.json"),
            *extra,
        ]
    )


@pytest.mark.parametrize(("fmt", "expected"), [("slurm", SLURM), ("kubernetes", KUBERNETES)])
def test_the_drain_list_of_the_lab_names_the_hosts_with_nic_and_cabling_faults(
    lab, tmp_path, monkeypatch, fmt, expected
):
    drain = tmp_path / "drain.sh"
    assert audit(lab, tmp_path, monkeypatch, "--drain-list", str(drain), "--drain-format", fmt) == 1
    first, *lines = drain.read_text().splitlines()
    assert first.startswith(f"{MARKER} ({fmt}) of fabric lab, 2 host(s), from live audit, snapshot ")
    assert lines == expected
    # The next audit replaces the list netcfg wrote.
    assert audit(lab, tmp_path, monkeypatch, "--drain-list", str(drain), "--drain-format", fmt) == 1
    assert drain.read_text().splitlines()[1:] == expected


def test_a_waived_finding_drains_nothing(lab, tmp_path, monkeypatch):
    monkeypatch.setattr("netcfg.waivers.today", lambda: date(2026, 12, 1))
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text(
        "waivers:\n  - {device: gpu05, rule: '*trust*', owner: hpc-ops, reason: re-imaged tonight, "
        "expires: 2026-12-01}\n"
    )
    drain = tmp_path / "drain.sh"
    assert audit(lab, tmp_path, monkeypatch, "--drain-list", str(drain), "--waivers", str(waivers)) == 1
    assert drain.read_text().splitlines()[1:] == SLURM[1:]


def test_a_json_drain_list_carries_every_reason(lab, tmp_path, monkeypatch):
    drain = tmp_path / "drain.json"
    assert audit(lab, tmp_path, monkeypatch, "--drain-list", str(drain)) == 1
    data = json.loads(drain.read_text())
    assert data["generator"] == "netcfg drain list" and data["fabric"] == "lab"
    assert [
        (h["host"], [(r["rule"], r["interface"], r["severity"]) for r in h["reasons"]]) for h in data["hosts"]
    ] == [
        ("gpu05", [("link.trust_mismatch", "eth0-3", "error"), ("qos.trust", "eth0-3", "error")]),
        ("gpu07", [("cabling.wrong_neighbor", "eth1", "error")]),
    ]
    assert data["hosts"][1]["reasons"][0]["message"].endswith("(a leaf of rail 1, not rail 2)")


def test_a_switch_port_finding_drains_the_host_at_the_other_end_and_info_drains_nothing(lab_fabric):
    findings = [
        Finding("ecn.enabled", Severity.ERROR, "leaf-su2-r2", "Ethernet1-2,31", "on", "off", "ECN off"),
        Finding("firmware.allowed", Severity.ERROR, "spine2", None, "4.32.1F", "4.28.9M", "old NOS"),
        Finding("qos.trust", Severity.INFO, "gpu01", "eth0", "dscp", "pcp", "trust; waived until 2026-12-31"),
        Finding("collect.unreachable", Severity.ERROR, "gpu08", None, "collected", "unreachable", "refused"),
    ]
    hosts = drain_reasons(lab_fabric, findings)
    assert {h: [(r.rule, r.interface) for r in rs] for h, rs in hosts.items()} == {
        "gpu05": [("ecn.enabled", "leaf-su2-r2:Ethernet1")],
        "gpu06": [("ecn.enabled", "leaf-su2-r2:Ethernet2")],
    }


def test_no_message_can_break_the_shell_line(lab_fabric, tmp_path):
    hostile = "x'; touch PWNED; echo '\n$(touch PWNED2) `touch PWNED3` \"; touch PWNED4 #"
    findings = [Finding("qos.trust", Severity.ERROR, "gpu01", "eth0", "dscp", "pcp", hostile)]
    hosts = drain_reasons(lab_fabric, findings)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("scontrol", "kubectl"):
        (bin_dir / tool).write_text(
            '#!/bin/sh\nprintf \'%s\\0\' "$0" "$@" >> "$ARGV_LOG"\nprintf \'\\n\' >> "$ARGV_LOG"\n'
        )
        (bin_dir / tool).chmod(0o755)
    reason = (
        "netcfg: qos.trust eth0: x'; touch PWNED; echo ' $(touch PWNED2) `touch PWNED3` \"; touch PWNED4 #"
    )
    for fmt, argv in (
        ("slurm", [["scontrol", "update", "nodename=gpu01", "state=drain", f"reason={reason}"]]),
        (
            "kubernetes",
            [
                ["kubectl", "taint", "nodes", "gpu01", "netcfg.io/fabric=degraded:NoSchedule", "--overwrite"],
                ["kubectl", "annotate", "node", "gpu01", f"netcfg.io/drain-reason={reason}", "--overwrite"],
            ],
        ),
    ):
        text = render_drain_list(hosts, fmt, "lab", "a source\nwith a line break; touch PWNED5")
        assert len(text.splitlines()) == 1 + len(argv)
        log = tmp_path / f"{fmt}.log"
        script = tmp_path / f"drain.{fmt}"
        script.write_text(text)
        env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "ARGV_LOG": str(log)}
        subprocess.run(["sh", str(script)], cwd=tmp_path, env=env, check=True)
        # The fake tools log each call's arguments NUL-separated: what the shell really passed.
        calls = [entry.split("\0") for entry in log.read_text().split("\0\n")[:-1]]
        assert [[Path(c[0]).name, *c[1:]] for c in calls] == argv
    assert not list(tmp_path.glob("PWNED*"))


def test_an_empty_drain_list_is_still_written(lab_fabric, tmp_path):
    for fmt, path in (("slurm", tmp_path / "drain.sh"), ("json", tmp_path / "drain.json")):
        target = DrainTarget.from_args(str(path), fmt)
        assert target is not None and target.write(lab_fabric, [], "rendered intent") == 0
    assert len((tmp_path / "drain.sh").read_text().splitlines()) == 1
    assert json.loads((tmp_path / "drain.json").read_text())["hosts"] == []


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("notes", "exists and was not written by netcfg"),
        ("empty", "exists and was not written by netcfg"),
        ("folder", "is a folder"),
        ("missing folder", "does not exist; expected an existing folder"),
        ("format only", "--drain-format: needs --drain-list FILE"),
    ],
)
def test_a_file_netcfg_did_not_write_is_refused_before_anything_is_collected(
    tmp_path, monkeypatch, capsys, setup, expected
):
    drain = tmp_path / "drain.sh"
    if setup == "notes":
        drain.write_text("my own notes\n")
    elif setup == "empty":
        drain.write_text("")
    elif setup == "folder":
        drain.mkdir()
    elif setup == "missing folder":
        drain = tmp_path / "nowhere" / "drain.sh"
    monkeypatch.setenv("NETCFG_USERNAME", USER)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    option = ["--drain-format", "json"] if setup == "format only" else ["--drain-list", str(drain)]
    args = ["audit", str(LAB), "--no-host-key-check", "--snapshots", str(tmp_path / "snapshots"), *option]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0], err
    assert not (tmp_path / "snapshots").exists()
    if setup == "notes":
        assert drain.read_text() == "my own notes\n"


@given(
    st.lists(
        st.tuples(st.sampled_from(["Ethernet", "Ethernet1/", "et-0/0/", "swp", "eth"]), st.integers(0, 70)),
        min_size=1,
        max_size=30,
    )
)
def test_a_findings_port_list_expands_back_to_its_ports(ports):
    """A merged finding's `interface` names exactly the ports it was merged from."""
    names = {f"{head}{n}" for head, n in ports}
    assert set(expand_ports(port_ranges(sorted(names)))) == names
