"""SONiC remediation against a production-style config_db (management port, loopback, BGP, NTP, syslog,
SNMP, TACACS+, VLANs, port channels, SONiC's stock QoS and buffers, an operator's port shaper and DWRR
schedulers on the fabric ports, VRFs, a management VRF, other ports): every JSON patch operation names
a field netcfg owns, and the patch applied to the running config (by jsonpatch, one operation at a
time) gives back the intent for those fields and leaves every other field as it was; and the diff of a
snapshot saved with its secrets in the clear prints none of them."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.cli import main
from netcfg.intent import device_intent
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.platforms import get_platform
from netcfg.policy import load_policy
from tests.conftest import ROOT

MULTI = ROOT / "inventories" / "lab-multi"
LEAF = "leaf-su1-r3"
SONIC = get_platform("sonic")

# Tables a production SONiC switch holds besides netcfg's QoS (secrets as masked).
FOREIGN_TABLES = {
    "MGMT_INTERFACE": {"eth0|10.0.0.13/24": {"gwaddr": "10.0.0.1"}},
    "MGMT_PORT": {"eth0": {"admin_status": "up", "alias": "eth0"}},
    "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.255.0.3/32": {}},
    "INTERFACE": {"Ethernet31": {}, "Ethernet31|10.1.0.5/31": {}},
    "BGP_NEIGHBOR": {"10.1.0.4": {"asn": "65000", "name": "spine1", "local_addr": "10.1.0.5"}},
    "NTP_SERVER": {"10.0.2.7": {}},
    "SYSLOG_SERVER": {"10.0.2.8": {}},
    "SNMP_COMMUNITY": {"<masked-1>": {"TYPE": "RO"}},
    "TACPLUS_SERVER": {"10.9.9.9": {"priority": "1", "tcp_port": "49", "passkey": "<masked>"}},
    "AAA": {"authentication": {"login": "tacacs+,local"}},
    "RADIUS_SERVER": {"10.9.9.10": {"auth_port": "1812", "passkey": "<masked>"}},
    "SNMP": {"LOCATION": {"Location": "dc1-row4"}},
    "SNMP_USER": {"ops": {"SNMP_USER_AUTH_PASSWORD": "<masked>", "SNMP_USER_PERMISSION": "RO"}},
    "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
    "VRF": {"Vrf_tenant1": {"vni": "10001"}},
    "VLAN_INTERFACE": {"Vlan10": {"vrf_name": "Vrf_tenant1"}, "Vlan10|10.10.0.1/24": {}},
    "BGP_GLOBALS": {"default": {"local_asn": "65103", "router_id": "10.255.0.3"}},
    "VLAN": {"Vlan10": {"vlanid": "10"}},
    "VLAN_MEMBER": {"Vlan10|Ethernet100": {"tagging_mode": "untagged"}},
    "PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "mtu": "9100", "min_links": "1"}},
    "FEATURE": {"lldp": {"state": "enabled"}, "bgp": {"state": "enabled"}},
    "BUFFER_QUEUE": {"Ethernet1|3": {"profile": "egress_lossless_profile"}},
}
# SONiC's stock QoS objects, and their use on a port outside the plan (Ethernet100).
STOCK_QOS = {
    "DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "26": "3", "48": "6"}},
    "SCHEDULER": {
        "scheduler.0": {"type": "DWRR", "weight": "14"},
        "scheduler.1": {"type": "DWRR", "weight": "15"},
    },
    "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "2000000"}},
    "PORT": {"Ethernet100": {"admin_status": "up", "mtu": "9100", "speed": "100000", "lanes": "100"}},
    "PORT_QOS_MAP": {"Ethernet100": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}},
    "QUEUE": {"Ethernet100|3": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}},
    "CABLE_LENGTH": {"AZURE": {"Ethernet100": "5m"}},
}
# An operator's own fields on the plan's fabric ports: a port shaper, DWRR schedulers, FEC.
FOREIGN_FIELDS = [
    ("PORT_QOS_MAP", "Ethernet1", "scheduler", "port_shaper"),
    ("QUEUE", "Ethernet1|0", "scheduler", "scheduler.0"),
    ("QUEUE", "Ethernet1|3", "scheduler", "scheduler.1"),
    ("PORT", "Ethernet2", "fec", "rs"),
    ("PORT", "Ethernet2", "admin_status", "down"),
]
# Drift of fields netcfg owns: (table, key, field, value); None removes the field.
OWNED_DRIFT = {
    "mtu": ("PORT", "Ethernet1", "mtu", "1500"),
    "description": ("PORT", "Ethernet3", "description", "old-cable"),
    "pfc": ("PORT_QOS_MAP", "Ethernet2", "pfc_enable", "3,4"),
    "stock map": ("PORT_QOS_MAP", "Ethernet4", "dscp_to_tc_map", "AZURE"),
    "dscp": ("DSCP_TO_TC_MAP", "ROCE", "26", "1"),
    "threshold": ("WRED_PROFILE", "ROCE_ECN", "green_min_threshold", "300000"),
    "no ecn": ("QUEUE", "Ethernet2|3", "wred_profile", None),
    "stray ecn": ("QUEUE", "Ethernet2|4", "wred_profile", "AZURE_LOSSLESS"),
    "not strict": ("QUEUE", "Ethernet3|6", "scheduler", "scheduler.0"),
    "watchdog": ("PFC_WD", "Ethernet4", "detection_time", "400"),
    "stray lossless": (
        "BUFFER_PG",
        "Ethernet1|4",
        "profile",
        "pg_lossless_xoff78848_xon18432_size97280_profile",
    ),
    "cable": ("CABLE_LENGTH", "AZURE", "Ethernet31", "300m"),
}


@pytest.fixture(scope="module")
def configs(tmp_path_factory) -> tuple[str, dict]:
    """The leaf's intended config and its running config_db as the simulated switch prints it."""
    fabric = load_fabric(MULTI)
    policy = load_policy(fabric.policy_ref, MULTI)
    device = fabric.devices[LEAF]
    intended = SONIC.render_config(device_intent(device, fabric, policy), device)
    snapshot = write_simulated_snapshot(fabric, policy, {}, tmp_path_factory.mktemp("sonic") / "snap")
    return intended, json.loads((snapshot / LEAF / "show_runningconfiguration_all.txt").read_text())


def production(running: dict, foreign: list[str], fields: list[int], drift: list[str], stock: bool) -> dict:
    db = copy.deepcopy(running)
    for table in foreign:
        db[table] = copy.deepcopy(FOREIGN_TABLES[table])
    if stock:
        for table, entries in STOCK_QOS.items():
            for key, value in entries.items():
                db.setdefault(table, {}).setdefault(key, {}).update(value)
    for table, key, field, value in [FOREIGN_FIELDS[i] for i in fields] + [OWNED_DRIFT[d] for d in drift]:
        entry = db.setdefault(table, {}).setdefault(key, {})
        if value is None:
            entry.pop(field, None)
        else:
            entry[field] = value
    return db


def apply(db: dict, patch: list[dict]) -> dict:
    """The document after the patch, as `config apply-patch` applies RFC 6902 to config_db: by the
    jsonpatch library, which refuses to replace or remove a member that is not there."""
    return jsonpatch.apply_patch(db, patch)


def atoms(db: dict) -> set[tuple[str, str, str, str]]:
    """Every field of every entry, and every entry without fields."""
    out = set()
    for table, entries in db.items():
        for key, fields in entries.items():
            out |= (
                {(table, key, f, json.dumps(v)) for f, v in fields.items()}
                if fields
                else {(table, key, "", "")}
            )
    return out


_PORT_QOS = {
    "dscp_to_tc_map",
    "dot1p_to_tc_map",
    "tc_to_queue_map",
    "tc_to_pg_map",
    "pfc_to_pg_map",
    "pfc_to_queue_map",
    "pfc_enable",
    "pfcwd_sw_enable",
}


def owns(atom: tuple[str, str, str, str], want: dict, profiles: dict) -> bool:
    """What netcfg renders on a SONiC switch, as the issue states it."""
    table, key, field, value = atom
    mine = want.get(table, {})
    ports = set(want["PORT"])
    if table == "DEVICE_METADATA":
        return False
    if table in ("PORT", "CABLE_LENGTH"):
        return key in mine and field in mine[key]
    if table not in ("PORT_QOS_MAP", "QUEUE", "PFC_WD", "BUFFER_PG"):
        return key in mine
    if key not in mine and not set(key.split("|")[0].split(",")) <= ports:
        return False
    if table == "PORT_QOS_MAP":
        return field in _PORT_QOS
    if table == "QUEUE" and field == "scheduler":
        return field in mine.get(key, {}) or json.loads(value) in want.get("SCHEDULER", {})
    if table == "BUFFER_PG":
        return key in mine or "xoff" in profiles.get(json.loads(value), {})
    return True


def check_safe(intended: str, running: dict) -> list[dict]:
    want = {t: e for t, e in json.loads(intended).items() if t != "DEVICE_METADATA"}
    profiles = running.get("BUFFER_PROFILE", {})
    fix = SONIC.remediate(LEAF, intended, json.dumps(running, indent=4))
    assert fix is not None
    patch = json.loads(fix.commands) if fix.commands else []
    # Each operation, one at a time: every field it adds, changes or removes is netcfg's.
    state = running
    for op in patch:
        step = apply(state, [op])
        for atom in atoms(state) ^ atoms(step):
            assert owns(atom, want, profiles), (op, atom)
        state = step
    before, after = atoms(running), atoms(state)
    assert {a for a in after if owns(a, want, profiles)} == {
        a for a in atoms(want) if owns(a, want, profiles)
    }
    assert {a for a in after if not owns(a, want, profiles)} == {
        a for a in before if not owns(a, want, profiles)
    }
    return patch


def test_a_production_sonic_leaf_gets_a_patch_only_on_netcfgs_fields(configs):
    intended, running = configs
    drift = ["mtu", "pfc", "stock map", "no ecn", "stray ecn", "not strict", "stray lossless"]
    db = production(running, sorted(FOREIGN_TABLES), list(range(len(FOREIGN_FIELDS))), drift, True)
    patch = check_safe(intended, db)
    paths = {op["path"] for op in patch}
    assert "/QUEUE/Ethernet2|4/wred_profile" in paths or "/QUEUE/Ethernet2|4" in paths
    for path in paths:
        for foreign in ("scheduler.1", "Ethernet100", "port_shaper", "Ethernet1|0", "fec", "admin_status"):
            assert foreign not in path, path
    assert not any(op["path"] == "/QUEUE/Ethernet1|3" for op in patch), patch


def test_a_sonic_leaf_as_intended_among_production_tables_needs_nothing(configs):
    intended, running = configs
    db = production(running, sorted(FOREIGN_TABLES), list(range(len(FOREIGN_FIELDS))), [], True)
    fix = SONIC.remediate(LEAF, intended, json.dumps(db, indent=4))
    assert fix is not None and (fix.diff, fix.commands) == ("", "")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    foreign=st.lists(st.sampled_from(sorted(FOREIGN_TABLES)), unique=True),
    fields=st.lists(st.sampled_from(range(len(FOREIGN_FIELDS))), unique=True),
    drift=st.lists(st.sampled_from(sorted(OWNED_DRIFT)), unique=True),
    stock=st.booleans(),
)
def test_any_mix_of_owned_drift_and_production_tables_is_patched_safely(
    configs, foreign, fields, drift, stock
):
    intended, running = configs
    check_safe(intended, production(running, foreign, fields, drift, stock))


def test_the_patch_is_the_same_in_every_run(tmp_path):
    """String hashing changes from one Python process to the next: the patch, a change record that
    operators review and diff, must not."""
    multi = MULTI
    snapshot = tmp_path / "multi"
    run = [sys.executable, "-m", "netcfg"]
    subprocess.run(
        [*run, "lab", "snapshot", str(multi), "--faults", str(multi / "faults.yaml"), "-o", str(snapshot)],
        check=True,
        capture_output=True,
    )
    outputs = {
        subprocess.run(
            [*run, "diff", str(multi), "--snapshot", str(snapshot)],
            env=os.environ | {"PYTHONHASHSEED": str(seed), "COLUMNS": "160"},
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(outputs) == 1 and '"op"' in outputs.pop()


# Secrets as a switch keeps them, in the clear: a snapshot saved by another tool, or before masking.
CLEAR_SECRETS = {
    "TACPLUS_SERVER": {"10.9.9.9": {"priority": "1", "passkey": "Tac4csKey9"}},
    "SNMP_COMMUNITY": {"Sup3rS3cret": {"TYPE": "RO"}},
    "SNMP_USER": {"ops": {"SNMP_USER_AUTH_PASSWORD": "Auth0nlyPw", "SNMP_USER_PERMISSION": "RO"}},
}


def test_the_diff_of_a_sonic_snapshot_saved_unmasked_prints_no_secret(tmp_path, capsys):
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(MULTI), "-o", str(snapshot)]) == 0
    slot = snapshot / LEAF / "show_runningconfiguration_all.txt"
    db = json.loads(slot.read_text())
    db["PORT_QOS_MAP"]["Ethernet1"]["pfc_enable"] = "3,4"
    slot.write_text(json.dumps({**db, **CLEAR_SECRETS}, indent=4))
    capsys.readouterr()
    assert main(["diff", str(MULTI), "--snapshot", str(snapshot)]) == 1
    out = capsys.readouterr().out
    assert '"path": "/PORT_QOS_MAP/Ethernet1/pfc_enable"' in out
    for secret in ("Tac4csKey9", "Sup3rS3cret", "Auth0nlyPw", "TACPLUS", "SNMP"):
        assert secret not in out, secret
