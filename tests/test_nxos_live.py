"""A live audit of an all-NX-OS copy of the lab, through Nornir and netmiko (`cisco_nxos`) over real
SSH to the in-process lab: it names exactly the seeded faults."""

from __future__ import annotations

import pytest

from netcfg.audit import run_audit
from netcfg.collect import CollectOptions
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.nornir_inventory import Login, read_connections
from netcfg.policy import load_policy
from netcfg.snapshot import read_device_outputs
from netcfg.sources import snapshot_states
from tests.test_nxos import write_nxos_lab

PASSWORD = "nx-Lab-s3cret"
LOGIN = Login("auditor", PASSWORD)
# One fault of each kind on its own switch; every rule that must name that switch.
FAULTS = {
    "leaf-su1-r1": (DeviceFaults(mtu={"Ethernet1/2": 1500}), {"mtu.switch", "link.mtu_mismatch"}),
    "leaf-su1-r2": (DeviceFaults(dscp_map={26: 1}), {"qos.dscp_map", "link.dscp_mismatch"}),
    "leaf-su1-r3": (
        # Its ports pause 4, the priority RoCE's class is paused on: qos.dscp_map says so once.
        DeviceFaults(pfc_pause_priority={3: 4}),
        {"qos.dscp_map", "link.pfc_mismatch"},
    ),
    "leaf-su1-r4": (DeviceFaults(transport="truncate"), {"parse.unknown_output"}),
    "leaf-su2-r1": (DeviceFaults(trust="pcp"), {"qos.trust", "link.trust_mismatch"}),
    "leaf-su2-r2": (DeviceFaults(ecn=False), {"ecn.enabled"}),
    "leaf-su2-r3": (DeviceFaults(transport="garble"), {"parse.unknown_output"}),
    "leaf-su2-r4": (DeviceFaults(watchdog_off=["Ethernet1/3"]), {"pfc.watchdog"}),
    "spine2": (DeviceFaults(os_version="9.3(15)"), {"firmware.allowed"}),
}


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    lab = write_nxos_lab(tmp_path_factory.mktemp("nxos-lab"))
    fabric = load_fabric(lab)
    policy = load_policy(fabric.policy_ref, lab)
    faults = {name: fault for name, (fault, _) in FAULTS.items()}
    out = tmp_path_factory.mktemp("audit")
    with lab_server(fabric, policy, faults, LOGIN.username, PASSWORD) as server:
        connections, known_hosts = write_connection_files(server, out / "lab")
        opts = CollectOptions(workers=20, timeout_s=2.0, known_hosts=known_hosts)
        result = run_audit(
            fabric,
            policy,
            LOGIN,
            out / "snapshots",
            out / "reports",
            opts,
            connections=read_connections(connections),
        )
    return fabric, result


def test_the_audit_names_exactly_the_seeded_faults(audit):
    _, result = audit
    found: dict[str, set[str]] = {}
    for f in result.findings:
        found.setdefault(f.device, set()).add(f.rule)
    assert set(found) == set(FAULTS)
    for device, (_, rules) in FAULTS.items():
        assert rules <= found[device], f"{device}: expected {sorted(rules)}, got {sorted(found[device])}"
    assert all(c.error is None for c in result.collected.values())


def test_damaged_outputs_are_one_unknown_each_not_a_list_of_errors(audit):
    _, result = audit
    for device in ("leaf-su1-r4", "leaf-su2-r3"):
        rules = {f.rule for f in result.findings if f.device == device}
        assert rules == {"parse.unknown_output"}, device
    garbled = {f.expected for f in result.findings if f.device == "leaf-su2-r3"}
    assert garbled == {
        "readable output of 'show version'",
        "readable output of 'show running-config'",
        "readable output of 'show interface priority-flow-control'",
        "readable output of 'show lldp neighbors detail'",
        "readable output of 'show interface'",
        "readable output of 'show interface counters errors'",
        "readable output of 'show queuing interface'",
        "readable output of 'show queuing pfc-queue detail'",
    }


def test_the_seeded_values_are_read_as_the_switch_runs_them(audit):
    fabric, result = audit
    states = snapshot_states(fabric, result.snapshot)
    assert states == {name: c.state for name, c in result.collected.items()}
    assert states["leaf-su1-r1"].interfaces["Ethernet1/2"].mtu == 1500
    assert states["leaf-su1-r3"].tc_pfc == {3: 4}
    assert states["leaf-su1-r3"].interfaces["Ethernet1/1"].no_drop_priorities == frozenset({4})
    assert states["leaf-su2-r1"].interfaces["Ethernet1/1"].trust == "cos"
    assert (states["spine2"].os_version, states["spine2"].model) == ("9.3(15)", "Nexus9000 C9364D-GX2A")


def test_snapshot_holds_no_secret(audit):
    _, result = audit
    running = read_device_outputs(result.snapshot / "spine1.jsonl")["show_running-config"]
    assert "username admin password 5 <masked>  role network-admin" in running
    assert "auth md5 <masked> priv <masked>" in running
    files = list(result.snapshot.glob("*.jsonl"))
    assert files
    for path in files:
        text = path.read_text(errors="replace")
        assert PASSWORD not in text and "$5$" not in text, path


def test_netmiko_cisco_nxos_drives_a_lab_switch_as_a_nexus(tmp_path):
    """netmiko's own cisco_nxos session (its session preparation sends `terminal width 511` and
    `terminal length 0` and waits for their echo) against a lab switch: NX-OS prompt and replies,
    and a configuration command refused as NX-OS refuses an unknown one."""
    from netmiko import ConnectHandler

    lab = write_nxos_lab(tmp_path / "lab")
    fabric = load_fabric(lab)
    policy = load_policy(fabric.policy_ref, lab)
    with lab_server(fabric, policy, {}, LOGIN.username, PASSWORD) as server:
        conn = ConnectHandler(
            device_type="cisco_nxos",
            host=server.host,
            port=server.ports["leaf-su1-r1"],
            username=LOGIN.username,
            password=PASSWORD,
            fast_cli=True,
            global_delay_factor=0.05,
            read_timeout_override=5,
        )
        try:
            prompt = conn.find_prompt()
            version = conn.send_command("show version")
            pfc = conn.send_command("show interface priority-flow-control")
            refused = conn.send_command("configure terminal")
        finally:
            conn.disconnect()
    assert prompt == "leaf-su1-r1#"
    assert "NXOS: version 10.4(3) [Maintenance Release]" in version
    assert "Ethernet1/31       On   On  (8)" in pfc
    assert "% Invalid command at '^' marker." in refused
