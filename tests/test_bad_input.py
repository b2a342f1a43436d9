"""Bad input through the real CLI: one line on stderr naming file, field or line and what was
expected; exit code 2; never a traceback."""

from __future__ import annotations

import re
import shutil
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
    assert captured.err.count("\n") == 1, captured.err
    return captured.err.rstrip("\n")


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
    args = ["check", str(tmp_path / "a"), "--configs", str(configs), "--allow-missing", "--format", "json"]
    assert main(args) in (0, 1)
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
    assert "fabric.yaml:11: devices.2" in err
    assert "duplicate device name 'leaf1'" in err


def test_rail_outside_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = EXPLICIT.replace("{rail: 2, netdev: eth1", "{rail: 9, netdev: eth1")
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml:5: devices.1" in err
    assert "rail 9" in err
    assert "1..4" in err


def test_unknown_platform_top_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = INVENTORY.replace("switch: eos", "switch: vyos")
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml:3: platforms.switch:" in err
    assert "'vyos'" in err
    assert "eos" in err  # what was expected


def test_unknown_platform_on_a_device(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = EXPLICIT.replace("role: leaf, su: 1", "role: leaf, platform: vendoros, su: 1")
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml:4: devices.0.platform" in err
    assert "'vendoros'" in err


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


# --- encodings ------------------------------------------------------------------------------------
# Each user file: Latin-1 and NUL bytes are refused with the line and "expected UTF-8"; a UTF-8 BOM
# (spreadsheet tools write one) and CRLF line ends are read as if they were not there.

POLICY_INVENTORY = INVENTORY.replace("policy: roce-lossless", "policy: policy.yaml")
POLICY = "name: p\nmtu: {switch: 9214, host: 9000}\necn: {min_kbytes: 150}\n"
FAULTS = "devices:\n  leaf-su1-r1:\n    pfc_priority: 4\n"


def _encoded(text: str, how: str) -> bytes:
    """The text as a hostile or merely foreign tool wrote it; line 3 carries the bad byte."""
    lines = text.encode().split(b"\n")
    if how == "latin-1":
        lines[2] += b" # caf\xe9"
    elif how == "nul":
        lines[2] += b"\x00"
    elif how == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    elif how == "crlf":
        return text.replace("\n", "\r\n").encode()
    return b"\n".join(lines)


def _csv_encoded(how: str) -> bytes:
    if how in ("latin-1", "nul"):
        bad = b"gpu01,eth1,leaf1,Ethernet2,400,3" + (b"\xe9" if how == "latin-1" else b"\x00")
        return CABLING.encode().replace(b"gpu01,eth1,leaf1,Ethernet2,400,3", bad)
    return _encoded(CABLING, how)


def _encoding_case(tmp_path: Path, kind: str, how: str) -> tuple[list[object], str]:
    """(argv, file name) of a run that reads the file of this kind, written this way."""
    if kind == "inventory":
        inv = write_inventory(tmp_path / "inv")
        (inv / "fabric.yaml").write_bytes(_encoded(INVENTORY, how))
        return ["check", inv], "fabric.yaml"
    if kind == "policy":
        inv = write_inventory(tmp_path / "inv", POLICY_INVENTORY)
        (inv / "policy.yaml").write_bytes(_encoded(POLICY, how))
        return ["check", inv], "policy.yaml"
    if kind == "cabling":
        inv = write_inventory(tmp_path / "inv", EXPLICIT)
        (inv / "cabling.csv").write_bytes(_csv_encoded(how))
        return ["check", inv], "cabling.csv"
    inv = write_inventory(tmp_path / "inv")
    (inv / "faults.yaml").write_bytes(_encoded(FAULTS, how))
    return ["lab", "snapshot", inv, "--faults", inv / "faults.yaml", "-o", tmp_path / "snap"], "faults.yaml"


@pytest.mark.parametrize("kind", ["inventory", "policy", "cabling", "faults"])
@pytest.mark.parametrize("how", ["latin-1", "nul"])
def test_file_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, how: str):
    argv, name = _encoding_case(tmp_path, kind, how)
    err = error_of(capsys, *argv)
    assert f"{name}:3:" in err
    assert "expected UTF-8" in err
    assert ("NUL byte" if how == "nul" else "0xe9 is not UTF-8") in err


@pytest.mark.parametrize("kind", ["inventory", "policy", "cabling", "faults"])
@pytest.mark.parametrize("how", ["bom", "crlf"])
def test_bom_and_crlf_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, how: str):
    argv, _ = _encoding_case(tmp_path, kind, how)
    plain, _ = _encoding_case(tmp_path / "plain", kind, "plain")
    assert main([str(a) for a in argv]) == main([str(a) for a in plain])
    assert "error" not in capsys.readouterr().err


# --- YAML that parses into something else than what it says ---------------------------------------


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (INVENTORY + "name: t2\n", ["fabric.yaml:9:", "duplicate key 'name' (first at line 1)"]),
        (
            INVENTORY.replace("  rails: 2\n", "  rails: 2\n  rails: 8\n"),
            ["fabric.yaml:8:", "duplicate key 'rails' (first at line 7)"],
        ),
        ("!!python/object/apply:os.system ['echo owned']\n", ["fabric.yaml:1:", "python/object", "no tags"]),
        (INVENTORY.replace("name: t", "name: !custom t"), ["fabric.yaml:1:", "!custom", "no tags"]),
        ("[" * 20000 + "]" * 20000 + "\n", ["fabric.yaml", "nest"]),
        ("", ["fabric.yaml", "mapping"]),
        (INVENTORY + "---\nname: other\n", ["fabric.yaml:9:", "single document"]),
    ],
)
def test_yaml_that_means_something_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needles: list[str]
):
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    for needle in needles:
        assert needle in err


def test_billion_laughs_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    text = INVENTORY + "laughs:\n" + "".join(f"  {line}\n" for line in levels)
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml" in err
    assert "aliases expand to more than" in err


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """`<<: *base` overriding a key is YAML's own way to share settings: not a repeated key."""
    policy = "name: p\nbase: &base {min_kbytes: 150, max_kbytes: 1500}\n"
    inv = write_inventory(
        tmp_path, POLICY_INVENTORY, policy_yaml=policy + "ecn: {<<: *base, max_kbytes: 2000}\n"
    )
    err = error_of(capsys, "check", inv)  # `base` itself is not a policy key: that is the error
    assert "policy.yaml:2: base" in err
    assert "unknown key" in err


# --- policies -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "needles"),
    [
        ("name: p\necn: {min_kbytes: true}\n", ["policy.yaml:2: ecn.min_kbytes", "integer", "got true"]),
        ("name: p\nmtu: {switch: 9214.0}\n", ["policy.yaml:2: mtu.switch", "integer", "got 9214.0"]),
        ("name: p\npfc_watchdog: {enabled: 1}\n", ["pfc_watchdog.enabled", "boolean", "got 1"]),
        ("name: p\nhost: {roce_tos: '106'}\n", ["host.roce_tos", "integer", "got '106'"]),
        (
            "name: p\nfirmware:\n  EOS: {minimum: 4.30.0F}\n",
            ["policy.yaml:3: firmware", "unknown platform 'EOS'", "expected one of connectx, "],
        ),
        (
            "name: p\nfirmware:\n  eos: {minimum: latest}\n",
            ["policy.yaml:3: firmware.eos.minimum", "'latest' cannot be compared"],
        ),
        ("name: p\nfirmware:\n  eos: {allowed: [4.30]}\n", ["firmware.eos.allowed.0", "got 4.3", "quote it"]),
        (
            "name: p\nhost: {roce_tos: 96}\n",
            ["policy.yaml:1:", "roce_tos 96 carries DSCP 24", "expected 106"],
        ),
        ("name: p\nfirmware:\n  eos: {}\n", ["firmware.eos", "'allowed' or 'minimum'"]),
        (
            "name: p\nmtu: {switch: 9000, host: 9214}\n",
            ["policy.yaml:2: mtu", "host MTU 9214 is above switch MTU 9000"],
        ),
        ("name: p\necn: {min_kbytes: 150, max_kbytes: 300000}\n", ["ecn.max_kbytes", "200000"]),
        (
            f"name: p\nhost:\n  dcqcn: {{rpg_byte_reset: {10**30}}}\n",
            ["policy.yaml:3: host.dcqcn.rpg_byte_reset", "less than or equal to 2147483647"],
        ),
        ("name: p\npfc_watchdog: {detection_ms: .inf}\n", ["pfc_watchdog.detection_ms", "integer"]),
        ('name: "p\\nreload"\n', ["policy.yaml:1: name", "one line"]),
        (
            "name: p\necn: {max_kbytes: 1500}\necn: {max_kbytes: 15}\n",
            ["policy.yaml:3:", "duplicate key 'ecn'"],
        ),
    ],
)
def test_policy_values_are_what_they_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str, needles: list[str]
):
    err = error_of(capsys, "check", write_inventory(tmp_path, POLICY_INVENTORY, policy_yaml=policy))
    for needle in needles:
        assert needle in err


# --- naming patterns ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "needles"),
    [
        ("{server: 'gpu{server:>99999999}'}", ["{server:>99999999}", "zero-padded"]),
        ("{server: 'gpu{server!r}'}", ["{server!r}", "no attributes"]),
        ("{server: 'gpu{su.__class__}'}", ["{su.__class__}"]),
        ("{leaf: 'leaf{rail[0]}'}", ["{rail[0]}"]),
        ("{server: 'gpu{server:099d}'}", ["{server:099d}"]),
        ("{server: '-{server}'}", ["starts with '-'", "command-line option"]),
        ("{server: 'gpu{}'}", ["gpu{}"]),
        ("{server: 'gpu{server'}", ["unbalanced"]),
        ("{server: 'gpu{{server}}'}", ["not a safe naming pattern"]),
        ("{leaf: 'leaf-{server}'}", ["uses {server}", "{su}, {rail}"]),
        ("{spine: 'spine-su{su}-{spine}'}", ["names.spine", "spine.scope"]),
        ("{server: 'a/{server}'}", ["makes names such as 'a/1'", "no '/'"]),
        ("{nic_netdev: 'ethernet-port-{nic0:05d}'}", ["names.nic_netdev", "at most 15"]),
    ],
)
def test_naming_patterns_make_only_safe_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], names: str, needles: list[str]
):
    text = INVENTORY.replace("  spine: {count: 1}\n", f"  spine: {{count: 1}}\n  names: {names}\n")
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert re.search(r"fabric\.yaml:\d+: topology", err), err  # the line of the pattern
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize("hostname", ["'{name:>999999}'", "'{name.__class__}'", "'-{name}'", "'{name:03d}'"])
def test_management_hostname_pattern(tmp_path: Path, capsys: pytest.CaptureFixture[str], hostname: str):
    text = INVENTORY + f"connection: {{hostname: {hostname}}}\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml:9: connection.hostname" in err


def test_padded_names_are_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    text = INVENTORY.replace(
        "  spine: {count: 1}\n", "  spine: {count: 1}\n  names: {server: 'dgx{server:04d}'}\n"
    )
    assert main(["render", str(write_inventory(tmp_path / "inv", text)), "-o", str(tmp_path / "out")]) == 0
    assert {p.name for p in (tmp_path / "out").iterdir()} >= {"dgx0001.sh", "dgx0002.sh"}


@pytest.mark.parametrize(
    ("old", "new", "needles"),
    [
        ("scalable_units: 1", f"scalable_units: {10**9}", ["topology.scalable_units", "100000"]),
        (
            "scalable_units: 1\n  servers_per_su: 2\n  rails: 2",
            "scalable_units: 5000\n  servers_per_su: 5000\n  rails: 64",
            ["fabric.yaml:5: topology:", "expands to", "1,000,000 devices", "4,000,000 links"],
        ),
        ("spine: {count: 1}", "spine: {count: 1, links_per_leaf: 65}", ["spine.links_per_leaf", "64"]),
        ("rails: 2", "rails: true", ["fabric.yaml:7: topology.rails", "integer", "got true"]),
        ("rails: 2", "rails: 2.0", ["topology.rails", "got 2.0"]),
    ],
)
def test_topology_sizes_are_capped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, needles: list[str]
):
    err = error_of(capsys, "check", write_inventory(tmp_path, INVENTORY.replace(old, new)))
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (".nan", "finite"),
        (".inf", "finite"),
        ("-1", "greater than 0"),
        ("0", "greater than 0"),
        ("true", "number"),
    ],
)
def test_compact_cable_length(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, needle: str):
    text = INVENTORY.replace(
        "  spine: {count: 1}\n", f"  spine: {{count: 1}}\n  host_links: {{cable_m: {value}}}\n"
    )
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml:9: topology.host_links.cable_m" in err
    assert needle in err


@pytest.mark.parametrize(
    ("old", "new", "needles"),
    [
        ("{name: leaf1,", "{name: ../../etc/leaf1,", ["devices.0.name", "no '/'"]),
        ("{name: leaf1,", "{name: meta.json,", ["devices.0.name", "reserved"]),
        ("netdev: eth0,", "netdev: ../../../../etc/x,", ["devices.1.nics.0.netdev", "Linux"]),
        ("netdev: eth1,", "netdev: eth0,", ["devices.1", "two NICs have netdev 'eth0'"]),
        (
            "role: leaf, su: 1, rail: 1}",
            "role: leaf, su: 1, rail: 1, nics: [{rail: 1, netdev: e, rdma_device: m}]}",
            ["devices.0", "hosts only"],
        ),
        ("role: leaf,", "role: router,", ["devices.0.role", "'leaf'"]),
        ("rails: 4", "rails: 4.5", ["fabric.yaml:2: rails", "got 4.5"]),
        ("name: ex\n", "name: ../../tmp/ex\n", ["fabric.yaml:1: name", "no '/'"]),
        (
            "role: leaf, su: 1",
            "role: leaf, platform: connectx, su: 1",
            ["devices.0.platform", "a leaf needs a switch"],
        ),
    ],
)
def test_explicit_devices_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, needles: list[str]
):
    text = EXPLICIT.replace(old, new)
    assert text != EXPLICIT
    err = error_of(capsys, "check", write_inventory(tmp_path, text, cabling_csv=CABLING))
    assert "fabric.yaml" in err
    for needle in needles:
        assert needle in err


# --- cabling CSV fields ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "needles"),
    [
        ("gpu01,eth1,leaf1,Ethernet2,400,nan", ["cable_m", "'nan'"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,inf", ["cable_m", "'inf'"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,1e400", ["cable_m", "'1e400'"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,-3", ["cable_m", "'-3'"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,0", ["cable_m", "'0'", "above 0"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,20000", ["cable_m", "at most 10,000 m"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,3m", ["cable_m", "in metres"]),
        ("gpu01,eth1,leaf1,Ethernet2,0,3", ["speed_gbps", "'0'", "1 to 1600"]),
        ("gpu01,eth1,leaf1,Ethernet2,-400,3", ["speed_gbps", "'-400'"]),
        ("gpu01,eth1,leaf1,Ethernet2,99999,3", ["speed_gbps", "1 to 1600"]),
        ("gpu01,eth1,leaf1,Ethernet2,\uff14\uff10\uff10,3", ["speed_gbps"]),
        ("gpu01,eth1,leaf1,Ethernet2,400.0,3", ["speed_gbps", "whole number"]),
        ("gpu01,eth1,leaf1,Ethernet2,,3", ["speed_gbps", "missing value"]),
        ("gpu01,,leaf1,Ethernet2,400,3", ["interface_a", "missing value"]),
        ("gpu01,eth1,leaf1,Ethernet2,400,3,extra", ["7 values; expected 6"]),
        ("gpu01,eth1,leaf1,Ethernet2,400", ["5 values; expected 6"]),
        ("gpu01,eth1,leaf1," + "E" * 200_000 + ",400,3", ["unreadable CSV", "field larger than field limit"]),
        ("gpu01,eth1,leaf1,E" + "t" * 100 + ",400,3", ["interface_b", "at most 64"]),
        ('gpu01,eth1,leaf1,"Ethernet2"x,400,3', ["unreadable CSV"]),
    ],
)
def test_cabling_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, needles: list[str]):
    cabling = CSV_HEADER + "gpu01,eth0,leaf1,Ethernet1,400,3\n" + row + "\n"
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    assert "cabling.csv:3:" in err
    assert len(err) < 600  # the oversized field is not echoed
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize(
    ("cabling", "needles"),
    [
        (CSV_HEADER, ["cabling.csv:2:", "no cables after the header"]),
        ("", ["cabling.csv:1:", "empty"]),
        ("\n\n", ["cabling.csv:1:", "empty"]),
        (
            CSV_HEADER.replace("speed_gbps", "device_a"),
            ["cabling.csv:1:", "'device_a'", "both give device_a"],
        ),
        ("a,b,c\n1,2,3\n", ["cabling.csv:1:", "missing column(s) device_a", "NetBox"]),
        (
            CSV_HEADER.replace(",speed_gbps", "") + "gpu01,eth0,leaf1,Ethernet1,3\n",
            ["cabling.csv:1:", "no speed_gbps column", "cabling_defaults.speed_gbps"],
        ),
    ],
)
def test_cabling_file_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cabling: str, needles: list[str]
):
    err = error_of(capsys, "check", write_inventory(tmp_path, EXPLICIT, cabling_csv=cabling))
    for needle in needles:
        assert needle in err


# --- snapshots ------------------------------------------------------------------------------------


def lab_snapshot(tmp_path: Path) -> tuple[Path, Path]:
    """(inventory, snapshot) of the small inventory as the lab prints it."""
    inventory = write_inventory(tmp_path / "inv")
    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(inventory), "-o", str(snapshot)]) == 0
    return inventory, snapshot


@pytest.mark.parametrize(
    ("meta", "needles"),
    [
        ({"devices": ["leaf-su1-r1"]}, ["meta.json: devices:", "a list; expected an object"]),
        ({"devices": {"leaf-su1-r1": "ok"}}, ["meta.json: devices.leaf-su1-r1:", "a string"]),
        ({"devices": {"leaf-su1-r1": {"error": "boom"}}}, ["devices.leaf-su1-r1.error", "a string", "auth"]),
        (
            {"devices": {"leaf-su1-r1": {"error": {"kind": "gremlins", "message": "x"}}}},
            ["devices.leaf-su1-r1.error", "unreachable"],
        ),
        ({"devices": {"leaf-su1-r1": {"error": {"kind": "auth"}}}}, ["devices.leaf-su1-r1.error"]),
        ({"devices": {"leaf-su1-r1": {"fingerprint": 42}}}, ["devices.leaf-su1-r1.fingerprint", "a number"]),
        ({"devices": {"leaf-su1-r1": {"read_at": "yesterday"}}}, ["devices.leaf-su1-r1.read_at", "a string"]),
        ({"devices": {"leaf-su1-r1": {"read_at": 1e300}}}, ["devices.leaf-su1-r1.read_at", "since 1970"]),
        ({"devices": {"leaf-su1-r1": {"read_at": True}}}, ["devices.leaf-su1-r1.read_at", "a boolean"]),
        ([1, 2, 3], ["meta.json:", "the JSON is a list; expected a JSON object"]),
    ],
)
def test_snapshot_metadata_of_the_wrong_types(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], meta: object, needles: list[str]
):
    import json

    inventory, snapshot = lab_snapshot(tmp_path)
    (snapshot / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    capsys.readouterr()
    for argv in (
        ["check", inventory, "--snapshot", snapshot],
        ["drift", snapshot, snapshot, "--inventory", inventory],
    ):
        err = error_of(capsys, *argv)
        for needle in needles:
            assert needle in err


def test_snapshot_metadata_nested_too_deeply(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inventory, snapshot = lab_snapshot(tmp_path)
    (snapshot / "meta.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    err = error_of(capsys, "check", inventory, "--snapshot", snapshot)
    assert "meta.json" in err and "nested too deeply" in err


def test_snapshot_stray_files_are_not_devices(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    import json

    inventory, snapshot = lab_snapshot(tmp_path)
    capsys.readouterr()
    main(["check", str(inventory), "--snapshot", str(snapshot), "--format", "json"])
    clean = json.loads(capsys.readouterr().out)
    (snapshot / "README.md").write_text("# nightly snapshot\n", encoding="utf-8")
    (snapshot / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1\xff\xfe")
    (snapshot / ".git").mkdir()
    (snapshot / "leaf-su1-r1" / ".DS_Store").write_bytes(b"\x00\x01Bud1\xff")
    (snapshot / "leaf-su1-r1" / "._show_running-config.txt").write_bytes(b"\x00\x05\x16\x07\xff\xfe")
    (snapshot / "leaf-su1-r1" / "notes.md").write_bytes(b"\xff\xfe not text")
    main(["check", str(inventory), "--snapshot", str(snapshot), "--format", "json"])
    assert json.loads(capsys.readouterr().out) == clean
    assert clean["summary"]["devices_checked"] == 5


def test_snapshot_device_that_is_not_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    import shutil

    inventory, snapshot = lab_snapshot(tmp_path)
    shutil.rmtree(snapshot / "gpu01")
    (snapshot / "gpu01").write_text("not a folder\n", encoding="utf-8")
    err = error_of(capsys, "check", inventory, "--snapshot", snapshot)
    assert "snap/gpu01:" in err and "not a folder" in err


@pytest.mark.parametrize("how", ["latin-1", "nul"])
def test_snapshot_metadata_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str):
    inventory, snapshot = lab_snapshot(tmp_path)
    meta = snapshot / "meta.json"
    meta.write_bytes(_encoded(meta.read_text(encoding="utf-8"), how))
    err = error_of(capsys, "check", inventory, "--snapshot", snapshot)
    assert f"{meta}:3:" in err
    assert "expected UTF-8" in err


@pytest.mark.parametrize(
    ("how", "why"), [("latin-1", "byte 0xe9 is not UTF-8"), ("nul", "NUL byte")], ids=["latin-1", "nul"]
)
def test_a_bad_byte_in_one_output_is_that_output_unreadable_not_the_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, why: str
):
    """A device that printed a NUL (or a byte that is not UTF-8): that output is unreadable for that
    device, and the rest of the snapshot is checked. As the previous snapshot of the next audit it is
    read too, instead of failing every later audit with exit 2."""
    import json

    inventory, snapshot = lab_snapshot(tmp_path)
    before = tmp_path / "before"
    shutil.copytree(snapshot, before)
    capsys.readouterr()
    main(["check", str(inventory), "--snapshot", str(snapshot), "--format", "json"])
    clean = json.loads(capsys.readouterr().out)["findings"]
    output = snapshot / "leaf-su1-r1" / "show_running-config.txt"
    output.write_bytes(_encoded(output.read_text(encoding="utf-8"), how))
    assert main(["check", str(inventory), "--snapshot", str(snapshot), "--format", "json"]) == 1
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f not in clean]
    assert [(f["device"], f["rule"]) for f in found] == [("leaf-su1-r1", "parse.unknown_output")]
    assert f"could not read 'show running-config': line 3: {why}; expected UTF-8 text" in found[0]["message"]
    # The same snapshot as the one counters are compared with.
    shutil.copytree(snapshot, tmp_path / "earlier")
    rc = main(["check", str(inventory), "--snapshot", str(before), "--previous", str(tmp_path / "earlier")])
    assert rc in (0, 1), capsys.readouterr().err
    assert "Traceback" not in capsys.readouterr().err


def test_a_collected_output_with_a_nul_is_unreadable_before_it_is_saved(lab_fabric):
    """Collection parses what it saves without reading it back: the same output reads the same."""
    from netcfg.sources import device_state

    device = lab_fabric.devices["gpu01"]
    outputs = {"ethtool_eth0": "Settings for eth0:\n\tSpeed: 400000Mb/s\x00\n"}
    state = device_state(device, outputs, None)
    assert any(why.startswith("line 2: NUL byte") for why in state.unparsed.values()), state.unparsed


def test_snapshot_output_with_crlf_and_bom_reads_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    from netcfg.inventory import load_fabric
    from netcfg.sources import snapshot_states

    inventory, snapshot = lab_snapshot(tmp_path)
    fabric = load_fabric(inventory)
    before = snapshot_states(fabric, snapshot)
    output = snapshot / "leaf-su1-r1" / "show_running-config.txt"
    output.write_bytes(b"\xef\xbb\xbf" + output.read_text(encoding="utf-8").replace("\n", "\r\n").encode())
    assert snapshot_states(fabric, snapshot) == before


# --- inventory generate ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "needles"),
    [
        (["--scalable-units", "0"], ["--scalable-units", "'0'", "1 to 100,000"]),
        (["--scalable-units", "-4"], ["--scalable-units"]),
        (["--servers-per-su", "abc"], ["--servers-per-su", "'abc'"]),
        (["--rails", "65"], ["--rails", "1 to 64"]),
        (["--rails", "0"], ["--rails"]),
        (["--scalable-units", str(10**9)], ["--scalable-units", "100,000"]),
        (["--servers-per-su", "4096", "--rails", "8"], ["--servers-per-su 4096", "at most 64"]),
        (["--scalable-units", "50000", "--servers-per-su", "512"], ["expands to", "1,000,000 devices"]),
        (["--name", "../../x"], ["--name", "not a safe name"]),
    ],
)
def test_generate_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], needles: list[str]
):
    err = error_of(capsys, "inventory", "generate", "-o", tmp_path / "gen", *options)
    for needle in needles:
        assert needle in err
    assert not (tmp_path / "gen").exists()


def test_generate_into_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    (tmp_path / "gen").write_text("a file\n", encoding="utf-8")
    err = error_of(capsys, "inventory", "generate", "-o", tmp_path / "gen", "--scalable-units", "1")
    assert f"--output {tmp_path / 'gen'}" in err
    assert "writable folder" in err


def test_generate_never_overwrites_a_hand_written_inventory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    folder = write_inventory(tmp_path / "inv")
    err = error_of(capsys, "inventory", "generate", "-o", folder, "--scalable-units", "1")
    assert "did not generate" in err
    assert (folder / "fabric.yaml").read_text(encoding="utf-8") == INVENTORY
    gen = tmp_path / "gen"
    args = ["inventory", "generate", "-o", str(gen), "--scalable-units", "1", "--servers-per-su", "4"]
    assert main(args) == 0
    assert main([*args[:-1], "8"]) == 0  # its own output is regenerated
    assert "8 servers" in (gen / "fabric.yaml").read_text(encoding="utf-8")


# --- credentials file -----------------------------------------------------------------------------

SECRET = "hunter2-do-not-print"


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (f"- admin\n- {SECRET}\n", ["creds.yaml:", "expected a mapping"]),
        ("username: admin\n", ["creds.yaml:", "'password' is missing"]),
        (
            "username: admin\npassword: 0123\n",
            ["creds.yaml:2:", "password is not a non-empty string", "quoted"],
        ),
        ("username: admin\npassword: yes\n", ["creds.yaml:2:", "password"]),
        ("username: admin\npassword: ''\n", ["creds.yaml:2:", "password"]),
        (f"username: admin\npassword: {SECRET}\n{SECRET}: x\n", ["creds.yaml:3:", "other than"]),
        (f"username: admin\npassword: {SECRET}\npassword: {SECRET}2\n", ["creds.yaml:3:", "duplicate key"]),
        (
            f"username: admin\npassword: {SECRET}\xe9\n".encode("latin-1").decode("latin-1"),
            ["creds.yaml:2:", "UTF-8"],
        ),
        (f"username: admin\npassword: [{SECRET}\n", ["creds.yaml:", "malformed YAML"]),
    ],
)
def test_credentials_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needles: list[str]):
    inventory = write_inventory(tmp_path / "inv", INVENTORY + "credentials: {file: creds.yaml}\n")
    (inventory / "creds.yaml").write_bytes(text.encode("latin-1") if "\xe9" in text else text.encode())
    err = error_of(capsys, "collect", inventory, "-o", tmp_path / "snap", "--no-host-key-check")
    for needle in needles:
        assert needle in err
    assert SECRET not in err
    assert not (tmp_path / "snap").exists()


@pytest.mark.parametrize("how", ["bom", "crlf"])
def test_credentials_file_with_bom_or_crlf(tmp_path: Path, how: str):
    from netcfg.inventory import load_fabric
    from netcfg.nornir_inventory import Login, read_login

    inventory = write_inventory(tmp_path / "inv", INVENTORY + "credentials: {file: creds.yaml}\n")
    (inventory / "creds.yaml").write_bytes(_encoded(f"username: admin\npassword: {SECRET}\n# end\n", how))
    assert read_login(load_fabric(inventory)) == Login("admin", SECRET)


def test_pattern_that_outgrows_the_name_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A pattern valid for small numbers makes a 65-character name at server 1,000: refused there."""
    pattern = "g" + "{k}" * 21
    text = INVENTORY.replace("servers_per_su: 2", "servers_per_su: 1000").replace(
        "  spine: {count: 1}\n", f"  spine: {{count: 1}}\n  names: {{server: '{pattern}'}}\n"
    )
    err = error_of(capsys, "check", write_inventory(tmp_path, text))
    assert "fabric.yaml: topology.names.server:" in err
    assert "'g10001000" in err and "(85 characters)" in err and "at most 64" in err


@pytest.mark.parametrize(
    ("old", "new", "needles"),
    [
        (
            "switch: eos, host: connectx",
            "switch: connectx, host: eos",
            ["fabric.yaml:3: platforms", "host platform"],
        ),
        (
            "spine: {count: 1}",
            "spine: {count: 1, leaf_first_port: 2}",
            ["topology.spine: port leaf-su1-r1:Ethernet2 is cabled twice", "topology.host_links"],
        ),
        (
            "spine: {count: 1}",
            "spine: {count: 1}\n  names: {leaf: 'leaf-r{rail}', spine: 'leaf-r{spine}'}",
            ["topology.names.leaf: duplicate device name 'leaf-r1'"],
        ),
        (
            "spine: {count: 1}",
            "spine: {count: 1}\n  names: {nic_netdev: 'ens1f0'}",
            ["topology.names.nic_netdev", "'ens1f0' for more than one rail", "{rail}"],
        ),
    ],
)
def test_compact_form_that_contradicts_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, needles: list[str]
):
    err = error_of(capsys, "check", write_inventory(tmp_path, INVENTORY.replace(old, new)))
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize("option", ["--previous", "--baseline"])
def test_counter_comparisons_need_a_snapshot_to_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
):
    inventory, snapshot = lab_snapshot(tmp_path)
    err = error_of(capsys, "check", inventory, option, snapshot)
    assert err.startswith(f"netcfg: error: {option}:") and "give --snapshot too" in err


@pytest.mark.parametrize(
    ("record", "needle"),
    [
        ("not json", 'expected {"snapshot"'),
        ('{"snapshot": "../../etc"}', 'expected {"snapshot"'),
        ('{"snapshot": 7}', 'expected {"snapshot"'),
        ('{"snapshot": "20260101T000000.000000Z"}', "missing or incomplete"),
    ],
)
def test_a_broken_baseline_record_fails_the_audit_before_anything_is_collected(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    record: str,
    needle: str,
):
    monkeypatch.setenv("NETCFG_USERNAME", "ops")
    monkeypatch.setenv("NETCFG_PASSWORD", "not-used")
    inventory = write_inventory(tmp_path / "inv")
    root = tmp_path / "snapshots" / "t"
    root.mkdir(parents=True)
    (root / "baseline.json").write_text(record, encoding="utf-8")
    snapshots, reports = tmp_path / "snapshots", tmp_path / "reports"
    err = error_of(
        capsys, "audit", inventory, "--snapshots", snapshots, "--reports", reports, "--no-host-key-check"
    )
    assert err.startswith(f"netcfg: error: {root / 'baseline.json'}:") and needle in err
    assert sorted(p.name for p in root.iterdir()) == ["baseline.json"]


# --- SONiC config_db given twice ------------------------------------------------------------------

MULTI = Path(__file__).resolve().parent.parent / "inventories" / "lab-multi"
SONIC_LEAF = "leaf-su1-r3"
_PG = '    "BUFFER_PG": {\n'
CONFIG_DB_TWICE = [
    # A key twice in one object: JSON readers keep the last, and the first would go unchecked.
    (
        lambda text: text.replace(
            _PG, _PG + '        "Ethernet1|3": {"profile": "ingress_lossy_profile"},\n', 1
        ),
        None,  # where the entry stood before
        "BUFFER_PG|Ethernet1|3 is given twice (also on line 3)",
    ),
    # A whole table twice.
    (
        lambda text: text.replace(_PG, '    "BUFFER_PG": {},\n' + _PG, 1),
        3,
        "BUFFER_PG is given twice (also on line 2)",
    ),
    # The same entry nested and as a flat TABLE|key.
    (
        lambda text: text.replace(_PG, '    "BUFFER_PG|Ethernet1|3": {"profile": "x"},\n' + _PG, 1),
        2,
        "BUFFER_PG|Ethernet1|3 is given twice (nested under BUFFER_PG and as a flat BUFFER_PG|key)",
    ),
]


@pytest.mark.parametrize(("edit", "line", "needle"), CONFIG_DB_TWICE)
def test_a_config_db_file_with_a_key_given_twice_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, line: int | None, needle: str
):
    configs = tmp_path / "configs"
    assert main(["render", str(MULTI), "-o", str(configs), "--device", SONIC_LEAF]) == 0
    config = configs / f"{SONIC_LEAF}.json"
    assert config.read_text(encoding="utf-8").startswith("{\n" + _PG)
    config.write_text(edit(config.read_text(encoding="utf-8")), encoding="utf-8")
    err = error_of(capsys, "check", MULTI, "--configs", configs)
    assert f"{config}:{line or _second_entry(config)}: " in err and needle in " ".join(err.split())


@pytest.mark.parametrize(("edit", "line", "needle"), CONFIG_DB_TWICE)
def test_a_collected_config_db_with_a_key_given_twice_is_one_unreadable_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, line: int | None, needle: str
):
    import json

    snapshot = tmp_path / "snap"
    assert main(["lab", "snapshot", str(MULTI), "-o", str(snapshot)]) == 0
    capsys.readouterr()
    main(["check", str(MULTI), "--snapshot", str(snapshot), "--format", "json"])
    clean = json.loads(capsys.readouterr().out)["findings"]
    running = snapshot / SONIC_LEAF / "show_runningconfiguration_all.txt"
    assert running.read_text(encoding="utf-8").startswith("{\n" + _PG)
    running.write_text(edit(running.read_text(encoding="utf-8")), encoding="utf-8")
    main(["check", str(MULTI), "--snapshot", str(snapshot), "--format", "json"])
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f not in clean]
    assert [(f["device"], f["rule"]) for f in found] == [(SONIC_LEAF, "parse.unknown_output")]
    assert f"line {line or _second_entry(running)}: {needle}" in found[0]["message"]


def _second_entry(path: Path) -> int:
    """The line of the second `"Ethernet1|3"` key of a config_db text."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [n for n, text in enumerate(lines, 1) if '"Ethernet1|3"' in text][1]


# --- earlier snapshots that cannot be earlier -----------------------------------------------------


def _earlier_copy(snapshot: Path, folder: Path, **meta: object) -> Path:
    """A copy of `snapshot` at `folder` with these `meta.json` fields changed."""
    import json

    shutil.copytree(snapshot, folder)
    data = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    (folder / "meta.json").write_text(json.dumps({**data, **meta}), encoding="utf-8")
    return folder


@pytest.mark.parametrize("option", ["--previous", "--baseline"])
@pytest.mark.parametrize(
    ("meta", "needle"),
    [
        (
            {"fabric": "other"},
            "is a snapshot of fabric 'other' and --snapshot {snapshot} of 't'; expected an",
        ),
        (
            {"created": "2099-01-01T00:00:00Z"},
            "was taken at 2099-01-01T00:00:00Z, after --snapshot {snapshot} (",
        ),
        ({"created": 7}, "meta.json: created: 7; expected a UTC time"),
        ({"fabric": ["t"]}, "meta.json: fabric: a list; expected the fabric's name"),
    ],
    ids=["other-fabric", "later", "created-not-a-time", "fabric-not-a-name"],
)
def test_an_earlier_snapshot_of_another_fabric_or_a_later_time_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, meta: dict, needle: str
):
    """Counters judged since a later snapshot run backwards: swapping --snapshot and --previous hid a
    pause storm and FEC errors. Refused, naming both folders."""
    inventory, snapshot = lab_snapshot(tmp_path)
    earlier = _earlier_copy(snapshot, tmp_path / "earlier", **meta)
    err = error_of(capsys, "check", inventory, "--snapshot", snapshot, option, earlier)
    assert needle.format(snapshot=snapshot) in err
    if "meta.json" not in needle:
        assert err.startswith(f"netcfg: error: {option} {earlier}: ")


@pytest.mark.parametrize("option", ["--previous", "--baseline"])
def test_the_snapshot_itself_as_its_earlier_snapshot_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
):
    inventory, snapshot = lab_snapshot(tmp_path)
    err = error_of(capsys, "check", inventory, "--snapshot", snapshot, option, snapshot / ".." / "snap")
    assert f"{option} {snapshot / '..' / 'snap'}: is the same folder as --snapshot {snapshot}" in err


def test_an_earlier_snapshot_of_the_same_fabric_and_time_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    inventory, snapshot = lab_snapshot(tmp_path)
    earlier = _earlier_copy(snapshot, tmp_path / "earlier", created="2020-01-01T00:00:00Z")
    argv = ["check", inventory, "--snapshot", snapshot, "--previous", earlier, "--baseline", earlier]
    assert main([str(a) for a in argv]) in (0, 1), capsys.readouterr().err


# --- an audit that read nothing -------------------------------------------------------------------


def test_an_audit_in_which_every_device_failed_is_not_the_next_audits_previous(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """The lab died (every port refuses): the snapshot is kept for inspection, but the next audit
    neither drifts against it (every device 'collection ok') nor judges counters since it, and
    `--baseline` does not make it the go-live baseline. The audit says so."""
    import json
    import socket

    from netcfg.audit import previous_snapshot
    from netcfg.inventory import load_fabric

    monkeypatch.setenv("NETCFG_USERNAME", "ops")
    monkeypatch.setenv("NETCFG_PASSWORD", "not-used")
    inventory = write_inventory(tmp_path / "inv")
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    devices = load_fabric(inventory).devices
    connections = tmp_path / "connections.json"
    connections.write_text(json.dumps({name: {"hostname": "127.0.0.1", "port": port} for name in devices}))
    snapshots, reports = tmp_path / "snapshots", tmp_path / "reports"
    argv = [
        "audit",
        inventory,
        "--snapshots",
        snapshots,
        "--reports",
        reports,
        "--connections",
        connections,
        "--no-host-key-check",
        "--timeout",
        "2",
        "--baseline",
    ]
    assert main([str(a) for a in argv]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "no device was read: the snapshot is kept for inspection, but the next audit does not" in out
    assert "not recorded as the go-live baseline" in out
    root = snapshots / "t"
    (kept,) = [p for p in root.iterdir() if p.is_dir()]
    assert (kept / "meta.json").is_file()
    assert not (root / "baseline.json").exists()
    assert previous_snapshot(root, root / "99999999T000000.000000Z", devices) is None
