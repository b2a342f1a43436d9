"""Inventory forms expand into the same Fabric; the bundled examples have the documented shape."""

from __future__ import annotations

import yaml

from netcfg.cabling import write_cabling
from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.model import Endpoint, Role
from tests.conftest import LAB, ROOT


def test_lab_shape_and_cabling_rule(lab_fabric):
    roles = {r: len(lab_fabric.by_role(r)) for r in Role}
    assert roles == {Role.LEAF: 8, Role.SPINE: 2, Role.SUPERSPINE: 0, Role.HOST: 8}
    assert lab_fabric.peer(Endpoint("gpu07", "eth1")) == Endpoint("leaf-su2-r2", "Ethernet3")
    assert lab_fabric.peer(Endpoint("leaf-su2-r3", "Ethernet32")) == Endpoint("spine2", "Ethernet7")
    link = lab_fabric.link_at(Endpoint("gpu01", "eth0"))
    assert (link.speed_gbps, link.cable_m) == (400, 3)


def test_explicit_form_with_cabling_csv_equals_compact_form(lab_fabric, tmp_path):
    write_cabling(lab_fabric, tmp_path / "cabling.csv")
    devices = []
    for d in lab_fabric.devices.values():
        entry = {"name": d.name, "role": d.role.value, "platform": d.platform}
        if d.su is not None:
            entry["su"] = d.su
        if d.rail is not None:
            entry["rail"] = d.rail
        if d.nics:
            entry["nics"] = [
                {"rail": n.rail, "netdev": n.netdev, "rdma_device": n.rdma_device} for n in d.nics
            ]
        devices.append(entry)
    spec = {"name": "lab", "rails": 4, "devices": devices, "cabling": "cabling.csv"}
    (tmp_path / "fabric.yaml").write_text(yaml.safe_dump(spec))
    explicit = load_fabric(tmp_path)
    assert explicit.devices == lab_fabric.devices
    assert explicit.links == lab_fabric.links


def test_example_1024_gpus():
    fabric = load_fabric(ROOT / "inventories" / "example-1024")
    hosts = fabric.by_role(Role.HOST)
    assert len(hosts) == 128 and sum(len(h.nics) for h in hosts) == 1024
    assert len(fabric.by_role(Role.LEAF)) == 32 and len(fabric.by_role(Role.SPINE)) == 16
    ports = {d.name: len(fabric.links_of(d.name)) for d in fabric.devices.values() if d.is_switch}
    assert set(ports.values()) == {64}, "every 64-port switch is fully and exactly used"


def test_generate_32k_gpu_fabric(tmp_path, capsys):
    assert main(["inventory", "generate", "-o", str(tmp_path)]) == 0
    fabric = load_fabric(tmp_path)
    hosts = fabric.by_role(Role.HOST)
    assert len(hosts) == 4096 and sum(len(h.nics) for h in hosts) == 32768
    assert len(fabric.by_role(Role.LEAF)) == 1024
    assert max(len(fabric.links_of(d.name)) for d in fabric.devices.values() if d.is_switch) <= 128
    assert "6400 devices" in capsys.readouterr().out


def test_lab_inventory_keeps_no_credentials():
    text = (LAB / "fabric.yaml").read_text()
    assert "password:" not in text and "username:" not in text


def _with_platforms(tmp_path, platforms: dict):
    spec = yaml.safe_load((LAB / "fabric.yaml").read_text())
    spec["platforms"] = platforms
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "fabric.yaml").write_text(yaml.safe_dump(spec))
    return tmp_path


def test_platform_overrides_that_cannot_apply_are_refused_with_their_line(tmp_path, capsys):
    from tests.test_bad_input import error_of

    cases = {
        "matches no switch": {"overrides": [{"devices": "leef-*", "platform": "eos"}]},
        "is a host platform": {"overrides": [{"role": "leaf", "platform": "connectx"}]},
        "give at least one of": {"overrides": [{"platform": "eos"}]},
    }
    for expected, platforms in cases.items():
        folder = _with_platforms(tmp_path / expected.replace(" ", "_"), platforms)
        err = error_of(capsys, "check", folder)
        assert "platforms.overrides.0" in err and expected in err, err


def test_port_ranges_shorten_every_vendors_port_names():
    from netcfg.model import port_ranges

    assert port_ranges(["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet31"]) == "Ethernet1-3,31"
    assert port_ranges([f"Ethernet1/{n}" for n in (1, 2, 3, 4, 31, 32)]) == "Ethernet1/1-4,31-32"
    assert port_ranges([f"et-0/0/{n}" for n in range(1, 9)] + ["swp1", "swp2"]) == "et-0/0/1-8, swp1-2"
    assert (
        port_ranges(["Management1", "Ethernet1/1", "Ethernet2/1"]) == "Ethernet1/1, Ethernet2/1, Management1"
    )
