"""The wheel carries its templates, policies and example inventories, and works away from a checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

from hatchling.builders.wheel import WheelBuilder

from tests.conftest import ROOT


def test_installed_wheel_renders_and_checks_without_the_checkout(tmp_path):
    wheel = next(iter(WheelBuilder(str(ROOT)).build(directory=str(tmp_path / "dist"), versions=["standard"])))
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(site)
    for data in (
        "templates/eos/config.j2",
        "templates/connectx/parse/mlnx_qos.ttp",
        "policies/roce-lossless.yaml",
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
