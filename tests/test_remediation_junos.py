"""Junos remediation against production-style running configs (root and user logins, TACACS+, SNMP,
NTP, the login banner, the management port, BGP, routing instances, shared buffers, an operator's own
classifiers and rewrite rules, other ports), in `display set` and in brace form: every `set`/`delete`
touches a statement netcfg renders, and the commands applied to the running config, by this file's
model of how Junos takes them, give back the intent for those statements and leave every other
statement as it was."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.intent import device_intent
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.platforms import get_platform
from netcfg.platforms.junos.syntax import read_config
from netcfg.policy import load_policy
from tests.conftest import ROOT

MULTI = ROOT / "inventories" / "lab-multi"
SPINE = "spine1"
JUNOS = get_platform("junos")

# Statements a production QFX holds besides netcfg's class of service (secrets as masked).
FOREIGN_TOP = [
    'set system root-authentication encrypted-password "<masked>"',
    'set system login user ops class super-user authentication encrypted-password "<masked>"',
    'set system login message "Authorised use only"',
    "set system services ssh root-login deny",
    'set system tacplus-server 10.9.9.9 secret "<masked>"',
    "set system authentication-order [ tacplus password ]",
    "set system ntp server 10.0.2.7",
    "set system syslog host 10.0.2.8 any notice",
    "set snmp community <masked> authorization read-only",
    "set snmp location dc1-row4",
    "set interfaces em0 unit 0 family inet address 10.0.0.11/24",
    "set interfaces lo0 unit 0 family inet address 10.255.0.1/32",
    "set interfaces et-0/0/40 description storage-array",
    "set interfaces et-0/0/40 mtu 1514",
    "set routing-instances mgmt_junos description management",
    "set routing-options router-id 10.255.0.1",
    "set protocols bgp group underlay type external",
    "set protocols bgp group underlay neighbor 10.1.0.1 peer-as 65101",
    "set protocols lldp interface all",
    "set policy-options policy-statement EXPORT-LO term 1 from interface lo0.0",
    "set class-of-service shared-buffer ingress buffer-partition lossless percent 80",
    "set class-of-service shared-buffer egress buffer-partition lossy percent 20",
    "set class-of-service classifiers dscp OPS-DSCP forwarding-class best-effort loss-priority low "
    "code-points 000000",
    "set class-of-service rewrite-rules dscp OPS-RW forwarding-class best-effort loss-priority low "
    "code-point 000000",
    "set class-of-service interfaces et-0/0/40 scheduler-map OPS",
]
# An operator's own statements on one of the plan's fabric ports.
FOREIGN_PORT = [
    "set interfaces et-0/0/1 unit 0 family inet address 10.1.0.0/31",
    "set interfaces et-0/0/1 ether-options 802.3ad ae0",
    "set interfaces et-0/0/1 gigether-options fec fec91",
    "set class-of-service interfaces et-0/0/1 unit 0 rewrite-rules dscp OPS-RW",
]

# Changes to statements netcfg owns, each an edit of the `display set` text.
OWNED_EDITS = {
    "mtu": ("set interfaces et-0/0/2 mtu 9214", "set interfaces et-0/0/2 mtu 1514"),
    "description": ("et-0/0/3 description leaf-su1-r3:Ethernet31", "et-0/0/3 description old-cable"),
    "host name": ("host-name spine1", "host-name spine1-old"),
    "pfc priority": ("no-loss pfc-priority 3", "no-loss pfc-priority 4"),
    "queue": ("class NO-LOSS queue-num 3", "class NO-LOSS queue-num 4"),
    "code point": (
        "forwarding-class NO-LOSS loss-priority low code-points 011010",
        "forwarding-class NO-LOSS loss-priority low code-points 011011",
    ),
    "fill level": ("interpolate fill-level 50", "interpolate fill-level 60"),
    "scheduler map": ("et-0/0/5 scheduler-map ROCE", "et-0/0/5 scheduler-map OPS"),
    "no cnp": ("set class-of-service interfaces et-0/0/6 congestion-notification-profile ROCE-30M\n", ""),
    "no classifier": ("set class-of-service interfaces et-0/0/7 unit * classifiers dscp ROCE-DSCP\n", ""),
    "cable length": ("input cable-length 30", "input cable-length 100"),
    "watchdog": ("pfc-watchdog detection 2", "pfc-watchdog detection 5"),
    "stale scheduler": (
        "set class-of-service schedulers ROCE-S-STRICT priority strict-high\n",
        "set class-of-service schedulers ROCE-S-STRICT priority strict-high\n"
        "set class-of-service schedulers ROCE-S-OLD priority high\n",
    ),
    "no ecn": ("set class-of-service schedulers ROCE-S-ECN-5-50-100 explicit-congestion-notification\n", ""),
}


@pytest.fixture(scope="module")
def configs(tmp_path_factory) -> tuple[str, str]:
    """The spine's intended config and its running config as the simulated switch prints it."""
    fabric = load_fabric(MULTI)
    policy = load_policy(fabric.policy_ref, MULTI)
    device = fabric.devices[SPINE]
    intended = JUNOS.render_config(device_intent(device, fabric, policy), device)
    snapshot = write_simulated_snapshot(fabric, policy, {}, tmp_path_factory.mktemp("junos") / "snap")
    return intended, (snapshot / SPINE / "show_configuration_display_set.txt").read_text()


def production(running: str, foreign: list[str], port: list[str], edits: list[str]) -> str:
    for name in edits:
        old, new = OWNED_EDITS[name]
        assert old in running, name
        running = running.replace(old, new, 1)
    head, _, tail = running.partition("set interfaces et-0/0/1 mtu 9214\n")
    lines = [*foreign, *port]
    return head + "set interfaces et-0/0/1 mtu 9214\n" + "".join(f"{line}\n" for line in lines) + tail


# --- a model of how Junos takes `set` and `delete` -------------------------------------------------

# Statements Junos holds one value of: a `set` of another value replaces it. Everything else (code
# points, fill levels, a forwarding class's scheduler by class) adds a value.
_SINGLE = {
    "host-name",
    "mtu",
    "description",
    "pfc-priority",
    "congestion-notification-profile",
    "scheduler-map",
    "scheduler",
    "priority",
    "cable-length",
    "poll-interval",
    "detection",
    "recovery",
    "drop-profile",
}


def single(path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The statement a path's value belongs to, where it takes one value."""
    if len(path) < 2:
        return None
    if path[-2] in _SINGLE or ("unit" in path and path[-3:-1] == ("classifiers", "dscp")):
        return path[:-1]
    return None


def paths(text: str) -> set[tuple[str, ...]]:
    return {s.path for s in read_config(text).statements}


def words(line: str) -> list[str]:
    return shlex.split(line)


def apply(running: str, commands: str) -> set[tuple[str, ...]]:
    """The running config's statements after the commands: `delete P` removes P and all below it (it
    must name a statement there: Junos warns and does nothing otherwise), `set P` adds P, replacing
    the value of a statement that takes one."""
    config = paths(running)
    for line in commands.splitlines():
        verb, *rest = words(line)
        path = tuple(rest)
        if verb == "delete":
            gone = {p for p in config if p[: len(path)] == path}
            assert gone, f"{line!r}: statement not found"
            config -= gone
        else:
            assert verb == "set", line
            owner = single(path)
            if owner is not None:
                config = {p for p in config if p[: len(owner)] != owner or p == path}
            config.add(path)
    return config


_OWN_NAMES = ("ROCE", "NO-LOSS", "CNP")
_OBJECTS = {
    "forwarding-classes": 3,
    "classifiers": 3,
    "drop-profiles": 2,
    "schedulers": 2,
    "scheduler-maps": 2,
    "congestion-notification-profile": 2,
}


def owns(path: tuple[str, ...], ports: set[str]) -> bool:
    """What netcfg renders on a Junos switch, as the issue states it: the host name, the plan's ports'
    MTU and description, their class-of-service bindings and classifier, and the class-of-service
    objects netcfg names."""
    if path[:2] == ("system", "host-name"):
        return True
    if path[0] == "interfaces":
        return len(path) > 2 and path[1] in ports and path[2] in ("mtu", "description")
    if path[:2] == ("class-of-service", "interfaces"):
        if len(path) < 4 or path[2] not in ports:
            return False
        binding = path[3] in ("congestion-notification-profile", "scheduler-map")
        return binding or (path[3] == "unit" and path[5:6] == ("classifiers",))
    if path[0] == "class-of-service" and len(path) > 1 and path[1] in _OBJECTS:
        at = _OBJECTS[path[1]]
        return len(path) > at and path[at].startswith(_OWN_NAMES)
    return False


def check_safe(intended: str, running: str) -> list[str]:
    ports = {p[1] for p in paths(intended) if p[0] == "interfaces"}
    fix = JUNOS.remediate(SPINE, intended, running)
    assert fix is not None
    commands = fix.commands.splitlines()
    for line in commands:
        assert owns(tuple(words(line)[1:]), ports), line
    before, after, want = paths(running), apply(running, fix.commands), paths(intended)
    assert {p for p in after if owns(p, ports)} == {p for p in want if owns(p, ports)}
    assert {p for p in after if not owns(p, ports)} == {p for p in before if not owns(p, ports)}
    return commands


def test_a_production_qfx_gets_only_commands_on_netcfgs_statements(configs):
    intended, running = configs
    edits = ["mtu", "pfc priority", "code point", "scheduler map", "no classifier", "stale scheduler"]
    commands = check_safe(intended, production(running, FOREIGN_TOP, FOREIGN_PORT, edits))
    for foreign in (
        "OPS-RW",
        "ether-options",
        "address",
        "bgp",
        "login",
        "snmp",
        "shared-buffer",
        "OPS-DSCP",
    ):
        assert not any(foreign in c for c in commands), (foreign, commands)
    assert "delete class-of-service schedulers ROCE-S-OLD priority high" in commands
    assert "set class-of-service interfaces et-0/0/5 scheduler-map ROCE" in commands


def test_a_qfx_as_intended_among_production_statements_needs_nothing(configs):
    intended, running = configs
    fix = JUNOS.remediate(SPINE, intended, production(running, FOREIGN_TOP, FOREIGN_PORT, []))
    assert fix is not None and (fix.diff, fix.commands) == ("", "")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    foreign=st.lists(st.sampled_from(FOREIGN_TOP), unique=True),
    port=st.lists(st.sampled_from(FOREIGN_PORT), unique=True),
    edits=st.lists(st.sampled_from(sorted(OWNED_EDITS)), unique=True),
)
def test_any_mix_of_owned_drift_and_production_statements_is_remediated_safely(configs, foreign, port, edits):
    intended, running = configs
    check_safe(intended, production(running, foreign, port, edits))


# The same production switch as `show configuration` prints it: braces, lists in brackets.
BRACE_RUNNING = """## Last commit: 2025-06-03 09:12:44 UTC by ops
version 23.4R2-S3.5-EVO;
system {
    host-name spine1;
    root-authentication {
        encrypted-password "<masked>"; ## SECRET-DATA
    }
    login {
        message "Authorised use only";
        user ops {
            class super-user;
            authentication {
                encrypted-password "<masked>"; ## SECRET-DATA
            }
        }
    }
    services {
        ssh {
            root-login deny;
        }
    }
}
interfaces {
    et-0/0/1 {
        description leaf-su1-r1:Ethernet31;
        mtu 1514;
        unit 0 {
            family inet {
                address 10.1.0.0/31;
            }
        }
    }
    em0 {
        unit 0 {
            family inet {
                address 10.0.0.11/24;
            }
        }
    }
}
snmp {
    community "<masked>" {
        authorization read-only;
    }
}
class-of-service {
    classifiers {
        dscp ROCE-DSCP {
            forwarding-class NO-LOSS {
                loss-priority low code-points [ 011010 011011 ];
            }
        }
        dscp OPS-DSCP {
            forwarding-class best-effort {
                loss-priority low code-points 000000;
            }
        }
    }
    drop-profiles {
        ROCE-ECN-5-50-100 {
            interpolate {
                fill-level [ 5 50 ];
                drop-probability [ 0 100 ];
            }
        }
    }
    forwarding-classes {
        class NO-LOSS queue-num 3 no-loss pfc-priority 4;
    }
    interfaces {
        et-0/0/1 {
            scheduler-map OPS;
            unit 0 {
                rewrite-rules {
                    dscp OPS-RW;
                }
            }
        }
    }
}
protocols {
    bgp {
        group underlay {
            type external;
            neighbor 10.1.0.1 {
                peer-as 65101;
            }
        }
    }
}
"""


def test_a_brace_form_running_config_is_remediated_as_its_set_form(configs):
    intended, _ = configs
    set_form = "".join(
        "set " + " ".join(shlex.quote(w) if " " in w else w for w in s.path) + "\n"
        for s in read_config(BRACE_RUNNING).statements
    )
    point = "classifiers dscp ROCE-DSCP forwarding-class NO-LOSS loss-priority low code-points 011011"
    assert f"set class-of-service {point}\n" in set_form
    from_braces = JUNOS.remediate(SPINE, intended, BRACE_RUNNING)
    assert from_braces is not None
    assert from_braces.commands == JUNOS.remediate(SPINE, intended, set_form).commands
    commands = check_safe(intended, set_form)
    assert f"delete class-of-service {point}" in commands
    assert not any("OPS" in c and "scheduler-map" not in c for c in commands), commands
