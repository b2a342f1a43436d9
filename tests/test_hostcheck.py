"""`netcfg host-check` end to end, as a scheduler runs it: a program (subprocess) on a GPU server
whose /sys is a fake tree and whose mlnx_qos / bnxtqos / ethtool / lldpcli are fake executables on
PATH, both printing what the lab's host prints (netcfg.lab.snapshot.simulated_devices). Healthy it
exits 0; with seeded faults today's rules catch, 1 naming them; with a tool missing or sysfs
unreadable, 2 and one line."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from netcfg.cli import build_parser, main
from netcfg.inventory import load_fabric
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.snapshot import simulated_devices
from netcfg.platforms import get_platform
from netcfg.policy import load_policy
from tests.conftest import LAB

THOR_INVENTORY = Path(__file__).parent / "fixtures" / "thor" / "inventory"
READ_AT = 1_780_000_000.0
# A fake tool prints the lab's reply to its exact argv; anything else it refuses, as a real tool
# refuses arguments it does not know. Only the shell's own words: PATH holds nothing but the fakes.
TOOL = """#!/bin/sh
reply="${0%/*}/replies/${0##*/} $*"
if [ -f "$reply" ]; then
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\\n' "$line"; done < "$reply"
  exit 0
fi
echo "${0##*/}: invalid arguments: $*" >&2
exit 1
"""


def fake_host(
    tmp_path: Path, inventory: Path, name: str, faults: DeviceFaults | None = None
) -> tuple[Path, Path]:
    """A server's /sys tree (under root/) and its tools (in bin/), as the lab's `name` prints them."""
    fabric = load_fabric(inventory)
    policy = load_policy(fabric.policy_ref)
    simulated = simulated_devices(fabric, policy, {name: faults} if faults else {})[name]
    outputs = simulated.outputs(READ_AT)
    root, tools = tmp_path / "root", tmp_path / "bin"
    (tools / "replies").mkdir(parents=True)
    files: dict[Path, list[str]] = {}
    for cmd in get_platform(simulated.device.platform).commands(simulated.device):
        text = outputs[cmd.cli]
        if cmd.cli.startswith(("grep -rH . ", "grep -rsHvx ")):
            for line in text.splitlines():
                path, _, value = line.partition(":")
                files.setdefault(root / path.lstrip("/"), []).append(value)
        else:
            tool = shlex.split(cmd.cli)[0]
            (tools / "replies" / cmd.cli).write_text(text, encoding="utf-8")
            (tools / tool).write_text(TOOL, encoding="utf-8")
            (tools / tool).chmod(0o755)
    for path, values in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{v}\n" for v in values), encoding="utf-8")
    return root, tools


def host_check(
    inventory: Path, host: str, root: Path, tools: Path, *extra: str
) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": str(tools)}
    argv = ["--inventory", str(inventory), "--host", host, "--root", str(root), *extra]
    return subprocess.run(
        [sys.executable, "-m", "netcfg", "host-check", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_healthy_connectx_server_passes(tmp_path: Path):
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    done = host_check(LAB, "gpu02", root, tools)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "gpu02: healthy"


def test_seeded_faults_fail_the_gate_by_name(tmp_path: Path):
    root, tools = fake_host(tmp_path, LAB, "gpu05", DeviceFaults(trust="pcp", firmware="28.35.1012"))
    done = host_check(LAB, "gpu05", root, tools)
    assert done.returncode == 1, done.stdout + done.stderr
    headline = done.stdout.splitlines()[0]
    assert headline.startswith("gpu05: ") and len(headline) <= 80
    assert "qos.trust" in headline and "firmware.allowed" in headline
    assert "28.35.1012" in done.stdout and "pcp" in done.stdout


def test_a_missing_tool_cannot_be_judged(tmp_path: Path):
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    (tools / "lldpcli").unlink()
    done = host_check(LAB, "gpu02", root, tools)
    assert done.returncode == 2
    assert done.stdout == (
        "gpu02: cannot judge: lldpcli show neighbors: lldpcli is not installed "
        "(not found on PATH or in /usr/sbin, /sbin, /usr/bin, /bin, /usr/local/sbin, /usr/local/bin)\n"
    )


def test_a_host_without_mlxreg_is_still_judged(tmp_path: Path):
    """NVIDIA's MFT is not on every GPU server: without `mlxreg` the NIC's reordering setting is
    unknown, and the rest of the host is judged as before."""
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    (tools / "mlxreg").unlink()
    done = host_check(LAB, "gpu02", root, tools)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "gpu02: healthy"


def test_without_path_the_tools_are_found_in_the_system_folders(tmp_path: Path):
    """As slurmd starts a prolog: no PATH at all. The fakes are mounted on /usr/local/sbin in a
    mount namespace of the test's own, which nothing else on the machine sees."""
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    done = host_check_without_path(root, tools)
    assert (done.returncode, done.stdout.splitlines()[:1]) == (0, ["gpu02: healthy"]), done.stderr
    (tools / "lldpcli").unlink()
    done = host_check_without_path(root, tools)
    assert done.returncode == 2
    assert done.stdout.endswith(
        ": lldpcli is not installed (not found (no PATH) in /usr/sbin, /sbin, "
        "/usr/bin, /bin, /usr/local/sbin, /usr/local/bin)\n"
    )


def host_check_without_path(root: Path, tools: Path) -> subprocess.CompletedProcess:
    netcfg = [sys.executable, "-m", "netcfg", "host-check", "--inventory", str(LAB), "--host", "gpu02"]
    netcfg += ["--root", str(root)]
    script = 'mount --bind "$0" /usr/local/sbin && exec env -u PATH "$@"'
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(tools), *netcfg],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
        timeout=60,
        check=False,
    )


# A tool that hangs, and starts a process of its own that would outlive it.
HUNG_TOOL = """#!/bin/sh
/bin/sleep 300 &
echo $! $$ > "${0%/*}/pids"
wait
"""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize(
    ("options", "why"),
    [
        (["--deadline", "2"], "no answer from lldpcli: not done within the 2 s deadline (--deadline)"),
        (["--timeout", "1"], "no answer within 1 s (--timeout)"),
    ],
)
def test_a_hung_tool_ends_the_check_in_time_and_leaves_no_process(tmp_path: Path, options, why):
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    # The same check with every tool answering, on this minute of this machine: a loaded machine
    # slows starting Python and netcfg, not the deadline, which is what is timed here.
    started = time.monotonic()
    assert host_check(LAB, "gpu02", root, tools, *options).returncode == 0
    answering = time.monotonic() - started
    (tools / "lldpcli").write_text(HUNG_TOOL, encoding="utf-8")
    started = time.monotonic()
    done = host_check(LAB, "gpu02", root, tools, *options)
    took = time.monotonic() - started
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.startswith(f"gpu02: cannot judge: lldpcli show neighbors: {why}")
    # The tool would hang for 300 s; the deadline and the timeout are 2 s and 1 s.
    assert took < 2 * answering + 5, (took, answering)
    pids = [int(p) for p in (tools / "pids").read_text().split()]
    assert [p for p in pids if _alive(p)] == []


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--interval", "1e300", "expected a number of seconds of at least 0 and at most 600, got '1e300'"),
        ("--timeout", "1e9", "expected a number of seconds above 0 and at most 600, got '1e9'"),
        ("--deadline", "inf", "expected a number of seconds above 0 and at most 600, got 'inf'"),
    ],
)
def test_an_endless_wait_is_refused_by_name(capsys: pytest.CaptureFixture[str], option, value, expected):
    code = main(["host-check", "--inventory", str(LAB), option, value])
    assert code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(f"argument {option}: {expected}")


def test_an_interval_as_long_as_the_deadline_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    root, _ = fake_host(tmp_path, LAB, "gpu02")
    argv = ["--inventory", str(LAB), "--host", "gpu02", "--root", str(root), "--interval", "30"]
    assert main(["host-check", *argv]) == 2
    assert capsys.readouterr().err == "netcfg: error: --interval 30: less than --deadline (20 s)\n"


def test_an_unreadable_sysfs_cannot_be_judged(tmp_path: Path):
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    shutil.rmtree(root / "sys/class/infiniband/mlx5_1/ports/1/hw_counters")
    done = host_check(LAB, "gpu02", root, tools)
    assert done.returncode == 2
    (line,) = done.stdout.splitlines()
    assert line.startswith("gpu02: cannot judge: grep -rH . /sys/class/net/eth1/device/current_link_width")
    assert line.endswith("/sys/class/infiniband/mlx5_1/ports/1/hw_counters: No such file or directory")


def test_a_missing_rdma_device_leaves_its_gids_unjudged(tmp_path: Path):
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    shutil.rmtree(root / "sys/class/infiniband/mlx5_1")
    done = host_check(LAB, "gpu02", root, tools)
    assert done.returncode == 2
    (line,) = done.stdout.splitlines()
    assert line == (
        "gpu02: cannot judge: grep -rsHvx '[0:]*' /sys/class/infiniband/mlx5_1/ports/1/gids "
        "/sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types "
        "/sys/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs"
        ": no GID under the paths it reads"
    )


def test_a_thor_server_read_twice_reports_json(tmp_path: Path):
    root, tools = fake_host(tmp_path, THOR_INVENTORY, "gpu03", DeviceFaults(mtu={"eth1": 1500}))
    done = host_check(THOR_INVENTORY, "gpu03", root, tools, "--interval", "0.2", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert {(f["rule"], f["interface"]) for f in report["findings"]} == {("mtu.host", "eth1")}
    assert done.stderr.splitlines()[0] == "gpu03: 1 finding: mtu.host"


def test_a_host_not_in_the_inventory_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    code = main(["host-check", "--inventory", str(LAB), "--host", "leaf-su1-r1", "--root", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("netcfg: error: --host leaf-su1-r1: a host of the inventory")
    assert len(err.splitlines()) == 1


def test_a_root_without_sys_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    code = main(
        ["host-check", "--inventory", str(LAB), "--host", "gpu01", "--root", str(tmp_path / "nowhere")]
    )
    assert code == 2
    assert capsys.readouterr().err == (
        f"netcfg: error: --root {tmp_path / 'nowhere'}: a folder holding the host's /sys (default /)\n"
    )


def readme_npd_config() -> dict:
    readme = (Path(__file__).parent.parent / "docs" / "host-gate.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```json\n(.*?)```", readme, flags=re.S) if "netcfg-host-check" in b]
    return json.loads(block)


def manifest_npd_config() -> dict:
    manifest = Path(__file__).parent.parent / "deploy" / "kubernetes" / "node-problem-detector.yaml"
    (config_map,) = [d for d in yaml.safe_load_all(manifest.read_text()) if d["kind"] == "ConfigMap"]
    (text,) = config_map["data"].values()
    return json.loads(text)


# The plugin config the host-gate page documents, and the one deploy/kubernetes ships.
NPD_CONFIGS = {"docs": readme_npd_config, "manifest": manifest_npd_config}


def _go_seconds(text: str) -> float:
    """A Go duration as node-problem-detector's config gives them ("90s", "2m")."""
    number, unit = re.fullmatch(r"(\d+)(s|m)", text).groups()
    return int(number) * {"s": 1, "m": 60}[unit]


@pytest.mark.parametrize("source", sorted(NPD_CONFIGS))
def test_the_node_problem_detector_config_follows_the_custom_plugin_protocol(source):
    config = NPD_CONFIGS[source]()
    plugin = config["pluginConfig"]
    assert config["plugin"] == "custom" and plugin["max_output_length"] == 80
    (condition,) = config["conditions"]
    assert set(condition) == {"type", "reason", "message"}
    (rule,) = config["rules"]
    assert rule["type"] == "permanent" and rule["condition"] == condition["type"]
    args = build_parser().parse_args(rule["args"])
    assert (args.command, args.format) == ("host-check", "npd")
    # The plugin is killed at its timeout (Unknown, no message): host-check must say why first.
    assert args.interval < args.deadline < _go_seconds(rule["timeout"]) <= _go_seconds(plugin["timeout"])


NOT_FOUND = "gpu02: cannot judge: lldpcli is not installed (not found on PATH or in /usr/s..."


@pytest.mark.parametrize("source", sorted(NPD_CONFIGS))
@pytest.mark.parametrize(
    ("faults", "missing", "status", "line"),
    [
        (None, None, 0, "gpu02: healthy"),
        (DeviceFaults(trust="pcp"), None, 1, "gpu02: 1 finding: qos.trust"),
        (None, "lldpcli", 2, NOT_FOUND),
    ],
)
def test_the_plugin_prints_one_line_within_max_output_length(
    tmp_path: Path, source, faults, missing, status, line
):
    """The host-gate page's rule, and the shipped manifest's, as node-problem-detector runs it (its
    --interval shortened, --root the fake host's): exit code and stdout as the custom plugin protocol
    reads them."""
    config = NPD_CONFIGS[source]()
    root, tools = fake_host(tmp_path, LAB, "gpu02", faults)
    if missing:
        (tools / missing).unlink()
    (rule,) = config["rules"]
    args = [a if a != "/etc/netcfg/inventory" else str(LAB) for a in rule["args"]]
    args[args.index("--interval") + 1] = "0.2"
    done = subprocess.run(
        [sys.executable, "-m", "netcfg", *args, "--host", "gpu02", "--root", str(root)],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(tools)},
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (status, line + "\n"), done.stderr
    assert len(line) <= config["pluginConfig"]["max_output_length"]


def test_the_plugin_says_bad_input_on_its_one_line(capsys: pytest.CaptureFixture[str]):
    code = main(["host-check", "--inventory", str(LAB), "--host", "leaf-su1-r1", "--format", "npd"])
    assert code == 2
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("netcfg: error: --host leaf-su1-r1: a host of the inventory") and len(line) <= 80


LINK_WIDTH = "sys/class/net/eth1/device/current_link_width"
COUNTER = "sys/class/infiniband/mlx5_1/ports/1/hw_counters/out_of_sequence"


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _huge(path: Path) -> None:
    with path.open("r+b") as file:
        file.truncate(3 * 1024**3)  # sparse: 3 GB that take no disk


def _zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _loop(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.name)


@pytest.mark.parametrize(
    ("where", "spoil", "why"),
    [
        (LINK_WIDTH, _fifo, "a regular file, not a FIFO"),
        (COUNTER, _fifo, "a regular file, not a FIFO"),
        (COUNTER, _huge, "an attribute of at most 64 KiB, not more"),
        (LINK_WIDTH, _zero, "a regular file, not a character device"),
        (LINK_WIDTH, _loop, "a readable file, not: Too many levels of symbolic links"),
    ],
)
def test_a_hostile_sysfs_file_cannot_be_judged_and_never_blocks(tmp_path: Path, where, spoil, why):
    root, tools = fake_host(tmp_path, LAB, "gpu02")
    assert (root / where).is_file()
    spoil(root / where)
    started = time.monotonic()
    done = host_check(LAB, "gpu02", root, tools)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stdout.splitlines()
    assert line.startswith("gpu02: cannot judge: grep -rH . /sys/class/net/eth1/device/current_link_width")
    assert line.endswith(f": /{where}: {why}")
    assert time.monotonic() - started < 30


def test_a_saved_host_reading_is_a_snapshot_that_merges_and_checks_as_the_gate_judged(tmp_path: Path, capsys):
    """`--save DIR` keeps what the gate read as a one-host snapshot: checked from there it gives the
    gate's findings, hosts' snapshots merge into one, and a host given twice is refused by name."""
    saves = tmp_path / "saves"
    for host, faults in (("gpu05", DeviceFaults(trust="pcp", firmware="28.35.1012")), ("gpu02", None)):
        root, tools = fake_host(tmp_path / host, LAB, host, faults)
        done = host_check(LAB, host, root, tools, "--save", str(saves / host), "--format", "json")
        assert done.returncode == (1 if faults else 0), done.stderr
        gate = {(f["rule"], f["interface"]) for f in json.loads(done.stdout)["findings"]}
        meta = json.loads((saves / host / "meta.json").read_text())
        assert meta["host_check"] == {"host": host, "not_read": []} and list(meta["devices"]) == [host]
        capsys.readouterr()
        main(["check", str(LAB), "--snapshot", str(saves / host), "--format", "json"])
        report = json.loads(capsys.readouterr().out)["findings"]
        found = {(f["rule"], f["interface"]) for f in report if f["device"] == host}
        # The rest of the fabric is not in a one-host snapshot: the plan's own rules say so.
        assert gate == {k for k in found if k[0] in {r for r, _ in gate}} and gate <= found
    # Saved again: netcfg's own earlier snapshot is replaced, nothing else is.
    root, tools = fake_host(tmp_path / "again", LAB, "gpu02")
    assert host_check(LAB, "gpu02", root, tools, "--save", str(saves / "gpu02")).returncode == 0
    assert main(["merge", str(saves / "gpu05"), str(saves / "gpu02"), "-o", str(tmp_path / "merged")]) == 0
    assert sorted(json.loads((tmp_path / "merged" / "meta.json").read_text())["devices"]) == [
        "gpu02",
        "gpu05",
    ]
    capsys.readouterr()
    assert main(["merge", str(saves / "gpu05"), str(saves / "gpu05"), "-o", str(tmp_path / "m2")]) == 2
    assert "device gpu05 is also in" in capsys.readouterr().err
