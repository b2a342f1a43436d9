"""The Slurm recipes of docs/host-gate.md on a real Slurm: munged, slurmctld and slurmd (Debian's slurm-wlm,
which .ci/run installs) run on this machine with one node, its Prolog and HealthCheckProgram the
page's scripts, pointing at `netcfg host-check` over a fake host tree.

The daemons live in namespaces of the test's own: a network namespace that holds only loopback (no
port of theirs is seen outside), a mount namespace in which the fake tools are /usr/local/sbin and
the test's config is /etc/slurm (nothing else on the machine sees either), and a PID namespace
whose first process is killed by the test's finalizer, which ends every daemon, job and tool the
test started. The daemons start with an empty environment, so prolog and health check get no PATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from netcfg.lab.devices import DeviceFaults
from tests.conftest import LAB, ROOT
from tests.test_hostcheck import HUNG_TOOL, fake_host

NODE = socket.gethostname().split(".")[0]
# host-check's deadline in the test's hooks: short, so that a hung tool costs the test little.
DEADLINE_S = 4
WAIT_S = 90.0
# Where the host-gate page installs its recipes: the line that names them in their code blocks.
PROLOG, HEALTH_CHECK = "/etc/slurm/prolog.d/netcfg.sh", "/usr/local/sbin/netcfg-healthcheck"

SLURM_CONF = """\
ClusterName=netcfgtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
Prolog={tmp}/prolog.sh
PrologFlags=Alloc
HealthCheckProgram={tmp}/healthcheck.sh
HealthCheckInterval=5
HealthCheckNodeState=ANY
NodeName={node} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""

# The first process of the namespaces: loopback up, the mounts, then the daemons, each with an
# empty environment; it waits for them and so keeps the namespaces alive until it is killed.
INIT = """\
set -e
ip link set lo up
# glibc's AI_ADDRCONFIG counts no 127.0.0.1 as an IPv4 address, and Slurm then cannot bind: one
# more loopback address, on lo, the namespace's only interface.
ip addr add 127.0.0.2/8 dev lo
mount --bind "$T/toolbox" /usr/local/sbin
mount --bind "$T/etc" /etc/slurm
mount -t tmpfs tmpfs /run
mkdir -m 0755 /run/munge
env -i /usr/sbin/munged -F --force --key-file="$T/munge.key" --seed-file="$T/munge.seed" \\
  --log-file="$T/munged.log" --pid-file="$T/munged.pid" &
while [ ! -S /run/munge/munge.socket.2 ]; do sleep 0.1; done
env -i /usr/sbin/slurmctld -D -i &
env -i /usr/sbin/slurmd -D -N "$N" &
wait
"""


# Network (loopback only), mounts and PIDs of the test's own; the first process dies with unshare.
NAMESPACES = ["unshare", "--net", "--mount", "--propagation", "private", "--pid", "--fork", "--mount-proc"]
NAMESPACES += ["--kill-child"]


@dataclass
class Cluster:
    tmp: Path
    init_pid: int  # unshare's child: the namespaces' first process

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """A Slurm client inside the namespaces, as a user on the node runs it."""
        return subprocess.run(
            ["nsenter", "-t", str(self.init_pid), "-n", "-m", "--", *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def node(self) -> dict[str, str]:
        shown = self.run("scontrol", "show", "node", NODE, "-o").stdout
        return dict(re.findall(r"(\w+)=((?:\S| (?!\w+=))*)", shown))

    def wait_for(self, what: str, ready: Callable[[], bool]) -> None:
        ends = time.monotonic() + WAIT_S
        while not ready():
            if time.monotonic() > ends:
                logs = "".join(self.tail(n) for n in ("slurmctld.log", "slurmd.log"))
                pytest.fail(f"no {what} within {WAIT_S:g} s: node {self.node()}\n{logs}")
            time.sleep(0.5)

    def tail(self, name: str) -> str:
        path = self.tmp / name
        lines = path.read_text(errors="replace").splitlines()[-15:] if path.exists() else []
        return f"--- {name}\n" + "\n".join(lines) + "\n"

    def host(self, tmp_path: Path, faults: DeviceFaults | None = None, hung: str | None = None) -> None:
        """The node's NICs from now on: the lab's gpu02, with these faults or this tool hung."""
        root, tools = fake_host(tmp_path, LAB, "gpu02", faults)
        if hung:
            (tools / hung).write_text(HUNG_TOOL, encoding="utf-8")
        box = self.tmp / "toolbox"
        for item in tools.rglob("*"):
            if item.is_file():
                target = box / item.relative_to(tools)
                target.parent.mkdir(exist_ok=True)
                shutil.copy2(item, target.with_name(target.name + ".new"))
                target.with_name(target.name + ".new").replace(target)
        link = self.tmp / "root.new"
        link.symlink_to(root)
        link.replace(self.tmp / "root")

    def recipes(self, strict: bool) -> None:
        """The host-gate page's prolog and health check, pointing at this checkout and the lab inventory."""
        readme = (ROOT / "docs" / "host-gate.md").read_text(encoding="utf-8")
        blocks = re.findall(r"```sh\n(.*?)```", readme, flags=re.S)
        for name, where in (("prolog.sh", PROLOG), ("healthcheck.sh", HEALTH_CHECK)):
            (script,) = [b for b in blocks if b.splitlines()[1:2] == [f"# {where}"]]
            script = script.replace("/opt/netcfg/bin/netcfg", str(self.tmp / "netcfg"))
            script = script.replace("/etc/netcfg/inventory", str(LAB))
            if strict:
                script = script.replace("\nstrict=0\n", "\nstrict=1\n")
            path = self.tmp / name
            path.with_suffix(".new").write_text(script, encoding="utf-8")
            path.with_suffix(".new").chmod(0o755)
            path.with_suffix(".new").replace(path)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("slurm")
    for folder in ("state", "spool", "etc", "toolbox"):
        (tmp / folder).mkdir()
    (tmp / "munge.key").write_bytes(os.urandom(1024))
    (tmp / "munge.key").chmod(0o400)
    (tmp / "etc" / "slurm.conf").write_text(SLURM_CONF.format(tmp=tmp, node=NODE), encoding="utf-8")
    # host-check as the hooks run it, on the node's fake tree, within a short deadline.
    (tmp / "netcfg").write_text(
        f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m netcfg "$@" --host gpu02'
        f" --root {tmp}/root --interval 0 --deadline {DEADLINE_S}\n",
        encoding="utf-8",
    )
    (tmp / "netcfg").chmod(0o755)
    cluster = Cluster(tmp, 0)
    cluster.host(tmp / "healthy")
    cluster.recipes(strict=True)
    unshare = subprocess.Popen(
        [*NAMESPACES, "sh", "-c", INIT],
        env={"T": str(tmp), "N": NODE, "PATH": os.environ.get("PATH", os.defpath)},
        stdout=subprocess.DEVNULL,
        stderr=(tmp / "init.log").open("w"),
    )
    try:
        ends = time.monotonic() + WAIT_S
        children = Path(f"/proc/{unshare.pid}/task/{unshare.pid}/children")
        while not (children.exists() and children.read_text().split()) and time.monotonic() < ends:
            time.sleep(0.05)
        cluster.init_pid = int(children.read_text().split()[0])
        cluster.wait_for("idle node", lambda: cluster.node().get("State", "").startswith("IDLE"))
        yield cluster
    finally:
        # The namespaces' first process dies with unshare (--kill-child), and every process of the
        # PID namespace with it: daemons, prologs, health checks, tools.
        unshare.kill()
        unshare.wait(timeout=30)


def test_a_healthy_node_runs_a_job_behind_the_strict_prolog_without_path(cluster: Cluster, tmp_path: Path):
    """Strict: only exit 0 lets the job run, so the prolog found every tool with no PATH."""
    cluster.host(tmp_path)
    cluster.recipes(strict=True)
    done = cluster.run("srun", "-N1", "-t", "1", "true", timeout=WAIT_S)
    assert done.returncode == 0, done.stdout + done.stderr + cluster.tail("slurmd.log")
    assert cluster.node()["State"].startswith(("IDLE", "MIXED", "ALLOCATED"))


def test_a_hung_tool_ends_the_check_by_its_deadline_and_the_job_still_runs(cluster: Cluster, tmp_path: Path):
    cluster.host(tmp_path, hung="lldpcli")
    cluster.recipes(strict=False)
    started = time.monotonic()
    done = cluster.run("srun", "-N1", "-t", "1", "true", timeout=WAIT_S)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr + cluster.tail("slurmd.log")
    assert DEADLINE_S <= took < DEADLINE_S + 10, took
    # Cannot judge never drains: neither the prolog nor the health checks that ran meanwhile.
    assert "DRAIN" not in cluster.node()["State"], cluster.node()
    # The last hung tool and the process it started (a health check may be waiting on them right
    # now) are killed by that check's deadline at the latest.
    proc = Path(f"/proc/{cluster.init_pid}/root/proc")
    pids = (cluster.tmp / "toolbox" / "pids").read_text().split()

    def left() -> list[str]:
        return [p for p in pids if (proc / p).exists() and (proc / p / "cmdline").read_bytes()]

    ends = time.monotonic() + DEADLINE_S + 5
    while left() and time.monotonic() < ends:
        time.sleep(0.2)
    assert left() == []


def test_a_faulty_node_is_drained_with_netcfg_s_headline(cluster: Cluster, tmp_path: Path):
    cluster.host(tmp_path, DeviceFaults(trust="pcp"))
    cluster.wait_for("drain", lambda: "DRAIN" in cluster.node().get("State", ""))
    assert cluster.node()["Reason"].startswith("gpu02: 1 finding: qos.trust")
    reasons = cluster.run("sinfo", "-R", "-h", "-o", "%E").stdout
    assert reasons.strip() == "gpu02: 1 finding: qos.trust"


def test_the_prolog_on_a_faulty_node_drains_it_and_requeues_the_job_held(cluster: Cluster, tmp_path: Path):
    """The prolog alone (the health check does nothing here): exit 1 on findings, so slurmd drains
    the node ("Prolog error") and slurmctld requeues the batch job, held, as the README says."""
    cluster.recipes(strict=False)
    health = cluster.tmp / "healthcheck.sh"
    health.with_suffix(".new").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    health.with_suffix(".new").chmod(0o755)
    health.with_suffix(".new").replace(health)
    cluster.host(tmp_path, DeviceFaults(trust="pcp"))

    def resumed() -> bool:
        # An earlier test (or a health check that began before the swap) may have drained the node;
        # slurmctld refuses `state=resume` on a node that is not drained or down.
        if "DRAIN" not in cluster.node().get("State", ""):
            return True
        done = cluster.run("scontrol", "update", f"nodename={NODE}", "state=resume")
        assert done.returncode == 0, done.stderr
        return False

    cluster.wait_for("resumed node", resumed)
    submitted = cluster.run("sbatch", "--parsable", "-N1", "-t", "1", "--wrap", "true")
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]

    def state() -> dict[str, str]:
        shown = cluster.run("scontrol", "show", "job", job, "-o").stdout
        return dict(re.findall(r"(\w+)=((?:\S| (?!\w+=))*)", shown))

    cluster.wait_for("drain by the prolog", lambda: "DRAIN" in cluster.node().get("State", ""))
    assert cluster.node()["Reason"].startswith("Prolog error"), cluster.node()
    cluster.wait_for("requeued job", lambda: state().get("Restarts", "0") != "0")
    shown = state()
    assert shown["JobState"] == "PENDING" and "held" in shown["Reason"].lower(), shown
    cluster.run("scancel", job)


SHARDS = 3


def test_the_sharding_recipe_collects_in_an_array_and_merges_after_it(cluster: Cluster, tmp_path: Path):
    """docs/sharding.md's job array and merge job, as written, on the real Slurm: the lab served on
    the node, one array task per shard, the merge job started by `--dependency=afterok`; the merged
    snapshot's findings are those of one collection of the same lab."""
    (block,) = [
        b
        for b in re.findall(r"```sh\n(.*?)```", (ROOT / "docs" / "sharding.md").read_text(), flags=re.S)
        if "# /etc/netcfg/collect-shards.sh" in b
    ]
    # A healthy node, whatever an earlier test left: its NICs healthy again and the drain lifted.
    cluster.host(tmp_path / "host")
    cluster.recipes(strict=False)
    cluster.run("scontrol", "update", f"nodename={NODE}", "state=resume")
    cluster.wait_for("idle node", lambda: cluster.node().get("State", "").startswith("IDLE"))
    state, runs = tmp_path / "lab", tmp_path / "runs"
    env = {**os.environ, "NETCFG_USERNAME": "auditor", "NETCFG_PASSWORD": "Slurm-shard-pass-1"}
    inside = ["nsenter", "-t", str(cluster.init_pid), "-n", "-m", "--"]
    lab = subprocess.Popen(
        [*inside, sys.executable, "-m", "netcfg", "lab", "serve", str(LAB), "--state-dir", str(state)],
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "lab.log").open("w"),
    )
    try:
        cluster.wait_for("lab", lambda: (state / "known_hosts").is_file())
        # netcfg as the site installs it; in the lab, collection is pointed at the lab's ports.
        cli = tmp_path / "netcfg"
        lab_options = f"--connections {state}/connections.json --known-hosts {state}/known_hosts"
        cli.write_text(
            f'#!/bin/sh\nif [ "$1" = collect ]; then set -- "$@" {lab_options}; fi\n'
            f'PYTHONPATH={ROOT} exec {sys.executable} -m netcfg "$@"\n'
        )
        cli.chmod(0o755)
        script = block.replace("/opt/netcfg/bin/netcfg", str(cli)).replace("/etc/netcfg/inventory", str(LAB))
        script = script.replace("/shared/netcfg", str(runs)).replace("shards=8", f"shards={SHARDS}")
        (tmp_path / "submit.sh").write_text(script)
        done = subprocess.run(
            [*inside, "sh", str(tmp_path / "submit.sh")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        cluster.wait_for("merged report", lambda: any(runs.glob("*/report.json")))
        (run,) = runs.iterdir()
        whole = tmp_path / "whole"
        collected = subprocess.run(
            [
                "nsenter",
                "-t",
                str(cluster.init_pid),
                "-n",
                "-m",
                "--",
                str(cli),
                "collect",
                str(LAB),
                "-o",
                str(whole),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert collected.returncode in (0, 1), collected.stderr
    finally:
        lab.terminate()
        lab.wait(timeout=30)
    merged = json.loads((run / "snapshot" / "meta.json").read_text())
    assert [m["shard"] for m in merged["merged_from"]] == [f"{i}/{SHARDS}" for i in range(SHARDS)]
    assert sorted(merged["devices"]) == sorted(json.loads((whole / "meta.json").read_text())["devices"])
    report = json.loads((run / "report.json").read_text())["findings"]
    one = subprocess.run(
        [sys.executable, "-m", "netcfg", "check", str(LAB), "--snapshot", str(whole), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert json.loads(one.stdout)["findings"] == report
