"""Numbers no device prints, in every platform's configs and command outputs: a 5,000-digit run, a
400-digit counter, `1e999`, -1, 2^64. Each is reported once as unreadable (a config file: exit 2
naming its line), never crashes a rule, and never becomes a finding about the network."""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.checks.runner import run_checks
from netcfg.cli import main
from netcfg.errors import InputError
from netcfg.inventory import load_fabric
from netcfg.lab.snapshot import write_simulated_snapshot
from netcfg.model import Fabric
from netcfg.platforms import get_platform
from netcfg.plausible import overlong_number
from netcfg.policy import Policy, load_policy
from netcfg.render import render_fabric, write_rendered
from netcfg.snapshot import read_device_outputs
from netcfg.sources import config_states, device_state, snapshot_states

MULTI = Path(__file__).resolve().parent.parent / "inventories" / "lab-multi" / "fabric.yaml"
LAB = Path(__file__).resolve().parent.parent / "inventories" / "lab" / "fabric.yaml"
# Beyond what Python turns into an int; beyond a float; not an integer; beyond a 64-bit counter.
SWEPT = ("9" * 5000, "9" * 400 + ".5", "1e999", str(2**64))


@pytest.fixture(scope="module")
def multi() -> tuple[Fabric, Policy]:
    fabric = load_fabric(MULTI)
    return fabric, load_policy(fabric.policy_ref, MULTI.parent)


@pytest.fixture(scope="module")
def lab_snapshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two readings of the lab five minutes apart, as `netcfg audit` saves them."""
    root = tmp_path_factory.mktemp("snapshots")
    fabric = load_fabric(LAB)
    policy = load_policy(fabric.policy_ref)
    start = time.time() - 300
    for reading, name in enumerate(("before", "after")):
        write_simulated_snapshot(fabric, policy, {}, root / name, start + 300 * reading, reading)
    return root


def _with_crc(snapshots: Path, tmp_path: Path, crc: str) -> Path:
    after = tmp_path / "after"
    shutil.copytree(snapshots / "after", after)
    shown = after / "leaf-su1-r1" / "show_interfaces.txt"
    text = shown.read_text()
    shown.write_text(text.replace(" 0 CRC,", f" {crc} CRC,", 1))
    return after


@pytest.mark.parametrize(
    ("crc", "command", "reason"),
    [
        (
            "9" * 400,
            "port counters",
            r"Ethernet\d+ crc_errors reads 999999999999\.\.\. \(400 characters\), beyond",
        ),
        ("9" * 5000, "show interfaces", r"line \d+: a number of 5,000 digits, longer than any number"),
    ],
)
def test_an_impossible_counter_is_one_unreadable_output_and_nothing_else(
    lab_snapshots: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    crc: str,
    command: str,
    reason: str,
) -> None:
    after = _with_crc(lab_snapshots, tmp_path, crc)
    argv = ["check", str(LAB), "--snapshot", str(after), "--previous", str(lab_snapshots / "before")]
    rc = main([*argv, "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert rc == 1
    assert [(f["device"], f["rule"]) for f in findings] == [("leaf-su1-r1", "parse.unknown_output")]
    assert f"could not read '{command}'" in findings[0]["message"]
    assert re.search(reason, findings[0]["message"])


@pytest.mark.parametrize(
    ("device", "setting", "error"),
    [
        ("leaf-su1-r1", ("   mtu 9214", "   mtu " + "9" * 5000), r"a number of 5,000 digits; expected a"),
        (
            "leaf-su1-r4",
            ("  mtu 9214", "  mtu 1e999"),
            r"Ethernet1/\d+ mtu reads 1e999; expected a whole number below 2\^32",
        ),
        (
            "leaf-su1-r1",
            ("   mtu 9214", "   mtu 9214x"),
            r"Ethernet\d+ mtu reads 9214x; expected a whole number",
        ),
        # Spelled out, this range alone would take gigabytes.
        (
            "leaf-su1-r1",
            ("qos map dscp 26 to", "qos map dscp 0-999999999 to"),
            r"cannot read running-config: 'qos map dscp 0-999999999' names values EOS does not have \(DSCPs",
        ),
        (
            "leaf-su1-r1",
            ("minimum-threshold 150 kbytes", "minimum-threshold " + "9" * 400 + " kbytes"),
            r"Ethernet\d+ ecn\[\d\]\.min_bytes reads \d{12}\.\.\. \(\d{3} characters\); expected a whole",
        ),
    ],
)
def test_a_config_with_an_impossible_number_is_refused_naming_its_line(
    multi: tuple[Fabric, Policy],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    device: str,
    setting: tuple[str, str],
    error: str,
) -> None:
    fabric, policy = multi
    files = render_fabric(fabric, policy)
    (file,) = [f for f in files if Path(f).stem == device]
    assert setting[0] in files[file]
    files[file] = files[file].replace(setting[0], setting[1], 1)
    configs = tmp_path / "configs"
    write_rendered(files, configs)
    rc = main(["check", str(MULTI), "--configs", str(configs)])
    err = capsys.readouterr().err
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert re.search(rf"{device}\.\w+:\d+: {error}", " ".join(line.split())), line


def _numbers(text: str, most: int) -> list[re.Match[str]]:
    """Up to `most` numbers of `text`, each in a line of another shape (digits aside), spread over it."""
    shapes: dict[str, re.Match[str]] = {}
    for found in re.finditer(r"\d+", text):
        start, end = text.rfind("\n", 0, found.start()) + 1, text.find("\n", found.end())
        shape = (
            re.sub(r"\d+", "#", text[start : found.start()])
            + "@"
            + re.sub(r"\d+", "#", text[found.end() : end])
        )
        shapes.setdefault(shape, found)
    spots = list(shapes.values())
    return spots[:: max(1, -(-len(spots) // most))]


def test_no_impossible_number_in_any_platforms_output_crashes_a_check(
    multi: tuple[Fabric, Policy], tmp_path: Path
) -> None:
    """Every platform's every command output, numbers swapped for hostile ones here and there: the
    check runs to its findings."""
    fabric, policy = multi
    start = time.time() - 300
    for reading, name in enumerate(("before", "after")):
        write_simulated_snapshot(fabric, policy, {}, tmp_path / name, start + 300 * reading, reading)
    before, after = (snapshot_states(fabric, tmp_path / name) for name in ("before", "after"))
    platforms: dict[str, str] = {}
    for name, device in fabric.devices.items():
        platforms.setdefault(device.platform, name)
    tried = 0
    for name in platforms.values():
        device = fabric.devices[name]
        outputs = read_device_outputs(tmp_path / "after" / name)
        for file, text in outputs.items():
            for found in _numbers(text, 2):
                for number in SWEPT:
                    changed = {**outputs, file: text[: found.start()] + number + text[found.end() :]}
                    state = device_state(device, changed, None)
                    state.read_at = after[name].read_at
                    run_checks(fabric, policy, {**after, name: state}, before)
                    tried += 1
    assert tried > 100, tried


def test_no_impossible_number_in_any_platforms_config_crashes_a_check(
    multi: tuple[Fabric, Policy], tmp_path: Path
) -> None:
    """Every platform's config, numbers swapped for hostile ones here and there: exit 2 or findings."""
    fabric, policy = multi
    rendered = render_fabric(fabric, policy)
    platforms: dict[str, str] = {}
    for file in rendered:
        platforms.setdefault(fabric.devices[Path(file).stem].platform, file)
    refused = 0
    for file in platforms.values():
        text = rendered[file]
        for found in _numbers(text, 8):
            for number in SWEPT:
                folder = tmp_path / f"{Path(file).stem}-{found.start()}-{len(number)}"
                write_rendered(
                    {**rendered, file: text[: found.start()] + number + text[found.end() :]}, folder
                )
                try:
                    run_checks(fabric, policy, config_states(fabric, folder))
                except InputError:
                    refused += 1
    assert refused > 0


def test_a_threshold_beyond_a_float_is_an_unknown_threshold(
    multi: tuple[Fabric, Policy], tmp_path: Path
) -> None:
    """`min-threshold 9…9.48 KB` in a Cumulus leaf's `nv show qos roce` (as a float it is infinite):
    the operational threshold is unknown, which the check names; nothing raises."""
    fabric, policy = multi
    write_simulated_snapshot(fabric, policy, {}, tmp_path, time.time(), 0)
    states = snapshot_states(fabric, tmp_path)
    outputs = read_device_outputs(tmp_path / "leaf-su1-r2")
    text = outputs["nv_show_qos_roce"]
    assert re.search(r"min-threshold\s+[\d.]+ KB", text)
    outputs["nv_show_qos_roce"] = re.sub(
        r"(min-threshold\s+)[\d.]+", r"\g<1>" + "9" * 400 + ".48", text, count=1
    )
    states["leaf-su1-r2"] = device_state(fabric.devices["leaf-su1-r2"], outputs, None)
    findings = [f for f in run_checks(fabric, policy, states) if f.device == "leaf-su1-r2"]
    assert findings and all(f.rule.startswith(("ecn.", "rail.", "config.", "parse.")) for f in findings)


@pytest.mark.parametrize(
    ("device", "old", "new", "error"),
    [
        # config_db JSON: json.loads itself raised on the number (exit 3).
        ("leaf-su1-r3", '"mtu": "9214"', '"mtu": ' + "9" * 5000, "a number of 5,000 digits"),
        ("leaf-su1-r1", "mtu 9214", "mtu " + "9" * 5000, "a number of 5,000 digits"),
        ("leaf-su1-r4", "mtu 9216", "mtu 9216\0", "NUL byte; expected UTF-8 text"),
    ],
)
def test_diff_refuses_an_unreadable_running_config_naming_its_line(
    multi: tuple[Fabric, Policy],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    device: str,
    old: str,
    new: str,
    error: str,
) -> None:
    """`diff` guards the running config it compares as `check` guards a collected output."""
    fabric, policy = multi
    write_simulated_snapshot(fabric, policy, {}, tmp_path / "snap", time.time(), 0)
    platform = get_platform(fabric.devices[device].platform)
    running = tmp_path / "snap" / device / f"{platform.running_config_file}.txt"
    text = running.read_text(encoding="utf-8")
    assert old in text
    running.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    rc = main(["diff", str(MULTI), "--snapshot", str(tmp_path / "snap"), "--device", device])
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert rc == 2, err
    assert err.startswith(f"netcfg: error: {device}: {running}:{line}: {error}"), err


def test_diff_work_grows_with_the_running_config_not_its_square(monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 interfaces the intent lacks took 5.6 s to diff, 100,000 over two minutes: hier_config
    negated each in the remediation it builds, and each negation rebuilt the look-up table of all its
    siblings. Counted in entries rebuilt, four times the config is about four times the work (it was
    sixteen)."""
    from hier_config.children import HConfigChildren

    from netcfg.remediation import hier_config_remediation

    rebuilt: list[int] = []
    rebuild = HConfigChildren.rebuild_mapping

    def counted(children: HConfigChildren) -> None:
        rebuilt.append(len(children))
        rebuild(children)

    monkeypatch.setattr(HConfigChildren, "rebuild_mapping", counted)

    def work(ports: int) -> int:
        # The shared hier_config remediation every tree platform's diff ends in (EOS itself now
        # compares only the lines netcfg renders, so it would not negate these).
        rebuilt.clear()
        running = "".join(f"interface Ethernet{i}\n   mtu 1500\n" for i in range(1, ports + 1))
        fix = hier_config_remediation("leaf1", "ARISTA_EOS", "interface Ethernet1\n   mtu 9214\n", running)
        assert f"no interface Ethernet{ports}" in fix.commands
        return sum(rebuilt)

    small, large = work(1000), work(4000)
    assert large <= 5 * small, (small, large)


def test_diff_prints_config_lines_as_they_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A diff is printed unwrapped: a line wrapped at the terminal width is no longer a diff line."""
    fabric = load_fabric(LAB)
    write_simulated_snapshot(fabric, load_policy(fabric.policy_ref), {}, tmp_path / "snap", time.time(), 0)
    running = tmp_path / "snap" / "leaf-su1-r1" / "show_running-config.txt"
    long = "description " + "x" * 300
    running.write_text(running.read_text(encoding="utf-8").replace("description gpu01:eth0", long, 1))
    assert main(["diff", str(LAB), "--snapshot", str(tmp_path / "snap"), "--device", "leaf-su1-r1"]) == 1
    assert f"-   {long}" in capsys.readouterr().out.splitlines()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(1, 30).map(lambda n: "7" * n),
            st.integers(4290, 4310).map(lambda n: "3" * n),
            st.sampled_from([" ", "\n", "x", ".", "-"]),
        ),
        max_size=12,
    )
)
def test_overlong_number_names_the_first_long_run_and_its_whole_length(parts: list[str]):
    """Whatever the text, the first run of digits longer than Python reads is found, with its line and
    every digit of it counted, as a plain scan of the runs finds it."""
    text = "".join(parts)
    limit = sys.get_int_max_str_digits()
    runs = [(m.start(), len(m.group())) for m in re.finditer(r"\d+", text) if len(m.group()) > limit]
    expected = (text.count("\n", 0, runs[0][0]) + 1, runs[0][1]) if runs else None
    assert overlong_number(text) == expected
