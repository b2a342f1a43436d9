"""Sharded collection: `--shard I/N` splits the fabric by a hash of the device name, `netcfg merge`
joins the shard snapshots into one that is checked exactly as an unsharded collection, and refuses
a missing or repeated shard, a device in two shards, another fabric or shards too far apart."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcfg.cli import main
from netcfg.errors import InputError
from netcfg.lab.devices import load_faults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.shard import Shard, parse_shard, shard_of
from tests.conftest import LAB

USER, PASSWORD = "auditor", "Shard-lab-pass-1"
NAMES = st.lists(st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12), unique=True)


@settings(max_examples=80, deadline=None)
@given(names=NAMES, more=NAMES, count=st.integers(1, 64))
def test_shards_split_every_device_into_exactly_one_and_keep_it_as_others_are_added(names, more, count):
    shards = [Shard(i, count) for i in range(count)]
    for name in names:
        assert [s.index for s in shards if s.holds(name)] == [shard_of(name, count)]
    # Adding devices moves none that were already placed.
    before = {n: shard_of(n, count) for n in names}
    assert {n: shard_of(n, count) for n in [*names, *more] if n in before} == before


def test_shard_of_is_the_same_on_every_machine():
    """Array tasks on different nodes must split alike: blake2b of the name, never Python's salted
    hash(), so the split is a fixed function of the name."""
    digest = hashlib.blake2b(b"gpu01", digest_size=8).digest()
    assert shard_of("gpu01", 1000) == int.from_bytes(digest, "big") % 1000


@pytest.mark.parametrize(
    ("text", "environ", "index"),
    [
        ("3/8", {}, 3),
        ("auto/8", {"SLURM_ARRAY_TASK_ID": "5"}, 5),
        ("auto/8", {"JOB_COMPLETION_INDEX": "0"}, 0),
        ("auto/8", {"SLURM_ARRAY_TASK_ID": "2", "JOB_COMPLETION_INDEX": "7"}, 2),
    ],
)
def test_a_shard_comes_from_the_option_or_the_schedulers_index(text, environ, index):
    assert parse_shard(text, environ) == Shard(index, 8)


@pytest.mark.parametrize(
    ("text", "environ", "where"),
    [
        ("8/8", {}, "--shard 8/8"),
        ("1/0", {}, "--shard 1/0"),
        ("1/99999", {}, "--shard 1/99999"),
        ("-1/8", {}, "--shard -1/8"),
        ("3", {}, "--shard 3"),
        ("auto/8", {}, "--shard auto/8"),
        # Slurm arrays numbered from 1 (`--array=1-8`) give index 8 to the last task: refused.
        ("auto/8", {"SLURM_ARRAY_TASK_ID": "8"}, "SLURM_ARRAY_TASK_ID=8"),
        ("auto/8", {"JOB_COMPLETION_INDEX": "x"}, "JOB_COMPLETION_INDEX=x"),
    ],
)
def test_a_shard_that_is_not_one_is_refused_naming_where_it_came_from(text, environ, where):
    with pytest.raises(InputError) as refused:
        parse_shard(text, environ)
    assert refused.value.where == where


def _collect(out: Path, conns: Path, known: Path, *extra: str) -> None:
    args = ["collect", str(LAB), "-o", str(out), "--connections", str(conns), "--known-hosts", str(known)]
    # Exit 1: the lab's seeded unreachable server (gpu08) is a collection failure, in its shard too.
    assert main([*args, "--workers", "8", *extra]) in (0, 1)


def _findings(capsys, snapshot: Path) -> list[dict]:
    capsys.readouterr()
    assert main(["check", str(LAB), "--snapshot", str(snapshot), "--format", "json"]) == 1
    # The lab's ports are new each time it starts: an unreachable device's message names one.
    found = json.loads(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", capsys.readouterr().out))["findings"]
    assert found
    return found


def _error(capsys, *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_merged_shards_check_exactly_as_one_collection_and_a_killed_shard_is_named(
    lab_fabric, lab_policy, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("NETCFG_USERNAME", USER)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    faults = load_faults(LAB / "faults.yaml", lab_fabric)
    with lab_server(lab_fabric, lab_policy, faults, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab")
        _collect(tmp_path / "whole", conns, known)
        shards = [tmp_path / f"shard-{i}" for i in range(3)]
        for i, shard in enumerate(shards):
            _collect(shard, conns, known, "--shard", f"{i}/3")
    held = [set(json.loads((s / "meta.json").read_text())["devices"]) for s in shards]
    assert set().union(*held) == set(lab_fabric.devices) and sum(map(len, held)) == len(lab_fabric.devices)
    assert all(held), "every shard of the lab holds devices"

    assert main(["merge", *map(str, shards), "-o", str(tmp_path / "merged")]) == 0
    assert _findings(capsys, tmp_path / "merged") == _findings(capsys, tmp_path / "whole")

    # One shard killed (its snapshot never committed): merge names it, writes nothing.
    err = _error(capsys, "merge", str(shards[0]), str(shards[2]), "-o", str(tmp_path / "partial"))
    assert "shard 1/3 missing" in err
    assert not (tmp_path / "partial").exists()
    # The same shard twice, and a device in two shards.
    err = _error(capsys, "merge", str(shards[0]), str(shards[0]), str(shards[2]), "-o", str(tmp_path / "m2"))
    assert "shard 0/3 again" in err
    meta0 = json.loads((shards[0] / "meta.json").read_text())
    stray = next(iter(json.loads((shards[1] / "meta.json").read_text())["devices"]))
    twice = tmp_path / "twice"
    shutil.copytree(shards[0], twice)
    shutil.copy(shards[1] / f"{stray}.jsonl", twice / f"{stray}.jsonl")
    meta = meta0 | {"devices": meta0["devices"] | {stray: {"platform": "eos", "error": None}}}
    (twice / "meta.json").write_text(json.dumps(meta))
    err = _error(capsys, "merge", str(twice), str(shards[1]), str(shards[2]), "-o", str(tmp_path / "m3"))
    assert f"device {stray} is also in" in err
    # Another fabric, and shards collected hours apart.
    other = tmp_path / "other"
    shutil.copytree(shards[2], other)
    meta2 = json.loads((other / "meta.json").read_text())
    (other / "meta.json").write_text(json.dumps(meta2 | {"fabric": "another-fabric"}))
    err = _error(capsys, "merge", *map(str, shards[:2]), str(other), "-o", str(tmp_path / "m4"))
    assert "shards of different fabrics" in err and "another-fabric" in err
    (other / "meta.json").write_text(json.dumps(meta2 | {"created": "2020-01-01T00:00:00Z"}))
    err = _error(capsys, "merge", *map(str, shards[:2]), str(other), "-o", str(tmp_path / "m5"))
    assert "expected all shards within 900 s (--window)" in err

    # Re-running the killed shard alone restores the identity.
    shutil.rmtree(shards[1])
    with lab_server(lab_fabric, lab_policy, faults, USER, PASSWORD) as server:
        conns, known = write_connection_files(server, tmp_path / "lab2")
        _collect(shards[1], conns, known, "--shard", "1/3")
    assert main(["merge", *map(str, shards), "-o", str(tmp_path / "again")]) == 0
    assert _findings(capsys, tmp_path / "again") == _findings(capsys, tmp_path / "whole")


def test_merge_refuses_a_snapshot_that_is_no_shard(tmp_path, capsys):
    plain = tmp_path / "plain"
    assert main(["lab", "snapshot", str(LAB), "-o", str(plain)]) == 0
    err = _error(capsys, "merge", str(plain), "-o", str(tmp_path / "out"))
    assert "no shard in meta.json" in err
    err = _error(capsys, "merge", str(tmp_path / "nothing"), "-o", str(tmp_path / "out"))
    assert "not a netcfg snapshot" in err


def test_a_shard_that_holds_no_device_is_an_empty_shard_snapshot(lab_fabric, tmp_path, monkeypatch):
    """With more shards than devices some hold none: such a task writes an empty shard (exit 0),
    which merge needs as much as the others; a selection without a shard that matches nothing is
    still refused."""
    monkeypatch.setenv("NETCFG_USERNAME", USER)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    taken = {shard_of(name, 64) for name in lab_fabric.devices}
    empty = min(set(range(64)) - taken)
    out = tmp_path / "empty"
    assert main(["collect", str(LAB), "-o", str(out), "--shard", f"{empty}/64", "--no-host-key-check"]) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["devices"] == {} and meta["shard"] == {"index": empty, "count": 64, "selection": ""}
    assert (
        main(
            ["collect", str(LAB), "-o", str(tmp_path / "none"), "--device", "nothing*", "--no-host-key-check"]
        )
        == 2
    )


def test_a_shard_whose_meta_names_no_time_is_refused_naming_the_field(
    lab_fabric, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("NETCFG_USERNAME", USER)
    monkeypatch.setenv("NETCFG_PASSWORD", PASSWORD)
    empty = min(set(range(64)) - {shard_of(name, 64) for name in lab_fabric.devices})
    shard = tmp_path / "empty"
    assert main(["collect", str(LAB), "-o", str(shard), "--shard", f"{empty}/64", "--no-host-key-check"]) == 0
    meta = json.loads((shard / "meta.json").read_text())
    # The only shard of one, so that merge comes to its time.
    whole = {"index": 0, "count": 1, "selection": ""}
    (shard / "meta.json").write_text(json.dumps(meta | {"created": "yesterday", "shard": whole}))
    err = _error(capsys, "merge", str(shard), "-o", str(tmp_path / "out"))
    assert f"{shard / 'meta.json'}: created: 'yesterday'; expected a UTC time" in err
