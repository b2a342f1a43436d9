"""Conformance: the NX-OS parser reads the public NX-OS samples in ../shared/corpus as a person reads
them, and the bundled roce-lossless policy gives the findings a person would list for each; every
sample of another kind is unreadable as NX-OS. Samples are read in place, never copied.
"""

from __future__ import annotations

import pytest

from netcfg.checks.runner import run_checks
from netcfg.model import (
    Device,
    EcnSetting,
    Endpoint,
    Fabric,
    Link,
    LldpNeighbor,
    Nic,
    PgBuffer,
    Role,
    Watchdog,
)
from netcfg.platforms import get_platform
from netcfg.platforms.nxos.counters import read_links
from netcfg.platforms.nxos.mqc import read_mqc
from netcfg.platforms.nxos.text import split_config
from netcfg.policy import load_policy
from tests.conformance.test_corpus import CORPUS, read, samples

NXOS = get_platform("nxos")
SWITCH = Device("sw", Role.LEAF, "nxos", su=1, rail=1)
COMMANDS = {c.file: c.cli for c in NXOS.commands(SWITCH)}


def findings(path: str, ports: list[str]) -> set[tuple[str, str | None, str]]:
    """(rule, ports, actual) of the bundled policy's findings on the sample, with `ports` the plan's
    host ports of the switch (the hosts themselves are not in the sample: their missing state is
    left out)."""
    devices = {"sw": SWITCH}
    links = []
    for i, port in enumerate(ports):
        host = f"host{i}"
        devices[host] = Device(host, Role.HOST, "connectx", su=1, nics=[Nic(1, "eth0", "mlx5_0")])
        links.append(Link(Endpoint(host, "eth0"), Endpoint("sw", port), 400, 3))
    fabric = Fabric("corpus", 1, devices, links, "roce-lossless")
    state = NXOS.parse_config(read(path), SWITCH)
    found = run_checks(fabric, load_policy("roce-lossless"), {"sw": state})
    return {(f.rule, f.interface, f.actual) for f in found if f.rule != "state.missing"}


# --- configs ------------------------------------------------------------------------------------


def test_azure_local_tor_classifies_on_cos():
    """Microsoft's Azure Local ToR reference: CoS 3 -> qos-group 3 (RDMA), CoS 7 -> 7; the class of
    qos-group 3 paused by CoS 3; a 300 KB step ECN marker on queue 3; queue 7 by bandwidth, not
    strict; PFC `mode on send-tlv`, MTU 9216."""
    state = NXOS.parse_config(read("nxos/azurelocal_tor_qos_reference.cfg"), SWITCH)
    assert state.unparsed == {}
    assert (state.dscp_map, state.tc_pfc, state.watchdog) == ({}, {}, Watchdog(enabled=False))
    port = state.interfaces["Ethernet1/17"]
    assert (port.description, port.mtu, port.trust) == ("Storage Intent", 9216, "cos")
    assert (port.pfc_enabled, port.no_drop_priorities) == (True, frozenset({3}))
    assert port.ecn == {3: EcnSetting(300_000, 300_000, 100)}
    assert (port.strict_queues, port.watchdog) == (frozenset(), False)
    assert findings("nxos/azurelocal_tor_qos_reference.cfg", ["Ethernet1/17"]) == {
        ("qos.trust", "Ethernet1/17", "cos"),
        ("qos.dscp_map", None, "unknown"),  # RoCE DSCP 26 and CNP DSCP 48: no class matches DSCP
        ("ecn.thresholds", "Ethernet1/17", "min 300 KB, max 300 KB, 100%"),
        ("cnp.strict_queue", "Ethernet1/17", "off"),
        ("pfc.watchdog", "Ethernet1/17", "off"),
        ("pfc.watchdog", None, "not configured"),
        ("mtu.switch", "Ethernet1/17", "9216"),  # the policy asks EOS's 9214
        # Its RDMA storage ports pause CoS 3 on a switched trunk: lossless traffic in a VLAN.
        ("lossless.flooding", "Ethernet1/17", "switched, pauses {3}"),
    }


def test_batfish_grammar_sample_pauses_nothing():
    """Batfish's NX-OS grammar test: a network-qos policy opened twice (its classes merge), MTU 9216
    and no `pause` at all; a qos policy whose class map matches nothing; no interfaces."""
    text = read("nxos/batfish_nxos_policy_map.cfg")
    state = NXOS.parse_config(text, SWITCH)
    assert state.unparsed == {} and state.interfaces == {}
    assert (state.dscp_map, state.tc_pfc, state.watchdog) == ({}, {}, Watchdog(enabled=False))
    mqc = read_mqc(split_config(text).nodes)
    network = mqc.policy_maps[("network-qos", "pm_network_qos")].classes
    assert {name: (c.mtu, c.pause_cos) for name, c in network.items()} == {
        "class-default": (9216, None),
        "cm_network_qos": (9216, None),
    }
    assert mqc.policy_maps[("qos", "pm_qos")].classes["cm_qos"].qos_group == 4
    # A plan port the sample has no interface for: nothing about it can pass, and nothing about it
    # is judged (it was "ECN off" before); it is named once as not in the source.
    assert findings("nxos/batfish_nxos_policy_map.cfg", ["Ethernet1/1"]) == {
        ("parse.incomplete", None, "not shown: Ethernet1/1: not in the source"),
        ("qos.dscp_map", None, "unknown"),
        ("pfc.watchdog", None, "not configured"),
    }


SWITCHED_HOST_PORTS = ", ".join(f"Ethernet1/{m}/1-4" for m in range(3, 11))


def test_microsoft_sdn_nexus3132_tor():
    """A full NX-OS 6.0(2)U6(1) Nexus 3132 running config: CoS 3 -> qos-group 3 bound at `system
    qos`; the RDMA network-qos class `pause no-drop` (its own CoS 3) with MTU 2240; an input queuing
    policy sizing the RDMA buffer on the host ports; PFC on per host port; routed uplinks at 9100.
    On this Nexus 3000 release a switched port has no MTU of its own: class-default carries 9216,
    the RDMA class 2240, below the host MTU."""
    text = read("nxos/msft_sdn_nexus3132_tor1.cfg")
    state = NXOS.parse_config(text, SWITCH)
    assert state.unparsed == {}
    assert state.os_version == "6.0(2)U6(1)"
    assert (state.dscp_map, state.tc_pfc, state.watchdog) == ({}, {}, Watchdog(enabled=False))
    host = state.interfaces["Ethernet1/3/1"]
    assert (host.trust, host.pfc_enabled, host.no_drop_priorities) == ("cos", True, frozenset({3}))
    assert (host.mtu, host.class_mtu, host.ecn, host.strict_queues) == (
        9216,
        {3: 2240, 0: 9216},
        {},
        frozenset(),
    )
    lines = text.splitlines()
    assert lines[state.locations["Ethernet1/3/1.class_mtu"] - 1] == "    mtu 2240"
    # buffer-size 101920, XOFF at 46800 (headroom above it: 55120), XON at 34320.
    assert host.pg_buffers == {3: PgBuffer(101_920, 55_120, 34_320)}
    uplink = state.interfaces["Ethernet1/27"]
    assert (uplink.description, uplink.mtu, uplink.pfc_enabled) == ("Uplink to Spine1", 9100, None)
    assert uplink.class_mtu == {}  # routed (`no switchport`): its own `mtu`
    assert state.interfaces["port-channel1"].description == "HSRP Link To TOR2"
    # The banner's text and the copp, ACL, BGP and VLAN sections are not QoS.
    assert {n for n in state.interfaces if n.startswith("Ethernet")} == {
        *(f"Ethernet1/{n}" for n in (1, 2, *range(11, 33))),
        *(f"Ethernet1/{m}/{n}" for m in range(3, 11) for n in range(1, 5)),
    }
    mqc = read_mqc(split_config(text).nodes)
    rdma = mqc.policy_maps[("network-qos", "QOS_NETWORK")].classes["RDMA"]
    assert (rdma.mtu, rdma.pause_cos) == (2240, ())
    assert findings("nxos/msft_sdn_nexus3132_tor1.cfg", ["Ethernet1/3/1", "Ethernet1/27"]) == {
        ("qos.trust", "Ethernet1/3/1, Ethernet1/27", "cos"),
        ("qos.dscp_map", None, "unknown"),
        ("pfc.enabled", "Ethernet1/27", "unknown"),  # no mode line: `auto`
        ("pfc.no_drop_priorities", "Ethernet1/27", "unknown"),
        ("ecn.enabled", "Ethernet1/3/1, Ethernet1/27", "off"),
        ("cnp.strict_queue", "Ethernet1/3/1, Ethernet1/27", "off"),
        ("pfc.watchdog", "Ethernet1/3/1, Ethernet1/27", "off"),
        ("pfc.watchdog", None, "not configured"),
        ("mtu.switch", "Ethernet1/3/1", "9216"),  # class-default's
        ("mtu.switch", "Ethernet1/27", "9100"),
        ("nxos.class_mtu", "Ethernet1/3/1", "2240"),  # RDMA frames above 2240 are dropped
        # Its host ports pause CoS 3 in VLANs (`switchport mode trunk`): lossless traffic flooded.
        ("lossless.flooding", SWITCHED_HOST_PORTS, "switched, pauses {3}"),
    }


def test_roce_setup_script_in_config_mode_paste_form():
    """A NIC vendor's switch setup script, rendered: DSCP 26 -> qos-group 3 paused by CoS 3, CNP 48
    -> qos-group 7 on `priority level 1`, ECN 950/3000 KB at 7 %, the watchdog on with no timers,
    and `interface Ethernet1/1-32` followed by unindented sub-commands."""
    state = NXOS.parse_config(read("nxos/roce_ai_nic_script_template_rendered.cfg"), SWITCH)
    assert state.unparsed == {}
    assert (state.dscp_map[26], state.dscp_map[48], state.dscp_map[0], len(state.dscp_map)) == (3, 7, 0, 64)
    assert state.tc_pfc == {}
    assert state.watchdog == Watchdog(True, "drop", None, None, 100)
    assert set(state.interfaces) == {f"Ethernet1/{n}" for n in range(1, 33)}
    for port in state.interfaces.values():
        assert (port.mtu, port.trust, port.dscp_map, port.watchdog) == (9216, "dscp", None, True)
        assert (port.pfc_enabled, port.no_drop_priorities) == (True, frozenset({3}))
        assert port.ecn == {3: EcnSetting(950_000, 3_000_000, 7)} and port.strict_queues == frozenset({7})
    assert findings("nxos/roce_ai_nic_script_template_rendered.cfg", ["Ethernet1/1", "Ethernet1/32"]) == {
        # CNP DSCP 48 in qos-group 7; the policy's CNP priority is 6. It rides queue 7, which is
        # strict: no cnp.strict_queue finding about a queue 6 it does not take.
        ("qos.dscp_map", None, "7"),
        ("ecn.thresholds", "Ethernet1/1,32", "min 950 KB, max 3000 KB, 7%"),
        # The watchdog polls at NX-OS's 100 ms default; the detection and restoration times the
        # script leaves at the switch's defaults are unknown: no verdict on them.
        ("mtu.switch", "Ethernet1/1,32", "9216"),
    }


@pytest.mark.parametrize(
    "path",
    [
        *samples("eos", "junos", "cumulus", "onyx", "dellos", "sonic"),
        "show/nxos_show_version_nxapi_nxosv_7.3.json",
        "show/nxos_show_interface_mtu9216.raw",
    ],
)
def test_other_configs_are_not_read_as_nxos(path: str):
    config = NXOS.parse_config(read(path), SWITCH)
    assert config.unparsed["running-config"].startswith("not a Cisco NX-OS config")
    assert config.interfaces == {}
    snapshot = NXOS.parse_outputs({"show_running-config": read(path)}, SWITCH)
    assert "show running-config" in snapshot.unparsed and "qos" not in snapshot.facets


# --- show outputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "model", "version"),
    [
        ("show/nxos_show_version_10.3.6.raw", "Nexus9000 C93108TC-EX", "10.3(6)"),
        ("show/nxos_show_version_3232C_9.3.15.raw", "Nexus3000 C3232C", "9.3(15)"),
    ],
)
def test_show_version(path: str, model: str, version: str):
    state = NXOS.parse_outputs({"show_version": read(path)}, SWITCH)
    assert (state.model, state.os_version) == (model, version)
    assert "show version" not in state.unparsed and "version" in state.facets


def test_pfc_table_bitmap_8_is_cos_3():
    """UCS fabric interconnect `show interface priority-flow-control`: `On (8)` on Ethernet1/1/1 is
    bitmap 0x08, CoS 3; every other port (Vethernet included) is `Auto Off`."""
    state = NXOS.parse_outputs(
        {
            "show_interface_priority-flow-control": read(
                "show/nxos_show_interface_priority-flow-control_ucs_fi.txt"
            )
        },
        SWITCH,
    )
    assert "show interface priority-flow-control" not in state.unparsed
    pfc = {name: (p.pfc_enabled, p.no_drop_priorities) for name, p in state.interfaces.items()}
    assert pfc == {
        "Ethernet1/1/1": (True, frozenset({3})),
        **{n: (False, frozenset()) for n in ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Vethernet9547")},
        "Ethernet1/1/2": (False, frozenset()),
    }


@pytest.mark.parametrize(
    ("path", "neighbors"),
    [
        (
            "show/nxos_show_lldp_neighbors_detail.raw",
            [
                ("mgmt0", "Switch.cisco.com", "Fa1/0/9"),
                ("Ethernet1/1", "n9k2.company.com", "Ethernet1/1"),
                ("Ethernet1/2", "n9k2.company.com", "Ethernet1/2"),
                ("Ethernet2/2", "N3K.cisconxapi.com", "Ethernet1/49"),
            ],
        ),
        (
            "show/nxos_show_lldp_neighbors_detail_napalm.txt",
            [
                ("mgmt0", "PERIMETER.cisco.com", "Fa1/0/9"),
                ("Ethernet1/1", "n9k2.ntc.com", "Ethernet1/1"),
                ("Ethernet1/2", "n9k2.ntc.com", "Ethernet1/2"),
            ],
        ),
    ],
)
def test_lldp_neighbors_detail(path: str, neighbors: list[tuple[str, str, str]]):
    state = NXOS.parse_outputs({"show_lldp_neighbors_detail": read(path)}, SWITCH)
    assert state.lldp == [LldpNeighbor(*n) for n in neighbors]
    assert "show lldp neighbors detail" not in state.unparsed and "lldp" in state.facets


def test_show_interface_link_state_flaps_and_crc():
    """ntc-templates' `show interface`: a 10G port up (1 reset, `0 CRC/FCS`), one down with `SFP not
    inserted` at its set 10G, a 40G port with 11 resets and `20 CRC/FCS`; the routed subinterface of
    a port-channel is no front-panel port."""
    state = NXOS.parse_outputs({"show_interface": read("show/nxos_show_interface_mtu9100_1550.raw")}, SWITCH)
    assert "show interface" not in state.unparsed and "link" in state.facets
    link = {name: (p.oper_up, p.speed_gbps) for name, p in state.interfaces.items()}
    assert link == {"Ethernet2/1": (True, 10), "Ethernet1/1": (False, 10), "Ethernet12/4": (True, 40)}
    links, _ = read_links(read("show/nxos_show_interface_mtu9100_1550.raw"))
    assert {n: (k.resets, k.crc) for n, k in links.items()} == {
        "Ethernet2/1": (1, 0),
        "Ethernet1/1": (3, 0),
        "Ethernet12/4": (11, 20),
    }


def test_show_interface_of_port_channels_loopback_and_vlan_has_no_fabric_port():
    """A `show interface` of port-channels (one `No operational members`), a loopback and an SVI:
    readable, and none of them a front-panel link, so no link state is claimed."""
    state = NXOS.parse_outputs({"show_interface": read("show/nxos_show_interface_mtu9216.raw")}, SWITCH)
    assert "show interface" not in state.unparsed
    assert "link" not in state.facets and state.interfaces == {}


SHOW_INTERFACE_SAMPLES = ["show/nxos_show_interface_mtu9100_1550.raw", "show/nxos_show_interface_mtu9216.raw"]


@pytest.mark.parametrize("path", SHOW_INTERFACE_SAMPLES)
@pytest.mark.parametrize("file", sorted(set(COMMANDS) - {"show_interface"}))
def test_show_interface_is_no_other_collected_output(path: str, file: str):
    state = NXOS.parse_outputs({file: read(path)}, SWITCH)
    assert COMMANDS[file] in state.unparsed


NOT_WHAT_IS_COLLECTED = [
    "show/nxos_show_lldp_neighbors.raw",  # the summary table: netcfg collects the detail
    "show/nxos_show_version_nxapi_nxosv_7.3.json",
]


@pytest.mark.parametrize("path", NOT_WHAT_IS_COLLECTED)
@pytest.mark.parametrize("file", sorted(COMMANDS))
def test_other_outputs_are_unreadable_as_what_netcfg_collects(path: str, file: str):
    state = NXOS.parse_outputs({file: read(path)}, SWITCH)
    assert COMMANDS[file] in state.unparsed


def test_every_nxos_sample_is_covered():
    covered = {
        "nxos/azurelocal_tor_qos_reference.cfg",
        "nxos/batfish_nxos_policy_map.cfg",
        "nxos/msft_sdn_nexus3132_tor1.cfg",
        "nxos/roce_ai_nic_script_template_rendered.cfg",
        "show/nxos_show_version_10.3.6.raw",
        "show/nxos_show_version_3232C_9.3.15.raw",
        "show/nxos_show_interface_priority-flow-control_ucs_fi.txt",
        "show/nxos_show_lldp_neighbors_detail.raw",
        "show/nxos_show_lldp_neighbors_detail_napalm.txt",
        *SHOW_INTERFACE_SAMPLES,
        *NOT_WHAT_IS_COLLECTED,
    }
    present = {f"nxos/{p.name}" for p in (CORPUS / "nxos").iterdir()}
    present |= {f"show/{p.name}" for p in (CORPUS / "show").iterdir() if p.name.startswith("nxos_")}
    assert present == covered
