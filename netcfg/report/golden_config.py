"""Findings as Nautobot Golden Config compliance: one record per device and feature, with the fields of
its ConfigCompliance model (nautobot_golden_config/models.py), so netcfg's verdicts land in an
existing compliance view.

A feature is one of netcfg's configuration areas (`FEATURES`); each configuration rule belongs to one.
A record is compliant when the device was checked, the feature's rules ran on it, and none found
anything. `actual` and `intended` hold, per port (or `device`) and rule, what the device does and what
the policy wants, for the settings that differ; `missing` and `extra` name those settings as Golden
Config's JSON compliance does (`root['Ethernet1']['pfc.headroom']`). What netcfg could not judge gets
no record, which the compliance view shows as no data: never as compliant.
"""

from __future__ import annotations

import json
from collections import defaultdict

from netcfg.checks.catalogue import RULES
from netcfg.report.base import Report
from netcfg.rules import Finding

FEATURES: dict[str, str] = {
    "qos": "DSCP trust and the DSCP -> traffic class -> queue maps",
    "pfc": "PFC on the lossless priorities, its headroom and cable length, DCBX",
    "ecn": "ECN marking, CNPs and DCQCN congestion control",
    "watchdog": "the PFC watchdog and its timers",
    "mtu": "MTU of fabric ports and NICs",
    "roce": "the NIC's RoCE mode and GID",
    "load_balancing": "ECMP hash fields and seeds, adaptive routing, NIC reordering and planes",
}
FEATURE_OF: dict[str, str] = {
    "qos.trust": "qos",
    "qos.dscp_map": "qos",
    "rail.qos_consistency": "qos",
    "link.trust_mismatch": "qos",
    "link.dscp_mismatch": "qos",
    "sonic.azure_dscp_map": "qos",
    "junos.inexpressible": "qos",
    "pfc.enabled": "pfc",
    "pfc.no_drop_priorities": "pfc",
    "pfc.headroom": "pfc",
    "pfc.cable_length": "pfc",
    "link.pfc_mismatch": "pfc",
    "link.dcbx_mismatch": "pfc",
    "host.receive_buffer": "pfc",
    "lossless.flooding": "pfc",
    "ecn.enabled": "ecn",
    "ecn.thresholds": "ecn",
    "sonic.wred_not_marking": "ecn",
    "cnp.strict_queue": "ecn",
    "host.dcqcn": "ecn",
    "host.cnp_agreement": "ecn",
    "pfc.watchdog": "watchdog",
    "pfc.watchdog_timers": "watchdog",
    "sonic.pfcwd_coverage": "watchdog",
    "mtu.switch": "mtu",
    "mtu.host": "mtu",
    "link.mtu_mismatch": "mtu",
    "nxos.class_mtu": "mtu",
    "host.roce": "roce",
    "host.gid": "roce",
    "lb.hash_entropy": "load_balancing",
    "lb.tier_hash_fields": "load_balancing",
    "lb.tier_seed": "load_balancing",
    "lb.ecmp_group_mode": "load_balancing",
    "lb.plane_mode": "load_balancing",
    "lb.reordering": "load_balancing",
    "lb.nic_planes": "load_balancing",
}
# Findings that say a device's settings were not (all) read: its features are not judged compliant.
UNJUDGED = ("collect.", "parse.", "state.missing")
DEVICE_KEY = "device"


def golden_config_report(report: Report) -> str:
    by_device: dict[str, dict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    unjudged = set()
    for f in report.findings:
        if f.rule.startswith(UNJUDGED):
            unjudged.add(f.device)
        elif f.rule in FEATURE_OF:
            by_device[f.device][FEATURE_OF[f.rule]].append(f)
    records = []
    for device, kind in _checked(report):
        findings = by_device.pop(device, {})
        for feature in FEATURES:
            found = findings.get(feature, [])
            if found:
                records.append(_record(device, feature, found))
            elif device not in unjudged and feature in _judged(report, kind):
                records.append(_record(device, feature, []))
    # Findings on devices the report has no layout for: their verdict stands, compliant ones are unknown.
    for device, findings in sorted(by_device.items()):
        records += [
            _record(device, feature, findings[feature]) for feature in FEATURES if feature in findings
        ]
    return json.dumps(records, indent=2) + "\n"


def _checked(report: Report) -> list[tuple[str, str]]:
    """(device, switch or host) of every device the report read, in fabric order."""
    layout = report.layout
    if layout is None:
        return []
    places = [(s.name, "switch") for s in layout.switches] + [(h.name, "host") for h in layout.hosts]
    return [(name, kind) for name, kind in places if name in layout.checked]


def _judged(report: Report, kind: str) -> set[str]:
    """The features whose rules ran on this source for a device of this kind (switch or host)."""
    judged = set()
    for rule_id, feature in FEATURE_OF.items():
        r = RULES.get(rule_id)
        if r is None or r.platforms is not None or rule_id in report.not_run:
            continue
        if r.roles is None or kind in r.roles:
            judged.add(feature)
    return judged


def _record(device: str, feature: str, findings: list[Finding]) -> dict[str, object]:
    actual: dict[str, dict[str, str]] = defaultdict(dict)
    intended: dict[str, dict[str, str]] = defaultdict(dict)
    paths = []
    for f in sorted(findings, key=lambda f: (f.interface or "", f.rule)):
        where = f.interface or DEVICE_KEY
        if f.rule in actual[where]:
            actual[where][f.rule] += f"; {f.actual}"
            intended[where][f.rule] += f"; {f.expected}"
            continue
        actual[where][f.rule], intended[where][f.rule] = f.actual, f.expected
        paths.append(f"root[{where!r}][{f.rule!r}]")
    compliant = not findings
    return {
        "device": device,
        "rule": feature,
        "feature": feature,
        "compliance": compliant,
        "compliance_int": int(compliant),
        "ordered": compliant,
        "actual": dict(actual),
        "intended": dict(intended),
        "missing": paths or "",
        "extra": paths or "",
    }
