"""`netcfg diff` is safe to act on, on every switch platform: another platform's running config in a
device's snapshot is refused (exit 2, one line naming the device and the file), and the diff and its
commands never carry a secret."""

from __future__ import annotations

import shutil

import pytest

from netcfg.cli import main
from netcfg.intent import device_intent
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


# --- NX-OS: a production switch, applied with hier_config's model of it ------------------------------

NXOS_FOREIGN = """username ops password 5 <masked> role network-operator
snmp-server community <masked> group network-operator
feature bgp
feature tacacs+
tacacs-server host 10.9.9.9 key 7 <masked>
aaa group server tacacs+ TAC
  server 10.9.9.9
banner motd #
Authorised use only
#
vrf context management
  ip route 0.0.0.0/0 10.0.0.1
policy-map type queuing OPS_IN
  class type queuing c-in-q-default
    bandwidth percent 100
interface mgmt0
  vrf member management
  ip address 10.0.0.9/24
interface Ethernet2/1
  description storage-array
  mtu 1500
  service-policy type qos input OPS_QOS
router bgp 65101
  router-id 10.0.0.9
  neighbor 10.2.1.0
    remote-as 65000
    password 3 <masked>
"""
NXOS_PORT_LINES = (
    "  ip address 10.1.1.0/31\n",
    "  bfd interval 300 min_rx 300 multiplier 3\n",
    "  speed 400000\n",
)


def _leaves(config, above=()):
    out = set()
    for child in config.children:
        lineage = (*above, child.text)
        out |= _leaves(child, lineage) if child.children else {lineage}
    return out


def test_nxos_remediation_touches_only_netcfgs_lines_and_gives_back_intent(multi_snapshot):
    from hier_config import Platform as HierPlatform
    from hier_config import get_hconfig

    from netcfg.platforms.nxos.remediation import managed_part

    nxos = get_platform("nxos")
    fabric = load_fabric(MULTI)
    device = fabric.devices[SWITCHES["nxos"]]
    intended = nxos.render_config(
        device_intent(device, fabric, load_policy(fabric.policy_ref, MULTI)), device
    )
    running = (multi_snapshot / device.name / "show_running-config.txt").read_text()
    running = running.replace("pause pfc-cos 3", "pause pfc-cos 4").replace(
        "interface Ethernet1/2\n  description gpu02:eth3\n  mtu 9214\n",
        "interface Ethernet1/2\n  description gpu02:eth3\n  mtu 1500\n" + "".join(NXOS_PORT_LINES),
    )
    running = running.replace("feature lldp\n", "feature lldp\n" + NXOS_FOREIGN)
    fix = nxos.remediate(SWITCHES["nxos"], intended, running)
    assert fix is not None and fix.commands.splitlines() == [
        "policy-map type network-qos ROCE_NETWORK_QOS",
        "  class type network-qos c-8q-nq3",
        "    no pause pfc-cos 4",
        "    pause pfc-cos 3",
        "interface Ethernet1/2",
        "  mtu 9214",
    ]

    def tree(text):
        return get_hconfig(HierPlatform.CISCO_NXOS, text)

    def owned(text):
        return _leaves(tree(managed_part(text, intended)))

    after_tree = tree(running).future(tree(fix.commands))
    after = "\n".join(after_tree.dump_simple())
    assert owned(after) == owned(intended), sorted(owned(after) ^ owned(intended))
    assert _leaves(after_tree) - owned(after) == _leaves(tree(running)) - owned(running)
