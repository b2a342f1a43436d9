"""NX-OS remediation against production-style running configs (users, AAA, TACACS, SNMP, banners,
CoPP, VLANs, spanning tree, BGP, the management VRF, other line cards, an operator's own QoS): every
command touches a line netcfg renders, and the commands applied to the running config, by this
file's model of how NX-OS takes them, give back the intent for those lines and leave every other
line as it was."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.intent import device_intent
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.platforms import get_platform
from netcfg.policy import load_policy
from tests.conftest import ROOT

MULTI = ROOT / "inventories" / "lab-multi"
LEAF = "leaf-su1-r4"
NXOS = get_platform("nxos")

# Blocks a production Nexus holds besides netcfg's QoS, in `show running-config` form (secrets as the
# snapshot masks them). Shapes follow Cisco's documented configs.
FOREIGN_TOP = [
    "feature tacacs+\nfeature bgp\nfeature interface-vlan\nfeature lacp",
    "username ops password 5 <masked> role network-operator\nno password strength-check",
    "banner motd #\nAuthorised use only.\nsystem qos\n#",
    "tacacs-server key 7 <masked>\ntacacs-server host 10.9.9.9\n"
    "aaa group server tacacs+ TAC\n    server 10.9.9.9\n    use-vrf management\n"
    "aaa authentication login default group TAC",
    "snmp-server community <masked> group network-operator\nsnmp-server location dc1-row4\n"
    "ntp server 10.0.2.7 use-vrf management",
    "ip access-list ssh-only\n  10 permit tcp any any eq 22",
    "class-map type control-plane match-any copp-ssh\n  match access-group name ssh-only\n"
    "policy-map type control-plane copp-system-policy\n  class copp-ssh\n    police pps 500\n"
    "control-plane\n  service-policy input copp-system-policy",
    "hardware access-list tcam region ing-racl 1536\nsystem default switchport shutdown",
    "vlan 1\nvlan 10\n  name Storage\nspanning-tree mode mst\nspanning-tree port type edge bpduguard default",
    # An operator's own QoS for storage ports: its names are not netcfg's.
    "class-map type qos match-all STORAGE\n  match cos 4\npolicy-map type qos OPS_QOS\n  class STORAGE\n"
    "    set qos-group 4\npolicy-map type queuing OPS_IN\n  class type queuing c-in-q-default\n"
    "    bandwidth percent 100",
    "vrf context management\n  ip route 0.0.0.0/0 10.0.0.1",
    "interface mgmt0\n  vrf member management\n  ip address 10.0.0.9/24",
    "interface loopback0\n  ip address 10.255.0.4/32",
    "interface Ethernet2/1\n  description storage-array\n  mtu 1500\n  switchport mode trunk\n"
    "  switchport trunk allowed vlan 10\n  service-policy type qos input OPS_QOS\n  no shutdown",
    "router bgp 65101\n  router-id 10.255.0.4\n  neighbor 10.2.1.0\n    remote-as 65000\n"
    "    password 3 <masked>\n    address-family ipv4 unicast",
]
# Lines of an operator's own on one of the plan's fabric ports.
FOREIGN_PORT = [
    "speed 400000",
    "ip address 10.1.1.0/31",
    "bfd interval 300 min_rx 300 multiplier 3",
    "service-policy type queuing input OPS_IN",
    "switchport mode trunk",
    "switchport trunk allowed vlan 10",
    "fec rs-fec",
]
# What an operator's own system-wide QoS adds to `system qos`.
FOREIGN_SYSTEM_QOS = ["service-policy type queuing input OPS_IN", "service-policy type qos input OPS_QOS"]


def _in_port(port: str, old: str, new: str):
    """An edit of one line in one port's block."""

    def edit(text: str) -> str:
        head = f"interface {port}\n"
        before, _, block = text.partition(head)
        body, blank, after = block.partition("\n\n")
        return before + head + body.replace(old, new, 1) + blank + after

    return edit


_ECN = "minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0"
_OPS_OUT = (
    "policy-map type queuing OPS_OUT\n  class type queuing c-out-8q-q-default\n"
    "    bandwidth remaining percent 100\n"
)
_STALE_CLASS = "  class type network-qos c-8q-nq4\n    mtu 9216\n    pause pfc-cos 4\n"
# Changes to lines netcfg owns, each a text edit of the running config as the switch printed it.
OWNED_EDITS = {
    "pause": lambda t: t.replace("pause pfc-cos 3", "pause pfc-cos 4"),
    "mtu": _in_port("Ethernet1/2", "mtu 9214", "mtu 1500"),
    "pfc off": _in_port("Ethernet1/1", "priority-flow-control mode on", "priority-flow-control mode off"),
    "description": _in_port("Ethernet1/3", "description gpu03:eth3", "description old-cable"),
    "no binding": _in_port("Ethernet1/3", "  service-policy type qos input ROCE_QOS\n", ""),
    "foreign binding": _in_port("Ethernet1/4", "input ROCE_QOS", "input OPS_QOS"),
    "shutdown": _in_port("Ethernet1/31", "no shutdown", "shutdown"),
    "layer 2": _in_port("Ethernet1/32", "no switchport", "switchport"),
    "dscp": lambda t: t.replace("  match dscp 26\n", "  match dscp 26-27\n"),
    "watchdog": lambda t: t.replace(
        "\npriority-flow-control watch-dog-interval on\n", "\npriority-flow-control watch-dog-interval off\n"
    ),
    "bandwidth": lambda t: t.replace("percent 50\n    random-detect", "percent 40\n    random-detect"),
    "no ecn": lambda t: t.replace(f"    random-detect {_ECN} ecn\n", ""),
    "stale class": lambda t: t.replace(
        "  class type network-qos c-8q-nq-default\n",
        _STALE_CLASS + "  class type network-qos c-8q-nq-default\n",
    ),
    "no queuing policy": lambda t: (
        _without_block(t, "policy-map type queuing ROCE_QUEUING")
        .replace("output ROCE_QUEUING\n", "output OPS_OUT\n")
        .replace("system qos\n", _OPS_OUT + "system qos\n")
    ),
}


def _without_block(text: str, head: str) -> str:
    lines = text.split("\n")
    start = lines.index(head)
    end = start + 1
    while lines[end].startswith(" "):
        end += 1
    return "\n".join(lines[:start] + lines[end:])


@pytest.fixture(scope="module")
def configs(tmp_path_factory) -> tuple[str, str]:
    """The leaf's intended config and its running config as the simulated switch prints it."""
    fabric = load_fabric(MULTI)
    policy = load_policy(fabric.policy_ref, MULTI)
    device = fabric.devices[LEAF]
    intended = NXOS.render_config(device_intent(device, fabric, policy), device)
    snapshot = write_simulated_snapshot(fabric, policy, {}, tmp_path_factory.mktemp("nxos") / "snap")
    return intended, (snapshot / LEAF / "show_running-config.txt").read_text()


def production(
    running: str, foreign: list[str], port_lines: list[str], system: list[str], edits: list[str]
) -> str:
    # In the table's order: removing the queuing policy comes after the edits inside it.
    for name in sorted(edits, key=list(OWNED_EDITS).index):
        edited = OWNED_EDITS[name](running)
        assert edited != running, name
        running = edited
    port = "interface Ethernet1/2\n"
    running = running.replace(port, port + "".join(f"  {line}\n" for line in port_lines), 1)
    running = running.replace("system qos\n", "system qos\n" + "".join(f"  {line}\n" for line in system), 1)
    return running.replace("feature lldp\n", "feature lldp\n" + "".join(f"{b}\n" for b in foreign), 1)


# --- a model of how NX-OS takes config lines ----------------------------------------------------------

# Lines a switch holds one of per section: a new value replaces the old (the key is the line without
# its value). `no switchport` and `no shutdown` are settings NX-OS prints, as are their opposites.
_SINGLE = (
    "hostname",
    "description",
    "mtu",
    "speed",
    "fec",
    "priority-flow-control mode",
    "priority-flow-control watch-dog-interval",
    "service-policy type qos input",
    "service-policy type queuing input",
    "service-policy type queuing output",
    "service-policy type network-qos",
    "pause pfc-cos",
    "set qos-group",
    "bandwidth remaining percent",
    "priority level",
    "random-detect",
)
_SWITCHES = {"switchport", "shutdown"}


def key(line: str) -> str:
    bare = line.removeprefix("no ")
    if bare in _SWITCHES:
        return bare
    for single in _SINGLE:
        if bare == single or bare.startswith(single + " "):
            return single
    return line


Tree = dict[str, "Tree"]


def parse(text: str) -> Tree:
    """A config text as nested {line: children}, by indentation; banner text and `!` lines skipped."""
    root: Tree = {}
    stack: list[tuple[int, Tree]] = [(-1, root)]
    banner = None
    for raw in text.splitlines():
        if banner is not None:
            banner = None if banner in raw else banner
            continue
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip())
        while stack[-1][0] >= indent:
            stack.pop()
        children: Tree = {}
        stack[-1][1][line] = children
        stack.append((indent, children))
        if indent == 0 and line.startswith("banner ") and line.split()[2][1:].find(line.split()[2][0]) < 0:
            banner = line.split()[2][0]
    return root


def apply(running: str, commands: str) -> Tree:
    """The running config after the commands, as NX-OS takes them: a section line enters (or makes)
    that section, `no X` removes line or section X (it must be there), a setting replaces the one of
    its kind, and a policy bound is one that exists (NX-OS refuses the rest)."""
    config = parse(running)
    stack: list[tuple[int, Tree]] = [(-1, config)]
    for raw in commands.splitlines():
        line = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        while stack[-1][0] >= indent:
            stack.pop()
        section = stack[-1][1]
        bare = line.removeprefix("no ")
        if bare != line and bare not in _SWITCHES:
            assert bare in section, f"{raw!r}: no such line"
            del section[bare]
            stack.append((indent, {}))
            continue
        if line.startswith("service-policy type ") and section is not config:
            kind, name = line.split()[2], line.split()[-1]
            assert f"policy-map type {kind} {name}" in config, f"{raw!r}: no such policy"
        for old in [o for o in section if o != line and key(o) == key(line)]:
            del section[old]
        stack.append((indent, section.setdefault(line, {})))
    return config


def leaves(tree: Tree, above: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out = set()
    for line, children in tree.items():
        lineage = (*above, line)
        out |= leaves(children, lineage) if children else {lineage}
    return out


# What netcfg renders, as the issue states it: its own named class and policy maps whole, `system qos`
# bindings of network-qos and output queuing, the watchdog line, the hostname, and on the plan's ports
# the lines of the kinds it writes there.
_PORT_KINDS = {
    "description",
    "mtu",
    "priority-flow-control mode",
    "priority-flow-control watch-dog-interval",
    "service-policy type qos input",
    "service-policy type queuing output",
    "switchport",
    "shutdown",
}


def owns(lineage: tuple[str, ...], ports: set[str]) -> bool:
    head, *rest = lineage
    words = head.split()
    if words[0] in ("class-map", "policy-map"):
        return words[-1].startswith("ROCE_")
    if head == "system qos":
        return not rest or key(rest[0]) in (
            "service-policy type network-qos",
            "service-policy type queuing output",
        )
    if words[0] == "interface":
        return words[1] in ports and (not rest or (len(rest) == 1 and key(rest[0]) in _PORT_KINDS))
    return not rest and key(head) in ("hostname", "priority-flow-control watch-dog-interval", "feature lldp")


def check_safe(intended: str, running: str) -> list[str]:
    ports = {line.split()[1] for line in parse(intended) if line.startswith("interface ")}
    fix = NXOS.remediate(LEAF, intended, running)
    assert fix is not None
    commands = fix.commands
    for lineage in leaves(parse(commands)):
        assert owns(tuple(line.removeprefix("no ") for line in lineage), ports), lineage
    before, after, want = leaves(parse(running)), leaves(apply(running, commands)), leaves(parse(intended))
    assert {x for x in after if owns(x, ports)} == {x for x in want if owns(x, ports)}
    assert {x for x in after if not owns(x, ports)} == {x for x in before if not owns(x, ports)}
    return commands.splitlines()


def test_a_production_nexus_gets_only_commands_on_netcfgs_lines(configs):
    intended, running = configs
    edits = ["pause", "mtu", "foreign binding", "layer 2", "no queuing policy"]
    running = production(running, FOREIGN_TOP, FOREIGN_PORT, FOREIGN_SYSTEM_QOS, edits)
    commands = check_safe(intended, running)
    # The operator's input queuing, bound system-wide and on a port, stays bound; the output queuing
    # policy netcfg replaces stays defined.
    for foreign in (
        "OPS_IN",
        "policy-map type queuing OPS_OUT",
        "switchport mode",
        "switchport trunk",
        "speed",
        "bgp",
        "snmp",
        "username",
    ):
        assert not any(foreign in c for c in commands), (foreign, commands)
    assert "  service-policy type queuing output ROCE_QUEUING" in commands
    assert commands.index("policy-map type queuing ROCE_QUEUING") < commands.index("system qos")
    assert "  no switchport" in commands


def test_a_nexus_as_intended_among_production_lines_needs_nothing(configs):
    intended, running = configs
    fix = NXOS.remediate(
        LEAF, intended, production(running, FOREIGN_TOP, FOREIGN_PORT, FOREIGN_SYSTEM_QOS, [])
    )
    assert fix is not None and (fix.diff, fix.commands) == ("", "")


def test_a_nexus_production_config_is_taken_for_an_nxos_running_config(configs):
    _, running = configs
    assert (
        NXOS.not_running_config(production(running, FOREIGN_TOP, FOREIGN_PORT, FOREIGN_SYSTEM_QOS, []))
        is None
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    foreign=st.lists(st.sampled_from(FOREIGN_TOP), unique=True),
    port_lines=st.lists(st.sampled_from(FOREIGN_PORT), unique=True),
    system=st.lists(st.sampled_from(FOREIGN_SYSTEM_QOS), unique=True),
    edits=st.lists(st.sampled_from(sorted(OWNED_EDITS)), unique=True),
)
def test_any_mix_of_owned_drift_and_production_lines_is_remediated_safely(
    configs, foreign, port_lines, system, edits
):
    intended, running = configs
    check_safe(intended, production(running, foreign, port_lines, system, edits))
