"""Vendor reference designs in the five-vendor lab (docs/lossless.md, "Vendor reference designs"): one
switch per platform replaced by a config written from its vendor's published RoCE / AI-fabric design,
with the clutter production configs carry (management VRF and its route, loopback, BGP, shut spare
ports, a banner, AAA/NTP/SNMP). A clean design gets no finding from `check --configs` or `netcfg
lossless --configs`; one realistic single-line break gets the one finding it should, at its device,
interface and config line."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from netcfg.cli import main
from tests.conftest import ROOT

LAB = ROOT / "inventories" / "lab-multi"
REFERENCE = ROOT / "tests" / "fixtures" / "reference"
# The lab's rendered file each design replaces: the file names, port names and addresses are the
# lab plan's (cabling.csv), so each design is checked against its real neighbours.
# Every switch of the lab: the leaves of SU 2 are SU 1's designs on their own hosts, uplinks and
# addresses; spine2 is the EOS design on a spine.
DESIGNS = {
    "leaf-su1-r1.cfg": "eos_leaf-su1-r1.cfg",  # Arista AI/RoCE design guide QoS
    "leaf-su1-r2.nvue": "cumulus_leaf-su1-r2.nvue",  # NVIDIA Spectrum-X, `nv set qos roce`
    "leaf-su1-r3.json": "sonic_leaf-su1-r3.json",  # sonic-buildimage qos/buffer templates (AZURE)
    "leaf-su1-r4.cfg": "nxos_leaf-su1-r4.cfg",  # Cisco Data Center Networking Blueprint for AI/ML
    "leaf-su2-r1.cfg": "eos_leaf-su2-r1.cfg",
    "leaf-su2-r2.nvue": "cumulus_leaf-su2-r2.nvue",
    "leaf-su2-r3.json": "sonic_leaf-su2-r3.json",
    "leaf-su2-r4.cfg": "nxos_leaf-su2-r4.cfg",
    "spine1.set": "junos_spine1.set",  # Juniper AI/ML JVD, QFX5240
    "spine2.cfg": "eos_spine2.cfg",
}
COMMANDS = ("check", "lossless")
JUNOS_SCHEDULER_MAP = "set class-of-service interfaces et-0/0/* scheduler-map SM-AI"
JUNOS_NO_L4_SOURCE = "set forwarding-options enhanced-hash-key family inet no-l4-source-port"
JUNOS_IEEE_PFC = (
    "set class-of-service congestion-notification-profile CNP-AI input ieee-802.1 code-point 011 pfc"
)


@pytest.fixture(scope="module")
def designs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("designs")
    assert main(["render", str(LAB), "-o", str(out)]) == 0
    for target, fixture in DESIGNS.items():
        rendered = (out / target).read_text(encoding="utf-8")
        design = (REFERENCE / fixture).read_text(encoding="utf-8")
        assert rendered != design
        (out / target).write_text(design, encoding="utf-8")
    return out


def _findings(command: str, configs: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[tuple]]:
    capsys.readouterr()
    code = main([command, str(LAB), "--configs", str(configs), "--format", "json"])
    found = json.loads(capsys.readouterr().out)["findings"]
    return code, sorted(
        (f["rule"], f["device"], f["interface"], Path(f["file"]).name if f["file"] else None, f["line"])
        for f in found
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_vendor_reference_design_in_the_lab_gets_no_finding(designs, command, capsys):
    assert _findings(command, designs, capsys) == (0, [])


@dataclass(frozen=True)
class Break:
    """One line of a design changed (`old` -> `new`, the first `old` at or after `anchor`); the
    findings expected as (rule, interface, text of the line the finding points at) in each command;
    `echo`: the further rules `check` names the device by for the same change (rail.qos_consistency
    compares the two leaves of a rail, so a leaf that differs from its rail peer is named again)."""

    file: str
    anchor: str
    old: str
    new: str
    lossless: tuple[tuple[str, str | None, str], ...]
    check: tuple[tuple[str, str | None, str], ...]
    echo: tuple[str, ...] = ()


BREAKS = {
    "eos: the PFC watchdog left off one host port": Break(
        "leaf-su1-r1.cfg",
        "interface Ethernet2\n",
        "   priority-flow-control pause watchdog\n",
        "",
        lossless=(("pfc.watchdog", "Ethernet2", "interface Ethernet2"),),
        check=(("pfc.watchdog", "Ethernet2", "interface Ethernet2"),),
        echo=("rail.qos_consistency",),
    ),
    "cumulus: one host port left out of the PFC watchdog line": Break(
        "leaf-su1-r2.nvue",
        "",
        "nv set interface swp1-4,swp31-32 qos pfc-watchdog",
        "nv set interface swp1-2,swp4,swp31-32 qos pfc-watchdog",
        # A port without the setting is named where the port is declared.
        lossless=(("pfc.watchdog", "swp3", "nv set interface swp1-4,swp31-32 type swp"),),
        check=(("pfc.watchdog", "swp3", "nv set interface swp1-4,swp31-32 type swp"),),
        echo=("rail.qos_consistency",),
    ),
    "sonic: the ECMP hash without the L4 source port": Break(
        "leaf-su1-r3.json",
        '"ecmp_hash"',
        '                "L4_SRC_PORT",\n',
        "",
        lossless=(("lb.hash_entropy", None, '"ecmp_hash": ['),),
        check=(("lb.hash_entropy", None, '"ecmp_hash": ['),),
    ),
    "nxos: the PFC watchdog off on one host port": Break(
        "leaf-su1-r4.cfg",
        "interface Ethernet1/2\n",
        "priority-flow-control watch-dog-interval on",
        "priority-flow-control watch-dog-interval off",
        lossless=(("pfc.watchdog", "Ethernet1/2", "priority-flow-control watch-dog-interval off"),),
        check=(("pfc.watchdog", "Ethernet1/2", "priority-flow-control watch-dog-interval off"),),
        echo=("rail.qos_consistency",),
    ),
    "junos: ECN off on the lossless queue's scheduler": Break(
        "spine1.set",
        "",
        "set class-of-service schedulers S-NO-LOSS explicit-congestion-notification\n",
        "",
        # ECN is no lossless-domain rule: only `check` judges it, at the ports' scheduler map.
        lossless=(),
        check=(("ecn.enabled", "et-0/0/1-8", JUNOS_SCHEDULER_MAP),),
    ),
    # The JVD's fabric ports are untagged routed units (`unit 0 family inet`, no `vlan-tagging`):
    # 802.1p PFC reads a VLAN header they never carry, so it pauses the routed RoCE on no priority.
    "junos: 802.1p PFC in place of DSCP-based PFC on untagged fabric ports": Break(
        "spine1.set",
        "",
        "congestion-notification-profile CNP-AI input dscp code-point 011010 pfc",
        "congestion-notification-profile CNP-AI input ieee-802.1 code-point 011 pfc",
        lossless=(
            ("pfc.no_drop_priorities", "et-0/0/1-8", JUNOS_IEEE_PFC),
            ("lossless.path", "et-0/0/1-8", JUNOS_IEEE_PFC),
        ),
        check=(
            ("pfc.no_drop_priorities", "et-0/0/1-8", JUNOS_IEEE_PFC),
            ("lossless.path", "et-0/0/1-8", JUNOS_IEEE_PFC),
            ("link.pfc_mismatch", "et-0/0/1-8", JUNOS_IEEE_PFC),
        ),
    ),
    "junos: the ECMP hash without the L4 source port": Break(
        "spine1.set",
        "",
        "set forwarding-options enhanced-hash-key ecmp-dlb per-packet",
        f"{JUNOS_NO_L4_SOURCE}\nset forwarding-options enhanced-hash-key ecmp-dlb per-packet",
        lossless=(("lb.hash_entropy", None, JUNOS_NO_L4_SOURCE),),
        check=(("lb.hash_entropy", None, JUNOS_NO_L4_SOURCE),),
    ),
}


def _broken(designs: Path, tmp_path: Path, case: Break) -> tuple[Path, list[str]]:
    out = tmp_path / "configs"
    shutil.copytree(designs, out)
    path = out / case.file
    text = path.read_text(encoding="utf-8")
    start = text.index(case.old, text.index(case.anchor))
    broken = text[:start] + case.new + text[start + len(case.old) :]
    path.write_text(broken, encoding="utf-8")
    return out, broken.splitlines()


def _expected(case: Break, lines: list[str], wanted: tuple[tuple[str, str | None, str], ...]) -> list[tuple]:
    device = Path(case.file).stem
    number = {text.strip(): n for n, text in reversed(list(enumerate(lines, 1)))}
    return sorted((rule, device, interface, case.file, number[at]) for rule, interface, at in wanted)


@pytest.mark.parametrize("case", BREAKS.values(), ids=BREAKS.keys())
def test_one_line_broken_in_a_reference_design_is_named_at_its_device_interface_and_line(
    designs, tmp_path, case, capsys
):
    configs, lines = _broken(designs, tmp_path, case)
    code, found = _findings("lossless", configs, capsys)
    assert (code, found) == (1 if case.lossless else 0, _expected(case, lines, case.lossless))
    code, found = _findings("check", configs, capsys)
    named = [f for f in found if f[0] not in case.echo]
    echoes = sorted({(f[0], f[1]) for f in found if f[0] in case.echo})
    assert (code, named) == (1, _expected(case, lines, case.check))
    assert echoes == [(rule, Path(case.file).stem) for rule in case.echo]


# Each design's published default where it differs from the lab's policy (docs/lossless.md), put back
# into the adapted design: netcfg names the device by the rules that judge it, and no other device.
STOCK_DEFAULTS = {
    # `nv set qos roce` alone trusts both, which classifies IP packets by DSCP (the clean design
    # keeps it); trusting 802.1p alone does not.
    "cumulus: 802.1p trust in place of RoCE mode's pcp,dscp": (
        "leaf-su1-r2.nvue",
        (
            (
                "nv set qos roce mode lossless\n",
                "nv set qos roce mode lossless\nnv set qos mapping default-global trust l2\n",
            ),
        ),
        {"qos.trust", "link.trust_mismatch"},
    ),
    "cumulus: one RoCE cable length for every port": (
        "leaf-su1-r2.nvue",
        (
            ("nv set interface swp31-32 qos pfc profile uplink-30m\n", ""),
            ("roce cable-length 3", "roce cable-length 30"),
        ),
        {"pfc.cable_length"},
    ),
    "sonic: the AZURE template's two lossless priorities": (
        "leaf-su1-r3.json",
        (
            ('"pfc_enable": "3"', '"pfc_enable": "3,4"'),
            ('"pfcwd_sw_enable": "3"', '"pfcwd_sw_enable": "3,4"'),
        ),
        {"pfc.no_drop_priorities", "link.pfc_mismatch"},
    ),
    "sonic: the AZURE template's DSCP 26 in lossy TC 1": (
        "leaf-su1-r3.json",
        (('"26": "3"', '"26": "1"'),),
        {"sonic.azure_dscp_map", "qos.dscp_map", "lossless.path"},
    ),
    "sonic: the AZURE_LOSSLESS template thresholds": (
        "leaf-su1-r3.json",
        (
            ('_threshold": "150000"', '_threshold": "1048576"'),
            ('_threshold": "1500000"', '_threshold": "2097152"'),
        ),
        {"ecn.thresholds"},
    ),
    "nxos: the blueprint's CNPs in qos-group 7": (
        "leaf-su1-r4.cfg",
        (("    set qos-group 6\n", "    set qos-group 7\n"),),
        {"qos.dscp_map", "cnp.strict_queue"},
    ),
    "nxos: the blueprint's ECN thresholds": (
        "leaf-su1-r4.cfg",
        (
            (
                "maximum-threshold 1500 kbytes drop-probability 100",
                "maximum-threshold 3000 kbytes drop-probability 7",
            ),
        ),
        {"ecn.thresholds"},
    ),
}


@pytest.mark.parametrize("case", STOCK_DEFAULTS.values(), ids=STOCK_DEFAULTS.keys())
def test_a_vendor_default_the_lab_policy_does_not_take_is_named_on_its_switch(
    designs, tmp_path, case, capsys
):
    file, edits, rules = case
    configs = tmp_path / "configs"
    shutil.copytree(designs, configs)
    path = configs / file
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    _, found = _findings("check", configs, capsys)
    assert {f[1] for f in found} == {Path(file).stem}
    assert rules <= {f[0] for f in found}
