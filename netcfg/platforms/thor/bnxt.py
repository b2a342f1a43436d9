"""One Thor NIC in Broadcom's own terms, and how those terms map onto the vendor-neutral model.

Broadcom's setup (bnxt_setupcc.sh, bnxt_re README) spreads a NIC's RoCE settings over three places:
the DCB settings the QoS tool (`bnxtqos`) writes (PFC, ETS, the app TLV table that maps DSCPs to
priorities), the bnxt_re configfs `cc` folder (congestion control, the RoCE and CNP priorities and
DSCPs, priority VLAN tagging) and RDMA-CM configfs (RoCE mode and TOS). The host script and the
read-back both go through `BnxtNic`, so they map the model the same way:

- trust: `cc/disable_prio_vlan_tx` 1 (untagged, PFC by DSCP) is `dscp`; 0 (priority VLAN tags, PFC
  by PCP, bnxt_setupcc.sh `-v 1`) is `pcp`.
- PFC: `set_pfc enabled=...`; DSCP -> priority: the app TLVs of selector 5 (DSCP).
- ECN NP/RP priorities: bnxt_re runs DCQCN for both roles on one priority, `cc/roce_prio`, when
  `cc/ecn_enable` is 1; none when it is 0.
- RoCE TOS: the DSCP of RDMA-CM `default_roce_tos`, with the ECN bits the firmware stamps on RoCE
  packets while congestion control runs (`cc/ecn_marking`: 0 Not-ECT, 1 ECT(1), 2 ECT(0)).
  `cc/roce_dscp` must be that DSCP; where it is not, the TOS is unknown.
- CNP DSCP and priority: `cc/cnp_dscp`, `cc/cnp_prio`; CNP gap: `cc/min_time_bet_cnp` (µs).
- strict queues: the priorities ETS maps to a strict traffic class (the CNP priority's TC2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from netcfg.model import InterfaceState, port_copy

PRIORITIES = range(8)
# App TLV selectors (IEEE 802.1Qaz): 3 is a UDP or DCCP port, 5 a DSCP.
SEL_UDP = 3
SEL_DSCP = 5
ROCE_V2_PORT = 4791
# ETS as bnxt_setupcc.sh lays it out: TC0 everything else and TC1 RoCE share the link 50/50; the CNP
# priority rides strict TC2.
OTHER_TC, ROCE_TC, STRICT_TC = 0, 1, 2
ROCE_BANDWIDTH = 50
TRUST_VLAN_TX = {"dscp": 1, "pcp": 0}
ECN_MARKINGS = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)"}
# configfs cc attributes, in the order Broadcom's script writes them.
CC_ORDER = (
    "disable_prio_vlan_tx",
    "ecn_marking",
    "ecn_enable",
    "cc_mode",
    "cnp_prio",
    "roce_prio",
    "roce_dscp",
    "cnp_dscp",
    "min_time_bet_cnp",
)
# cc attribute -> the InterfaceState fields it decides (for file:line of --configs findings).
CC_FIELDS = {
    "disable_prio_vlan_tx": ("trust",),
    "ecn_marking": ("roce_tos",),
    "ecn_enable": ("ecn_np_priorities", "ecn_rp_priorities"),
    "cc_mode": (),
    "cnp_prio": ("cnp_priority",),
    "roce_prio": ("ecn_np_priorities", "ecn_rp_priorities"),
    "roce_dscp": ("roce_tos",),
    "cnp_dscp": ("cnp_dscp",),
    "min_time_bet_cnp": ("dcqcn",),
}
# DCQCN-P, the congestion control Broadcom's script selects (`cc_mode` 1).
DCQCN = 1
CNP_GAP = "min_time_between_cnps"


@dataclass
class BnxtNic:
    """What Broadcom's tools set on one NIC; None (or missing) where the source does not say."""

    mtu: int | None = None
    pfc: frozenset[int] | None = None
    # ETS: priority -> traffic class, traffic class -> selection algorithm ("ets", "strict").
    prio_tc: dict[int, int] | None = None
    tc_tsa: dict[int, str] | None = None
    # App TLVs as (priority, selector, protocol), in the order they are programmed.
    apps: list[tuple[int, int, int]] | None = None
    roce_mode: str | None = None
    cm_tos: int | None = None
    cc: dict[str, int] = field(default_factory=dict)


def hex_value(value: int) -> str:
    """A cc value as the driver prints it (`%#x`: 0x1a, and 0 for zero) and reads it (`%x`)."""
    return f"{value:#x}" if value else "0"


def priorities(text: str, separator: str) -> frozenset[int]:
    """`3,4` / `3 4` -> {3, 4}; `none` (or nothing) -> {}; raises ValueError on anything else."""
    words = [w for w in text.strip().split(separator) if w.strip()]
    if words in ([], ["none"]):
        return frozenset()
    found = frozenset(int(w) for w in words)
    if not found <= set(range(8)):
        raise ValueError(f"priority out of 0-7 in {text!r}")
    return found


def app_entry(word: str) -> tuple[int, int, int]:
    parts = word.split(",")
    if len(parts) != 3:
        raise ValueError(f"app TLV {word!r}: expected priority,selector,protocol")
    prio, sel, proto = (int(p, 0) for p in parts)
    return prio, sel, proto


def roce_priority(port: InterfaceState) -> int | None:
    """The priority the NIC's DSCP map gives RoCE (by the DSCP of its TOS)."""
    if port.roce_tos is None or port.dscp_map is None:
        return None
    return port.dscp_map.get(port.roce_tos >> 2)


def from_port(port: InterfaceState) -> BnxtNic:
    """The settings that make a Thor NIC do what `port` says (see the module doc for the mapping)."""
    nic = BnxtNic(mtu=port.mtu, pfc=port.no_drop_priorities, roce_mode=port.roce_mode, cm_tos=port.roce_tos)
    roce = roce_priority(port)
    if port.dscp_map is not None:
        # Broadcom's README: the CNP code point is programmed last, after every other app TLV.
        dscps = sorted(port.dscp_map.items(), key=lambda dp: (dp[0] == port.cnp_dscp, dp[0]))
        nic.apps = [(prio, SEL_DSCP, dscp) for dscp, prio in dscps]
        if port.no_drop_priorities and roce is not None:
            # bnxt_setupcc.sh maps RoCE v2 (UDP 4791) to the RoCE priority wherever PFC runs.
            nic.apps.insert(0, (roce, SEL_UDP, ROCE_V2_PORT))
    nic.prio_tc = {
        p: STRICT_TC if p in port.strict_queues else ROCE_TC if p == roce else OTHER_TC for p in PRIORITIES
    }
    # bnxt_setupcc.sh writes all eight TSA entries where a strict TC is used (the unused TCs 3-7
    # strict too), and only the two ETS classes where none is.
    strict = {tc: "strict" for tc in range(STRICT_TC, len(PRIORITIES))} if port.strict_queues else {}
    nic.tc_tsa = {OTHER_TC: "ets", ROCE_TC: "ets"} | strict
    cc = nic.cc
    if port.trust in TRUST_VLAN_TX:
        cc["disable_prio_vlan_tx"] = TRUST_VLAN_TX[port.trust]
    if port.roce_tos is not None and port.roce_tos & 3 in ECN_MARKINGS:
        cc["ecn_marking"] = port.roce_tos & 3
    if port.ecn_np_priorities is not None:
        cc["ecn_enable"] = int(bool(port.ecn_np_priorities))
        if port.ecn_np_priorities:
            cc["cc_mode"] = DCQCN
    if port.cnp_priority is not None:
        cc["cnp_prio"] = port.cnp_priority
    cc_prio = min(port.ecn_np_priorities) if port.ecn_np_priorities else roce
    if cc_prio is not None:
        cc["roce_prio"] = cc_prio
    if port.roce_tos is not None:
        cc["roce_dscp"] = port.roce_tos >> 2
    if port.cnp_dscp is not None:
        cc["cnp_dscp"] = port.cnp_dscp
    if CNP_GAP in port.dcqcn:
        cc["min_time_bet_cnp"] = port.dcqcn[CNP_GAP]
    return nic


def to_port(nic: BnxtNic, name: str) -> InterfaceState:
    """The model of a NIC that runs `nic` (see the module doc for the mapping)."""
    cc = nic.cc
    port = InterfaceState(name=name, mtu=nic.mtu, roce_mode=nic.roce_mode, roce_tos=_roce_tos(nic))
    if nic.pfc is not None:
        port.no_drop_priorities = nic.pfc
        port.pfc_enabled = bool(nic.pfc)
    if nic.apps is not None:
        port.dscp_map = {proto: prio for prio, sel, proto in nic.apps if sel == SEL_DSCP}
    if nic.prio_tc is not None and nic.tc_tsa is not None:
        port.strict_queues = frozenset(p for p, tc in nic.prio_tc.items() if nic.tc_tsa.get(tc) == "strict")
    if "disable_prio_vlan_tx" in cc:
        port.trust = "dscp" if cc["disable_prio_vlan_tx"] & 1 else "pcp"
    if cc.get("ecn_enable") == 0:
        port.ecn_np_priorities = port.ecn_rp_priorities = frozenset()
    elif "ecn_enable" in cc and "roce_prio" in cc:
        port.ecn_np_priorities = port.ecn_rp_priorities = frozenset({cc["roce_prio"]})
    port.cnp_priority = cc.get("cnp_prio")
    port.cnp_dscp = cc.get("cnp_dscp")
    if "min_time_bet_cnp" in cc:
        port.dcqcn[CNP_GAP] = cc["min_time_bet_cnp"]
    return port


def _roce_tos(nic: BnxtNic) -> int | None:
    tos, cc = nic.cm_tos, nic.cc
    if tos is None or cc.get("roce_dscp", tos >> 2) != tos >> 2:
        return None
    if cc.get("ecn_enable") and "ecn_marking" in cc:
        return tos & ~3 | cc["ecn_marking"]
    return tos


def shape(port: InterfaceState, name: str) -> InterfaceState:
    """A copy of a port parsed once for thousands of identical hosts, under this host's NIC name."""
    return port_copy(port, name, ecn=dict(port.ecn), dcqcn=dict(port.dcqcn))
