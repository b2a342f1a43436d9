"""The counters of a ConnectX NIC (mlx5_core, mlx5_ib) as the model holds them, and as the lab prints them.

Names from the kernel's mlx5 counters documentation (Documentation/networking/device_drivers/
ethernet/mellanox/mlx5/counters.rst) and the mlx5_ib hw_counters:

- `link_down_events_phy` (flaps); `rx_crc_errors_phy`; `rx_symbol_err_phy` (symbol errors);
  FEC: `rx_corrected_bits_phy` (bits the FEC corrected: bits, not codewords as switches count)
  and `rx_pcs_symbol_err_phy` (symbol errors the FEC could not correct);
- `rx_prio{p}_pause` / `tx_prio{p}_pause` (only for priorities with PFC on), `rx_prio{p}_discards`
  (received packets of priority p dropped for want of buffer: the NIC's lossless-queue drops, a
  NIC's queue being its priority);
- hw_counters `np_cnp_sent`, `rp_cnp_handled`, `np_ecn_marked_roce_packets`, `out_of_buffer`,
  `roce_adp_retrans`.

Not shown by a ConnectX, left unset: ECN marks per egress queue (a NIC does not mark; it counts the
marks it receives, `np_ecn_marked_roce_packets`), watchdog storms per priority (mlx5's pause storm
prevention counts `tx_pause_storm_error_events` for the whole port, not per priority), and no-buffer
discards of lossless traffic as one count (`rx_discards_phy` counts every priority's, lossy TCP
included: the lossless priority's are its `rx_prio{p}_discards`).
"""

from __future__ import annotations

from netcfg.model import PortCounters
from netcfg.platforms.linux.counters import PRIORITIES, CounterNames

MLX5_COUNTERS = CounterNames(
    stats={
        "link_down_events_phy": "link_downs",
        "rx_corrected_bits_phy": "fec_corrected",
        "rx_pcs_symbol_err_phy": "fec_uncorrected",
        "rx_crc_errors_phy": "crc_errors",
        "rx_symbol_err_phy": "symbol_errors",
    },
    per_priority={
        "pause_rx": "rx_prio{p}_pause",
        "pause_tx": "tx_prio{p}_pause",
        "queue_drops": "rx_prio{p}_discards",
    },
    hw={
        "np_cnp_sent": "cnp_sent",
        "rp_cnp_handled": "cnp_handled",
        "np_ecn_marked_roce_packets": "ecn_marked_roce",
        "out_of_buffer": "out_of_buffer",
        "roce_adp_retrans": "retransmits",
    },
    # mlx5_ib's port hw_counters (a ConnectX-7 on a 6.x kernel), in the order grep finds them.
    hw_folder=(
        "duplicate_request",
        "implied_nak_seq_err",
        "lifespan",
        "local_ack_timeout_err",
        "np_cnp_sent",
        "np_ecn_marked_roce_packets",
        "out_of_buffer",
        "out_of_sequence",
        "packet_seq_err",
        "req_cqe_error",
        "req_cqe_flush_error",
        "req_remote_access_errors",
        "req_remote_invalid_request",
        "resp_cqe_error",
        "resp_cqe_flush_error",
        "resp_local_length_error",
        "resp_remote_access_errors",
        "rnr_nak_retry_err",
        "roce_adp_retrans",
        "roce_adp_retrans_to",
        "roce_slow_restart",
        "roce_slow_restart_cnps",
        "roce_slow_restart_trans",
        "rp_cnp_handled",
        "rp_cnp_ignored",
        "rx_atomic_requests",
        "rx_dct_connect",
        "rx_icrc_encapsulated",
        "rx_read_requests",
        "rx_write_requests",
    ),
)

# The 400G link modes a ConnectX-7 lists in `ethtool IF`.
LINK_MODES = (
    "25000baseCR/Full",
    "50000baseCR2/Full",
    "100000baseCR4/Full",
    "200000baseCR4/Full",
    "400000baseCR4/Full",
)


def stats_lines(counters: PortCounters | None) -> list[tuple[str, int]]:
    """`ethtool -S` of a ConnectX port in the driver's group order (software, queue counters, IEEE
    802.3, RFC 2863, physical layer, per priority, per channel); none without counters."""
    if counters is None:
        return []
    c = counters
    # Traffic the model does not hold, derived from what it does so the numbers move with time.
    packets = (c.ecn_marked_roce or 0) * 40 + (c.cnp_sent or 0)
    lines = [
        ("rx_packets", packets),
        ("rx_bytes", packets * 4120),
        ("tx_packets", packets),
        ("tx_bytes", packets * 4120),
        ("rx_csum_unnecessary", packets),
        ("tx_tso_packets", 0),
        ("rx_out_of_buffer", 0),
        ("rx_if_down_packets", 0),
        ("tx_packets_phy", packets),
        ("rx_packets_phy", packets),
        ("rx_crc_errors_phy", c.crc_errors),
        ("tx_bytes_phy", packets * 4124),
        ("rx_bytes_phy", packets * 4124),
        ("rx_in_range_len_errors_phy", 0),
        ("rx_symbol_err_phy", c.symbol_errors),
        ("rx_pause_ctrl_phy", 0),
        ("tx_pause_ctrl_phy", 0),
        ("rx_discards_phy", sum(c.queue_drops.values())),
        ("tx_discards_phy", 0),
        ("tx_errors_phy", 0),
        ("link_down_events_phy", c.link_downs),
        ("rx_pcs_symbol_err_phy", c.fec_uncorrected),
        ("rx_corrected_bits_phy", c.fec_corrected),
        *((f"rx_err_lane_{lane}_phy", (c.fec_corrected or 0) // 4) for lane in range(4)),
        ("rx_buffer_passed_thres_phy", 0),
    ]
    for p in PRIORITIES:
        lines += [
            (f"rx_prio{p}_bytes", 0),
            (f"rx_prio{p}_packets", 0),
            (f"rx_prio{p}_discards", c.queue_drops.get(p, 0)),
            (f"tx_prio{p}_bytes", 0),
            (f"tx_prio{p}_packets", 0),
        ]
    for p in PRIORITIES:
        # Present only for the priorities that run PFC.
        if p in c.pause_rx or p in c.pause_tx:
            lines += [
                (f"rx_prio{p}_pause", c.pause_rx.get(p, 0)),
                (f"rx_prio{p}_pause_duration", c.pause_rx.get(p, 0) * 3),
                (f"tx_prio{p}_pause", c.pause_tx.get(p, 0)),
                (f"tx_prio{p}_pause_duration", c.pause_tx.get(p, 0) * 3),
                (f"rx_prio{p}_pause_transition", c.pause_rx.get(p, 0) // 2),
            ]
    lines += [("tx_pause_storm_warning_events", 0), ("tx_pause_storm_error_events", 0), ("module_unplug", 0)]
    lines += [(f"rx{ch}_packets", packets // 4) for ch in range(4)]
    return [(name, value) for name, value in lines if value is not None]
