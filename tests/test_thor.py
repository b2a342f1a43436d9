"""Broadcom Thor hosts: the host script (rendered and hand-edited), the read-back of bnxtqos, the
bnxt_re configfs and ethtool, Broadcom's own defaults, and what the checks make of them.

Fixtures in tests/fixtures/thor are shaped like the tools print: `get_qos` as niccli/bnxtqos print
it on AMD MI300X servers with Thor2 (BCM57608), the configfs dump as `grep -rH .` prints the
bnxt_re driver's attributes (`%#x`) and `cc/apply` (its `apply_show`), ethtool as bnxt_en prints it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from netcfg.checks.runner import run_checks
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, apply_faults, live_states
from netcfg.model import Device, DeviceState, LldpNeighbor, Nic, Role
from netcfg.platforms import get_platform
from netcfg.platforms.base import Command, is_read_only
from netcfg.platforms.simulator import simulator
from netcfg.policy import load_policy

FIXTURES = Path(__file__).parent / "fixtures"
THOR_FIXTURES = FIXTURES / "thor"
INVENTORY = THOR_FIXTURES / "inventory"
thor = get_platform("thor")
HOST = Device("gpu07", Role.HOST, "thor", su=2, nics=[Nic(1, "eth0", "bnxt_re0"), Nic(2, "eth1", "bnxt_re1")])


def fixture(name: str) -> str:
    return (THOR_FIXTURES / name).read_text(encoding="utf-8")


def file_of(prefix: str, netdev: str | None = None) -> str:
    """The snapshot file of the settings' command (counters: tests/test_host_counters.py) that starts
    with `prefix` (and names `netdev`, when given)."""
    return _command(prefix, netdev).file


def cli_of(prefix: str, netdev: str | None = None) -> str:
    return _command(prefix, netdev).cli


def _command(prefix: str, netdev: str | None) -> Command:
    (match,) = [
        c
        for c in thor.commands(HOST)
        if not c.counters and c.cli.startswith(prefix) and (netdev is None or netdev in c.cli)
    ]
    return match


def outputs(**replace: str | None) -> dict[str, str]:
    out = {
        file_of("bnxtqos", "eth0"): fixture("bnxtqos_get_qos_broadcom_defaults.txt"),
        file_of("bnxtqos", "eth1"): fixture("bnxtqos_get_qos_broadcom_defaults.txt"),
        file_of("grep", "eth0"): fixture("configfs_bnxt_setupcc_defaults.txt"),
        file_of("grep", "eth1"): fixture("configfs_cnp_prio_written_not_applied.txt"),
        file_of("ethtool", "eth0"): fixture("ethtool_i_thor2_bnxt_en.txt"),
        file_of("ethtool", "eth1"): fixture("ethtool_i_thor2_inbox_driver.txt"),
        file_of("grep -rsHvx", "bnxt_re0"): fixture("gids_bnxt_re_ipv4.txt"),
        file_of("grep -rsHvx", "bnxt_re1"): fixture("gids_bnxt_re_ipv4.txt")
        .replace("bnxt_re0", "bnxt_re1")
        .replace(":eth0", ":eth1"),
        file_of("lldpcli"): (FIXTURES / "connectx" / "lldpcli_show_neighbors.txt").read_text(
            encoding="utf-8"
        ),
    }
    for file, text in replace.items():
        if text is None:
            del out[file]
        else:
            out[file] = text
    return out


@pytest.fixture(scope="module")
def state() -> DeviceState:
    return thor.parse_outputs(outputs(), HOST)


@pytest.fixture(scope="module")
def fabric():
    return load_fabric(INVENTORY)


@pytest.fixture(scope="module")
def policy(fabric):
    return load_policy(fabric.policy_ref)


# --- read-back ------------------------------------------------------------------------------------


def test_a_nic_set_up_by_bnxt_setupcc_reads_as_broadcoms_defaults(state):
    port = state.interfaces["eth0"]
    assert (port.trust, port.pfc_enabled, port.no_drop_priorities) == ("dscp", True, frozenset({3}))
    # The DCB app table: DSCP 26 on 3, CNP DSCP 48 on 7 (the UDP 4791 entry is not a DSCP).
    assert port.dscp_map == {26: 3, 48: 7}
    assert state.dscp_priority(26, "eth0") == 3 and state.dscp_priority(48, "eth0") == 7
    # ETS: priority 7 on strict TC2, RoCE's priority 3 on TC1.
    assert port.strict_queues == frozenset({7})
    # default_roce_tos 104 (DSCP << 2, as Broadcom's script writes it), with the ECT(1) the
    # firmware marks (cc/apply: ecn marking ECT(1)): RoCE leaves as TOS 105.
    assert (port.roce_mode, port.roce_tos) == ("RoCE v2", 105)
    assert port.ecn_np_priorities == port.ecn_rp_priorities == frozenset({3})
    assert (port.cnp_dscp, port.cnp_priority) == (48, 7)
    assert port.dcqcn == {"min_time_between_cnps": 4}
    assert port.mtu == 9000
    assert port.cable_m is None


def test_firmware_and_driver_of_thor2_nics(state):
    eth0, eth1 = state.interfaces["eth0"], state.interfaces["eth1"]
    assert (eth0.driver, eth0.firmware, eth0.psid) == ("bnxt_en", "232.0.219.16", None)
    assert (eth1.driver, eth1.firmware) == ("bnxt_en", "231.0.154.0")


def test_lldp_and_nothing_unparsed(state):
    assert state.lldp == [
        LldpNeighbor("eth0", "leaf-su1-r1", "Ethernet7"),
        LldpNeighbor("eth1", "leaf-su1-r2", "Ethernet7"),
    ]
    assert state.unparsed == {}
    assert state.facets == frozenset({"qos", "version", "lldp"})


def test_a_cc_value_written_but_not_applied_is_read_as_the_firmware_runs_it(state):
    """cnp_prio shows 0x6 (written), `cat apply` shows 7 (what the firmware runs): the model has 7,
    and the difference is kept as a setting the hardware did not take."""
    port = state.interfaces["eth1"]
    assert port.cnp_priority == 7
    assert state.not_operational == {"eth1.cnp_prio": ("0x6", "7")}
    assert port.roce_tos == 106  # ECT(0) marked, as the policy asks


def test_a_cc_folder_removed_after_setup_is_one_unreadable_output():
    """bnxt_setupcc.sh removes the configfs folders it used: nothing to read back, said once."""
    state = thor.parse_outputs(
        outputs(**{file_of("grep", "eth1"): fixture("configfs_removed_by_bnxt_setupcc.txt")}), HOST
    )
    assert list(state.unparsed) == [cli_of("grep", "eth1")]
    assert "bnxt_re" in state.unparsed[cli_of("grep", "eth1")]
    assert "qos" not in state.facets
    port = state.interfaces["eth1"]
    assert (port.mtu, port.cnp_priority, port.roce_tos, port.trust) == (9000, None, None, None)


def test_two_lossless_priorities_and_no_app_table():
    text = fixture("bnxtqos_get_qos_two_lossless_no_apps.txt")
    port = thor.parse_outputs(outputs(**{file_of("bnxtqos", "eth0"): text}), HOST).interfaces["eth0"]
    assert port.no_drop_priorities == frozenset({3, 4})
    # No app TLV: the NIC maps no DSCP to a priority; the RoCE DSCP's class is unknown.
    assert port.dscp_map == {}
    assert port.strict_queues == frozenset()


@pytest.mark.parametrize(
    ("prefix", "netdev", "reason"),
    [
        ("bnxtqos", "eth1", "output missing"),
        ("grep", "eth0", "output missing"),
        ("ethtool", "eth1", "output missing"),
        ("lldpcli", None, "no LLDP neighbor table"),
    ],
)
def test_each_missing_output_is_unparsed(prefix, netdev, reason):
    state = thor.parse_outputs(outputs(**{file_of(prefix, netdev): None}), HOST)
    assert state.unparsed == {cli_of(prefix, netdev): reason}


@pytest.mark.parametrize(
    "text", ["bnxtqos: command not found\n", "Failed to get QoS settings: Operation not permitted\n", ""]
)
def test_get_qos_that_is_not_a_qos_dump_is_unparsed(text):
    state = thor.parse_outputs(outputs(**{file_of("bnxtqos", "eth0"): text}), HOST)
    assert list(state.unparsed) == [cli_of("bnxtqos", "eth0")]
    port = state.interfaces["eth0"]
    assert (port.no_drop_priorities, port.pfc_enabled, port.dscp_map) == (None, None, None)
    # The other NIC is still read.
    assert state.interfaces["eth1"].no_drop_priorities == frozenset({3})


def test_connectx_outputs_are_not_read_as_thor():
    cx_fixtures = FIXTURES / "connectx"
    state = thor.parse_outputs(
        outputs(
            **{
                file_of("bnxtqos", "eth0"): (cx_fixtures / "mlnx_qos_trust_dscp_pfc3.txt").read_text(),
                file_of("grep", "eth0"): (cx_fixtures / "sysfs_eth1.txt").read_text(),
            }
        ),
        HOST,
    )
    assert set(state.unparsed) == {cli_of("bnxtqos", "eth0"), cli_of("grep", "eth0")}


# --- findings -------------------------------------------------------------------------------------


def lab_outputs(fabric, policy, name: str, faults: DeviceFaults | None = None) -> dict[str, str]:
    device = fabric.devices[name]
    live = live_states(fabric, policy)[name]
    if faults is not None:
        live = apply_faults(live, faults, device)
    rendered = simulator(thor.name).render_outputs(live, device)
    return {c.file: rendered[c.cli] for c in thor.commands(device)}


def findings_of(fabric, policy, name: str, outputs_by_file: dict[str, str]) -> set[tuple[str, str, str]]:
    state = thor.parse_outputs(outputs_by_file, fabric.devices[name])
    return {
        (f.rule, f.expected, f.actual) for f in run_checks(fabric, policy, {name: state}) if f.device == name
    }


def test_a_lab_thor_host_as_rendered_is_clean(fabric, policy):
    assert findings_of(fabric, policy, "gpu01", lab_outputs(fabric, policy, "gpu01")) == set()


def test_a_thor_host_on_broadcoms_defaults_in_a_priority_6_fabric(fabric, policy):
    """The lab's `factory_qos` fault: Broadcom's CNP priority 7 where the fabric runs CNPs on 6."""
    found = findings_of(
        fabric, policy, "gpu05", lab_outputs(fabric, policy, "gpu05", DeviceFaults(factory_qos=True))
    )
    assert found == {
        ("host.roce", "6", "7"),  # CNP 802.1p priority
        ("qos.dscp_map", "6", "7"),  # CNP DSCP 48 -> priority
        ("host.roce", "106", "105"),  # TOS: DSCP 26 with ECT(1), not ECT(0)
    }


def test_an_mlx5_nic_in_a_thor_host_is_a_driver_finding(fabric, policy):
    replaced = lab_outputs(fabric, policy, "gpu01")
    replaced["ethtool_eth2"] = (FIXTURES / "connectx" / "ethtool_i_cx7_psid.txt").read_text()
    found = {f for f in findings_of(fabric, policy, "gpu01", replaced) if f[0] == "host.driver"}
    assert found == {("host.driver", "bnxt_en", "mlx5_core")}


def test_the_policy_asks_thor_only_for_the_dcqcn_knob_it_has(fabric, policy):
    """ConnectX's reaction-point knobs have no bnxt counterpart: not asked, not reported as unknown;
    the CNP gap is, and a drifted one is a finding."""
    device = fabric.devices["gpu02"]
    live = live_states(fabric, policy)["gpu02"]
    assert all(port.dcqcn == {"min_time_between_cnps": 4} for port in live.interfaces.values())
    live.interfaces["eth1"].dcqcn = {"min_time_between_cnps": 20}
    rendered = simulator(thor.name).render_outputs(live, device)
    state = thor.parse_outputs({c.file: rendered[c.cli] for c in thor.commands(device)}, device)
    found = [f for f in run_checks(fabric, policy, {"gpu02": state}) if f.device == "gpu02"]
    assert [(f.rule, f.interface, f.expected, f.actual) for f in found] == [("host.dcqcn", "eth1", "4", "20")]


# --- the host script ------------------------------------------------------------------------------


def rendered_script(fabric, policy, name: str = "gpu01") -> str:
    from netcfg.intent import fabric_intent

    return thor.render_config(fabric_intent(fabric, policy)[name], fabric.devices[name])


def test_the_script_writes_what_broadcoms_setup_writes(fabric, policy):
    text = rendered_script(fabric, policy)
    lines = text.splitlines()
    assert "ip link set eth0 mtu 9000" in lines
    assert "bnxtqos -dev=eth0 set_pfc enabled=3" in lines
    # All eight TSA entries, as bnxt_setupcc.sh writes them, and its three-TC fallback.
    prio_tc = "priority2tc=0:0,1:0,2:0,3:1,4:0,5:0,6:2,7:0 tcbw=50,50"
    assert (
        "bnxtqos -dev=eth0 set_ets tsa=0:ets,1:ets,2:strict,3:strict,4:strict,5:strict,6:strict,7:strict "
        f"{prio_tc} ||"
    ) in lines
    assert f"    bnxtqos -dev=eth0 set_ets tsa=0:ets,1:ets,2:strict {prio_tc}" in lines
    # RoCE v2 on the RoCE priority, the RoCE DSCP, and the CNP code point last.
    assert "set_apps eth0 3,3,4791 3,5,26 6,5,48" in lines
    assert "set_cm bnxt_re0 'default_roce_mode=RoCE v2' default_roce_tos=106" in lines
    assert (
        "set_cc bnxt_re0 disable_prio_vlan_tx=0x1 ecn_marking=0x2 ecn_enable=0x1 cc_mode=0x1 cnp_prio=0x6 "
        "roce_prio=0x3 roce_dscp=0x1a cnp_dscp=0x30 min_time_bet_cnp=0x4"
    ) in lines
    assert subprocess.run(["bash", "-n"], input=text, text=True, capture_output=True).returncode == 0


def test_lossy_mode_turns_pfc_off_and_keeps_congestion_control(fabric):
    policy = load_policy("roce-lossy")
    lines = rendered_script(fabric, policy).splitlines()
    assert "bnxtqos -dev=eth0 set_pfc enabled=none" in lines
    # No PFC, so no RoCE v2 port entry (as bnxt_setupcc.sh without PFC); DSCPs still classified.
    assert "set_apps eth0 3,5,26 6,5,48" in lines
    assert any(line.startswith("set_cc bnxt_re0 ") and "ecn_enable=0x1" in line for line in lines)


@pytest.fixture(scope="module")
def script() -> DeviceState:
    return thor.parse_config(fixture("host_hand_edited.sh"), HOST)


def test_hand_edited_script_first_nic(script):
    port = script.interfaces["eth0"]
    assert (port.mtu, port.trust, port.no_drop_priorities, port.pfc_enabled) == (
        9000,
        "dscp",
        frozenset({3}),
        True,
    )
    assert port.dscp_map == {26: 3, 48: 6}
    assert (port.roce_mode, port.roce_tos, port.cnp_dscp, port.cnp_priority) == ("RoCE v2", 106, 48, 6)
    assert port.ecn_np_priorities == port.ecn_rp_priorities == frozenset({3})
    assert port.strict_queues == frozenset({6})
    assert port.dcqcn == {"min_time_between_cnps": 4}


def test_hand_edits_on_the_second_nic(script):
    port = script.interfaces["eth1"]
    assert port.mtu == 4200
    assert port.trust == "pcp"  # disable_prio_vlan_tx=0x0: priority VLAN tags, PFC by PCP
    assert port.no_drop_priorities == frozenset({3, 4})
    assert port.dscp_map == {26: 4, 48: 7}
    assert port.cnp_priority == 7
    # `echo -n 26 > .../roce_dscp` sets DSCP 0x26 = 38, not the TOS's 26: the RoCE TOS is unknown.
    assert port.roce_tos is None
    assert script.unparsed == {}


def test_hand_edited_script_locations(script):
    lines = fixture("host_hand_edited.sh").splitlines()

    def at(prefix: str) -> int:
        return next(i for i, line in enumerate(lines, 1) if line.startswith(prefix))

    loc = script.locations
    assert loc["eth1.mtu"] == loc["eth1"] == at("ip link set eth1 mtu 4200")
    assert loc["eth1.no_drop_priorities"] == at("bnxtqos -dev=eth1 set_pfc")
    assert loc["eth1.dscp_map"] == at("set_apps eth1")
    assert loc["eth1.trust"] == loc["eth1.cnp_priority"] == at("set_cc bnxt_re1")
    # The last line that sets a setting decides: the hand-typed roce_dscp, and eth0's echoed MTU.
    assert loc["eth1.roce_tos"] == at("echo -n 26 >")
    assert loc["eth0.mtu"] == at("echo 9000 > /sys/class/net/eth0/mtu")


def test_check_configs_points_at_the_hand_edited_lines(fabric, policy, tmp_path):
    from netcfg.sources import config_states

    device = fabric.devices["gpu07"]
    text = rendered_script(fabric, policy, "gpu07").replace(
        "set_apps eth1 3,3,4791 3,5,26 6,5,48", "set_apps eth1 3,3,4791 4,5,26 6,5,48"
    )
    (tmp_path / "gpu07.sh").write_text(text)
    states = config_states(fabric, tmp_path)
    found = [f for f in run_checks(fabric, policy, states) if f.device == device.name]
    line = text.splitlines().index("set_apps eth1 3,3,4791 4,5,26 6,5,48") + 1
    pfc = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("bnxtqos -dev=eth1 set_pfc"))
    # RoCE now rides priority 4, which the NIC's PFC (on 3) does not pause: both lines are named.
    assert [(f.rule, f.interface, f.actual, f.file, f.line) for f in found] == [
        ("pfc.no_drop_priorities", "eth1", "{3}", str(tmp_path / "gpu07.sh"), pfc),
        ("qos.dscp_map", "eth1", "4", str(tmp_path / "gpu07.sh"), line),
    ]


def test_a_script_with_crlf_line_endings_is_refused_with_its_line():
    text = "#!/usr/bin/env bash\nset -euo pipefail\r\nbnxtqos -dev=eth0 set_pfc enabled=3\r\n"
    state = thor.parse_config(text, HOST)
    assert state.unparsed == {"host script": "CRLF line ending; expected LF"}
    assert state.locations["host script"] == 2


def test_scripts_of_the_two_nic_families_are_not_read_as_each_other(fabric, policy):
    connectx = get_platform("connectx")
    cx_script = (FIXTURES / "connectx" / "host_hand_edited.sh").read_text()
    assert list(thor.parse_config(cx_script, HOST).unparsed) == ["host script"]
    cx_host = Device("gpu07", Role.HOST, "connectx", nics=HOST.nics)
    assert list(connectx.parse_config(fixture("host_hand_edited.sh"), cx_host).unparsed) == ["host script"]
    eos = (FIXTURES / "eos" / "running_config_production.cfg").read_text()
    assert list(thor.parse_config(eos, HOST).unparsed) == ["host script"]


def test_unreadable_script_values_are_unparsed_not_guessed():
    text = "bnxtqos -dev=eth0 set_pfc enabled=3,9\nset_apps eth0 3,5\nset_cc bnxt_re0 cnp_prio=0xz\n"
    state = thor.parse_config(text, HOST)
    assert set(state.unparsed) == {"pfc line of eth0", "apps line of eth0", "cc line of eth0"}
    assert state.interfaces["eth0"].no_drop_priorities is None


SET_APPS_STUB = """#!/usr/bin/env bash
if [ "$2" = get_qos ]; then cat "$QOS"; else echo "$*" >> "$LOG"; fi
"""


@pytest.mark.parametrize(
    ("table", "want", "calls"),
    [
        # Already so: nothing is written (the script is idempotent).
        ("bnxtqos_get_qos_broadcom_defaults.txt", ["3,3,4791", "3,5,26", "7,5,48"], []),
        # Otherwise the table is cleared and written in order, CNP last.
        (
            "bnxtqos_get_qos_broadcom_defaults.txt",
            ["3,3,4791", "3,5,26", "6,5,48"],
            [
                "-dev=eth0 set_apptlv -d app=7,5,48",
                "-dev=eth0 set_apptlv -d app=3,5,26",
                "-dev=eth0 set_apptlv -d app=3,3,4791",
                "-dev=eth0 set_apptlv app=3,3,4791",
                "-dev=eth0 set_apptlv app=3,5,26",
                "-dev=eth0 set_apptlv app=6,5,48",
            ],
        ),
        ("bnxtqos_get_qos_two_lossless_no_apps.txt", ["3,5,26"], ["-dev=eth0 set_apptlv app=3,5,26"]),
    ],
)
def test_set_apps_writes_the_app_table_only_when_it_differs(fabric, policy, tmp_path, table, want, calls):
    """The script's own `set_apps`, run by bash against a bnxtqos that prints a real table."""
    text = rendered_script(fabric, policy)
    start = text.index("set_apps() {")
    function = text[start : text.index("\n}\n", start) + 3]
    stub = tmp_path / "bin" / "bnxtqos"
    stub.parent.mkdir()
    stub.write_text(SET_APPS_STUB)
    stub.chmod(0o755)
    log = tmp_path / "log"
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "QOS": str(THOR_FIXTURES / table), "LOG": str(log)}
    run = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{function}\nset_apps eth0 {' '.join(want)}"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert (log.read_text().splitlines() if log.exists() else []) == calls


# --- read-only collection -------------------------------------------------------------------------


def test_every_collected_command_is_read_only(fabric):
    for device in fabric.devices.values():
        if device.platform != "thor":
            continue
        for cli in [c.cli for c in thor.commands(device)] + [b.cli for b in thor.batches(device)]:
            assert is_read_only(thor, cli), cli


@pytest.mark.parametrize(
    "cli",
    [
        "bnxtqos -dev=eth0 set_pfc enabled=3",
        "bnxtqos -dev=eth0 set_apptlv -d app=3,5,26",
        "bnxtqos -dev=eth0 set_ets tsa=0:ets priority2tc=0:0 tcbw=100",
        "bnxtqos -dev=-h get_qos",
        "bnxtqos -dev=eth0 get_qos; reboot",
        "niccli -dev 0000:06:00.0 pfc -enable 3",
        "echo -n 0x7 > /sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/cnp_prio",
        "mkdir -p /sys/kernel/config/bnxt_re/bnxt_re0",
        "grep -rH . /sys/../etc/shadow",
        'echo "=== bnxtqos -dev=eth0 get_qos ==="; bnxtqos -dev=eth0 set_pfc enabled=none',
    ],
)
def test_commands_that_change_a_thor_host_are_not_read_only(cli):
    assert not is_read_only(thor, cli)


def test_the_lab_answers_every_thor_command(fabric, policy):
    from netcfg.lab.snapshot import simulated_outputs

    outputs_by_cli = simulated_outputs(fabric, policy, {})["gpu03"]
    assert set(outputs_by_cli) == {c.cli for c in thor.commands(fabric.devices["gpu03"])}


# --- the CLI on a fabric of Thor servers ----------------------------------------------------------


def test_cli_render_then_check_configs_and_a_faulty_snapshot(tmp_path, capsys):
    import json

    from netcfg.cli import main

    assert main(["render", str(INVENTORY), "-o", str(tmp_path / "configs")]) == 0
    script_text = (tmp_path / "configs" / "gpu03.sh").read_text()
    assert "bnxtqos -dev=eth0 set_pfc enabled=3" in script_text and "mlnx_qos" not in script_text
    assert main(["check", str(INVENTORY), "--configs", str(tmp_path / "configs")]) == 0
    faults = tmp_path / "faults.yaml"
    faults.write_text("devices:\n  gpu05: {factory_qos: true}\n  gpu06: {trust: pcp}\n")
    snapshot = tmp_path / "snapshot"
    assert main(["lab", "snapshot", str(INVENTORY), "--faults", str(faults), "-o", str(snapshot)]) == 0
    capsys.readouterr()
    assert main(["check", str(INVENTORY), "--snapshot", str(snapshot), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {f["device"] for f in report["findings"]} - {"(fabric)"} == {"gpu05", "gpu06"}
    # Fabric-wide findings name their hosts in the message: the one on Broadcom's CNP priority.
    assert all("gpu05" in f["message"] for f in report["findings"] if f["device"] == "(fabric)")


@pytest.mark.parametrize(
    "tsa",
    [
        "0:ets,1:ets,2:strict",
        "0:ets,1:ets,2:strict,3:strict,4:strict,5:strict,6:strict,7:strict",
    ],
)
def test_set_ets_with_three_or_eight_tsa_entries_reads_alike(tsa: str):
    script = f"bnxtqos -dev=eth0 set_ets tsa={tsa} priority2tc=0:0,1:0,2:0,3:1,4:0,5:0,6:2,7:0 tcbw=50,50\n"
    port = thor.parse_config(script, HOST).interfaces["eth0"]
    assert port.strict_queues == frozenset({6})


def test_get_qos_with_eight_tcs_reads_like_three():
    three = fixture("bnxtqos_get_qos_broadcom_defaults.txt")
    eight = three.replace(
        "TSA_MAP: 0:ets 1:ets 2:strict",
        "TSA_MAP: 0:ets 1:ets " + " ".join(f"{tc}:strict" for tc in range(2, 8)),
    )
    assert eight != three
    by_three = thor.parse_outputs(outputs(), HOST).interfaces["eth0"]
    by_eight = thor.parse_outputs(outputs(**{file_of("bnxtqos", "eth0"): eight}), HOST).interfaces["eth0"]
    assert by_eight.strict_queues == by_three.strict_queues == frozenset({7})
