"""Host link state and counters collected over real SSH (Nornir + netmiko to the lab on 127.0.0.1):
the snapshot parses back to the lab's link state, PCIe links and counters, seeded faults visible."""

from __future__ import annotations

import pytest
import yaml

from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.nornir_inventory import Login
from netcfg.policy import load_policy
from netcfg.sources import snapshot_states
from tests.conftest import LAB
from tests.live_lab import live_audit

LOGIN = Login("auditor", "counters-Lab-pass-3")
FAULTS = {
    "gpu01": DeviceFaults(link_down=["eth1"], speed_gbps={"eth0": 200}),
    "gpu02": DeviceFaults(no_cnp=True, pcie_width={"eth1": 8}),
}


@pytest.fixture(scope="module", params=["connectx", "thor"])
def collected(request, tmp_path_factory):
    """A one-SU, two-server, two-rail copy of the lab on the platform's NICs, audited live."""
    spec = yaml.safe_load((LAB / "fabric.yaml").read_text(encoding="utf-8"))
    spec["platforms"] = {"switch": "eos", "host": request.param}
    spec["topology"].update(scalable_units=1, servers_per_su=2, rails=2)
    spec["topology"]["names"]["rdma_device"] = "bnxt_re{nic0}" if request.param == "thor" else "mlx5_{nic0}"
    folder = tmp_path_factory.mktemp("inventory")
    (folder / "fabric.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    fabric = load_fabric(folder)
    audit = live_audit(fabric, load_policy(fabric.policy_ref), FAULTS, LOGIN, tmp_path_factory)
    return snapshot_states(fabric, audit.snapshot)


def test_link_state_and_faults_read_back_from_the_snapshot(collected):
    gpu01, gpu02 = collected["gpu01"], collected["gpu02"]
    for state in (gpu01, gpu02):
        assert {"link", "counters"} <= state.facets
        assert not state.unparsed
    assert (gpu01.interfaces["eth0"].oper_up, gpu01.interfaces["eth0"].speed_gbps) == (True, 200)
    assert (gpu01.interfaces["eth1"].oper_up, gpu01.interfaces["eth1"].speed_gbps) == (False, None)
    assert (gpu02.interfaces["eth0"].speed_gbps, gpu02.interfaces["eth0"].pcie.width) == (400, 16)
    assert gpu02.interfaces["eth1"].pcie.width == 8


def test_counters_read_back_from_the_snapshot(collected):
    gpu01, gpu02 = collected["gpu01"], collected["gpu02"]
    # A port that is down shows no counters in the lab; the others count since the lab's epoch.
    assert set(gpu01.counters) == {"eth0"} and set(gpu02.counters) == {"eth0", "eth1"}
    for counters in [*gpu01.counters.values(), *gpu02.counters.values()]:
        assert counters.link_downs == 1 and counters.fec_corrected > 0 and counters.pause_rx[3] > 0
        assert counters.cnp_handled > 0 and counters.ecn_marked_roce > 0
    assert gpu01.counters["eth0"].cnp_sent > 0
    assert all(c.cnp_sent == 0 for c in gpu02.counters.values())
    assert gpu01.read_at is not None
