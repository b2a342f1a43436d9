"""EOS remediation against production-style running configs: every command touches a line netcfg
renders, and the commands applied to the running config (hier_config's own model of what the switch
then holds) give back the intent for those lines and leave every other line as it was."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.intent import device_intent
from netcfg.platforms import get_platform
from netcfg.platforms.eos.remediation import Scope, device_config, owned, scope_of, text_lines

EOS = get_platform("eos")
LEAF = "leaf-su1-r1"
# What a production switch holds besides netcfg's QoS (secrets as the snapshot masks them).
FOREIGN_TOP = [
    ["username admin privilege 15 role network-admin secret sha512 <masked>"],
    ["aaa authentication login default group tacacs+ local", "tacacs-server host 10.9.9.9 key 7 <masked>"],
    ["snmp-server community <masked> ro", "snmp-server location dc1-row4"],
    ["vrf instance MGMT", "ip routing", "no ip routing vrf MGMT"],
    ["interface Management1", "   vrf MGMT", "   ip address 10.0.0.5/24"],
    ["router bgp 65001", "   router-id 10.0.0.5", "   neighbor 10.1.1.1 remote-as 65100"],
    ["interface Ethernet33/1", "   description storage-array", "   service-profile STORAGE", "   mtu 1500"],
    ["qos profile STORAGE", "   qos trust cos"],
    ["qos map dscp 10 to traffic-class 1", "qos map traffic-class 1 to tx-queue 1"],
]
FOREIGN_PORT = [
    "ip address 10.1.1.0/31",
    "speed forced 400gfull",
    "load-interval 5",
    "tx-queue 3\n      bandwidth percent 40",
]


def intended(lab_fabric, lab_policy) -> str:
    device = lab_fabric.devices[LEAF]
    return EOS.render_config(device_intent(device, lab_fabric, lab_policy), device)


# Changes to the lines netcfg owns, each a text edit of the intended config.
OWNED_EDITS = {
    "mtu": lambda t: t.replace("   mtu 9214\n", "   mtu 1500\n", 1),
    "no profile": lambda t: t.replace("   service-profile ROCE_LOSSLESS\n", "", 1),
    "inline pfc": lambda t: t.replace(
        "   no switchport\n", "   no switchport\n   priority-flow-control priority 4 no-drop\n", 1
    ),
    "profile pfc": lambda t: t.replace("priority 3 no-drop", "priority 4 no-drop", 1),
    "dscp target": lambda t: t.replace(
        "qos map dscp 26 to traffic-class 3", "qos map dscp 26 27 to traffic-class 1"
    ),
    "dscp missing": lambda t: t.replace("qos map dscp 48 to traffic-class 6\n", ""),
    "class queue": lambda t: t.replace(
        "!\npriority-flow-control", "qos map traffic-class 3 to tx-queue 5\n!\npriority-flow-control", 1
    ),
    "watchdog": lambda t: t.replace("default timeout 0.2", "default timeout 0.5"),
    "stray ecn": lambda t: t.replace(
        "   no switchport\n",
        "   no switchport\n   tx-queue 4\n      bandwidth percent 10\n"
        "      random-detect ecn minimum-threshold 1 mbytes maximum-threshold 2 mbytes "
        "max-mark-probability 50\n",
        1,
    ),
    "no port": lambda t: t.replace("interface Ethernet4\n", "interface Ethernet4-gone\n"),
}


def production(text: str, foreign: list[list[str]], port_lines: list[str], edits: list[str]) -> str:
    for name in edits:
        text = OWNED_EDITS[name](text)
    extra = "".join(f"   {line}\n" for line in port_lines)
    text = text.replace(
        "   service-profile ROCE_LOSSLESS\n!\ninterface Ethernet2\n",
        "   service-profile ROCE_LOSSLESS\n" + extra + "!\ninterface Ethernet2\n",
        1,
    )
    if extra and extra not in text:
        text = text.replace("interface Ethernet2\n", "interface Ethernet2\n" + extra, 1)
    head, _, tail = text.partition("lldp run\n")
    blocks = "".join("!\n" + "".join(f"{line}\n" for line in block) for block in foreign)
    return f"{head}lldp run\n{blocks}{tail}"


def leaves(config, above: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out = set()
    for child in config.children:
        lineage = (*above, child.text)
        out |= leaves(child, lineage) if child.children else {lineage}
    return out


def check_safe(want_text: str, running_text: str) -> None:
    fix = EOS.remediate(LEAF, want_text, running_text)
    want = device_config(want_text)
    scope = scope_of(want)
    commands = device_config(fix.commands)
    # Every command is on a line netcfg owns.
    for lineage in leaves(commands):
        assert scope.owns(tuple(line.removeprefix("no ") for line in lineage)), lineage
    running = device_config(running_text)
    after = running.future(commands)
    owned_after = {lineage for lineage in leaves(after) if scope.owns(lineage)}
    assert owned_after == leaves(owned(want, scope))
    assert _foreign(after, scope) == _foreign(running, scope)


def _foreign(config, scope: Scope) -> set[tuple[str, ...]]:
    return {lineage for lineage in leaves(config) if not scope.owns(lineage)}


def test_a_production_switch_gets_only_commands_on_netcfgs_lines(lab_fabric, lab_policy):
    want = intended(lab_fabric, lab_policy)
    running = production(want, FOREIGN_TOP, FOREIGN_PORT, ["profile pfc", "mtu", "dscp target"])
    running = running.replace("\nend", "\nbanner motd\nAuthorised use only\nEOF\n!\nend")
    fix = EOS.remediate(LEAF, want, running)
    assert fix.commands.splitlines() == [
        "no qos map dscp 26 to traffic-class 1",
        "qos profile ROCE_LOSSLESS",
        "  no priority-flow-control priority 4 no-drop",
        "  priority-flow-control priority 3 no-drop",
        "interface Ethernet1",
        "  mtu 9214",
        "qos map dscp 26 to traffic-class 3",
    ]
    for foreign in ("username", "snmp", "bgp", "banner", "Management1", "STORAGE", "ip address", "27"):
        assert foreign not in fix.diff and foreign not in fix.commands, foreign
    check_safe(want, running)


def test_a_switch_as_intended_among_production_lines_needs_nothing(lab_fabric, lab_policy):
    want = intended(lab_fabric, lab_policy)
    fix = EOS.remediate(LEAF, want, production(want, FOREIGN_TOP, FOREIGN_PORT, []))
    assert (fix.diff, fix.commands) == ("", "")


def test_a_stray_ecn_queue_loses_its_ecn_line_not_its_shaping(lab_fabric, lab_policy):
    want = intended(lab_fabric, lab_policy)
    fix = EOS.remediate(LEAF, want, production(want, [], [], ["stray ecn"]))
    assert "no tx-queue 4" not in fix.commands
    assert "    no random-detect ecn minimum-threshold 1 mbytes" in fix.commands


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    foreign=st.lists(st.sampled_from(FOREIGN_TOP), unique_by=id, max_size=len(FOREIGN_TOP)),
    port_lines=st.lists(st.sampled_from(FOREIGN_PORT), unique=True),
    edits=st.lists(st.sampled_from(sorted(OWNED_EDITS)), unique=True),
)
def test_any_mix_of_owned_and_foreign_changes_is_remediated_safely(
    lab_fabric, lab_policy, foreign, port_lines, edits
):
    want = intended(lab_fabric, lab_policy)
    check_safe(want, production(want, foreign, port_lines, edits))


def test_the_diff_shows_eos_indentation(lab_fabric, lab_policy):
    want = intended(lab_fabric, lab_policy)
    fix = EOS.remediate(LEAF, want, production(want, [], [], ["profile pfc"]))
    assert "-   priority-flow-control priority 4 no-drop" in fix.diff
    assert text_lines(device_config("interface Ethernet1\n   mtu 1\n")) == ["interface Ethernet1", "   mtu 1"]
