"""Live audits through Nornir and netmiko over real SSH to the in-process lab (no mocked connections)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netcfg.audit import run_audit
from netcfg.cli import main
from netcfg.collect import CollectOptions, Selection, collect
from netcfg.drift import drift, snapshot_drift
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.model import DeviceState
from netcfg.nornir_inventory import Login, read_connections
from netcfg.platforms.simulator import simulator
from netcfg.snapshot import read_device_file
from netcfg.sources import snapshot_states, unchanged_devices
from tests.conftest import LAB
from tests.live_lab import cli_session, drain_list
from tests.test_internal import DEMO_FINDINGS

PASSWORD = "s3cret-Lab-pass"
LOGIN = Login("auditor", PASSWORD)

# One fault of every kind, each on its own device; the rule that must name that device.
FAULTS = {
    "leaf-su1-r1": (DeviceFaults(mtu={"Ethernet2": 1500}), "mtu.switch"),
    "leaf-su1-r2": (DeviceFaults(dscp_map={26: 1}), "qos.dscp_map"),
    "leaf-su1-r3": (DeviceFaults(pfc_priority=4), "pfc.no_drop_priorities"),
    "leaf-su1-r4": (DeviceFaults(transport="truncate"), "parse.unknown_output"),
    "leaf-su2-r1": (DeviceFaults(transport="garble"), "parse.unknown_output"),
    "leaf-su2-r2": (DeviceFaults(ecn=False), "ecn.enabled"),
    "leaf-su2-r3": (DeviceFaults(transport="auth_fail"), "collect.auth"),
    "leaf-su2-r4": (DeviceFaults(transport="silent"), "collect.timeout"),
    "spine2": (DeviceFaults(os_version="4.28.9M"), "firmware.allowed"),
    "gpu01": (DeviceFaults(trust="pcp"), "qos.trust"),
    "gpu02": (DeviceFaults(firmware="28.39.1002"), "firmware.rail_skew"),
    "gpu03": (DeviceFaults(lldp={"eth1": "leaf-su1-r1:Ethernet9"}), "cabling.wrong_neighbor"),
    "gpu04": (DeviceFaults(transport="unreachable"), "collect.unreachable"),
}
SLOW = {"spine1": DeviceFaults(slow_s=0.2)}
HEALTHY = {"spine1", "gpu05", "gpu06", "gpu07", "gpu08"}
OPTS = CollectOptions(workers=20, timeout_s=2.0)


@pytest.fixture(scope="module")
def faulty_lab(lab_fabric, lab_policy, tmp_path_factory):
    faults = {name: f for name, (f, _) in FAULTS.items()} | SLOW
    with lab_server(lab_fabric, lab_policy, faults, LOGIN.username, PASSWORD) as server:
        folder = tmp_path_factory.mktemp("lab")
        connections, known_hosts = write_connection_files(server, folder)
        yield read_connections(connections), known_hosts


@pytest.fixture(scope="module")
def audit(lab_fabric, lab_policy, faulty_lab, tmp_path_factory):
    connections, known_hosts = faulty_lab
    out = tmp_path_factory.mktemp("audit")
    opts = CollectOptions(workers=20, timeout_s=2.0, known_hosts=known_hosts)
    return run_audit(
        lab_fabric, lab_policy, LOGIN, out / "snapshots", out / "reports", opts, connections=connections
    )


def test_states_parsed_during_collection_equal_the_saved_snapshot_parsed_again(lab_fabric, audit):
    # The audit checks what the collectors parsed; `netcfg check --snapshot` must see the same.
    assert {name: c.state for name, c in audit.collected.items()} == snapshot_states(
        lab_fabric, audit.snapshot
    )


def test_every_fault_kind_is_found_with_the_right_rule(audit):
    found = {(f.device, f.rule) for f in audit.findings}
    for device, (_, rule) in FAULTS.items():
        assert (device, rule) in found, (
            f"{device}: expected {rule}, got {sorted(r for d, r in found if d == device)}"
        )


def test_garbled_lldp_is_one_unreadable_output_not_a_missing_neighbour_per_port(audit):
    garbled = [f for f in audit.findings if f.device == "leaf-su2-r1"]
    unreadable = {f.expected for f in garbled if f.rule == "parse.unknown_output"}
    assert "readable output of 'show lldp neighbors'" in unreadable
    assert not [f for f in garbled if f.rule.startswith("cabling.")]


def test_healthy_devices_are_unaffected(audit):
    named = {f.device for f in audit.findings}
    assert not named & HEALTHY
    assert named <= set(FAULTS)
    for name in HEALTHY:
        assert audit.collected[name].error is None
    assert audit.collected["spine1"].durations["show_running-config"] >= 0.2


def test_transport_faults_keep_the_rest_of_the_fabric(audit):
    errors = {n: c.error[0] for n, c in audit.collected.items() if c.error}
    assert errors == {"leaf-su2-r3": "auth", "leaf-su2-r4": "timeout", "gpu04": "unreachable"}
    meta = json.loads((audit.snapshot / "meta.json").read_text())
    assert meta["devices"]["gpu04"]["error"]["kind"] == "unreachable"
    # Four NICs x (4 settings + the GID table + the ROCE_ACCL register + 3 link and counter commands)
    # + LLDP, each a line of the device's one file.
    assert len(read_device_file(audit.snapshot / "gpu05.jsonl")) == 37


def test_snapshot_and_reports_hold_no_secret(audit):
    files = [p for p in audit.snapshot.rglob("*") if p.is_file()]
    files += list(audit.reports.values())
    assert files
    for path in files:
        assert PASSWORD not in path.read_text(errors="replace"), path


def test_reports_are_written(audit):
    data = json.loads(audit.reports["json"].read_text())
    assert data["summary"]["devices_checked"] == 18
    assert "| error |" in audit.reports["markdown"].read_text()


def test_drift_between_two_audits(lab_fabric, lab_policy, tmp_path):
    root = tmp_path / "snapshots"
    with lab_server(lab_fabric, lab_policy, {}, LOGIN.username, PASSWORD) as server:
        first, _ = collect(
            lab_fabric, LOGIN, root / "lab" / "1", OPTS, Selection(role="leaf"), _conns(server)
        )
    faults = {"leaf-su2-r2": DeviceFaults(ecn=False), "leaf-su1-r4": DeviceFaults(mtu={"Ethernet1": 1500})}
    with lab_server(lab_fabric, lab_policy, faults, LOGIN.username, PASSWORD) as server:
        second, _ = collect(
            lab_fabric, LOGIN, root / "lab" / "2", OPTS, Selection(role="leaf"), _conns(server)
        )
    changes = drift(snapshot_states(lab_fabric, first), snapshot_states(lab_fabric, second))
    # Only the two changed leaves are parsed again; the answer is the same as parsing everything.
    leaves = {name for name, device in lab_fabric.devices.items() if device.role == "leaf"}
    assert unchanged_devices(first, second) == leaves - set(faults)
    assert snapshot_drift(lab_fabric, first, second) == changes
    assert {(c.device, c.setting) for c in changes} == {
        ("leaf-su1-r4", "Ethernet1.mtu"),
        *{("leaf-su2-r2", f"Ethernet{p}.ecn") for p in (1, 2, 3, 4, 31, 32)},
    }
    mtu = next(c for c in changes if c.setting == "Ethernet1.mtu")
    assert (mtu.before, mtu.after) == ("9214", "1500")


def _conns(server) -> dict:
    return {name: {"hostname": server.host, "port": port} for name, port in server.ports.items()}


def test_cli_audit_twice_reports_drift_and_remediation(lab_fabric, lab_policy, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NETCFG_USERNAME", LOGIN.username)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    common = [
        "--snapshots",
        str(tmp_path / "s"),
        "--reports",
        str(tmp_path / "r"),
        "--timeout",
        "2",
        "--format",
        "json",
        "--role",
        "leaf",
    ]
    with lab_server(lab_fabric, lab_policy, {}, LOGIN.username, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab1")
        assert (
            main(["audit", str(LAB), "--connections", str(conns), "--known-hosts", str(known), *common]) == 0
        )
    capsys.readouterr()
    faults = {"leaf-su1-r3": DeviceFaults(pfc_priority=4)}
    with lab_server(lab_fabric, lab_policy, faults, LOGIN.username, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab2")
        assert (
            main(["audit", str(LAB), "--connections", str(conns), "--known-hosts", str(known), *common]) == 1
        )
    out = capsys.readouterr().out
    report = json.loads(out)
    assert report["summary"]["drift_changes"] == 6
    # The report folder's page of the second audit lists the same changes, and the first had none.
    first, second = sorted((tmp_path / "r" / "lab").glob("*.html"))
    assert "No earlier audit to compare with." in first.read_text()
    page = second.read_text().split("id=drift>", 1)[1].split("</table>", 1)[0]
    assert page.count("<tr>") == 1 + 6 and "<td>leaf-su1-r3<td>Ethernet1.no_drop_priorities" in page
    # The audit read only the previous audit's counters while collecting, and the settings of the
    # device that changed after: its drift is what `netcfg drift` finds parsing both snapshots whole.
    saved = json.loads(sorted((tmp_path / "r" / "lab").glob("*.json"))[1].read_text())["drift"]
    snapshots = sorted(p for p in (tmp_path / "s" / "lab").iterdir() if not p.name.startswith("."))
    assert saved == [c.as_dict() for c in drift(*(snapshot_states(lab_fabric, s) for s in snapshots))]
    assert {f["device"] for f in report["findings"] if f["severity"] == "error"} == {"leaf-su1-r3"}
    assert [f["rule"] for f in report["findings"] if f["severity"] == "info"] == ["state.missing"]
    snapshot = Path(report["summary"]["snapshot"])
    assert main(["diff", str(LAB), "--snapshot", str(snapshot)]) == 1
    diff = capsys.readouterr().out
    assert "-   priority-flow-control priority 4 no-drop" in diff
    assert "+   priority-flow-control priority 3 no-drop" in diff
    assert "no priority-flow-control priority 4 no-drop" in diff
    assert "1 switch(es) differ from intent" in diff


def test_a_changed_host_key_is_refused_as_collect_auth(lab_fabric, lab_policy, tmp_path):
    """known_hosts holds another key of the same type for the very [127.0.0.1]:port of each spine,
    as a man in the middle would present it: refused before logging in, reported as collect.auth."""
    import asyncssh

    impostor = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().split()[:2]
    with lab_server(lab_fabric, lab_policy, {}, LOGIN.username, PASSWORD) as server:
        _, known = write_connection_files(server, tmp_path / "lab")
        genuine = known.read_text().splitlines()
        known.write_text("".join(f"{line.split()[0]} {' '.join(impostor)}\n" for line in genuine))
        opts = CollectOptions(workers=4, timeout_s=2.0, known_hosts=known)
        audit = run_audit(
            lab_fabric,
            lab_policy,
            LOGIN,
            tmp_path / "s",
            tmp_path / "r",
            opts,
            Selection(role="spine"),
            _conns(server),
        )
    assert {line.split()[1] for line in genuine} == {impostor[0]}  # same key type, another key
    spines = [f for f in audit.findings if f.device != "(fabric)"]
    assert {(f.device, f.rule) for f in spines} == {("spine1", "collect.auth"), ("spine2", "collect.auth")}
    assert all("differs from known_hosts" in f.message for f in spines)
    assert all(c.outputs == {} for c in audit.collected.values())


def test_output_larger_than_one_read_is_collected_whole(lab_fabric, lab_policy):
    """A running config holding the hostname and longer than one 64 KiB read arrives complete."""
    from netcfg.collect import send
    from netcfg.lab.profile import LabDevice
    from netcfg.lab.sshserver import LabServer

    body = "".join(f"interface Ethernet{i}\n   description spine1:Ethernet{i}\n!\n" for i in range(1, 3000))
    text = f"hostname spine1\n{body}end"
    device = LabDevice("spine1", simulator("eos").cli_profile, {"show running-config": text}.get)
    with (
        LabServer([device], username=LOGIN.username, password=PASSWORD) as server,
        cli_session("arista_eos", server.ports["spine1"], LOGIN) as conn,
    ):
        out = send(conn, "show running-config", 5)
    assert len(text) > 65536
    assert out.strip().splitlines() == text.splitlines()


def test_colour_codes_are_stripped_and_plain_output_kept_over_ssh(lab_fabric, lab_policy):
    """Collection's session strips the terminal codes netmiko strips, and leaves text without them."""
    from netcfg.collect import send
    from netcfg.lab.profile import LabDevice
    from netcfg.lab.sshserver import LabServer

    coloured = "\x1b[00;32mEthernet1\x1b[0m is up\n\x1b[KEthernet2 is down\x1b[2K\n"
    plain = "Ethernet1 is up, line protocol is up (connected)\n  Hardware is Ethernet [x]\n"
    replies = {"show interfaces": coloured, "show version": plain}
    device = LabDevice("spine1", simulator("eos").cli_profile, replies.get)
    with (
        LabServer([device], username=LOGIN.username, password=PASSWORD) as server,
        cli_session("arista_eos", server.ports["spine1"], LOGIN) as conn,
    ):
        outputs = {cli: send(conn, cli, 5) for cli in replies}
    assert outputs["show interfaces"].strip().splitlines() == ["Ethernet1 is up", "Ethernet2 is down"]
    assert outputs["show version"].strip().splitlines() == plain.strip().splitlines()


@given(st.text(alphabet="\x1b[]0123456789;?HKJmlhABCDELMncx \n\r", max_size=60))
def test_stripping_terminal_codes_equals_netmikos(text: str):
    from netmiko import BaseConnection

    from netcfg.collect import session_class

    for device_type in ("arista_eos", "linux", "cisco_nxos"):
        session = object.__new__(session_class(device_type))
        session.RETURN = "\n"
        assert session.strip_ansi_escape_codes(text) == BaseConnection.strip_ansi_escape_codes(session, text)


def test_prompt_pattern_needs_the_prompt_at_the_end():
    import re

    from netcfg.collect import prompt_pattern

    pattern = prompt_pattern("spine1")
    assert (
        re.search(pattern, "hostname spine1\ninterface Ethernet1\n   description spine1:Ethernet1\n") is None
    )
    assert re.search(pattern, "interface Ethernet1\n!\nend\nspine1#")
    assert re.search(prompt_pattern("admin@gpu01:~"), "eth0: ok\nadmin@gpu01:~$ ")


def test_collection_split_over_processes_matches_one_process(lab_fabric, lab_policy, tmp_path):
    faults = {"leaf-su1-r3": DeviceFaults(pfc_priority=4), "gpu08": DeviceFaults(transport="unreachable")}
    with lab_server(lab_fabric, lab_policy, faults, LOGIN.username, PASSWORD) as server:
        conns = _conns(server)
        one, found_one = collect(lab_fabric, LOGIN, tmp_path / "one", OPTS, connections=conns)
        # With the lab's thread in this process, the collector processes are spawned.
        two_opts = CollectOptions(workers=4, processes=2, timeout_s=2.0)
        two, found_two = collect(lab_fabric, LOGIN, tmp_path / "two", two_opts, connections=conns)
        # The CLI has no other thread, so there they are forked.
        conns_file, known = write_connection_files(server, tmp_path / "lab")
        env = os.environ | {"NETCFG_USERNAME": LOGIN.username, "NETCFG_PASSWORD": PASSWORD}
        cli = [sys.executable, "-m", "netcfg", "collect", str(LAB), "-o", str(tmp_path / "forked")]
        cli += ["--processes", "2", "--workers", "4", "--timeout", "2"]
        cli += ["--connections", str(conns_file), "--known-hosts", str(known)]
        run = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr  # gpu08 is unreachable
    assert set(found_two) == set(lab_fabric.devices)
    errors = {n: f.error and f.error[0] for n, f in found_one.items()}
    assert {n: f.error and f.error[0] for n, f in found_two.items()} == errors
    forked = json.loads((tmp_path / "forked" / "meta.json").read_text())["devices"]
    assert {n: d["error"] and d["error"]["kind"] for n, d in forked.items()} == errors
    # Counters move between two collections of the lab (as on a fabric that carries traffic).
    first = settings(snapshot_states(lab_fabric, one))
    assert settings(snapshot_states(lab_fabric, two)) == first
    assert settings(snapshot_states(lab_fabric, tmp_path / "forked")) == first


def settings(states: dict[str, DeviceState]) -> dict[str, DeviceState]:
    return {name: dataclasses.replace(state, counters={}) for name, state in states.items()}


@pytest.mark.parametrize("processes", [1, 2])
def test_progress_bar_counts_every_device(lab_fabric, lab_policy, tmp_path, monkeypatch, processes):
    import io

    from rich.console import Console
    from rich.progress import Progress

    bars: list[Progress] = []

    def progress() -> Progress:
        bars.append(Progress(console=Console(file=io.StringIO(), force_terminal=True), transient=True))
        return bars[-1]

    monkeypatch.setattr("netcfg.collect._progress", progress)
    faults = {"gpu08": DeviceFaults(transport="unreachable")}
    opts = CollectOptions(workers=4, processes=processes, timeout_s=2.0, progress=True)
    with lab_server(lab_fabric, lab_policy, faults, LOGIN.username, PASSWORD) as server:
        _, found = collect(lab_fabric, LOGIN, tmp_path / "snap", opts, connections=_conns(server))
    assert set(found) == set(lab_fabric.devices)
    (task,) = bars[0].tasks
    assert task.completed == task.total == len(lab_fabric.devices)


def test_demo_names_exactly_the_seeded_faults(tmp_path, capsys):
    """`make demo`: the live audit of the lab finds each fault of faults.yaml, and nothing else."""
    assert main(["demo", str(LAB), "--out", str(tmp_path), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {(f["device"], f["rule"]) for f in report["findings"]} == DEMO_FINDINGS
    assert len(report["findings"]) == len(DEMO_FINDINGS)
    # Its drain list drains the hosts with faults of their own; gpu08 (itself unreachable: unknown)
    # is only behind leaf-su2-r2's ECN and spine2's NOS, and is named as impacted.
    assert drain_list(tmp_path / "drain-list.sh") == (
        ["gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06", "gpu07"],
        ["gpu08"],
    )


def test_nornir_inventory_plugin_for_users_scripts(monkeypatch):
    from nornir import InitNornir

    monkeypatch.setenv("NETCFG_USERNAME", LOGIN.username)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    nr = InitNornir(
        inventory={"plugin": "NetcfgInventory", "options": {"inventory": str(LAB)}},
        logging={"enabled": False},
    )
    assert len(nr.inventory.hosts) == 18
    leaf = nr.inventory.hosts["leaf-su2-r3"]
    assert (leaf.platform, leaf.data["rail"], leaf.data["su"]) == ("arista_eos", 3, 2)
    assert {g.name for g in leaf.groups} == {"leaf", "rail-3", "su-2"}
    assert nr.inventory.hosts["gpu05"].platform == "linux"
    assert len(nr.filter(filter_func=lambda h: "rail-1" in h.groups).inventory.hosts) == 2


def test_cabling_is_checked_from_the_leaf_when_the_server_agrees(lab_fabric, lab_policy):
    from netcfg.checks.runner import run_checks
    from netcfg.lab.devices import apply_faults, live_states

    states = live_states(lab_fabric, lab_policy)
    states["leaf-su1-r2"] = apply_faults(
        states["leaf-su1-r2"],
        DeviceFaults(lldp={"Ethernet3": "gpu04:eth1"}),
        lab_fabric.devices["leaf-su1-r2"],
    )
    findings = [f for f in run_checks(lab_fabric, lab_policy, states) if f.rule == "cabling.wrong_neighbor"]
    assert [(f.device, f.interface, f.expected, f.actual) for f in findings] == [
        ("leaf-su1-r2", "Ethernet3", "gpu03:eth1", "gpu04:eth1")
    ]


def test_missing_credentials_name_the_inventory_and_variables(monkeypatch, capsys):
    monkeypatch.delenv("NETCFG_USERNAME", raising=False)
    monkeypatch.delenv("NETCFG_PASSWORD", raising=False)
    assert main(["audit", str(LAB), "--no-host-key-check"]) == 2
    err = capsys.readouterr().err
    assert "fabric.yaml: credentials" in err and "NETCFG_USERNAME" in err and "NETCFG_PASSWORD" in err
    assert "Traceback" not in err
