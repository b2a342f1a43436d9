"""Cisco NX-OS: the QoS chain rendered and read back, production-shaped configs and show outputs
(tests/fixtures/nxos/), masking, and the CLI on an all-NX-OS copy of the lab (check, --configs with
file:line, diff)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, apply_faults, live_states
from netcfg.model import (
    Device,
    DeviceState,
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
from netcfg.platforms.base import is_read_only
from netcfg.platforms.nxos.family import family
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy, load_policy
from netcfg.sources import intent_states
from tests.conftest import ROOT

NXOS = get_platform("nxos")
FIXTURES = Path(__file__).parent / "fixtures" / "nxos"
INVENTORY = FIXTURES / "inventory"
LEAF = Device("leaf-su1-r1", Role.LEAF, "nxos", su=1, rail=1)
NXOS_FIRMWARE = "  nxos:\n    minimum: 10.2(5)\n    allowed: [10.3(6), 10.4(3)]\n"


def write_nxos_lab(folder: Path, mode: str = "lossless") -> Path:
    """The lab with every switch on NX-OS (tests/fixtures/nxos/inventory), with its policy beside it
    given an NX-OS firmware rule, written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    fabric = (INVENTORY / "fabric.yaml").read_text(encoding="utf-8")
    assert "policy: roce-lossless\n" in fabric
    (folder / "fabric.yaml").write_text(fabric.replace("policy: roce-lossless\n", "policy: policy.yaml\n"))
    policy = (ROOT / "policies" / f"roce-{mode}.yaml").read_text(encoding="utf-8")
    assert policy.rstrip().endswith("allowed: [28.39.2048, 28.41.1000]")
    (folder / "policy.yaml").write_text(policy.rstrip() + "\n" + NXOS_FIRMWARE, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def nxos_lab(tmp_path_factory) -> Path:
    return write_nxos_lab(tmp_path_factory.mktemp("nxos-lab"))


@pytest.fixture(scope="module")
def fabric(nxos_lab: Path) -> Fabric:
    return load_fabric(nxos_lab)


@pytest.fixture(scope="module")
def policy(fabric: Fabric, nxos_lab: Path) -> Policy:
    return load_policy(fabric.policy_ref, nxos_lab)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def block(text: str, head: str) -> list[str]:
    """The lines of the block that starts with `head` (its header line included)."""
    lines = text.splitlines()
    start = lines.index(head)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


# --- rendering the chain --------------------------------------------------------------------------


def test_intent_renders_the_three_mqc_layers_system_qos_watchdog_and_ports(fabric, policy):
    leaf = fabric.devices["leaf-su1-r1"]
    intent = live_states(fabric, policy)["leaf-su1-r1"]
    text = NXOS.render_config(intent, leaf)
    # DSCP 26 -> qos-group 3, DSCP 48 -> qos-group 6 (the policy's CNP priority).
    assert block(text, "class-map type qos match-any ROCE_QOS_QG3") == [
        "class-map type qos match-any ROCE_QOS_QG3",
        "  match dscp 26",
    ]
    assert block(text, "policy-map type qos ROCE_QOS") == [
        "policy-map type qos ROCE_QOS",
        "  class ROCE_QOS_QG3",
        "    set qos-group 3",
        "  class ROCE_QOS_QG6",
        "    set qos-group 6",
    ]
    # The class of qos-group 3 is paused by PFC priority 3; every class carries MTU 9216.
    assert block(text, "policy-map type network-qos ROCE_NETWORK_QOS") == [
        "policy-map type network-qos ROCE_NETWORK_QOS",
        "  class type network-qos c-8q-nq3",
        "    mtu 9216",
        "    pause pfc-cos 3",
        "  class type network-qos c-8q-nq-default",
        "    mtu 9216",
    ]
    queuing = block(text, "policy-map type queuing ROCE_QUEUING")
    q3 = queuing.index("  class type queuing c-out-8q-q3")
    assert queuing[q3 + 1 : q3 + 3] == [
        "    bandwidth remaining percent 50",
        "    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
        "drop-probability 100 weight 0 ecn",
    ]
    q6 = queuing.index("  class type queuing c-out-8q-q6")
    assert queuing[q6 + 1] == "    priority level 1"
    assert block(text, "system qos") == [
        "system qos",
        "  service-policy type network-qos ROCE_NETWORK_QOS",
        "  service-policy type queuing output ROCE_QUEUING",
    ]
    # Only the watchdog line Cisco documents: the timers' spellings are confirmed by no vendor source.
    assert [line for line in text.splitlines() if line.startswith("priority-flow-control ")] == [
        "priority-flow-control watch-dog-interval on",
    ]
    assert block(text, "interface Ethernet1/31") == [
        "interface Ethernet1/31",
        "  description spine1:Ethernet1/1",
        "  mtu 9214",
        "  priority-flow-control mode on",
        "  priority-flow-control watch-dog-interval on",
        "  service-policy type qos input ROCE_QOS",
        "  no switchport",
        "  no shutdown",
    ]


def test_intent_of_the_nxos_lab_checks_clean_lossless_and_lossy(tmp_path, capsys):
    for mode in ("lossless", "lossy"):
        lab = write_nxos_lab(tmp_path / mode, mode)
        assert main(["check", str(lab), "--format", "json"]) == 0, mode
        assert json.loads(capsys.readouterr().out)["findings"] == []


def test_lossy_intent_turns_pfc_off_and_keeps_ecn(tmp_path):
    lab = write_nxos_lab(tmp_path / "lossy", "lossy")
    fabric = load_fabric(lab)
    policy = load_policy(fabric.policy_ref, lab)
    leaf = fabric.devices["leaf-su2-r3"]
    text = NXOS.render_config(intent_states(fabric, policy)["leaf-su2-r3"], leaf)
    assert "pause pfc-cos" not in text and "watch-dog" not in text
    assert block(text, "interface Ethernet1/1")[3] == "  priority-flow-control mode off"
    assert "drop-probability 100 weight 0 ecn" in text


def test_the_policy_timers_are_not_rendered_and_never_negated_on_the_switch(tmp_path, capsys):
    """NX-OS keeps the watchdog timers an operator set: netcfg renders none (no vendor source spells
    their lines), so `diff` neither adds nor removes one, and a policy timing NX-OS could not count in
    whole polls is no longer refused."""
    lab = write_nxos_lab(tmp_path / "lab")
    policy = lab / "policy.yaml"
    policy.write_text(policy.read_text().replace("  polling_ms: 100", "  polling_ms: 150"))
    assert main(["render", str(lab), "-o", str(tmp_path / "out")]) == 0
    rendered = (tmp_path / "out" / "leaf-su1-r1.cfg").read_text()
    assert [x for x in rendered.splitlines() if "watch-dog" in x and not x.startswith(" ")] == [
        "priority-flow-control watch-dog-interval on"
    ]
    assert rendered.count("\npriority-flow-control watch-dog-interval on\n") == 1
    running = rendered.replace(
        "\npriority-flow-control watch-dog-interval on\n",
        "\npriority-flow-control watch-dog-interval on\npriority-flow-control watch-dog interval 200\n"
        "priority-flow-control auto-restore multiplier 10\n",
    )
    fix = NXOS.remediate("leaf-su1-r1", rendered, running)
    # The operator's timers are all that differs: nothing to apply.
    assert fix is not None and fix.commands.strip() == ""


# --- reading configs --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def production() -> DeviceState:
    return NXOS.parse_config(fixture("show_running-config.txt"), LEAF)


def test_production_config_chain(production: DeviceState):
    """A Nexus 9364D-GX2A leaf as operators run it (users, TACACS, a banner holding config-like
    lines, copp, ACLs, a port-channel, mgmt0, loopbacks, BGP): the chain as a person reads it."""
    assert production.unparsed == {}
    assert production.os_version == "10.3(6)"
    # `match dscp 24-26` -> qos-group 3, CNP 48 -> 7, and class-default sends every other DSCP to 0.
    assert {d: production.dscp_map[d] for d in (24, 25, 26, 48, 46, 0)} == {
        24: 3,
        25: 3,
        26: 3,
        48: 7,
        46: 0,
        0: 0,
    }
    assert len(production.dscp_map) == 64
    assert production.tc_pfc == {} and production.tc_queue == {}
    # interval 200 ms, shutdown after 1 poll, restore after 10.
    assert production.watchdog == Watchdog(True, "drop", 200, 2000, 200)
    chain = production.chain(26, "Ethernet1/1")
    assert (chain.traffic_class, chain.queue, chain.pfc_priority) == (3, 3, 3)


def test_production_config_ports(production: DeviceState):
    ports = production.interfaces
    e1 = ports["Ethernet1/1"]
    assert (e1.description, e1.mtu, e1.trust, e1.dscp_map) == ("gpu01:eth0", 9216, "dscp", None)
    assert (e1.pfc_enabled, e1.no_drop_priorities, e1.watchdog) == (True, frozenset({3}), True)
    assert e1.ecn == {3: EcnSetting(150_000, 3_000_000, 7)} and e1.strict_queues == frozenset({7})
    # No `mtu` line: NX-OS's default 1500; the watchdog from the global line.
    assert (ports["Ethernet1/3"].mtu, ports["Ethernet1/3"].watchdog) == (1500, True)
    # No `priority-flow-control mode` line: `auto`, which only DCBX resolves: unknown from the config.
    assert (ports["Ethernet1/4"].pfc_enabled, ports["Ethernet1/4"].no_drop_priorities) == (None, None)
    # A port binding another classification policy has its own map; a port binding none trusts nothing.
    assert (ports["Ethernet1/5"].trust, ports["Ethernet1/5"].dscp_map) == ("dscp", {16: 2})
    assert (ports["Ethernet1/6"].trust, ports["Ethernet1/6"].dscp_map) == ("none", {})
    # Uplinks bind their own queuing policy (`3 mbytes`), one with the watchdog off.
    assert ports["Ethernet1/31"].ecn == {3: EcnSetting(300_000, 3_000_000, 7)}
    assert ports["Ethernet1/32"].watchdog is False
    # The banner's `interface Ethernet1/1` line is banner text, not a port.
    assert set(ports) == {
        "port-channel10",
        *(f"Ethernet1/{n}" for n in (1, 2, 3, 4, 5, 6, 7, 31, 32)),
        "mgmt0",
        "loopback0",
    }
    assert (ports["mgmt0"].mtu, ports["mgmt0"].trust) == (None, None)


def test_production_config_locations(production: DeviceState):
    text = fixture("show_running-config.txt").splitlines()

    def line(n: int) -> str:
        return text[n - 1].strip()

    loc = production.locations
    assert line(loc["Ethernet1/1.mtu"]) == "mtu 9216"
    assert line(loc["Ethernet1/1.pfc_enabled"]) == "priority-flow-control mode on"
    # PFC priorities come from the network-qos policy, ECN and strict from the queuing policy.
    assert line(loc["Ethernet1/1.no_drop_priorities"]) == "pause pfc-cos 3"
    assert line(loc["Ethernet1/1.ecn"]).startswith("random-detect minimum-threshold 150 kbytes")
    assert line(loc["Ethernet1/1.strict_queues"]) == "priority level 1"
    assert line(loc["Ethernet1/31.ecn"]) == "service-policy type queuing output QOS_UPLINK"
    assert line(loc["Ethernet1/3.watchdog"]) == "priority-flow-control watch-dog-interval on"
    assert line(loc["Ethernet1/3"]) == "interface Ethernet1/3"
    assert line(loc["dscp_map"]) == "policy-map type qos QOS_CLASSIFICATION"


PASTE_FORM = """\
priority-flow-control watch-dog-interval on
policy-map type network-qos qos_network
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 4
    exit
  exit
class-map type qos match-any ROCEv2
  match dscp af31
policy-map type qos QOS_CLASSIFICATION
  class ROCEv2
    set qos-group 3
    exit
  exit
system qos
  service-policy type network-qos qos_network
interface ethernet 1/1-3, Ethernet1/9
priority-flow-control mode on
mtu 9216
service-policy type qos input QOS_CLASSIFICATION
exit
priority-flow-control watch-dog interval 300
interface Ethernet1/4
  description not in the range
end
"""


def test_config_mode_paste_form(tmp_path):
    """As operators keep configs in scripts: `exit`/`end` lines, an interface range, and interface
    sub-commands written unindented straight after `interface ...`."""
    state = NXOS.parse_config(PASTE_FORM, LEAF)
    assert state.unparsed == {}
    assert set(state.interfaces) == {
        "Ethernet1/1",
        "Ethernet1/2",
        "Ethernet1/3",
        "Ethernet1/9",
        "Ethernet1/4",
    }
    for name in ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/9"):
        port = state.interfaces[name]
        assert (port.mtu, port.pfc_enabled, port.no_drop_priorities) == (9216, True, frozenset({4}))
    assert state.interfaces["Ethernet1/4"].mtu == 1500
    # qos-group 3 is paused by PFC priority 4: RoCE DSCP 26 (af31) ends up paused on 4.
    assert state.tc_pfc == {3: 4} and state.chain(26, "Ethernet1/1").pfc_priority == 4
    # `watch-dog interval 300` after `exit` is global; no multipliers: unknown timers.
    assert state.watchdog == Watchdog(True, "drop", None, None, 300)


@pytest.fixture(scope="module")
def ranges() -> DeviceState:
    return NXOS.parse_config(fixture("running_config_ranges.txt"), LEAF)


def test_interface_ranges_give_every_port_the_block_and_later_blocks_merge(ranges: DeviceState):
    """A leaf config kept with ranges (`interface Ethernet 1/1-1/16`, `Ethernet1/9-10`, comma lists,
    another line card), later per-port blocks that override one setting, a banner quoting a range,
    mgmt0 and loopbacks: every port of a range is a port of its own."""
    assert ranges.unparsed == {}
    ports = ranges.interfaces
    assert set(ports) == {
        *(f"Ethernet1/{n}" for n in (*range(1, 25), 29, 31, 32)),
        *(f"Ethernet2/{n}" for n in range(1, 5)),
        "mgmt0",
        "loopback0",
        "loopback1",
    }
    e16 = ports["Ethernet1/16"]
    assert (e16.description, e16.mtu, e16.pfc_enabled, e16.no_drop_priorities) == (
        "gpu-rail1",
        9214,
        True,
        frozenset({3}),
    )
    # `system qos` binds the classification and the egress queuing of every port.
    assert (e16.trust, e16.dscp_map, e16.strict_queues) == ("dscp", None, frozenset({6}))
    assert e16.ecn == {3: EcnSetting(150_000, 1_500_000, 100)}
    # `interface Ethernet1/5` after the range: its MTU and description win, the rest stays.
    e5 = ports["Ethernet1/5"]
    assert (e5.mtu, e5.pfc_enabled, e5.watchdog) == (1500, True, True)
    assert e5.description == "gpu05:eth0 (replaced NIC, MTU not yet raised)"
    # `interface Ethernet1/9-10` binds its own classification over the system's: it matches CoS.
    assert {n: (ports[n].trust, ports[n].dscp_map) for n in ("Ethernet1/9", "Ethernet1/10")} == {
        "Ethernet1/9": ("cos", {}),
        "Ethernet1/10": ("cos", {}),
    }
    assert ports["Ethernet1/31"].ecn == {3: EcnSetting(950_000, 3_000_000, 7)}
    assert ports["Ethernet1/31"].description == "spine1:Ethernet1/9"
    # Spare ports: no PFC mode line (`auto`, unknown from the config), NX-OS's MTU 1500.
    assert (ports["Ethernet2/4"].mtu, ports["Ethernet2/4"].pfc_enabled) == (1500, None)
    text = fixture("running_config_ranges.txt").splitlines()
    loc = ranges.locations
    assert text[loc["Ethernet1/5.mtu"] - 1] == "  mtu 1500"
    assert text[loc["Ethernet1/9.trust"] - 1] == "  service-policy type qos input QOS_STORAGE"
    assert text[loc["Ethernet1/16"] - 1] == "interface Ethernet 1/1-1/16"
    assert text[loc["Ethernet1/16.trust"] - 1] == "  service-policy type qos input QOS_IN"


def test_interface_ranges_give_the_findings_of_each_port(ranges: DeviceState, policy):
    """The ports a range configures are checked as such: the CoS-trusting storage ports, the uplink
    ECN band and the one host port left at MTU 1500 are found, the rest of the range passes. The
    watchdog's timers, which the config leaves at NX-OS's defaults, are unknown: no verdict."""
    hosts = {"Ethernet1/1": "gpu01", "Ethernet1/5": "gpu05", "Ethernet1/9": "stor01", "Ethernet1/16": "gpu16"}
    devices = {LEAF.name: LEAF, "spine1": Device("spine1", Role.SPINE, "nxos")}
    links = [Link(Endpoint(LEAF.name, "Ethernet1/31"), Endpoint("spine1", "Ethernet1/9"), 400, 10)]
    for port, host in hosts.items():
        devices[host] = Device(host, Role.HOST, "connectx", su=1, nics=[Nic(1, "eth0", "mlx5_0")])
        links.append(Link(Endpoint(host, "eth0"), Endpoint(LEAF.name, port), 400, 3))
    fabric = Fabric("ranges", 1, devices, links, "roce-lossless")
    found = {
        (f.rule, f.interface, f.actual)
        for f in run_checks(fabric, policy, {LEAF.name: ranges})
        if f.rule != "state.missing"
    }
    assert found == {
        ("qos.trust", "Ethernet1/9", "cos"),
        ("mtu.switch", "Ethernet1/5", "1500"),
        ("ecn.thresholds", "Ethernet1/31", "min 950 KB, max 3000 KB, 7%"),
    }


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("interface Ethernet 1/1-1/4", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"]),
        ("interface Ethernet1/1-3", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3"]),
        ("interface ethernet 1/7 - 8", ["Ethernet1/7", "Ethernet1/8"]),
        ("interface Ethernet1/1-2, Ethernet1/7", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/7"]),
        ("interface Eth1/1,Eth2/1", ["Ethernet1/1", "Ethernet2/1"]),
        ("interface Ethernet1/1 - Ethernet1/2", ["Ethernet1/1", "Ethernet1/2"]),
        ("interface Ethernet1/3/1-2", ["Ethernet1/3/1", "Ethernet1/3/2"]),
        ("interface port-channel10-11", ["port-channel10", "port-channel11"]),
        ("interface Ethernet1/49.10", ["Ethernet1/49.10"]),
        ("interface mgmt0", ["mgmt0"]),
    ],
)
def test_interface_line_forms(line: str, names: list[str]):
    state = NXOS.parse_config(f"feature lldp\n{line}\n  mtu 9214\n", LEAF)
    assert state.unparsed == {}
    assert list(state.interfaces) == names


@pytest.mark.parametrize("spec", ["Ethernet1/1-2/4", "Ethernet1/9-1/2", "Ethernet1/1-1/4000"])
def test_a_range_nxos_would_refuse_is_unknown_and_said_so(spec: str):
    """A range across slots, backwards or larger than a line card names no ports: its settings are
    unknown, with the line that says so, never a port named after the range."""
    state = NXOS.parse_config(f"feature lldp\ninterface Ethernet1/30\n\ninterface {spec}\n  mtu 9214\n", LEAF)
    assert list(state.interfaces) == ["Ethernet1/30"]
    assert state.unparsed == {
        "running-config line 4": (
            f"'interface {spec}' names no ports NX-OS accepts (a range within one slot, low to high)"
        )
    }


def test_system_qos_input_queuing_sizes_every_port():
    """`service-policy type queuing input` under `system qos` sizes the ingress buffers of every port
    that binds none of its own."""
    text = """\
version 10.4(3)
policy-map type queuing BUFFERS
  class type queuing c-in-q3
    pause buffer-size 101920 pause-threshold 46800 resume-threshold 34320
class-map type queuing c-in-q3
  match qos-group 3
system qos
  service-policy type queuing input BUFFERS
interface Ethernet1/1
  mtu 9214
"""
    state = NXOS.parse_config(text, LEAF)
    assert state.unparsed == {}
    assert state.interfaces["Ethernet1/1"].pg_buffers == {3: PgBuffer(101_920, 55_120, 34_320)}


@pytest.mark.parametrize(
    ("version", "name", "class_mtu"),
    [
        ("6.0(2)U6(1)", "Nexus 3000", True),
        ("6.0(2)A8(11)", "Nexus 3500", True),
        ("7.3(8)N1(1)", "Nexus 5000/6000", True),
        ("7.0(3)I7(9)", "Nexus 9000 (unified NX-OS image)", False),
        ("9.3(15)", "Nexus 9000 (unified NX-OS image)", False),
        ("10.4(3)", "Nexus 9000 (unified NX-OS image)", False),
    ],
)
def test_the_release_train_names_the_family(version: str, name: str, class_mtu: bool):
    found = family(version)
    assert found is not None and (found.name, found.class_mtu) == (name, class_mtu)


SWITCHED = """\
version {version}
hostname tor1
feature lldp
class-map type network-qos RDMA
  match qos-group 3
policy-map type network-qos QOS_NETWORK
  class type network-qos RDMA
    mtu {rdma_mtu}
    pause no-drop
  class type network-qos class-default
{default_mtu}system qos
  service-policy type network-qos QOS_NETWORK
interface Ethernet1/1
  priority-flow-control mode on
  switchport mode trunk
interface Ethernet1/2
  no switchport
  mtu 9214
"""


def switched(version: str, rdma_mtu: int = 2240, default_mtu: str = "    mtu 9216\n") -> DeviceState:
    text = SWITCHED.format(version=version, rdma_mtu=rdma_mtu, default_mtu=default_mtu)
    return NXOS.parse_config(text, LEAF)


def test_a_nexus_3000_switched_port_is_capped_by_its_network_qos_classes():
    """6.0(2)U: a switched port takes the MTU of each network-qos class (class-default's is the
    port's); a routed port keeps its own `mtu`."""
    state = switched("6.0(2)U6(10)")
    assert state.unparsed == {}
    trunk, routed = state.interfaces["Ethernet1/1"], state.interfaces["Ethernet1/2"]
    assert (trunk.mtu, trunk.class_mtu) == (9216, {3: 2240, 0: 9216})
    assert (routed.mtu, routed.class_mtu) == (9214, {})
    # class-default without `mtu`: the port's MTU is not in the text.
    bare = switched("7.3(8)N1(1)", 9216, default_mtu="").interfaces["Ethernet1/1"]
    assert (bare.mtu, bare.class_mtu) == (None, {3: 9216, 0: None})


def test_a_nexus_9000_reads_the_same_text_with_per_port_mtu():
    state = switched("10.4(3)")
    trunk = state.interfaces["Ethernet1/1"]
    assert (trunk.mtu, trunk.class_mtu) == (1500, {})


def test_a_release_train_netcfg_does_not_know_is_said_so():
    state = switched("7.3(1)D1(1)")
    assert state.unparsed == {
        "running-config version": "NX-OS 7.3(1)D1(1) is a release train netcfg does not know: its ports "
        "are read with Nexus 9000 semantics (per-port MTU), which may not be this switch's"
    }
    assert state.interfaces["Ethernet1/1"].mtu == 1500


def _class_mtu_findings(state: DeviceState, policy) -> set[tuple[str, str | None, str]]:
    host = Device("gpu01", Role.HOST, "connectx", su=1, nics=[Nic(1, "eth0", "mlx5_0")])
    fabric = Fabric(
        "n3k",
        1,
        {LEAF.name: LEAF, host.name: host},
        [Link(Endpoint(host.name, "eth0"), Endpoint(LEAF.name, "Ethernet1/1"), 100, 3)],
        "roce-lossless",
    )
    found = run_checks(fabric, policy, {LEAF.name: state})
    return {(f.rule, f.interface, f.actual) for f in found if f.rule == "nxos.class_mtu"}


def test_a_lossless_class_mtu_below_the_host_mtu_is_a_finding(policy):
    """The RDMA class at `mtu 2240` drops the host's 9000-byte frames however the port is set; at
    9216 it carries them."""
    assert _class_mtu_findings(switched("6.0(2)U6(10)"), policy) == {
        ("nxos.class_mtu", "Ethernet1/1", "2240")
    }
    assert _class_mtu_findings(switched("6.0(2)U6(10)", 9216), policy) == set()
    # A Nexus 9000 caps per port: the rule has nothing to read.
    assert _class_mtu_findings(switched("10.4(3)"), policy) == set()


@pytest.mark.parametrize(
    "line",
    [
        "priority-flow-control fixed-restore multiplier 5",
        "priority-flow-control watch-dog auto-restore-multiplier 10",
        "priority-flow-control watch-dog internal-interface-multiplier 2",
    ],
)
def test_a_watchdog_line_netcfg_does_not_read_makes_the_timers_unknown(line: str):
    """A watchdog knob or spelling netcfg does not read may change any timer: they are unknown,
    never the defaults; the watchdog itself stays on."""
    text = fixture("show_running-config.txt").replace(
        "priority-flow-control auto-restore multiplier 10\n",
        f"priority-flow-control auto-restore multiplier 10\n{line}\n",
    )
    state = NXOS.parse_config(text, LEAF)
    assert state.watchdog == Watchdog(True, "drop", None, None, 200)
    assert state.interfaces["Ethernet1/1"].watchdog is True


def test_cos_classification_on_a_routed_fabric_is_a_trust_finding(fabric, policy):
    leaf = fabric.devices["leaf-su1-r2"]
    text = NXOS.render_config(live_states(fabric, policy)["leaf-su1-r2"], leaf)
    text = text.replace("  match dscp 26\n", "  match cos 3\n")
    state = NXOS.parse_config(text, leaf)
    findings = {(f.rule, f.actual) for f in run_checks(fabric, policy, {leaf.name: state})}
    assert ("qos.trust", "cos") in findings
    # DSCP 26 is no longer classified at all on this switch.
    assert ("qos.dscp_map", "unknown") in findings


def test_defaults_the_config_leaves_out_are_reported(fabric, policy):
    """A port without `priority-flow-control mode` is in `auto`: PFC is unknown from a config, and
    reported as such rather than passed; a port without `mtu` runs NX-OS's 1500."""
    leaf = fabric.devices["leaf-su1-r3"]
    text = NXOS.render_config(live_states(fabric, policy)["leaf-su1-r3"], leaf)
    lines = block(text, "interface Ethernet1/2")
    edited = text.replace(
        "\n".join(lines), "\n".join(ln for ln in lines if "mode on" not in ln and "mtu" not in ln)
    )
    state = NXOS.parse_config(edited, leaf)
    found = {(f.rule, f.interface, f.actual) for f in run_checks(fabric, policy, {leaf.name: state})}
    assert ("pfc.enabled", "Ethernet1/2", "unknown") in found
    assert ("mtu.switch", "Ethernet1/2", "1500") in found


@pytest.mark.parametrize(
    "text",
    [
        "! device: leaf1 (DCS-7060X6-64PE, EOS-4.32.1F)\ninterface Ethernet1\n   mtu 9214\n",
        "interface Ethernet1/1\n   mtu 9214\n   priority-flow-control on\n",
        '{"PORT": {"Ethernet0": {"mtu": "9100"}}}\n',
        "# leaf notes\n\n| port | mtu |\n|---|---|\n",
        "- set: {interface: {swp1: {link: {mtu: 9216}}}}\n",
        "interfaces {\n    et-0/0/0 {\n        mtu 9216;\n    }\n}\n",
        "set class-of-service forwarding-classes class no-loss queue-num 3\n",
        "interface ethernet1/1/1\n no shutdown\n mtu 9216\n",
        "hostname leaf1\nip route 0.0.0.0/0 10.0.0.1\n",
    ],
    ids=[
        "eos-header",
        "eos-indent",
        "json",
        "markdown",
        "nvue-yaml",
        "junos",
        "junos-set",
        "os10",
        "no-evidence",
    ],
)
def test_text_that_is_not_nxos_is_unreadable_not_a_list_of_errors(text: str):
    state = NXOS.parse_config(text, LEAF)
    assert state.unparsed["running-config"].startswith("not a Cisco NX-OS config")
    assert state.interfaces == {} and state.dscp_map == {}


def test_a_policy_bound_but_not_defined_is_unreadable():
    """NX-OS refuses to bind a policy map it does not have: such a text was cut short or edited."""
    text = fixture("show_running-config.txt").replace(
        "policy-map type queuing QOS_UPLINK", "policy-map type queuing X"
    )
    state = NXOS.parse_config(text, LEAF)
    assert state.unparsed == {
        "running-config": "service-policy binds 'policy-map type queuing QOS_UPLINK', which is not defined"
    }
    assert text.splitlines()[state.locations["running-config"] - 1].strip() == (
        "service-policy type queuing output QOS_UPLINK"
    )


# --- reading live outputs ---------------------------------------------------------------------------


def outputs(**replace: str) -> dict[str, str]:
    files = {c.file: fixture(f"{c.file}.txt") for c in NXOS.commands(LEAF)}
    return files | replace


def test_live_outputs_pfc_bitmap_version_and_lldp():
    state = NXOS.parse_outputs(outputs(), LEAF)
    assert state.unparsed == {} and state.facets == {"qos", "version", "lldp", "link", "counters"}
    assert (state.os_version, state.model) == ("10.3(6)", "Nexus9000 C9364D-GX2A")
    ports = state.interfaces
    # `On (8)`: bitmap 0x08, CoS 3.
    assert (ports["Ethernet1/1"].pfc_enabled, ports["Ethernet1/1"].no_drop_priorities) == (
        True,
        frozenset({3}),
    )
    # `mode auto` in the config; the hardware says `Off`: what it does decides.
    assert (ports["Ethernet1/4"].pfc_enabled, ports["Ethernet1/4"].no_drop_priorities) == (False, frozenset())
    assert state.lldp == [
        LldpNeighbor("Ethernet1/1", "gpu01", "eth0"),
        LldpNeighbor("Ethernet1/2", "gpu02", "eth0"),
        LldpNeighbor("Ethernet1/31", "spine1.fabric.example.net", "Ethernet1/1"),
        LldpNeighbor("mgmt0", "oob-sw1", "Fa1/0/9"),
    ]


@pytest.mark.parametrize(
    ("oper", "cos"), [("On  (8)", {3}), ("On  (18)", {3, 4}), ("On  (10)", {4}), ("On  (0)", set())]
)
def test_pfc_oper_bitmap_is_hex_cos_bits(oper: str, cos: set[int]):
    table = fixture("show_interface_priority-flow-control.txt").replace(
        "Ethernet1/2        On   On  (8)  ", f"Ethernet1/2        On   {oper:<7}  "
    )
    state = NXOS.parse_outputs(outputs(**{"show_interface_priority-flow-control": table}), LEAF)
    assert state.interfaces["Ethernet1/2"].no_drop_priorities == frozenset(cos)


@pytest.mark.parametrize(
    ("file", "command", "facet"),
    [
        ("show_version", "show version", "version"),
        ("show_running-config", "show running-config", "qos"),
        ("show_interface_priority-flow-control", "show interface priority-flow-control", "qos"),
        ("show_lldp_neighbors_detail", "show lldp neighbors detail", "lldp"),
    ],
)
def test_an_unreadable_output_is_one_unknown_and_drops_its_facet(file: str, command: str, facet: str):
    state = NXOS.parse_outputs(outputs(**{file: "% Permission denied for the role\n"}), LEAF)
    assert list(state.unparsed) == [command]
    assert facet not in state.facets
    missing = {c.file: fixture(f"{c.file}.txt") for c in NXOS.commands(LEAF) if c.file != file}
    assert list(NXOS.parse_outputs(missing, LEAF).unparsed) == [command]


def test_an_eos_running_config_in_an_nxos_snapshot_is_unreadable():
    eos = (ROOT / "tests" / "fixtures" / "eos" / "running_config_production.cfg").read_text(encoding="utf-8")
    state = NXOS.parse_outputs(outputs(**{"show_running-config": eos}), LEAF)
    assert state.unparsed["show running-config"].startswith("not a Cisco NX-OS config")
    assert "qos" not in state.facets


# --- masking ----------------------------------------------------------------------------------------

SECRET_LINES = [
    ("username admin password 5 $5$KLMNOP$Xa9sdHq2nYp  role network-admin", "$5$KLMNOP$Xa9sdHq2nYp"),
    ("username ops password 0 Plain-Text-1 role network-operator", "Plain-Text-1"),
    (
        "snmp-server user admin network-admin auth md5 0x5d1e6f0a92 priv 0x9a8b7c6d5e localizedkey",
        "0x5d1e6f0a92",
    ),
    (
        "snmp-server user admin network-admin auth md5 0x5d1e6f0a92 priv 0x9a8b7c6d5e localizedkey",
        "0x9a8b7c6d5e",
    ),
    (
        "snmp-server user tel network-operator auth sha 0x0a1b2c priv aes-128 0x112233 localizedkey",
        "0x112233",
    ),
    ("snmp-server community Rt8xCommunity group network-operator", "Rt8xCommunity"),
    ("snmp-server host 10.40.1.20 traps version 2c Rt8xCommunity", "Rt8xCommunity"),
    ('tacacs-server key 7 "Vjqr4Pkq5a1"', "Vjqr4Pkq5a1"),
    ('tacacs-server host 10.40.1.11 key 7 "Zbm 3Lqr9Xw"', "3Lqr9Xw"),
    ("radius-server key 7 Zk1sh3mE", "Zk1sh3mE"),
    ("radius-server host 10.40.1.12 key 0 r4d1us-Key authentication accounting", "r4d1us-Key"),
    ("    key-string 7 070c285f4d06", "070c285f4d06"),
    ("    password 3 7b1f4a2c9e8d6b5a", "7b1f4a2c9e8d6b5a"),
    ("  ip ospf authentication-key 3 0a1b2c3d", "0a1b2c3d"),
    ("  ip ospf message-digest-key 1 md5 3 9f8e7d6c", "9f8e7d6c"),
    ("    authentication md5 key-string hsrp-K3y", "hsrp-K3y"),
    ("ntp authentication-key 1 md5 Kq3eXb7 7", "Kq3eXb7"),
]


@pytest.mark.parametrize(("line", "secret"), SECRET_LINES)
def test_secrets_are_masked(line: str, secret: str):
    masked = NXOS.mask_secrets(line)
    assert secret not in masked and "<masked>" in masked
    assert NXOS.mask_secrets(masked) == masked


def test_masking_keeps_every_other_line_and_the_config_readable():
    text = fixture("show_running-config.txt")
    masked = NXOS.mask_secrets(text)
    changed = [(a, b) for a, b in zip(text.splitlines(), masked.splitlines(), strict=True) if a != b]
    assert len(changed) == 12
    assert all("<masked>" in b for _, b in changed)
    assert "snmp-server host 10.40.1.20 traps version 2c <masked>" in masked
    assert "username netops passphrase  lifetime 99999 warntime 14 gracetime 3" in masked
    assert NXOS.parse_config(masked, LEAF) == NXOS.parse_config(text, LEAF)


# --- faults the lab seeds ------------------------------------------------------------------------


def test_a_qos_group_paused_by_another_priority(fabric, policy):
    """`pfc_pause_priority: {3: 4}`: the network-qos class of qos-group 3 says `pause pfc-cos 4`. The
    ports with PFC on then pause 4, and RoCE (DSCP 26 -> qos-group 3) is paused on 4, not 3."""
    leaf = fabric.devices["leaf-su1-r3"]
    state = apply_faults(
        live_states(fabric, policy)[leaf.name], DeviceFaults(pfc_pause_priority={3: 4}), leaf
    )
    text = NXOS.render_config(state, leaf)
    assert block(text, "policy-map type network-qos ROCE_NETWORK_QOS")[1:4] == [
        "  class type network-qos c-8q-nq3",
        "    mtu 9216",
        "    pause pfc-cos 4",
    ]
    parsed = NXOS.parse_config(text, leaf)
    assert parsed.tc_pfc == {3: 4}
    found = {(f.rule, f.expected, f.actual) for f in run_checks(fabric, policy, {leaf.name: parsed})}
    assert ("qos.dscp_map", "3", "4") in found
    # The ports pause 4, the priority RoCE's class is paused on: the deviation is named once.
    assert not any(rule == "pfc.no_drop_priorities" for rule, _, _ in found)
    message = {f.message for f in run_checks(fabric, policy, {leaf.name: parsed}) if f.rule == "qos.dscp_map"}
    assert message == {
        "RoCE DSCP 26 rides priority 4 (queue 3) on this device; the policy expects priority 3"
    }


def test_factory_qos_is_the_stock_nexus(fabric, policy):
    leaf = fabric.devices["leaf-su2-r4"]
    state = apply_faults(live_states(fabric, policy)[leaf.name], DeviceFaults(factory_qos=True), leaf)
    outputs_ = simulator(NXOS.name).render_outputs(state, leaf)
    parsed = NXOS.parse_outputs({c.file: outputs_[c.cli] for c in NXOS.commands(leaf)}, leaf)
    port = parsed.interfaces["Ethernet1/1"]
    assert (port.mtu, port.trust, port.pfc_enabled, port.ecn, port.watchdog) == (
        1500,
        "none",
        False,
        {},
        False,
    )
    assert parsed.dscp_map == {} and parsed.watchdog == Watchdog(enabled=False)
    assert "mtu 1500" not in outputs_["show running-config"]  # NX-OS prints no default


# --- read-only collection -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cli",
    [
        "configure terminal",
        "show running-config | redirect bootflash:x",
        "show running-config > bootflash:x",
        "show version ; reload",
        "copy running-config startup-config",
        "reload",
        "run bash sudo reboot",
        "show interface priority-flow-control | tee bootflash:x",
        "show lldp neighbors detail\nconfigure terminal",
    ],
)
def test_commands_that_change_an_nxos_switch_are_not_read_only(cli: str):
    assert not is_read_only(NXOS, cli)


def test_every_collected_command_is_read_only(fabric):
    for device in fabric.devices.values():
        platform = get_platform(device.platform)
        assert all(is_read_only(platform, b.cli) for b in platform.batches(device))


# --- the CLI on an all-NX-OS lab --------------------------------------------------------------------


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path: Path, line: str) -> int:
    (number,) = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text == line]
    return number


def test_configs_findings_point_at_file_and_line(nxos_lab, tmp_path, capsys):
    configs = tmp_path / "configs"
    assert main(["render", str(nxos_lab), "-o", str(configs)]) == 0
    capsys.readouterr()
    leaf = configs / "leaf-su1-r2.cfg"
    assert leaf.exists() and (configs / "spine1.cfg").exists()
    edit(leaf, "    pause pfc-cos 3\n", "    pause pfc-cos 4\n")
    edit(leaf, "  description gpu02:eth1\n  mtu 9214\n", "  description gpu02:eth1\n  mtu 1500\n")
    edit(leaf, "drop-probability 100 weight 0 ecn", "drop-probability 7 weight 0 ecn")
    assert main(["check", str(nxos_lab), "--configs", str(configs), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    at = {(f["rule"], f["interface"]): f["line"] for f in findings if f["device"] == "leaf-su1-r2"}
    assert all(f["file"] == str(leaf) for f in findings if f["device"] == "leaf-su1-r2")
    assert at[("mtu.switch", "Ethernet1/2")] == line_of(leaf, "  mtu 1500")
    # RoCE's class paused on 4: qos.dscp_map names it once, at the line that does it.
    paused = [f for f in findings if f["rule"] == "qos.dscp_map" and f["device"] == "leaf-su1-r2"]
    assert {f["line"] for f in paused} == {line_of(leaf, "    pause pfc-cos 4")}
    assert not [f for f in findings if f["rule"] == "pfc.no_drop_priorities" and f["device"] == "leaf-su1-r2"]
    ecn = [f for f in findings if f["rule"] == "ecn.thresholds"]
    assert {f["line"] for f in ecn} == {
        line_of(
            leaf,
            "    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
            "drop-probability 7 weight 0 ecn",
        )
    }
    assert {f["device"] for f in findings if f["severity"] == "error"} <= {"leaf-su1-r2", "gpu02", "gpu06"}


def test_diff_restores_intent_and_leaves_the_rest_of_the_switch_alone(nxos_lab, tmp_path, capsys):
    faults = tmp_path / "faults.yaml"
    faults.write_text(
        "devices:\n  leaf-su1-r3: {pfc_pause_priority: {3: 4}}\n  leaf-su2-r1: {mtu: {Ethernet1/2: 1500}}\n"
    )
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(nxos_lab), "--faults", str(faults), "-o", str(snapshot)]) == 0
    # What an operator's switch holds besides netcfg's QoS: users, addresses, routing.
    running = snapshot / "leaf-su1-r3" / "show_running-config.txt"
    text = running.read_text()
    text = text.replace("  description gpu01:eth0\n", "  description gpu01:eth0\n  ip address 10.1.1.0/31\n")
    running.write_text(text + "router bgp 65101\n  neighbor 10.2.1.0\n    password 3 <masked>\n")
    capsys.readouterr()
    assert main(["diff", str(nxos_lab), "--snapshot", str(snapshot)]) == 1
    out = capsys.readouterr().out
    commands = {
        name: re.search(
            rf"─ {name} ─.*?commands to restore intent:\n(.*?)\n(?:─|\d+ switch)", out, re.S
        ).group(1)
        for name in ("leaf-su1-r3", "leaf-su2-r1")
    }
    assert commands["leaf-su1-r3"].splitlines() == [
        "policy-map type network-qos ROCE_NETWORK_QOS",
        "  class type network-qos c-8q-nq3",
        "    no pause pfc-cos 4",
        "    pause pfc-cos 3",
    ]
    assert commands["leaf-su2-r1"].splitlines() == ["interface Ethernet1/2", "  mtu 9214"]
    assert "2 switch(es) differ from intent" in out
