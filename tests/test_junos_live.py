"""An all-Junos copy of the lab audited over real SSH: Nornir and netmiko's juniper_junos driver
against the lab on 127.0.0.1, which plays QFX switches (`user@switch>` prompt, netmiko's session
preparation, every collected command). The audit names exactly the seeded faults."""

from __future__ import annotations

import pytest
from netmiko import ConnectHandler

from netcfg.audit import run_audit
from netcfg.cli import main
from netcfg.collect import CollectOptions
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, read_only_responder, shell_responder, write_connection_files
from netcfg.lab.profile import LabDevice
from netcfg.lab.snapshot import simulated_outputs
from netcfg.lab.sshserver import LabServer
from netcfg.nornir_inventory import Login, read_connections
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator
from netcfg.policy import load_policy
from netcfg.sources import snapshot_states
from tests.test_junos import write_junos_lab

PASSWORD = "Junos-lab-s3cret"
LOGIN = Login("auditor", PASSWORD)
# One fault per device, and the rule that must name it.
FAULTS = {
    "leaf-su1-r1": (DeviceFaults(dscp_unmapped=[26]), "qos.dscp_map"),  # the classifier misses DSCP 26
    "leaf-su1-r2": (DeviceFaults(pfc_priority=4), "pfc.no_drop_priorities"),
    "leaf-su1-r3": (DeviceFaults(ecn=False), "ecn.enabled"),
    "leaf-su1-r4": (DeviceFaults(mtu={"et-0/0/1": 1500}), "mtu.switch"),
    "leaf-su2-r1": (DeviceFaults(trust="pcp"), "qos.trust"),
    "leaf-su2-r2": (DeviceFaults(transport="garble"), "parse.unknown_output"),
    "leaf-su2-r3": (DeviceFaults(transport="truncate"), "parse.unknown_output"),
    "spine1": (DeviceFaults(os_version="21.4R3-S3.4"), "firmware.allowed"),
    "gpu01": (DeviceFaults(lldp={"eth1": "leaf-su2-r2:et-0/0/0"}), "cabling.wrong_neighbor"),
    "gpu03": (DeviceFaults(transport="auth_fail"), "collect.auth"),
}
# A Junos spine without the PFC watchdog: every port of spine2 (filled in from the inventory).
WATCHDOG_OFF = "spine2"
HEALTHY = {"leaf-su2-r4", "gpu02", "gpu04"}


@pytest.fixture(scope="module")
def junos_lab(tmp_path_factory):
    inventory = write_junos_lab(tmp_path_factory.mktemp("inv"))
    fabric = load_fabric(inventory)
    policy = load_policy(str(inventory / "policy.yaml"))
    ports = [local.interface for local, _, _ in fabric.links_of(WATCHDOG_OFF)]
    faults = {name: f for name, (f, _) in FAULTS.items()} | {WATCHDOG_OFF: DeviceFaults(watchdog_off=ports)}
    with lab_server(fabric, policy, faults, LOGIN.username, PASSWORD) as server:
        folder = tmp_path_factory.mktemp("lab")
        connections, known_hosts = write_connection_files(server, folder)
        out = tmp_path_factory.mktemp("audit")
        opts = CollectOptions(workers=14, timeout_s=2.0, known_hosts=known_hosts)
        audit = run_audit(
            fabric,
            policy,
            LOGIN,
            out / "snapshots",
            out / "reports",
            opts,
            connections=read_connections(connections),
        )
    return inventory, fabric, audit


def test_the_audit_names_exactly_the_seeded_faults(junos_lab):
    _, fabric, audit = junos_lab
    found = {(f.device, f.rule) for f in audit.findings}
    expected = {(device, rule) for device, (_, rule) in FAULTS.items()} | {(WATCHDOG_OFF, "pfc.watchdog")}
    # What else each fault shows, on the same device and nowhere else: the peers of a port that
    # pauses priority 4, classifies DSCP 26 nowhere, trusts 802.1p or runs MTU 1500 disagree with it;
    # a leaf differs from the other leaf of its rail (where that one could be read); the paths
    # through a port that pauses the wrong priority are lossy there (one path finding); a port that
    # classifies on 802.1p classifies no DSCP at all; a neighbour table cut short lists too few.
    consequences = {
        ("leaf-su1-r1", "link.dscp_mismatch"),
        ("leaf-su1-r1", "rail.qos_consistency"),
        ("leaf-su1-r2", "link.pfc_mismatch"),
        ("leaf-su1-r2", "lossless.path"),
        ("leaf-su1-r4", "link.mtu_mismatch"),
        ("leaf-su2-r1", "link.dscp_mismatch"),
        ("leaf-su2-r1", "link.trust_mismatch"),
        ("leaf-su2-r1", "qos.dscp_map"),
        ("leaf-su2-r1", "rail.qos_consistency"),
        ("leaf-su2-r3", "cabling.no_neighbor"),
    }
    assert found == expected | consequences
    assert not {device for device, _ in found} & HEALTHY
    for name in HEALTHY | {"leaf-su1-r1", "spine2"}:
        assert audit.collected[name].error is None
    assert {n: c.error[0] for n, c in audit.collected.items() if c.error} == {"gpu03": "auth"}
    assert len(fabric.devices) == 14


def test_unreadable_junos_outputs_are_each_named_once(junos_lab):
    _, _, audit = junos_lab
    unreadable = {(f.device, f.expected) for f in audit.findings if f.rule == "parse.unknown_output"}
    # Link state and counters too: a garbled or cut-short interface listing is one finding each.
    counter_outputs = {
        (device, f"readable output of '{command}'")
        for device in ("leaf-su2-r2", "leaf-su2-r3")
        for command in ("show interfaces extensive", "show interfaces queue")
    }
    assert unreadable == counter_outputs | {
        ("leaf-su2-r2", "readable output of 'show configuration | display set'"),
        ("leaf-su2-r2", "readable output of 'show version'"),
        ("leaf-su2-r2", "readable output of 'show lldp neighbors'"),
        ("leaf-su2-r3", "readable output of 'show configuration | display set'"),
        ("leaf-su2-r3", "readable output of 'show version'"),
    }


def test_what_collectors_parsed_is_what_the_saved_snapshot_gives(junos_lab):
    _, fabric, audit = junos_lab
    assert {n: c.state for n, c in audit.collected.items()} == snapshot_states(fabric, audit.snapshot)
    files = list(audit.snapshot.glob("*.jsonl"))
    assert files and all(PASSWORD not in p.read_text() for p in files)


def test_diff_of_the_audited_snapshot_restores_the_classifier_and_the_watchdog(junos_lab, capsys):
    inventory, _, audit = junos_lab
    capsys.readouterr()
    assert main(["diff", str(inventory), "--snapshot", str(audit.snapshot), "--device", "leaf-su1-r1"]) == 1
    out = capsys.readouterr().out
    assert (
        "set class-of-service classifiers dscp ROCE-DSCP forwarding-class NO-LOSS loss-priority low "
        "code-points 011010"
    ) in out
    assert main(["diff", str(inventory), "--snapshot", str(audit.snapshot), "--device", WATCHDOG_OFF]) == 1
    out = capsys.readouterr().out
    for option in ("poll-interval 100", "detection 2", "recovery 200"):
        assert f"set class-of-service congestion-notification-profile ROCE-30M pfc-watchdog {option}" in out
    assert "delete " not in out.split("commands to restore intent:")[1]


def test_the_lab_switch_answers_netmiko_as_junos_does_and_refuses_configuration(tmp_path):
    """netmiko's juniper_junos session preparation passes, `configure` is refused as Junos refuses
    an unknown command, and nothing changes."""
    inventory = write_junos_lab(tmp_path / "inv")
    fabric = load_fabric(inventory)
    policy = load_policy(str(inventory / "policy.yaml"))
    junos = get_platform("junos")
    outputs = simulated_outputs(fabric, policy, {})["spine1"]
    device = LabDevice(
        "spine1",
        simulator(junos.name).cli_profile,
        read_only_responder(simulator(junos.name), shell_responder(outputs)),
    )
    with LabServer([device], username=LOGIN.username, password=PASSWORD) as server:
        conn = ConnectHandler(
            device_type=junos.netmiko_device_type,
            host=server.host,
            port=server.ports["spine1"],
            username=LOGIN.username,
            password=PASSWORD,
            ssh_strict=False,
            system_host_keys=False,
        )
        try:
            assert conn.base_prompt == "auditor@spine1"
            refused = conn.send_command("configure")
            version = conn.send_command("show version")
        finally:
            conn.disconnect()
    assert refused.strip().endswith("unknown command.")
    assert "Junos: 23.4R2-S3.5-EVO" in version and "Model: qfx5240-64od" in version
