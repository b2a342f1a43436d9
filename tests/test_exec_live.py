"""Hosts collected over one SSH exec channel (the `netcfg_exec` Nornir connection plugin), over real
SSH to the lab on 127.0.0.1, and collector processes that send each device to the parent to parse."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nornir.core import Nornir
from nornir.core.task import Result, Task
from nornir.plugins.runners import SerialRunner

from netcfg.audit import run_audit
from netcfg.collect import CollectOptions, collect, send
from netcfg.lab.devices import DeviceFaults
from netcfg.lab.fabric import lab_server, write_connection_files
from netcfg.nornir_inventory import Login, host_key_options, nornir_inventory, read_connections
from netcfg.platforms import get_platform
from netcfg.platforms.base import MARKER, Batch, Command
from netcfg.sources import snapshot_states
from tests.live_lab import cli_session

PASSWORD = "exec-Lab-pass-7"
LOGIN = Login("auditor", PASSWORD)
# Every transport fault on a host (hosts are what the exec channel carries); the rule naming each.
HOST_FAULTS = {
    "gpu01": ("auth_fail", "collect.auth"),
    "gpu02": ("silent", "collect.timeout"),
    "gpu03": ("truncate", "parse.unknown_output"),
    "gpu04": ("garble", "parse.unknown_output"),
    "gpu05": ("unreachable", "collect.unreachable"),
}
TIMEOUT_S = 2.0


def _conns(server) -> dict[str, dict]:
    return {name: {"hostname": server.host, "port": port} for name, port in server.ports.items()}


@pytest.fixture(scope="module")
def faulty_audit(lab_fabric, lab_policy, tmp_path_factory):
    """An audit of the lab, collected in two processes, with a transport fault on five hosts."""
    faults = {name: DeviceFaults(transport=kind) for name, (kind, _) in HOST_FAULTS.items()}
    with lab_server(lab_fabric, lab_policy, faults, LOGIN.username, PASSWORD) as server:
        _, known = write_connection_files(server, tmp_path_factory.mktemp("lab"))
        out = tmp_path_factory.mktemp("audit")
        opts = CollectOptions(workers=6, processes=2, timeout_s=TIMEOUT_S, known_hosts=known)
        yield run_audit(lab_fabric, lab_policy, LOGIN, out / "s", out / "r", opts, connections=_conns(server))


def test_every_faulty_host_is_named_and_no_healthy_device_is_lost(lab_fabric, faulty_audit):
    named = {(f.device, f.rule) for f in faulty_audit.findings}
    for host, (kind, rule) in HOST_FAULTS.items():
        assert (host, rule) in named, (host, kind)
    healthy = set(lab_fabric.devices) - set(HOST_FAULTS)
    assert all(not faulty_audit.collected[name].error for name in healthy)
    assert not {d for d, _ in named} & healthy
    # Every healthy host was read in full over its exec channel.
    for name in healthy:
        device = lab_fabric.devices[name]
        if get_platform(device.platform).exec_channel:
            files = {c.file for c in get_platform(device.platform).commands(device)}
            assert set(faulty_audit.collected[name].outputs) == files


def test_exec_failures_say_what_happened(faulty_audit):
    errors = {name: faulty_audit.collected[name].error for name in HOST_FAULTS}
    assert errors["gpu01"] is not None and errors["gpu01"][0] == "auth"
    assert errors["gpu01"][1].startswith("login as 'auditor' refused by 127.0.0.1:")
    assert errors["gpu02"][0] == "timeout"
    assert f"no complete answer within {TIMEOUT_S:g} s" in errors["gpu02"][1]
    assert errors["gpu05"][0] == "unreachable"
    # Damaged output is read, and what cannot be parsed is reported against the device.
    assert errors["gpu03"] is None and errors["gpu04"] is None
    assert PASSWORD not in "".join(str(e) for e in errors.values())


def test_devices_parsed_in_the_parent_equal_the_snapshot_parsed_again(lab_fabric, faulty_audit):
    """The parent parses what the collector processes send; the snapshot they wrote gives the same."""
    again = snapshot_states(lab_fabric, faulty_audit.snapshot)
    parsed = {name: c.state for name, c in faulty_audit.collected.items()}
    assert set(parsed) == set(again) == set(lab_fabric.devices)
    for name, state in parsed.items():
        assert state is not None
        assert dataclasses.replace(state, read_at=None) == dataclasses.replace(again[name], read_at=None), (
            name
        )


def test_a_hosts_outputs_over_exec_equal_its_interactive_shells(lab_fabric, lab_policy, tmp_path):
    """The same host read over the exec channel and over netmiko's shell (as collection used to)
    saves the same text for every command that is not a counter (counters move between readings)."""
    with lab_server(lab_fabric, lab_policy, {}, LOGIN.username, PASSWORD) as server:
        opts = CollectOptions(workers=2, timeout_s=5.0)
        _, found = collect(lab_fabric, LOGIN, tmp_path / "snap", opts, connections=_conns(server))
        compared = 0
        for name in ("gpu01", "gpu07"):
            device = lab_fabric.devices[name]
            platform = get_platform(device.platform)
            assert platform.exec_channel
            (batch,) = platform.batches(device)
            with cli_session(platform.netmiko_device_type, server.ports[name], LOGIN) as conn:
                shell = batch.split(send(conn, batch.cli, 5.0))
            for command in batch.commands:
                if not command.counters:
                    assert found[name].outputs[command.file] == platform.saved_output(shell[command.file])
                    compared += 1
    assert compared > 10


def test_a_changed_host_key_of_a_host_is_refused_before_logging_in(lab_fabric, lab_policy, tmp_path):
    import asyncssh

    impostor = " ".join(asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().split()[:2])
    with lab_server(lab_fabric, lab_policy, {}, LOGIN.username, PASSWORD) as server:
        _, known = write_connection_files(server, tmp_path / "lab")
        lines = known.read_text().splitlines()
        where = {name: f"[127.0.0.1]:{port}" for name, port in server.ports.items()}
        kept = [line for line in lines if line.split()[0] not in (where["gpu01"], where["gpu02"])]
        known.write_text("".join(f"{line}\n" for line in [*kept, f"{where['gpu01']} {impostor}"]))
        opts = CollectOptions(workers=4, timeout_s=TIMEOUT_S, known_hosts=known)
        _, found = collect(lab_fabric, LOGIN, tmp_path / "snap", opts, connections=_conns(server))
    assert found["gpu01"].error is not None and found["gpu02"].error is not None
    assert found["gpu01"].error[0] == found["gpu02"].error[0] == "auth"
    assert "differs from known_hosts" in found["gpu01"].error[1]
    assert "is not in known_hosts" in found["gpu02"].error[1]
    assert found["gpu01"].outputs == found["gpu02"].outputs == {}
    assert not found["gpu03"].error and found["gpu03"].outputs


def test_the_exec_plugin_in_a_users_nornir_script(lab_fabric, lab_policy, tmp_path):
    """Registered with Nornir by name, it runs a command line on a host from any Nornir task."""
    import netcfg.collect  # noqa: F401  (registers netcfg_exec, as the entry point does once installed)

    def read(task: Task) -> Result:
        device = lab_fabric.devices[task.host.name]
        (batch,) = get_platform(device.platform).batches(device)
        conn = task.host.get_connection("netcfg_exec", task.nornir.config)
        return Result(host=task.host, result=batch.split(conn.run(batch.cli)))

    with lab_server(lab_fabric, lab_policy, {}, LOGIN.username, PASSWORD) as server:
        conns_file, known = write_connection_files(server, tmp_path / "lab")
        inventory = nornir_inventory(lab_fabric, LOGIN, read_connections(conns_file))
        for host in inventory.hosts.values():
            host.connection_options["netcfg_exec"] = host.connection_options["netmiko"]
            host.connection_options["netcfg_exec"].extras = {
                "known_hosts_file": host_key_options(str(known))["alt_key_file"]
            }
        nr = Nornir(inventory=inventory, runner=SerialRunner()).filter(
            filter_func=lambda h: h.name in ("gpu01", "gpu02")
        )
        result = nr.run(task=read)
        nr.close_connections()
    assert not result.failed and set(result) == {"gpu01", "gpu02"}
    for name, multi in result.items():
        device = lab_fabric.devices[name]
        outputs = multi[0].result
        assert set(outputs) == {c.file for c in get_platform(device.platform).commands(device)}
        assert all(text and "command not found" not in text for text in outputs.values())


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["a", "b", "c d", "x"]).map(lambda cli: MARKER.format(cli)),
            st.text(st.characters(blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")),
        ),
        max_size=12,
    ),
    st.booleans(),
)
def test_splitting_a_newline_only_batch_equals_splitting_it_line_by_line(
    lines: list[str], last_newline: bool
):
    batch = Batch(tuple(Command(cli, f"f{i}") for i, cli in enumerate(["a", "b", "c d"])))
    text = "\n".join(lines) + ("\n" if last_newline and lines else "")
    by_cli = {c.cli: c.file for c in batch.commands}
    assert batch.split(text) == Batch._split_by_line(text, by_cli)
