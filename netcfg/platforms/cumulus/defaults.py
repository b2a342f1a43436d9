"""What a Cumulus Linux 5.x switch runs where its configuration says nothing, with sources.

NVIDIA documents the QoS that `nv set qos roce` applies (CumulusNetworks/docs, content/cumulus-linux-514/
Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md, "Default RoCE
Configuration"): trust PCP and DSCP; switch priority 3 -> traffic class 3 (RoCE), 6 -> 6 (CNP), every
other priority -> 0; traffic class 6 strict; ECN on class 3 at 150,000-1,500,000 bytes; PFC on priority 3
in lossless mode only. The generic `default-global` ECN profile also marks class 0 at the same
thresholds (Quality-of-Service/_index.md, "Congestion Control"), which is why read-backs show
`enabled-tc 0,3`. DSCP d maps to switch priority d >> 3 when DSCP is trusted. Without RoCE, the switch
trusts 802.1p, maps each switch priority to the queue of its number and runs no PFC.
"""

from __future__ import annotations

from dataclasses import dataclass

from netcfg.model import DSCP_VALUES, EcnSetting

PRIORITIES = range(8)
DEFAULT_GLOBAL = "default-global"
# `nv set qos roce cable-length`: "The default setting is 100 meters" (NVUE Command Reference,
# content/nvue-reference/Set-and-Unset-Commands/QoS.md).
ROCE_CABLE_M = 100
# `nv set interface <if> link mtu`: "default:9216 | integer:552 - 9216" (NVUE-CLI.md, Command Question Mark).
DEFAULT_MTU = 9216
# PFC watchdog: "The default polling interval is 100 milliseconds. The default number of polling
# intervals is 3." A queue is restored after one polling interval without pause frames.
WATCHDOG_POLLING_MS = 100
WATCHDOG_ROBUSTNESS = 3
DEFAULT_GLOBAL_ECN = EcnSetting(150_000, 1_500_000, 100)
ROCE_MODES = ("lossless", "lossy", "lossless-single-ipool", "lossy-multi-tc")
LOSSLESS_MODES = ("lossless", "lossless-single-ipool")
# `nv set qos mapping <profile> trust` keywords and the trust they mean in the model.
TRUST = {"l2": "pcp", "l3": "dscp", "both": "pcp,dscp", "port": "port"}
TRUST_KEYWORD = {value: key for key, value in TRUST.items()}
STOCK_DSCP_MAP = {d: d >> 3 for d in DSCP_VALUES}


@dataclass(frozen=True, slots=True)
class Pfc:
    """PFC as a port runs it: pauses sent and honoured, on which switch priorities, sized for which cable."""

    enabled: bool
    priorities: frozenset[int]
    cable_m: int | None


@dataclass(slots=True)
class Globals:
    """The `default-global` profiles (and RoCE mode) every port runs unless it binds a profile of its own."""

    roce: str | None
    trust: str | None
    dscp_map: dict[int, int]
    sp_tc: dict[int, int]
    pfc: Pfc
    ecn: dict[int, EcnSetting]
    strict: frozenset[int]
    polling_ms: int = WATCHDOG_POLLING_MS
    robustness: int = WATCHDOG_ROBUSTNESS


def defaults(roce: str | None) -> Globals:
    """What a switch runs in a RoCE mode (None: RoCE not configured) before any other QoS line."""
    if roce is None:
        return Globals(
            roce=None,
            trust="pcp",
            dscp_map=dict(STOCK_DSCP_MAP),
            sp_tc={p: p for p in PRIORITIES},
            pfc=Pfc(False, frozenset(), None),
            ecn={0: DEFAULT_GLOBAL_ECN},
            strict=frozenset(),
        )
    lossless = roce in LOSSLESS_MODES
    return Globals(
        roce=roce,
        trust="pcp,dscp",
        dscp_map=dict(STOCK_DSCP_MAP),
        sp_tc={p: p if p in (3, 6) else 0 for p in PRIORITIES},
        pfc=Pfc(lossless, frozenset({3}) if lossless else frozenset(), ROCE_CABLE_M),
        ecn={0: DEFAULT_GLOBAL_ECN, 3: DEFAULT_GLOBAL_ECN},
        strict=frozenset({6}),
    )
