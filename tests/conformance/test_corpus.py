"""Conformance: netcfg's parsers read the public samples in ../shared/corpus as a person reads them,
and report as unreadable every sample that is not what the parser is given it as.

Not part of `make test` (the corpus is not part of this repository): `make conformance` runs it when
the corpus folder exists. Samples are read in place, never copied.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from netcfg.model import Device, EcnSetting, LldpNeighbor, Nic, Role, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.eos import SEGMENT_BYTES
from netcfg.platforms.simulator import simulator

CORPUS = Path(os.environ.get("NETCFG_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))
EOS = get_platform("eos")
CX = get_platform("connectx")
SWITCH = Device("sw", Role.LEAF, "eos")
HOST = Device("host", Role.HOST, "connectx", nics=[Nic(1, "eth0", "mlx5_0")])
NIC_COMMANDS = {c.file: c.cli for c in CX.commands(HOST)}


def read(path: str) -> str:
    return (CORPUS / path).read_text(encoding="utf-8", errors="replace")


def samples(*folders: str, suffix: str = "") -> list[str]:
    found = [p for folder in folders for p in sorted((CORPUS / folder).iterdir()) if p.name.endswith(suffix)]
    return [str(p.relative_to(CORPUS)) for p in found]


# --- EOS show commands ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "model", "version"),
    [
        ("show/eos_show_version_7010T_4.28.9M.raw", "DCS-7010T-48-R", "4.28.9M"),
        ("show/eos_show_version_720XP_4.27.6M.raw", "CCS-720XP-24ZY4-F", "4.27.6M"),
        ("show/eos_show_version_ceoslab_4.31.6M.raw", "cEOSLab", "4.31.6M"),
        ("show/eos_show_version_veos_4.14.7M.raw", "vEOS", "4.14.7M"),
    ],
)
def test_eos_show_version(path: str, model: str, version: str) -> None:
    state = EOS.parse_outputs({"show_version": read(path)}, SWITCH)
    assert state.model == model
    assert state.os_version is not None and state.os_version.startswith(version)
    assert "show version" not in state.unparsed


@pytest.mark.parametrize("path", samples("show", suffix=".json"))
def test_eos_json_outputs_are_not_read_as_text(path: str) -> None:
    """eAPI JSON is not the text netcfg collects: each one is reported unreadable, never half-read."""
    state = EOS.parse_outputs(
        {"show_version": read(path), "show_lldp_neighbors": read(path), "show_running-config": read(path)},
        SWITCH,
    )
    assert set(state.unparsed) == {"show version", "show lldp neighbors", "show running-config"}
    assert (state.os_version, state.lldp, state.interfaces) == (None, [], {})
    assert not state.facets & {"qos", "version", "lldp"}


def test_eos_show_lldp_neighbors() -> None:
    state = EOS.parse_outputs({"show_lldp_neighbors": read("show/eos_show_lldp_neighbors.raw")}, SWITCH)
    assert [(n.local_interface, n.system_name, n.port) for n in state.lldp] == [
        (f"Ethernet{i}", "arista2", f"Ethernet{i}") for i in range(2, 8)
    ]
    assert "show lldp neighbors" not in state.unparsed


def test_eos_show_lldp_neighbors_detail_json() -> None:
    """napalm's eAPI mock of `show lldp neighbors detail | json`: hosts that send their MAC as port ID."""
    text = read("show/eos_show_lldp_neighbors_detail.json")
    state = EOS.parse_outputs({"show_lldp_neighbors_detail": text}, SWITCH)
    assert "show lldp neighbors detail" not in state.unparsed
    assert len(state.lldp) == 41
    assert state.lldp[:2] == [
        LldpNeighbor("Ethernet1", "78m1", "000f.532e.f180"),
        LldpNeighbor("Ethernet2", "78m1", "000f.532e.f181"),
    ]
    assert LldpNeighbor("Ethernet47", "ms01.bru01", "597") in state.lldp


# --- EOS configs ----------------------------------------------------------------------------------


def test_avd_interfaces_pfc_priorities() -> None:
    state = EOS.parse_config(read("eos/avd_ethernet-interfaces.cfg"), SWITCH)
    assert state.unparsed == {}
    e1, e2, e3, e4 = (state.interfaces[f"Ethernet{i}"] for i in range(1, 5))
    # Ethernet1: `priority-flow-control on` + `priority 5 drop`; Ethernet2: `priority 5 no-drop`.
    assert (e1.pfc_enabled, e1.no_drop_priorities, e1.mtu) == (True, frozenset(), 1500)
    assert (e2.pfc_enabled, e2.no_drop_priorities) == (True, frozenset({5}))
    # Ethernet3: `no priority-flow-control`.
    assert (e3.pfc_enabled, e3.no_drop_priorities, e3.mtu) == (False, frozenset(), 1500)
    assert (e4.pfc_enabled, e4.mtu) == (True, 9100)
    assert state.interfaces["Ethernet7"].trust == "cos"
    assert state.interfaces["Ethernet21"].trust == "none"


def test_avd_qos_profiles_maps_and_global_pfc_off() -> None:
    state = EOS.parse_config(read("eos/avd_qos.cfg"), SWITCH)
    assert state.unparsed == {}
    e1 = state.interfaces["Ethernet1"]
    # Profile `test` through `service-profile test`; inline `qos trust dscp` agrees.
    assert e1.trust == "dscp" and e1.mtu == 1500
    assert e1.ecn == {
        2: EcnSetting(320_000, 320_000, 90),
        4: EcnSetting(320 * SEGMENT_BYTES, 320 * SEGMENT_BYTES, 100),
    }
    assert e1.strict_queues == frozenset({2})
    assert state.interfaces["Ethernet6"].trust == "cos"
    # `uc-tx-queue 4` / `random-detect ecn count` on Ethernet7 counts, it sets no thresholds.
    assert state.interfaces["Ethernet7"].ecn == {}
    # `priority-flow-control all off`: PFC is off everywhere, whatever the profiles say.
    assert all(p.pfc_enabled is False for p in state.interfaces.values())
    assert state.dscp_map[26] == 4 and state.dscp_map[46] == 5 and state.dscp_map[8] == 1
    # `qos map traffic-class 6 to tx-queue 2`; the `to dscp` / `to cos` maps are not queue maps.
    assert state.tc_queue == {6: 2}
    assert state.watchdog == Watchdog(True, "no-drop", 50, 1220, 10_001)


def test_avd_platform_and_vxlan_configs_carry_no_qos() -> None:
    platform = EOS.parse_config(read("eos/avd_platform.cfg"), SWITCH)
    # `platform sand qos map traffic-class N to network-qos M` is not a tx-queue map.
    assert (platform.unparsed, platform.tc_queue, platform.dscp_map) == ({}, {}, {})
    assert set(platform.interfaces) == {"Management1"}
    vxlan = EOS.parse_config(read("eos/avd_vxlan-interface.cfg"), SWITCH)
    assert vxlan.unparsed == {} and set(vxlan.interfaces) == {"Management1", "Vxlan1"}
    # `vxlan qos map dscp to traffic-class decapsulation` is not a DSCP map.
    assert vxlan.dscp_map == {}


@pytest.mark.parametrize(
    "path",
    [
        "eos/avd_qos_documentation.md",
        *samples("nxos", "junos", "cumulus", "onyx", "dellos", "sonic"),
    ],
)
def test_other_configs_are_not_read_as_eos(path: str) -> None:
    config = EOS.parse_config(read(path), SWITCH)
    assert config.unparsed["running-config"].startswith("not an Arista EOS config")
    assert config.interfaces == {}
    snapshot = EOS.parse_outputs({"show_running-config": read(path)}, SWITCH)
    assert list(snapshot.unparsed) == ["show running-config", "show lldp neighbors"]
    assert "qos" not in snapshot.facets and "version" not in snapshot.facets


# --- NICs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["nic/mlnx_qos_trust_dscp_pfc3.txt", "nic/mlnx_qos_setup_transcript_netarbiter.md"]
)
def test_nic_mlnx_qos_trust_dscp_pfc3(path: str) -> None:
    state = CX.parse_outputs({"mlnx_qos_eth0": read(path)}, HOST)
    port = state.interfaces["eth0"]
    assert (port.trust, port.no_drop_priorities, port.pfc_enabled, port.cable_m) == (
        "dscp",
        frozenset({3}),
        True,
        7,
    )
    assert state.dscp_priority(26, "eth0") == 3 and state.dscp_priority(48, "eth0") == 6
    assert port.dscp_map == {d: d >> 3 for d in range(64)}
    assert port.strict_queues == frozenset()  # every tc is `tsa: vendor`
    assert "mlnx_qos -i eth0" not in state.unparsed


def test_nic_ethtool_mlx5_firmware() -> None:
    port = CX.parse_outputs(
        {"ethtool_eth0": read("nic/ethtool_i_mlx5_cx4lx_fw14.23.1020.txt")}, HOST
    ).interfaces["eth0"]
    assert (port.driver, port.firmware, port.psid) == ("mlx5_core", "14.23.1020", None)


def test_nic_ethtool_intel_is_a_foreign_driver(lab_fabric, lab_policy) -> None:
    from netcfg.checks.runner import run_checks
    from netcfg.lab.devices import live_states

    device = lab_fabric.devices["gpu01"]
    rendered = simulator(CX.name).render_outputs(live_states(lab_fabric, lab_policy)["gpu01"], device)
    outputs = {c.file: rendered[c.cli] for c in CX.commands(device)}
    outputs["ethtool_eth0"] = read("nic/ethtool_i_i40e_xxv710_negative.txt")
    state = CX.parse_outputs(outputs, device)
    port = state.interfaces["eth0"]
    assert (port.driver, port.firmware, port.psid) == ("i40e", "6.00 0x800036cb 1.1747.0", None)
    findings = run_checks(lab_fabric, lab_policy, {"gpu01": state})
    assert ("host.driver", "eth0", "i40e") in {(f.rule, f.interface, f.actual) for f in findings}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("nic/lldpctl_sonic_mgmt_juniper_peer_mfs.txt", [("eth0", "###", "539")]),
        (
            "show/cumulus_lldpcli_show_neighbors.txt",
            [("eth0", "PIONEERMS22", "swp47"), ("swp1", "MSP-1", "swp1"), ("swp2", "MSP-1", "swp2")],
        ),
    ],
)
def test_lldpcli_neighbors(path: str, expected: list[tuple[str, str, str]]) -> None:
    state = CX.parse_outputs({"lldpcli_show_neighbors": read(path)}, HOST)
    assert [(n.local_interface, n.system_name, n.port) for n in state.lldp][: len(expected)] == expected
    assert "lldpcli show neighbors" not in state.unparsed


NIC_OTHERS = [
    "nic/dmesg_mlx5_firmware_pcie.txt",
    "nic/ibv_devinfo_mlx5_vf_ethernet_linklayer.txt",
    "nic/mlxfwmanager_cx5_two_devices_fw16.28.4000.txt",
    "nic/mlxfwmanager_cx6dx_fw22.31.1014.txt",
    "nic/nvidia_nicdevice_cr_cx6dx_fw20.42.1000.yaml",
    "nic/show_gids_mlx5_ipv4_v2.txt",
]


@pytest.mark.parametrize("path", NIC_OTHERS)
@pytest.mark.parametrize("file", sorted(NIC_COMMANDS))
def test_other_nic_outputs_are_unreadable_as_what_netcfg_collects(path: str, file: str) -> None:
    outputs = {file: read(path)}
    if file.startswith("mlxconfig"):
        # The firmware's settings matter, and are read, where mlnx_qos says the firmware runs DCBX.
        qos = read("nic/mlnx_qos_trust_dscp_pfc3.txt").replace("OS controlled", "Firmware controlled")
        outputs[CX.commands(HOST)[0].file] = qos
    state = CX.parse_outputs(outputs, HOST)
    assert NIC_COMMANDS[file] in state.unparsed
