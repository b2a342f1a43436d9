"""Cumulus remediation against a production-style NVUE configuration (users, TACACS+, SNMP, NTP, the
management VRF and eth0, BGP, VRFs, bonds and bridges, other ports, an operator's own QoS profiles for
storage): every `nv set`/`nv unset` touches a setting netcfg renders, and the commands applied to the
applied configuration, by this file's model of NVUE, give back the intent for those settings and leave
every other setting as it was."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.cli import main
from netcfg.intent import device_intent
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.platforms import get_platform
from netcfg.platforms.cumulus.names import expand_names
from netcfg.policy import load_policy
from tests.conftest import ROOT

MULTI = ROOT / "inventories" / "lab-multi"
LEAF = "leaf-su1-r2"
CUMULUS = get_platform("cumulus")

# `nv config show -o commands` lines of a production switch besides netcfg's (secrets as masked).
FOREIGN = [
    "nv set system aaa user ops role system-admin",
    "nv set system aaa user ops hashed-password <masked>",
    "nv set system aaa tacacs server 1 host 10.9.9.9",
    "nv set system aaa tacacs server 1 secret <masked>",
    "nv set system snmp-server readonly-community <masked> access any",
    "nv set service ntp mgmt server 10.0.2.7",
    "nv set system message pre-login 'Authorised use only'",
    "nv set interface eth0 ip address 10.0.0.12/24",
    "nv set interface eth0 ip vrf mgmt",
    "nv set interface lo ip address 10.255.0.2/32",
    "nv set interface swp1 ip address 10.1.0.1/31",
    "nv set interface swp1 link fec rs",
    "nv set interface swp40 type swp",
    "nv set interface swp40 link mtu 9000",
    "nv set interface swp40 description storage-array",
    "nv set interface bond1 bond member swp41-42",
    "nv set interface bond1 bridge domain br_default",
    "nv set bridge domain br_default vlan 10",
    "nv set vrf TENANT1 router bgp autonomous-system 65201",
    "nv set router bgp autonomous-system 65102",
    "nv set vrf default router bgp neighbor 10.1.0.0 remote-as external",
    # An operator's own QoS for storage ports: profiles netcfg does not name.
    "nv set qos pfc storage-pfc switch-priority 4",
    "nv set qos pfc storage-pfc cable-length 10",
    "nv set qos mapping storage-map trust l2",
    "nv set interface swp40 qos pfc profile storage-pfc",
    "nv set interface swp40 qos mapping profile storage-map",
]
# Drift of settings netcfg owns: (old text, new text) in the applied configuration.
OWNED_DRIFT = {
    "mtu": (
        "nv set interface swp1-4,swp31-32 link mtu 9214",
        "nv set interface swp1-4,swp31-32 link mtu 9214\nnv set interface swp2 link mtu 1500",
    ),
    "description": ("swp3 description gpu03:eth1", "swp3 description old-cable"),
    "pfc priority": ("netcfg-pfc-1 switch-priority 3", "netcfg-pfc-1 switch-priority 3,4"),
    "pfc cable": ("netcfg-pfc-1 cable-length 30", "netcfg-pfc-1 cable-length 100"),
    "no watchdog": (
        "nv set interface swp1-4,swp31-32 qos pfc-watchdog",
        "nv set interface swp1-3,swp31-32 qos pfc-watchdog",
    ),
    "robustness": ("pfc-watchdog robustness 2", "pfc-watchdog robustness 5"),
    "roce cable": ("qos roce cable-length 3", "qos roce cable-length 5"),
    "trust": ("default-global trust l3", "default-global trust l2"),
    "stray binding": (
        "nv set system hostname",
        "nv set interface swp4 qos pfc profile storage-pfc\nnv set system hostname",
    ),
}


@pytest.fixture(scope="module")
def configs(tmp_path_factory) -> tuple[str, str]:
    fabric = load_fabric(MULTI)
    policy = load_policy(fabric.policy_ref, MULTI)
    device = fabric.devices[LEAF]
    intended = CUMULUS.render_config(device_intent(device, fabric, policy), device)
    snapshot = write_simulated_snapshot(fabric, policy, {}, tmp_path_factory.mktemp("cumulus") / "snap")
    return intended, (snapshot / LEAF / "nv_config_show_commands.txt").read_text()


def production(running: str, foreign: list[str], drift: list[str]) -> str:
    for name in drift:
        old, new = OWNED_DRIFT[name]
        assert old in running, name
        running = running.replace(old, new, 1)
    return "".join(f"{line}\n" for line in foreign) + running


# --- a model of NVUE: the configuration as settings, one port and one number each --------------------

_NUMBER_LIST = re.compile(r"(?<= )(switch-priority|dscp|traffic-class) (\d+(?:[,-]\d+)+)(?= |$)")
# Settings that add a member to a collection rather than give a value.
_MEMBERS = (
    re.compile(r"set qos pfc \S+ switch-priority \d+"),
    re.compile(r"set interface \S+ qos pfc-watchdog"),
)


def settings_of(line: str) -> list[str]:
    """`nv set interface swp1-2 x 3,4` as one setting per port and number."""
    words = line.removeprefix("nv ").split(" ")
    if len(words) > 2 and words[1] == "interface":
        ports = expand_names(words[2]) or [words[2]]
        lines = [" ".join([words[0], words[1], p, *words[3:]]) for p in ports]
    else:
        lines = [" ".join(words)]
    out = []
    for text in lines:
        found = _NUMBER_LIST.search(text)
        if found is None:
            out.append(text)
            continue
        numbers = []
        for part in found.group(2).split(","):
            low, _, high = part.partition("-")
            numbers += range(int(low), int(high or low) + 1)
        for n in numbers:
            out += settings_of(text[: found.start(2)] + str(n) + text[found.end(2) :])
    return out


def configuration(text: str) -> set[str]:
    """The settings `nv set` lines leave, in order: a later value of a setting replaces the earlier."""
    config: set[str] = set()
    for line in text.splitlines():
        if line.startswith("nv set "):
            for setting in settings_of(line):
                config = _set(config, setting)
    return config


def _set(config: set[str], setting: str) -> set[str]:
    if any(m.fullmatch(setting) for m in _MEMBERS):
        return config | {setting}
    path = setting.rsplit(" ", 1)[0]
    return {s for s in config if s.rsplit(" ", 1)[0] != path} | {setting}


def apply(running: str, commands: str) -> set[str]:
    """`nv unset P` removes every setting under P (one must be there); `nv set S` adds S, replacing the
    value a setting of the same path had; `nv config apply` ends the change."""
    config = configuration(running)
    lines = commands.splitlines()
    assert lines[-1] == "nv config apply"
    for line in lines[:-1]:
        for setting in settings_of(line):
            if setting.startswith("unset "):
                path = "set " + setting.removeprefix("unset ")
                gone = {s for s in config if s == path or s.startswith(path + " ")}
                assert gone, f"{line!r}: nothing to unset"
                config -= gone
            else:
                config = _set(config, setting)
    return config


def owns(setting: str, ports: set[str], profiles: set[str]) -> bool:
    """What netcfg renders on a Cumulus switch: the plan's ports' type, MTU, description, watchdog and
    profile bindings; its own QoS profiles, the default-global ones (they apply to every port without
    one of its own) and the device-wide RoCE and watchdog settings."""
    words = setting.split()
    if words[1] == "interface":
        return words[2] in ports and (
            words[3] in ("type", "description")
            or words[3:5] == ["link", "mtu"]
            or (words[3] == "qos" and (words[4] == "pfc-watchdog" or words[5:6] == ["profile"]))
        )
    if words[1] == "qos":
        if words[2] in ("roce", "pfc-watchdog"):
            return True
        kinds = ("mapping", "pfc", "congestion-control", "egress-scheduler")
        return words[2] in kinds and (words[3] in profiles or words[3] == "default-global")
    return False


def check_safe(intended: str, running: str) -> list[str]:
    want = configuration(intended)
    ports = {s.split()[2] for s in want if s.startswith("set interface ")}
    profiles = {s.split()[3] for s in want if s.startswith("set qos ") and len(s.split()) > 3}
    fix = CUMULUS.remediate(LEAF, intended, running)
    assert fix is not None
    commands = fix.commands.splitlines()
    for line in commands[:-1]:
        for setting in settings_of(line):
            assert owns("set " + setting.split(" ", 1)[1], ports, profiles), line
    before, after = (
        configuration(running),
        apply(running, fix.commands) if commands else configuration(running),
    )
    assert {s for s in after if owns(s, ports, profiles)} == {s for s in want if owns(s, ports, profiles)}
    assert {s for s in after if not owns(s, ports, profiles)} == {
        s for s in before if not owns(s, ports, profiles)
    }
    return commands


def test_a_production_cumulus_leaf_gets_only_commands_on_netcfgs_settings(configs):
    intended, running = configs
    commands = check_safe(
        intended, production(running, FOREIGN, ["mtu", "pfc priority", "trust", "stray binding"])
    )
    for foreign in ("storage", "swp40", "bgp", "aaa", "eth0", "fec", "address"):
        assert not any(foreign in c and "swp4 qos pfc profile" not in c for c in commands), (
            foreign,
            commands,
        )
    assert "nv unset qos pfc netcfg-pfc-1 switch-priority 4" in commands


def test_a_cumulus_leaf_as_intended_among_production_settings_needs_nothing(configs):
    intended, running = configs
    fix = CUMULUS.remediate(LEAF, intended, production(running, FOREIGN, []))
    assert fix is not None and (fix.diff, fix.commands) == ("", "")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    foreign=st.lists(st.sampled_from(FOREIGN), unique=True),
    drift=st.lists(st.sampled_from(sorted(OWNED_DRIFT)), unique=True),
)
def test_any_mix_of_owned_drift_and_production_settings_is_remediated_safely(configs, foreign, drift):
    intended, running = configs
    check_safe(intended, production(running, foreign, drift))


# Secrets as NVUE prints them to an admin, in the clear: a snapshot saved by another tool.
CLEAR_SECRETS = [
    "nv set system aaa user ops hashed-password $6$Unmasked.Hash$abcdef",
    "nv set system aaa tacacs server 1 secret Tac4csKey9",
    "nv set system snmp-server readonly-community Sup3rS3cret access any",
]


def test_the_diff_of_a_cumulus_snapshot_saved_unmasked_prints_no_secret(tmp_path, capsys):
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(MULTI), "-o", str(snapshot)]) == 0
    slot = snapshot / LEAF / "nv_config_show_commands.txt"
    running = production(slot.read_text(), CLEAR_SECRETS, ["pfc priority"])
    slot.write_text(running)
    capsys.readouterr()
    assert main(["diff", str(MULTI), "--snapshot", str(snapshot)]) == 1
    out = capsys.readouterr().out
    assert "nv unset qos pfc netcfg-pfc-1 switch-priority 4" in out
    for secret in ("Unmasked.Hash", "Tac4csKey9", "Sup3rS3cret", "aaa", "snmp-server"):
        assert secret not in out, secret
