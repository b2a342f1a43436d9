"""docs/sharding.md's Kubernetes recipe: its Indexed Job and merge Job validate against the
Kubernetes schema offline (kubernetes-validate), and their commands, run as the pods would run them
(one process per completion index with JOB_COMPLETION_INDEX set, then the merge Job's), give the
report of one collection of the same lab."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from netcfg.lab.fabric import lab_server, write_connection_files
from tests.conftest import LAB, ROOT

# The oldest Kubernetes whose Job has backoffLimitPerIndex without a feature gate.
KUBERNETES = "1.33.0"
USER, PASSWORD = "auditor", "K8s-recipe-pass-1"


def manifests() -> dict[str, dict]:
    text = (ROOT / "docs" / "sharding.md").read_text(encoding="utf-8")
    found = {}
    for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S):
        doc = yaml.safe_load(block)
        if isinstance(doc, dict) and doc.get("kind") == "Job":
            found[doc["metadata"]["name"]] = doc
    return found


@pytest.mark.parametrize("name", ["netcfg-collect", "netcfg-merge"])
def test_the_jobs_validate_against_the_kubernetes_schema(name: str):
    job = manifests()[name]
    kubernetes_validate.validate(job, KUBERNETES, strict=True)


def test_the_indexed_job_splits_as_many_shards_as_it_has_completions():
    spec = manifests()["netcfg-collect"]["spec"]
    assert spec["completionMode"] == "Indexed" and spec["backoffLimitPerIndex"] >= 1
    (args,) = spec["template"]["spec"]["containers"][0]["args"]
    assert f"--shard auto/{spec['completions']} " in args


def test_an_invalid_job_is_refused_by_the_validator():
    """The validator is strict: a misspelt field fails, so the tests above can fail."""
    job = manifests()["netcfg-collect"]
    job["spec"]["completionsMode"] = job["spec"].pop("completionMode")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(job, KUBERNETES, strict=True)


def _pod(args: str, tmp: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """A pod's `sh -c` command on this machine: the inventory and snapshot volumes at the test's
    folders, `netcfg` the checkout's."""
    args = args.replace("/etc/netcfg/inventory", str(LAB)).replace("/snapshots", str(tmp / "volume"))
    return subprocess.run(
        ["sh", "-c", args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_pods_commands_collect_the_shards_and_the_merge_job_reports_as_one_collection(
    lab_fabric, lab_policy, tmp_path: Path
):
    jobs = manifests()
    collect, merge = (jobs[n]["spec"]["template"]["spec"]["containers"][0]["args"][0] for n in jobs)
    completions = jobs["netcfg-collect"]["spec"]["completions"]
    (tmp_path / "volume" / "nightly").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    with lab_server(lab_fabric, lab_policy, {}, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        # The image's netcfg; collection is pointed at the lab's ports.
        lab_options = f"--connections {conns} --known-hosts {known}"
        (bin_dir / "netcfg").write_text(
            f'#!/bin/sh\nif [ "$1" = collect ]; then set -- "$@" {lab_options}; fi\n'
            f'PYTHONPATH={ROOT} exec {sys.executable} -m netcfg "$@"\n'
        )
        (bin_dir / "netcfg").chmod(0o755)
        env = os.environ | {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
        env |= {"NETCFG_USERNAME": USER, "NETCFG_PASSWORD": PASSWORD}
        for index in range(completions):
            done = _pod(collect, tmp_path, env | {"JOB_COMPLETION_INDEX": str(index)})
            assert done.returncode == 0, done.stderr
        whole = subprocess.run(
            [str(bin_dir / "netcfg"), "collect", str(LAB), "-o", str(tmp_path / "whole")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert whole.returncode in (0, 1), whole.stderr
    done = _pod(merge, tmp_path, env)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "volume" / "nightly" / "report.json").read_text())["findings"]
    one = subprocess.run(
        [
            str(bin_dir / "netcfg"),
            "check",
            str(LAB),
            "--snapshot",
            str(tmp_path / "whole"),
            "--format",
            "json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert json.loads(one.stdout)["findings"] == report
    meta = json.loads((tmp_path / "volume" / "nightly" / "snapshot" / "meta.json").read_text())
    assert len(meta["merged_from"]) == completions
