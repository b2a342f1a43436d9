"""Missing evidence is unknown, never a verdict. From what each platform's simulated switch or host
prints (inventories/lab-multi has all seven), every command output, config section, table, stanza
and referenced object is deleted in turn: no finding may go from unknown (or absent) to a definite
negative ("off", "not configured", "no neighbour"). What could not be read is named once per device,
by `parse.incomplete` or `parse.unknown_output`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from netcfg.checks.runner import run_checks
from netcfg.inventory import load_fabric
from netcfg.lab.devices import live_states
from netcfg.model import DeviceState, Fabric
from netcfg.platforms import get_platform
from netcfg.platforms.simulator import simulator
from netcfg.policy import Policy, load_policy
from tests.conftest import ROOT

LAB = ROOT / "inventories" / "lab-multi"
# One device of each platform, and the output that holds its configuration.
DEVICES = {
    "eos": "leaf-su2-r1",
    "nxos": "leaf-su1-r4",
    "junos": "spine1",
    "sonic": "leaf-su1-r3",
    "cumulus": "leaf-su1-r2",
    "connectx": "gpu01",
    "thor": "gpu05",
}
# Findings that say "could not read" rather than judge a setting.
NOT_VERDICTS = ("parse.", "collect.", "state.")


@pytest.fixture(scope="module")
def lab() -> tuple[Fabric, Policy, dict[str, DeviceState]]:
    fabric = load_fabric(LAB)
    policy = load_policy(fabric.policy_ref, LAB)
    return fabric, policy, live_states(fabric, policy)


def _outputs(fabric: Fabric, live: dict[str, DeviceState], name: str) -> dict[str, str]:
    device = fabric.devices[name]
    printed = simulator(device.platform).render_outputs(live[name], device)
    return {c.file: printed[c.cli] for c in get_platform(device.platform).commands(device)}


def _verdicts(fabric, policy, live, name: str, outputs: dict[str, str]) -> set[tuple[str, str, str, str]]:
    device = fabric.devices[name]
    states = dict(live)
    states[name] = get_platform(device.platform).parse_outputs(outputs, device)
    return {(f.device, f.rule, f.interface or "", f.actual) for f in run_checks(fabric, policy, states)}


def _referenced(name: str, rest: list[str]) -> bool:
    """Whether a name (not a keyword or a value: it has a capital, an underscore or a digit among
    letters) stands in another line."""
    if not re.search(r"[A-Z_]|[a-z].*\d|\d.*[a-z]", name) or re.fullmatch(r"[\d.]+[a-z]*", name):
        return False
    return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line) for line in rest)


def _blocks(text: str) -> Iterator[tuple[str, str]]:
    """An indented CLI config (EOS, NX-OS) without each top-level section another line refers to by
    name (a QoS profile, policy map or class map a port or policy binds) in turn. A section nothing
    names is left: in a whole running config its absence is the platform's default, which is evidence."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line[:1].isalnum()]
    for a, b in zip(starts, [*starts[1:], len(lines)], strict=True):
        name = lines[a].split()[-1]
        if _referenced(name, lines[:a] + lines[b:]):
            yield lines[a].strip(), "".join(lines[:a] + lines[b:])


def _stanzas(text: str, depth: int) -> Iterator[tuple[str, str]]:
    """`set` lines (Junos, NVUE) without each named stanza (lines sharing their first `depth` words,
    the last of them a name) that other lines refer to, in turn."""
    lines = text.splitlines(keepends=True)
    groups = dict.fromkeys(" ".join(line.split()[:depth]) for line in lines if len(line.split()) > depth)
    for group in groups:
        kept = [line for line in lines if " ".join(line.split()[:depth]) != group]
        if _referenced(group.split()[-1], kept):
            yield group, "".join(kept)


def _tables(text: str) -> Iterator[tuple[str, str]]:
    """A config_db document without each named object a port or another table refers to, in turn;
    then, as a fragment (no PORT or DEVICE_METADATA: sonic-cfggen's qos.json), without each table."""
    db = json.loads(text)
    for table in (
        "DSCP_TO_TC_MAP",
        "TC_TO_QUEUE_MAP",
        "TC_TO_PRIORITY_GROUP_MAP",
        "MAP_PFC_PRIORITY_TO_QUEUE",
        "WRED_PROFILE",
        "SCHEDULER",
        "BUFFER_PROFILE",
    ):
        for name in db.get(table, {}):
            kept = {k: v for k, v in db[table].items() if k != name}
            yield f"{table}|{name}", json.dumps({**db, table: kept})
    fragment = {k: v for k, v in db.items() if k not in ("PORT", "DEVICE_METADATA")}
    for table in fragment:
        yield f"fragment without {table}", json.dumps({k: v for k, v in fragment.items() if k != table})


def _config_mutations(platform: str, outputs: dict[str, str]) -> Iterator[tuple[str, dict[str, str]]]:
    file = get_platform(platform).running_config_file
    if file is None:
        return
    text = outputs[file]
    split = {
        "eos": _blocks,
        "nxos": _blocks,
        "junos": lambda t: _stanzas(t, 4),
        "cumulus": lambda t: _stanzas(t, 5),
        "sonic": _tables,
    }[platform]
    for what, mutated in split(text):
        yield what, {**outputs, file: mutated}


def _mutations(platform: str, outputs: dict[str, str]) -> Iterator[tuple[str, dict[str, str]]]:
    for file in outputs:
        yield f"output {file}", {k: v for k, v in outputs.items() if k != file}
    yield from _config_mutations(platform, outputs)


def _definite(found: set[tuple[str, str, str, str]]) -> set[tuple[str, str, str, str]]:
    return {f for f in found if not f[1].startswith(NOT_VERDICTS) and "unknown" not in f[3]}


@pytest.mark.parametrize("platform", sorted(DEVICES))
def test_deleting_evidence_never_gives_a_definite_negative(lab, platform):
    fabric, policy, live = lab
    name = DEVICES[platform]
    outputs = _outputs(fabric, live, name)
    before = _verdicts(fabric, policy, live, name, outputs)
    wrong = {}
    for what, mutated in _mutations(platform, outputs):
        new = _definite(_verdicts(fabric, policy, live, name, mutated) - before)
        if new:
            wrong[what] = sorted(new)
    assert wrong == {}


def test_a_sonic_fragment_without_a_watchdog_or_queue_table_is_unknown_there(lab):
    """sonic-cfggen's qos.json holds no PFC_WD; a buffers.json holds no QUEUE either: the watchdog, ECN
    and strict queues are named once as not shown, never as "not configured" or "off"."""
    fabric, policy, live = lab
    name = DEVICES["sonic"]
    outputs = _outputs(fabric, live, name)
    file = get_platform("sonic").running_config_file
    db = json.loads(outputs[file])
    fragment = {t: v for t, v in db.items() if t not in ("PORT", "DEVICE_METADATA", "PFC_WD", "QUEUE")}
    found = _verdicts(fabric, policy, live, name, {**outputs, file: json.dumps(fragment)})
    mine = {f for f in found if f[0] == name}
    rules = {rule for _, rule, _, _ in mine}
    assert not rules & {
        "pfc.watchdog",
        "ecn.enabled",
        "ecn.thresholds",
        "cnp.strict_queue",
        "sonic.pfcwd_coverage",
    }
    (incomplete,) = [f for f in mine if f[1] == "parse.incomplete"]
    assert re.fullmatch(r"not shown: watchdog; Ethernet\S+: ecn, strict_queues", incomplete[3]), incomplete


def test_a_queue_bound_to_an_undefined_profile_or_scheduler_is_unknown(lab):
    fabric, policy, live = lab
    name = DEVICES["sonic"]
    outputs = _outputs(fabric, live, name)
    file = get_platform("sonic").running_config_file
    db = json.loads(outputs[file])
    db["WRED_PROFILE"], db["SCHEDULER"] = {}, {}
    found = {
        f for f in _verdicts(fabric, policy, live, name, {**outputs, file: json.dumps(db)}) if f[0] == name
    }
    assert not {rule for _, rule, _, _ in found} & {"ecn.enabled", "cnp.strict_queue"}
    assert any(rule == "parse.incomplete" and "ecn, strict_queues" in actual for _, rule, _, actual in found)


def test_cumulus_lldp_comes_from_lldpd_not_the_interface_table(lab):
    """The interface table's `lldp` objects are no documented neighbour list: without them nothing
    changes; without lldpd's table what each port hears is unknown, named once."""
    fabric, policy, live = lab
    name = DEVICES["cumulus"]
    outputs = _outputs(fabric, live, name)
    before = _verdicts(fabric, policy, live, name, outputs)
    file = "nv_show_interface_json"
    ports = json.loads(outputs[file])
    for entry in ports.values():
        entry.pop("lldp", None)
    assert _verdicts(fabric, policy, live, name, {**outputs, file: json.dumps(ports)}) == before
    found = {
        f
        for f in _verdicts(
            fabric, policy, live, name, {**outputs, "lldpcli_show_neighbors": "Permission denied\n"}
        )
        if f[0] == name
    }
    assert not any(rule.startswith("cabling.") for _, rule, _, _ in found)
    assert any(rule == "parse.unknown_output" for _, rule, _, _ in found)


def test_the_intent_of_every_platform_reads_back_with_nothing_unshown(lab):
    """The mutation tests start from a clean reading: the lab's outputs show everything."""
    fabric, policy, live = lab
    for name in DEVICES.values():
        found = _verdicts(fabric, policy, live, name, _outputs(fabric, live, name))
        assert not [f for f in found if f[1] == "parse.incomplete"], name


def test_an_nxos_network_qos_class_the_config_does_not_define_is_unknown_not_pausing_nothing(lab):
    """`class type network-qos RDMA` under the system network-qos policy with no such class map: what
    it pauses is unknown, named once; the ports are not said to pause nothing."""
    fabric, policy, live = lab
    name = DEVICES["nxos"]
    outputs = _outputs(fabric, live, name)
    file = get_platform("nxos").running_config_file
    assert "  class type network-qos c-8q-nq3\n" in outputs[file]
    undefined = outputs[file].replace(
        "  class type network-qos c-8q-nq3\n", "  class type network-qos RDMA\n"
    )
    found = {f for f in _verdicts(fabric, policy, live, name, {**outputs, file: undefined}) if f[0] == name}
    assert not {rule for _, rule, _, _ in found} & {
        "pfc.no_drop_priorities",
        "link.pfc_mismatch",
        "pfc.headroom",
    }
    (incomplete,) = [actual for _, rule, _, actual in found if rule == "parse.incomplete"]
    assert "no_drop_priorities" in incomplete
