"""What netcfg writes or ships for Kubernetes is valid Kubernetes, checked offline against the API
schema bundled by kubernetes-validate: the node-problem-detector manifests under deploy/kubernetes,
and the Node changes the drain list's `kubectl` lines make. The plugin config in the manifest follows
node-problem-detector's custom plugin protocol and mounts what host-check reads."""

from __future__ import annotations

import copy
import json
import re
import shlex
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.cli import build_parser
from netcfg.drain import render_drain_list
from netcfg.impact import drain_plan
from netcfg.rules import Finding, Severity
from tests.conftest import ROOT

DEPLOY = ROOT / "deploy" / "kubernetes"
# An older Kubernetes release a site may still run (the manifests use nothing newer), and the newest
# the schema bundle holds.
VERSIONS = ("1.32.0", kubernetes_validate.utils.latest_version())
# Kubernetes' own name syntax (apimachinery validation): a qualified name (an optional DNS-subdomain
# prefix and `/`, then at most 63 alphanumerics with `-_.` inside), a label value, a DNS subdomain.
_NAME = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_SUBDOMAIN = re.compile(r"(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
QUALIFIED = re.compile(rf"(?:(?P<prefix>[^/]+)/)?{_NAME}")
LABEL_VALUE = re.compile(rf"(?:{_NAME})?")


def documents() -> list[tuple[Path, dict]]:
    found = [
        (path, doc) for path in sorted(DEPLOY.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text())
    ]
    assert found, f"no manifests in {DEPLOY}"
    return found


@pytest.mark.parametrize("version", VERSIONS)
def test_every_shipped_manifest_is_valid_kubernetes(version):
    for path, doc in documents():
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{path}: {doc['kind']}: {exc.message}")


def test_the_schema_check_can_fail():
    (daemonset,) = [doc for _, doc in documents() if doc["kind"] == "DaemonSet"]
    broken = copy.deepcopy(daemonset)
    broken["spec"]["template"]["spec"]["hostNetwrok"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)
    broken = copy.deepcopy(daemonset)
    broken["spec"]["template"]["spec"]["hostNetwork"] = "yes"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)


def _go_seconds(text: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(s|m)", text).groups()
    return int(number) * {"s": 1, "m": 60}[unit]


def test_the_daemonset_runs_host_check_as_a_custom_plugin_with_what_it_reads_mounted():
    docs = {doc["kind"]: doc for _, doc in documents()}
    ((file, text),) = docs["ConfigMap"]["data"].items()
    config = json.loads(text)
    plugin = config["pluginConfig"]
    assert config["plugin"] == "custom" and plugin["max_output_length"] == 80
    (rule,) = config["rules"]
    assert rule["condition"] == config["conditions"][0]["type"]
    args = build_parser().parse_args(rule["args"])
    assert (args.command, args.format, str(args.root)) == ("host-check", "npd", "/host")
    assert args.interval < args.deadline < _go_seconds(rule["timeout"]) <= _go_seconds(plugin["timeout"])
    pod = docs["DaemonSet"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    monitor = next(
        a.split("=", 1)[1] for a in container["command"] if a.startswith("--config.custom-plugin-monitor=")
    )
    assert (
        volumes[mounts[str(Path(monitor).parent)]["name"]]["configMap"]["name"]
        == docs["ConfigMap"]["metadata"]["name"]
    )
    assert Path(monitor).name == file
    assert volumes[mounts["/host"]["name"]]["hostPath"]["path"] == "/" and mounts["/host"]["readOnly"]
    assert str(args.inventory) in mounts and "/run/lldpd.socket" in mounts
    assert (
        pod["hostNetwork"] is True and pod["serviceAccountName"] == docs["ServiceAccount"]["metadata"]["name"]
    )
    # It keeps running on a node netcfg's own drain list tainted, so the condition can clear.
    assert {"key": "netcfg.io/fabric", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]


def _finding(rule: str, device: str, interface: str | None) -> Finding:
    return Finding(rule, Severity.ERROR, device, interface, "x", "y", f'{rule} on {device}: it\'s "wrong"')


def nodes_from_kubectl(text: str) -> dict[str, dict]:
    """The Node objects the drain list's `kubectl taint` / `kubectl annotate` lines leave, as kubectl
    turns each into a patch of the node."""
    nodes: dict[str, dict] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line)
        assert words[0] == "kubectl" and words[-1] == "--overwrite", line
        node = nodes.setdefault(
            words[3], {"apiVersion": "v1", "kind": "Node", "metadata": {"name": words[3]}}
        )
        if words[1:3] == ["taint", "nodes"]:
            (spec,) = words[4:-1]
            key, _, rest = spec.partition("=")
            value, _, effect = rest.partition(":")
            node.setdefault("spec", {}).setdefault("taints", []).append(
                {"key": key, "value": value, "effect": effect}
            )
        else:
            assert words[1:3] == ["annotate", "node"], line
            for pair in words[4:-1]:
                key, _, value = pair.partition("=")
                node["metadata"].setdefault("annotations", {})[key] = value
    return nodes


def test_the_kubernetes_drain_list_makes_valid_node_changes_under_netcfgs_own_keys(lab_fabric):
    findings = [
        _finding("qos.trust", "gpu05", "eth0-3"),
        _finding("host.pcie_degraded", "gpu04", "eth3"),
        _finding("ecn.enabled", "leaf-su2-r2", "Ethernet1-4,31-32"),
    ]
    text = render_drain_list(drain_plan(lab_fabric, findings), "kubernetes", "lab", "test")
    nodes = nodes_from_kubectl(text)
    assert sorted(nodes) == ["gpu04", "gpu05"]
    for name, node in nodes.items():
        for version in VERSIONS:
            kubernetes_validate.validate(node, version, strict=True)
        assert _SUBDOMAIN.fullmatch(name)
        (taint,) = node["spec"]["taints"]
        assert QUALIFIED.fullmatch(taint["key"])["prefix"] == "netcfg.io"
        assert LABEL_VALUE.fullmatch(taint["value"]) and taint["effect"] == "NoSchedule"
        ((key, value),) = node["metadata"]["annotations"].items()
        assert QUALIFIED.fullmatch(key)["prefix"] == "netcfg.io" and value.startswith("netcfg: ")


# Text a finding may carry from a device: quotes, shell metacharacters, newlines, control bytes.
_HOSTILE = st.text(st.sampled_from("ab 9'\"$`;|&<>()*\\\n\r\t\x1b-=:/#"), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    drained=st.lists(
        st.tuples(st.sampled_from(["gpu01", "gpu04", "gpu05"]), st.none() | _HOSTILE, _HOSTILE), min_size=1
    ),
    impacted=st.lists(st.tuples(_HOSTILE, _HOSTILE)),
)
def test_any_message_or_port_name_leaves_a_list_that_only_sets_netcfgs_own_keys(
    lab_fabric, drained, impacted
):
    findings = [
        Finding("qos.trust", Severity.ERROR, host, port, "x", "y", message) for host, port, message in drained
    ]
    findings += [
        Finding("ecn.enabled", Severity.ERROR, "leaf-su2-r2", port, "x", "y", message)
        for port, message in impacted
    ]
    text = render_drain_list(drain_plan(lab_fabric, findings), "kubernetes", "lab", "test")
    # Every line a shell would run is netcfg's taint or annotation of a drained host, set, never removed;
    # a port name or message never breaks out of a quoted value or a comment.
    commands = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(commands) == 2 * len({host for host, _, _ in drained})
    nodes = nodes_from_kubectl(text)
    assert sorted(nodes) == sorted({host for host, _, _ in drained})
    for node in nodes.values():
        assert node["spec"]["taints"] == [
            {"key": "netcfg.io/fabric", "value": "degraded", "effect": "NoSchedule"}
        ]
        ((key, value),) = node["metadata"]["annotations"].items()
        assert (
            key == "netcfg.io/drain-reason" and value.isprintable() and value.startswith("netcfg: qos.trust")
        )
        kubernetes_validate.validate(node, VERSIONS[-1], strict=True)
