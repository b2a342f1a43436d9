"""Route tables as each switch platform prints them: the default VRF's installed routes, each by the
next hops it forwards on; management VRFs, routes zebra did not select and next hops outside the
FIB left out; a table that cannot be read is named once, never read as "no routes"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.model import Device, InstalledRoute, NextHop, Role
from netcfg.platforms import get_platform
from netcfg.sources import device_state

FIXTURES = Path(__file__).parent / "fixtures"


def _table(platform: str, fixture: str) -> dict[str, InstalledRoute]:
    found = get_platform(platform).parse_routes((FIXTURES / platform / fixture).read_text())
    assert not isinstance(found, str), found
    return {route.prefix: route for route in found}


def test_eos_default_vrf_with_ecmp_and_connected_routes():
    routes = _table("eos", "show_ip_route_vrf_all.json")
    assert "192.168.0.0/24" not in routes  # the MGMT VRF's
    assert routes["0.0.0.0/0"] == InstalledRoute(
        "0.0.0.0/0", "bgp", (NextHop("10.1.0.0", "Ethernet49/1"), NextHop("10.1.0.2", "Ethernet50/1"))
    )
    assert routes["172.16.1.0/24"] == InstalledRoute(
        "172.16.1.0/24", "connected", (NextHop(None, "Vlan100"),)
    )
    assert routes["10.0.0.11/32"].attached
    assert len(routes) == 7


def test_nxos_text_best_paths_with_short_port_names():
    routes = _table("nxos", "show_ip_route.txt")
    assert routes["172.16.2.0/24"].next_hops == (
        NextHop("10.1.0.0", "Ethernet1/49"),
        NextHop("10.1.0.2", "Ethernet1/50"),
    )
    assert routes["10.1.0.0/31"] == InstalledRoute(
        "10.1.0.0/31", "connected", (NextHop("10.1.0.1", "Ethernet1/49"),)
    )
    assert routes["10.1.0.1/32"].protocol == "local"
    assert routes["192.0.2.0/24"] == InstalledRoute("192.0.2.0/24", "static", (NextHop(None, "Null0"),))
    assert routes["0.0.0.0/0"].protocol == "bgp"
    assert len(routes) == 11


def test_nxos_management_vrf_left_out_and_recursive_paths_kept():
    routes = _table("nxos", "show_ip_route_vrf_all.txt")
    assert set(routes) == {"10.1.0.0/31", "172.16.2.0/24"}
    assert routes["172.16.2.0/24"].next_hops == (NextHop("10.1.0.0", None), NextHop("10.1.0.2", None))


def test_junos_active_route_by_its_forwarding_next_hops():
    routes = _table("junos", "show_route_table_inet.0.txt")
    assert routes["172.16.2.0/24"] == InstalledRoute(
        "172.16.2.0/24", "bgp", (NextHop("10.1.0.0", "et-0/0/48"), NextHop("10.1.0.2", "et-0/0/49"))
    )
    assert routes["10.1.0.0/31"] == InstalledRoute("10.1.0.0/31", "connected", (NextHop(None, "et-0/0/48"),))
    assert routes["10.1.0.1/32"] == InstalledRoute("10.1.0.1/32", "local", (NextHop(None, "et-0/0/48"),))
    assert routes["192.0.2.0/24"] == InstalledRoute("192.0.2.0/24", "static", ())
    assert len(routes) == 11


@pytest.mark.parametrize(
    ("platform", "fixture", "uplinks"),
    [
        (
            "cumulus",
            "vtysh_show_ip_route_json.json",
            (NextHop("fe80::1e34:daff:fe5a:5e01", "swp51"), NextHop("fe80::1e34:daff:fe5a:6e01", "swp52")),
        ),
        (
            "sonic",
            "show_ip_route_json.json",
            (NextHop("10.1.0.0", "Ethernet0"), NextHop("10.1.0.2", "Ethernet4")),
        ),
    ],
)
def test_frr_selected_installed_entry(platform, fixture, uplinks):
    routes = _table(platform, fixture)
    assert routes["172.16.2.0/24"] == InstalledRoute("172.16.2.0/24", "bgp", uplinks)
    # The BGP default, not the kernel's via eth0 that zebra did not select.
    assert routes["0.0.0.0/0"] == InstalledRoute("0.0.0.0/0", "bgp", uplinks)
    assert routes["10.0.0.11/32"].attached


def test_frr_route_zebra_did_not_select_is_left_out():
    routes = _table("cumulus", "vtysh_show_ip_route_json.json")
    assert routes["172.16.9.0/24"].protocol == "bgp"
    assert len(routes) == 6


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos", "cumulus", "sonic"])
@pytest.mark.parametrize("text", ["", "% Invalid input detected at '^' marker.\n", '{"vrfs": []}'])
def test_unreadable_table_is_unknown_and_named_once(platform, text):
    impl = get_platform(platform)
    device = Device("leaf-1", Role.LEAF, platform)
    state = device_state(device, {impl.route_command.file: text}, None)
    assert state.routes is None
    assert "routes" not in state.facets
    assert set(state.unparsed) >= {impl.route_command.cli}


@pytest.mark.parametrize(
    ("platform", "fixture"),
    [
        ("eos", "show_ip_route_vrf_all.json"),
        ("nxos", "show_ip_route.txt"),
        ("junos", "show_route_table_inet.0.txt"),
        ("cumulus", "vtysh_show_ip_route_json.json"),
        ("sonic", "show_ip_route_json.json"),
    ],
)
def test_snapshot_output_read_into_state(platform, fixture):
    impl = get_platform(platform)
    device = Device("leaf-1", Role.LEAF, platform)
    state = device_state(device, {impl.route_command.file: (FIXTURES / platform / fixture).read_text()}, None)
    assert state.routes and "routes" in state.facets
    assert impl.route_command.cli not in state.unparsed
    assert impl.route_command not in impl.commands(device)  # only with --routes


_SHAPES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    platform=st.sampled_from(["eos", "nxos", "junos", "cumulus", "sonic"]),
    text=st.one_of(
        st.text(max_size=300),
        _SHAPES.map(json.dumps),
        st.lists(
            st.sampled_from(
                [
                    'IP Route Table for VRF "default"',
                    "10.0.0.0/31, ubest/mbest: 1/0, attached",
                    "    *via 10.0.0.1, Eth1/1, [0/0], 1d, direct",
                    "    *via , [x/y]",
                    "inet.0: 2 destinations, 2 routes (2 active, 0 holddown, 0 hidden)",
                    "10.0.0.0/31        *[Direct/0] 1d",
                    "                    >  via et-0/0/1.0",
                    "                    >  to 10.0.0.1 via et-0/0/2.0",
                    "*[BGP/170] 1d",
                ]
            ),
            max_size=12,
        ).map("\n".join),
    ),
)
def test_any_text_is_a_table_or_a_reason_never_a_crash(platform, text):
    """What a device (or a hand-made snapshot) holds in the route table's file is read, or named
    as unreadable: never an exception, which would be netcfg's own error."""
    found = get_platform(platform).parse_routes(text)
    assert isinstance(found, str) or all(isinstance(r, InstalledRoute) for r in found)
