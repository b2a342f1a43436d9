"""`netcfg diff` is safe to act on, on every switch platform: another platform's running config in a
device's snapshot is refused (exit 2, one line naming the device and the file), and the diff and its
commands never carry a secret."""

from __future__ import annotations

import shutil

import pytest

from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.platforms import get_platform
from netcfg.policy import load_policy
from tests.conftest import LAB, ROOT

MULTI = ROOT / "inventories" / "lab-multi"
# One switch of each platform in the five-vendor lab.
SWITCHES = {"eos": "leaf-su1-r1", "cumulus": "leaf-su1-r2", "sonic": "leaf-su1-r3", "nxos": "leaf-su1-r4"}
SWITCHES["junos"] = "spine1"


@pytest.fixture(scope="module")
def multi_snapshot(tmp_path_factory):
    fabric = load_fabric(MULTI)
    policy = load_policy(fabric.policy_ref, MULTI)
    return write_simulated_snapshot(fabric, policy, {}, tmp_path_factory.mktemp("multi") / "snap")


def running_config(snapshot, platform: str) -> str:
    file = get_platform(platform).running_config_file
    return (snapshot / SWITCHES[platform] / f"{file}.txt").read_text()


@pytest.mark.parametrize("mine", sorted(SWITCHES))
def test_each_platform_knows_its_own_running_config_and_refuses_every_other(multi_snapshot, mine):
    platform = get_platform(mine)
    assert platform.not_running_config(running_config(multi_snapshot, mine)) is None
    for other in sorted(set(SWITCHES) - {mine}):
        found = platform.not_running_config(running_config(multi_snapshot, other))
        assert found is not None, f"{mine} took {other}'s running config for its own"


def test_an_nxos_config_in_an_eos_leafs_slot_is_refused_naming_the_device_and_file(
    multi_snapshot, tmp_path, capsys
):
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(LAB), "-o", str(snapshot)]) == 0
    slot = snapshot / "leaf-su1-r1" / "show_running-config.txt"
    slot.write_text(running_config(multi_snapshot, "nxos"))
    capsys.readouterr()
    assert main(["diff", str(LAB), "--snapshot", str(snapshot)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and f"leaf-su1-r1: {slot}:" in err[0], err
    assert "not an EOS running config: an NX-OS config" in err[0]
    assert "commands to restore intent" not in captured.out


SECRET_LINES = [
    "username admin privilege 15 role network-admin secret sha512 $6$Unmasked.Hash$abcdef",
    "snmp-server community Sup3rS3cret ro",
    "tacacs-server host 10.9.9.9 key 7 0822455D0A16",
]


def test_the_diff_never_prints_a_secret_even_from_a_snapshot_saved_unmasked(tmp_path, capsys):
    snapshot = tmp_path / "snap"
    faults = tmp_path / "faults.yaml"
    faults.write_text("devices:\n  leaf-su1-r3: {pfc_priority: 4}\n")
    assert main(["lab", "snapshot", str(LAB), "--faults", str(faults), "-o", str(snapshot)]) == 0
    slot = snapshot / "leaf-su1-r3" / "show_running-config.txt"
    slot.write_text(slot.read_text().replace("lldp run\n", "lldp run\n" + "\n".join(SECRET_LINES) + "\n"))
    capsys.readouterr()
    assert main(["diff", str(LAB), "--snapshot", str(snapshot)]) == 1
    out = capsys.readouterr().out
    assert "priority-flow-control priority 3 no-drop" in out
    for secret in ("Unmasked.Hash", "Sup3rS3cret", "0822455D0A16", "username", "snmp-server"):
        assert secret not in out, secret


def test_a_snapshot_of_the_lab_as_intended_differs_nowhere(tmp_path, capsys):
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(LAB), "-o", str(snapshot)]) == 0
    shutil.rmtree(snapshot / "gpu01")
    capsys.readouterr()
    assert main(["diff", str(LAB), "--snapshot", str(snapshot)]) == 0
    assert "0 switch(es) differ from intent" in capsys.readouterr().out
