"""Intent parsed back once per shape of device gives every device what its own render and parse give."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from netcfg.checks.runner import run_checks
from netcfg.inventory import InventorySpec, expand_topology, load_fabric
from netcfg.model import DeviceState, Fabric, Role
from netcfg.platforms.base import registry
from netcfg.policy import Policy, load_policy
from netcfg.shapes import parsed_intent, parsed_intents
from tests.test_roundtrip import SETTINGS, policies

ROOT = Path(__file__).resolve().parent.parent
SWITCHES = sorted(n for n, p in registry().items() if p.kind == "switch")
HOSTS = sorted(n for n, p in registry().items() if p.kind == "host")


def device_by_device(fabric: Fabric, policy: Policy) -> dict[str, DeviceState]:
    return {name: parsed_intent(device, fabric, policy) for name, device in fabric.devices.items()}


def assert_same(shaped: dict[str, DeviceState], own: dict[str, DeviceState]) -> None:
    assert list(shaped) == list(own)
    for name, state in own.items():
        assert shaped[name] == state, name
        # Not part of equality, but where findings point.
        assert shaped[name].locations == state.locations, name


def test_every_device_of_a_mixed_fabric_gets_its_own_parse_with_overrides_and_findings(tmp_path):
    """lab-multi (every platform, explicit cabling) under the stock lossless policy, which some of its
    platforms cannot fully express (findings), with a cable of one SONiC leaf longer than its twin's
    (headroom sized for it) and an EOS leaf named like a word of its config."""
    folder = tmp_path / "inv"
    shutil.copytree(ROOT / "inventories" / "lab-multi", folder)
    shutil.copy(ROOT / "policies" / "roce-lossless.yaml", folder / "policy.yaml")
    for file in ("fabric.yaml", "cabling.csv"):
        path = folder / file
        path.write_text(path.read_text().replace("leaf-su2-r1", "qos"))
    cabling = folder / "cabling.csv"
    rows = cabling.read_text().splitlines()
    longer = next(i for i, row in enumerate(rows) if row.startswith("gpu06,eth2,leaf-su2-r3,"))
    rows[longer] = rows[longer].rsplit(",", 1)[0] + ",30"
    cabling.write_text("\n".join(rows) + "\n")
    fabric = load_fabric(folder)
    policy = load_policy(fabric.policy_ref, folder)

    shaped, own = parsed_intents(fabric, policy), device_by_device(fabric, policy)
    assert_same(shaped, own)
    # The longer cable makes its leaf a shape of its own: its port is sized for 30 m, its twin's for 3.
    port = next(n for n, p in shaped["leaf-su2-r3"].interfaces.items() if p.description == "gpu06:eth2")
    assert shaped["leaf-su2-r3"].interfaces[port].cable_m == 30
    assert shaped["leaf-su1-r3"].interfaces[port].cable_m == 3
    # EOS reads its device-wide lines with the hostname taken out: `qos` is read as its own config
    # reads, not as leaf-su1-r1's with another name.
    assert shaped["qos"] != dataclasses.replace(own["leaf-su1-r1"], name="qos")
    findings = run_checks(fabric, policy, shaped)
    assert findings
    assert findings == run_checks(fabric, policy, own)


@st.composite
def mixed_fabrics(draw: st.DrawFn) -> Fabric:
    """A small rail-optimised fabric, each device on a platform of its kind drawn for it and some
    cables of other lengths: shapes of many devices, of one, and devices of one shape but for one cable."""
    spec = InventorySpec.model_validate(
        {
            "name": "random",
            "topology": {
                "scalable_units": draw(st.integers(1, 2)),
                "servers_per_su": draw(st.integers(1, 4)),
                "rails": draw(st.integers(1, 3)),
                "host_links": {"cable_m": 3},
                "spine": {"count": draw(st.integers(1, 2)), "leaf_first_port": 40},
            },
        }
    )
    assert spec.topology is not None
    built = expand_topology(spec, spec.topology, "random")
    for device in built.devices.values():
        device.platform = draw(st.sampled_from(HOSTS if device.role == Role.HOST else SWITCHES))
    links = [
        dataclasses.replace(link, cable_m=draw(st.sampled_from([link.cable_m] * 4 + [1, 50])))
        for link in built.links
    ]
    return Fabric("random", spec.topology.rails, built.devices, links, "random")


@SETTINGS
@given(policy=policies(), fabric=mixed_fabrics())
def test_shapes_give_what_each_device_parses_to_for_any_policy_and_fabric(policy: Policy, fabric: Fabric):
    shaped, own = parsed_intents(fabric, policy), device_by_device(fabric, policy)
    assert_same(shaped, own)
    assert run_checks(fabric, policy, shaped) == run_checks(fabric, policy, own)
