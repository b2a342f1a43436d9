"""The wheel carries its templates, policies and example inventories, and works away from a checkout:
installed into a fresh venv whose files the user cannot write, run by a user who is not root, in
an empty folder."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

from tests.conftest import ROOT
from tests.test_internal import DEMO_FINDINGS

# The user who runs the installed netcfg: never root, who can write anywhere.
USER = "nobody" if os.geteuid() == 0 else None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    return Path(next(iter(WheelBuilder(str(ROOT)).build(directory=str(dist), versions=["standard"]))))


def test_the_release_builds_carry_name_license_and_urls_and_pass_twine(tmp_path):
    """`python -m build` as a release runs it (without isolation: the build backend is the dev
    extra's hatchling, no download), then `twine check --strict` on both files."""
    dist = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    files = sorted(p.name for p in dist.iterdir())
    assert files == ["netcfg_roce-0.1.0-py3-none-any.whl", "netcfg_roce-0.1.0.tar.gz"], files
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *sorted(map(str, dist.iterdir()))],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout
    with zipfile.ZipFile(dist / files[0]) as zf:
        names = zf.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = zf.read(meta).decode()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
        entry_points = zf.read(meta.replace("METADATA", "entry_points.txt")).decode()
    headers = dict(line.split(": ", 1) for line in metadata.split("\n\n", 1)[0].splitlines() if ": " in line)
    assert headers["Name"] == "netcfg-roce"
    assert headers["License-Expression"] == "Apache-2.0"
    assert "Project-URL: Source, https://" in metadata and "Project-URL: Documentation, https://" in metadata
    # The import package and the command keep the name netcfg.
    assert "netcfg/__init__.py" in names and "netcfg = netcfg.cli:main" in entry_points
    assert "pip install netcfg-roce" in metadata  # the long description: the README's install line
    with tarfile.open(dist / files[1]) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert {"LICENSE", "README.md", "pyproject.toml", "netcfg/cli.py", "templates/eos/config.j2"} <= members
    assert not any(m.startswith((".venv/", "site/", "out/")) for m in members)


def test_installed_wheel_renders_and_checks_without_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(site)
    for data in (
        "templates/eos/config.j2",
        "templates/connectx/parse/mlnx_qos.ttp",
        "policies/roce-lossless.yaml",
        "inventories/lab/faults.yaml",
        "inventories/starter/fabric.yaml",
    ):
        assert f"netcfg/_data/{data}" in names
    lab = site / "netcfg" / "_data" / "inventories" / "lab"
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = [sys.executable, "-m", "netcfg"]
    done = subprocess.run(
        [*run, "render", str(lab), "-o", "out"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "leaf-su1-r1.cfg").read_text().startswith("! device: leaf-su1-r1")
    probe = "import netcfg.resources as r; print(r.data_path('templates'))"
    where = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert where.stdout.strip() == str(site / "netcfg" / "_data" / "templates")
    done = subprocess.run([*run, "check", str(lab)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@dataclass(frozen=True)
class Install:
    bin: Path
    site: Path
    base: Path
    home: Path

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """`netcfg ARGS` as the test user, with nothing of this session's environment."""
        env = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": str(self.home), "LANG": "C.UTF-8"}
        return subprocess.run(
            [str(self.bin / "netcfg"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
            **_as_user(),
        )  # fmt: skip

    def folder(self, name: str) -> Path:
        """A folder of the test user's own."""
        path = self.base / name
        path.mkdir()
        if USER:
            shutil.chown(path, USER, pwd.getpwnam(USER).pw_gid)
        return path


def _as_user() -> dict[str, object]:
    if USER is None:
        return {}
    return {"user": USER, "group": pwd.getpwnam(USER).pw_gid, "extra_groups": []}


def _python_for_user() -> str:
    """A Python >= 3.11 the test user can run (root's own may live in a folder only root can read)."""
    candidates = [sys._base_executable, sys.executable, "/usr/bin/python3.11", "/usr/bin/python3"]
    for python in dict.fromkeys(c for c in candidates if c and Path(c).exists()):
        probe = "import sys, venv; sys.exit(sys.version_info < (3, 11))"
        try:
            done = subprocess.run([python, "-c", probe], capture_output=True, **_as_user())
        except PermissionError:
            continue
        if done.returncode == 0:
            return python
    pytest.fail(f"no Python >= 3.11 that user {USER} can run among {candidates}")


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Iterator[Install]:
    # Not under pytest's temporary folder: that one is private to this session's user.
    base = Path(tempfile.mkdtemp(prefix="netcfg-wheel-"))
    try:
        yield _install(wheel, base)
    finally:
        for path in [base, *base.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
        shutil.rmtree(base)


def _install(wheel: Path, base: Path) -> Install:
    base.chmod(0o755)
    venv = base / "venv"
    subprocess.run([_python_for_user(), "-m", "venv", "--without-pip", str(venv)], check=True)
    # This session's pip installs into the new venv; dependencies come from the package index (cached).
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet"]
    done = subprocess.run([*pip, str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (site,) = (venv / "lib").glob("python3*/site-packages")
    # No TTP cache, and no way to write one: TTP must parse the same without it, in every thread.
    for cache in site.rglob("ttp_dict_cache.pickle"):
        cache.unlink()
    _make_read_only(site)
    home = base / "home"
    home.mkdir()
    if USER:
        shutil.chown(home, USER, pwd.getpwnam(USER).pw_gid)
    return Install(venv / "bin", site, base, home)


def _make_read_only(site: Path) -> None:
    for path in [*site.rglob("*"), site]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def test_the_installed_demo_finds_exactly_the_seeded_faults_on_every_run(installed):
    work = installed.folder("empty")
    for run in range(5):
        done = installed.run("demo", "--format", "json", cwd=work)
        assert done.returncode == 1, done.stderr
        found = {(f["device"], f["rule"]) for f in json.loads(done.stdout)["findings"]}
        assert found == DEMO_FINDINGS, f"run {run}: {sorted(found ^ DEMO_FINDINGS)}"
    assert sorted(p.name for p in work.iterdir()) == ["out"]
    # Each run audits twice (go-live baseline, then nightly) and records its first audit as the baseline.
    root = work / "out" / "demo" / "snapshots" / "lab"
    assert len([p for p in root.iterdir() if p.is_dir()]) == 10
    assert (root / "baseline.json").is_file()
    assert not list(installed.site.rglob("ttp_dict_cache.pickle")), "netcfg wrote into its installation"


def test_the_installed_init_schema_and_output_errors(installed):
    work = installed.folder("init")
    done = installed.run("init", "x", cwd=work)
    assert done.returncode == 0, done.stderr
    done = installed.run("check", "x", cwd=work)
    assert done.returncode == 0, done.stderr
    assert "8 devices checked: 0 error" in done.stdout
    assert installed.run("init", "x", cwd=work).returncode == 2
    done = installed.run("schema", "policy", cwd=work)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["properties"]["ecn"]["description"]
    # A folder the user cannot write: one line naming the file, exit 2.
    locked = installed.base / "locked"
    locked.mkdir(mode=0o555)
    target = locked / "r.json"
    done = installed.run("check", "x", "--format", "json", "--output", str(target), cwd=work)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert str(target) in line and "Permission denied" in line
    assert not target.exists()


def test_the_installed_lab_serves_the_readme_nornir_example_and_stops_clean_on_sigterm(installed):
    import signal
    import time

    from tests.test_cli import _readme_python

    work = installed.folder("lab")
    # As docs/live-audits.md sets it up: the inventory at inventories/lab (here the wheel's bundled one).
    (work / "inventories").mkdir()
    (work / "inventories" / "lab").symlink_to(installed.site / "netcfg" / "_data" / "inventories" / "lab")
    env = {
        "PATH": f"{installed.bin}:/usr/bin:/bin",
        "HOME": str(installed.home),
        "LANG": "C.UTF-8",
        "NETCFG_USERNAME": "admin",
        "NETCFG_PASSWORD": "lab-only-secret",
    }
    serve = subprocess.Popen(
        [str(installed.bin / "netcfg"), "lab", "serve", "inventories/lab", "--state-dir", "out/lab"],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **_as_user(),
    )  # fmt: skip
    try:
        state = work / "out" / "lab"
        deadline = time.monotonic() + 60
        while not (state / "known_hosts").exists() and serve.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (state / "connections.json").exists(), serve.communicate(timeout=5)
        snippet = _readme_python("NetcfgInventory")
        done = subprocess.run(
            [str(installed.bin / "python"), "-c", snippet],
            cwd=work, env=env, capture_output=True, text=True, timeout=120, **_as_user(),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) == 8 and all(line.split()[1:3] == ["!", "device:"] for line in lines), lines
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=10)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert serve.returncode in (0, 143), serve.stderr.read() if serve.stderr else ""
    # It removes what it wrote, and the folders it made.
    assert not (work / "out").exists()
