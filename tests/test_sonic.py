"""SONiC switches: config_db rendered and read back (files, snapshots, live outputs), the stock AZURE
traps named, secrets masked, remediation as a JSON patch, and the round trip over the QoS chain."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
from pathlib import Path

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.checks.catalogue import RULES
from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.headroom import headroom
from netcfg.intent import device_intent, fabric_intent
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, apply_faults, live_states
from netcfg.lab.fabric import read_only_responder, shell_responder
from netcfg.model import DeviceState, Fabric, PgBuffer, Watchdog
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy, load_policy
from netcfg.sources import intent_states
from tests.test_roundtrip import ECN, SETTINGS, damaged, fabrics, policies

FIXTURES = Path(__file__).parent / "fixtures" / "sonic"
INVENTORY = FIXTURES / "inventory"
STOCK = FIXTURES / "config_db_stock_leaf.json"
sonic = get_platform("sonic")
FABRIC_PORTS = ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4", "Ethernet31", "Ethernet32"]
HOST_PORTS, SPINE_PORTS = FABRIC_PORTS[:4], FABRIC_PORTS[4:]
SECRETS = [
    "bgp-Sp1ne-s3cret",
    "rad1us-K3y-9",
    "n0c-R34d0nly",
    "snmpAuth-P4ss",
    "snmpPriv-P4ss",
    "t4cacs-Gl0bal-key",
    "t4cacs-Srv-key",
]


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return load_fabric(INVENTORY)


@pytest.fixture(scope="module")
def policy(fabric: Fabric) -> Policy:
    return load_policy(fabric.policy_ref)


def leaf(fabric: Fabric):
    return fabric.devices["leaf-su1-r1"]


def rendered(fabric: Fabric, policy: Policy, name: str = "leaf-su1-r1") -> dict:
    device = fabric.devices[name]
    return json.loads(sonic.render_config(device_intent(device, fabric, policy), device))


def line_after(path: Path, *anchors: str) -> int:
    """The line of the last anchor, each searched after the one before (JSON keys repeat per table)."""
    lines, at = path.read_text().splitlines(), 0
    for anchor in anchors:
        at = next(i for i in range(at, len(lines)) if lines[i].strip().startswith(anchor))
    return at + 1


# --- render -------------------------------------------------------------------------------------


def test_render_writes_the_qos_chain_as_sorted_config_db_json(fabric, policy):
    device = leaf(fabric)
    text = sonic.render_config(device_intent(device, fabric, policy), device)
    doc = json.loads(text)
    assert text == sonic.render_config(device_intent(device, fabric, policy), device)
    assert list(doc) == sorted(doc) and list(doc["PORT_QOS_MAP"]) == sorted(doc["PORT_QOS_MAP"])
    assert '        "Ethernet1": {"description": "gpu01:eth0", "mtu": "9214"},' in text.splitlines()
    identity = {str(i): str(i) for i in range(8)}
    assert doc["DSCP_TO_TC_MAP"] == {"ROCE": {"26": "3", "48": "6"}}
    assert doc["TC_TO_QUEUE_MAP"] == doc["TC_TO_PRIORITY_GROUP_MAP"] == {"ROCE": identity}
    assert doc["MAP_PFC_PRIORITY_TO_QUEUE"] == doc["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] == {"ROCE": identity}
    assert doc["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "ROCE"}
    for port in FABRIC_PORTS:
        assert doc["PORT_QOS_MAP"][port] == {
            "dscp_to_tc_map": "ROCE",
            "tc_to_queue_map": "ROCE",
            "tc_to_pg_map": "ROCE",
            "pfc_to_pg_map": "ROCE",
            "pfc_to_queue_map": "ROCE",
            "pfc_enable": "3",
            "pfcwd_sw_enable": "3",
        }
        assert doc["QUEUE"][f"{port}|3"] == {"wred_profile": "ROCE_ECN"}
        assert doc["QUEUE"][f"{port}|6"] == {"scheduler": "ROCE_STRICT"}
        assert doc["PFC_WD"][port] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}
        assert doc["PORT"][port]["mtu"] == "9214"
    assert doc["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "100"}
    assert doc["SCHEDULER"] == {"ROCE_STRICT": {"type": "STRICT"}}
    wred = doc["WRED_PROFILE"]["ROCE_ECN"]
    assert (wred["ecn"], wred["wred_green_enable"]) == ("ecn_all", "true")
    assert (wred["green_min_threshold"], wred["green_max_threshold"], wred["green_drop_probability"]) == (
        "150000",
        "1500000",
        "100",
    )
    # Headroom from the plan: 400 Gb/s over 3 m to the hosts, 30 m to the spines; xon on top.
    for ports, cable in ((HOST_PORTS, 3), (SPINE_PORTS, 30)):
        need = headroom(400, cable, 9214).bytes
        for port in ports:
            profile = doc["BUFFER_PROFILE"][doc["BUFFER_PG"][f"{port}|3"]["profile"]]
            assert profile == {
                "pool": "ingress_lossless_pool",
                "dynamic_th": "0",
                "xoff": str(need),
                "xon": "18432",
                "size": str(need + 18432),
            }
            assert doc["CABLE_LENGTH"]["AZURE"][port] == f"{cable}m"


def test_lossy_mode_renders_no_pfc_watchdog_or_headroom_and_keeps_ecn(fabric):
    lossy = Policy.model_validate({"name": "lossy", "mode": "lossy"})
    doc = rendered(fabric, lossy)
    assert {
        (doc["PORT_QOS_MAP"][p]["pfc_enable"], doc["PORT_QOS_MAP"][p]["pfcwd_sw_enable"])
        for p in FABRIC_PORTS
    } == {("", "")}
    assert not {"PFC_WD", "BUFFER_PG", "BUFFER_PROFILE"} & set(doc)
    assert doc["QUEUE"]["Ethernet1|3"] == {"wred_profile": "ROCE_ECN"}
    assert run_checks(fabric, lossy, intent_states(fabric, lossy)) == []


def test_render_then_check_configs_through_the_cli_is_clean(tmp_path, capsys):
    configs = tmp_path / "configs"
    assert main(["render", str(INVENTORY), "-o", str(configs)]) == 0
    names = {p.name for p in configs.iterdir()}
    assert {"leaf-su1-r1.json", "spine2.json", "gpu01.sh"} <= names
    capsys.readouterr()
    assert main(["check", str(INVENTORY), "--configs", str(configs), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


# --- parse: a stock config_db.json in a repository ---------------------------------------------


def test_stock_config_db_reads_as_the_azure_chain(fabric):
    state = sonic.parse_config(STOCK.read_text(), leaf(fabric))
    assert state.unparsed == {}
    assert state.qos_names == {
        "dscp_to_tc_map": "AZURE",
        "tc_to_queue_map": "AZURE",
        "tc_to_pg_map": "AZURE",
        "pfc_to_pg_map": "AZURE",
        "pfc_to_queue_map": "AZURE",
        "wred_profile": "AZURE_LOSSLESS",
    }
    assert state.chain(26).traffic_class == 1 and state.chain(26).priority_group == 0
    assert (state.dscp_map[3], state.dscp_map[4], state.dscp_map[48], state.dscp_map[0]) == (3, 4, 6, 1)
    assert state.tc_queue == {} and state.tc_pfc == {}
    assert state.tc_pg == {1: 0, 2: 0, 5: 0, 6: 0}
    assert state.watchdog == Watchdog(True, "drop", 200, 200, 200)
    short_host = PgBuffer(size=56320, xoff=37888, xon=18432)
    for port in FABRIC_PORTS:
        p = state.interfaces[port]
        assert (p.trust, p.pfc_enabled, p.no_drop_priorities, p.mtu) == (
            "dscp",
            True,
            frozenset({3, 4}),
            9100,
        )
        assert set(p.ecn) == {3, 4} and p.ecn[3].min_bytes == 1_048_576 and p.ecn[3].probability == 5
        assert p.strict_queues == frozenset() and p.dscp_map is None
        assert p.watchdog is (port != "Ethernet32")
        # PG 0 is the lossy profile SONiC's template gives every port: not a lossless buffer.
        assert set(p.pg_buffers) == {3, 4}
    assert state.interfaces["Ethernet1"].pg_buffers[3] == short_host
    assert [state.interfaces[p].cable_m for p in FABRIC_PORTS] == [5, 5, 5, 5, 40, 40]
    spare = state.interfaces["Ethernet60"]
    assert (spare.trust, spare.pfc_enabled, spare.watchdog, spare.pg_buffers) == ("none", False, False, {})


def test_stock_config_findings_name_the_traps_at_their_lines(tmp_path, capsys):
    configs = tmp_path / "configs"
    assert main(["render", str(INVENTORY), "-o", str(configs)]) == 0
    shutil.copy(STOCK, configs / "leaf-su1-r1.json")
    capsys.readouterr()
    assert main(["check", str(INVENTORY), "--configs", str(configs), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["device"] for f in findings} == {"leaf-su1-r1"}
    at = {(f["rule"], f["interface"]): (f["file"], f["line"], f["message"]) for f in findings}
    path = configs / "leaf-su1-r1.json"
    assert at[("sonic.azure_dscp_map", None)][:2] == (
        str(path),
        line_after(path, '"DSCP_TO_TC_MAP"', '"AZURE"'),
    )
    assert "DSCP_TO_TC_MAP|AZURE" in at[("sonic.azure_dscp_map", None)][2]
    assert at[("sonic.pfcwd_coverage", "Ethernet32")][1] == line_after(path, '"PFC_WD"', '"GLOBAL"')
    assert at[("pfc.no_drop_priorities", "Ethernet1-4,31-32")][1] == line_after(
        path, '"PORT_QOS_MAP"', '"Ethernet1"', '"pfc_enable"'
    )
    assert at[("mtu.switch", "Ethernet1-4,31-32")][1] == line_after(path, '"PORT"', '"Ethernet1"', '"mtu"')
    # RoCE rides TC 1 and queue 1 on the stock maps, where the stock QUEUE table binds no ECN.
    assert "queue 1, which RoCE DSCP 26 rides" in at[("ecn.enabled", "Ethernet1-4,31-32")][2]
    assert "(the platform default)" in at[("pfc.cable_length", "Ethernet1-4")][2]
    assert {r for r, _ in at} == {
        "sonic.azure_dscp_map",
        "sonic.pfcwd_coverage",
        "qos.dscp_map",
        "pfc.no_drop_priorities",
        "pfc.watchdog",
        "pfc.headroom",
        "pfc.cable_length",
        "ecn.enabled",
        "cnp.strict_queue",
        "mtu.switch",
        "link.dscp_mismatch",
        "link.pfc_mismatch",
        "link.mtu_mismatch",
        "rail.qos_consistency",
        "lossless.path",
    }
    # The path finding points where the first broken port sends RoCE elsewhere: its DSCP map binding.
    assert at[("lossless.path", "Ethernet1-4,31-32")][1] == line_after(
        path, '"PORT_QOS_MAP"', '"Ethernet1"', '"dscp_to_tc_map"'
    )


# What SONiC's own tools print on stdout before the document on some releases and platforms.
WARNINGS = (
    "WARNING: sonic-cfggen: the -d/--from-db option will be removed in a future release\n"
    "Warning: platform.json not found, using defaults\n"
)


def test_warning_lines_before_the_json_are_read_past_and_lines_still_point_into_the_file(fabric):
    """`show runningconfiguration all` output opened by warning lines reads as the bare document, and
    every finding's line is still the line of the file as saved (the warnings counted)."""
    plain = sonic.parse_config(STOCK.read_text(), leaf(fabric))
    warned = sonic.parse_config(WARNINGS + STOCK.read_text(), leaf(fabric))
    assert warned.unparsed == {}
    assert dataclasses.replace(warned, locations={}) == dataclasses.replace(plain, locations={})
    # The device's own location ('') is the file's first line either way.
    shifted = {k: v + 2 for k, v in plain.locations.items() if k}
    assert shifted == {k: v for k, v in warned.locations.items() if k} and len(shifted) > 50
    assert sonic.not_running_config(WARNINGS + STOCK.read_text()) is None
    assert sonic.not_running_config("Warning: no config\nnothing else\n") is not None


def test_a_buffer_profile_short_of_the_plans_headroom_is_named_with_both_figures(
    tmp_path, capsys, fabric, policy
):
    configs = tmp_path / "configs"
    assert main(["render", str(INVENTORY), "-o", str(configs)]) == 0
    doc = rendered(fabric, policy)
    spine_profile = doc["BUFFER_PG"]["Ethernet31|3"]["profile"]
    doc["BUFFER_PROFILE"][spine_profile]["xoff"] = "37888"  # a 5 m profile on a 30 m cable
    (configs / "leaf-su1-r1.json").write_text(json.dumps(doc, indent=4, sort_keys=True))
    capsys.readouterr()
    assert main(["check", str(INVENTORY), "--configs", str(configs), "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    need = headroom(400, 30, 9214).bytes
    assert (finding["rule"], finding["interface"]) == ("pfc.headroom", "Ethernet31-32")
    assert "37,888 B" in finding["message"] and f"{need:,} B" in finding["message"]


def test_flat_redis_dumps_read_as_the_nested_document(fabric):
    nested = json.loads(STOCK.read_text())
    flat = {f"{t}|{k}": fields for t, entries in nested.items() for k, fields in entries.items()}
    device = leaf(fabric)
    assert sonic.parse_config(json.dumps(flat, indent=4), device) == sonic.parse_config(
        STOCK.read_text(), device
    )


def test_old_style_references_and_port_lists_read_as_names(fabric):
    doc = json.loads(STOCK.read_text())
    doc["QUEUE"] = {
        "Ethernet1,Ethernet2|3-4": {
            "scheduler": "[SCHEDULER|scheduler.1]",
            "wred_profile": "[WRED_PROFILE|AZURE_LOSSLESS]",
        }
    }
    doc["SCHEDULER"]["strict"] = {"type": "STRICT"}
    doc["QUEUE"]["Ethernet1|6"] = {"scheduler": "[SCHEDULER|strict]"}
    state = sonic.parse_config(json.dumps(doc), leaf(fabric))
    assert set(state.interfaces["Ethernet1"].ecn) == set(state.interfaces["Ethernet2"].ecn) == {3, 4}
    assert state.interfaces["Ethernet1"].strict_queues == frozenset({6})
    assert state.interfaces["Ethernet3"].ecn == {}


@pytest.mark.parametrize(
    ("content", "line", "expected"),
    [
        ("interface Ethernet1\n   mtu 9214\n", 1, "not JSON"),
        ('{\n    "links": []\n}\n', 2, "is not a config_db table"),
        ("[1, 2]\n", 1, "not an object of config_db tables"),
        (
            '{\n  "PORT_QOS_MAP": {\n    "Ethernet1": {\n      "pfc_enable": 3\n    }\n  }\n}\n',
            4,
            "expected a string",
        ),
        (
            '{\n  "PORT_QOS_MAP": {\n    "Ethernet1": {\n      "pfc_enable": "3,x"\n    }\n  }\n}\n',
            4,
            "whole number",
        ),
        ('{\n  "CABLE_LENGTH": {\n    "AZURE": {\n      "Ethernet1": "3 feet"\n    }\n  }\n}\n', 4, "metres"),
        ('{"PORT": {"Ethernet1": ' * 2000 + "}", 1, "nested too deeply"),
    ],
)
def test_a_file_that_is_not_a_readable_config_db_is_one_error_naming_file_and_line(
    tmp_path, capsys, content, line, expected
):
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "leaf-su1-r1.json").write_text(content)
    assert main(["check", str(INVENTORY), "--configs", str(configs)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"leaf-su1-r1.json:{line}:" in err and expected in err


# --- parse: live outputs ------------------------------------------------------------------------


def outputs(**changes: str) -> dict[str, str]:
    """A stock leaf's outputs, each command's from its fixture (the config from config_db_stock_leaf)."""
    files = {c.file: (FIXTURES / f"{c.file}.txt") for c in sonic.commands(None)}
    files["show_runningconfiguration_all"] = STOCK
    return {file: path.read_text() for file, path in files.items()} | changes


def test_live_outputs_read_version_lldp_and_what_runs(fabric):
    state = sonic.parse_outputs(outputs(), leaf(fabric))
    assert (state.unparsed, state.not_operational) == ({}, {})
    assert state.facets == frozenset({"qos", "version", "lldp", "link", "counters"})
    assert (state.os_version, state.model) == ("202405.12-3f2b1a9c", "ACS-SN5600")
    seen = {n.local_interface: (n.system_name, n.port) for n in state.lldp}
    assert seen["Ethernet1"] == ("gpu01", "eth0") and seen["Ethernet32"] == ("spine2", "Ethernet1")
    assert seen["eth0"] == ("oob-mgmt-sw-07", "GigabitEthernet 0/7")
    link = {n: dataclasses.replace(p, oper_up=None, speed_gbps=None) for n, p in state.interfaces.items()}
    assert link == sonic.parse_config(STOCK.read_text(), leaf(fabric)).interfaces


def test_a_watchdog_or_mtu_set_but_not_running_is_applied_vs_operational(fabric):
    pfcwd = (FIXTURES / "pfcwd_show_config.txt").read_text()
    status = (FIXTURES / "show_interfaces_status.txt").read_text()
    changed = outputs(
        pfcwd_show_config="".join(row for row in pfcwd.splitlines(True) if "Ethernet31" not in row),
        show_interfaces_status=status.replace("400G   9100     rs     etp2", "400G   1500     rs     etp2"),
    )
    state = sonic.parse_outputs(changed, leaf(fabric))
    assert state.not_operational == {
        "Ethernet31.watchdog": ("drop 200/200 ms", "off"),
        "Ethernet2.mtu": ("9100", "1500"),
    }


def test_unreadable_outputs_are_reported_once_and_drop_what_they_carry(fabric):
    cut = STOCK.read_text()[:5000]
    state = sonic.parse_outputs(
        outputs(show_runningconfiguration_all=cut, show_version="Permission denied\n", show_lldp_table="x\n"),
        leaf(fabric),
    )
    assert state.facets == frozenset()
    assert set(state.unparsed) == {"show runningconfiguration all", "show version", "show lldp table"}
    assert state.unparsed["show runningconfiguration all"].startswith("line ")
    assert state.interfaces == {} and state.lldp == []
    findings = run_checks(load_fabric(INVENTORY), load_policy("roce-lossless"), {"leaf-su1-r1": state})
    assert {f.rule for f in findings if f.device == "leaf-su1-r1"} == {"parse.unknown_output"}


# --- secrets ------------------------------------------------------------------------------------


def test_config_db_secrets_are_masked_and_the_config_still_reads_the_same(fabric):
    text = STOCK.read_text()
    masked = sonic.mask_secrets(text)
    for secret in SECRETS:
        assert secret in text and secret not in masked
    assert masked.count("<masked>") == 7 and '"<masked-1>"' in masked
    assert len(masked.splitlines()) == len(text.splitlines())
    assert sonic.parse_config(masked, leaf(fabric)) == sonic.parse_config(text, leaf(fabric))
    assert sonic.mask_secrets(masked) == masked
    flat = {f"{t}|{k}": v for t, entries in json.loads(text).items() for k, v in entries.items()}
    flat["USER|admin"] = {"password": "$6$rounds=656000$adm1nHash"}
    flat_masked = sonic.mask_secrets(json.dumps(flat, indent=4))
    assert '"SNMP_COMMUNITY|<masked-1>"' in flat_masked
    assert not [s for s in [*SECRETS, "adm1nHash"] if s in flat_masked]
    # A config cut short is masked as far as it goes.
    cut = text[: text.index("t4cacs-Gl0bal-key") + 40]
    assert "t4cacs-Gl0bal-key" not in sonic.mask_secrets(cut)


# --- remediation --------------------------------------------------------------------------------


def test_json_patch_from_the_stock_config_restores_intent_and_touches_nothing_else(fabric, policy):
    device = leaf(fabric)
    intended = sonic.render_config(device_intent(device, fabric, policy), device)
    running = STOCK.read_text()
    fix = sonic.remediate(device.name, intended, running)
    patch = json.loads(fix.commands)
    assert {op["op"] for op in patch} <= {"add", "remove", "replace", "move", "copy"}
    assert "-" in fix.diff and "+" in fix.diff
    before = json.loads(running)
    after = jsonpatch.apply_patch(copy.deepcopy(before), patch)
    want, got = sonic.parse_config(intended, device), sonic.parse_config(json.dumps(after), device)
    assert {p: got.interfaces[p] for p in FABRIC_PORTS} == {p: want.interfaces[p] for p in FABRIC_PORTS}
    assert (got.dscp_map, got.tc_queue, got.tc_pg, got.tc_pfc, got.watchdog, got.qos_names) == (
        want.dscp_map,
        want.tc_queue,
        want.tc_pg,
        want.tc_pfc,
        want.watchdog,
        {},
    )
    # Not netcfg's: other tables, the spare port, the stock maps (now unbound), lossy PG 0, lanes.
    for table in ("TACPLUS", "BGP_NEIGHBOR", "BUFFER_POOL", "BUFFER_QUEUE", "DEVICE_METADATA", "AAA"):
        assert after[table] == before[table]
    assert after["DSCP_TO_TC_MAP"]["AZURE"] == before["DSCP_TO_TC_MAP"]["AZURE"]
    assert after["BUFFER_PG"]["Ethernet1|0"] == {"profile": "ingress_lossy_profile"}
    assert after["PORT"]["Ethernet1"]["lanes"] == before["PORT"]["Ethernet1"]["lanes"]
    assert after["PORT"]["Ethernet60"] == before["PORT"]["Ethernet60"]
    assert after["CABLE_LENGTH"]["AZURE"]["Ethernet60"] == "5m"
    assert sonic.remediate(device.name, intended, json.dumps(after, indent=4)).commands == ""


def test_netcfg_diff_prints_a_json_patch_for_the_stock_leaf_only(tmp_path, capsys):
    faults = tmp_path / "faults.yaml"
    faults.write_text("devices:\n  leaf-su2-r3: {factory_qos: true}\n")
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(INVENTORY), "--faults", str(faults), "-o", str(snapshot)]) == 0
    capsys.readouterr()
    assert main(["diff", str(INVENTORY), "--snapshot", str(snapshot)]) == 1
    out = capsys.readouterr().out
    assert "leaf-su2-r3" in out and "leaf-su1-r1" not in out and "1 switch(es) differ" in out
    patch = json.loads(out[out.index("[\n") : out.rindex("]") + 1])
    ops = {(op["op"], op["path"]) for op in patch}
    assert ("replace", "/PORT_QOS_MAP/Ethernet1/pfc_enable") in ops
    assert ("add", "/DSCP_TO_TC_MAP/ROCE") in ops


def test_unreadable_running_config_is_an_input_error(fabric, policy):
    device = leaf(fabric)
    intended = sonic.render_config(device_intent(device, fabric, policy), device)
    with pytest.raises(Exception, match=r"show runningconfiguration all:1: not JSON"):
        sonic.remediate(device.name, intended, "% garbage\n")


# --- the lab's SONiC switches -------------------------------------------------------------------


def test_stock_azure_state_renders_and_reads_back_with_its_names(fabric, policy):
    live = live_states(fabric, policy)["leaf-su1-r1"]
    stock = apply_faults(live, DeviceFaults(factory_qos=True), leaf(fabric))
    outputs_by_cli = simulator(sonic.name).render_outputs(stock, leaf(fabric))
    files = {c.file: outputs_by_cli[c.cli] for c in sonic.commands(leaf(fabric))}
    assert sonic.parse_outputs(files, leaf(fabric)) == stock
    assert '"AZURE": {' in files["show_runningconfiguration_all"]
    assert stock.qos_names["dscp_to_tc_map"] == "AZURE"


def test_collection_is_read_only_and_the_lab_refuses_anything_else(fabric, policy):
    device = leaf(fabric)
    for cli in [c.cli for c in sonic.commands(device)] + [b.cli for b in sonic.batches(device)]:
        assert is_read_only(sonic, cli), cli
    replies = simulator(sonic.name).render_outputs(live_states(fabric, policy)[device.name], device)
    respond = read_only_responder(simulator(sonic.name), shell_responder(replies))
    (batch,) = sonic.batches(device)
    assert set(batch.split(respond(batch.cli))) == {c.file for c in sonic.commands(device)}
    for write in (
        "sudo config qos reload",
        "config apply-patch p.json",
        "show runningconfiguration all; reboot",
    ):
        assert respond(write) is None


def test_sonic_rules_are_listed_with_their_docs(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule_id in ("sonic.azure_dscp_map", "sonic.pfcwd_coverage"):
        assert rule_id in out and RULES[rule_id].platforms == frozenset({"sonic"}) and RULES[rule_id].doc


# --- round trip over the QoS chain --------------------------------------------------------------


def sonic_fabric(fabric: Fabric) -> Fabric:
    for device in fabric.devices.values():
        if device.is_switch:
            device.platform = "sonic"
    return fabric


def drift(state: DeviceState, data: st.DataObject, lossless: bool) -> DeviceState:
    """Random drift of everything config_db holds: per-port maps, PFC, ECN, strict queues, watchdog,
    buffers, cable lengths, and the chain (classes on other queues, groups and PFC priorities)."""
    device_map = data.draw(st.dictionaries(st.integers(0, 63), st.integers(0, 7), min_size=1, max_size=6))
    ports = {}
    names = sorted(state.interfaces)
    guarded = data.draw(st.sampled_from(names)) if lossless else None
    for name, port in state.interfaces.items():
        trust = data.draw(st.sampled_from(["dscp", "dscp", "cos"]))
        own_map = data.draw(st.none() | st.dictionaries(st.integers(0, 63), st.integers(0, 7), min_size=1))
        no_drop = frozenset(data.draw(st.sets(st.integers(0, 7), max_size=2)))
        buffers = data.draw(
            st.dictionaries(
                st.integers(0, 7),
                st.builds(
                    PgBuffer,
                    st.none() | st.integers(0, 10**6),
                    st.integers(0, 10**6),
                    st.none() | st.integers(0, 10**5),
                ),
                max_size=2,
            )
        )
        ports[name] = dataclasses.replace(
            port,
            mtu=data.draw(st.sampled_from([port.mtu, 1500, 9216])),
            trust=trust,
            dscp_map=own_map if trust == "dscp" and own_map != device_map else None,
            no_drop_priorities=no_drop,
            pfc_enabled=bool(no_drop),
            ecn=data.draw(st.dictionaries(st.integers(0, 7), ECN, max_size=2)),
            strict_queues=frozenset(data.draw(st.sets(st.integers(0, 7), max_size=2))),
            watchdog=lossless and (name == guarded or data.draw(st.booleans())),
            cable_m=data.draw(st.none() | st.integers(1, 2000)),
            pg_buffers=buffers,
        )
    permutation = st.permutations(range(8)).map(lambda p: {tc: q for tc, q in enumerate(p) if tc != q})
    if data.draw(st.booleans()):
        tc_queue, tc_pfc = data.draw(permutation), data.draw(permutation)
    else:
        queues = data.draw(st.dictionaries(st.integers(0, 7), st.integers(0, 7)))
        tc_queue, tc_pfc = {tc: q for tc, q in queues.items() if tc != q}, {}
    tc_pg = {
        tc: pg
        for tc, pg in data.draw(st.dictionaries(st.integers(0, 7), st.integers(0, 7))).items()
        if tc != pg
    }
    names_drawn = data.draw(
        st.dictionaries(
            st.sampled_from(["dscp_to_tc_map", "tc_to_queue_map", "pfc_to_pg_map"]),
            st.sampled_from(["AZURE", "OPS_QOS"]),
        )
    )
    return dataclasses.replace(
        state,
        interfaces=ports,
        dscp_map=device_map,
        tc_queue=tc_queue,
        tc_pfc=tc_pfc,
        tc_pg=tc_pg,
        qos_names=names_drawn,
    )


def drawn_policy(data: st.DataObject) -> Policy:
    policy = data.draw(policies())
    return policy.model_copy(update={"mode": data.draw(st.sampled_from(["lossless", "lossy"]))})


@SETTINGS
@given(fabric=fabrics(), data=st.data())
def test_parse_render_config_roundtrip(fabric: Fabric, data: st.DataObject) -> None:
    policy = drawn_policy(data)
    fabric = sonic_fabric(fabric)
    intents = {n: s for n, s in fabric_intent(fabric, policy).items() if fabric.devices[n].is_switch}
    for name, intent in intents.items():
        device = fabric.devices[name]
        assert sonic.parse_config(sonic.render_config(intent, device), device) == intent
    # Drift is drawn port by port: one switch of each fabric is enough, and keeps the test fast.
    name = data.draw(st.sampled_from(sorted(intents)))
    drifted = drift(intents[name], data, policy.lossless)
    device = fabric.devices[name]
    assert sonic.parse_config(sonic.render_config(drifted, device), device) == drifted


@SETTINGS
@given(fabric=fabrics(), data=st.data())
def test_parse_render_outputs_roundtrip(fabric: Fabric, data: st.DataObject) -> None:
    policy = drawn_policy(data)
    fabric = sonic_fabric(fabric)
    switches = {n: s for n, s in live_states(fabric, policy).items() if fabric.devices[n].is_switch}
    drifted = data.draw(st.sampled_from(sorted(switches)))
    for name, live in switches.items():
        device = fabric.devices[name]
        state = drift(live, data, policy.lossless) if name == drifted else live
        replies = simulator(sonic.name).render_outputs(state, device)
        files = {c.file: replies[c.cli] for c in sonic.commands(device)}
        assert sonic.parse_outputs(files, device) == state


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_damaged_outputs_and_configs_never_crash_the_parser(fabric, policy, data: st.DataObject) -> None:
    """Whatever a switch prints or a file holds, parsing gives a state (with unknowns), never an error."""
    device = leaf(fabric)
    stock = apply_faults(live_states(fabric, policy)[device.name], DeviceFaults(factory_qos=True), device)
    replies = simulator(sonic.name).render_outputs(stock, device)
    files = data.draw(st.sampled_from([outputs(), {c.file: replies[c.cli] for c in sonic.commands(device)}]))
    assert sonic.parse_outputs(data.draw(damaged(files)), device).name == device.name
    config = data.draw(damaged({"config": STOCK.read_text()}))["config"]
    assert sonic.parse_config(config, device).name == device.name
    assert sonic.mask_secrets(config).count("\n") == config.count("\n")


def _checked_with_wred(tmp_path, capsys, **wred: str) -> tuple[Path, list[dict]]:
    """The findings of the rendered fabric with the leaf's ROCE_ECN profile edited as a person would."""
    configs = tmp_path / "configs"
    assert main(["render", str(INVENTORY), "-o", str(configs)]) == 0
    path = configs / "leaf-su1-r1.json"
    doc = json.loads(path.read_text())
    profile = doc["WRED_PROFILE"]["ROCE_ECN"]
    for key, value in wred.items():
        if value:
            profile[key] = value
        else:
            del profile[key]
    path.write_text(json.dumps(doc, indent=4, sort_keys=True) + "\n")
    capsys.readouterr()
    main(["check", str(INVENTORY), "--configs", str(configs), "--format", "json"])
    return path, json.loads(capsys.readouterr().out)["findings"]


def test_a_wred_profile_with_ecn_but_green_wred_off_is_named_at_the_profile(tmp_path, capsys):
    off = {f"wred_{c}_enable": "false" for c in ("green", "yellow", "red")}
    path, findings = _checked_with_wred(tmp_path, capsys, **off)
    (named,) = [f for f in findings if f["rule"] == "sonic.wred_not_marking"]
    assert (named["device"], named["interface"], named["file"]) == (
        "leaf-su1-r1",
        "Ethernet1-4,31-32",
        str(path),
    )
    assert named["line"] == line_after(path, '"WRED_PROFILE"', '"ROCE_ECN"')
    assert named["actual"] == (
        "WRED_PROFILE|ROCE_ECN: ecn ecn_all, wred_green_enable false, wred_yellow_enable false, "
        "wred_red_enable false"
    )
    assert "queue 3 of this port" in named["message"]
    # The shared rule still says what the queue does: it marks nothing.
    assert any(f["rule"] == "ecn.enabled" for f in findings)


def test_a_wred_profile_without_its_green_flag_is_named_as_unset(tmp_path, capsys):
    _, findings = _checked_with_wred(tmp_path, capsys, wred_green_enable="")
    (named,) = [f for f in findings if f["rule"] == "sonic.wred_not_marking"]
    assert named["actual"] == "WRED_PROFILE|ROCE_ECN: ecn ecn_all, wred_green_enable unset"


def test_a_wred_profile_marking_green_only_is_not_named(tmp_path, capsys):
    # RoCE is green: yellow and red off take nothing from it.
    _, findings = _checked_with_wred(tmp_path, capsys, wred_yellow_enable="false", wred_red_enable="false")
    assert not [f for f in findings if f["rule"] in ("sonic.wred_not_marking", "ecn.enabled")]


def test_a_wred_profile_asking_for_no_green_marking_is_not_this_trap(tmp_path, capsys):
    _, findings = _checked_with_wred(tmp_path, capsys, ecn="ecn_none", wred_green_enable="false")
    assert not [f for f in findings if f["rule"] == "sonic.wred_not_marking"]
    assert any(f["rule"] == "ecn.enabled" for f in findings)
