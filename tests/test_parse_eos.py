"""EOS parsing from hand-written running-configs and show outputs (tests/fixtures/eos/)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from netcfg.errors import InputError
from netcfg.model import Device, DeviceState, EcnSetting, LldpNeighbor, Role, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.eos import SEGMENT_BYTES
from netcfg.platforms.simulator import simulator
from netcfg.snapshot import read_device_outputs

FIXTURES = Path(__file__).parent / "fixtures" / "eos"
eos = get_platform("eos")


def leaf(name: str = "leaf-su1-r1") -> Device:
    return Device(name, Role.LEAF, "eos", su=1, rail=1)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def parse(name: str) -> DeviceState:
    return eos.parse_config(fixture(name), leaf())


def outputs(**texts: str | None) -> dict[str, str]:
    """Raw outputs keyed by the platform's own `Command.file` names; None leaves one out."""
    # `show version` is no longer collected, but snapshots taken by hand or by older netcfg hold it.
    files = {c.cli: c.file for c in eos.commands(leaf())} | {"show version": "show_version"}
    by_cli = {
        "show version": texts.get("version"),
        "show running-config": texts.get("running"),
        "show lldp neighbors": texts.get("lldp"),
    }
    return {files[cli]: text for cli, text in by_cli.items() if text is not None}


# --- running-config with QoS written per interface ------------------------------------------------


@pytest.fixture(scope="module")
def per_interface() -> DeviceState:
    return parse("running_config_per_interface.cfg")


def test_per_interface_lossless_port(per_interface: DeviceState):
    port = per_interface.interfaces["Ethernet1"]
    assert port.description == "gpu01:eth0"
    assert port.mtu == 9214
    assert port.trust == "dscp"
    assert port.pfc_enabled is True
    assert port.no_drop_priorities == frozenset({3})
    assert port.ecn == {3: EcnSetting(min_bytes=150_000, max_bytes=1_500_000, probability=100)}
    assert port.strict_queues == frozenset({6})
    assert port.watchdog is None


def test_per_interface_ports_keep_their_own_values(per_interface: DeviceState):
    port = per_interface.interfaces["Ethernet2"]
    assert port.ecn == {3: EcnSetting(min_bytes=200_000, max_bytes=2_000_000, probability=20)}
    assert port.watchdog is True
    uplink = per_interface.interfaces["Ethernet31"]
    assert uplink.pfc_enabled is False
    assert uplink.no_drop_priorities == frozenset()
    assert uplink.ecn == {}
    assert uplink.strict_queues == frozenset()


def test_per_interface_unrelated_sections_are_ignored(per_interface: DeviceState):
    assert set(per_interface.interfaces) == {
        "Ethernet1",
        "Ethernet2",
        "Ethernet31",
        "Management1",
        "Loopback0",
    }
    mgmt = per_interface.interfaces["Management1"]
    # A description with a double space is kept as written, not dropped.
    assert mgmt.description == "OOB  mgmt-sw-r12 Gi1/0/14"
    assert (mgmt.trust, mgmt.pfc_enabled, mgmt.no_drop_priorities, mgmt.mtu) == (None, None, None, None)
    assert mgmt.ecn == {}
    # router bgp, username secrets, snmp and management api leave no trace and raise nothing.
    assert per_interface.unparsed == {}
    assert per_interface.lldp == []


def test_per_interface_device_wide_settings(per_interface: DeviceState):
    assert (per_interface.model, per_interface.os_version) == ("DCS-7060X6-64PE", "4.32.1F")
    assert per_interface.dscp_map == {
        **dict.fromkeys(range(24, 32), 3),
        48: 6,
        # `... drop-precedence 2` lines are DSCP maps too.
        10: 1,
        12: 1,
        14: 1,
    }
    assert per_interface.dscp_priority(26) == 3
    assert per_interface.dscp_priority(26, "Ethernet1") == 3
    assert per_interface.watchdog == Watchdog(
        enabled=True, action="drop", detection_ms=200, restoration_ms=200, polling_ms=100
    )
    assert per_interface.facets == frozenset({"qos"})


def test_secrets_in_the_fixture_are_masked():
    masked = eos.mask_secrets(fixture("running_config_per_interface.cfg"))
    for secret in ("$6$Xy7PqZ3m$", "$6$abcdEFGH$", "n0tpubl1c", "Q4fqtbqcZ7oQuKfuWtNGRQ=="):
        assert secret not in masked
    assert "username admin privilege 15 role network-admin secret sha512 <masked>" in masked


# --- running-config with qos profile + service-profile -------------------------------------------


@pytest.fixture(scope="module")
def profiled() -> DeviceState:
    return parse("running_config_profile.cfg")


def test_profile_applies_to_interfaces(profiled: DeviceState):
    port = profiled.interfaces["Ethernet1"]
    assert port.trust == "dscp"
    assert port.pfc_enabled is True
    assert port.no_drop_priorities == frozenset({3})
    assert port.watchdog is True
    assert port.ecn == {3: EcnSetting(150_000, 1_500_000, 100)}
    assert port.strict_queues == frozenset({6})
    assert profiled.interfaces["Ethernet31"].no_drop_priorities == frozenset({3})


def test_inline_trust_overrides_profile(profiled: DeviceState):
    port = profiled.interfaces["Ethernet2"]
    assert port.trust == "cos"
    # Only trust was overridden: the rest still comes from the profile.
    assert port.no_drop_priorities == frozenset({3})
    assert port.ecn[3] == EcnSetting(150_000, 1_500_000, 100)


def test_inline_ecn_overrides_profile(profiled: DeviceState):
    port = profiled.interfaces["Ethernet3"]
    assert port.ecn == {3: EcnSetting(min_bytes=400_000, max_bytes=4_000_000, probability=50)}
    assert port.strict_queues == frozenset({6})
    assert port.trust == "dscp"


def test_inline_pfc_priorities_override_profile(profiled: DeviceState):
    port = profiled.interfaces["Ethernet4"]
    # `priority 3 drop` removes the profile's no-drop 3; `priority 4 no-drop` adds 4.
    assert port.no_drop_priorities == frozenset({4})
    assert port.pfc_enabled is True


def test_unused_profile_touches_nothing(profiled: DeviceState):
    assert all(p.trust != "cos" for n, p in profiled.interfaces.items() if n != "Ethernet2")
    assert all(1 not in p.ecn for p in profiled.interfaces.values())


def test_profile_override_does_not_leak_into_the_profile(profiled: DeviceState):
    """Parsing Ethernet3's override must not change what Ethernet31 gets from the same profile."""
    assert profiled.interfaces["Ethernet31"].ecn == {3: EcnSetting(150_000, 1_500_000, 100)}
    assert profiled.interfaces["Ethernet1"].ecn == {3: EcnSetting(150_000, 1_500_000, 100)}


# --- missing sections -----------------------------------------------------------------------------


def test_no_dscp_map_means_unknown_priority(profiled: DeviceState):
    assert profiled.dscp_map == {}
    assert profiled.dscp_priority(26) is None
    assert profiled.dscp_priority(26, "Ethernet1") is None


def test_no_watchdog_lines_means_watchdog_disabled(profiled: DeviceState):
    assert profiled.watchdog == Watchdog(enabled=False)


def test_management_interface_without_qos_stays_unknown(profiled: DeviceState):
    mgmt = profiled.interfaces["Management1"]
    assert mgmt.trust is None
    assert mgmt.pfc_enabled is None
    assert mgmt.no_drop_priorities is None


# --- threshold units and uc-tx-queue --------------------------------------------------------------


@pytest.fixture(scope="module")
def units() -> DeviceState:
    return parse("running_config_units.cfg")


@pytest.mark.parametrize(
    ("interface", "expected"),
    [
        ("Ethernet1", EcnSetting(150_000, 1_500_000, 100)),  # kbytes
        ("Ethernet2", EcnSetting(1_000_000, 3_000_000, 10)),  # mbytes
        ("Ethernet3", EcnSetting(153_600, 1_536_000, 100)),  # bytes
        ("Ethernet4", EcnSetting(720 * SEGMENT_BYTES, 7200 * SEGMENT_BYTES, 100)),  # segments, `weight`
        ("Ethernet6", EcnSetting(320_000, 2_000_000, 25)),  # uc-tx-queue
    ],
)
def test_threshold_units_normalised_to_bytes(units: DeviceState, interface: str, expected: EcnSetting):
    assert units.interfaces[interface].ecn == {3: expected}


def test_segments_use_the_platform_segment_size(units: DeviceState):
    assert units.interfaces["Ethernet4"].ecn[3].min_bytes == 720 * SEGMENT_BYTES
    assert units.interfaces["Ethernet4"].ecn[3].min_bytes != 720


def test_latency_thresholds_are_unknown(units: DeviceState):
    ecn = units.interfaces["Ethernet5"].ecn[3]
    assert ecn.min_bytes == -1
    assert ecn.max_bytes == -1
    assert ecn.probability == 90


def test_uc_tx_queue_strict_priority(units: DeviceState):
    assert units.interfaces["Ethernet6"].strict_queues == frozenset({6})
    assert units.interfaces["Ethernet1"].strict_queues == frozenset()


# --- show version / show lldp neighbors / parse_outputs -------------------------------------------


def test_show_version_classic_text():
    state = eos.parse_outputs(
        outputs(
            version=fixture("show_version_7060x6.txt"),
            running=fixture("running_config_per_interface.cfg"),
            lldp=fixture("show_lldp_neighbors.txt"),
        ),
        leaf(),
    )
    assert state.model == "DCS-7060X6-64PE-F"
    assert state.os_version == "4.32.1F"
    assert state.facets == frozenset({"qos", "version", "lldp"})
    assert state.unparsed == {}
    # The running-config is parsed too.
    assert state.interfaces["Ethernet1"].no_drop_priorities == frozenset({3})


def test_show_version_with_engineering_build_suffix():
    state = eos.parse_outputs(
        outputs(version=fixture("show_version_ceoslab_engineering.txt"), running="", lldp=""), leaf()
    )
    assert state.model == "cEOSLab"
    assert state.os_version == "4.33.0F-39650921.4330F"
    assert "show version" not in state.unparsed


def test_show_lldp_neighbors_expands_short_names():
    state = eos.parse_outputs(
        outputs(
            version=fixture("show_version_7060x6.txt"),
            running=fixture("running_config_per_interface.cfg"),
            lldp=fixture("show_lldp_neighbors.txt"),
        ),
        leaf(),
    )
    assert state.lldp == [
        LldpNeighbor("Ethernet1", "gpu01", "eth0"),
        LldpNeighbor("Ethernet2", "gpu02", "eth0"),
        LldpNeighbor("Ethernet31", "spine1", "Ethernet1"),
        LldpNeighbor("Ethernet32", "spine2", "Ethernet1"),
    ]
    assert "show lldp neighbors" not in state.unparsed


def test_empty_lldp_table_is_known_empty():
    state = eos.parse_outputs(
        outputs(
            version=fixture("show_version_7060x6.txt"),
            running=fixture("running_config_per_interface.cfg"),
            lldp=fixture("show_lldp_neighbors_empty.txt"),
        ),
        leaf(),
    )
    assert state.lldp == []
    assert state.unparsed == {}


DETAIL_NEIGHBOURS = [
    # gpu01's lldpd sends its MAC as port ID: that is the port it names, as the table would print it.
    LldpNeighbor("Ethernet1", "gpu01", "b8ce.f604.1a2e"),
    LldpNeighbor("Ethernet2", "gpu02", "eth0"),
    LldpNeighbor("Ethernet31", "spine1", "Ethernet1"),
    LldpNeighbor("Ethernet32", "spine2", "Ethernet1"),
]


def _detail(text: str) -> DeviceState:
    files = {"show_running-config": fixture("running_config_per_interface.cfg")}
    return eos.parse_outputs({**files, "show_lldp_neighbors_detail": text}, leaf())


def test_show_lldp_neighbors_detail_text_is_read_where_the_table_is_not_kept():
    state = _detail(fixture("show_lldp_neighbors_detail.txt"))
    # Management1 hears the out-of-band network, which is not the fabric; the link aggregation
    # TLV's own `Port ID : 0` is not the neighbour's port.
    assert state.lldp == DETAIL_NEIGHBOURS
    assert "lldp" in state.facets and state.unparsed == {}


def lldp_detail_json() -> dict:
    """`show lldp neighbors detail | json` of the leaf: two spines, an empty port, the OOB switch."""

    def neighbour(name: str, port_id: str, port_v2: str | None) -> dict:
        port = {"interfaceIdType": "interfaceName", "interfaceId": port_id}
        port |= {"interfaceId_v2": port_v2} if port_v2 else {}
        return {"chassisIdType": "macAddress", "chassisId": "2899.3a4e.0b11", "systemName": name,
                "ttl": 120, "neighborInterfaceInfo": port}  # fmt: skip

    return {
        "lldpNeighbors": {
            "Ethernet31": {"lldpNeighborInfo": [neighbour("spine1", '"Ethernet1"', "Ethernet1")]},
            "Ethernet32": {"lldpNeighborInfo": [neighbour("spine2", '"Ethernet1"', None)]},
            "Ethernet3": {"lldpNeighborInfo": []},
            "Management1": {"lldpNeighborInfo": [neighbour("oob-sw-r12", '"Gi1/0/14"', None)]},
        }
    }


def test_show_lldp_neighbors_detail_json_is_read_under_the_same_file_name():
    state = _detail(json.dumps(lldp_detail_json(), indent=2))
    assert state.lldp == DETAIL_NEIGHBOURS[2:]
    assert state.unparsed == {}


def test_a_collectors_show_lldp_neighbors_detail_json_file_is_read_from_a_device_folder(tmp_path):
    """Collectors save `show lldp neighbors detail | json` as `.json`: a device folder holding it is
    read like the `.txt` netcfg writes; the same command saved both ways is one located exit 2."""
    doc = lldp_detail_json()
    folder = tmp_path / "leaf1"
    folder.mkdir()
    (folder / "show_running-config.txt").write_text(fixture("running_config_per_interface.cfg"))
    (folder / "show_lldp_neighbors_detail.json").write_text(json.dumps(doc))
    outputs = read_device_outputs(folder)
    assert eos.parse_outputs(outputs, leaf()).lldp == DETAIL_NEIGHBOURS[2:]
    (folder / "show_lldp_neighbors_detail.txt").write_text(fixture("show_lldp_neighbors_detail.txt"))
    with pytest.raises(InputError) as refused:
        read_device_outputs(folder)
    assert refused.value.where.endswith("show_lldp_neighbors_detail.txt")
    assert "the same command as show_lldp_neighbors_detail.json" in str(refused.value)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no 'Interface ... detected N LLDP neighbors' line"),
        ("% LLDP is not enabled\n", "no 'Interface ... detected N LLDP neighbors' line"),
        ('{"lldpNeighbors": {"Ethernet31": ', "not JSON"),
        ('{"errors": ["This is an unconverted command"]}', "no lldpNeighbors object"),
    ],
)
def test_unreadable_lldp_detail_is_unknown_cabling(text: str, why: str):
    state = _detail(text)
    assert state.unparsed["show lldp neighbors detail"].startswith(why)
    assert "lldp" not in state.facets and state.lldp == []


def test_lldp_detail_cut_short_mid_port_is_unknown_not_fewer_neighbours():
    full = fixture("show_lldp_neighbors_detail.txt")
    cut = full[: full.index("Interface Ethernet32")] + "Interface Ethernet32 detected 1 LLDP neighbors:\n\n"
    state = _detail(cut)
    assert "cut short: Ethernet32" in state.unparsed["show lldp neighbors detail"]
    assert "lldp" not in state.facets


def test_the_table_netcfg_collects_wins_over_a_detail_file():
    files = {
        "show_running-config": fixture("running_config_per_interface.cfg"),
        "show_lldp_neighbors": fixture("show_lldp_neighbors.txt"),
        "show_lldp_neighbors_detail": "garbage",
    }
    state = eos.parse_outputs(files, leaf())
    assert state.lldp[0] == LldpNeighbor("Ethernet1", "gpu01", "eth0") and state.unparsed == {}


@pytest.mark.parametrize(
    "version",
    [
        "",  # empty file
        "% Invalid input (privileged mode required)\n",
        "\x00\x7f\x1b[2J garbage \ufffd\ufffd\n",
        "Arista DCS-7060X6-64PE-F\nHardware version: 11.02\n",  # truncated before the version line
    ],
)
def test_missing_or_garbage_show_version_is_explicitly_unknown(version: str | None):
    state = eos.parse_outputs(
        outputs(
            version=version,
            running=fixture("running_config_per_interface.cfg"),
            lldp=fixture("show_lldp_neighbors.txt"),
        ),
        leaf(),
    )
    assert state.os_version is None
    assert "show version" in state.unparsed
    assert state.unparsed["show version"]
    # The model must not silently come from the running-config header instead.
    assert state.model in (None, "DCS-7060X6-64PE-F")
    # Other outputs are unaffected.
    assert "show running-config" not in state.unparsed
    assert len(state.lldp) == 4


def test_without_show_version_the_running_config_header_gives_model_and_version():
    state = eos.parse_outputs(
        outputs(running=fixture("running_config_per_interface.cfg"), lldp=fixture("show_lldp_neighbors.txt")),
        leaf(),
    )
    assert (state.model, state.os_version) == ("DCS-7060X6-64PE", "4.32.1F")
    assert state.unparsed == {}


def test_running_config_without_header_leaves_the_version_unknown():
    running = fixture("running_config_per_interface.cfg").split("\n", 2)[2]
    state = eos.parse_outputs(outputs(running=running, lldp=fixture("show_lldp_neighbors.txt")), leaf())
    assert state.os_version is None
    assert "header" in state.unparsed["show running-config"]
    # The QoS was read: only the version is left to parse.unknown_output.
    assert state.facets == frozenset({"qos", "lldp"})
    assert state.interfaces["Ethernet1"].no_drop_priorities == frozenset({3})


def test_missing_running_config_and_lldp_are_recorded():
    state = eos.parse_outputs(outputs(version=fixture("show_version_7060x6.txt")), leaf())
    assert state.os_version == "4.32.1F"
    assert set(state.unparsed) == {"show running-config", "show lldp neighbors"}
    assert state.interfaces == {}
    assert state.watchdog is None


def test_running_config_without_interfaces_is_unparsed():
    state = eos.parse_config("hostname leaf-su1-r1\n!\nip routing\n!\nend\n", leaf())
    assert state.unparsed
    assert state.interfaces == {}


def test_secrets_are_masked_before_saving():
    text = fixture("running_config_per_interface.cfg")
    masked = eos.mask_secrets(text)
    for secret in ("$6$Xy7PqZ3m$", "$6$abcdEFGH$", "n0tpubl1c"):
        assert secret in text and secret not in masked
    assert "username admin privilege 15 role network-admin secret sha512 <masked>" in masked
    assert eos.parse_config(masked, leaf()) == eos.parse_config(text, leaf())


# --- a production config: much more than netcfg renders -------------------------------------------

OTHER = Path(__file__).parent / "fixtures" / "other"
PRODUCTION = "running_config_production.cfg"


def line_of(text: str, needle: str, after: str | None = None) -> int:
    """1-based number of the first line that is `needle` (stripped), below the line `after` if given."""
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index(after) + 1 if after else 0
    return lines.index(needle, start) + 1


@pytest.fixture(scope="module")
def production() -> DeviceState:
    return parse(PRODUCTION)


def test_production_fabric_ports_take_the_profile(production: DeviceState):
    for name in ("Ethernet1", "Ethernet3", "Ethernet31", "Ethernet32"):
        port = production.interfaces[name]
        assert (port.mtu, port.trust, port.pfc_enabled, port.watchdog) == (9214, "dscp", True, True)
        assert port.no_drop_priorities == frozenset({3})
        # `0.15 mbytes` / `1.5 mbytes` on `uc-tx-queue 4`; `mc-tx-queue 4`'s strict priority is not it.
        assert port.ecn == {4: EcnSetting(150_000, 1_500_000, 100)}
        assert port.strict_queues == frozenset({7})
    assert production.interfaces["Ethernet2"].no_drop_priorities == frozenset({3, 4})
    assert production.interfaces["Ethernet3"].description is None


def test_production_classes_ride_their_mapped_queues(production: DeviceState):
    assert production.tc_queue == {3: 4, 6: 7}
    assert (production.queue_of(3), production.queue_of(6), production.queue_of(1)) == (4, 7, 1)
    assert production.dscp_map == {24: 3, 25: 3, 26: 3, 27: 3, 48: 6}


def test_production_watchdog_lines_out_of_order_and_one_missing(production: DeviceState):
    # No `default recovery-time` line: unknown, not a default netcfg made up.
    assert production.watchdog == Watchdog(
        enabled=True, action="drop", detection_ms=200, restoration_ms=None, polling_ms=100
    )


def test_production_ports_outside_the_fabric_carry_no_qos(production: DeviceState):
    others = [
        "Port-Channel10",
        "Ethernet4",
        "Ethernet33/1",
        "Ethernet33/2",
        "Ethernet33/3",
        "Ethernet33/4",
        "Ethernet34",
        "Ethernet35",
        "Loopback0",
        "Management1",
        "Vlan100",
    ]
    assert set(production.interfaces) == {
        "Ethernet1",
        "Ethernet2",
        "Ethernet3",
        "Ethernet31",
        "Ethernet32",
    } | set(others)
    for name in others:
        port = production.interfaces[name]
        assert (port.trust, port.pfc_enabled, port.no_drop_priorities, port.ecn) == (None, None, None, {})
    assert production.interfaces["Vlan100"].mtu == 9000
    assert production.interfaces["Management1"].description == "OOB  mgmt-sw-r12 Gi1/0/14"


def test_production_banner_text_is_not_config(production: DeviceState):
    # The banner holds `interface Ethernet9`, a DSCP map line, braces and '#' lines.
    assert "Ethernet9" not in production.interfaces
    assert production.dscp_map[26] == 3
    assert production.unparsed == {}
    assert (production.model, production.os_version) == ("DCS-7060X6-64PE", "4.32.1F")


def test_production_locations_point_at_each_setting(production: DeviceState):
    text = fixture(PRODUCTION)
    profile = "qos profile ROCE_LOSSLESS"
    loc = production.locations
    # A setting written in the port's own block: that line.
    assert loc["Ethernet2.no_drop_priorities"] == line_of(
        text, "priority-flow-control priority 4 no-drop", after="interface Ethernet2"
    )
    assert loc["Ethernet31.mtu"] == line_of(text, "mtu 9214", after="interface Ethernet31")
    # A setting the port takes from its profile: the profile's line.
    assert loc["Ethernet3.trust"] == line_of(text, "qos trust dscp", after=profile)
    ecn = "random-detect ecn minimum-threshold 0.15 mbytes maximum-threshold 1.5 mbytes"
    assert loc["Ethernet1.ecn"] == line_of(text, f"{ecn} max-mark-probability 100")
    assert loc["Ethernet1.strict_queues"] == line_of(text, "priority strict", after="uc-tx-queue 7")
    assert loc["Ethernet32.watchdog"] == line_of(text, "priority-flow-control pause watchdog", after=profile)
    # The block itself, and device-wide settings.
    assert loc["Ethernet4"] == line_of(text, "interface Ethernet4")
    assert loc["dscp_map"] == line_of(text, "qos map dscp 24 25 26 27 to traffic-class 3")
    assert loc["tc_queue"] == line_of(text, "qos map traffic-class 3 to tx-queue 4")
    assert loc["watchdog"] == line_of(text, "priority-flow-control pause watchdog action drop")
    assert loc[""] == line_of(text, "end") - 1
    # What `line_of` gives a finding: a port setting missing from block and profile -> the profile.
    assert production.line_of("Ethernet4", ("ecn",)) == line_of(text, "interface Ethernet4")
    assert production.line_of(None, ("dscp_map",)) == loc["dscp_map"]


def test_a_profile_port_missing_a_setting_points_at_the_profile():
    text = fixture(PRODUCTION).replace(
        "      random-detect ecn minimum-threshold 0.15 mbytes maximum-threshold 1.5 mbytes"
        " max-mark-probability 100\n",
        "",
    )
    state = eos.parse_config(text, leaf())
    assert state.interfaces["Ethernet1"].ecn == {}
    assert state.line_of("Ethernet1", ("ecn",)) == line_of(text, "qos profile ROCE_LOSSLESS")


def test_pfc_all_off_turns_every_port_off():
    text = fixture(PRODUCTION).replace("ip routing\n", "ip routing\n!\npriority-flow-control all off\n")
    state = eos.parse_config(text, leaf())
    for name in ("Ethernet1", "Ethernet2", "Ethernet31"):
        assert state.interfaces[name].pfc_enabled is False
        assert state.locations[f"{name}.pfc_enabled"] == line_of(text, "priority-flow-control all off")
    assert state.interfaces["Ethernet2"].no_drop_priorities == frozenset({3, 4})


def test_no_priority_flow_control_and_drop_lines():
    text = (
        "! device: leaf-su1-r1 (DCS-7060X6-64PE, EOS-4.32.1F)\n"
        "interface Ethernet1\n   no priority-flow-control\n!\n"
        "interface Ethernet2\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
        "   priority-flow-control priority 3 drop\n!\nend\n"
    )
    state = eos.parse_config(text, leaf())
    assert (state.interfaces["Ethernet1"].pfc_enabled, state.interfaces["Ethernet1"].no_drop_priorities) == (
        False,
        frozenset(),
    )
    assert state.interfaces["Ethernet2"].no_drop_priorities == frozenset()
    assert state.locations["Ethernet2.no_drop_priorities"] == 8


# --- not EOS at all -------------------------------------------------------------------------------

NOT_EOS = {
    "nxos_running_config.cfg": "NX-OS",
    "cumulus_nvue_startup.yaml": "YAML",
    "sonic_config_db.json": "JSON",
    "leaf_notes.md": "'#' line",
    "junos_qfx.conf": "'#' line",
}


@pytest.mark.parametrize(("name", "what"), sorted(NOT_EOS.items()))
def test_other_formats_are_not_read_as_eos(name: str, what: str):
    state = eos.parse_config((OTHER / name).read_text(encoding="utf-8"), leaf())
    (why,) = state.unparsed.values()
    assert why.startswith("not an Arista EOS config") and what in why
    assert state.interfaces == {} and state.dscp_map == {}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("interface Ethernet1\n  description gpu01:eth0\n  mtu 9216\n", "indented by 2"),
        ("interface TenGigabitEthernet 0/1\n no shutdown\n!\nend\n", "no '! device:' header"),
        ("3f1a9c\n77be02\n", "no '! device:' header"),
    ],
)
def test_eos_needs_positive_evidence(text: str, why: str):
    assert why in eos.parse_config(text, leaf()).unparsed["running-config"]


# --- unreadable output: one finding, no guesses ----------------------------------------------------


def lab_leaf_findings(lab_fabric, lab_policy, running: str) -> list:
    """What the checks find on the lab's leaf-su1-r1 given this running-config (and its true LLDP table)."""
    from netcfg.checks.runner import run_checks
    from netcfg.lab.devices import live_states

    device = lab_fabric.devices["leaf-su1-r1"]
    lldp = simulator(eos.name).render_outputs(live_states(lab_fabric, lab_policy)[device.name], device)[
        "show lldp neighbors"
    ]
    state = eos.parse_outputs(outputs(running=running, lldp=lldp), device)
    return [f for f in run_checks(lab_fabric, lab_policy, {device.name: state}) if f.device == device.name]


def test_the_readable_production_config_has_findings(lab_fabric, lab_policy):
    """The baseline for the tests below: read in full, this config is far from the policy."""
    rules = {f.rule for f in lab_leaf_findings(lab_fabric, lab_policy, fixture(PRODUCTION))}
    assert {"pfc.no_drop_priorities", "qos.trust", "pfc.watchdog"} <= rules


def _truncated(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[: int(len(lines) * 0.4)])


def _garbled(text: str) -> str:
    return "".join(f"{zlib.crc32(line.encode()):08x}{line[::-1]}\n" for line in text.splitlines())


@pytest.mark.parametrize(
    "damage",
    [
        _truncated,
        _garbled,
        lambda t: t.replace("\nend\n", "\n"),
        lambda t: (OTHER / "nxos_running_config.cfg").read_text(encoding="utf-8"),
        lambda t: (OTHER / "sonic_config_db.json").read_text(encoding="utf-8"),
        lambda t: "% Invalid input (privileged mode required)\n",
    ],
)
def test_unreadable_running_config_is_one_finding_and_nothing_else(lab_fabric, lab_policy, damage):
    findings = lab_leaf_findings(lab_fabric, lab_policy, damage(fixture(PRODUCTION)))
    assert [(f.rule, f.expected) for f in findings] == [
        ("parse.unknown_output", "readable output of 'show running-config'")
    ]


# --- secrets --------------------------------------------------------------------------------------

# (config line, the secret in it): every form of secret an EOS config carries that we know of.
SECRET_LINES = [
    ("username ops secret 0 Pl4in-0ps!", "Pl4in-0ps!"),
    ("username admin privilege 15 role network-admin secret sha512 $6$aBcD$Zx9Yw8", "$6$aBcD$Zx9Yw8"),
    ("username legacy privilege 15 secret 5 $1$Qw3r$Ty7Ui9Op", "$1$Qw3r$Ty7Ui9Op"),
    ("username guest password 7 0832585B1910", "0832585B1910"),
    ("username bare secret B4reS3cret", "B4reS3cret"),
    ("enable password 0 En4ble-Pl4in", "En4ble-Pl4in"),
    ("enable secret 5 $1$Ab12$EnAbLeHaSh", "$1$Ab12$EnAbLeHaSh"),
    ("enable password sha512 $6$Sa1t$En4bleSha", "$6$Sa1t$En4bleSha"),
    ("   secret 5 $1$Zz99$Any-Where", "$1$Zz99$Any-Where"),
    ("      secret 0 Sh4redK3y receive-lifetime infinite transmit-lifetime infinite", "Sh4redK3y"),
    ("ntp authentication-key 1 md5 7 0822455D0A16", "0822455D0A16"),
    ("ntp authentication-key 2 sha1 0 NtpPl4in", "NtpPl4in"),
    ("radius-server key 0 R4diusPl4in", "R4diusPl4in"),
    ("radius-server host 10.0.0.50 vrf MGMT auth-port 1812 key 7 011F0706", "011F0706"),
    ("tacacs-server key 7 070C285F4D06", "070C285F4D06"),
    ("tacacs-server host 10.0.0.49 vrf MGMT key 0 T4c4csPl4in", "T4c4csPl4in"),
    ("snmp-server community s3cr3t-c0mm ro", "s3cr3t-c0mm"),
    ("snmp-server community rw-c0mm rw SNMP-ACL", "rw-c0mm"),
    ("snmp-server user monitor NETOPS v3 auth sha Auth-P4ss priv aes Priv-P4ss", "Auth-P4ss"),
    ("snmp-server user monitor2 NETOPS v3 auth sha256 Auth2-P4ss priv aes256 Priv2-P4ss", "Priv2-P4ss"),
    ("   authentication-key 0 Gnmi-K3y", "Gnmi-K3y"),
    ("   ip ospf authentication-key 7 OspfK3yEnc", "OspfK3yEnc"),
    ("   ip ospf message-digest-key 1 md5 7 0F0E1D2C3B4A", "0F0E1D2C3B4A"),
    ("   isis authentication key 7 IsisK3yEnc", "IsisK3yEnc"),
    ("   authentication key 0 Is1sPl4in level-2", "Is1sPl4in"),
    ("   neighbor SPINES password 7 Hx9Lq2Zr0Pw==", "Hx9Lq2Zr0Pw=="),
    ("   neighbor 10.1.0.0 password 0 BgpPl4in", "BgpPl4in"),
    ("      pre-shared-key 7 Ik3PskEnc", "Ik3PskEnc"),
    ("      shared-key 0 IpsecPl4in", "IpsecPl4in"),
    ("   exec /usr/bin/TerminAttr -cvaddr=10.0.0.10:9910 -cvauth=key,Cv4uthK3y -cvvrf=MGMT", "Cv4uthK3y"),
]
# Lines that look close to a secret but are not one: masking must leave them as they are.
PLAIN_LINES = [
    "   password minimum length 12",
    "aaa authentication login default group tacacs+ local",
    "ntp server vrf MGMT 10.0.0.123 iburst key 1",
    "username ops ssh-key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOpsKey ops@bastion",
    "management security",
    "   session shared-secret profile PROFILE1",
    "snmp-server contact netops@example.net",
    "   neighbor SPINES remote-as 65000",
    "   priority-flow-control priority 3 no-drop",
    "qos map dscp 26 to traffic-class 3",
    "   description key to the keys: secret-garden",
]


def test_every_secret_form_is_masked_and_keeps_its_line_shape():
    text = "\n".join(line for line, _ in SECRET_LINES) + "\n"
    masked = eos.mask_secrets(text).splitlines()
    assert len(masked) == len(SECRET_LINES)
    for (line, secret), out in zip(SECRET_LINES, masked, strict=True):
        assert secret not in out, out
        assert "<masked>" in out, out
        # Keywords and encryption type stay: only the secret's own word changes.
        assert out.split()[0] == line.split()[0]
        assert len(out.split()) == len(line.split()), out
    # The second SNMP secret of a line goes too.
    assert "Priv-P4ss" not in eos.mask_secrets(SECRET_LINES[18][0])
    assert "Auth2-P4ss" not in eos.mask_secrets(SECRET_LINES[19][0])


def test_lines_without_secrets_are_unchanged():
    text = "\n".join(PLAIN_LINES) + "\n"
    assert eos.mask_secrets(text) == text


def test_masking_twice_changes_nothing_more():
    text = "\n".join(line for line, _ in SECRET_LINES) + "\n"
    once = eos.mask_secrets(text)
    assert eos.mask_secrets(once) == once


def test_a_masked_production_config_reads_the_same():
    text = fixture(PRODUCTION)
    masked = eos.mask_secrets(text)
    for secret in (
        "$6$pr0dS4lt$",
        "Pl41nT3xt-Au70",
        "Cv4uthK3y",
        "0822455D0A16",
        "r0c3-c0mmunity",
        "Hx9Lq2Zr0Pw",
    ):
        assert secret in text and secret not in masked
    assert eos.parse_config(masked, leaf()) == eos.parse_config(text, leaf())


def test_the_collector_masks_with_the_platform_before_saving():
    """Collection (netcfg.collect) saves what `platform.saved_output` returns, whatever the platform:
    masked, line ends as a snapshot keeps them (tests/test_secret_filters.py collects it live)."""
    import inspect

    from netcfg import collect

    assert "platform.saved_output(output)" in inspect.getsource(collect)
    assert eos.saved_output("username ops secret 0 Pl4in-0ps!\r\n") == "username ops secret 0 <masked>\n"


def test_dcbx_mode_per_port_and_unknown_where_the_stanza_is_silent():
    # As Arista's DCBX guide writes it, among the lines of a production port stanza.
    text = fixture("running_config_production.cfg")
    text = text.replace("   description gpu01:eth0\n", "   description gpu01:eth0\n   dcbx mode ieee\n", 1)
    text = text.replace("   description gpu02:eth0\n", "   description gpu02:eth0\n   no dcbx mode\n", 1)
    state = eos.parse_config(text, leaf())
    ports = state.interfaces
    assert (ports["Ethernet1"].dcbx_mode, ports["Ethernet2"].dcbx_mode, ports["Ethernet3"].dcbx_mode) == (
        "ieee",
        "off",
        None,
    )
    # EOS has no willing bit to configure: unknown, never "not willing".
    assert ports["Ethernet1"].dcbx_willing is None
    assert state.locations["Ethernet1.dcbx_mode"] == text.splitlines().index("   dcbx mode ieee") + 1
