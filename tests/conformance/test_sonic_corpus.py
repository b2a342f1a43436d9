"""Conformance: the public SONiC samples in ../shared/corpus read as a SONiC operator reads them.

config_db documents (whole ones, flat redis dumps, and sonic-cfggen's qos/buffers fragments) give
the QoS chain stated here; the `show` outputs netcfg collects give version, SKU, LLDP and MTU; the
outputs netcfg does not collect are reported unreadable when given in place of one it does, never
half-read. Run by `make conformance`; samples are read in place.
"""

from __future__ import annotations

import pytest

from netcfg.model import Device, EcnSetting, PgBuffer, Role, Watchdog
from netcfg.platforms import get_platform
from tests.conformance.test_corpus import read

SONIC = get_platform("sonic")
SWITCH = Device("sw", Role.LEAF, "sonic")
COLLECTED = {"show_version", "show_lldp_table", "pfcwd_show_config", "show_interfaces_status"}


def config(path: str):
    state = SONIC.parse_config(read(path), SWITCH)
    assert state.unparsed == {}, state.unparsed
    return state


def test_sonic_yang_models_sample_config_db() -> None:
    state = config("sonic/sonic-yang-models_sample_config_db.json")
    assert state.qos_names["dscp_to_tc_map"] == "Dscp_to_tc_map1"
    assert state.dscp_map == {1: 1, 2: 2}
    e0, e4 = state.interfaces["Ethernet0"], state.interfaces["Ethernet4"]
    assert e4.dscp_map == {3: 3, 4: 4} and e0.dscp_map is None
    assert (e0.trust, e0.no_drop_priorities, e0.pfc_enabled) == ("dscp", frozenset({3, 4}), True)
    assert e0.mtu == 9100  # PORT without mtu: portmgrd's default
    assert e0.ecn == dict.fromkeys((0, 1), EcnSetting(1_024_000, 2_048_000, 50))
    assert e0.strict_queues == frozenset({1, 3})
    assert state.interfaces["Ethernet9"].pg_buffers == {
        3: PgBuffer(size=9427, xoff=50176, xon=0),
        4: PgBuffer(size=9427, xoff=50176, xon=0),
    }
    assert state.interfaces["Ethernet0"].cable_m == 5
    # PFC_WD holds only GLOBAL POLL_INTERVAL: no port has a watchdog.
    assert state.watchdog == Watchdog(enabled=False)
    assert not any(p.watchdog for p in state.interfaces.values())


def test_sonic_utilities_mock_config_db_in_flat_redis_form() -> None:
    state = config("sonic/sonic-utilities_mock_config_db.json")
    assert state.watchdog == Watchdog(True, "drop", 600, 600, 600)
    assert state.dscp_map == {}
    e0, e8, e12 = (state.interfaces[p] for p in ("Ethernet0", "Ethernet8", "Ethernet12"))
    assert (e0.no_drop_priorities, e0.trust, e0.watchdog, e0.mtu) == (frozenset({3, 4}), "none", True, 9100)
    assert (e8.no_drop_priorities, e8.pfc_enabled, e8.watchdog) == (frozenset(), False, True)
    assert (e12.pfc_enabled, e12.watchdog) == (False, False)
    assert e0.ecn == dict.fromkeys((3, 4), EcnSetting(1_048_576, 2_097_152, 5))
    assert e0.strict_queues == frozenset()
    # BUFFER_PG Ethernet0|3-4 is NULL: the dynamic model, where buffermgrd sizes the headroom.
    assert e0.pg_buffers == {} and e0.cable_m is None


def test_mellanox_4600c_qos_fragment_with_uplink_maps() -> None:
    state = config("sonic/qos-mellanox4600c-c64.json")
    uplinks = {
        "Ethernet0",
        "Ethernet4",
        "Ethernet16",
        "Ethernet20",
        "Ethernet64",
        "Ethernet68",
        "Ethernet80",
        "Ethernet84",
    }
    assert (
        state.qos_names["dscp_to_tc_map"] == "AZURE" and state.qos_names["wred_profile"] == "AZURE_LOSSLESS"
    )
    assert (state.dscp_map[26], state.dscp_map[48], state.dscp_map[3], state.dscp_map[2]) == (1, 7, 3, 2)
    assert state.tc_pg == {1: 0, 5: 0, 7: 0} and state.tc_queue == {}
    ecn = EcnSetting(2_000_000, 10_000_000, 5)
    assert len(state.interfaces) == 28
    for name, port in state.interfaces.items():
        if name in uplinks:
            assert port.dscp_map is not None and (port.dscp_map[2], port.dscp_map[26]) == (1, 1)
            assert port.no_drop_priorities == frozenset({3, 4}) and set(port.ecn) == {3, 4}
        else:
            assert port.dscp_map is None
            assert port.no_drop_priorities == frozenset({2, 3, 4, 6}) and set(port.ecn) == {2, 3, 4, 6}
        assert set(port.ecn.values()) == {ecn} and port.trust == "dscp"
        # A fragment without PFC_WD, PORT or buffers says nothing about them.
        assert (port.watchdog, port.mtu, port.cable_m, port.pg_buffers) == (None, None, None, {})
    assert state.watchdog is None


def test_arista_7060x6_qos_fragment_with_per_queue_wred() -> None:
    state = config("sonic/qos-arista7060x6.json")
    assert (state.dscp_map[26], state.dscp_map[44], state.dscp_map[46], state.dscp_map[47]) == (0, 6, 5, 1)
    assert state.tc_pg == {1: 0, 2: 0, 5: 0, 6: 0}
    assert len(state.interfaces) == 130
    for name, port in state.interfaces.items():
        if name in ("Ethernet512", "Ethernet513"):
            assert (port.pfc_enabled, port.no_drop_priorities) == (False, frozenset())
        else:
            assert port.no_drop_priorities == frozenset({3, 4})
        assert port.ecn == dict.fromkeys((3, 4), EcnSetting(131_072, 262_144, 5))
        assert port.strict_queues == frozenset()


@pytest.mark.parametrize(
    ("path", "ports", "cables"),
    [
        (
            "sonic/buffers-mellanox2410-dynamic.json",
            56,
            {"Ethernet0": 300, "Ethernet64": 40, "Ethernet128": 5},
        ),
        ("sonic/buffers-mellanox4600c-t0.json", 88, {"Ethernet0": 5, "Ethernet248": 40}),
    ],
)
def test_buffer_fragments_give_cable_lengths_and_no_static_lossless_profile(path, ports, cables) -> None:
    state = config(path)
    assert len(state.interfaces) == ports
    assert {p: state.interfaces[p].cable_m for p in cables} == cables
    # Lossless groups are NULL (dynamic) or absent, PG 0 lossy: no static headroom to compare.
    assert all(p.pg_buffers == {} for p in state.interfaces.values())
    assert state.qos_names == {} and state.dscp_map == {}


@pytest.mark.parametrize(
    ("path", "version", "sku"),
    [
        ("show/sonic_show_version_SN2700.txt", "HEAD.32-21ea29a", "Mellanox-SN2700"),
        ("show/sonic_show_version_202012_msn2700_nvidia_doc.txt", "202012.15-cb79de1b", "ACS-MSN2700"),
    ],
)
def test_show_version(path: str, version: str, sku: str) -> None:
    state = SONIC.parse_outputs({"show_version": read(path)}, SWITCH)
    assert (state.os_version, state.model) == (version, sku)
    assert "show version" not in state.unparsed and "version" in state.facets


def test_show_lldp_table_and_interfaces_status_with_the_mock_config() -> None:
    outputs = {
        "show_runningconfiguration_all": read("sonic/sonic-utilities_mock_config_db.json"),
        "show_lldp_table": read("show/sonic_show_lldp_table.txt"),
        "show_interfaces_status": read("show/sonic_show_interfaces_status.txt"),
    }
    state = SONIC.parse_outputs(outputs, SWITCH)
    assert [(n.local_interface, n.system_name, n.port) for n in state.lldp] == [
        ("Ethernet112", "T1-1", "hundredGigE1/2"),
        ("Ethernet116", "T1-2", "hundredGigE1/2"),
        ("eth0", "swtor-b2lab2-1610", "GigabitEthernet 0/2"),
    ]
    assert "lldp" in state.facets and "qos" in state.facets
    # Ethernet0/4/8 run MTU 9100, as the config sets: nothing applied that does not run.
    assert state.not_operational == {}
    assert "show interfaces status" not in state.unparsed


def test_interfaces_status_gives_the_link_state_of_the_config_ports() -> None:
    outputs = {
        "show_runningconfiguration_all": read("sonic/sonic-utilities_mock_config_db.json"),
        "show_interfaces_status": read("show/sonic_show_interfaces_status.txt"),
    }
    state = SONIC.parse_outputs(outputs, SWITCH)
    # All three are down (Ethernet8 shut too): the 100G printed is their configured speed.
    link = {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items() if p.oper_up is not None}
    assert link == {"Ethernet0": (False, None), "Ethernet4": (False, None), "Ethernet8": (False, None)}
    assert state.interfaces["Ethernet12"].oper_up is None
    assert "link" in state.facets


@pytest.mark.parametrize(
    ("path", "rx", "tx"),
    [
        (
            "show/sonic_show_pfc_counters.txt",
            {0: 1_400, 1: 401, 2: 402, 3: 403, 4: 404, 5: 405, 6: 406, 7: 407},
            {0: 1_410, 1: 411, 2: 412, 3: 413, 4: 414, 5: 415, 6: 416, 7: 417},
        ),
        # The Command Reference's copy: outdented rows, all zero (a healthy baseline).
        ("show/sonic_show_pfc_counters_doc.txt", dict.fromkeys(range(8), 0), dict.fromkeys(range(8), 0)),
    ],
)
def test_pfc_counters_give_pause_frames_per_priority_each_way(path: str, rx: dict, tx: dict) -> None:
    outputs = {
        "show_runningconfiguration_all": read("sonic/sonic-utilities_mock_config_db.json"),
        "show_pfc_counters": read(path),
    }
    state = SONIC.parse_outputs(outputs, SWITCH)
    assert "show pfc counters" not in state.unparsed and "counters" in state.facets
    assert (state.counters["Ethernet4"].pause_rx, state.counters["Ethernet4"].pause_tx) == (rx, tx)
    assert {"Ethernet0", "Ethernet4", "Ethernet8"} <= set(state.counters)


def test_pfcwd_stats_give_storms_per_queue_and_the_queues_stormed_now() -> None:
    outputs = {
        "show_runningconfiguration_all": read("sonic/sonic-utilities_mock_config_db.json"),
        "pfcwd_show_stats": read("show/sonic_pfcwd_show_stats.txt"),
    }
    state = SONIC.parse_outputs(outputs, SWITCH)
    assert "pfcwd show stats --empty" not in state.unparsed and "counters" in state.facets
    storms = {n: (c.watchdog_storms, c.stormed) for n, c in state.counters.items()}
    assert storms == {
        "Ethernet0": ({3: 1}, frozenset({3})),
        "Ethernet4": ({3: 2}, frozenset()),
        "Ethernet8": ({4: 3}, frozenset({4})),
    }


NOT_COLLECTED = [
    "show/sonic_ecnconfig_show.txt",
    "show/sonic_mmuconfig_show.txt",
    "show/sonic_pfc_show_asymmetric.txt",
    "show/sonic_pfc_show_priority.txt",
    "show/sonic_pfcwd_show_stats.txt",
    "show/sonic_show_pfc_counters.txt",
    "show/sonic_show_pfc_counters_doc.txt",
    "nic/lldpctl_sonic_mgmt_juniper_peer_mfs.txt",
]


@pytest.mark.parametrize("path", NOT_COLLECTED)
def test_outputs_netcfg_does_not_collect_are_unreadable_in_place_of_one_it_does(path: str) -> None:
    text = read(path)
    state = SONIC.parse_outputs(
        {"show_runningconfiguration_all": text, "show_version": text, "show_lldp_table": text}, SWITCH
    )
    assert {"show runningconfiguration all", "show version", "show lldp table"} <= set(state.unparsed)
    assert state.facets == frozenset() and state.interfaces == {} and state.lldp == []
