"""Bad input through the real CLI: one line on stderr naming file, field or line and what was
expected; exit code 2; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from netcfg.cli import main

# Line numbers below refer to this text: keep it stable.
INVENTORY = """\
name: t
policy: roce-lossless
platforms: {switch: eos, host: connectx}
topology:
  scalable_units: 1
  servers_per_su: 2
  rails: 2
  spine: {count: 1}
"""

EXPLICIT = """\
name: ex
rails: 4
devices:
  - {name: leaf1, role: leaf, su: 1, rail: 1}
  - name: gpu01
    role: host
    su: 1
    nics:
      - {rail: 1, netdev: eth0, rdma_device: mlx5_0}
      - {rail: 2, netdev: eth1, rdma_device: mlx5_1}
cabling: cabling.csv
"""
CSV_HEADER = "device_a,interface_a,device_b,interface_b,speed_gbps,cable_m\n"
CABLING = CSV_HEADER + "gpu01,eth0,leaf1,Ethernet1,400,3\ngpu01,eth1,leaf1,Ethernet2,400,3\n"

LEAF_CONFIG = """\
! device: leaf-su1-r1 (DCS-7060X6-64PE, EOS-4.32.1F)
hostname leaf-su1-r1
!
interface Ethernet1
   description gpu01:eth0
   mtu 9214
   qos trust dscp
!
end
"""


def error_of(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    """Run the CLI, expect a usage/input error; return stderr (rich's wrapping undone)."""
    rc = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert rc == 2, captured
    assert "Traceback" not in captured.err
    assert "Traceback" not in captured.out
    assert captured.err.startswith("netcfg: error: ")
    # Wrapping is covered by test_error_is_one_line; content checks should not depend on it.
    return "".join(captured.err.splitlines())


def write_inventory(folder: Path, text: str = INVENTORY, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fabric.yaml").write_text(text, encoding="utf-8")
    for name, content in files.items():
        (folder / name.replace("_", ".")).write_text(content, encoding="utf-8")
    return folder


def configs_dir(tmp_path: Path, **files: str | bytes) -> Path:
    folder = tmp_path / "configs"
    folder.mkdir()
    for name, content in files.items():
        path = folder / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


def test_the_base_inventories_are_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """The variations below each break one thing: the unbroken inputs must pass."""
    assert main(["check", str(write_inventory(tmp_path / "a")), "--format", "json"]) == 0
    explicit = write_inventory(tmp_path / "b", EXPLICIT, cabling_csv=CABLING)
    assert main(["render", str(explicit), "-o", str(tmp_path / "out")]) == 0
    configs = configs_dir(tmp_path, **{"leaf-su1-r1.cfg": LEAF_CONFIG})
    assert main(["check", str(tmp_path / "a"), "--configs", str(configs), "--format", "json"]) in (0, 1)
    assert "Traceback" not in capsys.readouterr().err


# --- YAML and schema --------------------------------------------------------------------------------


def test_malformed_yaml_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = INVENTORY.replace(
        "platforms: {switch: eos, host: connectx}", "platforms: {switch: eos, host: connectx"
    )
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml:4:" in err  # where PyYAML noticed
    assert "line 3" in err  # where the unbalanced bracket opened
    assert "malformed YAML" in err


def test_malformed_yaml_unbalanced_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = EXPLICIT.replace("cabling: cabling.csv", "cabling: [cabling.csv")
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml:12:" in err  # end of file, where the missing ']' is noticed
    assert "line 11" in err  # the line that opened it
    assert "malformed YAML" in err


def test_unknown_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = INVENTORY.replace("  rails: 2\n", "  rails: 2\n  colour: blue\n")
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml:8:" in err
    assert "topology.colour" in err
    assert "unknown key" in err


@pytest.mark.parametrize(
    ("remove", "field", "line"),
    [("  rails: 2\n", "topology.rails", ":5:"), ("name: t\n", "name", ":1:")],
)
def test_missing_required_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], remove: str, field: str, line: str
):
    err = error_of(capsys, "check", write_inventory(tmp_path, INVENTORY.replace(remove, "")))
    assert f"fabric.yaml{line} {field}:" in err
    assert "required" in err


def test_wrong_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = error_of(capsys, "check", write_inventory(tmp_path, INVENTORY.replace("rails: 2", "rails: two")))
    assert "fabric.yaml:7: topology.rails:" in err
    assert "integer" in err


def test_inventory_that_is_not_a_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = error_of(capsys, "check", write_inventory(tmp_path, "- just\n- a list\n"))
    assert "fabric.yaml" in err
    assert "mapping" in err


def test_missing_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = error_of(capsys, "check", tmp_path / "nowhere")
    assert "nowhere" in err
    assert "not found" in err


# --- explicit form: devices + cabling CSV ----------------------------------------------------------


def test_duplicate_device_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = EXPLICIT.replace("cabling:", "  - {name: leaf1, role: spine}\ncabling:")
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml" in err
    assert "devices.2" in err
    assert "duplicate device name 'leaf1'" in err


def test_rail_outside_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = EXPLICIT.replace("{rail: 2, netdev: eth1", "{rail: 9, netdev: eth1")
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml" in err
    assert "devices.1" in err
    assert "rail 9" in err
    assert "1..4" in err


def test_unknown_platform_top_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = INVENTORY.replace("switch: eos", "switch: junos")
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml:3: platforms.switch:" in err
    assert "'junos'" in err
    assert "eos" in err  # what was expected


def test_unknown_platform_on_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = EXPLICIT.replace("role: leaf, su: 1", "role: leaf, platform: nxos, su: 1")
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml" in err
    assert "devices.0.platform" in err
    assert "'nxos'" in err


def test_cabling_port_used_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    cabling = CABLING + "gpu01,eth0,leaf1,Ethernet3,400,3\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:4:" in err
    assert "gpu01:eth0" in err
    assert "cabling.csv:2" in err  # where it was first used


def test_cabling_line_numbers_count_blank_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    cabling = CSV_HEADER + "gpu01,eth0,leaf1,Ethernet1,400,3\n\ngpu01,eth1,leaf1,Ethernet1,400,3\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:4:" in err
    assert "leaf1:Ethernet1" in err


def test_cabling_row_with_the_same_port_at_both_ends(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    cabling = CSV_HEADER + "gpu01,eth0,gpu01,eth0,400,3\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:2:" in err
    assert "gpu01:eth0" in err


def test_cabling_missing_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    cabling = "device_a,interface_a,device_b,interface_b,speed_gbps\ngpu01,eth0,leaf1,Ethernet1,400\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:1:" in err
    assert "cable_m" in err


def test_cabling_bad_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    cabling = CSV_HEADER + "gpu01,eth0,leaf1,Ethernet1,400G,3\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:2:" in err
    assert "400G" in err


def test_cabling_device_not_in_inventory(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    cabling = CABLING + "gpu99,eth0,leaf1,Ethernet9,400,3\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:4:" in err
    assert "'gpu99'" in err


# --- names that could inject a CLI line -----------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "field", "line"),
    [
        ("name: t\n", 'name: "t\\nreload now"\n', "name", 1),
        ("name: t\n", "name: t;reload\n", "name", 1),
        ("name: t\n", 'name: "t!"\n', "name", 1),
        (
            "  spine: {count: 1}\n",
            '  spine: {count: 1}\n  names: {leaf: "leaf;su{su}-r{rail}"}\n',
            "topology.names.leaf",
            9,
        ),
        (
            "  spine: {count: 1}\n",
            '  spine: {count: 1}\n  names: {server: "gpu{server}\\nshutdown"}\n',
            "topology.names.server",
            9,
        ),
        (
            "  spine: {count: 1}\n",
            '  spine: {count: 1}\n  host_links: {leaf_port: "Ethernet{port} !"}\n',
            "topology.host_links.leaf_port",
            9,
        ),
    ],
)
def test_unsafe_names_in_compact_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str, line: int
):
    err = error_of(capsys, "check", write_inventory(tmp_path, INVENTORY.replace(old, new)))
    assert f"fabric.yaml:{line}: {field}:" in err
    assert "not a safe" in err


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("{name: leaf1,", '{name: "leaf1\\nreload",', "devices.0.name"),
        ("netdev: eth0,", "netdev: eth0;reboot,", "devices.1.nics.0.netdev"),
        ("rdma_device: mlx5_1}", 'rdma_device: "mlx5_1!"}', "devices.1.nics.1.rdma_device"),
    ],
)
def test_unsafe_names_in_explicit_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str
):
    text = EXPLICIT.replace(old, new)
    assert text != EXPLICIT
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml:" in err
    assert field in err
    assert "not a safe name" in err


@pytest.mark.parametrize(
    "bad_row",
    [
        'gpu01,eth0,leaf1,"Ethernet1\nreload",400,3\n',  # quoted newline inside the interface
        "gpu01,eth0,leaf1,Ethernet1;reload,400,3\n",
        "gpu01,eth0,leaf1!,Ethernet1,400,3\n",
    ],
)
def test_unsafe_names_in_cabling(tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_row: str):
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=CSV_HEADER + bad_row))
    assert "cabling.csv:" in err
    assert "not a safe name" in err


# --- config files (pre-merge check) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\xfd" * 8,  # binary, not UTF-8
        "\x00\x01\x02\x7f junk \x03" * 16,  # control characters, valid UTF-8
        "hostname leaf-su1-r1\n!\nip routing\n!\nrouter bgp 65101\n   router-id 10.255.0.1\n!\nend\n",
        "",
    ],
)
def test_unparsable_switch_config(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes):
    inventory = write_inventory(tmp_path / "inv")
    configs = configs_dir(tmp_path, **{"leaf-su1-r1.cfg": content})
    err = error_of(capsys, "check", inventory, "--configs", configs)
    assert "leaf-su1-r1.cfg:" in err
    assert "expected" in err


@pytest.mark.parametrize(
    ("script", "needle"),
    [
        ("#!/usr/bin/env bash\nset -euo pipefail\necho hello\n", "host script"),
        ("mlnx_qos -i eth0 --trust dscp\nmlnx_qos -i eth0 --dscp2prio set,26\n", "eth0"),
    ],
)
def test_unparsable_host_script(tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str, needle: str):
    inventory = write_inventory(tmp_path / "inv")
    configs = configs_dir(tmp_path, **{"gpu01.sh": script})
    err = error_of(capsys, "check", inventory, "--configs", configs)
    assert "gpu01.sh:" in err
    assert needle in err


def test_config_for_unknown_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_inventory(tmp_path / "inv")
    configs = configs_dir(tmp_path, **{"leaf-su1-r1.cfg": LEAF_CONFIG, "leaf-su9-r1.cfg": LEAF_CONFIG})
    err = error_of(capsys, "check", inventory, "--configs", configs)
    assert "leaf-su9-r1.cfg:" in err
    assert "not in the inventory" in err


def test_config_with_wrong_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_inventory(tmp_path / "inv")
    configs = configs_dir(tmp_path, **{"leaf-su1-r1.sh": LEAF_CONFIG})
    err = error_of(capsys, "check", inventory, "--configs", configs)
    assert "leaf-su1-r1.sh:" in err
    assert "leaf-su1-r1.cfg" in err


@pytest.mark.parametrize("files", [{}, {".gitkeep": ""}])
def test_empty_configs_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str]):
    inventory = write_inventory(tmp_path / "inv")
    configs = configs_dir(tmp_path, **files)
    err = error_of(capsys, "check", inventory, "--configs", configs)
    assert f"{configs}:" in err
    assert "empty" in err


def test_configs_dir_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_inventory(tmp_path / "inv")
    err = error_of(capsys, "check", inventory, "--configs", tmp_path / "no-configs")
    assert "no-configs" in err
    assert "not found" in err


def test_snapshot_dir_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_inventory(tmp_path / "inv")
    err = error_of(capsys, "check", inventory, "--snapshot", tmp_path / "snap-2024-11-02")
    assert "snap-2024-11-02" in err
    assert "not found" in err


def test_snapshot_with_unknown_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_inventory(tmp_path / "inv")
    (tmp_path / "snap" / "leaf-su7-r1").mkdir(parents=True)
    err = error_of(capsys, "check", inventory, "--snapshot", tmp_path / "snap")
    assert "leaf-su7-r1" in err
    assert "not in the inventory" in err


def test_snapshot_with_broken_meta(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory = write_inventory(tmp_path / "inv")
    (tmp_path / "snap" / "leaf-su1-r1").mkdir(parents=True)
    (tmp_path / "snap" / "meta.json").write_text("{not json", encoding="utf-8")
    err = error_of(capsys, "check", inventory, "--snapshot", tmp_path / "snap")
    assert "meta.json" in err
    assert "JSON" in err


# --- policy ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "needles"),
    [
        ("name: p\necn:\n  min_kbytes: 2000\n  max_kbytes: 1500\n", ["policy.yaml:3", "ecn", "min_kbytes"]),
        ("name: p\nroce: {dscp: 48, priority: 3}\n", ["policy.yaml", "roce.dscp", "cnp.dscp"]),
        ("name: p\nroce: {dscp: 26, priority: 9}\n", ["policy.yaml:2", "roce.priority"]),
        (
            "name: p\necn: {min_kbytes: 150, max_kbyte: 1500}\n",
            ["policy.yaml:2", "ecn.max_kbyte", "unknown key"],
        ),
        ("name: p\necn: {min_kbytes: 150\n", ["policy.yaml:3:", "line 2", "malformed YAML"]),
    ],
)
def test_bad_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str, needles: list[str]):
    text = INVENTORY.replace("policy: roce-lossless", "policy: policy.yaml")
    inventory = write_inventory(tmp_path, text, policy_yaml=policy)
    err = error_of(capsys, "check", inventory)
    for needle in needles:
        assert needle in err


def test_unknown_policy_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = INVENTORY.replace("policy: roce-lossless", "policy: no-such-policy")
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "no-such-policy" in err
    assert "roce-lossless" in err  # the bundled names it expected


# --- command line ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["check", "INV", "--bogus"], "--bogus"),
        (["check"], "inventory"),
        ([], "command"),
        (["check", "INV", "--configs"], "--configs"),
        (["check", "INV", "--fail-on", "panic"], "--fail-on"),
        (["render", "INV", "--explain=yes"], "--explain"),
        (["inventory", "generate"], "--output"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], needle: str):
    inventory = str(write_inventory(tmp_path))
    err = error_of(capsys, *[inventory if a == "INV" else a for a in argv])
    assert "usage" in err
    assert needle in err


def test_two_sources_of_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = error_of(capsys, "check", write_inventory(tmp_path), "--configs", "a", "--snapshot", "b")
    assert "--configs/--snapshot" in err


def test_render_unknown_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    err = error_of(
        capsys, "render", write_inventory(tmp_path / "inv"), "--device", "gpu42", "-o", tmp_path / "o"
    )
    assert "gpu42" in err
    assert "not in the inventory" in err


# --- one line -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    ["missing-inventory", "unknown-key", "cabling-twice", "usage"],
)
def test_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str):
    """However long the path or message, and whatever the terminal width: exactly one line."""
    deep = tmp_path / "a-rather-long-folder-name-as-ci-runners-make-them" / "inventories"
    if case == "missing-inventory":
        argv = ["check", str(deep / "missing")]
    elif case == "unknown-key":
        argv = [
            "check",
            str(write_inventory(deep, INVENTORY.replace("  rails: 2\n", "  rails: 2\n  colour: x\n"))),
        ]
    elif case == "cabling-twice":
        inv = write_inventory(deep, EXPLICIT, cabling_csv=CABLING + "gpu01,eth0,leaf1,Ethernet3,400,3\n")
        argv = ["check", str(inv)]
    else:
        argv = ["check", str(write_inventory(deep)), "--fail-on", "a-severity-that-does-not-exist-anywhere"]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1, err
    assert err.endswith("\n")
