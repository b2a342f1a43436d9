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
from netcfg.drain import MARKER, DrainLimit, DrainTarget, DrainWithheld, render_drain_list
from netcfg.impact import drain_plan
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
            # The lab drains 2 of its 8 hosts: above the default breaker (10%, one host).
            *(["--max-drain", "25%"] if "--max-drain" not in extra else []),
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
    assert first.startswith(
        f"{MARKER} ({fmt}) of fabric lab, 2 host(s), 0 impacted, from live audit, snapshot "
    )
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
    hosts = drain_plan(lab_fabric, findings).drain
    assert {h: [(r.rule, r.interface) for r in rs] for h, rs in hosts.items()} == {
        "gpu05": [("ecn.enabled", "leaf-su2-r2:Ethernet1")],
        "gpu06": [("ecn.enabled", "leaf-su2-r2:Ethernet2")],
    }


def test_no_message_can_break_the_shell_line(lab_fabric, tmp_path):
    hostile = "x'; touch PWNED; echo '\n$(touch PWNED2) `touch PWNED3` \"; touch PWNED4 #"
    findings = [
        Finding("qos.trust", Severity.ERROR, "gpu01", "eth0", "dscp", "pcp", hostile),
        # An impacted host is named in a comment: one line, whatever the message holds.
        Finding("ecn.enabled", Severity.ERROR, "leaf-su2-r2", "Ethernet1-4,31-32", "on", "off", hostile),
    ]
    hosts = drain_plan(lab_fabric, findings)
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
        assert len(text.splitlines()) == 1 + len(argv) + 1 + 4
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
        assert target is not None
        assert target.write(lab_fabric, [], "rendered intent", lab_fabric.devices).drain == {}
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


# --- own trouble drains, a switch-wide fault only impacts ----------------------------------------

LEAF_PORTS = "Ethernet1-4,31-32"


def _finding(rule, device, interface, severity=Severity.ERROR):
    return Finding(rule, severity, device, interface, "x", "y", f"{rule} on {device}")


def _hosts(plan):
    return {h: [(r.rule, r.interface) for r in rs] for h, rs in plan.items()}


def test_one_leaf_line_wrong_on_every_port_drains_no_host_and_impacts_those_behind_it(lab_fabric):
    plan = drain_plan(lab_fabric, [_finding("pfc.no_drop_priorities", "leaf-su1-r3", LEAF_PORTS)])
    assert plan.drain == {}
    assert _hosts(plan.impacted) == {
        h: [("pfc.no_drop_priorities", f"leaf-su1-r3:{LEAF_PORTS}")]
        for h in ("gpu01", "gpu02", "gpu03", "gpu04")
    }
    # Asked for, the impacted hosts are drained with the switch and the rule as their reason.
    assert _hosts(plan.scoped("impacted").drain) == _hosts(plan.impacted)


def test_a_host_is_drained_for_either_end_of_its_own_cable_and_the_rest_only_impacted(lab_fabric):
    findings = [
        _finding("link.degraded", "leaf-su1-r2", "Ethernet1"),  # gpu01's rail-2 cable, switch end
        _finding("host.pcie_degraded", "gpu04", "eth3"),
        _finding("link.flapping", "spine1", "Ethernet4"),  # an uplink of leaf-su1-r4
        _finding("firmware.allowed", "spine2", None),  # a spine: every host behind it
        _finding("rail.qos_consistency", "leaf-su2-r2", None),  # a rail-wide mismatch
        _finding("cabling.swapped", "leaf-su2-r1", "Ethernet1-4"),  # four cables, each a host's own
    ]
    plan = drain_plan(lab_fabric, findings)
    assert _hosts(plan.drain) == {
        "gpu01": [("link.degraded", "leaf-su1-r2:Ethernet1")],
        "gpu04": [("host.pcie_degraded", "eth3")],
        **{f"gpu0{n}": [("cabling.swapped", f"leaf-su2-r1:Ethernet{n - 4}")] for n in (5, 6, 7, 8)},
    }
    assert _hosts(plan.impacted) == {
        "gpu02": [("firmware.allowed", "spine2"), ("link.flapping", "spine1:Ethernet4")],
        "gpu03": [("firmware.allowed", "spine2"), ("link.flapping", "spine1:Ethernet4")],
    }


def test_the_json_list_carries_both_lists_and_slurm_and_kubernetes_say_impacted_in_a_comment(lab_fabric):
    plan = drain_plan(
        lab_fabric,
        [_finding("ecn.enabled", "leaf-su2-r2", LEAF_PORTS), _finding("qos.trust", "gpu05", "eth0-3")],
    )
    data = json.loads(render_drain_list(plan, "json", "lab", "test"))
    assert [h["host"] for h in data["hosts"]] == ["gpu05"]
    assert [h["host"] for h in data["impacted"]] == ["gpu06", "gpu07", "gpu08"]
    assert data["impacted"][0]["reasons"][0]["interface"] == f"leaf-su2-r2:{LEAF_PORTS}"
    for fmt, tool in (("slurm", "scontrol"), ("kubernetes", "kubectl")):
        first, *lines = render_drain_list(plan, fmt, "lab", "test").splitlines()
        assert "1 host(s), 3 impacted" in first
        commands = [line for line in lines if not line.startswith("#")]
        assert commands and all(line.startswith(tool) and "gpu05" in line for line in commands)
        comments = [line for line in lines if line.startswith("# gpu")]
        assert [c.split(":")[0] for c in comments] == ["# gpu06", "# gpu07", "# gpu08"]
        assert "netcfg: ecn.enabled leaf-su2-r2:Ethernet1-4,31-32" in comments[0]


# --- the circuit breaker and the gate that cannot judge --------------------------------------------


def test_the_default_breaker_lets_a_tenth_of_the_hosts_through_rounded_up():
    assert DrainLimit("10%").hosts(8) == 1 and DrainLimit("10%").hosts(1024) == 103
    assert DrainLimit("3").hosts(8) == 3 and DrainLimit("0%").hosts(8) == 0
    for bad in ("ten", "-1", "150%", "5.5", "%"):
        with pytest.raises(ValueError, match="expected a number of hosts"):
            DrainLimit.parse(bad)


def test_a_list_above_the_breaker_is_not_written_and_the_previous_one_stays(
    lab, tmp_path, monkeypatch, capsys
):
    drain = tmp_path / "drain.sh"
    assert audit(lab, tmp_path, monkeypatch, "--drain-list", str(drain)) == 1
    previous = drain.read_text()
    capsys.readouterr()
    # The default, 10% of 8 hosts: one.
    assert audit(lab, tmp_path, monkeypatch, "--drain-list", str(drain), "--max-drain", "10%") == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "--max-drain 10%: would drain 2 of 8 hosts, more than 1" in err[0]
    assert "cabling.wrong_neighbor (1)" in err[0] and f"{drain} is left as it was" in err[0]
    assert drain.read_text() == previous
    # The report was still written: the audit itself is done.
    assert json.loads((tmp_path / "report.json").read_text())["findings"]


def test_the_default_breaker_holds_when_no_limit_is_given(lab_fabric, tmp_path):
    target = DrainTarget.from_args(str(tmp_path / "drain.json"), None)
    findings = [_finding("qos.trust", "gpu01", "eth0"), _finding("qos.trust", "gpu02", "eth0")]
    with pytest.raises(DrainWithheld, match="would drain 2 of 8 hosts, more than 1"):
        target.write(lab_fabric, findings, "test", lab_fabric.devices)
    assert not (tmp_path / "drain.json").exists()


def test_a_bad_max_drain_is_refused_before_anything_is_collected(tmp_path, capsys):
    args = ["audit", str(LAB), "--snapshots", str(tmp_path / "s"), "--drain-list", str(tmp_path / "d.sh")]
    assert main([*args, "--max-drain", "half"]) == 2
    assert "--max-drain" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_an_audit_that_cannot_judge_never_drains(lab_fabric, tmp_path):
    """The lab died or the management network is down: most devices unread. Whatever the rest say
    (here every host of one leaf), no list is written."""
    target = DrainTarget.from_args(str(tmp_path / "drain.json"), None)
    switches = [d for d in lab_fabric.devices.values() if d.is_switch]
    findings = [_finding("collect.timeout", d.name, None) for d in switches]
    findings += [_finding("qos.trust", "gpu01", "eth0")]
    for audited, found in ((lab_fabric.devices, findings), ([], []), (lab_fabric.devices, findings[:-1])):
        with pytest.raises(
            DrainWithheld, match=r"cannot judge whom to drain: .* could not be collected or read"
        ):
            target.write(lab_fabric, found, "test", audited, limit=DrainLimit("100%"))
    assert not (tmp_path / "drain.json").exists()
    # One unreachable device is not a dead lab: the list is written.
    plan = target.write(lab_fabric, findings[:1] + findings[-1:], "test", lab_fabric.devices)
    assert list(plan.drain) == ["gpu01"]
