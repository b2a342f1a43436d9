"""Conformance: the public Junos samples in ../shared/corpus read as a person reads them, and the
bundled policy's findings on them. Run by `make conformance`; samples are read in place.

The Apstra AI JVD DCQCN configlet (junos/) puts DSCP 0-7 in NO-LOSS on queue 4, paused on PFC
priority 0; the rendered example binds it to one spine port (et-0/0/0, schedulers only) and one
server port (et-0/0/16:0, also the congestion-notification profile). The static fragment is that
configlet before its closing heredoc, so its class-of-service block is never closed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.model import Device, EcnSetting, Endpoint, Fabric, Link, Nic, Role, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.junos import facts
from netcfg.policy import load_policy
from tests.conformance.test_corpus import CORPUS, read
from tests.test_junos import write_junos_lab

JUNOS = get_platform("junos")
LEAF = Device("leaf1", Role.LEAF, "junos", su=1, rail=1)
SPINE_PORT, SERVER_PORT = "et-0/0/0", "et-0/0/16:0"


def _jvd_fabric() -> Fabric:
    """The two ports of the rendered example, cabled as its manifest says."""
    devices = {
        "leaf1": LEAF,
        "spine1": Device("spine1", Role.SPINE, "junos"),
        "gpu01": Device("gpu01", Role.HOST, "connectx", su=1, nics=[Nic(1, "eth0", "mlx5_0")]),
    }
    links = [
        Link(Endpoint("leaf1", SPINE_PORT), Endpoint("spine1", "et-0/0/0"), 400, 30),
        Link(Endpoint("gpu01", "eth0"), Endpoint("leaf1", SERVER_PORT), 400, 3),
    ]
    return Fabric("jvd", 1, devices, links, "roce-lossless")


def test_apstra_jvd_rendered_configlet_reads_as_written() -> None:
    state = JUNOS.parse_config(read("junos/apstra_ai_jvd_dcqcn_rendered_example.conf"), LEAF)
    assert state.unparsed == {}
    # classifiers dscp mydscp: code points 000000-000111 -> NO-LOSS; NO-LOSS queue-num 4 no-loss
    # pfc-priority 0: DSCP 0-7 are paused on priority 0 and leave on queue 4.
    assert state.dscp_map == dict.fromkeys(range(8), 0) and state.tc_queue == {0: 4}
    assert set(state.interfaces) == {SPINE_PORT, SERVER_PORT}
    # dp1: fill levels 20 and 60 %, drop probability 0 to 100, ECN on s1 (NO-LOSS, queue 4).
    ecn = {4: EcnSetting(20 * facts.FILL_STEP_BYTES, 60 * facts.FILL_STEP_BYTES, 100)}
    spine, server = state.interfaces[SPINE_PORT], state.interfaces[SERVER_PORT]
    # `interfaces all unit * classifiers dscp mydscp`: both ports trust DSCP.
    assert (spine.trust, spine.ecn, spine.pfc_enabled, spine.no_drop_priorities) == (
        "dscp",
        ecn,
        False,
        set(),
    )
    # cnp: DSCP-based PFC on 0-7 (class NO-LOSS, priority 0); no pfc-watchdog, no cable-length.
    assert (server.trust, server.ecn, server.pfc_enabled, server.no_drop_priorities) == (
        "dscp",
        ecn,
        True,
        {0},
    )
    assert (server.watchdog, server.cable_m, spine.cable_m) == (False, facts.DEFAULT_CABLE_M, None)
    assert spine.mtu is server.mtu is None and spine.strict_queues == server.strict_queues == set()
    assert state.watchdog == Watchdog(enabled=False)


def test_apstra_jvd_rendered_configlet_against_the_bundled_policy() -> None:
    state = JUNOS.parse_config(read("junos/apstra_ai_jvd_dcqcn_rendered_example.conf"), LEAF)
    found = run_checks(_jvd_fabric(), load_policy("roce-lossless"), {"leaf1": state})
    both = f"{SPINE_PORT}, {SERVER_PORT}"
    assert {(f.rule, f.interface, f.expected, f.actual) for f in found} == {
        # Neither DSCP 26 nor 48 is classified: RoCE and CNP land nowhere the policy expects, so the
        # queues they ride are unknown and their ECN and strict priority are not judged on queues
        # they do not take (qos.dscp_map names the cause).
        ("qos.dscp_map", None, "3", "unknown"),
        ("qos.dscp_map", None, "6", "unknown"),
        ("pfc.enabled", SPINE_PORT, "on", "off"),
        ("pfc.no_drop_priorities", SPINE_PORT, "{3}", "none"),
        ("pfc.no_drop_priorities", SERVER_PORT, "{3}", "{0}"),
        ("pfc.watchdog", both, "on", "off"),
        ("pfc.watchdog", None, "action drop, detect 200 ms, restore 200 ms, poll 100 ms", "not configured"),
        ("mtu.switch", both, "9214", "unknown"),
        ("pfc.cable_length", SERVER_PORT, "3 m (the planned cable)", "100 m (the platform default)"),
        ("state.missing", None, "state for every device", "2 without state"),
    }
    cable = next(f for f in found if f.rule == "pfc.cable_length")
    assert cable.severity.value == "warning"


def test_apstra_jvd_static_fragment_is_not_a_whole_config(tmp_path, capsys) -> None:
    text = read("junos/apstra_ai_jvd_dcqcn_static_fragment.conf")
    state = JUNOS.parse_config(text, LEAF)
    assert state.unparsed == {
        "configuration": "not a whole Junos config: "
        "'class-of-service {' is never closed (a fragment, or cut short)"
    }
    assert state.locations["configuration"] == 1
    # What the fragment does say is still read: the class, and a classifier no interface binds.
    assert state.tc_queue == {0: 4} and state.dscp_map == {} and state.interfaces == {}
    # A repository holding it: refused, naming the file and the line of the open block.
    inventory = write_junos_lab(tmp_path / "inv")
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "leaf-su1-r1.set").write_text(text)
    assert main(["check", str(inventory), "--configs", str(configs)]) == 2
    err = capsys.readouterr().err
    assert f"{configs / 'leaf-su1-r1.set'}:1: cannot read configuration" in err


def _outputs(**replace: str) -> dict[str, str]:
    files = {"show_configuration_display_set": "set system host-name leaf1\n"}
    files["show_configuration_display_set_count"] = "Count: 1 lines\n"
    files["show_version"] = files["show_lldp_neighbors"] = ""
    return files | replace


def test_show_version_qfx5100() -> None:
    state = JUNOS.parse_outputs(_outputs(show_version=read("show/junos_show_version_qfx5100.raw")), LEAF)
    assert (state.model, state.os_version) == ("qfx5100-48t-6q", "21.4R3-S3.4")
    assert "show version" not in state.unparsed


def test_show_lldp_neighbors_with_a_parent_interface() -> None:
    state = JUNOS.parse_outputs(
        _outputs(show_lldp_neighbors=read("show/junos_show_lldp_neighbors.raw")), LEAF
    )
    assert [(n.local_interface, n.system_name, n.port) for n in state.lldp] == [
        ("xe-0/1/1", "core01.sjc01", "Ethernet3/29/1"),
        ("xe-0/3/3", "core01.sjc01", "Ethernet3/29/2"),
        ("xe-2/0/5", "core01.sjc01", "Ethernet3/29/3"),
        ("xe-2/1/5", "core01.sjc01", "Ethernet3/29/4"),
    ]
    assert "show lldp neighbors" not in state.unparsed


@pytest.mark.parametrize(
    ("file", "command"),
    [
        ("show_configuration_display_set", "show configuration | display set"),
        ("show_version", "show version"),
        ("show_lldp_neighbors", "show lldp neighbors"),
    ],
)
def test_show_interfaces_is_not_what_netcfg_collects(file: str, command: str) -> None:
    """netcfg reads MTU from the config; `show interfaces` given for any collected command is
    reported unreadable, never half-read."""
    state = JUNOS.parse_outputs(_outputs(**{file: read("show/junos_show_interfaces_mtu9114.raw")}), LEAF)
    assert command in state.unparsed
    assert state.interfaces == {} and state.lldp == [] and state.os_version is None


def test_show_interfaces_reads_the_link_state_it_prints() -> None:
    """`show interfaces` prints the link and speed of `show interfaces extensive` (its counters
    not): read as the extensive form, the 10G port is up at 10 Gb/s, with no counter guessed."""
    state = JUNOS.parse_outputs(
        _outputs(
            show_interfaces_extensive=read("show/junos_show_interfaces_mtu9114.raw"), show_interfaces_queue=""
        ),
        LEAF,
    )
    assert "show interfaces extensive" not in state.unparsed and "link" in state.facets
    assert {n: (p.oper_up, p.speed_gbps, p.mtu) for n, p in state.interfaces.items()} == {
        "xe-0/1/0": (True, 10, None)
    }
    assert state.counters == {} and "counters" not in state.facets


OTHERS = sorted(
    str(p.relative_to(CORPUS))
    for p in CORPUS.rglob("*")
    if p.is_file() and p.parent.name not in ("junos",) and p.name not in ("MANIFEST.tsv", "README.md")
)


@pytest.mark.parametrize("path", OTHERS)
def test_no_other_sample_is_read_as_a_junos_config(path: str) -> None:
    state = JUNOS.parse_config(read(path), LEAF)
    (why,) = state.unparsed.values()
    assert why.startswith("not a Junos config: ") and state.interfaces == {}


def test_the_corpus_holds_the_junos_samples_this_file_reads() -> None:
    names = {str(p.relative_to(CORPUS)) for p in Path(CORPUS).rglob("*junos*") if p.is_file()}
    names |= {str(p.relative_to(CORPUS)) for p in (CORPUS / "junos").iterdir()}
    assert names == {
        "junos/apstra_ai_jvd_dcqcn_rendered_example.conf",
        "junos/apstra_ai_jvd_dcqcn_static_fragment.conf",
        "show/junos_show_interfaces_mtu9114.raw",
        "show/junos_show_lldp_neighbors.raw",
        "show/junos_show_version_qfx5100.raw",
    }
