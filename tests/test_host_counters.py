"""Link state, PCIe link and counters of ConnectX and Thor hosts: the commands, the parse of outputs
shaped as the tools print them, the lab's outputs read back (with faults), and what cannot be read.

Fixtures: `ethtool IF` as ethtool 6.x prints a 400G port (up, at 200G on a 2-lane link, down),
`ethtool -S IF` as mlx5_core and bnxt_en print them (software, per-ring and per-channel counters
around the port counters; mlx5 lists pause counters only for priorities with PFC, bnxt all eight),
and `grep -rH .` of the PCIe link files and RDMA hw_counters (mlx5_ib; bnxt_re under its older and
its 2025 names).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.health import with_counters
from netcfg.lab.snapshot import simulated_devices
from netcfg.model import Device, DeviceState, Nic, PcieLink, PortCounters, Role
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.policy import load_policy
from netcfg.snapshot import fingerprint
from tests.conftest import LAB

FIXTURES = Path(__file__).parent / "fixtures"
THOR_INVENTORY = FIXTURES / "thor" / "inventory"
NICS = [Nic(1, "eth0", "mlx5_0"), Nic(2, "eth1", "mlx5_1")]
CX_HOST = Device("gpu07", Role.HOST, "connectx", su=2, nics=NICS)
THOR_HOST = Device(
    "gpu07", Role.HOST, "thor", su=2, nics=[Nic(1, "eth0", "bnxt_re0"), Nic(2, "eth1", "bnxt_re1")]
)


def fixture(platform: str, name: str) -> str:
    return (FIXTURES / platform / name).read_text(encoding="utf-8")


def counter_files(device: Device) -> dict[tuple[str, str], str]:
    """(command kind, netdev) -> snapshot file of the device's counter commands."""
    out = {}
    for c in get_platform(device.platform).commands(device):
        if not c.counters:
            continue
        netdev = next(
            nic.netdev for nic in device.nics if f"/{nic.netdev}/" in c.cli or c.cli.endswith(nic.netdev)
        )
        kind = (
            "stats" if c.cli.startswith("ethtool -S") else "link" if c.cli.startswith("ethtool") else "sysfs"
        )
        out[(kind, netdev)] = c.file
    return out


def connectx_outputs(**replace: str) -> dict[str, str]:
    files = counter_files(CX_HOST)
    out = {
        files[("link", "eth0")]: fixture("connectx", "ethtool_cx7_400g_up.txt"),
        files[("stats", "eth0")]: fixture("connectx", "ethtool_S_cx7.txt"),
        files[("sysfs", "eth0")]: fixture("connectx", "hw_counters_cx7_gen5_x16.txt"),
        files[("link", "eth1")]: fixture("connectx", "ethtool_cx7_down.txt"),
        # A port that is down still prints its counters.
        files[("stats", "eth1")]: fixture("connectx", "ethtool_S_cx7.txt"),
        files[("sysfs", "eth1")]: fixture("connectx", "hw_counters_cx7_gen4_x8.txt"),
    }
    for key, text in replace.items():
        kind, _, netdev = key.partition("_")
        out[files[(kind, netdev)]] = text
    return out


@pytest.fixture(scope="module")
def cx_state() -> DeviceState:
    return get_platform("connectx").parse_outputs(connectx_outputs(), CX_HOST)


def test_connectx_link_state_and_pcie(cx_state: DeviceState):
    eth0, eth1 = cx_state.interfaces["eth0"], cx_state.interfaces["eth1"]
    assert (eth0.oper_up, eth0.speed_gbps) == (True, 400)
    # `Speed: Unknown!` on a port that is down: no speed, not 0.
    assert (eth1.oper_up, eth1.speed_gbps) == (False, None)
    assert eth0.pcie == PcieLink(width=16, max_width=16, speed_gts=32.0, max_speed_gts=32.0)
    assert eth1.pcie == PcieLink(width=8, max_width=16, speed_gts=16.0, max_speed_gts=32.0)
    assert {"link", "counters"} <= cx_state.facets
    counter_clis = {c.cli for c in get_platform("connectx").commands(CX_HOST) if c.counters}
    assert not counter_clis & set(cx_state.unparsed)


def test_connectx_counters_under_mlx5_names(cx_state: DeviceState):
    c = cx_state.counters["eth0"]
    assert (c.link_downs, c.crc_errors, c.symbol_errors) == (2, 7, 3)
    assert (c.fec_corrected, c.fec_uncorrected) == (184467113, 0)
    # PFC pause counters exist for priority 3 only; `rx_prio3_pause_transition` is not a pause count.
    assert c.pause_rx == {3: 51177302} and c.pause_tx == {3: 48122071}
    assert c.queue_drops == {p: (4 if p == 3 else 0) for p in range(8)}
    # `rx_discards_phy` (118) counts every priority's discards, lossy ones included: not lossless drops.
    assert c.no_buffer_discards is None
    # The RDMA counters, not ethtool's netdev `rx_out_of_buffer` (12).
    assert (c.cnp_sent, c.cnp_handled, c.ecn_marked_roce, c.out_of_buffer, c.retransmits) == (
        93311027,
        90122334,
        187205113,
        0,
        41,
    )
    # What a ConnectX does not count: ECN marks per egress queue, watchdog storms per priority.
    assert c.ecn_marked == {} and c.watchdog_storms == {} and c.stormed == frozenset()
    assert cx_state.counters["eth1"] == c


def test_a_two_lane_port_at_200g():
    state = get_platform("connectx").parse_outputs(
        connectx_outputs(link_eth1=fixture("connectx", "ethtool_cx7_200g_up.txt")), CX_HOST
    )
    assert (state.interfaces["eth1"].oper_up, state.interfaces["eth1"].speed_gbps) == (True, 200)


def test_a_missing_rdma_device_leaves_the_counters_unknown_not_the_link():
    state = get_platform("connectx").parse_outputs(
        connectx_outputs(sysfs_eth1=fixture("connectx", "hw_counters_no_rdma_device.txt")), CX_HOST
    )
    (cli,) = [cli for cli in state.unparsed if cli.startswith("grep -rH . /sys/class/net/eth1/device")]
    assert "hw_counters: No such file or directory" in state.unparsed[cli]
    assert "counters" not in state.facets and "link" in state.facets
    assert state.interfaces["eth1"].pcie == PcieLink(16, 16, 32.0, 32.0)


@pytest.mark.parametrize(
    ("key", "text", "facet"),
    [
        (
            "link_eth1",
            "netlink error: no device matches name (offset 24)\nnetlink error: No such device\n",
            "link",
        ),
        ("stats_eth0", "no stats available\n", "counters"),
        ("stats_eth0", "NIC statistics:\n", "counters"),
        ("sysfs_eth0", "-bash: grep: command not found\n", "link"),
        ("sysfs_eth0", "-bash: grep: command not found\n", "counters"),
    ],
)
def test_unreadable_output_is_unparsed_and_drops_its_facet(key: str, text: str, facet: str):
    state = get_platform("connectx").parse_outputs(connectx_outputs(**{key: text}), CX_HOST)
    kind, _, netdev = key.partition("_")
    (command,) = [
        c
        for c in get_platform("connectx").commands(CX_HOST)
        if c.file == counter_files(CX_HOST)[(kind, netdev)]
    ]
    assert command.cli in state.unparsed
    assert facet not in state.facets


def test_empty_outputs_are_not_collected_not_unreadable():
    state = get_platform("connectx").parse_outputs({}, CX_HOST)
    assert not {"link", "counters"} & state.facets
    assert not any(cli.startswith("ethtool -S") for cli in state.unparsed)
    assert state.counters == {} and state.interfaces["eth0"].oper_up is None


@pytest.mark.parametrize("hw", ["hw_counters_thor2.txt", "hw_counters_thor2_renamed.txt"])
def test_thor_counters_under_bnxt_names(hw: str):
    files = counter_files(THOR_HOST)
    outputs = {
        files[("link", "eth0")]: fixture("thor", "ethtool_thor2_400g_up.txt"),
        files[("stats", "eth0")]: fixture("thor", "ethtool_S_thor2.txt"),
        files[("sysfs", "eth0")]: fixture("thor", hw),
    }
    state = get_platform("thor").parse_outputs(outputs, THOR_HOST)
    assert (state.interfaces["eth0"].oper_up, state.interfaces["eth0"].speed_gbps) == (True, 400)
    c = state.counters["eth0"]
    assert (c.link_downs, c.crc_errors, c.symbol_errors, c.fec_corrected, c.fec_uncorrected) == (
        3,
        5,
        1,
        17767092,
        0,
    )
    assert c.pause_rx == {p: (33120117 if p == 3 else 0) for p in range(8)}
    assert c.pause_tx == {p: (30977201 if p == 3 else 0) for p in range(8)}
    assert (c.cnp_sent, c.cnp_handled, c.ecn_marked_roce, c.out_of_buffer, c.retransmits) == (
        70012277,
        66201188,
        140022301,
        0,
        17,
    )
    # Per-CoS discards are not per priority: a Thor leaves the lossless-queue drops unknown.
    assert c.queue_drops == {} and c.no_buffer_discards is None
    assert {"link", "counters"} <= state.facets


@pytest.mark.parametrize("platform", ["connectx", "thor"])
def test_counter_commands_are_read_only_and_left_out_of_fingerprints(platform: str):
    device = CX_HOST if platform == "connectx" else THOR_HOST
    impl = get_platform(platform)
    counters = [c for c in impl.commands(device) if c.counters]
    assert len(counters) == 3 * len(device.nics)
    assert all(is_read_only(impl, c.cli) for c in counters)
    for cli in ("ethtool -s eth0 speed 200000", "ethtool -S eth0 --all-groups", "ethtool --reset eth0 all"):
        assert not is_read_only(impl, cli)
    assert impl.counter_files(device) == {c.file for c in counters}


@pytest.fixture(scope="module")
def fabrics():
    cx = load_fabric(LAB)
    thor = load_fabric(THOR_INVENTORY)
    return {"connectx": (cx, load_policy(cx.policy_ref)), "thor": (thor, load_policy(thor.policy_ref))}


def expected(state: DeviceState, platform: str) -> DeviceState:
    """The lab's state as the platform's outputs show it: no speed on a port that is down; what the
    NIC does not print left unset; priorities it always lists at 0 where the lab counts none."""
    ports = {
        name: dataclasses.replace(port, speed_gbps=port.speed_gbps if port.oper_up else None)
        for name, port in state.interfaces.items()
    }
    counters = {}
    for name, c in state.counters.items():
        every = range(8)
        if platform == "connectx":
            shown = {"queue_drops": {p: c.queue_drops.get(p, 0) for p in every}, "no_buffer_discards": None}
        else:
            shown = {
                "pause_rx": {p: c.pause_rx.get(p, 0) for p in every},
                "pause_tx": {p: c.pause_tx.get(p, 0) for p in every},
                "queue_drops": {},
                "no_buffer_discards": None,
            }
        counters[name] = dataclasses.replace(
            c, ecn_marked={}, watchdog_storms={}, stormed=frozenset(), **shown
        )
    return dataclasses.replace(state, interfaces=ports, counters=counters)


FAULTS = st.fixed_dictionaries(
    {
        "link_down": st.lists(st.sampled_from(["eth0", "eth1", "eth2", "eth3"]), max_size=2, unique=True),
        "speed_gbps": st.dictionaries(
            st.sampled_from(["eth0", "eth2"]), st.sampled_from([100, 200]), max_size=1
        ),
        "pcie_width": st.dictionaries(st.sampled_from(["eth1", "eth3"]), st.sampled_from([4, 8]), max_size=1),
        "no_cnp": st.booleans(),
        "fec_errors": st.lists(st.sampled_from(["eth0", "eth3"]), max_size=1),
        "pause_storm": st.lists(st.sampled_from(["eth1"]), max_size=1),
    }
)


@settings(max_examples=15, deadline=None)
@given(platform=st.sampled_from(["connectx", "thor"]), faults=FAULTS, at=st.floats(1.77e9, 1.8e9))
def test_the_lab_hosts_counters_read_back(fabrics, platform: str, faults: dict, at: float):
    fabric, policy = fabrics[platform]
    simulated = simulated_devices(fabric, policy, {"gpu03": DeviceFaults(**faults)})["gpu03"]
    outputs = simulated.outputs(at)
    impl = get_platform(platform)
    state = impl.parse_outputs(
        {c.file: outputs[c.cli] for c in impl.commands(simulated.device)}, simulated.device
    )
    lab = with_counters(simulated.state, simulated.rates, simulated.roce_queue, at, 0)
    want = expected(lab, platform)
    assert state.interfaces == want.interfaces
    assert state.counters == want.counters
    assert {"link", "counters"} <= state.facets
    for port in faults["link_down"]:
        assert state.interfaces[port].oper_up is False and port not in state.counters
    for port, width in faults["pcie_width"].items():
        assert state.interfaces[port].pcie.width == width
    if faults["no_cnp"]:
        assert all(c.cnp_sent == 0 and c.cnp_handled > 0 for c in state.counters.values())


def test_two_readings_share_one_fingerprint(fabrics):
    fabric, policy = fabrics["connectx"]
    simulated = simulated_devices(fabric, policy, {})["gpu01"]
    impl = get_platform("connectx")
    files = impl.counter_files(simulated.device)
    first, second = (
        {c.file: out[c.cli] for c in impl.commands(simulated.device)}
        for out in (simulated.outputs(1.78e9), simulated.outputs(1.78e9 + 3600))
    )
    assert first != second
    assert fingerprint(first, files) == fingerprint(second, files)
    assert PortCounters() != impl.parse_outputs(second, simulated.device).counters["eth0"]
