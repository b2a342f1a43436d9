"""parse(render(x)) == x for Thor hosts over random policies (lossless and lossy), fabrics and drifted
NICs, for the host script and for the outputs the lab prints; damaged outputs never crash the parser."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.inventory import InventorySpec, expand_topology
from netcfg.lab.devices import live_states
from netcfg.model import DeviceState, Fabric
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator
from netcfg.platforms.thor.bnxt import hex_value
from netcfg.policy import Policy
from tests.test_roundtrip import SETTINGS, damaged, policies

thor = get_platform("thor")
FIXTURES = Path(__file__).parent / "fixtures"


@st.composite
def thor_policies(draw: st.DrawFn) -> Policy:
    policy = draw(policies())
    return policy.model_copy(update={"mode": draw(st.sampled_from(["lossless", "lossy"]))})


@st.composite
def thor_fabrics(draw: st.DrawFn) -> Fabric:
    spec = InventorySpec.model_validate(
        {
            "name": "random",
            "platforms": {"switch": "eos", "host": "thor"},
            "topology": {
                "scalable_units": draw(st.integers(1, 2)),
                "servers_per_su": draw(st.integers(1, 2)),
                "rails": draw(st.integers(1, 4)),
                "names": {
                    "rdma_device": "bnxt_re{nic0}",
                    "nic_netdev": draw(st.sampled_from(["eth{nic0}", "benic{rail}p1"])),
                },
                "host_links": {"cable_m": draw(st.integers(1, 100))},
                "spine": {"count": 1, "leaf_first_port": 40},
            },
        }
    )
    assert spec.topology is not None
    b = expand_topology(spec, spec.topology, "random")
    return Fabric("random", spec.topology.rails, b.devices, b.links, "random")


def drift(state: DeviceState, data: st.DataObject) -> DeviceState:
    """Change some NICs the way real drift does: MTU, trust, PFC, the CNP priority (Broadcom's 7),
    ECN off, the ECN bits of the TOS, the CNP gap, a CNP priority written but not applied."""
    ports = dict(state.interfaces)
    not_operational = {}
    for name in data.draw(st.lists(st.sampled_from(sorted(ports)), max_size=3, unique=True)):
        port = ports[name]
        no_drop = frozenset(data.draw(st.sets(st.integers(0, 7), max_size=2)))
        cnp = data.draw(st.integers(0, 7))
        ecn_on = data.draw(st.booleans())
        roce = frozenset(port.ecn_np_priorities or ()) if ecn_on else frozenset()
        assert port.roce_tos is not None and port.dscp_map is not None and port.cnp_dscp is not None
        ports[name] = dataclasses.replace(
            port,
            mtu=data.draw(st.sampled_from([port.mtu, 1500, 9000])),
            trust=data.draw(st.sampled_from(["pcp", "dscp"])),
            no_drop_priorities=no_drop,
            pfc_enabled=bool(no_drop),
            cnp_priority=cnp,
            dscp_map={**port.dscp_map, port.cnp_dscp: cnp},
            strict_queues=frozenset({cnp}) if port.strict_queues else frozenset(),
            ecn_np_priorities=roce,
            ecn_rp_priorities=roce,
            roce_tos=port.roce_tos & ~3 | data.draw(st.integers(0, 3)),
            dcqcn={"min_time_between_cnps": data.draw(st.integers(0, 0xFFFF))},
        )
        written = data.draw(st.integers(0, 7))
        if ecn_on and roce and written != cnp and data.draw(st.booleans()):
            not_operational[f"{name}.cnp_prio"] = (hex_value(written), str(cnp))
    return dataclasses.replace(state, interfaces=ports, not_operational=not_operational)


def thor_hosts(fabric: Fabric, policy: Policy):
    for name, live in live_states(fabric, policy).items():
        device = fabric.devices[name]
        if device.platform == "thor":
            yield device, live


@SETTINGS
@given(policy=thor_policies(), fabric=thor_fabrics(), data=st.data())
def test_parse_render_script_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    for device, live in thor_hosts(fabric, policy):
        intent = dataclasses.replace(
            drift(live, data), facets=frozenset({"qos"}), lldp=[], not_operational={}
        )
        for port in intent.interfaces.values():
            port.firmware = port.driver = None
            if not device.is_switch:
                # What a host's driver and kernel run beyond its script (live_nic, the GID table).
                port.gids = port.priority_buffers = port.dcbx_agent = None
                port.pg_buffers = {}
        parsed = thor.parse_config(thor.render_config(intent, device), device)
        assert parsed == intent


@SETTINGS
@given(policy=thor_policies(), fabric=thor_fabrics(), data=st.data())
def test_parse_render_outputs_roundtrip(policy: Policy, fabric: Fabric, data: st.DataObject) -> None:
    for device, live in thor_hosts(fabric, policy):
        state = drift(live, data)
        outputs = simulator(thor.name).render_outputs(state, device)
        assert thor.parse_outputs({c.file: outputs[c.cli] for c in thor.commands(device)}, device) == state


REAL_SHAPED = {
    "bnxtqos_eth0": "thor/bnxtqos_get_qos_broadcom_defaults.txt",
    "bnxtqos_eth1": "thor/bnxtqos_get_qos_two_lossless_no_apps.txt",
    "configfs_eth0": "thor/configfs_bnxt_setupcc_defaults.txt",
    "configfs_eth1": "thor/configfs_cnp_prio_written_not_applied.txt",
    "ethtool_eth0": "thor/ethtool_i_thor2_bnxt_en.txt",
    "ethtool_eth1": "thor/ethtool_i_thor2_inbox_driver.txt",
    "lldpcli_show_neighbors": "connectx/lldpcli_show_neighbors.txt",
}


@settings(max_examples=100, deadline=None)
@given(data=st.data(), source=st.sampled_from(["lab", "real"]))
def test_damaged_outputs_and_scripts_never_crash_the_parser(data: st.DataObject, source: str) -> None:
    from tests.test_thor import HOST

    if source == "lab":
        fabric = data.draw(thor_fabrics())
        device, live = next(iter(thor_hosts(fabric, data.draw(thor_policies()))))
        rendered = simulator(thor.name).render_outputs(live, device)
        files = {c.file: rendered[c.cli] for c in thor.commands(device)}
        script = thor.render_config(live, device)
    else:
        device = HOST
        files = {f: (FIXTURES / p).read_text(encoding="utf-8") for f, p in REAL_SHAPED.items()}
        script = (FIXTURES / "thor" / "host_hand_edited.sh").read_text(encoding="utf-8")
    assert thor.parse_outputs(data.draw(damaged(files)), device).name == device.name
    assert thor.parse_config(data.draw(damaged({"s": script}))["s"], device).name == device.name
