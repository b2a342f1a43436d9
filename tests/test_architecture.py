"""The structure of netcfg as its imports show it: layers that point down, no import circle, every
platform a package of the same shape, and the simulator kept off the collection and check path."""

from __future__ import annotations

import importlib
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import grimp
import pytest

from netcfg.platforms import registry
from netcfg.platforms.simulator import simulators
from tests.conftest import LAB, ROOT

# What every platform package holds: what is collected, how intent is rendered, how configs and
# outputs are read back, what must be masked, and the lab's simulator.
PLATFORM_MODULES = ("commands", "render", "parse", "secrets", "lab")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("netcfg", include_external_packages=False)


def test_the_import_contracts_in_pyproject_hold():
    """import-linter's contracts (pyproject.toml): the layers, the checks package, no simulator on
    the collection and check path, no platform importing another."""
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 kept, 0 broken" in run.stdout


def test_no_module_of_netcfg_is_in_an_import_circle(graph):
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    try:
        TopologicalSorter(imports).prepare()
    except CycleError as cycle:
        pytest.fail(f"import circle: {' -> '.join(cycle.args[1])}")


def test_the_rule_api_and_the_checks_package_import_nothing_above_them(graph):
    assert graph.find_modules_directly_imported_by("netcfg.rules") <= {"netcfg.model", "netcfg.policy"}
    assert graph.find_modules_directly_imported_by("netcfg.checks") == set()


def test_the_lab_reaches_platforms_only_through_the_simulator_contract(graph):
    lab = {m for m in graph.modules if m == "netcfg.lab" or m.startswith("netcfg.lab.")}
    reached = {i for m in lab for i in graph.find_modules_directly_imported_by(m)}
    assert {i for i in reached if i.startswith("netcfg.platforms")} == {"netcfg.platforms.simulator"}


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_platform_is_a_package_of_the_same_shape(name):
    platform = registry()[name]
    package = type(platform).__module__
    assert package == f"netcfg.platforms.{name}", "the Platform class is its package's __init__"
    folder = ROOT / "netcfg" / "platforms" / name
    missing = [m for m in PLATFORM_MODULES if not (folder / f"{m}.py").is_file()]
    assert missing == [], f"{package} lacks {missing}"
    own_rules = {f"{package}.rules"} if (folder / "rules.py").is_file() else set()
    assert set(platform.rule_modules) == own_rules
    for module in platform.rule_modules:
        importlib.import_module(module)
    assert simulators()[name].platform is platform


def test_a_check_and_an_audit_of_saved_outputs_load_no_simulator(tmp_path):
    """The static contract, at run time: `netcfg check` of intent and of a snapshot imports no lab
    module and no simulator (the snapshot is written by the lab in another process first)."""
    snapshot = tmp_path / "snap"
    subprocess.run(
        [sys.executable, "-m", "netcfg", "lab", "snapshot", str(LAB), "-o", str(snapshot)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    probe = (
        "import sys\n"
        "from netcfg.cli import main\n"
        f"lab, snapshot = {str(LAB)!r}, {str(snapshot)!r}\n"
        "codes = [main(['check', lab]), main(['check', lab, '--snapshot', snapshot])]\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('netcfg.lab') or m.endswith('.lab')"
        " or m == 'netcfg.platforms.simulator')\n"
        "print(codes, loaded)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    # Both checks really ran, over every device of the lab.
    assert run.stdout.count("18 devices checked") == 2, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[0, 0] []", run.stdout + run.stderr


def test_a_check_of_intent_loads_no_library_only_other_commands_need():
    """Every test and every scheduled run starts netcfg anew: `netcfg check` of rendered intent loads
    neither SSH collection (netmiko, paramiko, Nornir), nor config comparison (hier_config), nor secret
    masking (netutils, which pulls in Jinja2 of its own)."""
    probe = (
        "import contextlib, io, sys\n"
        "from netcfg.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['check', {str(LAB)!r}])\n"
        "heavy = {'hier_config', 'netutils', 'netmiko', 'paramiko', 'nornir'}\n"
        "print(code, sorted({m.partition('.')[0] for m in sys.modules} & heavy))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.stdout.strip().splitlines()[-1] == "0 []", run.stdout + run.stderr


def test_every_hier_config_driver_a_platform_names_is_one_hier_config_has():
    """Platforms name their hier_config driver as a string, so that hier_config is loaded only by the
    commands that compare configs: each name is one hier_config knows, and EOS's is the driver its
    own remediation uses."""
    from hier_config import Platform as HierPlatform

    from netcfg.platforms.eos import remediation as eos_remediation

    named = {name: p.hier_config_platform for name, p in registry().items() if p.hier_config_platform}
    assert {name: HierPlatform[driver].name for name, driver in named.items()} == named
    assert named["eos"] == eos_remediation.HIER_PLATFORM.name
