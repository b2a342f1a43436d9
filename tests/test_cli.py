"""The CLI end to end: every exit code, every format, the drifted example."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from netcfg import __version__
from netcfg.cli import main
from netcfg.render import render_fabric
from tests.conftest import LAB, ROOT

DRIFTED = LAB / "examples" / "drifted"
SEEDED = {
    ("leaf-su1-r3", "pfc.no_drop_priorities"),
    ("leaf-su2-r2", "ecn.enabled"),
    ("gpu05", "qos.trust"),
    ("leaf-su1-r1", "mtu.switch"),
}


def run_json(capsys, *args: str) -> tuple[int, dict]:
    rc = main([*args, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_intent_is_clean_exit_0(capsys):
    rc, report = run_json(capsys, "check", str(LAB))
    assert rc == 0
    assert report["findings"] == []
    assert report["summary"]["devices_checked"] == 18


def test_drifted_snapshot_names_exactly_the_seeded_faults(capsys):
    rc, report = run_json(capsys, "check", str(LAB), "--snapshot", str(DRIFTED))
    assert rc == 1
    found = {(f["device"], f["rule"]) for f in report["findings"]}
    assert found >= SEEDED
    assert {d for d, _ in found} == {d for d, _ in SEEDED}, "a healthy device got a finding"
    mtu = next(f for f in report["findings"] if f["rule"] == "mtu.switch")
    assert (mtu["interface"], mtu["expected"], mtu["actual"]) == ("Ethernet2", "9214", "1500")
    for f in report["findings"]:
        assert set(f) >= {"rule", "severity", "device", "interface", "expected", "actual", "message"}
        assert f["severity"] in {"error", "warning", "info"}
    assert report["summary"]["findings"]["error"] == len(report["findings"])


def test_fail_on_threshold(capsys, tmp_path):
    configs = str(_configs(tmp_path, only=["spine1"]))
    rc, report = run_json(capsys, "check", str(LAB), "--configs", configs, "--allow-missing")
    assert rc == 0
    assert [f["rule"] for f in report["findings"]] == ["state.missing"]
    assert main(["check", str(LAB), "--configs", configs, "--allow-missing", "--fail-on", "info"]) == 1


def _configs(tmp_path, only=None, mutate=None):
    from netcfg.inventory import load_fabric
    from netcfg.policy import load_policy

    fabric = load_fabric(LAB)
    files = render_fabric(fabric, load_policy(fabric.policy_ref), only)
    folder = tmp_path / "configs"
    folder.mkdir()
    for name, text in files.items():
        if mutate and name in mutate:
            text = mutate[name](text)
        (folder / name).write_text(text)
    return folder


def test_premerge_configs_catch_an_edited_leaf(capsys, tmp_path):
    edit = {
        "leaf-su2-r4.cfg": lambda t: t.replace(
            "priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop"
        )
    }
    folder = _configs(tmp_path, mutate=edit)
    rc, report = run_json(capsys, "check", str(LAB), "--configs", str(folder))
    assert rc == 1
    assert {(f["device"], f["rule"]) for f in report["findings"]} == {
        ("leaf-su2-r4", "pfc.no_drop_priorities"),
        ("leaf-su2-r4", "link.pfc_mismatch"),
        ("leaf-su2-r4", "rail.qos_consistency"),
        ("leaf-su2-r4", "lossless.path"),
    }


def test_junit_names_are_unique_and_stable(tmp_path, capsys):
    out = tmp_path / "r.xml"
    assert (
        main(["check", str(LAB), "--snapshot", str(DRIFTED), "--format", "junit", "--output", str(out)]) == 1
    )
    root = ET.parse(out).getroot()
    names = [c.get("name") for c in root.iter("testcase")]
    assert len(names) == len(set(names))
    assert "leaf-su1-r3.pfc.no_drop_priorities.Ethernet1-4,31-32" in names
    failures = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert len(failures) == 10
    main(
        [
            "check",
            str(LAB),
            "--snapshot",
            str(DRIFTED),
            "--format",
            "junit",
            "--output",
            str(tmp_path / "b.xml"),
        ]
    )
    # Only the time of the run differs between two runs.
    assert _untimed((tmp_path / "b.xml").read_text()) == _untimed(out.read_text())


def _untimed(junit: str) -> str:
    return re.sub(r' timestamp="[^"]*"', "", junit)


@pytest.mark.parametrize(
    "fmt,marker",
    [
        ("markdown", "| error | `qos.trust` | gpu05 |"),
        ("sarif", '"ruleId": "qos.trust"'),
        ("html", "<td><span class='sev e'>✖ error</span><td>qos.trust<td>gpu05<td>eth0-3"),
    ],
)
def test_text_formats(capsys, fmt, marker):
    assert main(["check", str(LAB), "--snapshot", str(DRIFTED), "--format", fmt]) == 1
    assert marker in capsys.readouterr().out


def test_table_is_default(capsys):
    assert main(["check", str(LAB), "--snapshot", str(DRIFTED)]) == 1
    out = capsys.readouterr().out
    assert "pfc.no_drop_priorities" in out and "18 devices checked: 10 error" in out


def test_rules_lists_ids_and_docs(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule in ("pfc.no_drop_priorities", "link.pfc_mismatch", "rail.qos_consistency", "cabling.swapped"):
        assert rule in out
    assert "no-drop set is exactly the" in out


def test_render_writes_one_file_per_device(tmp_path, capsys):
    assert main(["render", str(LAB), "-o", str(tmp_path), "--device", "gpu03", "--explain"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".netcfg-written.json", "gpu03.sh"]
    assert "headroom" in capsys.readouterr().out
    manifest = json.loads((tmp_path / ".netcfg-written.json").read_text())
    assert manifest["files"] == {"gpu03.sh": hashlib.sha256((tmp_path / "gpu03.sh").read_bytes()).hexdigest()}


def _render(capsys, out, *more: str) -> tuple[int, str]:
    code = main(["render", str(LAB), "-o", str(out), "--device", "spine1", "--device", "gpu03", *more])
    return code, capsys.readouterr().err


def test_render_replaces_only_what_it_wrote_unless_told_to_overwrite(tmp_path, capsys):
    out = tmp_path / "configs"
    assert _render(capsys, out) == (0, "")
    rendered = {p.name: p.read_text() for p in out.iterdir()}
    assert _render(capsys, out) == (0, "")  # unchanged since netcfg wrote it: replaced
    (out / "spine1.cfg").write_text(rendered["spine1.cfg"] + "! my fix\n")
    (out / "gpu03.sh").write_text("# mine\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, err = _render(capsys, out)
    assert code == 2
    assert _one_line_text(err) == (
        f"netcfg: error: {out / 'spine1.cfg'}: differs from what netcfg last wrote there (edited since?); "
        "give --overwrite to replace it"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing written, not even spine1
    assert _render(capsys, out, "--overwrite") == (0, "")
    assert {p.name: p.read_text() for p in out.iterdir()} == rendered


def test_render_leaves_a_config_netcfg_never_wrote(tmp_path, capsys):
    out = tmp_path / "repo"
    out.mkdir()
    (out / "spine1.cfg").write_text("hostname spine1\n! kept by hand\n")
    code, err = _render(capsys, out)
    assert code == 2
    assert "spine1.cfg: was not written by netcfg (not in .netcfg-written.json)" in _one_line_text(err)
    assert sorted(p.name for p in out.iterdir()) == ["spine1.cfg"]
    assert (out / "spine1.cfg").read_text() == "hostname spine1\n! kept by hand\n"


@pytest.mark.parametrize("below", [False, True])
def test_render_into_or_below_a_file_is_exit_2(tmp_path, capsys, below):
    file = tmp_path / "notes.txt"
    file.write_text("keep me\n")
    out = file / "configs" if below else file
    code, err = _render(capsys, out)
    assert code == 2
    assert _one_line_text(err).startswith(f"netcfg: error: -o {out}: ")
    assert file.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def _one_line_text(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_version_and_module_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "netcfg", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0 and done.stdout.strip() == f"netcfg {__version__}"


def test_policy_schema_documents_defaults(capsys):
    assert main(["policy-schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$defs"]["EcnPolicy"]["properties"]["min_kbytes"]["default"] == 150


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_output_where_no_file_can_be_written_is_exit_2_naming_the_file(tmp_path, capsys):
    check = ["check", str(LAB), "--snapshot", str(DRIFTED), "--format", "json", "--output"]
    missing = tmp_path / "missing" / "r.json"
    assert main([*check, str(missing)]) == 2
    line = _one_line_error(capsys)
    assert str(missing) in line and "does not exist" in line
    # A path under a regular file cannot be written even by root.
    (tmp_path / "file.txt").write_text("kept\n")
    under_file = tmp_path / "file.txt" / "r.json"
    assert main([*check, str(under_file)]) == 2
    line = _one_line_error(capsys)
    assert str(under_file) in line and "not a folder" in line
    assert main([*check, str(tmp_path)]) == 2
    assert "is a folder" in _one_line_error(capsys)
    # A report written twice is replaced whole, with no temporary file left beside it.
    good = tmp_path / "r.json"
    assert main([*check, str(good)]) == 1
    assert main([*check, str(good)]) == 1
    assert json.loads(good.read_text())["summary"]["devices_checked"] == 18
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "r.json"]


def test_a_full_disk_is_exit_4_with_one_line(capsys):
    args = ["check", str(LAB), "--snapshot", str(DRIFTED), "--format", "sarif", "--output", "/dev/full"]
    assert main(args) == 4
    line = _one_line_error(capsys)
    assert line.startswith("netcfg: error: --output /dev/full:") and "No space left on device" in line


def test_init_writes_a_starter_that_check_accepts_and_never_overwrites(tmp_path, capsys):
    from netcfg.inventory import load_fabric
    from netcfg.lab.devices import load_faults
    from netcfg.policy import load_policy

    folder = tmp_path / "new" / "fabric"
    assert main(["init", str(folder)]) == 0
    names = {"fabric.yaml", "faults.yaml", "policy.yaml", "inventory.schema.json", "policy.schema.json"}
    assert {p.name for p in folder.iterdir()} == names
    capsys.readouterr()
    rc, report = run_json(capsys, "check", str(folder))
    assert rc == 0 and report["findings"] == [] and report["summary"]["devices_checked"] == 8
    fabric = load_fabric(folder)
    assert fabric.policy_ref == "policy.yaml"
    policy = load_policy(fabric.policy_ref, folder)
    assert policy.model_copy(update={"name": "roce-lossless"}) == load_policy("roce-lossless")
    assert load_faults(folder / "faults.yaml", fabric)
    for name, schema in (("fabric.yaml", "inventory.schema.json"), ("policy.yaml", "policy.schema.json")):
        first = (folder / name).read_text().splitlines()[0]
        assert first == f"# yaml-language-server: $schema={schema}"
        assert json.loads((folder / schema).read_text())["properties"]

    edited = (folder / "fabric.yaml").read_text().replace("servers_per_su: 4", "servers_per_su: 2")
    (folder / "fabric.yaml").write_text(edited)
    (folder / "policy.schema.json").unlink()
    assert main(["init", str(folder)]) == 2
    line = _one_line_error(capsys)
    assert str(folder / "fabric.yaml") in line and "already exists" in line
    assert (folder / "fabric.yaml").read_text() == edited
    assert not (folder / "policy.schema.json").exists(), "init wrote a file before refusing"

    other = tmp_path / "other"
    other.mkdir()
    (other / "README.md").write_text("mine\n")
    assert main(["init", str(other)]) == 0
    assert (other / "README.md").read_text() == "mine\n"
    assert main(["init", str(other / "README.md")]) == 2
    assert "not a folder" in _one_line_error(capsys)


def _undescribed(schema: object, path: str = "") -> list[str]:
    found = []
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if not prop.get("description"):
                found.append(f"{path}.{name}")
        for key, value in schema.items():
            found += _undescribed(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for value in schema:
            found += _undescribed(value, path)
    return found


@pytest.mark.parametrize(
    "kind,files",
    [
        ("inventory", ["inventories/lab/fabric.yaml", "inventories/example-1024/fabric.yaml"]),
        ("policy", ["policies/roce-lossless.yaml", "inventories/starter/policy.yaml"]),
    ],
)
def test_schemas_describe_every_field_and_accept_the_bundled_files(capsys, kind, files):
    import jsonschema
    import yaml

    assert main(["schema", kind]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert _undescribed(schema) == []
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    for name in [*files, "inventories/starter/fabric.yaml"] if kind == "inventory" else files:
        validator.validate(yaml.safe_load((ROOT / name).read_text()))
    data = yaml.safe_load((ROOT / files[0]).read_text())
    data["nmae"] = data.pop("name")
    assert not validator.is_valid(data)
    if kind == "policy":
        assert main(["policy-schema"]) == 0
        assert json.loads(capsys.readouterr().out) == schema


def _readme_python(marker: str) -> str:
    """A Python example of the docs' live-audit page (it was the README's), as written."""
    readme = (ROOT / "docs" / "live-audits.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    (block,) = [b for b in blocks if marker in b]
    return block


def test_the_readme_nornir_example_runs_as_written_against_the_lab(lab_fabric, lab_policy, tmp_path):
    from netcfg.lab.devices import load_faults
    from netcfg.lab.fabric import lab_server, write_connection_files

    # As docs/live-audits.md sets it up: the lab's files in out/lab, the inventory at inventories/lab.
    (tmp_path / "inventories").mkdir()
    (tmp_path / "inventories" / "lab").symlink_to(LAB)
    env = {**os.environ, "NETCFG_USERNAME": "admin", "NETCFG_PASSWORD": "lab-only-secret"}
    snippet = _readme_python("NetcfgInventory")
    faults = load_faults(LAB / "faults.yaml", lab_fabric)
    with lab_server(lab_fabric, lab_policy, faults, "admin", "lab-only-secret") as server:
        write_connection_files(server, tmp_path / "out" / "lab")
        run = [sys.executable, "-c", snippet]
        done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        leaves = sorted(n for n, d in lab_fabric.devices.items() if d.role == "leaf")
        assert done.stdout.splitlines() == [
            f"{name} ! device: {name} (DCS-7060X6-64PE, EOS-4.32.1F)" for name in leaves
        ]
        # The host keys are checked: with keys the lab does not have, every device is refused.
        (tmp_path / "out" / "lab" / "known_hosts").write_text("")
        done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [f"{name} failed" for name in leaves]


def test_the_drifted_snapshots_drain_list_drains_only_the_hosts_with_their_own_faults(capsys, lab_fabric):
    """Of the seeded faults, gpu05's NIC and gpu02's port (MTU 1500 at the leaf end of its cable) are
    the hosts' own; the two leaves wrong on every port only impact the servers behind them."""
    from netcfg.impact import drain_plan
    from netcfg.rules import Finding, Severity

    _, report = run_json(capsys, "check", str(LAB), "--snapshot", str(DRIFTED))
    findings = [
        Finding(f["rule"], Severity(f["severity"]), f["device"], f["interface"], "", "", f["message"])
        for f in report["findings"]
    ]
    plan = drain_plan(lab_fabric, findings)
    assert {h: sorted({r.rule for r in rs}) for h, rs in plan.drain.items()} == {
        "gpu02": ["link.mtu_mismatch", "mtu.switch"],
        "gpu05": ["link.trust_mismatch", "qos.trust"],
    }
    impacted = {h: sorted({r.interface.split(":")[0] for r in rs}) for h, rs in plan.impacted.items()}
    assert impacted == {
        **{h: ["leaf-su1-r3"] for h in ("gpu01", "gpu03", "gpu04")},
        **{h: ["leaf-su2-r2"] for h in ("gpu06", "gpu07", "gpu08")},
    }
