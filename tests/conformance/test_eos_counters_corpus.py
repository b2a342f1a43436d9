"""EOS link state and counters read from real switches' outputs in the shared corpus (read in place)."""

from __future__ import annotations

import pytest

from netcfg.model import Device, Role
from netcfg.platforms import get_platform
from netcfg.platforms.eos.commands import SHOW_PFC, SHOW_PFC_WATCHDOG, SHOW_PHY
from tests.conformance.test_corpus import read

EOS = get_platform("eos")
SWITCH = Device("sw", Role.LEAF, "eos")
# No PFC events and no FEC blocks: what a switch without lossless traffic or FEC prints.
QUIET = {
    SHOW_PHY.file: "Current System Time: Mon Mar  4 09:12:44 2024\n",
    SHOW_PFC.file: '{\n    "interfaces": {}\n}\n',
    SHOW_PFC_WATCHDOG.file: '{\n    "interfaces": {}\n}\n',
}


@pytest.mark.parametrize(
    ("path", "link", "flapped"),
    [
        (
            "show/eos_show_interfaces_vEOS.raw",
            {"Ethernet1": (True, 10), "Ethernet2": (True, 10), "Ethernet49/1": (False, 100)},
            {"Ethernet1": 0, "Ethernet2": 0},
        ),
        (
            "show/eos_show_interfaces_mtu9214.raw",
            {
                "Ethernet47": (True, 1),
                "Ethernet48": (True, 1),
                "Ethernet49": (False, 10),
                "Ethernet50": (False, 10),
                "Ethernet51": (False, 1),
                "Ethernet52": (False, 10),
            },
            # Four link status changes each, now up: two down-and-up pairs.
            {"Ethernet47": 2, "Ethernet48": 2},
        ),
    ],
)
def test_show_interfaces(path: str, link: dict[str, tuple[bool, int]], flapped: dict[str, int]) -> None:
    state = EOS.parse_outputs({"show_interfaces": read(path)} | QUIET, SWITCH)
    assert {n: (p.oper_up, p.speed_gbps) for n, p in state.interfaces.items()} == link
    assert {n: c.link_downs for n, c in state.counters.items()} == flapped
    assert all(c.crc_errors == c.symbol_errors == c.no_buffer_discards == 0 for c in state.counters.values())
    assert all(c.fec_corrected is None and c.pause_rx == {} for c in state.counters.values())
    assert {"link", "counters"} <= state.facets
    assert set(state.unparsed) == {"show running-config", "show lldp neighbors"}


def test_show_interfaces_alone_gives_link_state_and_names_the_missing_counter_outputs() -> None:
    state = EOS.parse_outputs({"show_interfaces": read("show/eos_show_interfaces_vEOS.raw")}, SWITCH)
    assert state.interfaces["Ethernet49/1"].oper_up is False
    assert "link" in state.facets and "counters" not in state.facets and state.counters == {}
    for cli in (SHOW_PHY.cli, SHOW_PFC.cli, SHOW_PFC_WATCHDOG.cli):
        assert state.unparsed[cli] == "output missing"


def test_pfc_totals_without_detail_are_not_read_as_per_priority_counters() -> None:
    """ANTA's `show priority-flow-control counters` (no `detail`): totals under `interfaceCounters`."""
    files = {"show_interfaces": read("show/eos_show_interfaces_vEOS.raw")} | QUIET
    files[SHOW_PFC.file] = read("show/eos_show_priority-flow-control_counters_anta_mock.json")
    state = EOS.parse_outputs(files, SWITCH)
    assert state.unparsed[SHOW_PFC.cli] == "no 'interfaces' object"
    assert "counters" not in state.facets and state.counters == {}
