"""Junos (QFX): render, read configs as operators keep them (file:line), read live outputs, mask
secrets, stay read-only, report what Junos cannot express, and remediate with set/delete lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, live_states
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.model import (
    Device,
    DeviceState,
    EcnSetting,
    Endpoint,
    Fabric,
    InterfaceState,
    Link,
    Nic,
    Role,
    Watchdog,
)
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.platforms.junos.remediate import managed_lines
from netcfg.platforms.junos.syntax import read_config
from netcfg.platforms.simulator import simulator
from netcfg.policy import load_policy

JUNOS = get_platform("junos")
FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden" / "junos"
LEAF = Device("leaf1", Role.LEAF, "junos", su=1, rail=1)

# The bundled lab with every switch on Junos (QFX): Junos port names, and a policy (the bundled
# roce-lossless) that allows the lab's Junos release.
INVENTORY = FIXTURES / "junos" / "inventory"


def write_junos_lab(folder: Path, mode: str = "lossless", policy_edits: dict[str, str] | None = None) -> Path:
    """The all-Junos lab in `folder`, its policy in `mode` and with `policy_edits` made."""
    folder.mkdir(parents=True, exist_ok=True)
    policy = (INVENTORY / "policy.yaml").read_text(encoding="utf-8")
    policy = policy.replace("firmware:\n", f"mode: {mode}\nfirmware:\n")
    for old, new in (policy_edits or {}).items():
        assert old in policy, old
        policy = policy.replace(old, new)
    (folder / "policy.yaml").write_text(policy, encoding="utf-8")
    (folder / "fabric.yaml").write_text(
        (INVENTORY / "fabric.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    return folder


def findings(capsys, *args: str) -> tuple[int, list[dict]]:
    rc = main([*args, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)["findings"]


def line_of(path: Path, text: str) -> int:
    (number,) = [n for n, line in enumerate(path.read_text().splitlines(), 1) if line == text]
    return number


# --- render ---------------------------------------------------------------------------------------


def test_a_rendered_leaf_is_the_reviewed_set_file(tmp_path, capsys, update_golden):
    inventory = write_junos_lab(tmp_path / "inv")
    assert main(["render", str(inventory), "-o", str(tmp_path / "out"), "--device", "leaf-su1-r1"]) == 0
    rendered = (tmp_path / "out" / "leaf-su1-r1.set").read_text()
    golden = GOLDEN / "leaf-su1-r1.set"
    if update_golden:
        golden.write_text(rendered)
    assert rendered == golden.read_text()
    assert (
        "set class-of-service forwarding-classes class NO-LOSS queue-num 3 no-loss pfc-priority 3" in rendered
    )
    assert "congestion-notification-profile ROCE-3M input dscp code-point 011010 pfc" in rendered
    assert "congestion-notification-profile ROCE-30M input cable-length 30" in rendered
    assert "output ieee-802.1 code-point 011 flow-control-queue 3" in rendered
    assert "set class-of-service schedulers ROCE-S-STRICT priority strict-high" in rendered


@pytest.mark.parametrize("mode", ["lossless", "lossy"])
def test_the_rendered_intent_passes_its_own_policy(tmp_path, capsys, mode):
    inventory = write_junos_lab(tmp_path / "inv", mode)
    rc, found = findings(capsys, "check", str(inventory))
    assert (rc, found) == (0, [])
    assert main(["render", str(inventory), "-o", str(tmp_path / "out")]) == 0
    spine = (tmp_path / "out" / "spine1.set").read_text()
    # Lossy: ECN marking only, no PFC code point and no watchdog anywhere.
    assert (" pfc\n" in spine, "pfc-watchdog" in spine) == (
        (True, True) if mode == "lossless" else (False, False)
    )
    assert "explicit-congestion-notification" in spine


def test_a_cable_length_is_a_profile_setting_so_each_length_gets_its_profile(tmp_path, capsys):
    inventory = write_junos_lab(tmp_path / "inv")
    assert main(["render", str(inventory), "-o", str(tmp_path / "out"), "--device", "leaf-su2-r1"]) == 0
    text = (tmp_path / "out" / "leaf-su2-r1.set").read_text()
    bindings = {
        line.split()[3]: line.split()[-1]
        for line in text.splitlines()
        if "class-of-service interfaces" in line and "congestion-notification-profile" in line
    }
    assert bindings == {
        "et-0/0/0": "ROCE-3M",
        "et-0/0/1": "ROCE-3M",
        "et-0/0/30": "ROCE-30M",
        "et-0/0/31": "ROCE-30M",
    }


# --- configs as operators keep them ---------------------------------------------------------------


def test_premerge_findings_point_at_the_file_and_line(tmp_path, capsys):
    inventory = write_junos_lab(tmp_path / "inv")
    configs = tmp_path / "configs"
    assert main(["render", str(inventory), "-o", str(configs)]) == 0
    capsys.readouterr()
    leaf, spine = configs / "leaf-su1-r2.set", configs / "spine2.set"
    leaf.write_text(leaf.read_text().replace("interfaces et-0/0/1 mtu 9214", "interfaces et-0/0/1 mtu 1500"))
    # No cable length in the spine's profile: Junos sizes headroom for 100 m.
    spine.write_text(
        spine.read_text().replace(
            "set class-of-service congestion-notification-profile ROCE-30M input cable-length 30\n", ""
        )
    )
    rc, found = findings(capsys, "check", str(inventory), "--configs", str(configs))
    assert rc == 1
    got = {(f["device"], f["rule"], f["interface"], f["file"], f["line"]) for f in found}
    mtu_line = line_of(leaf, "set interfaces et-0/0/1 mtu 1500")
    profile = "set class-of-service congestion-notification-profile ROCE-30M input dscp code-point 011010 pfc"
    assert got == {
        ("leaf-su1-r2", "mtu.switch", "et-0/0/1", str(leaf), mtu_line),
        ("leaf-su1-r2", "link.mtu_mismatch", "et-0/0/1", str(leaf), mtu_line),
        # Where the missing cable length belongs: the profile the ports bind.
        (
            "spine2",
            "pfc.cable_length",
            "et-0/0/0-7",
            str(spine),
            line_of(spine, profile),
        ),
    }
    cable = next(f for f in found if f["rule"] == "pfc.cable_length")
    assert cable["actual"] == "100 m (the platform default)"


def test_a_display_set_config_of_an_apstra_qfx_leaf(lab_policy):
    """The Apstra AI JVD layout as a QFX prints it: NO-LOSS on queue 4 paused on priority 3, CNP on
    queue 3 strict, `et-*` wildcard bindings, fill levels 55/90, no cable length, MTU 9216."""
    state = JUNOS.parse_config((FIXTURES / "junos" / "display_set_apstra_qfx5240.set").read_text(), LEAF)
    assert state.unparsed == {}
    # RoCE (26) follows NO-LOSS: priority 3 on queue 4. CNP's class sits on queue 3, the number the
    # lossless class is paused on, so no honest priority can be given to it: unknown.
    assert state.dscp_map == {26: 3} and state.tc_queue == {3: 4}
    assert state.chain(26).queue == 4
    assert set(state.interfaces) == {"et-0/0/0", "et-0/0/1", "et-0/0/31", "lo0"}
    port = state.interfaces["et-0/0/31"]
    assert (port.mtu, port.trust, port.pfc_enabled, port.no_drop_priorities) == (9216, "dscp", True, {3})
    assert port.ecn == {4: EcnSetting(55 * 30_000, 90 * 30_000, 100)} and port.strict_queues == {3}
    assert (port.watchdog, port.cable_m) == (True, 100)
    assert state.watchdog == Watchdog(True, "drop", 200, 200, 100)
    fabric = _one_leaf_fabric(["et-0/0/0", "et-0/0/1"], "et-0/0/31")
    found = {(f.rule, f.expected, f.actual) for f in run_checks(fabric, lab_policy, {"leaf1": state})}
    # The classifier leaves CNP DSCP 48 out (qos.dscp_map says so): the queue it rides is unknown,
    # so its strict priority is not judged against a queue it does not take.
    assert found == {
        ("mtu.switch", "9214", "9216"),
        ("qos.dscp_map", "6", "unknown"),
        ("ecn.thresholds", "min 150 KB, max 1500 KB (+-10%), 100%", "min 1650 KB, max 2700 KB, 100%"),
        ("pfc.cable_length", "3 m (the planned cable)", "100 m (the platform default)"),
        ("pfc.cable_length", "30 m (the planned cable)", "100 m (the platform default)"),
        ("state.missing", "state for every device", "3 without state"),
    }


def test_a_brace_config_with_groups_aliases_and_inactive_statements():
    text = (FIXTURES / "junos" / "brace_groups_inactive.conf").read_text()
    state = JUNOS.parse_config(text, LEAF)
    assert state.unparsed == {}
    # `inactive:` is not applied; the group's profile binding is, where apply-groups applies it.
    assert set(state.interfaces) == {"et-0/0/0", "et-0/0/1"}
    assert state.dscp_map == {26: 3, 48: 6}  # af31, cs6
    assert state.watchdog == Watchdog(True, "drop", 200, 300, 50)  # 4 polls of 50 ms
    first, second = state.interfaces["et-0/0/0"], state.interfaces["et-0/0/1"]
    assert first.description == "gpu01 eth0 (rail 1)"
    assert (first.trust, first.no_drop_priorities, first.cable_m) == ("dscp", {3}, 5)
    # DSCP-based PFC on a port that classifies on 802.1p: which priority pauses is not known.
    assert (second.trust, second.pfc_enabled, second.no_drop_priorities, second.cable_m) == (
        "pcp",
        True,
        None,
        5,
    )
    lines = text.splitlines()
    assert lines[state.locations["et-0/0/0.mtu"] - 1].strip() == "mtu 9214;"
    assert lines[state.locations["et-0/0/0.cable_m"] - 1].strip() == "cable-length 5;"
    assert lines[state.locations["watchdog"] - 1].strip() == "poll-interval 50;"


def test_a_committed_brace_config_with_a_profile_no_port_binds():
    """`show configuration` as a QFX prints it: the commit header is a comment, and a profile
    that no interface binds pauses nothing."""
    state = JUNOS.parse_config((FIXTURES / "other" / "junos_qfx.conf").read_text(), LEAF)
    assert state.unparsed == {}
    (port,) = state.interfaces.values()
    assert (port.name, port.description, port.mtu) == ("et-0/0/16", "gpu01:eth0", 9216)
    assert (port.pfc_enabled, port.no_drop_priorities, port.watchdog, port.cable_m) == (
        False,
        set(),
        False,
        None,
    )
    assert (port.trust, state.dscp_map, state.watchdog) == (None, {}, Watchdog(enabled=False))


def test_an_interface_range_gives_its_members_its_mtu_unless_they_set_their_own():
    text = (
        "set interfaces interface-range FABRIC member-range et-0/0/0 to et-0/0/3\n"
        'set interfaces interface-range FABRIC member "et-0/0/[30-31]"\n'
        "set interfaces interface-range FABRIC mtu 9216\n"
        "set interfaces et-0/0/2 mtu 1500\n"
        # No switch has a billion ports: a range that names more is not read as ports.
        "set interfaces interface-range ALL member-range et-0/0/0 to et-0/0/999999999\n"
    )
    state = JUNOS.parse_config(text, LEAF)
    mtu = {name: (port.mtu, state.locations[f"{name}.mtu"]) for name, port in state.interfaces.items()}
    assert mtu == {
        "et-0/0/0": (9216, 3),
        "et-0/0/1": (9216, 3),
        "et-0/0/2": (1500, 4),
        "et-0/0/3": (9216, 3),
        "et-0/0/30": (9216, 3),
        "et-0/0/31": (9216, 3),
    }


def test_a_brace_config_cut_short_is_not_a_whole_config(tmp_path, capsys):
    text = (FIXTURES / "junos" / "brace_groups_inactive.conf").read_text()
    cut = "\n".join(text.splitlines()[:60]) + "\n"
    state = JUNOS.parse_config(cut, LEAF)
    assert state.unparsed == {
        "configuration": "not a whole Junos config: "
        "'class-of-service {' is never closed (a fragment, or cut short)"
    }
    assert state.locations["configuration"] == text.splitlines().index("class-of-service {") + 1


OTHER = [
    *sorted(p for p in (FIXTURES / "other").iterdir() if p.name != "junos_qfx.conf"),
    FIXTURES / "eos" / "running_config_production.cfg",
]


@pytest.mark.parametrize("path", OTHER, ids=lambda p: p.name)
def test_configs_of_other_platforms_are_not_read_as_junos(path: Path):
    state = JUNOS.parse_config(path.read_text(), LEAF)
    (why,) = state.unparsed.values()
    assert why.startswith("not a Junos config: ")
    assert state.interfaces == {} and state.locations["configuration"] >= 1


def test_a_non_junos_file_named_like_a_junos_config_is_refused_with_its_line(tmp_path, capsys):
    inventory = write_junos_lab(tmp_path / "inv")
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "spine1.set").write_text("set system host-name spine1\ninterface Ethernet1\n   mtu 9214\n")
    assert main(["check", str(inventory), "--configs", str(configs)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{configs / 'spine1.set'}:2:" in err
    assert "is not a set, delete or deactivate line" in err and "Traceback" not in err


# --- live outputs ---------------------------------------------------------------------------------


def _outputs(lab_fabric, lab_policy, name: str = "leaf-su1-r1") -> tuple[Device, dict[str, str]]:
    device = Device(name, Role.LEAF, "junos", su=1, rail=1)
    state = live_states(lab_fabric, lab_policy)[name]
    outputs = simulator(JUNOS.name).render_outputs(state, device)
    return device, {c.file: outputs[c.cli] for c in JUNOS.commands(device)}


def test_show_version_and_lldp_as_a_qfx_prints_them(lab_fabric, lab_policy):
    device, files = _outputs(lab_fabric, lab_policy)
    files["show_version"] = (FIXTURES / "junos" / "show_version_qfx5220_evo.txt").read_text()
    files["show_lldp_neighbors"] = (FIXTURES / "junos" / "show_lldp_neighbors_qfx5220.txt").read_text()
    state = JUNOS.parse_outputs(files, device)
    assert (state.model, state.os_version, state.unparsed) == ("qfx5220-32cd", "22.4R3-S2.11-EVO", {})
    assert [(n.local_interface, n.system_name, n.port) for n in state.lldp] == [
        ("et-0/0/0", "gpu01", "eth0"),
        ("et-0/0/1", "gpu02", "eth0"),
        ("et-0/0/31", "spine1", "et-0/0/0"),
        ("et-0/0/32:1", "spine2.dc1.example.net", "et-0/0/0"),
    ]


def test_a_config_cut_short_is_one_unreadable_output_by_its_line_count(lab_fabric, lab_policy):
    device, files = _outputs(lab_fabric, lab_policy)
    whole = files["show_configuration_display_set"]
    files["show_configuration_display_set"] = "\n".join(whole.splitlines()[:30]) + "\n"
    state = JUNOS.parse_outputs(files, device)
    counted = len(whole.splitlines())
    assert state.unparsed == {
        "show configuration | display set": "output cut short or damaged: "
        f"30 lines where Junos counted {counted}"
    }
    assert state.facets == {"version", "lldp"}


def test_without_its_line_count_a_config_is_read_and_its_completeness_reported(lab_fabric, lab_policy):
    device, files = _outputs(lab_fabric, lab_policy)
    del files["show_configuration_display_set_count"]
    state = JUNOS.parse_outputs(files, device)
    assert state.unparsed == {
        "show configuration | display set | count": "output missing: the configuration may be cut short"
    }
    assert state.facets == {"qos", "version", "lldp"} and state.interfaces


@pytest.mark.parametrize(
    ("file", "text", "command", "facet"),
    [
        ("show_version", "error: command is not valid on the qfx5240-64od\n", "show version", "version"),
        ("show_lldp_neighbors", "LLDP : Disabled\n", "show lldp neighbors", "lldp"),
        ("show_configuration_display_set_count", "\n", "show configuration | display set", "qos"),
    ],
)
def test_an_unreadable_output_drops_only_what_it_carries(lab_fabric, lab_policy, file, text, command, facet):
    device, files = _outputs(lab_fabric, lab_policy)
    files[file] = text
    state = JUNOS.parse_outputs(files, device)
    assert set(state.unparsed) == {command}
    assert state.facets == {"qos", "version", "lldp"} - {facet}


# --- secrets and read-only collection --------------------------------------------------------------

SECRETS = {
    "$6$Xq1$rootHashValue/abc": 'set system root-authentication encrypted-password "{}"',
    "$6$u2$userHashValue/xyz": 'set system login user netops authentication encrypted-password "{}"',
    "$9$radius-Secret": 'set system radius-server 10.0.0.5 secret "{}"',
    "$9$tacacs-Secret": 'set system tacplus-server 10.0.0.6 secret "{}"',
    "community-s3cret": "set snmp community {} authorization read-only",
    "trap-comm-s3cret": "set snmp trap-group TRAPS community {}",
    "$9$bgp-group-Key": 'set protocols bgp group SPINES authentication-key "{}"',
    "$9$bgp-peer-Key": 'set protocols bgp group SPINES neighbor 10.1.1.1 authentication-key "{}"',
    "$9$ospf-md5-Key": 'set protocols ospf area 0.0.0.0 interface et-0/0/1.0 authentication md5 1 key "{}"',
    "$9$ike-Psk": 'set security ike policy P1 pre-shared-key ascii-text "{}"',
    "$9$ntp-Key": 'set system ntp authentication-key 7 type md5 value "{}"',
    "$9$v3-Auth": 'set snmp v3 usm local-engine user mon authentication-sha authentication-key "{}"',
    "$9$v3-Priv": 'set snmp v3 usm local-engine user mon privacy-aes128 privacy-key "{}"',
    "brace-community": "snmp {{\n    community {} {{\n        authorization read-only;\n    }}\n}}",
    "$6$brace$Hash": "system {{\n    root-authentication {{\n"
    '        encrypted-password "{}"; ## SECRET-DATA\n    }}\n}}',
}
KEPT = [
    "set policy-options community BLUE members 65000:100",
    'set system login user netops authentication ssh-ed25519 "ssh-ed25519 AAAAC3Nza netops@jump"',
    "set class-of-service congestion-notification-profile ROCE-3M input cable-length 3",
]


@pytest.mark.parametrize("secret", sorted(SECRETS))
def test_every_kind_of_junos_secret_is_masked_and_the_config_still_reads(secret):
    line = SECRETS[secret].format(secret)
    masked = JUNOS.mask_secrets(line + "\n" + "\n".join(KEPT) + "\n")
    assert secret not in masked and "<masked>" in masked
    assert all(kept in masked for kept in KEPT)
    assert JUNOS.mask_secrets(masked) == masked
    if line.startswith("set "):
        assert read_config(masked).foreign is None


def test_every_collected_command_is_read_only_and_no_other_is(tmp_path):
    fabric = load_fabric(write_junos_lab(tmp_path / "inv"))
    for device in fabric.devices.values():
        if device.platform == "junos":
            for batch in JUNOS.batches(device):
                assert is_read_only(JUNOS, batch.cli)
    for cli in [
        "configure",
        "configure exclusive",
        "request system reboot",
        "show configuration | display set | save /var/tmp/x",
        "show configuration | display set; configure",
        "start shell sh",
        "set cli screen-length 0",
    ]:
        assert not is_read_only(JUNOS, cli), cli


# --- what Junos cannot express ---------------------------------------------------------------------


def test_what_the_policy_asks_that_junos_cannot_write_is_reported(tmp_path, capsys):
    inventory = write_junos_lab(
        tmp_path / "inv",
        policy_edits={
            "min_kbytes: 150": "min_kbytes: 155",
            "action: drop": "action: errdisable",
            "detection_ms: 200": "detection_ms: 250",
        },
    )
    rc, found = findings(capsys, "check", str(inventory))
    assert rc == 1
    switches = {d.name for d in load_fabric(inventory).devices.values() if d.is_switch}
    warnings = [f for f in found if f["rule"] == "junos.inexpressible"]
    assert {f["device"] for f in warnings} == switches
    assert {(f["expected"], f["actual"]) for f in warnings} == {
        ("ECN min 155 KB, max 1500 KB", "fill levels 5 % / 50 % (150 KB / 1500 KB)"),
        ("detection 250 ms", "detection 300 ms"),
        ("action errdisable", "action drop"),
    }
    # 155 KB written as 150 KB is within the policy's tolerance; the watchdog is not, and is an error.
    assert {f["rule"] for f in found} == {"junos.inexpressible", "pfc.watchdog"}
    watchdog = {(f["expected"], f["actual"]) for f in found if f["rule"] == "pfc.watchdog"}
    assert watchdog == {
        (
            "action errdisable, detect 250 ms, restore 200 ms, poll 100 ms",
            "action drop, detect 300 ms, restore 200 ms, poll 100 ms",
        )
    }


def test_a_forward_watchdog_is_named_as_a_qfx5230_5240_action_netcfg_does_not_write(tmp_path, capsys):
    inventory = write_junos_lab(tmp_path / "inv", policy_edits={"action: drop": "action: forward"})
    _, found = findings(capsys, "check", str(inventory))
    (said,) = {f["message"] for f in found if f["rule"] == "junos.inexpressible"}
    assert "QFX5230/5240" in said and "the policy's forward is not configured" in said


def test_a_watchdog_option_netcfg_does_not_know_is_an_unknown_action_never_drop():
    text = (
        "set class-of-service congestion-notification-profile CNP pfc-watchdog\n"
        "set class-of-service congestion-notification-profile CNP pfc-watchdog watchdog-action forward\n"
        "set class-of-service congestion-notification-profile CNP output ieee-802.1 code-point 011 "
        "flow-control-queue 3\n"
        "set class-of-service interfaces et-0/0/1 congestion-notification-profile CNP\n"
    )
    state = JUNOS.parse_config(text, Device("sw", Role.LEAF, "junos"))
    assert state.watchdog is not None and state.watchdog.enabled and state.watchdog.action is None
    assert (state.watchdog.polling_ms, state.watchdog.detection_ms) == (100, 200)


# --- remediation ----------------------------------------------------------------------------------


def test_diff_gives_the_set_and_delete_lines_that_restore_intent(tmp_path, capsys):
    inventory = write_junos_lab(tmp_path / "inv")
    fabric = load_fabric(inventory)
    policy = load_policy(str(inventory / "policy.yaml"))
    spine2_ports = [local.interface for local, _, _ in fabric.links_of("spine2")]
    faults = {
        "spine1": DeviceFaults(dscp_unmapped=[26]),
        "spine2": DeviceFaults(watchdog_off=spine2_ports),
        "leaf-su1-r3": DeviceFaults(mtu={"et-0/0/1": 1500}, pfc_priority=4),
    }
    snapshot = write_simulated_snapshot(fabric, policy, faults, tmp_path / "snap")
    capsys.readouterr()
    assert main(["diff", str(inventory), "--snapshot", str(snapshot)]) == 1
    out = capsys.readouterr().out
    assert "3 switch(es) differ from intent" in out
    commands = _commands_by_device(out)
    assert (
        "set class-of-service classifiers dscp ROCE-DSCP forwarding-class NO-LOSS loss-priority low "
        "code-points 011010" in commands["spine1"]
    )
    assert (
        "set class-of-service congestion-notification-profile ROCE-30M pfc-watchdog poll-interval 100"
        in commands["spine2"]
    )
    assert "set interfaces et-0/0/1 mtu 9214" in commands["leaf-su1-r3"]
    assert "delete interfaces et-0/0/1 mtu 1500" not in commands["leaf-su1-r3"]
    assert (
        "delete class-of-service congestion-notification-profile ROCE-3M input ieee-802.1 code-point 100 pfc"
        in commands["leaf-su1-r3"]
    )
    # Applied to what each switch runs, the commands give back its intended state.
    for name, lines in commands.items():
        device = fabric.devices[name]
        running = (snapshot / name / "show_configuration_display_set.txt").read_text()
        intended = JUNOS.render_config(live_states(fabric, policy)[name], device)
        repaired = _apply(running, lines)
        assert JUNOS.parse_config(repaired, device) == JUNOS.parse_config(intended, device)


def test_remediation_never_deletes_what_netcfg_did_not_write(tmp_path):
    inventory = write_junos_lab(tmp_path / "inv")
    fabric = load_fabric(inventory)
    policy = load_policy(str(inventory / "policy.yaml"))
    device = fabric.devices["leaf-su1-r1"]
    intended = JUNOS.render_config(live_states(fabric, policy)["leaf-su1-r1"], device)
    operators = [
        "set system login user netops authentication encrypted-password <masked>",
        "set protocols bgp group SPINES neighbor 10.100.0.0 peer-as 4200000001",
        "set class-of-service shared-buffer ingress buffer-partition lossless percent 66",
        "set class-of-service classifiers dscp mydscp forwarding-class NO-LOSS code-points 011010",
        "set class-of-service interfaces et-0/0/40 unit * classifiers dscp mydscp",
        "set interfaces et-0/0/40 mtu 1500",
    ]
    drifted = intended.replace("set interfaces et-0/0/0 mtu 9214", "set interfaces et-0/0/0 mtu 9000")
    fix = JUNOS.remediate("leaf-su1-r1", intended, drifted + "\n".join(operators) + "\n")
    assert fix is not None
    assert fix.commands == "set interfaces et-0/0/0 mtu 9214"
    assert not any(line in fix.diff for line in operators)
    assert managed_lines(intended, {"et-0/0/0"}) == [
        line for line in intended.splitlines() if "et-0/0/" not in line or "et-0/0/0 " in line
    ]


def _commands_by_device(out: str) -> dict[str, list[str]]:
    """`netcfg diff` output -> the commands listed under each switch's rule."""
    found: dict[str, list[str]] = {}
    device, listing = None, False
    for line in out.splitlines():
        if line.startswith("─") and line.strip("─ "):
            device, listing = line.strip("─ "), False
        elif line.startswith("commands to restore intent:"):
            listing = True
        elif listing and device and line.startswith(("set ", "delete ")):
            found.setdefault(device, []).append(line)
    return found


def _apply(running: str, commands: list[str]) -> str:
    """What Junos does with `delete` and `set` lines: a set of a single-valued leaf replaces it."""
    lines = [line for line in running.splitlines() if line.startswith("set ")]
    for command in commands:
        verb, _, path = command.partition(" ")
        if verb == "delete":
            lines = [line for line in lines if not (line[4:] + " ").startswith(path + " ")]
        else:
            head = path.rsplit(" ", 1)[0]
            single = head.split()[-1] not in ("code-points", "fill-level", "drop-probability", "pfc")
            if single:
                lines = [line for line in lines if line[4:].rsplit(" ", 1)[0] != head]
            lines.append(command)
    return "\n".join(lines) + "\n"


def _one_leaf_fabric(host_ports: list[str], uplink: str) -> Fabric:
    devices = {"leaf1": LEAF, "spine1": Device("spine1", Role.SPINE, "junos")}
    links = [Link(Endpoint("leaf1", uplink), Endpoint("spine1", "et-0/0/0"), 400, 30)]
    for k, port in enumerate(host_ports, 1):
        host = f"gpu{k:02d}"
        devices[host] = Device(host, Role.HOST, "connectx", su=1, nics=[Nic(1, "eth0", "mlx5_0")])
        links.append(Link(Endpoint(host, "eth0"), Endpoint("leaf1", port), 400, 3))
    return Fabric("one-leaf", 1, devices, links, "roce-lossless")


# --- hostile brace configs ------------------------------------------------------------------------


def test_a_deeply_nested_brace_config_is_refused_at_its_line_in_bounded_memory():
    """Half a megabyte of `a {` lines: before the cap every open block held its whole path, which took
    memory growing with the square of the depth (tens of GB here). Under a 1 GiB address-space limit
    it is refused, naming the line where the nesting goes too deep."""
    import subprocess
    import sys

    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from netcfg.platforms.junos.syntax import read_config\n"
        "depth = 120_000\n"
        "text = 'a {\\n' * depth + 'mtu 9216;\\n' + '}\\n' * depth\n"
        "assert len(text) > 500_000\n"
        "print(read_config(text).foreign)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "(65, 'blocks nested more than 64 deep; expected a Junos config')"


def test_a_config_nested_too_deeply_is_exit_2_naming_its_line(tmp_path, capsys):
    inventory = write_junos_lab(tmp_path / "inv")
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "spine1.set").write_text("system {\n" * 100 + "host-name spine1;\n" + "}\n" * 100)
    assert main(["check", str(inventory), "--configs", str(configs)]) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert f"{configs / 'spine1.set'}:65: " in err and "nested more than 64 deep" in err


@pytest.mark.parametrize(
    "line",
    [
        'encrypted-password "$6$Xq1$rootHashValue/abc"',
        'authentication-key "$9$bgp-peer-Key" extra',
        'secret "$9$radius-Secret"',
        'pre-shared-key ascii-text "$9$ike-Psk"',
    ],
)
def test_a_malformed_line_holding_a_secret_is_not_echoed(tmp_path, capsys, line):
    """`check --configs` names the file and line of a statement without its `;`, and never prints a
    line holding a secret: CI logs keep what netcfg prints."""
    inventory = write_junos_lab(tmp_path / "inv")
    configs = tmp_path / "configs"
    configs.mkdir()
    text = f"system {{\n    root-authentication {{\n        {line}\n    }}\n}}\n"
    (configs / "spine1.set").write_text(text)
    assert main(["check", str(inventory), "--configs", str(configs)]) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert f"{configs / 'spine1.set'}:3: " in err
    assert "$9$" not in err and "$6$" not in err and "Hash" not in err and "-Key" not in err
    assert "a line holding a secret, not shown" in err


def test_a_brace_statement_with_two_lists_is_refused_not_multiplied_out():
    """Each `[ ... ]` list multiplies the paths a statement stands for: forty of them would be 2^40."""
    text = "a {\n    b [ x y ] [ x y ];\n}\n"
    assert read_config(text).foreign == (2, "a second '[ ... ]' list in one statement; expected at most one")


def test_dcbx_modes_per_interface_and_for_all_as_juniper_documents_them():
    """`set protocols dcbx interface (NAME|all) dcbx-version (auto-negotiate|ieee-dcbx|
    dcbx-version-1.01)` (Juniper, "Configuring the DCBX Mode"); an interface named without a version
    auto-negotiates; a port `protocols dcbx` does not name is unknown, never "off"."""
    text = (FIXTURES / "junos" / "display_set_apstra_qfx5240.set").read_text()
    plain = JUNOS.parse_config(text, LEAF)
    assert {p.dcbx_mode for p in plain.interfaces.values()} == {None}
    text += (
        "set protocols dcbx interface et-0/0/0 dcbx-version dcbx-version-1.01\n"
        "set protocols dcbx interface et-0/0/1\n"
    )
    ports = JUNOS.parse_config(text, LEAF).interfaces
    assert (ports["et-0/0/0"].dcbx_mode, ports["et-0/0/1"].dcbx_mode, ports["et-0/0/31"].dcbx_mode) == (
        "cee",
        "auto",
        None,
    )
    ports = JUNOS.parse_config(
        text + "set protocols dcbx interface all dcbx-version ieee-dcbx\n", LEAF
    ).interfaces
    # A port's own statement decides over `all`.
    assert (ports["et-0/0/0"].dcbx_mode, ports["et-0/0/31"].dcbx_mode) == ("cee", "ieee")


# --- 802.1p PFC and VLAN tags -----------------------------------------------------------------------
# Juniper, "Understanding PFC Using DSCP at Layer 3 for Untagged Traffic": untagged traffic cannot be
# examined for the IEEE 802.1p code points 802.1p PFC pauses on; DSCP-based PFC is what pauses it.
APSTRA_CNP = "set class-of-service congestion-notification-profile cnp input "
APSTRA_DSCP_PFC = APSTRA_CNP + "dscp code-point 011010 pfc"
APSTRA_IEEE_PFC = APSTRA_CNP + "ieee-802.1 code-point 011 pfc"


def test_8021p_pfc_pauses_no_priority_on_an_untagged_routed_port_of_a_display_set_config():
    text = (FIXTURES / "junos" / "display_set_apstra_qfx5240.set").read_text()
    assert APSTRA_DSCP_PFC in text
    text = text.replace(APSTRA_DSCP_PFC, APSTRA_IEEE_PFC)
    state = JUNOS.parse_config(text, LEAF)
    port = state.interfaces["et-0/0/31"]  # `unit 0 family inet`, no vlan-tagging
    assert (port.pfc_enabled, port.no_drop_priorities, port.pauses) == (True, set(), False)
    assert text.splitlines()[state.locations["et-0/0/31.no_drop_priorities"] - 1] == APSTRA_IEEE_PFC
    # The same port made a tagged routed port: its frames carry the priority, and PFC pauses it.
    tagged = text.replace(
        "set interfaces et-0/0/31 unit 0 family inet address 10.100.0.1/31",
        "set interfaces et-0/0/31 vlan-tagging\n"
        "set interfaces et-0/0/31 unit 100 vlan-id 100\n"
        "set interfaces et-0/0/31 unit 100 family inet address 10.100.0.1/31",
    )
    ports = JUNOS.parse_config(tagged, LEAF).interfaces
    assert (ports["et-0/0/31"].no_drop_priorities, ports["et-0/0/0"].no_drop_priorities) == ({3}, set())


BRACE_TAGGING = """\
interfaces {
    et-0/0/0 {
        mtu 9214;
        unit 0 {
            family inet {
                address 10.1.0.0/31;
            }
        }
    }
    et-0/0/1 {
        flexible-vlan-tagging;
        unit 200 {
            vlan-id 200;
            family inet {
                address 10.1.0.2/31;
            }
        }
    }
    et-0/0/2 {
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
                vlan {
                    members ROCE;
                }
            }
        }
    }
    et-0/0/3 {
        unit 0 {
            family ethernet-switching {
                vlan {
                    members ROCE;
                }
            }
        }
    }
    et-0/0/4 {
        native-vlan-id 10;
        unit 0 {
            family ethernet-switching {
                interface-mode trunk;
            }
        }
    }
    et-0/0/5 {
        ether-options {
            802.3ad ae0;
        }
    }
    et-0/0/6 {
        description "bound below, its units not in this config";
    }
    et-0/0/8 {
        unit 0 {
            family ethernet-switching {
                port-mode trunk;
                native-vlan-id 10;
            }
        }
    }
    ae0 {
        vlan-tagging;
        unit 300 {
            vlan-id 300;
            family inet6;
        }
    }
}
class-of-service {
    forwarding-classes {
        class roce queue-num 3 no-loss pfc-priority 3;
    }
    congestion-notification-profile cnp-pcp {
        input {
            ieee-802.1 {
                code-point 011 {
                    pfc;
                }
            }
        }
        output {
            ieee-802.1 {
                code-point 011 {
                    flow-control-queue 3;
                }
            }
        }
    }
    interfaces {
        et-* {
            congestion-notification-profile cnp-pcp;
        }
        et-0/0/7 {
            congestion-notification-profile cnp-pcp;
        }
    }
}
"""


def test_8021p_pfc_follows_the_vlan_tags_each_brace_form_interface_stanza_shows():
    state = JUNOS.parse_config(BRACE_TAGGING, LEAF)
    assert state.unparsed == {}
    paused = {name: port.no_drop_priorities for name, port in state.interfaces.items() if name != "ae0"}
    assert paused == {
        "et-0/0/0": set(),  # routed, untagged
        "et-0/0/1": {3},  # flexible-vlan-tagging, a unit on VLAN 200
        "et-0/0/2": {3},  # an ethernet-switching trunk
        "et-0/0/3": set(),  # ethernet-switching without a mode: an access port, untagged
        # A trunk with a native VLAN takes untagged frames too: whether RoCE rides tagged is not in
        # the switch's config, so what PFC pauses of it is unknown.
        "et-0/0/4": None,
        "et-0/0/8": None,  # the same in the older QFX CLI's words (`port-mode`, a unit's native VLAN)
        "et-0/0/5": {3},  # a member of ae0, whose units are tagged
        # A port whose units the config does not show carries nothing shown untagged: no verdict.
        "et-0/0/6": {3},
        "et-0/0/7": {3},
    }
    assert all(state.interfaces[name].pfc_enabled for name in paused)
    lines = BRACE_TAGGING.splitlines()
    assert lines[state.locations["et-0/0/0.no_drop_priorities"] - 1].strip() == "pfc;"


def test_an_interface_range_that_tags_its_members_lets_8021p_pfc_pause_them():
    text = (
        "set interfaces interface-range FABRIC member-range et-0/0/0 to et-0/0/1\n"
        "set interfaces interface-range FABRIC vlan-tagging\n"
        "set interfaces et-0/0/0 unit 10 vlan-id 10\n"
        "set interfaces et-0/0/0 unit 10 family inet address 10.0.0.0/31\n"
        "set interfaces et-0/0/1 unit 10 vlan-id 10\n"
        "set interfaces et-0/0/1 unit 10 family inet address 10.0.0.2/31\n"
        "set interfaces et-0/0/2 unit 0 family inet address 10.0.0.4/31\n"
        "set class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3\n"
        "set class-of-service congestion-notification-profile cnp input ieee-802.1 code-point 011 pfc\n"
        "set class-of-service interfaces et-* congestion-notification-profile cnp\n"
    )
    ports = JUNOS.parse_config(text, LEAF).interfaces
    assert {n: p.no_drop_priorities for n, p in ports.items()} == {
        "et-0/0/0": {3},
        "et-0/0/1": {3},
        "et-0/0/2": set(),
    }
    # Without the range's vlan-tagging and its members' VLANs, their units take untagged frames.
    untagged = text.replace("set interfaces interface-range FABRIC vlan-tagging\n", "")
    untagged = "\n".join(line for line in untagged.splitlines() if "vlan-id" not in line)
    ports = JUNOS.parse_config(untagged.replace("unit 10", "unit 0"), LEAF).interfaces
    assert {p.no_drop_priorities for p in ports.values()} == {frozenset()}


def test_netcfg_renders_dscp_based_pfc_for_dscp_trust_and_a_trunk_for_8021p_pfc_on_a_switched_port():
    """netcfg's own intent pauses what it means to on untagged ports: DSCP-based PFC where the port
    trusts DSCP; 802.1p PFC only on a port it writes as tagged (a switched port as a trunk)."""
    paused = {"pfc_enabled": True, "no_drop_priorities": frozenset({3}), "watchdog": True, "cable_m": 3}
    state = DeviceState(name="leaf1", platform="junos", dscp_map={26: 3, 48: 6})
    state.interfaces = {
        "et-0/0/0": InterfaceState("et-0/0/0", mtu=9214, trust="dscp", **paused),
        "et-0/0/1": InterfaceState("et-0/0/1", mtu=9214, trust="pcp", switched=True, **paused),
        "et-0/0/2": InterfaceState("et-0/0/2", mtu=9214, trust="dscp", switched=True, **paused),
    }
    lines = JUNOS.render_config(state, LEAF).splitlines()
    assert (
        "set class-of-service congestion-notification-profile ROCE-3M input dscp code-point 011010 pfc"
        in (lines)
    )
    assert "set interfaces et-0/0/1 unit 0 family ethernet-switching interface-mode trunk" in lines
    assert "set interfaces et-0/0/2 unit 0 family ethernet-switching" in lines
    ports = JUNOS.parse_config("\n".join(lines), LEAF).interfaces
    assert {n: (p.no_drop_priorities, p.switched) for n, p in ports.items()} == {
        "et-0/0/0": ({3}, None),
        "et-0/0/1": ({3}, True),
        "et-0/0/2": ({3}, True),
    }
