"""Conformance: netcfg's parsers read the public samples in ../shared/corpus as the manifest says.

Not part of `make test` (the corpus is not part of this repository): `make conformance` runs it when
the corpus folder exists.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from netcfg.model import Device, EcnSetting, Nic, Role
from netcfg.platforms import get_platform

CORPUS = Path(os.environ.get("NETCFG_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))
EOS = get_platform("eos")
CX = get_platform("connectx")
SWITCH = Device("sw", Role.LEAF, "eos")
HOST = Device("host", Role.HOST, "connectx", nics=[Nic(1, "eth0", "mlx5_0")])


def read(path: str) -> str:
    return (CORPUS / path).read_text(encoding="utf-8", errors="replace")


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


def test_eos_show_lldp_neighbors() -> None:
    state = EOS.parse_outputs({"show_lldp_neighbors": read("show/eos_show_lldp_neighbors.raw")}, SWITCH)
    assert ("Ethernet2", "arista2", "Ethernet2") in {
        (n.local_interface, n.system_name, n.port) for n in state.lldp
    }


def test_avd_interfaces_pfc_priorities() -> None:
    state = EOS.parse_config(read("eos/avd_ethernet-interfaces.cfg"), SWITCH)
    assert state.interfaces["Ethernet1"].pfc_enabled is True
    assert state.interfaces["Ethernet1"].no_drop_priorities == frozenset()
    assert state.interfaces["Ethernet2"].no_drop_priorities == frozenset({5})
    assert state.interfaces["Ethernet1"].mtu == 1500


def test_avd_qos_profile_through_service_profile() -> None:
    state = EOS.parse_config(read("eos/avd_qos.cfg"), SWITCH)
    port = state.interfaces["Ethernet1"]
    assert port.trust == "dscp"
    assert port.ecn[2] == EcnSetting(320_000, 320_000, 90)
    assert 2 in port.strict_queues
    assert state.dscp_map[26] == 4 and state.dscp_map[46] == 5


def test_nic_mlnx_qos_trust_dscp_pfc3() -> None:
    state = CX.parse_outputs({"mlnx_qos_eth0": read("nic/mlnx_qos_trust_dscp_pfc3.txt")}, HOST)
    port = state.interfaces["eth0"]
    assert (port.trust, port.no_drop_priorities, port.cable_m) == ("dscp", frozenset({3}), 7)
    assert state.dscp_priority(26, "eth0") == 3 and state.dscp_priority(48, "eth0") == 6


def test_nic_ethtool_firmware() -> None:
    state = CX.parse_outputs({"ethtool_eth0": read("nic/ethtool_i_mlx5_cx4lx_fw14.23.1020.txt")}, HOST)
    assert (state.interfaces["eth0"].driver, state.interfaces["eth0"].firmware) == ("mlx5_core", "14.23.1020")


def test_nic_lldpctl() -> None:
    state = CX.parse_outputs(
        {"lldpcli_show_neighbors": read("nic/lldpctl_sonic_mgmt_juniper_peer_mfs.txt")}, HOST
    )
    assert [(n.local_interface, n.port) for n in state.lldp] == [("eth0", "539")]
