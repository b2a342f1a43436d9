"""The counters of a Thor NIC (bnxt_en, bnxt_re) as the model holds them, and as the lab prints them.

`ethtool -S` names from bnxt_en (bnxt_ethtool.c: port statistics and their extended set):
`link_down_events`, `rx_fcs_err_frames` (CRC), `rx_pcs_symbol_err`, `rx_fec_corrected_blocks`,
`rx_fec_uncorrectable_blocks` (FEC codewords, as switches count them), `rx_pfc_ena_frames_pri{p}` /
`tx_pfc_ena_frames_pri{p}` (PFC frames per priority, all eight always listed).

RDMA hw_counters from bnxt_re (hw_counters.c): `tx_cnp_pkts`, `rx_cnp_pkts`, `rx_ecn_marked_pkts`,
`rx_out_of_buffer`, `to_retransmits`; Broadcom's 2025 rework names the same counters as mlx5 does
(`np_cnp_pkts`, `rp_cnp_handled`, `np_ecn_marked_roce_packets`, `out_of_buffer`,
`local_ack_timeout_err`), and both are read. `to_retransmits` counts retransmissions after a timeout
(the nearest counterpart of mlx5's `roce_adp_retrans`).

Not shown per lossless queue by a Thor, left unset: drops of a priority and no-buffer discards
(bnxt_en counts `rx_discard_packets_cos{q}` per CoS queue, whose mapping from priorities the outputs
netcfg reads do not show), ECN marks per egress queue, and watchdog storms (bnxt_en's
`continuous_pause_events` are port-wide).
"""

from __future__ import annotations

from netcfg.model import PortCounters
from netcfg.platforms.linux.counters import PRIORITIES, CounterNames

BNXT_COUNTERS = CounterNames(
    stats={
        "link_down_events": "link_downs",
        "rx_fec_corrected_blocks": "fec_corrected",
        "rx_fec_uncorrectable_blocks": "fec_uncorrected",
        "rx_fcs_err_frames": "crc_errors",
        "rx_pcs_symbol_err": "symbol_errors",
    },
    per_priority={"pause_rx": "rx_pfc_ena_frames_pri{p}", "pause_tx": "tx_pfc_ena_frames_pri{p}"},
    hw={
        "tx_cnp_pkts": "cnp_sent",
        "np_cnp_pkts": "cnp_sent",
        "rx_cnp_pkts": "cnp_handled",
        "rp_cnp_handled": "cnp_handled",
        "rx_ecn_marked_pkts": "ecn_marked_roce",
        "np_ecn_marked_roce_packets": "ecn_marked_roce",
        "rx_out_of_buffer": "out_of_buffer",
        "out_of_buffer": "out_of_buffer",
        "to_retransmits": "retransmits",
        "local_ack_timeout_err": "retransmits",
    },
    # bnxt_re's port hw_counters on a Thor2 (a 6.8 kernel), in the order grep finds them.
    hw_folder=(
        "active_ahs",
        "active_cqs",
        "active_mrs",
        "active_mws",
        "active_pds",
        "active_qps",
        "active_rc_qps",
        "active_srqs",
        "active_ud_qps",
        "bad_resp_err",
        "dup_req",
        "lifespan",
        "local_protection_err",
        "local_qp_op_err",
        "max_retry_exceeded",
        "mem_mgmt_op_err",
        "missing_resp",
        "oos_drop_count",
        "recoverable_errors",
        "remote_access_err",
        "remote_invalid_req_err",
        "remote_op_err",
        "rnr_naks_rcvd",
        "rx_bytes",
        "rx_cnp_pkts",
        "rx_ecn_marked_pkts",
        "rx_out_of_buffer",
        "rx_pkts",
        "rx_roce_discards",
        "rx_roce_errors",
        "rx_roce_good_bytes",
        "rx_roce_good_pkts",
        "seq_err_naks_rcvd",
        "to_retransmits",
        "tx_bytes",
        "tx_cnp_pkts",
        "tx_pkts",
        "tx_roce_discards",
        "tx_roce_errors",
        "unrecoverable_err",
    ),
)

# The link modes a Thor2 (BCM57608) lists in `ethtool IF`.
LINK_MODES = (
    "50000baseCR/Full",
    "100000baseCR2/Full",
    "200000baseCR4/Full",
    "400000baseCR4/Full",
)
RINGS = 4


def stats_lines(counters: PortCounters | None) -> list[tuple[str, int]]:
    """`ethtool -S` of a Thor port in bnxt_en's order (per ring, port, extended port, per priority);
    none without counters. The PFC frame counters of every priority are listed: 0 where the model has
    none (no priority paused that is not a no-drop one)."""
    if counters is None:
        return []
    c = counters
    packets = (c.ecn_marked_roce or 0) * 40 + (c.cnp_sent or 0)
    lines: list[tuple[str, int | None]] = []
    for ring in range(RINGS):
        lines += [
            (f"[{ring}]: rx_ucast_packets", packets // RINGS),
            (f"[{ring}]: rx_discards", 0),
            (f"[{ring}]: tx_ucast_packets", packets // RINGS),
        ]
    lines += [
        ("rx_total_discard_pkts", 0),
        ("rx_total_frames", packets),
        ("rx_ucast_frames", packets),
        ("rx_fcs_err_frames", c.crc_errors),
        ("rx_pause_frames", 0),
        ("rx_pfc_frames", sum(c.pause_rx.values())),
        *((f"rx_pfc_ena_frames_pri{p}", c.pause_rx.get(p, 0)) for p in PRIORITIES),
        ("rx_bytes", packets * 4120),
        ("tx_total_frames", packets),
        ("tx_pfc_frames", sum(c.pause_tx.values())),
        *((f"tx_pfc_ena_frames_pri{p}", c.pause_tx.get(p, 0)) for p in PRIORITIES),
        ("tx_bytes", packets * 4120),
        ("link_down_events", c.link_downs),
        ("continuous_pause_events", 0),
        ("resume_pause_events", 0),
        *((f"pfc_pri{p}_rx_transitions", c.pause_rx.get(p, 0) // 2) for p in PRIORITIES),
        ("rx_bits", packets * 32960),
        ("rx_buffer_passed_threshold", 0),
        ("rx_pcs_symbol_err", c.symbol_errors),
        ("rx_corrected_bits", (c.fec_corrected or 0) * 3),
        *((f"rx_discard_packets_cos{q}", 0) for q in PRIORITIES),
        ("rx_fec_corrected_blocks", c.fec_corrected),
        ("rx_fec_uncorrectable_blocks", c.fec_uncorrected),
        *((f"pfc_pri{p}_tx_transitions", c.pause_tx.get(p, 0) // 2) for p in PRIORITIES),
    ]
    return [(name, value) for name, value in lines if value is not None]
