"""Conformance: every Cumulus sample in ../shared/corpus, read in place by the Cumulus platform, gives the
values a person reads in it; a sample that is not what a collected command prints is reported as such.

Run by `make conformance` when the corpus exists (it is not part of this repository).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from netcfg.model import Device, PortCounters, Role
from netcfg.platforms import get_platform
from netcfg.platforms.cumulus.operational import parse_version
from netcfg.platforms.cumulus.show import parse_show, size_bytes

CORPUS = Path(os.environ.get("NETCFG_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cumulus"
NV = get_platform("cumulus")
SWITCH = Device("leaf-su1-r1", Role.LEAF, "cumulus")
ROCE_COUNTERS = next(c for c in NV.commands(SWITCH) if c.file == "nv_show_interface_qos_roce_counters")


def read(path: str) -> str:
    return (CORPUS / path).read_text(encoding="utf-8", errors="replace")


def test_every_cumulus_sample_is_covered_here() -> None:
    samples = {p.name for p in (CORPUS / "cumulus").iterdir()} | {
        p.name for p in (CORPUS / "show").iterdir() if p.name.startswith("cumulus_")
    }
    assert samples == {
        "traffic.conf_roce_lossless_pfc_ecn.conf",
        "cumulus_lldpcli_show_neighbors.txt",
        "cumulus_lsb_release_4.2.0.txt",
        "cumulus_net_show_system_3.4.0.txt",
        "cumulus_net_show_version_3.3.0_buildstamp.txt",
        "cumulus_net_show_version_3.4.0.txt",
        "cumulus_nv_show_interface_qos_roce_counters.txt",
        "cumulus_nv_show_interface_qos_roce_status.txt",
    }


# --- versions: NVUE's `nv show system` and what Cumulus 3.x/4.x printed before it -----------------------


@pytest.mark.parametrize(
    ("path", "version"),
    [
        ("show/cumulus_lsb_release_4.2.0.txt", "4.2.0"),
        ("show/cumulus_net_show_system_3.4.0.txt", "3.4.0"),
        # `3.3.0~1493169975.9482755`: the release, without its build stamp.
        ("show/cumulus_net_show_version_3.3.0_buildstamp.txt", "3.3.0"),
        ("show/cumulus_net_show_version_3.4.0.txt", "3.4.0"),
    ],
)
def test_release_lines_of_every_generation(path: str, version: str) -> None:
    assert parse_version(read(path)) == version
    state = NV.parse_outputs({"nv_show_system": read(path)}, SWITCH)
    assert state.os_version == version and "nv show system" not in state.unparsed


# --- nv show interface <if> qos roce status / counters ---------------------------------------------


def test_per_port_roce_status_reads_as_printed() -> None:
    """NVIDIA's `nv show interface swp16 qos roce status`: ECN absolute 153.00 KB to 1.43 MB on classes 0
    and 3, PFC on priority 3 both ways, trust PCP and DSCP, DSCP 26 -> priority 3 (RoCE) and 48 -> 6
    (CNP), class 6 strict, class 3 DWRR 50 %."""
    show = parse_show(read("show/cumulus_nv_show_interface_qos_roce_status.txt"))
    op = {key: value for key, (value, _) in show.rows.items()}
    assert op["mode"] == "lossless"
    assert op["congestion-control.congestion-mode"] == "ecn, absolute"
    assert op["congestion-control.enabled-tc"] == "0,3"
    assert size_bytes(op["congestion-control.min-threshold"])[0] == 156_672  # 153.00 KiB
    assert size_bytes(op["congestion-control.max-threshold"])[0] == 1_499_464  # 1.43 MiB
    assert op["congestion-control.probability"] == "100"
    assert (op["pfc.pfc-priority"], op["pfc.rx-enabled"], op["pfc.tx-enabled"]) == ("3", "yes", "yes")
    assert op["trust.trust-mode"] == "pcp,dscp"
    assert op["lldp-app-tlv.protocol-id"] == "4791" and op["lldp-app-tlv.selector"] == "UDP"
    dscp = {
        row[""]: (row["dscp"], row["switch-prio"])
        for row in show.tables["RoCE PCP/DSCP->SP mapping configurations"]
    }
    assert dscp == {"cnp": ("48", "6"), "roce": ("26", "3")}
    ets = {
        row[""]: (row["traffic-class"], row["scheduler-weight"])
        for row in show.tables["RoCE SP->TC mapping and ETS configurations"]
    }
    assert ets == {"cnp": ("6", "strict priority"), "roce": ("3", "dwrr-50%")}
    pools = show.tables["RoCE Pool Status"]
    assert [p["name"] for p in pools] == [
        "lossy-default-ingress",
        "roce-reserved-ingress",
        "lossy-default-egress",
        "roce-reserved-egress",
    ]


def test_per_port_roce_status_agrees_with_a_default_roce_config() -> None:
    """Read where `nv show qos roce` goes, against `nv set qos roce mode lossless` alone: the hardware runs
    NVIDIA's defaults (153.00 KB is 150,000 B as the ASIC programs it, +4.4 %); moving PFC to priority 2
    in the configuration makes the same output a setting the hardware did not take."""
    status = read("show/cumulus_nv_show_interface_qos_roce_status.txt")
    healthy = NV.parse_outputs(
        {"nv_config_show_commands": "nv set qos roce mode lossless\n", "nv_show_qos_roce": status}, SWITCH
    )
    assert "nv show qos roce" not in healthy.unparsed and healthy.not_operational == {}
    moved = NV.parse_outputs(
        {
            "nv_config_show_commands": (
                "nv set qos roce mode lossless\nnv set qos pfc default-global switch-priority 2\n"
            ),
            "nv_show_qos_roce": status,
        },
        SWITCH,
    )
    assert moved.not_operational["qos roce pfc pfc-priority"] == ("2", "3")


def test_roce_counters_are_not_a_roce_status() -> None:
    show = parse_show(read("show/cumulus_nv_show_interface_qos_roce_counters.txt"))
    assert show.rows["tx-stats.tx-roce-stats.unicast-no-buffer-discard"][0] == "663060754115"
    assert size_bytes(show.rows["tx-stats.tx-roce-stats.roce-bytes"][0])[0] == round(92824.38 * 1024**3)
    state = NV.parse_outputs(
        {"nv_show_qos_roce": read("show/cumulus_nv_show_interface_qos_roce_counters.txt")}, SWITCH
    )
    assert state.unparsed["nv show qos roce"].startswith("no 'mode' row") and "qos" not in state.facets


def test_roce_counters_give_the_ports_lossless_discards_not_the_lossy_ones() -> None:
    """NVIDIA's `nv show interface swp16 qos roce counters`, as the per-port pipeline prints it: the RoCE
    ingress no-buffer discards are 0 (the non-RoCE traffic's 55 are lossy drops, not lossless ones), and
    nothing else of the sample is taken for a counter netcfg reads elsewhere."""
    text = "interface swp16\n" + read("show/cumulus_nv_show_interface_qos_roce_counters.txt")
    state = NV.parse_outputs({ROCE_COUNTERS.file: text}, SWITCH)
    assert ROCE_COUNTERS.cli not in state.unparsed
    assert state.counters == {"swp16": PortCounters(no_buffer_discards=0)}


def test_roce_status_is_not_roce_counters() -> None:
    text = "interface swp16\n" + read("show/cumulus_nv_show_interface_qos_roce_status.txt")
    state = NV.parse_outputs({ROCE_COUNTERS.file: text}, SWITCH)
    assert state.unparsed[ROCE_COUNTERS.cli].startswith("swp16: no 'rx-stats' or 'tx-stats'")
    assert "counters" not in state.facets


# --- what NVUE does not print ------------------------------------------------------------------------


def test_lldpcli_show_neighbors_of_nvidias_lldp_page_gives_the_neighbours() -> None:
    """`lldpcli show neighbors` as NVIDIA's Cumulus LLDP page prints it (there run with sudo): the
    neighbours of every port, breakouts included, and of eth0, whose neighbour is out of band."""
    state = NV.parse_outputs(
        {"lldpcli_show_neighbors": read("show/cumulus_lldpcli_show_neighbors.txt")}, SWITCH
    )
    assert "lldpcli show neighbors" not in state.unparsed
    heard = [(n.local_interface, n.system_name, n.port) for n in state.lldp]
    assert heard[:4] == [
        ("eth0", "PIONEERMS22", "swp47"),
        ("swp1", "MSP-1", "swp1"),
        ("swp2", "MSP-1", "swp2"),
        ("swp3", "MSP-2", "swp1"),
    ]
    assert any(local.startswith("swp49s") for local, _, _ in heard)


def test_lldpcli_text_is_not_the_interface_json() -> None:
    """The same text where `nv show interface -o json` belongs: one unreadable output, and no link
    state from it."""
    state = NV.parse_outputs(
        {"nv_show_interface_json": read("show/cumulus_lldpcli_show_neighbors.txt")}, SWITCH
    )
    assert state.unparsed["nv show interface -o json"].startswith("not JSON") and "link" not in state.facets


def test_traffic_conf_is_not_an_nvue_configuration() -> None:
    """Cumulus 3.x/4.x `/etc/cumulus/datapath/traffic.conf` (DSCP 26 -> cos 3, PFC and ECN port groups):
    Cumulus 5 does not read it, and netcfg names it rather than reading QoS out of it."""
    state = NV.parse_config(read("cumulus/traffic.conf_roce_lossless_pfc_ecn.conf"), SWITCH)
    assert state.unparsed["nvue config"] == (
        "not an NVUE configuration: a Cumulus Linux 3.x/4.x traffic.conf "
        "(Cumulus 5 configures QoS through NVUE)"
    )
    assert state.locations["nvue config"] == 1 and state.interfaces == {}


def test_the_fixtures_of_this_repository_are_not_corpus_copies() -> None:
    """Fixtures are written in the corpus's formats, never copied from it."""
    corpus = {p.read_text(errors="replace") for p in CORPUS.rglob("*") if p.is_file() and "cumulus" in str(p)}
    assert not corpus & {p.read_text() for p in FIXTURES.glob("*") if p.is_file()}
