"""Route tables as each switch platform prints them, IPv4 and IPv6: the default VRF's installed
routes, each by the next hops it forwards on; management VRFs, routes zebra did not select and next
hops outside the FIB left out; a table that cannot be read is named once, never read as "no routes",
and a table the device printed without a route is read as none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.model import Device, InstalledRoute, NextHop, Role
from netcfg.platforms import get_platform
from netcfg.platforms.base import RouteSource
from netcfg.sources import device_state

FIXTURES = Path(__file__).parent / "fixtures"
PLATFORMS = ["eos", "nxos", "junos", "cumulus", "sonic"]


def _source(platform: str, family: int) -> RouteSource:
    return next(s for s in get_platform(platform).route_tables if s.family == family)


def _table(platform: str, fixture: str, family: int = 4) -> dict[str, InstalledRoute]:
    found = _source(platform, family).read((FIXTURES / platform / fixture).read_text())
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


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("family", [4, 6])
@pytest.mark.parametrize("text", ["", "% Invalid input detected at '^' marker.\n", '{"vrfs": []}'])
def test_unreadable_table_is_unknown_and_named_once(platform, family, text):
    source = _source(platform, family)
    device = Device("leaf-1", Role.LEAF, platform)
    state = device_state(device, {source.command.file: text}, None)
    assert state.routes is None and state.routes6 is None
    assert "routes" not in state.facets
    assert set(state.unparsed) >= {source.command.cli}


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
    source = _source(platform, 4)
    device = Device("leaf-1", Role.LEAF, platform)
    state = device_state(device, {source.command.file: (FIXTURES / platform / fixture).read_text()}, None)
    assert state.routes and "routes" in state.facets
    assert source.command.cli not in state.unparsed
    assert source.command not in get_platform(platform).commands(device)  # only with --routes
    assert state.routes6 is None  # not collected: unknown, not "no IPv6 routes"


_SHAPES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    platform=st.sampled_from(PLATFORMS),
    family=st.sampled_from([4, 6]),
    text=st.one_of(
        st.text(max_size=300),
        _SHAPES.map(json.dumps),
        st.lists(
            st.sampled_from(
                [
                    'IP Route Table for VRF "default"',
                    'IPv6 Routing Table for VRF "default"',
                    "2001:db8:1::/127, ubest/mbest: 1/0, attached",
                    "    *via fe80::1%default, Eth1/1, [20/0], 1d, bgp-1, external",
                    "inet6.0: 1 destinations, 1 routes (1 active, 0 holddown, 0 hidden)",
                    "fe80::5668:a3ff:fe1e:8c01/128",
                    "                   *[Local/0] 1d",
                    "                       Local via et-0/0/1.0",
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
def test_any_text_is_a_table_or_a_reason_never_a_crash(platform, family, text):
    """What a device (or a hand-made snapshot) holds in a route table's file is read, or named
    as unreadable: never an exception, which would be netcfg's own error."""
    found = _source(platform, family).read(text)
    assert isinstance(found, str) or all(isinstance(r, InstalledRoute) for r in found)


_LINK_LOCAL_UPLINKS = {
    "eos": (
        NextHop("fe80::e6c7:22ff:fe2b:1b07", "Ethernet49/1"),
        NextHop("fe80::e6c7:22ff:fe2b:2b07", "Ethernet50/1"),
    ),
    "nxos": (
        NextHop("fe80::e6c7:22ff:fe2b:1b07", "Ethernet1/49"),
        NextHop("fe80::e6c7:22ff:fe2b:2b07", "Ethernet1/50"),
    ),
    "junos": (
        NextHop("fe80::e6c7:22ff:fe2b:1b07", "et-0/0/48"),
        NextHop("fe80::e6c7:22ff:fe2b:2b07", "et-0/0/49"),
    ),
    "cumulus": (NextHop("fe80::1e34:daff:fe5a:5e01", "swp51"), NextHop("fe80::1e34:daff:fe5a:6e01", "swp52")),
    "sonic": (
        NextHop("fe80::5054:ff:fe6b:1001", "Ethernet0"),
        NextHop("fe80::5054:ff:fe6b:1002", "Ethernet4"),
    ),
}
_IPV6_FIXTURES = {
    "eos": "show_ipv6_route_vrf_all.json",
    "nxos": "show_ipv6_route_vrf_all.txt",
    "junos": "show_route_table_inet6.0.txt",
    "cumulus": "vtysh_show_ipv6_route_json.json",
    "sonic": "show_ipv6_route_json.json",
}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_ipv6_default_vrf_ecmp_over_link_local_next_hops(platform):
    """Each platform's IPv6 table: ECMP routes by the neighbours' link-local addresses and the ports
    they were learnt on, connected subnets by their port; the management VRF's routes left out."""
    routes = _table(platform, _IPV6_FIXTURES[platform], 6)
    uplinks = _LINK_LOCAL_UPLINKS[platform]
    assert routes["::/0"] == InstalledRoute("::/0", "bgp", uplinks)
    assert routes["2001:db8:172:2::/64"] == InstalledRoute("2001:db8:172:2::/64", "bgp", uplinks)
    assert routes["2001:db8:172:1::/64"].protocol == "connected"
    assert routes["2001:db8::11/128"].attached
    assert "2001:db8:ffff::/64" not in routes  # the management VRF's
    assert all(":" in prefix for prefix in routes)


def test_eos_ipv6_table_without_vrfs_as_older_releases_print_it():
    """Older EOS releases print `show ipv6 route | json` as the asked VRF's routes at the top (no
    `vrfs`): read as the same default-VRF table."""
    bare = _table("eos", "show_ipv6_route.json", 6)
    assert bare == {p: r for p, r in _table("eos", "show_ipv6_route_vrf_all.json", 6).items()}
    assert bare["::/0"].next_hops == _LINK_LOCAL_UPLINKS["eos"]
    # The IPv4 table has always carried its VRFs: one without is no table.
    assert isinstance(_source("eos", 4).read((FIXTURES / "eos" / "show_ipv6_route.json").read_text()), str)


def test_nxos_ipv6_local_routes_and_a_recursive_path_in_its_vrf():
    routes = _table("nxos", "show_ipv6_route_vrf_all.txt", 6)
    assert routes["2001:db8:1::1/128"] == InstalledRoute(
        "2001:db8:1::1/128", "local", (NextHop("2001:db8:1::1", "Ethernet1/49"),)
    )
    # `%default` names the VRF the address resolves in; the path names no port.
    assert routes["2001:db8::21/128"].next_hops == (NextHop("2001:db8::31", None),)
    assert len(routes) == 10


def test_junos_ipv6_destinations_on_their_own_lines_and_multicast_receive():
    routes = _table("junos", "show_route_table_inet6.0.txt", 6)
    assert routes["2001:db8:172:1::1/128"] == InstalledRoute(
        "2001:db8:172:1::1/128", "local", (NextHop(None, "irb"),)
    )
    assert routes["fe80::5668:a3ff:fe1e:8c02/128"].next_hops == (NextHop(None, "et-0/0/49"),)
    assert routes["ff02::2/128"] == InstalledRoute("ff02::2/128", "inet6", ())
    assert len(routes) == 12


def test_frr_ipv6_one_link_local_subnet_and_next_hops_outside_the_fib():
    routes = _table("cumulus", "vtysh_show_ipv6_route_json.json", 6)
    # zebra selects one of the ports' fe80::/64 routes; the kernel's default via eth0 it did not.
    assert routes["fe80::/64"] == InstalledRoute("fe80::/64", "connected", (NextHop(None, "swp51"),))
    assert routes["2001:db8:172:9::/64"].next_hops == (NextHop("fe80::1e34:daff:fe5a:5e01", "swp51"),)
    assert len(routes) == 6


@pytest.mark.parametrize(
    ("platform", "fixture"),
    [
        ("eos", "show_ipv6_route_empty.json"),
        ("nxos", "show_ipv6_route_empty.txt"),
        ("junos", "show_route_table_inet6.0_empty.txt"),
        ("cumulus", "vtysh_show_ipv6_route_empty.json"),
        ("sonic", "../cumulus/vtysh_show_ipv6_route_empty.json"),
    ],
)
def test_an_empty_ipv6_table_is_evidence_of_no_ipv6_routes(platform, fixture):
    """A device that printed its IPv6 table without a route has none (an empty list), which is not
    the unknown of a table never read; the IPv4 table it did not print stays unknown."""
    source = _source(platform, 6)
    device = Device("leaf-1", Role.LEAF, platform)
    state = device_state(device, {source.command.file: (FIXTURES / platform / fixture).read_text()}, None)
    assert state.routes6 == [] and "routes" in state.facets
    assert state.routes is None
    assert source.command.cli not in state.unparsed
