"""ConnectX host parsing: mlnx_qos, ethtool -i, sysfs/configfs dumps, lldpcli and host scripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from netcfg.model import Device, DeviceState, Gid, LldpNeighbor, Nic, Role
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator

FIXTURES = Path(__file__).parent / "fixtures" / "connectx"
cx = get_platform("connectx")
DEFAULT_DSCP_MAP = {d: d >> 3 for d in range(64)}


def host() -> Device:
    return Device(
        "gpu07",
        Role.HOST,
        "connectx",
        su=2,
        nics=[Nic(1, "eth0", "mlx5_0"), Nic(2, "eth1", "mlx5_1")],
    )


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def files() -> dict[str, str]:
    """Command.cli -> Command.file of the settings' commands (counters: tests/test_host_counters.py),
    taken from the platform instead of hard-coded."""
    return {c.cli: c.file for c in cx.commands(host()) if not c.counters}


def cli(prefix: str, netdev: str | None = None) -> str:
    """The command line that starts with `prefix` (and names `netdev`, when given)."""
    (match,) = [c for c in files() if c.startswith(prefix) and (netdev is None or netdev in c)]
    return match


def full_outputs() -> dict[str, str]:
    f = files()
    return {
        f[cli("mlnx_qos", "eth0")]: fixture("mlnx_qos_trust_dscp_pfc3.txt"),
        f[cli("mlnx_qos", "eth1")]: fixture("mlnx_qos_dscp26_prio4.txt"),
        f[cli("grep", "eth0")]: fixture("sysfs_eth0_no_configfs.txt"),
        f[cli("grep", "eth1")]: fixture("sysfs_eth1.txt"),
        f[cli("ethtool", "eth0")]: fixture("ethtool_i_cx7_psid.txt"),
        f[cli("ethtool", "eth1")]: fixture("ethtool_i_cx6dx_no_psid.txt"),
        f[cli("grep -rsHvx", "mlx5_0")]: fixture("gids_mlx5_0_ipv4.txt"),
        f[cli("grep -rsHvx", "mlx5_1")]: fixture("gids_mlx5_1_vlan_link_local_at_3.txt"),
        f[cli("mlxconfig", "mlx5_0")]: fixture("mlxconfig_e_q_cx7_ieee_not_willing.txt"),
        f[cli("mlxconfig", "mlx5_1")]: fixture("mlxconfig_e_q_cx6dx_dual_port.txt"),
        f[cli("lldpcli")]: fixture("lldpcli_show_neighbors.txt"),
    }


@pytest.fixture(scope="module")
def state() -> DeviceState:
    return cx.parse_outputs(full_outputs(), host())


def test_commands_cover_every_nic():
    names = set(files().values())
    assert {
        "mlnx_qos_eth0",
        "mlnx_qos_eth1",
        "sysfs_eth0",
        "sysfs_eth1",
        "ethtool_eth0",
        "ethtool_eth1",
    } <= names
    assert "lldpcli_show_neighbors" in names


# --- mlnx_qos -------------------------------------------------------------------------------------


def test_mlnx_qos_trust_dscp_pfc3(state: DeviceState):
    port = state.interfaces["eth0"]
    assert port.trust == "dscp"
    assert port.pfc_enabled is True
    assert port.no_drop_priorities == frozenset({3})
    assert port.cable_m == 5
    assert port.dscp_map == DEFAULT_DSCP_MAP
    assert state.dscp_priority(26, "eth0") == 3
    assert state.dscp_priority(48, "eth0") == 6
    assert port.strict_queues == frozenset({6})


def test_mlnx_qos_modified_dscp2prio(state: DeviceState):
    port = state.interfaces["eth1"]
    assert state.dscp_priority(26, "eth1") == 4
    assert state.dscp_priority(27, "eth1") == 3
    assert port.dscp_map == {**DEFAULT_DSCP_MAP, 26: 4}
    assert port.cable_m == 3
    assert port.strict_queues == frozenset()


def test_mlnx_qos_trust_pcp_without_pfc():
    outputs = full_outputs()
    outputs[files()[cli("mlnx_qos", "eth0")]] = fixture("mlnx_qos_trust_pcp_no_pfc.txt")
    port = cx.parse_outputs(outputs, host()).interfaces["eth0"]
    assert port.trust == "pcp"
    assert port.pfc_enabled is False
    assert port.no_drop_priorities == frozenset()
    assert port.cable_m == 7
    # No dscp2prio table in pcp mode: the RoCE DSCP's priority is unknown, not a default.
    assert not port.dscp_map
    assert (port.dscp_map or {}).get(26) is None


def test_mlnx_qos_garbage_is_unparsed():
    outputs = full_outputs()
    mlnx = cli("mlnx_qos", "eth0")
    outputs[files()[mlnx]] = "Netlink error: Operation not supported\n"
    state = cx.parse_outputs(outputs, host())
    assert mlnx in state.unparsed
    port = state.interfaces["eth0"]
    assert (port.trust, port.pfc_enabled, port.no_drop_priorities) == (None, None, None)
    # The other NIC is still read.
    assert state.interfaces["eth1"].trust == "dscp"


# --- ethtool -i -----------------------------------------------------------------------------------


def test_ethtool_firmware_with_psid(state: DeviceState):
    port = state.interfaces["eth0"]
    assert port.driver == "mlx5_core"
    assert port.firmware == "28.42.1000"


def test_ethtool_firmware_without_psid(state: DeviceState):
    assert state.interfaces["eth1"].firmware == "22.39.2048"
    assert state.interfaces["eth1"].driver == "mlx5_core"


# --- sysfs / configfs dump ------------------------------------------------------------------------


def test_sysfs_dump_values(state: DeviceState):
    port = state.interfaces["eth1"]
    assert port.mtu == 9000
    assert port.ecn_np_priorities == frozenset({3})
    assert port.ecn_rp_priorities == frozenset({3, 5})
    assert port.cnp_dscp == 48
    assert port.cnp_priority == 6
    assert port.roce_mode == "RoCE v2"
    assert port.roce_tos == 106
    assert port.dcqcn["rpg_time_reset"] == 300
    assert port.dcqcn["rpg_byte_reset"] == 32767
    assert port.dcqcn["rpg_min_dec_fac"] == 50
    assert port.dcqcn["dce_tcp_g"] == 1019
    assert port.dcqcn["min_time_between_cnps"] == 4
    # CNP settings have their own fields, not dcqcn entries; enable/N are priority sets.
    assert "cnp_dscp" not in port.dcqcn
    assert "enable" not in port.dcqcn


def test_sysfs_values_stay_on_their_own_nic(state: DeviceState):
    eth0 = state.interfaces["eth0"]
    assert eth0.ecn_np_priorities == frozenset()  # all eight enable/N are 0
    assert eth0.ecn_rp_priorities == frozenset({3})
    assert "rpg_byte_reset" not in eth0.dcqcn


def test_sysfs_without_configfs_leaves_roce_mode_unknown(state: DeviceState):
    port = state.interfaces["eth0"]
    assert port.roce_mode is None
    assert port.roce_tos is None
    assert port.mtu == 9000


# --- lldpcli --------------------------------------------------------------------------------------


def test_lldpcli_two_interfaces(state: DeviceState):
    assert state.lldp == [
        LldpNeighbor("eth0", "leaf-su1-r1", "Ethernet7"),
        LldpNeighbor("eth1", "leaf-su1-r2", "Ethernet7"),
    ]


def test_lldpcli_empty_table_is_known_empty():
    outputs = full_outputs()
    outputs[files()[cli("lldpcli")]] = "-" * 79 + "\nLLDP neighbors:\n" + "-" * 79 + "\n"
    state = cx.parse_outputs(outputs, host())
    assert state.lldp == []
    assert cli("lldpcli") not in state.unparsed


# --- missing outputs ------------------------------------------------------------------------------


def test_complete_outputs_leave_nothing_unparsed(state: DeviceState):
    assert state.unparsed == {}
    assert state.facets == frozenset({"qos", "version", "lldp"})


@pytest.mark.parametrize(
    ("prefix", "netdev"), [("mlnx_qos", "eth1"), ("grep", "eth0"), ("ethtool", "eth1"), ("lldpcli", None)]
)
def test_each_missing_output_is_unparsed(prefix: str, netdev: str | None):
    command = cli(prefix, netdev)
    outputs = full_outputs()
    del outputs[files()[command]]
    state = cx.parse_outputs(outputs, host())
    assert list(state.unparsed) == [command]
    assert state.unparsed[command]


def test_no_outputs_at_all():
    state = cx.parse_outputs({}, host())
    # Every settings output but the GID tables, the firmware's settings and the ROCE_ACCL register,
    # which snapshots from before netcfg read them lack (and hosts without NVIDIA's firmware tools, or
    # firmware without the register, cannot give): unknown, not unreadable.
    optional = ("grep -rsHvx", "mlxconfig", "mlxreg ")
    assert set(state.unparsed) == {cli for cli in files() if not cli.startswith(optional)}
    for port in state.interfaces.values():
        assert (port.trust, port.mtu, port.firmware, port.roce_mode) == (None, None, None, None)
    assert state.lldp == []


def test_ethtool_without_firmware_line_is_unparsed():
    outputs = full_outputs()
    command = cli("ethtool", "eth0")
    outputs[files()[command]] = "Cannot get driver information: No such device\n"
    state = cx.parse_outputs(outputs, host())
    assert command in state.unparsed
    assert state.interfaces["eth0"].firmware is None


# --- host script (parse_config) -------------------------------------------------------------------


@pytest.fixture(scope="module")
def script() -> DeviceState:
    return cx.parse_config(fixture("host_hand_edited.sh"), host())


def test_host_script_first_nic(script: DeviceState):
    port = script.interfaces["eth0"]
    assert port.mtu == 9000
    assert port.trust == "dscp"
    assert port.pfc_enabled is True
    assert port.no_drop_priorities == frozenset({3})
    assert port.cable_m == 3
    assert port.ecn_np_priorities == frozenset({3})
    assert port.ecn_rp_priorities == frozenset({3})
    assert port.cnp_dscp == 48
    assert port.cnp_priority == 6
    assert port.dcqcn == {
        "min_time_between_cnps": 4,
        "rpg_ai_rate": 5,
        "rpg_hai_rate": 50,
        "rpg_time_reset": 300,
    }
    assert port.roce_mode == "RoCE v2"
    assert port.roce_tos == 106
    # No dscp2prio line: the NIC's default map (DSCP >> 3) applies.
    assert port.dscp_map == DEFAULT_DSCP_MAP


def test_host_script_hand_edits_on_second_nic(script: DeviceState):
    port = script.interfaces["eth1"]
    assert port.mtu == 4200
    assert port.trust == "pcp"
    assert port.no_drop_priorities == frozenset({3, 4})
    assert port.dscp_map == {**DEFAULT_DSCP_MAP, 26: 4}
    assert port.cable_m == 5
    assert port.ecn_np_priorities == frozenset({3, 4})
    assert port.ecn_rp_priorities == frozenset()  # `set_ecn eth1 rp none`
    assert port.cnp_dscp == 46
    assert port.cnp_priority is None
    assert port.dcqcn == {"rpg_min_dec_fac": 25}
    assert port.roce_mode == "IB/RoCE v1"
    assert port.roce_tos == 0


def test_host_script_parses_cleanly(script: DeviceState):
    assert script.unparsed == {}
    assert script.facets == frozenset({"qos"})
    assert set(script.interfaces) == {"eth0", "eth1"}


def test_host_script_round_trips_through_render(script: DeviceState):
    again = cx.parse_config(cx.render_config(script, host()), host())
    for name in ("eth0", "eth1"):
        assert again.interfaces[name] == script.interfaces[name]


def test_host_script_pfc_all_zero_means_pfc_off():
    state = cx.parse_config("mlnx_qos -i eth0 --pfc 0,0,0,0,0,0,0,0\n", host())
    assert state.interfaces["eth0"].no_drop_priorities == frozenset()
    assert state.interfaces["eth0"].pfc_enabled is False


@pytest.mark.parametrize("value", ["set,26", "set,26,x", "del,26,4"])
def test_host_script_bad_dscp2prio_is_unparsed(value: str):
    state = cx.parse_config(f"mlnx_qos -i eth0 --trust dscp\nmlnx_qos -i eth0 --dscp2prio {value}\n", host())
    assert state.unparsed
    assert any("eth0" in what for what in state.unparsed)
    # The bad line did not change the map.
    assert state.interfaces["eth0"].dscp_map == DEFAULT_DSCP_MAP


def test_host_script_without_settings_is_unparsed():
    state = cx.parse_config("#!/usr/bin/env bash\nset -euo pipefail\necho nothing to see\n", host())
    assert "host script" in state.unparsed
    assert state.interfaces == {}


def test_host_script_ignores_unknown_netdevs(script: DeviceState):
    state = cx.parse_config("ip link set dev eth9 mtu 1500\nip link set dev eth0 mtu 9000\n", host())
    assert "eth9" not in state.interfaces
    assert state.interfaces["eth0"].mtu == 9000


# --- other real layouts ---------------------------------------------------------------------------


def test_mlnx_qos_tab_layout_with_ets_bandwidth_and_rate_limit():
    """Newer mlnx_qos indents with tabs, adds buffer rows and prints `tsa: ets, bw: 50%` classes."""
    outputs = full_outputs()
    outputs[files()[cli("mlnx_qos", "eth0")]] = fixture("mlnx_qos_tabs_ets_strict.txt")
    state = cx.parse_outputs(outputs, host())
    port = state.interfaces["eth0"]
    assert (port.trust, port.no_drop_priorities, port.pfc_enabled, port.cable_m) == (
        "dscp",
        frozenset({3}),
        True,
        10,
    )
    assert port.dscp_map == DEFAULT_DSCP_MAP
    assert port.strict_queues == frozenset({6})
    assert cli("mlnx_qos", "eth0") not in state.unparsed


def test_ethtool_keeps_the_psid_apart_from_the_firmware(state: DeviceState):
    assert (state.interfaces["eth0"].firmware, state.interfaces["eth0"].psid) == (
        "28.42.1000",
        "MT_0000000838",
    )
    assert (state.interfaces["eth1"].firmware, state.interfaces["eth1"].psid) == ("22.39.2048", None)


def test_ethtool_of_an_intel_nic():
    outputs = full_outputs()
    outputs[files()[cli("ethtool", "eth1")]] = fixture("ethtool_i_intel_i40e.txt")
    port = cx.parse_outputs(outputs, host()).interfaces["eth1"]
    assert (port.driver, port.firmware, port.psid) == ("i40e", "9.20 0x8000d8c5 1.3429.0", None)


# --- findings on the lab's hosts: unreadable outputs, a foreign NIC -------------------------------


def lab_host_findings(lab_fabric, lab_policy, name: str, **replace: str | None) -> list:
    """Findings for one lab host whose outputs are the lab's, but for `replace` (file -> text, None
    drops the output)."""
    from netcfg.checks.runner import run_checks
    from netcfg.lab.devices import live_states

    device = lab_fabric.devices[name]
    rendered = simulator(cx.name).render_outputs(live_states(lab_fabric, lab_policy)[name], device)
    outputs = {c.file: rendered[c.cli] for c in cx.commands(device)}
    for file, text in replace.items():
        if text is None:
            del outputs[file]
        else:
            outputs[file] = text
    state = cx.parse_outputs(outputs, device)
    return [f for f in run_checks(lab_fabric, lab_policy, {name: state}) if f.device == name]


def test_a_lab_host_as_rendered_is_clean(lab_fabric, lab_policy):
    assert lab_host_findings(lab_fabric, lab_policy, "gpu01") == []


def test_an_intel_nic_in_a_rail_is_a_driver_finding(lab_fabric, lab_policy):
    findings = lab_host_findings(
        lab_fabric, lab_policy, "gpu01", ethtool_eth1=fixture("ethtool_i_intel_i40e.txt")
    )
    driver = [f for f in findings if f.rule == "host.driver"]
    assert [(f.interface, f.expected, f.actual) for f in driver] == [("eth1", "mlx5_core", "i40e")]
    assert driver[0].severity == "error"


def _cut(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[: int(len(lines) * 0.4)])


@pytest.mark.parametrize(
    ("file", "damage"),
    [
        ("mlnx_qos_eth2", _cut),
        ("mlnx_qos_eth2", lambda t: "Netlink error: Operation not supported\n"),
        ("mlnx_qos_eth2", None),
        ("sysfs_eth1", lambda t: "grep: /sys/class/net/eth1/ecn: No such file or directory\n"),
        ("ethtool_eth0", lambda t: "Cannot get driver information: No such device\n"),
        ("ethtool_eth3", lambda t: "".join(f"{len(line):04x}{line[::-1]}\n" for line in t.splitlines())),
    ],
)
def test_an_unreadable_nic_output_is_one_finding_and_nothing_else(lab_fabric, lab_policy, file, damage):
    from netcfg.lab.devices import live_states

    device = lab_fabric.devices["gpu01"]
    rendered = simulator(cx.name).render_outputs(live_states(lab_fabric, lab_policy)["gpu01"], device)
    text = {c.file: rendered[c.cli] for c in cx.commands(device)}[file]
    findings = lab_host_findings(lab_fabric, lab_policy, "gpu01", **{file: damage(text) if damage else None})
    assert [f.rule for f in findings] == ["parse.unknown_output"]
    assert file.split("_")[-1] in findings[0].expected


# --- host script: where each setting stands -------------------------------------------------------


def test_host_script_locations(script: DeviceState):
    lines = fixture("host_hand_edited.sh").splitlines()

    def at(text: str) -> int:
        return lines.index(text) + 1

    loc = script.locations
    assert loc["eth1.trust"] == at("mlnx_qos -i eth1 --trust pcp")
    assert loc["eth1.no_drop_priorities"] == at("mlnx_qos -i eth1 --pfc 0,0,0,1,1,0,0,0")
    assert loc["eth1.dscp_map"] == at("mlnx_qos -i eth1 --dscp2prio set,26,4")
    assert loc["eth0.mtu"] == at("ip link set dev eth0 mtu 9000")
    assert loc["eth1.ecn_rp_priorities"] == at("set_ecn eth1 rp none")
    cm = "set_params /sys/kernel/config/rdma_cm/mlx5_0/ports/1"
    assert (
        loc["eth0.roce_mode"]
        == loc["eth0.roce_tos"]
        == at(f"{cm} 'default_roce_mode=RoCE v2' default_roce_tos=106")
    )
    assert loc["eth0.dcqcn"] == at(
        "set_params /sys/class/net/eth0/ecn/roce_rp rpg_ai_rate=5 rpg_hai_rate=50 rpg_time_reset=300"
    )
    # The commented-out revert lines at the end set nothing.
    assert loc["eth1.cnp_dscp"] == at("set_params /sys/class/net/eth1/ecn/roce_np cnp_dscp=46")
    # A setting the script lacks points at the NIC's first line.
    assert script.line_of("eth1", ("cnp_priority",)) == loc["eth1"] == at("ip link set dev eth1 mtu 4200")


def test_host_script_with_crlf_line_endings_is_refused_with_its_line():
    text = "#!/usr/bin/env bash\nset -euo pipefail\r\nip link set dev eth0 mtu 9000\r\n"
    state = cx.parse_config(text, host())
    assert state.unparsed == {"host script": "CRLF line ending; expected LF"}
    assert state.locations["host script"] == 2


# --- receive buffers, DCBX agent, GIDs, outputs of other tools ------------------------------------


def test_mlnx_qos_receive_buffers_and_priority_map(state: DeviceState):
    port = state.interfaces["eth0"]
    assert port.priority_buffers == {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0}
    assert [port.pg_buffers[b].size for b in range(8)] == [130944, 130944, 0, 0, 0, 0, 0, 0]
    assert port.dcbx_agent == "os"


def test_mlnx_qos_without_buffer_lines_leaves_buffers_unknown(state: DeviceState):
    port = state.interfaces["eth1"]  # the older layout: no `Receive buffer size`, no `buffer` row
    assert port.priority_buffers is None
    assert port.pg_buffers == {}


def test_mlnx_qos_max_buffer_size_layout_and_firmware_dcbx():
    text = fixture("mlnx_qos_tabs_ets_strict.txt").replace("total_size=", "max_buffer_size=")
    text = text.replace("DCBX mode: OS controlled", "DCBX mode: Firmware controlled")
    outputs = full_outputs()
    outputs[files()[cli("mlnx_qos", "eth0")]] = text
    port = cx.parse_outputs(outputs, host()).interfaces["eth0"]
    assert port.dcbx_agent == "firmware"
    assert port.priority_buffers == {p: int(p == 3) for p in range(8)}
    assert port.pg_buffers[1].size == 130944


def firmware_controlled(outputs: dict[str, str]) -> dict[str, str]:
    for netdev in ("eth0", "eth1"):
        key = files()[cli("mlnx_qos", netdev)]
        outputs[key] = outputs[key].replace("DCBX mode: OS controlled", "DCBX mode: Firmware controlled")
    return outputs


def test_firmware_dcbx_reads_the_current_column_of_the_nics_own_port():
    ports = cx.parse_outputs(firmware_controlled(full_outputs()), host()).interfaces
    # eth0: a single-port ConnectX-7 set to IEEE only, not willing.
    assert (ports["eth0"].dcbx_mode, ports["eth0"].dcbx_willing) == ("ieee", False)
    # eth1 is PCI function 1 (`bus-info: 0000:3b:00.1`) of a dual-port card: its settings are the
    # `_P2` ones (CEE only, not willing), not port 1's; its Next Boot column is not what runs now.
    assert (ports["eth1"].dcbx_mode, ports["eth1"].dcbx_willing) == ("cee", False)


def test_firmware_dcbx_is_unknown_where_the_os_runs_dcbx(state: DeviceState):
    # The fixtures' mlnx_qos say `OS controlled`: the firmware's agent is off, lldpad (unread) decides.
    assert {(p.dcbx_mode, p.dcbx_willing) for p in state.interfaces.values()} == {(None, None)}
    assert not [c for c in state.unparsed if c.startswith("mlxconfig")]


def test_the_planes_a_nics_port_is_split_over_are_read_whoever_runs_dcbx(state: DeviceState):
    # eth0's ConnectX-7 shows NUM_OF_PLANES_P1 0 (one plane); eth1's ConnectX-6 Dx has no such setting.
    assert (state.interfaces["eth0"].nic_planes, state.interfaces["eth1"].nic_planes) == (1, None)
    outputs = full_outputs()
    outputs[files()[cli("mlxconfig", "mlx5_0")]] = fixture("mlxconfig_e_q_cx8_two_planes.txt")
    parsed = cx.parse_outputs(outputs, host())
    # A ConnectX-8 set up for hardware plane load balancing over two planes: the Current column.
    assert parsed.interfaces["eth0"].nic_planes == 2
    assert not [c for c in parsed.unparsed if c.startswith("mlxconfig")]


def test_firmware_dcbx_of_a_dual_port_card_without_its_pci_address_is_unknown():
    outputs = firmware_controlled(full_outputs())
    key = files()[cli("ethtool", "eth1")]
    outputs[key] = outputs[key].replace("bus-info: 0000:3b:00.1\n", "")
    ports = cx.parse_outputs(outputs, host()).interfaces
    assert (ports["eth1"].dcbx_mode, ports["eth1"].dcbx_willing) == (None, None)
    # A single-port card has only `_P1` settings: no PCI address is needed to read them.
    key = files()[cli("ethtool", "eth0")]
    outputs[key] = outputs[key].replace("bus-info: 0000:27:00.0\n", "")
    assert cx.parse_outputs(outputs, host()).interfaces["eth0"].dcbx_mode == "ieee"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            fixture("mlxconfig_q_next_boot_only.txt"),
            "mlxconfig table of Next Boot values only (plain `q`): the running settings are unknown; "
            "netcfg reads `mlxconfig -e -d DEV q`",
        ),
        (
            fixture("ethtool_i_cx7_psid.txt"),
            "this is ethtool -i output; netcfg reads `mlxconfig -e -d DEV q` for firmware settings",
        ),
        ("Device #1:\n----------\n\nDevice type:    ConnectX7\n", "no `Configurations:` table"),
    ],
)
def test_firmware_dcbx_from_other_output_is_unknown_and_named(text: str, reason: str):
    outputs = firmware_controlled(full_outputs())
    command = cli("mlxconfig", "mlx5_0")
    outputs[files()[command]] = text
    state = cx.parse_outputs(outputs, host())
    assert state.unparsed == {command: reason}
    assert (state.interfaces["eth0"].dcbx_mode, state.interfaces["eth0"].dcbx_willing) == (None, None)


@pytest.mark.parametrize(
    "text", ["-E- Failed to open the device\n", "bash: mlxconfig: command not found\n", ""]
)
def test_firmware_dcbx_is_unknown_without_complaint_where_mft_cannot_read(text: str):
    outputs = firmware_controlled(full_outputs())
    command = cli("mlxconfig", "mlx5_0")
    outputs[files()[command]] = text
    state = cx.parse_outputs(outputs, host())
    assert command not in state.unparsed
    assert (state.interfaces["eth0"].dcbx_mode, state.interfaces["eth0"].dcbx_willing) == (None, None)


def test_the_real_netarbiter_mlnx_qos_reads_with_buffers_unknown():
    """The corpus's older mlnx_qos (MLNX_OFED 4.x, no buffer section): read, buffers unknown."""
    outputs = full_outputs()
    outputs[files()[cli("mlnx_qos", "eth0")]] = fixture("mlnx_qos_trust_dscp_pfc3.txt").replace(
        "Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,\n", ""
    )
    state = cx.parse_outputs(outputs, host())
    assert state.interfaces["eth0"].no_drop_priorities == frozenset({3})
    assert state.interfaces["eth0"].priority_buffers is None
    assert cli("mlnx_qos", "eth0") not in state.unparsed


def test_gid_table(state: DeviceState):
    gids = state.interfaces["eth0"].gids
    assert gids is not None and sorted(gids) == [0, 1, 2, 3]
    assert gids[3] == Gid("0000:0000:0000:0000:0000:ffff:0a01:0207", "RoCE v2", "eth0")
    assert (gids[1].type, gids[1].address[:4]) == ("RoCE v2", "fe80")
    vlan = state.interfaces["eth1"].gids
    assert vlan is not None and (vlan[3].netdev, vlan[3].address[:4], vlan[5].address[-9:]) == (
        "eth1.100",
        "fe80",
        "0a02:0207",
    )


def test_gid_command_is_read_only():
    from netcfg.platforms.base import is_read_only

    gid_reads = [c.cli for c in cx.commands(host()) if c.file.startswith("gids_")]
    assert len(gid_reads) == 2
    assert all(is_read_only(cx, c) for c in gid_reads)
    assert not is_read_only(cx, gid_reads[0] + " /etc/shadow")


def test_an_empty_gid_read_is_unknown_not_empty():
    outputs = full_outputs()
    command = cli("grep -rsHvx", "mlx5_1")
    outputs[files()[command]] = ""
    state = cx.parse_outputs(outputs, host())
    assert state.interfaces["eth1"].gids is None
    assert state.unparsed == {command: "no GID lines: no RDMA device mlx5_1, or no GIDs"}


MLXFWMANAGER = """Querying Mellanox devices firmware ...

Device #1:
----------

  Device Type:      ConnectX7
  Part Number:      MCX75310AAS-NEA_Ax
  Description:      NVIDIA ConnectX-7 HHHL adapter card; 400GbE / NDR IB (default mode); single-port OSFP
  PSID:             MT_0000000838
  PCI Device Name:  /dev/mst/mt4129_pciconf0
  Base GUID:        a088c20300317e4a
  Base MAC:         a088c2317e4a
  Versions:         Current        Available
     FW             28.42.1000     N/A
     PXE            3.7.0400       N/A
     UEFI           14.35.0015     N/A

  Status:           No matching image found
"""


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (
            ("ethtool", "eth0"),
            "this is mlxfwmanager or mlxup --query output; netcfg reads `ethtool -i IF` for firmware",
        ),
        (
            ("mlnx_qos", "eth1"),
            "this is mlxfwmanager or mlxup --query output; netcfg reads `mlnx_qos -i IF` for QoS",
        ),
    ],
)
def test_firmware_tool_output_in_place_of_another_is_refused_by_name(command: tuple[str, str], reason: str):
    outputs = full_outputs()
    outputs[files()[cli(*command)]] = MLXFWMANAGER
    state = cx.parse_outputs(outputs, host())
    assert state.unparsed == {cli(*command): reason}


def test_the_first_mlnx_qos_layout_is_refused_by_name():
    """mlnx-tools' first mlnx_qos printed PFC and the TCs only: no trust, no DSCP map."""
    old = "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
    old += "\tenabled     0   0   0   1   0   0   0   0   \n\n"
    old += "tc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  0\n"
    outputs = full_outputs()
    outputs[files()[cli("mlnx_qos", "eth0")]] = old
    state = cx.parse_outputs(outputs, host())
    assert "without `Priority trust state`" in state.unparsed[cli("mlnx_qos", "eth0")]
    assert state.interfaces["eth0"].trust is None


def test_an_896_byte_buffer_read_from_mlnx_qos_is_a_finding(lab_fabric, lab_policy):
    """The gap issue 18 names: an 896-byte buffer for the lossless priority used to pass silently."""
    from netcfg.lab.devices import live_states

    device = lab_fabric.devices["gpu01"]
    rendered = simulator(cx.name).render_outputs(live_states(lab_fabric, lab_policy)["gpu01"], device)
    text = rendered[cx.commands(device)[0].cli]
    sizes = next(line for line in text.splitlines() if line.startswith("Receive buffer size"))
    small = sizes.split(": ")[1].split(",")
    small[1] = "896"
    findings = lab_host_findings(
        lab_fabric,
        lab_policy,
        "gpu01",
        mlnx_qos_eth0=text.replace(sizes, sizes.split(": ")[0] + ": " + ",".join(small)),
    )
    assert [(f.rule, f.interface, f.actual) for f in findings] == [
        ("host.receive_buffer", "eth0", "receive buffer 1: 896 B")
    ]
