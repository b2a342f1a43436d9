"""Rendered configs: golden files, determinism, headroom maths."""

from __future__ import annotations

import pytest

from netcfg.headroom import headroom
from netcfg.render import render_fabric
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "lab"


@pytest.mark.parametrize("name", ["leaf-su1-r1.cfg", "spine2.cfg", "gpu01.sh"])
def test_rendered_config_matches_golden(lab_fabric, lab_policy, update_golden, name):
    text = render_fabric(lab_fabric, lab_policy, [name.rsplit(".", 1)[0]])[name]
    path = GOLDEN / name
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), (
        f"rendered {name} differs from {path}; rerun with --update-golden if intended"
    )


def test_render_is_deterministic(lab_fabric, lab_policy):
    assert render_fabric(lab_fabric, lab_policy) == render_fabric(lab_fabric, lab_policy)


def test_leaf_config_carries_every_roce_setting(lab_fabric, lab_policy):
    text = render_fabric(lab_fabric, lab_policy, ["leaf-su2-r3"])["leaf-su2-r3.cfg"]
    for line in [
        "   description gpu05:eth2",
        "   mtu 9214",
        "   qos trust dscp",
        "   priority-flow-control priority 3 no-drop",
        "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
        "max-mark-probability 100",
        "      priority strict",
        "qos map dscp 26 to traffic-class 3",
        "qos map dscp 48 to traffic-class 6",
        "priority-flow-control pause watchdog default timeout 0.2",
        "   description spine2:Ethernet7",
    ]:
        assert line + "\n" in text


def test_headroom_worked_example_400g_100m():
    """roce-reference.md §9.2: 400G, 100 m, MTU 9216 -> 126,857 B before rounding, 126,976 B after."""
    h = headroom(400, 100, 9216)
    assert h.cable_round_trip == 50_505
    assert h.peer_response == 57_920
    assert h.local_frame + h.cable_round_trip + h.peer_response + h.peer_frame == 126_857
    assert h.bytes == 126_976
