"""Load balancing from NIC to spine: the policy section, NVUE's ECMP hash and adaptive routing, the
ConnectX ROCE_ACCL register, the lb.* rules, and inventories/lab-lb audited live end to end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.checks.catalogue import RULES
from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.errors import InputError
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults, apply_faults, live_states
from netcfg.model import Device, DeviceState, Endpoint, Fabric, InterfaceState, Link, Nic, Role
from netcfg.platforms import get_platform
from netcfg.platforms.base import is_read_only
from netcfg.platforms.connectx.roce_accl import read_reorder_tolerance, roce_accl_command
from netcfg.platforms.cumulus.balancing import HASH_FIELDS
from netcfg.policy import ROCE_ENTROPY, load_policy
from netcfg.schema import json_schema
from tests.conftest import ROOT
from tests.demo_run import demo_report, device_rules

LAB_LB = ROOT / "inventories" / "lab-lb"
FIXTURES = ROOT / "tests" / "fixtures"
# Each seeded fault of lab-lb's faults.yaml and the one rule it trips; nothing else, on no other device.
SEEDED_LB = {
    ("spine1", "lb.ecmp_group_mode"),  # adaptive routing off on one of spine1's uplinks
    ("leaf-r2", "lb.hash_entropy"),  # the hash without the UDP source port
    ("(fabric)", "lb.tier_seed"),  # the leaves' seed on every tier
    ("gpu02", "lb.reordering"),  # per-packet spraying onto a NIC that places packets in order only
    ("gpu01", "lb.nic_planes"),  # a NIC whose firmware splits its port over two planes
}
LB_RULES = {rule_id for rule_id in RULES if rule_id.startswith("lb.")}


def test_the_demo_of_the_load_balancing_lab_names_exactly_its_seeded_faults(tmp_path):
    report = demo_report(LAB_LB, tmp_path)
    found = device_rules(report)
    assert found == SEEDED_LB, sorted(found ^ SEEDED_LB)
    assert report["summary"]["devices_checked"] == 8
    by_rule = {f["rule"]: f for f in report["findings"]}
    assert by_rule["lb.ecmp_group_mode"]["interface"] == "swp51"
    assert by_rule["lb.reordering"]["interface"] == "eth1"
    assert (by_rule["lb.nic_planes"]["interface"], by_rule["lb.nic_planes"]["actual"]) == (
        "eth0",
        "2 plane(s)",
    )
    assert "leaf, spine, superspine" in by_rule["lb.tier_seed"]["actual"]


def test_the_load_balancing_lab_renders_and_reads_back_its_intent(tmp_path, capsys):
    """Every lab-lb device's rendered config parses back to its intent (Cumulus carries the hash, the
    seed and adaptive routing; ConnectX's register is read live only), and the configs check clean."""
    fabric = load_fabric(LAB_LB)
    policy = load_policy(fabric.policy_ref, LAB_LB)
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        platform = get_platform(device.platform)
        parsed = platform.parse_config(platform.render_config(live, device), device)
        if device.is_switch:
            assert (parsed.hash_fields, parsed.hash_seed) == (live.hash_fields, live.hash_seed)
            assert {p: s.lb_mode for p, s in parsed.interfaces.items() if p in live.interfaces} == {
                p: s.lb_mode for p, s in live.interfaces.items()
            }
        else:
            assert {s.reorder_tolerant for s in parsed.interfaces.values()} == {None}
    assert main(["render", str(LAB_LB), "-o", str(tmp_path / "configs")]) == 0
    spine = (tmp_path / "configs" / "spine1.nvue").read_text()
    assert "nv set system forwarding hash-seed 2\n" in spine
    assert "nv set interface swp1-2,swp51-52 router adaptive-routing state enabled\n" in spine
    capsys.readouterr()
    rc = main(["check", str(LAB_LB), "--configs", str(tmp_path / "configs"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert (rc, report["findings"]) == (0, [])


# --- NVUE -------------------------------------------------------------------------------------------


def _cumulus(name: str, text: str) -> DeviceState:
    return get_platform("cumulus").parse_config(text, Device(name, Role.SPINE, "cumulus"))


def test_nvue_5_14_commands_as_the_user_guide_writes_them():
    """`on`/`off` and `enable on`, as Cumulus Linux 5.14 and earlier take them; ecmp-hash lines over
    NVIDIA's defaults (source and destination IP and port, IP protocol, IPv6 label on)."""
    text = (FIXTURES / "cumulus" / "spine_adaptive_routing_5.14_commands.txt").read_text()
    state = _cumulus("spine01", text)
    assert state.unparsed == {}
    assert state.hash_fields == {
        "src_ip",
        "dst_ip",
        "ip_protocol",
        "l4_src_port",
        "l4_dst_port",
        "ingress_port",
    }
    assert state.hash_seed == 50
    modes = {name: port.lb_mode for name, port in state.interfaces.items()}
    assert modes["swp51"] == modes["swp52"] == modes["swp1"] == "per_packet"
    assert modes["swp5"] == "hash"  # a switch port without the port line
    assert modes["eth0"] is None and modes["lo"] is None  # management and loopback route no ECMP group
    lines = text.splitlines()
    assert lines[state.locations["hash_seed"] - 1] == "nv set system forwarding hash-seed 50"
    assert "swp52 router adaptive-routing enable on" in lines[state.locations["swp52.lb_mode"] - 1]


def test_nvue_5_16_startup_yaml_with_state_enabled():
    """startup.yaml in the 5.15-and-later words (`state: enabled`, `enabled`/`disabled`)."""
    state = _cumulus("leaf01", (FIXTURES / "cumulus" / "leaf_adaptive_routing_5.16_startup.yaml").read_text())
    assert state.unparsed == {}
    assert state.hash_fields == {"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "ipv6_flow_label"}
    assert state.hash_seed == 1
    assert (state.interfaces["swp51"].lb_mode, state.interfaces["swp52"].lb_mode) == ("per_packet", "hash")
    assert state.interfaces["swp1"].lb_mode == "hash"


def test_nvue_without_load_balancing_lines_shows_nothing():
    """A config without ecmp-hash, hash-seed or adaptive-routing lines does not say what the switch
    hashes on (switchd picks a random seed): every load-balancing setting is unknown, not off."""
    state = _cumulus("leaf01", (FIXTURES / "cumulus" / "leaf-su1-r1_nv_config_show_commands.txt").read_text())
    assert (state.hash_fields, state.hash_seed) == (None, None)
    assert {port.lb_mode for port in state.interfaces.values()} == {None}


def test_adaptive_routing_off_switch_wide_leaves_every_port_hashing():
    text = "nv set interface swp51-52 type swp\nnv set interface swp51-52 router adaptive-routing enable on\n"
    state = _cumulus("s", text + "nv set router adaptive-routing enable off\n")
    assert {state.interfaces[p].lb_mode for p in ("swp51", "swp52")} == {"hash"}


def test_an_unknown_adaptive_routing_word_is_unreadable_not_off():
    state = _cumulus("s", "nv set interface swp1 type swp\nnv set router adaptive-routing state sometimes\n")
    assert "adaptive-routing" in state.unparsed["nvue config"]
    assert state.locations["nvue config"] == 2


MODES = st.sampled_from(["hash", "per_packet"])


@settings(max_examples=60, deadline=None)
@given(
    fields=st.sets(st.sampled_from(sorted(HASH_FIELDS.values()))),
    seed=st.none() | st.integers(0, 2**32 - 1),
    modes=st.lists(MODES, min_size=1, max_size=6),
)
def test_nvue_renders_and_reads_back_any_hash_seed_and_modes(fields, seed, modes):
    ports = {f"swp{n}": InterfaceState(name=f"swp{n}", lb_mode=mode) for n, mode in enumerate(modes, 51)}
    state = DeviceState("s", "cumulus", hash_fields=frozenset(fields), hash_seed=seed, interfaces=ports)
    device = Device("s", Role.SPINE, "cumulus")
    platform = get_platform("cumulus")
    parsed = platform.parse_config(platform.render_config(state, device), device)
    assert (parsed.hash_fields, parsed.hash_seed) == (frozenset(fields), seed)
    assert {name: parsed.interfaces[name].lb_mode for name in ports} == dict(zip(ports, modes, strict=True))


# --- ConnectX ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("mlxreg_roce_accl_forced_ar.txt", True),
        ("mlxreg_roce_accl_default.txt", False),
        # Firmware without the register: no row, so unknown rather than in-order only.
        ("mlxreg_roce_accl_unsupported.txt", None),
    ],
)
def test_the_roce_accl_register_as_mlxreg_prints_it(fixture, expected):
    text = (FIXTURES / "connectx" / fixture).read_text()
    assert read_reorder_tolerance(text) == (expected, None)
    nic = Nic(1, "eth0", "mlx5_0")
    device = Device("gpu01", Role.HOST, "connectx", nics=[nic])
    state = get_platform("connectx").parse_outputs({roce_accl_command(nic).file: text}, device)
    assert state.interfaces["eth0"].reorder_tolerant is expected
    assert roce_accl_command(nic).cli not in state.unparsed


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0x00000001", True),
        ("0x0", False),
        ("1", True),  # decimal, as a script that reformats mlxreg's table may print it
        # One character of `0x00000000` damaged: no longer a hex number, and as decimal no flag.
        ("0900000000", "'0900000000'"),
        ("0x00000002", "'0x00000002'"),
        ("0x1F", "'0x1F'"),
        ("", "''"),
        ("enabled", "'enabled'"),
    ],
)
def test_the_forced_adaptive_routing_flag_is_read_only_as_the_bit_it_is(value, expected):
    """An enable flag: NVIDIA's sample prints it 0x00000000 or 0x00000001. Any other value in its row
    is unreadable, named with the value, never a crash and never taken as the table of older
    firmware without the row."""
    text = (FIXTURES / "connectx" / "mlxreg_roce_accl_default.txt").read_text()
    row = next(line for line in text.splitlines() if line.startswith("adaptive_routing_forced_en "))
    text = text.replace(row, row.split("|")[0] + "| " + value)
    nic = Nic(1, "eth0", "mlx5_0")
    device = Device("gpu01", Role.HOST, "connectx", nics=[nic])
    state = get_platform("connectx").parse_outputs({roce_accl_command(nic).file: text}, device)
    if isinstance(expected, bool):
        assert read_reorder_tolerance(text) == (expected, None)
        assert state.interfaces["eth0"].reorder_tolerant is expected
        return
    assert state.interfaces["eth0"].reorder_tolerant is None
    why = state.unparsed[roce_accl_command(nic).cli]
    assert why == f"adaptive_routing_forced_en reads {expected}; expected 0x00000000 or 0x00000001"


def test_a_foreign_output_as_the_register_is_unreadable_not_in_order():
    """Another tool's output saved under the register's name says nothing of reordering: unknown,
    and named as unreadable; a host without MFT (`mlxreg: command not found`) is only unknown."""
    nic = Nic(1, "eth0", "mlx5_0")
    device = Device("gpu01", Role.HOST, "connectx", nics=[nic])
    cmd = roce_accl_command(nic)
    foreign = (FIXTURES / "connectx" / "ethtool_i_cx7_psid.txt").read_text()
    state = get_platform("connectx").parse_outputs({cmd.file: foreign}, device)
    assert state.interfaces["eth0"].reorder_tolerant is None
    assert "adaptive_routing_forced_en" in state.unparsed[cmd.cli]
    missing = get_platform("connectx").parse_outputs({cmd.file: "bash: mlxreg: command not found\n"}, device)
    assert cmd.cli not in missing.unparsed


def test_the_register_read_is_on_the_read_only_list():
    platform = get_platform("connectx")
    assert is_read_only(platform, "mlxreg -d mlx5_3 --yes --reg_name ROCE_ACCL --get")
    assert not is_read_only(
        platform, "mlxreg -d mlx5_3 --yes --reg_name ROCE_ACCL --set adaptive_routing_forced_en=1"
    )


# --- the policy -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "needle"),
    [
        ("hash_fields: [src_ip, dst_ip, l4_dst_port]", "no RoCE entropy"),
        ("seeds: {leaf: 7, spine: 7}", "share a hash seed"),
        ("mode: per_packet", "nics_tolerate_reordering"),
        ("hash_fields: [src_ip, l4_src_port, src_ip]", "listed twice"),
    ],
)
def test_a_load_balancing_policy_that_cannot_work_is_refused_in_one_line(tmp_path, capsys, section, needle):
    folder = tmp_path / "lab"
    folder.mkdir()
    for name in ("fabric.yaml", "cabling.csv"):
        (folder / name).write_text((LAB_LB / name).read_text())
    policy = (LAB_LB / "policy.yaml").read_text().split("load_balancing:")[0]
    (folder / "policy.yaml").write_text(policy + f"load_balancing:\n  {section}\n")
    assert main(["check", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "policy.yaml" in err and needle in err


def test_the_policy_schema_documents_load_balancing():
    schema = json_schema("policy")
    section = schema["$defs"]["LoadBalancingPolicy"]["properties"]
    assert set(section) == {"hash_fields", "seeds", "mode", "nics_tolerate_reordering", "nic_planes"}
    assert "rdma_dest_qp" in json.dumps(section["hash_fields"])


# --- the rules --------------------------------------------------------------------------------------


def _fabric() -> Fabric:
    """Two leaves, two spines, two super-spines, one host with a NIC on each leaf."""
    devices = {
        "gpu": Device("gpu", Role.HOST, "connectx", su=1, nics=[Nic(1, "eth0", "m0"), Nic(2, "eth1", "m1")]),
        **{f"leaf{i}": Device(f"leaf{i}", Role.LEAF, "cumulus", su=1, rail=i) for i in (1, 2)},
        **{f"spine{i}": Device(f"spine{i}", Role.SPINE, "cumulus") for i in (1, 2)},
        **{f"super{i}": Device(f"super{i}", Role.SUPERSPINE, "cumulus") for i in (1, 2)},
    }
    links = [Link(Endpoint("gpu", f"eth{i - 1}"), Endpoint(f"leaf{i}", "swp1"), 400, 3) for i in (1, 2)]
    for lower, upper in (("leaf", "spine"), ("spine", "super")):
        links += [
            Link(Endpoint(f"{lower}{i}", f"swp5{j}"), Endpoint(f"{upper}{j}", f"swp{i}"), 400, 30)
            for i in (1, 2)
            for j in (1, 2)
        ]
    return Fabric("lb", 2, devices, links, "lb")


def _states(fabric: Fabric, fields, seeds, mode: str = "per_packet") -> dict[str, DeviceState]:
    """Every switch with these hash fields and its tier's seed, `mode` toward other switches; the NICs
    placing out-of-order packets."""
    states = {}
    for name, device in fabric.devices.items():
        state = DeviceState(name, device.platform, facets=frozenset({"qos"}))
        for local, _, remote in fabric.links_of(name):
            peer_switch = fabric.devices[remote.device].is_switch
            state.interfaces[local.interface] = InterfaceState(
                local.interface,
                lb_mode=(mode if peer_switch else "hash") if device.is_switch else None,
                reorder_tolerant=None if device.is_switch else True,
            )
        if device.is_switch:
            state.hash_fields = frozenset(fields)
            state.hash_seed = seeds[device.role.value]
        states[name] = state
    return states


def _lb_findings(fabric, states, policy_ref: str = "roce-lossless") -> set[tuple[str, str, str | None]]:
    findings = run_checks(fabric, load_policy(policy_ref), states)
    return {(f.device, f.rule, f.interface) for f in findings if f.rule in LB_RULES}


REFERENCE_FIELDS = {"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"}


def test_a_clean_spectrum_x_design_gets_no_load_balancing_finding():
    """NVIDIA's adaptive routing example on every switch-to-switch port, the default hash, a seed per
    tier, NICs forcing out-of-order placement: nothing to say."""
    fabric = _fabric()
    states = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3})
    assert _lb_findings(fabric, states) == set()


def test_one_mode_per_ecmp_group_and_per_plane():
    fabric = _fabric()
    states = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3})
    states["leaf1"].interfaces["swp52"].lb_mode = "hash"
    # leaf1's two uplinks split one each: no majority, so the policy's mode (hash) decides which is odd.
    assert _lb_findings(fabric, states) == {("leaf1", "lb.ecmp_group_mode", "swp51")}
    states = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3})
    for port in ("swp51", "swp52"):
        states["spine2"].interfaces[port].lb_mode = "hash"
    for port in ("swp1", "swp2"):
        states["spine2"].interfaces[port].lb_mode = "hash"
    assert _lb_findings(fabric, states) == {("spine2", "lb.plane_mode", None)}


def test_an_in_order_nic_under_per_packet_spraying_and_not_under_hashing():
    fabric = _fabric()
    states = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3})
    states["gpu"].interfaces["eth1"].reorder_tolerant = False
    assert _lb_findings(fabric, states) == {("gpu", "lb.reordering", "eth1")}
    states["gpu"].interfaces["eth1"].reorder_tolerant = None  # not read: no verdict
    assert _lb_findings(fabric, states) == set()
    hashing = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3}, mode="hash")
    hashing["gpu"].interfaces["eth0"].reorder_tolerant = False
    assert _lb_findings(fabric, hashing) == set()


def test_a_nic_split_over_planes_the_fabric_does_not_have():
    fabric = _fabric()
    states = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3})
    for planes in (1, None):  # one plane, as the policy has it; not shown: no verdict
        states["gpu"].interfaces["eth0"].nic_planes = planes
        assert _lb_findings(fabric, states) == set()
    states["gpu"].interfaces["eth0"].nic_planes = 2
    assert _lb_findings(fabric, states) == {("gpu", "lb.nic_planes", "eth0")}
    # Without a load_balancing section netcfg asks for none of it.
    states["gpu"].interfaces["eth0"].nic_planes = 4
    without = load_policy("roce-lossless").model_copy(update={"load_balancing": None})
    assert not [f for f in run_checks(fabric, without, states) if f.rule in LB_RULES]


TIER_SEEDS = st.fixed_dictionaries({t: st.integers(0, 3) for t in ("leaf", "spine", "superspine")})


@settings(max_examples=80, deadline=None)
@given(fields=st.frozensets(st.sampled_from(sorted(HASH_FIELDS.values())), min_size=1), seeds=TIER_SEEDS)
def test_entropy_and_seed_rules_hold_for_any_hash(fields, seeds):
    """For any field set and any seed per tier: lb.hash_entropy names every switch exactly when its hash
    lacks both the UDP source port and the queue pair, and lb.tier_seed fires once per seed that two
    tiers share."""
    fabric = _fabric()
    found = _lb_findings(fabric, _states(fabric, fields, seeds, mode="hash"))
    entropy = {d for d, r, _ in found if r == "lb.hash_entropy"}
    switches = {n for n, d in fabric.devices.items() if d.is_switch}
    assert entropy == (set() if fields & ROCE_ENTROPY else switches)
    shared = [s for s in set(seeds.values()) if list(seeds.values()).count(s) > 1]
    assert sum(1 for _, r, _ in found if r == "lb.tier_seed") == len(shared)
    assert not {r for _, r, _ in found} - {"lb.hash_entropy", "lb.tier_seed"}


def test_a_tier_that_hashes_differently_is_named_against_its_majority():
    fabric = _fabric()
    states = _states(fabric, REFERENCE_FIELDS, {"leaf": 1, "spine": 2, "superspine": 3})
    states["spine2"].hash_fields = frozenset(REFERENCE_FIELDS | {"ingress_port"})
    # Two spines, one each: no majority, so the policy's fields decide.
    assert _lb_findings(fabric, states) == {("spine2", "lb.tier_hash_fields", None)}


def test_unknown_settings_give_no_load_balancing_verdict():
    fabric = _fabric()
    states = {
        name: dataclasses.replace(
            s,
            hash_fields=None,
            hash_seed=None,
            interfaces={
                p: dataclasses.replace(i, lb_mode=None, reorder_tolerant=None)
                for p, i in s.interfaces.items()
            },
        )
        for name, s in _states(fabric, set(), {"leaf": 1, "spine": 1, "superspine": 1}).items()
    }
    assert _lb_findings(fabric, states) == set()


def test_every_lb_rule_is_documented():
    for rule_id in LB_RULES:
        assert len(RULES[rule_id].doc) > 80, rule_id
    assert Path(ROOT / "docs" / "load-balancing.md").read_text().count("`lb.") >= len(LB_RULES)


# --- SONiC, NX-OS, Junos ----------------------------------------------------------------------------


def test_sonic_hashes_roce_on_the_rdma_packet_type_hash_where_it_is_set():
    """The Generic Hash design's tables: the global `ecmp_hash` here leaves the UDP source port out,
    the `ecmp_hash_ipv4_rdma` that RoCE over IPv4 meets has it and the destination queue pair."""
    text = (FIXTURES / "sonic" / "switch_hash_rdma_fragment.json").read_text()
    state = get_platform("sonic").parse_config(text, Device("leaf", Role.LEAF, "sonic"))
    assert state.unparsed == {}
    assert {"l4_src_port", "rdma_dest_qp", "src_ip", "dst_ip"} <= state.hash_fields
    assert "DST_MAC" in state.hash_fields  # a field netcfg has no name for keeps SONiC's
    assert '"ecmp_hash_ipv4_rdma"' in text.splitlines()[state.locations["hash_fields"] - 1]
    without = text.replace('"ecmp_hash_ipv4_rdma"', '"lag_hash_ipv4_rdma"')
    state = get_platform("sonic").parse_config(without, Device("leaf", Role.LEAF, "sonic"))
    assert not state.hash_fields & ROCE_ENTROPY  # the global hash, without the source port


def test_a_stock_sonic_config_db_shows_no_hash():
    text = (FIXTURES / "sonic" / "config_db_stock_leaf.json").read_text()
    assert get_platform("sonic").parse_config(text, Device("leaf", Role.LEAF, "sonic")).hash_fields is None


NXOS_RUNNING = (FIXTURES / "nxos" / "show_running-config.txt").read_text()


@pytest.mark.parametrize(
    ("line", "fields", "seed"),
    [
        # The guide's full method, options in the order the NX-API reference writes them.
        (
            "ip load-sharing address source-destination port source-destination rotate 32 universal-id 20",
            {"src_ip", "dst_ip", "l4_src_port", "l4_dst_port"},
            20,
        ),
        ("ip load-sharing address source-destination", {"src_ip", "dst_ip"}, None),
        (
            "ip load-sharing address source-destination ipv6-flowlabel",
            {"src_ip", "dst_ip", "ipv6_flow_label"},
            None,
        ),
        # The guide names no fields for gre (the NX-API example) or udf: the seed stands, the fields
        # are unknown.
        ("ip load-sharing address source-destination gre-outer rotate 43 universal-id 1", None, 1),
        ("ip load-sharing address source-destination udf offset 8 length 8", None, None),
    ],
)
def test_nxos_load_sharing_as_the_guide_writes_it(line, fields, seed):
    text = NXOS_RUNNING.replace("\nfeature lldp", f"\n{line}\nfeature lldp", 1)
    assert line in text
    state = get_platform("nxos").parse_config(text, Device("leaf-su1-r4", Role.LEAF, "nxos"))
    assert state.hash_fields == (frozenset(fields) if fields is not None else None)
    assert state.hash_seed == seed
    assert text.splitlines()[state.locations["hash_fields"] - 1] == line


def test_nxos_without_load_sharing_shows_no_hash():
    state = get_platform("nxos").parse_config(NXOS_RUNNING, Device("leaf-su1-r4", Role.LEAF, "nxos"))
    assert (state.hash_fields, state.hash_seed) == (None, None)


EOS_RUNNING = (FIXTURES / "eos" / "running_config_production.cfg").read_text()
EOS_DEFAULT_V6 = (
    "ip load-sharing trident fields ipv6 destination-port source-ip ingress-interface destination-ip "
    "source-port flow-label"
)


@pytest.mark.parametrize(
    ("lines", "fields"),
    [
        # A leaf that left the source port out: EOS prints the line as it differs from the default.
        (
            ["ip load-sharing trident fields ip source-ip destination-ip destination-port"],
            {"src_ip", "dst_ip", "l4_dst_port"},
        ),
        # With the IPv6 line beside it, the IPv4 one is what RoCEv2 over IPv4 meets; a later line
        # replaces an earlier one.
        (
            [
                "ip load-sharing trident fields ip source-ip destination-ip",
                EOS_DEFAULT_V6,
                "ip load-sharing trident fields ip source-ip source-port destination-ip destination-port",
            ],
            {"src_ip", "dst_ip", "l4_src_port", "l4_dst_port"},
        ),
        # A word netcfg does not know, or only the IPv6 line: the hash is unknown, not guessed.
        (["ip load-sharing trident fields ip source-ip destination-ip source-port gtp-teid"], None),
        ([EOS_DEFAULT_V6], None),
    ],
)
def test_eos_load_sharing_fields_as_switches_print_them(lines, fields):
    text = EOS_RUNNING.replace("\nip routing\n", "\nip routing\n" + "".join(f"{line}\n" for line in lines), 1)
    assert lines[-1] in text
    state = get_platform("eos").parse_config(text, Device("leaf-su1-r1", Role.LEAF, "eos"))
    assert state.hash_fields == (frozenset(fields) if fields is not None else None)
    ipv4 = [line for line in lines if " fields ip " in line]
    if ipv4:
        assert text.splitlines()[state.locations["hash_fields"] - 1] == ipv4[-1]
    assert not state.unparsed


def test_eos_without_load_sharing_shows_no_hash_and_a_leaf_without_the_source_port_is_named():
    device = Device("leaf-su1-r1", Role.LEAF, "eos")
    assert get_platform("eos").parse_config(EOS_RUNNING, device).hash_fields is None
    text = EOS_RUNNING.replace(
        "\nip routing\n", "\nip routing\nip load-sharing trident fields ip source-ip destination-ip\n", 1
    )
    state = get_platform("eos").parse_config(text, device)
    fabric = Fabric("f", 1, {device.name: device}, [], "roce-lossless")
    findings = run_checks(fabric, load_policy("roce-lossless"), {device.name: state})
    entropy = [f for f in findings if f.rule == "lb.hash_entropy"]
    assert [(f.device, f.actual) for f in entropy] == [("leaf-su1-r1", "{dst_ip, src_ip}")]


JUNOS_SET = (FIXTURES / "junos" / "display_set_apstra_qfx5240.set").read_text()


def test_junos_display_set_enhanced_hash_key_and_dlb():
    lines = [
        "set forwarding-options enhanced-hash-key hash-mode layer2-payload",
        "set forwarding-options enhanced-hash-key family inet no-l4-destination-port",
        "set forwarding-options enhanced-hash-key ecmp-dlb per-packet",
    ]
    text = JUNOS_SET.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
    state = get_platform("junos").parse_config(text, Device("leaf1", Role.LEAF, "junos"))
    assert state.hash_fields == {"src_ip", "dst_ip", "l4_src_port", "ip_protocol"}
    assert {port.lb_mode for port in state.interfaces.values()} == {"per_packet"}
    assert text.splitlines()[state.locations["lb_mode"] - 1] == lines[2]
    # The hash is named where it lost a field, not at its first statement.
    assert text.splitlines()[state.locations["hash_fields"] - 1] == lines[1]
    only_mode = text.replace(lines[1] + "\n", "")
    state = get_platform("junos").parse_config(only_mode, Device("leaf1", Role.LEAF, "junos"))
    assert only_mode.splitlines()[state.locations["hash_fields"] - 1] == lines[0]
    assert (
        get_platform("junos").parse_config(JUNOS_SET, Device("leaf1", Role.LEAF, "junos")).hash_fields is None
    )


def test_junos_brace_form_flowlet_dlb():
    text = """\
interfaces {
    et-0/0/0 {
        description spine1;
        mtu 9216;
    }
}
forwarding-options {
    enhanced-hash-key {
        family inet {
            no-l4-source-port;
        }
        ecmp-dlb {
            flowlet {
                inactivity-interval 16;
            }
        }
    }
}
"""
    state = get_platform("junos").parse_config(text, Device("leaf1", Role.LEAF, "junos"))
    assert state.hash_fields == {"src_ip", "dst_ip", "l4_dst_port", "ip_protocol"}
    assert state.interfaces["et-0/0/0"].lb_mode == "flowlet"


def test_sonic_remediation_owns_only_the_ecmp_hash_field():
    """A running SWITCH_HASH|GLOBAL with a LAG hash and an algorithm of its own: netcfg's patch
    replaces `ecmp_hash` and leaves every other field as the device has it."""
    platform = get_platform("sonic")
    device = Device("leaf", Role.LEAF, "sonic")
    fields = frozenset({"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"})
    intended = platform.render_config(DeviceState("leaf", "sonic", hash_fields=fields), device)
    running = json.loads((FIXTURES / "sonic" / "switch_hash_rdma_fragment.json").read_text())
    running["DEVICE_METADATA"] = {"localhost": {"hostname": "leaf"}}
    fix = platform.remediate("leaf", intended, json.dumps(running))
    assert fix is not None
    patch = json.loads(fix.commands)
    hash_ops = [op for op in patch if op["path"].startswith("/SWITCH_HASH")]
    assert hash_ops and all(op["path"].startswith("/SWITCH_HASH/GLOBAL/ecmp_hash") for op in hash_ops)
    after = jsonpatch.apply_patch(running, patch)["SWITCH_HASH"]["GLOBAL"]
    assert after["ecmp_hash"] == ["IP_PROTOCOL", "DST_IP", "SRC_IP", "L4_DST_PORT", "L4_SRC_PORT"]
    before = running["SWITCH_HASH"]["GLOBAL"]
    assert {k: v for k, v in after.items() if k != "ecmp_hash"} == {
        k: v for k, v in before.items() if k != "ecmp_hash"
    }


def test_nvue_remediation_sets_only_what_differs():
    platform = get_platform("cumulus")
    device = Device("s", Role.SPINE, "cumulus")

    def config(modes: dict[int, str], seed: int, fields: set[str]) -> str:
        ports = {f"swp{n}": InterfaceState(f"swp{n}", lb_mode=m) for n, m in modes.items()}
        state = DeviceState("s", "cumulus", hash_fields=frozenset(fields), hash_seed=seed, interfaces=ports)
        return platform.render_config(state, device)

    want = config({51: "per_packet", 52: "per_packet"}, 2, {"src_ip", "dst_ip", "l4_src_port"})
    have = config({51: "per_packet", 52: "hash"}, 1, {"src_ip", "dst_ip"})
    fix = platform.remediate("s", want, have)
    assert fix is not None
    assert fix.commands.splitlines() == [
        "nv set system forwarding ecmp-hash source-port enabled",
        "nv set system forwarding hash-seed 2",
        "nv set interface swp52 router adaptive-routing state enabled",
        "nv config apply",
    ]


@pytest.mark.parametrize(
    ("device", "fault", "needle"),
    [
        ("spine2", {"hash_seed": 4}, "eos shows no hash_seed"),
        ("spine2", {"hash_fields_off": ["l4_src_port"]}, "reads but does not render hash_fields on eos"),
        ("spine1", {"lb_mode": {"et-0/0/1": "hash"}}, "one load-balancing mode for the whole switch"),
        ("gpu06", {"reorder_intolerant": ["eth0"]}, "thor shows no reorder_tolerant"),
    ],
)
def test_a_load_balancing_fault_the_platform_cannot_show_is_refused(tmp_path, device, fault, needle):
    """A fault netcfg could never find on that platform (lab-multi: EOS spine2, Junos spine1, Thor
    gpu06) is refused before the lab starts, naming the fault."""
    inventory = ROOT / "inventories" / "lab-multi"
    fabric = load_fabric(inventory)
    states = live_states(fabric, load_policy(fabric.policy_ref, inventory))
    with pytest.raises(InputError, match=needle) as raised:
        apply_faults(states[device], DeviceFaults(**fault), fabric.devices[device])
    assert f"devices.{device}." in str(raised.value)
