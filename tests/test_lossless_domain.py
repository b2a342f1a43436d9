"""The lossless domain across devices: the planned NIC-to-NIC paths, judged on real configs."""

from __future__ import annotations

import json
import re

from netcfg.cli import main
from netcfg.model import Device, Role
from netcfg.platforms import get_platform
from tests.conftest import ROOT
from tests.demo_run import demo_report

LAB = ROOT / "inventories" / "lab-deadlock" / "shared-asn.yaml"
FIXTURES = ROOT / "tests" / "fixtures"


def _lossless(capsys, configs) -> tuple[int, list[dict]]:
    capsys.readouterr()
    code = main(["lossless", str(LAB), "--configs", str(configs), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def _edit(path, block: str, new: str) -> None:
    """Replace one interface block of an EOS config (up to its `!`)."""
    text = path.read_text(encoding="utf-8")
    edited, count = re.subn(rf"interface {block}\n(   .*\n)*!\n", new, text)
    assert count == 1
    path.write_text(edited, encoding="utf-8")


def test_one_lossy_spine_port_is_one_path_finding_naming_both_ends(tmp_path, capsys):
    assert main(["render", str(LAB), "-o", str(tmp_path)]) == 0
    assert _lossless(capsys, tmp_path) == (0, [])
    # The port keeps its routed config and the RoCE class, with PFC turned off on it.
    _edit(
        tmp_path / "spine1.cfg",
        "Ethernet3",
        "interface Ethernet3\n   mtu 9214\n   no switchport\n   service-profile ROCE_LOSSLESS\n"
        "   priority-flow-control off\n!\n",
    )
    code, findings = _lossless(capsys, tmp_path)
    assert code == 1
    paths = [f for f in findings if f["rule"] == "lossless.path"]
    assert [(f["device"], f["interface"], f["actual"]) for f in paths] == [("spine1", "Ethernet3", "PFC off")]
    assert (
        "PFC off at spine1:Ethernet3 (its link's far end leaf-su1-r3:Ethernet31: lossless)"
        in (paths[0]["message"])
    )


def test_a_port_the_config_does_not_show_gives_no_path_verdict(tmp_path, capsys):
    assert main(["render", str(LAB), "-o", str(tmp_path)]) == 0
    _edit(tmp_path / "spine1.cfg", "Ethernet4", "")
    code, findings = _lossless(capsys, tmp_path)
    assert "lossless.path" not in {f["rule"] for f in findings}
    # What is unknown is said by the rule for it, once, and is not a pass.
    assert code == 1 and {f["rule"] for f in findings} <= {"parse.incomplete", "state.missing"}


def _switched(platform: str, text: str) -> dict[str, bool | None]:
    state = get_platform(platform).parse_config(text, Device("leaf1", Role.LEAF, platform))
    assert not state.unparsed, state.unparsed
    return {name: port.switched for name, port in state.interfaces.items()}


def test_eos_ports_switch_unless_no_switchport_and_members_follow_their_channel():
    ports = _switched("eos", (FIXTURES / "eos" / "running_config_production.cfg").read_text(encoding="utf-8"))
    assert ports["Port-Channel10"] is True  # `switchport mode trunk`
    assert ports["Ethernet4"] is True  # shut, but still a switchport in VLAN 1 (EOS's default)
    assert ports["Ethernet1"] is ports["Ethernet31"] is False  # `no switchport`
    assert ports["Ethernet34"] is None  # `channel-group 10`: forwards as Port-Channel10
    assert ports["Management1"] is ports["Loopback0"] is None


def test_nxos_ports_switch_only_where_a_switchport_line_says_so():
    text = (
        "!Command: show running-config\nversion 10.3(4a) Bios:version 05.47\nhostname leaf1\n"
        "interface Ethernet1/1\n  switchport\n  switchport mode trunk\n  switchport trunk allowed vlan 711\n"
        "  priority-flow-control mode on\n\ninterface Ethernet1/2\n  mtu 9216\n  no switchport\n"
        "  ip address 10.1.0.0/31\n\ninterface Ethernet1/3\n  description spare\n\n"
        "interface mgmt0\n  vrf member management\n"
    )
    ports = _switched("nxos", text)
    # Without a line the mode is `system default switchport`'s, which differs by model: unknown.
    assert (ports["Ethernet1/1"], ports["Ethernet1/2"], ports["Ethernet1/3"]) == (True, False, None)


def test_cumulus_ports_route_unless_a_bridge_domain_takes_them_and_bond_members_follow_the_bond():
    text = (
        "nv set interface swp1-4 type swp\nnv set interface swp1-2 bridge domain br_default\n"
        "nv set interface swp1 bridge domain br_default access 10\nnv set interface bond1 bond member swp3\n"
        "nv set interface bond1 bridge domain br_default\nnv set interface swp4 ip address 10.1.0.1/31\n"
        "nv set interface eth0 ip vrf mgmt\n"
    )
    ports = _switched("cumulus", text)
    assert (ports["swp1"], ports["swp2"], ports["swp3"], ports["swp4"]) == (True, True, None, False)
    assert ports["eth0"] is None


def test_sonic_vlan_members_switch_channel_members_follow_the_channel_and_a_fragment_says_nothing():
    db = json.loads((FIXTURES / "sonic" / "config_db_t0_vlan.json").read_text(encoding="utf-8"))
    ports = _switched("sonic", json.dumps(db, indent=4))
    assert (ports["Ethernet0"], ports["Ethernet4"], ports["Ethernet8"]) == (True, None, False)
    fragment = {"PORT_QOS_MAP": db["PORT_QOS_MAP"]}
    assert set(_switched("sonic", json.dumps(fragment, indent=4)).values()) == {None}


def test_junos_units_of_ethernet_switching_switch_and_inet_routes_through_ranges_too():
    text = (
        "set version 23.4R2-S3.5-EVO\nset system host-name leaf1\n"
        'set interfaces interface-range HOSTS member "et-0/0/[0-1]"\n'
        "set interfaces interface-range HOSTS unit 0 family ethernet-switching vlan members GPU\n"
        "set interfaces et-0/0/2 unit 0 family inet address 10.1.0.1/31\n"
        "set interfaces et-0/0/3 description spare\n"
        "set class-of-service interfaces et-0/0/3 scheduler-map SM\n"
    )
    ports = _switched("junos", text)
    assert (ports["et-0/0/0"], ports["et-0/0/1"], ports["et-0/0/2"], ports["et-0/0/3"]) == (
        True,
        True,
        False,
        None,
    )


MULTI = ROOT / "inventories" / "lab-multi"


def test_the_domain_faults_of_the_mixed_lab_are_named_exactly_once_per_platform(tmp_path):
    report = demo_report(MULTI, tmp_path, "--faults", str(MULTI / "domain.yaml"))
    assert sorted((f["rule"], f["device"], f["interface"]) for f in report["findings"]) == [
        # A port cabled to a device outside the plan (LLDP names it) that pauses the RoCE priority.
        ("lossless.boundary", "leaf-su1-r1", "Ethernet33"),  # EOS
        ("lossless.boundary", "leaf-su1-r2", "swp33"),  # Cumulus
        ("lossless.boundary", "leaf-su1-r3", "Ethernet128"),  # SONiC
        ("lossless.boundary", "leaf-su1-r4", "Ethernet1/33"),  # NX-OS
        ("lossless.boundary", "spine1", "et-0/0/9"),  # Junos
        ("lossless.boundary", "spine2", "Ethernet9"),  # EOS spine
        # A port that pauses in a switched segment.
        ("lossless.flooding", "leaf-su2-r1", "Ethernet1"),  # EOS
        ("lossless.flooding", "leaf-su2-r2", "swp2"),  # Cumulus
        ("lossless.flooding", "leaf-su2-r3", "Ethernet3"),  # SONiC
        ("lossless.flooding", "leaf-su2-r4", "Ethernet1/4"),  # NX-OS
        ("lossless.flooding", "spine1", "et-0/0/1"),  # Junos
        # A switch that re-marks RoCE on every port it leaves by: one path finding for the hop.
        ("lossless.path", "leaf-su1-r2", "swp1-4,31-32"),  # Cumulus qos remark
        ("lossless.path", "leaf-su2-r3", "Ethernet1-4,31-32"),  # SONiC TC_TO_DSCP_MAP
        ("lossless.path", "leaf-su2-r4", "Ethernet1/1-4,31-32"),  # NX-OS set dscp
        ("lossless.path", "spine1", "et-0/0/1-8"),  # Junos rewrite-rules
        ("lossless.path", "spine2", "Ethernet1-8"),  # EOS qos rewrite dscp
        # The watchdog judged on a pausing port outside the plan too.
        ("pfc.watchdog", "leaf-su1-r1", "Ethernet33"),
    ]
    boundary = next(f for f in report["findings"] if f["interface"] == "Ethernet128")
    assert "toward storage2:eth1 (seen by LLDP)" in boundary["message"]
    remarked = {f["device"]: f["actual"] for f in report["findings"] if f["rule"] == "lossless.path"}
    assert remarked == {
        "leaf-su1-r2": "re-marks DSCP 26 to 18",
        "leaf-su2-r3": "re-marks DSCP 26 to 10",
        "leaf-su2-r4": "re-marks DSCP 26 to 0",
        "spine1": "re-marks DSCP 26 to 34",
        "spine2": "re-marks DSCP 26 to 24",
    }


def _rewrites(platform: str, text: str) -> dict[str, dict | None]:
    state = get_platform(platform).parse_config(text, Device("leaf1", Role.LEAF, platform))
    assert not state.unparsed, state.unparsed
    return {name: port.dscp_rewrite for name, port in state.interfaces.items()}


def test_eos_rewrites_only_where_qos_rewrite_dscp_is_on_and_an_unmapped_class_is_unknown():
    base = (FIXTURES / "eos" / "running_config_production.cfg").read_text(encoding="utf-8")
    assert _rewrites("eos", base)["Ethernet1"] == {}
    on = base.replace("\nend", "\nqos rewrite dscp\nqos map traffic-class 3 to dscp 24\nend")
    rewrite = _rewrites("eos", on)["Ethernet1"]
    assert rewrite is not None and rewrite[3] == 24
    # Classes without a line take EOS's default rewrite map, which the config does not show.
    assert rewrite[1] is None
    # A DSCP EOS would refuse is an unreadable config, named at its line.
    bad = on.replace("to dscp 24", "to dscp 99")
    state = get_platform("eos").parse_config(bad, Device("leaf1", Role.LEAF, "eos"))
    (why,) = state.unparsed.values()
    assert "'qos map traffic-class 3 to dscp 99'" in why
    assert bad.splitlines()[state.locations["running-config"] - 1] == "qos map traffic-class 3 to dscp 99"


def test_sonic_rewrites_by_the_tc_to_dscp_map_a_port_binds():
    db = json.loads((FIXTURES / "sonic" / "config_db_t0_vlan.json").read_text(encoding="utf-8"))
    db["TC_TO_DSCP_MAP"] = {"REMARK": {"3": "24", "4": "24"}}
    db["PORT_QOS_MAP"] = {
        "Ethernet0": {**db["PORT_QOS_MAP"]["Ethernet0,Ethernet4,Ethernet8"], "tc_to_dscp_map": "REMARK"},
        "Ethernet4": db["PORT_QOS_MAP"]["Ethernet0,Ethernet4,Ethernet8"],
        "Ethernet8": {"tc_to_dscp_map": "UNDEFINED"},
    }
    ports = _rewrites("sonic", json.dumps(db, indent=4))
    assert (ports["Ethernet0"], ports["Ethernet4"], ports["Ethernet8"]) == ({3: 24, 4: 24}, {}, None)


def test_junos_rewrites_by_the_rule_a_unit_binds_and_default_is_unknown():
    text = (
        "set version 23.4R2-S3.5-EVO\nset system host-name leaf1\n"
        "set class-of-service forwarding-classes class ROCE queue-num 3 no-loss pfc-priority 3\n"
        "set class-of-service classifiers dscp ROCE-DSCP forwarding-class ROCE loss-priority low "
        "code-points 011010\n"
        "set class-of-service rewrite-rules dscp REMARK forwarding-class ROCE loss-priority low "
        "code-point 011000\n"
        "set class-of-service interfaces et-0/0/0 unit * classifiers dscp ROCE-DSCP\n"
        "set class-of-service interfaces et-0/0/0 unit 0 rewrite-rules dscp REMARK\n"
        "set class-of-service interfaces et-0/0/1 unit * classifiers dscp ROCE-DSCP\n"
        "set class-of-service interfaces et-0/0/2 unit 0 rewrite-rules dscp default\n"
    )
    ports = _rewrites("junos", text)
    assert (ports["et-0/0/0"], ports["et-0/0/1"], ports["et-0/0/2"]) == ({3: 24}, {}, None)


def test_netcfg_lossless_runs_the_load_balancing_rules_with_the_lossless_ones(tmp_path, capsys):
    lab = ROOT / "inventories" / "lab-lb"
    snapshot = tmp_path / "faulty"
    assert main(["lab", "snapshot", str(lab), "--faults", str(lab / "faults.yaml"), "-o", str(snapshot)]) == 0
    capsys.readouterr()
    assert main(["lossless", str(lab), "--snapshot", str(snapshot), "--format", "json"]) == 1
    rules = {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert {"lb.ecmp_group_mode", "lb.hash_entropy", "lb.tier_seed", "lb.reordering"} <= rules
    assert all(r.startswith(("lb.", "lossless.", "pfc.", "parse.", "state.", "collect.")) for r in rules)


def test_a_production_shaped_eos_leaf_is_clean_and_one_switchport_left_is_named_at_its_block(
    tmp_path, capsys
):
    """Management in a VRF with its static route, a loopback, shut spare ports, a banner holding
    config-like lines, BGP: none of it is a lossless finding."""
    lab = ROOT / "inventories" / "lab"
    assert main(["render", str(lab), "-o", str(tmp_path)]) == 0
    clean = (FIXTURES / "eos" / "running_config_clean_leaf.cfg").read_text(encoding="utf-8")
    leaf = tmp_path / "leaf-su1-r1.cfg"
    leaf.write_text(clean, encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(lab), "--configs", str(tmp_path), "--format", "json"]) == 0
    capsys.readouterr()
    leaf.write_text(clean.replace("gpu02:eth0\n   mtu 9214\n   no switchport\n", "gpu02:eth0\n   mtu 9214\n"))
    assert main(["lossless", str(lab), "--configs", str(tmp_path), "--format", "json"]) == 1
    found = [(f["rule"], f["interface"], f["line"]) for f in json.loads(capsys.readouterr().out)["findings"]]
    block = clean.splitlines().index("interface Ethernet2") + 1
    assert found == [("lossless.flooding", "Ethernet2", block)]


def test_cumulus_rewrites_where_a_remark_profile_rewrites_layer_3():
    base = "nv set interface swp1-3 type swp\nnv set qos roce mode lossless\n"
    assert list(_rewrites("cumulus", base).values()) == [{}, {}, {}]
    l2 = base + "nv set qos remark default-global rewrite l2\n"
    assert _rewrites("cumulus", l2)["swp1"] == {}
    l3 = base + (
        "nv set qos remark default-global rewrite l3\n"
        "nv set qos remark default-global switch-priority 3 dscp 24\n"
        "nv set qos remark OWN rewrite both\nnv set interface swp2 qos remark profile OWN\n"
        "nv set interface swp3 qos remark profile UNDEFINED\n"
    )
    ports = _rewrites("cumulus", l3)
    assert ports["swp1"] is not None and ports["swp1"][3] == 24 and ports["swp1"][1] is None
    assert ports["swp2"] == dict.fromkeys(range(8)) and ports["swp3"] is None


def test_nxos_rewrites_by_the_set_dscp_of_the_class_a_port_classifies_into():
    text = (
        "!Command: show running-config\nversion 10.3(4a) Bios:version 05.47\nhostname leaf1\n"
        "class-map type qos match-any ROCE\n  match dscp 26\n"
        "class-map type qos match-any CNP\n  match dscp 48\n"
        "policy-map type qos QOS_IN\n  class ROCE\n    set qos-group 3\n    set dscp 24\n"
        "  class CNP\n    set qos-group 6\npolicy-map type qos PLAIN\n  class ROCE\n    set qos-group 3\n"
        "interface Ethernet1/1\n  service-policy type qos input QOS_IN\n  no switchport\n"
        "interface Ethernet1/2\n  service-policy type qos input PLAIN\n  no switchport\n"
        "interface Ethernet1/3\n  no switchport\n"
    )
    ports = _rewrites("nxos", text)
    assert (ports["Ethernet1/1"], ports["Ethernet1/2"], ports["Ethernet1/3"]) == ({3: 24}, {}, {})


def test_a_domain_fault_on_a_host_is_refused_naming_its_file_and_field(tmp_path, capsys):
    faults = tmp_path / "faults.yaml"
    for fault in ("switched: [eth0]", 'outside: {eth0: "storage1:eth0"}', "dscp_rewrite: {26: 24}"):
        faults.write_text(f"devices:\n  gpu01: {{{fault}}}\n", encoding="utf-8")
        code = main(["lab", "snapshot", str(LAB), "--faults", str(faults), "-o", str(tmp_path / "s")])
        err = capsys.readouterr().err.strip().splitlines()
        key = fault.partition(":")[0]
        assert (
            (code, len(err)) == (2, 1) and f"devices.gpu01.{key}" in err[0] and "expected a switch" in err[0]
        )
        assert err[0].startswith(f"netcfg: error: {faults}: devices.gpu01."), err[0]
