"""EOS parsing from hand-written running-configs and show outputs (tests/fixtures/eos/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from netcfg.model import Device, DeviceState, EcnSetting, LldpNeighbor, Role, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.eos import SEGMENT_BYTES

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
