"""Cumulus Linux (NVUE): what netcfg renders, what it reads from configs and `nv show` outputs shaped as
Cumulus 5.x prints them, and what it reports, through the CLI where an operator would see it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.errors import InputError
from netcfg.intent import device_intent
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, apply_faults, live_states
from netcfg.model import EcnSetting, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy, load_policy
from netcfg.render import render_fabric

FIXTURES = Path(__file__).parent / "fixtures"
CUMULUS = FIXTURES / "cumulus"
LAB = CUMULUS / "lab"
NV = get_platform("cumulus")
COMMANDS = CUMULUS / "leaf-su1-r1_nv_config_show_commands.txt"
STARTUP = CUMULUS / "leaf-su1-r1_startup.yaml"
FABRIC_PORTS = ["swp1", "swp2", "swp3", "swp4", "swp31", "swp32"]


@pytest.fixture(scope="module")
def fabric():
    return load_fabric(LAB)


@pytest.fixture(scope="module")
def policy(fabric):
    return load_policy(fabric.policy_ref, LAB)


def leaf(fabric):
    return fabric.devices["leaf-su1-r1"]


def outputs(**replace: str) -> dict[str, str]:
    """The collected outputs of leaf-su1-r1 as real-shaped fixtures, some replaced."""
    files = {
        "nv_show_system": (CUMULUS / "nv_show_system_5.16.txt").read_text(),
        "nv_config_show_commands": COMMANDS.read_text(),
        "nv_show_qos_roce": (CUMULUS / "nv_show_qos_roce_lossless.txt").read_text(),
        "nv_show_interface_json": (CUMULUS / "nv_show_interface_json.txt").read_text(),
        "lldpcli_show_neighbors": (CUMULUS / "lldpcli_show_neighbors.txt").read_text(),
    }
    files |= {c.file: (CUMULUS / f"{c.file}.txt").read_text() for c in NV.commands(None) if c.counters}
    return files | replace


def findings_of(fabric, policy, name, state):
    states = live_states(fabric, policy) | {name: state}
    return {(f.rule, f.device, f.interface, f.actual) for f in run_checks(fabric, policy, states)}


# --- render ----------------------------------------------------------------------------------------


def test_lab_leaf_is_roce_defaults_plus_what_the_policy_and_plan_change(fabric, policy):
    """RoCE mode carries NVIDIA's defaults (PFC 3, ECN 150-1500 KB on class 3, class 6 strict): only
    trust DSCP (the default trusts PCP and DSCP), the watchdog, MTU and the planned cables follow."""
    text = render_fabric(fabric, policy, ["leaf-su1-r1"])["leaf-su1-r1.nvue"]
    assert text.splitlines() == [
        "nv set interface swp1-4,swp31-32 type swp",
        "nv set interface swp1 description gpu01:eth0",
        "nv set interface swp2 description gpu02:eth0",
        "nv set interface swp3 description gpu03:eth0",
        "nv set interface swp4 description gpu04:eth0",
        "nv set interface swp31 description spine1:swp1",
        "nv set interface swp32 description spine2:swp1",
        "nv set interface swp1-4,swp31-32 link mtu 9214",
        "nv set interface swp31-32 qos pfc profile netcfg-pfc-1",
        "nv set interface swp1-4,swp31-32 qos pfc-watchdog",
        "nv set qos mapping default-global trust l3",
        "nv set qos pfc netcfg-pfc-1 switch-priority 3",
        "nv set qos pfc netcfg-pfc-1 tx enable",
        "nv set qos pfc netcfg-pfc-1 rx enable",
        "nv set qos pfc netcfg-pfc-1 cable-length 30",
        "nv set qos pfc-watchdog robustness 2",
        "nv set qos roce cable-length 3",
        "nv set qos roce mode lossless",
        "nv set system hostname leaf-su1-r1",
    ]
    spine = render_fabric(fabric, policy, ["spine1"])["spine1.nvue"]
    assert "nv set qos roce cable-length 30\n" in spine and "qos pfc profile" not in spine


def _policy(policy: Policy, **changes: object) -> Policy:
    return Policy.model_validate(policy.model_dump() | changes)


def test_a_policy_off_the_nvidia_defaults_is_written_as_overrides_and_read_back(fabric, policy):
    custom = _policy(
        policy,
        roce={"dscp": 24, "priority": 5},
        cnp={"dscp": 46, "priority": 2},
        ecn={"min_kbytes": 400, "max_kbytes": 1600, "probability": 20, "tolerance_percent": 10},
    )
    device = leaf(fabric)
    state = device_intent(device, fabric, custom)
    text = NV.render_config(state, device)
    for line in [
        "nv set qos mapping default-global dscp 24 switch-priority 5",
        "nv set qos mapping default-global dscp 46 switch-priority 2",
        "nv set qos egress-queue-mapping default-global switch-priority 2 traffic-class 2",
        "nv set qos egress-queue-mapping default-global switch-priority 5 traffic-class 5",
        "nv set qos egress-scheduler default-global traffic-class 2 mode strict",
        "nv set qos congestion-control default-global traffic-class 5 min-threshold 400000",
        "nv set qos congestion-control default-global traffic-class 5 probability 20",
        "nv set qos pfc netcfg-pfc-1 switch-priority 5",
    ]:
        assert line in text.splitlines()
    # NVIDIA's own defaults for the classes the policy leaves alone stay as they are: class 3 keeps its
    # ECN, class 6 stays strict.
    assert "traffic-class 3 ecn disable" not in text and "traffic-class 6 mode dwrr" not in text
    parsed = NV.parse_config(text, device)
    assert parsed == state
    assert findings_of(fabric, custom, "leaf-su1-r1", parsed) == set()


def test_lossy_mode_is_nvue_lossy_mode_with_no_pfc_and_no_watchdog(fabric, policy):
    lossy = _policy(policy, mode="lossy")
    device = leaf(fabric)
    state = device_intent(device, fabric, lossy)
    text = NV.render_config(state, device)
    assert "nv set qos roce mode lossy" in text
    assert "pfc-watchdog" not in text and "switch-priority" not in text
    parsed = NV.parse_config(text, device)
    port = parsed.interfaces["swp1"]
    assert (port.pfc_enabled, port.no_drop_priorities, port.watchdog) == (False, frozenset(), False)
    assert port.ecn[3] == EcnSetting(150_000, 1_500_000, 100)
    assert parsed.watchdog == Watchdog(enabled=False)
    parsed.facets = state.facets
    assert parsed == state
    assert findings_of(fabric, lossy, "leaf-su1-r1", parsed) == set()


def test_what_nvue_cannot_express_is_reported_not_dropped(tmp_path, capsys):
    """roce-lossless restores a paused queue after 200 ms; NVUE restores after one 100 ms poll."""
    inventory = tmp_path / "fabric.yaml"
    inventory.write_text(
        (LAB / "fabric.yaml").read_text().replace("policy: policy.yaml", "policy: roce-lossless")
    )
    assert main(["check", str(inventory), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["rule"] for f in findings} == {"pfc.watchdog"}
    assert {f["device"] for f in findings} == {f"leaf-su{s}-r{r}" for s in (1, 2) for r in (1, 2, 3, 4)} | {
        "spine1",
        "spine2",
    }
    assert findings[0]["actual"] == "action drop, detect 200 ms, restore 100 ms, poll 100 ms"


# --- configs, as a repository keeps them -----------------------------------------------------------


def test_a_production_nv_config_show_commands_reads_as_the_plan_intends(fabric, policy):
    state = NV.parse_config(COMMANDS.read_text(), leaf(fabric))
    assert state.unparsed == {}
    intent = live_states(fabric, policy)["leaf-su1-r1"]
    for name in FABRIC_PORTS:
        assert state.interfaces[name] == intent.interfaces[name], name
    assert (state.interfaces["swp1"].cable_m, state.interfaces["swp31"].cable_m) == (3, 30)
    assert state.interfaces["swp1"].ecn == {
        0: EcnSetting(150_000, 1_500_000, 100),
        3: EcnSetting(150_000, 1_500_000, 100),
    }
    assert state.interfaces["swp9"].mtu == 9216  # a spare port at NVUE's default MTU, outside the plan
    assert state.interfaces["eth0"].mtu is None
    assert state.dscp_priority(26) == 3 and state.dscp_priority(48) == 6 and state.queue_of(1) == 0
    assert state.watchdog == Watchdog(True, "drop", 200, 100, 100)
    lines = COMMANDS.read_text().splitlines()
    at = {line: n for n, line in enumerate(lines, 1)}
    assert state.locations["swp31.cable_m"] == at["nv set qos pfc uplink-30m cable-length 30"]
    assert state.locations["swp1.cable_m"] == at["nv set qos roce cable-length 3"]
    assert state.locations["swp2.mtu"] == at["nv set interface swp1-4,swp31-32 link mtu 9214"]
    assert state.locations["swp1.trust"] == at["nv set qos mapping default-global trust l3"]
    assert state.locations["swp1.ecn"] == at["nv set qos roce mode lossless"]  # RoCE defaults


def test_startup_yaml_reads_as_the_same_configuration(fabric):
    yaml_state = NV.parse_config(STARTUP.read_text(), leaf(fabric))
    commands = NV.parse_config(COMMANDS.read_text(), leaf(fabric))
    assert yaml_state.unparsed == {}
    assert (yaml_state.os_version, yaml_state.model) == ("5.14.0", "MSN5600")
    yaml_state.os_version = yaml_state.model = None
    assert yaml_state == commands
    lines = STARTUP.read_text().splitlines()
    assert lines[yaml_state.locations["swp31.cable_m"] - 1].strip() == "cable-length: 30"
    assert lines[yaml_state.locations["swp1.mtu"] - 1].strip() == "mtu: 9214"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nv set interface swp1-2,5-6 link mtu 1500\n", ["swp1", "swp2", "swp5", "swp6"]),
        ("nv set interface swp49s0-3 link mtu 1500\n", ["swp49s0", "swp49s1", "swp49s2", "swp49s3"]),
        ("nv set interface swp1,swp3-4 link mtu 1500\n", ["swp1", "swp3", "swp4"]),
    ],
)
def test_interface_lists_expand_as_nvue_does(fabric, text, expected):
    state = NV.parse_config(text, leaf(fabric))
    assert sorted(state.interfaces, key=expected.index) == expected
    assert all(p.mtu == 1500 for p in state.interfaces.values())


@pytest.mark.parametrize(
    ("file", "why"),
    [
        ("other/nxos_running_config.cfg", "not an NVUE configuration"),
        ("other/sonic_config_db.json", "not an NVUE configuration: a JSON document"),
        ("other/leaf_notes.md", "not an NVUE configuration"),
        ("other/junos_qfx.conf", "not an NVUE configuration"),
        ("eos/running_config_production.cfg", "not an NVUE configuration"),
    ],
)
def test_other_configs_are_not_read_as_nvue(fabric, file, why):
    state = NV.parse_config((FIXTURES / file).read_text(), leaf(fabric))
    assert state.interfaces == {} and list(state.unparsed) == ["nvue config"]
    assert state.unparsed["nvue config"].startswith(why)
    assert isinstance(state.locations["nvue config"], int)


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("nv set qos roce mode lossless\nnv unset qos roce\n", 2, "an 'nv unset' line"),
        ("nv set qos roce mode lossless\ntraffic.packet_priority_source_set = [dscp]\n", 2, "traffic.conf"),
        ("nv set interface swp1-99999999 link mtu 9000\n", 1, "interface list"),
        ("nv set qos roce mode fast\n", 1, "qos roce mode 'fast'"),
        ("nv set interface swp1 link mtu 20000\n", 1, "out of range"),
        ("- set:\n    qos: &a {roce: {}}\n    again: *a\n", 3, "YAML alias"),
        ("- set:\n    qos: [roce]\n", 2, "a YAML list inside 'set'"),
        ("- header: {version: Cumulus Linux 5.9.0}\n", 1, "no '- set:' item"),
        ("nv set interface " + "1" * 100_000 + "x link mtu 9000\n", 1, "interface list"),
    ],
)
def test_unreadable_configs_name_their_line(fabric, text, line, why):
    state = NV.parse_config(text, leaf(fabric))
    assert why in state.unparsed["nvue config"]
    assert state.locations["nvue config"] == line


@pytest.mark.parametrize("depth", [200, 990, 3000])
def test_deeply_nested_yaml_is_unreadable_not_a_crash(fabric, depth):
    text = (
        "- set:\n" + "".join(f"{'  ' * (i + 2)}k{i}:\n" for i in range(depth)) + "  " * (depth + 2) + "x: 1\n"
    )
    state = NV.parse_config(text, leaf(fabric))
    if depth == 200:
        assert state.unparsed == {} and state.interfaces == {}
    else:
        assert "nest" in state.unparsed["nvue config"]


def render_lab(folder: Path, capsys) -> Path:
    assert main(["render", str(LAB), "-o", str(folder)]) == 0
    capsys.readouterr()
    return folder


def check_configs(capsys, folder: Path) -> tuple[int, list[dict]]:
    rc = main(["check", str(LAB), "--configs", str(folder), "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)["findings"]


def test_configs_checked_through_the_cli_point_at_file_and_line(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    assert sorted(p.name for p in configs.glob("leaf-*"))[0] == "leaf-su1-r1.nvue"
    production = configs / "leaf-su1-r1.nvue"
    production.write_text(COMMANDS.read_text())
    assert check_configs(capsys, configs) == (0, [])
    text = COMMANDS.read_text()
    text = text.replace(
        "nv set interface swp1-4,swp31-32 link mtu 9214\n",
        "nv set interface swp1,swp3-4,swp31-32 link mtu 9214\nnv set interface swp2 link mtu 1500\n",
    )
    text += "nv set qos congestion-control default-global traffic-class 3 ecn disable\n"
    production.write_text(text)
    rc, findings = check_configs(capsys, configs)
    lines = text.splitlines()
    at = {(f["rule"], f["interface"]): f["line"] for f in findings if f["device"] == "leaf-su1-r1"}
    assert rc == 1
    assert lines[at[("mtu.switch", "swp2")] - 1] == "nv set interface swp2 link mtu 1500"
    assert lines[at[("ecn.enabled", "swp1-4,31-32")] - 1].endswith("traffic-class 3 ecn disable")
    assert {f["file"] for f in findings} == {str(production)}


def test_a_foreign_file_named_like_a_cumulus_config_is_refused_once(tmp_path, capsys):
    configs = render_lab(tmp_path / "configs", capsys)
    (configs / "spine2.nvue").write_text((FIXTURES / "eos" / "running_config_production.cfg").read_text())
    assert main(["check", str(LAB), "--configs", str(configs)]) == 2
    err = capsys.readouterr().err
    assert f"{configs / 'spine2.nvue'}:1: cannot read nvue config: not an NVUE configuration" in err
    assert len(err.strip().splitlines()) == 1


# --- live outputs ------------------------------------------------------------------------------------


def test_real_shaped_outputs_read_clean(fabric, policy):
    state = NV.parse_outputs(outputs(), leaf(fabric))
    assert (state.unparsed, state.not_operational) == ({}, {})
    assert state.facets == {"qos", "version", "lldp", "link", "counters"}
    assert state.os_version == "5.16.0"
    neighbours = {n.local_interface: (n.system_name, n.port) for n in state.lldp}
    assert neighbours["swp1"] == ("gpu01", "eth0") and neighbours["swp32"] == ("spine2", "swp1")
    assert findings_of(fabric, policy, "leaf-su1-r1", state) == set()


def test_the_flat_nv_show_system_of_earlier_releases(fabric):
    state = NV.parse_outputs(
        outputs(nv_show_system=(CUMULUS / "nv_show_system_5.9.txt").read_text()), leaf(fabric)
    )
    assert state.os_version == "5.9.1" and "version" in state.facets


def test_ecn_applied_but_not_running_is_its_own_finding(fabric, policy):
    roce = (CUMULUS / "nv_show_qos_roce_lossless.txt").read_text()
    lagging = roce.replace("enabled-tc        0,3", "enabled-tc        0  ")
    state = NV.parse_outputs(outputs(nv_show_qos_roce=lagging), leaf(fabric))
    assert state.not_operational == {"qos roce congestion-control enabled-tc": ("0,3", "0")}
    assert findings_of(fabric, policy, "leaf-su1-r1", state) == {
        ("config.not_operational", "leaf-su1-r1", None, "qos roce congestion-control enabled-tc 0")
    }


def test_what_the_switch_shows_as_applied_comes_before_the_configuration(fabric):
    roce = (CUMULUS / "nv_show_qos_roce_lossless.txt").read_text()
    single = roce.replace(
        "mode                lossless     lossless", "mode                lossy        lossless-single-ipool"
    )
    state = NV.parse_outputs(outputs(nv_show_qos_roce=single), leaf(fabric))
    assert state.not_operational == {"qos roce mode": ("lossless-single-ipool", "lossy")}


def test_spectrum4_rounding_of_thresholds_is_not_an_error(fabric, policy):
    """Spectrum-4 programs 150,000 B as 159,744 B (156 KB), +6.5 %: the hardware took the value, and it is
    inside the policy's 10 % band. A threshold the hardware runs at half is not."""
    roce = (CUMULUS / "nv_show_qos_roce_lossless.txt").read_text()
    rounded = NV.parse_outputs(outputs(nv_show_qos_roce=roce.replace("146.48 KB", "156.00 KB")), leaf(fabric))
    assert rounded.not_operational == {}
    halved = NV.parse_outputs(outputs(nv_show_qos_roce=roce.replace("146.48 KB", " 73.24 KB")), leaf(fabric))
    assert halved.not_operational == {"qos roce congestion-control min-threshold": ("146.48 KB", "73.24 KB")}
    config = (
        COMMANDS.read_text()
        + "nv set qos congestion-control default-global traffic-class 3 min-threshold 159744\n"
    )
    programmed = NV.parse_outputs(outputs(nv_config_show_commands=config), leaf(fabric))
    assert programmed.interfaces["swp1"].ecn[3] == EcnSetting(159_744, 1_500_000, 100)
    assert findings_of(fabric, policy, "leaf-su1-r1", programmed) == set()
    far = config.replace("159744", "170000")
    assert "ecn.thresholds" in {
        f[0]
        for f in findings_of(
            fabric,
            policy,
            "leaf-su1-r1",
            NV.parse_outputs(outputs(nv_config_show_commands=far), leaf(fabric)),
        )
    }


def test_a_port_running_another_mtu_than_applied(fabric, policy):
    data = json.loads((CUMULUS / "nv_show_interface_json.txt").read_text())
    data["swp3"]["link"]["mtu"] = 1500
    state = NV.parse_outputs(outputs(nv_show_interface_json=json.dumps(data)), leaf(fabric))
    assert state.not_operational == {"swp3.mtu": ("9214", "1500")}
    assert findings_of(fabric, policy, "leaf-su1-r1", state) == {
        ("config.not_operational", "leaf-su1-r1", "swp3", "mtu 1500")
    }


@pytest.mark.parametrize(
    ("file", "text", "dropped"),
    [
        # The link state is read for the ports the configuration names.
        ("nv_config_show_commands", None, {"qos", "link"}),
        ("nv_config_show_commands", "Error: Invalid Command\n", {"qos", "link"}),
        ("nv_show_qos_roce", None, {"qos"}),
        ("nv_show_qos_roce", "operational  applied\n-----------  -------\n", {"qos"}),
        ("nv_show_system", "hostname leaf-su1-r1\n", {"version"}),
        ("nv_show_interface_json", '{"swp1": {"link": ', {"link"}),
        ("nv_show_interface_json", '["swp1"]', {"link"}),
        # lldpd's table, not the interface table, says what each port hears.
        ("lldpcli_show_neighbors", None, {"lldp"}),
        ("lldpcli_show_neighbors", "Error: unable to connect to lldpd daemon\n", {"lldp"}),
    ],
)
def test_an_unreadable_output_is_one_unknown_and_drops_what_it_carries(fabric, policy, file, text, dropped):
    given = outputs()
    if text is None:
        del given[file]
    else:
        given[file] = text
    state = NV.parse_outputs(given, leaf(fabric))
    assert len(state.unparsed) == 1
    assert state.facets == {"qos", "version", "lldp", "link", "counters"} - dropped
    assert {f[0] for f in findings_of(fabric, policy, "leaf-su1-r1", state)} == {"parse.unknown_output"}


def test_a_truncated_roce_table_is_not_read_as_running_less(fabric):
    roce = (CUMULUS / "nv_show_qos_roce_lossless.txt").read_text()
    cut = roce[: roce.index("RoCE SP->TC")]
    state = NV.parse_outputs(outputs(nv_show_qos_roce=cut), leaf(fabric))
    assert "cut short" in state.unparsed["nv show qos roce"] and state.not_operational == {}


# --- lab faults ------------------------------------------------------------------------------------


def test_the_not_operational_fault_shows_the_policy_applied_and_the_stock_ecn_running(fabric, policy):
    device = fabric.devices["leaf-su1-r4"]
    state = apply_faults(
        live_states(fabric, policy)["leaf-su1-r4"], DeviceFaults(not_operational=["ecn"]), device
    )
    outs = simulator(NV.name).render_outputs(state, device)
    assert "  enabled-tc        0\n" in outs["nv show qos roce"]
    parsed = NV.parse_outputs({c.file: outs[c.cli] for c in NV.commands(device)}, device)
    assert parsed == state
    assert {f[0] for f in findings_of(fabric, policy, "leaf-su1-r4", parsed)} == {"config.not_operational"}


def test_factory_qos_is_cumulus_before_roce(fabric, policy):
    device = fabric.devices["leaf-su2-r3"]
    stock = apply_faults(live_states(fabric, policy)["leaf-su2-r3"], DeviceFaults(factory_qos=True), device)
    outs = simulator(NV.name).render_outputs(stock, device)
    assert "qos roce" not in outs["nv config show -o commands"]
    parsed = NV.parse_outputs({c.file: outs[c.cli] for c in NV.commands(device)}, device)
    assert parsed == stock
    rules = {f[0] for f in findings_of(fabric, policy, "leaf-su2-r3", parsed)}
    assert {"qos.trust", "pfc.enabled", "ecn.enabled", "cnp.strict_queue", "pfc.watchdog"} <= rules
    assert "qos.dscp_map" not in rules  # DSCP 26 >> 3 is 3 and 48 >> 3 is 6: the stock map agrees


def test_not_operational_on_a_platform_without_an_operational_column_is_refused(lab_fabric, lab_policy):
    device = lab_fabric.devices["leaf-su1-r1"]
    with pytest.raises(InputError, match="not_operational"):
        apply_faults(
            live_states(lab_fabric, lab_policy)["leaf-su1-r1"], DeviceFaults(not_operational=["ecn"]), device
        )


# --- headroom: the cable length the switch sizes for ------------------------------------------------


def test_a_port_left_at_the_roce_default_cable_length_is_named_as_such(fabric, policy):
    config = COMMANDS.read_text().replace("nv set qos roce cable-length 3\n", "")
    state = NV.parse_outputs(
        outputs(
            nv_config_show_commands=config,
            nv_show_qos_roce=(CUMULUS / "nv_show_qos_roce_lossless.txt")
            .read_text()
            .replace("cable-length      3", "cable-length      100"),
        ),
        leaf(fabric),
    )
    found = [
        f
        for f in run_checks(fabric, policy, live_states(fabric, policy) | {"leaf-su1-r1": state})
        if f.device == "leaf-su1-r1"
    ]
    assert [(f.rule, f.severity.value, f.interface, f.actual) for f in found] == [
        ("pfc.cable_length", "warning", "swp1-4", "100 m (the platform default)")
    ]


# --- secrets ---------------------------------------------------------------------------------------

SECRET_LINES = {
    "nv set system aaa user netops password 'Pl41n Pass'": "Pl41n Pass",
    "nv set system aaa user netops hashed-password '$6$rounds=100000$abc$XYZhash'": "XYZhash",
    "nv set system aaa radius server 192.0.2.50 secret r4d1usKey": "r4d1usKey",
    "nv set system aaa tacacs server 1 secret 'T4cacs Key'": "T4cacs Key",
    "nv set system snmp-server readonly-community c0mmunityRO access any": "c0mmunityRO",
    "nv set system snmp-server readwrite-community-v6 c0mmunityRW6 access any": "c0mmunityRW6",
    "nv set system snmp-server username snmpv3 auth-sha Sh4AuthPw encrypt-aes A3sPrivKey": "Sh4AuthPw",
    "nv set system snmp-server username snmpv3 auth-md5 Md5AuthPw encrypt-des D3sPrivKey": "D3sPrivKey",
    "nv set vrf default router bgp neighbor 10.0.0.1 password 'bgp Secret'": "bgp Secret",
    "nv set vrf default router bgp peer-group SPINES password Gr0upPw": "Gr0upPw",
    "nv set interface swp1 router ospf authentication md5-key 0spfKey": "0spfKey",
    "nv set service ntp mgmt key 7 value Ntp7Key": "Ntp7Key",
    "nv set system snmp-server trap-destination 192.0.2.9 vrf mgmt community-password Tr4pComm": "Tr4pComm",
}


def test_every_secret_form_is_masked_and_qos_lines_are_left_alone():
    text = "\n".join(SECRET_LINES) + "\n" + COMMANDS.read_text()
    masked = NV.mask_secrets(text)
    for line, secret in SECRET_LINES.items():
        assert secret not in masked, line
    assert "A3sPrivKey" not in masked and "Md5AuthPw" not in masked
    assert NV.mask_secrets(masked) == masked
    qos = [line for line in COMMANDS.read_text().splitlines() if " qos " in line or " link " in line]
    assert all(line in masked.splitlines() for line in qos)
    assert NV.parse_config(masked.split("\n", len(SECRET_LINES))[-1], leaf_device()) == NV.parse_config(
        COMMANDS.read_text(), leaf_device()
    )


def leaf_device():
    return load_fabric(LAB).devices["leaf-su1-r1"]


def test_startup_yaml_secrets_are_masked():
    masked = NV.mask_secrets(STARTUP.read_text())
    for secret in ("bgp-Peer-Pass", "$nvsec$94d69b2f", "Q0mq3oRkzrO1g7oSg3K5h1", "n3tcfg-RO", "second-RO"):
        assert secret not in masked
    assert (
        NV.parse_config(masked, leaf_device()).interfaces
        == NV.parse_config(STARTUP.read_text(), leaf_device()).interfaces
    )


# --- remediation -----------------------------------------------------------------------------------


def _apply(running: str, commands: str) -> str:
    """What `nv config apply` leaves of a configuration after the commands (a set adds or replaces,
    an unset removes what it names), as a simple model of NVUE's tree."""
    from netcfg.platforms.cumulus.remediate import atoms, path_of

    settings = {
        a: None for line in running.splitlines() if line.startswith("nv set ") for a in atoms(line[3:])
    }
    for line in commands.splitlines():
        if line.startswith("nv unset "):
            path = "set " + line[len("nv unset ") :]
            settings = {s: None for s in settings if s != path and path_of(s) != path}
        elif line.startswith("nv set "):
            for atom in atoms(line[3:]):
                settings = {s: None for s in settings if path_of(s) != path_of(atom) or s == atom} | {
                    atom: None
                }
    return "".join(f"nv {s}\n" for s in settings)


def test_remediation_restores_intent_and_leaves_the_rest_of_the_switch_alone(fabric, policy):
    device = leaf(fabric)
    intended = NV.render_config(live_states(fabric, policy)["leaf-su1-r1"], device)
    running = COMMANDS.read_text().replace(
        "nv set interface swp1-4,swp31-32 link mtu 9214\n",
        "nv set interface swp1,swp3-4,swp31-32 link mtu 9214\nnv set interface swp2 link mtu 1500\n",
    ) + (
        "nv set interface swp3 qos pfc profile legacy\n"
        "nv set qos pfc legacy switch-priority 4\n"
        "nv set qos pfc default-global switch-priority 4\n"
        "nv set qos congestion-control default-global traffic-class 3 ecn disable\n"
    )
    fix = NV.remediate("leaf-su1-r1", intended, running)
    commands = fix.commands.splitlines()
    assert (
        "-nv set interface swp2 link mtu 1500" in fix.diff
        and "+nv set interface swp2 link mtu 9214" in fix.diff
    )
    assert commands[-1] == "nv config apply"
    assert "nv unset interface swp3 qos pfc profile" in commands
    assert "nv unset qos pfc default-global switch-priority 4" in commands
    assert "nv unset qos congestion-control default-global traffic-class 3 ecn" in commands
    assert not [c for c in commands if "bgp" in c or "aaa" in c or "snmp" in c or "swp5" in c]
    after = _apply(running, fix.commands)
    assert (
        NV.parse_config(after, device).interfaces["swp2"]
        == NV.parse_config(intended, device).interfaces["swp2"]
    )
    restored = NV.parse_config(after, device)
    wanted = NV.parse_config(intended, device)
    assert {n: restored.interfaces[n] for n in FABRIC_PORTS} == {
        n: wanted.interfaces[n] for n in FABRIC_PORTS
    }
    assert (restored.dscp_map, restored.tc_queue, restored.watchdog) == (
        wanted.dscp_map,
        wanted.tc_queue,
        wanted.watchdog,
    )
    assert "router bgp" in after and "hashed-password" in after
    assert NV.remediate("leaf-su1-r1", intended, COMMANDS.read_text()).diff == ""
