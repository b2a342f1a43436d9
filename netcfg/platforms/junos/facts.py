"""What Junos (QFX) does by default, and what the policy asks that Junos expresses differently.

Sources: Juniper's class-of-service documentation for the QFX Series (congestion notification
profiles, DSCP-based PFC, `cable-length`, the PFC watchdog topic, WRED drop profiles, ECN) and the
Apstra AI data-center JVD's DCQCN configlet; roce-reference.md §5, §9 and §11 summarise them.

How the vendor-neutral chain reads on Junos
    A DSCP classifier puts a code point in a forwarding class; the class has one output queue
    (`queue-num`). Junos has no traffic-class number of its own: netcfg numbers a class by the
    802.1p priority its pause frames carry (`pfc-priority` of a `no-loss` class, as DSCP-based PFC
    needs), and a class with no priority (lossy) by its queue. `tc_queue` then holds a lossless
    class whose queue differs from its priority (the JVD's NO-LOSS on queue 4, paused on priority 3).
    A port pauses the priorities of its congestion-notification profile (`input dscp code-point
    ... pfc` names the DSCPs whose class pauses; `input ieee-802.1 code-point ... pfc` names
    priorities), marks ECN and runs strict priority through the schedulers of its scheduler map,
    and trusts DSCP when a DSCP classifier is bound to it (`ieee-802.1` alone: trust pcp).
    802.1p priorities pause only tagged frames: untagged traffic has no 802.1p code point to pause
    on (Juniper, "Understanding PFC Using DSCP at Layer 3 for Untagged Traffic"), so on a port whose
    units the config shows untagged they pause nothing; DSCP-based PFC pauses untagged traffic.

What Junos expresses differently
    - ECN thresholds are fill levels, whole percentages of the queue's buffer, not bytes. QFX
      switches size that buffer dynamically from the shared pool, so Juniper gives no byte figure to
      convert with. netcfg converts through one stated reference, `FILL_REFERENCE_BYTES`: fill level
      p % stands for p % of 3,000,000 bytes, so the canonical 150 KB / 1,500 KB become 5 % / 50 %.
      This is netcfg's convention, not a Juniper number: on Junos the ECN check verifies the fill
      levels netcfg derives from the policy, and a threshold that is not a whole fill level of the
      reference (or exceeds the 99 % Juniper allows as the last point) is rounded, and reported by
      the `junos.inexpressible` rule.
    - The PFC watchdog counts detection in poll intervals (`detection N`): a detection time that is
      not a whole number of polls cannot be written, and is reported. By default it drops (it
      flushes the stalled queue). Juniper's AI-ML PFC watchdog topic (Junos OS Evolved 23.4R2 and
      later, QFX5230-64CD, QFX5240-64OD/64QD) lets ports forward instead, the same action on every
      port; the statement that sets it is not in the documentation netcfg could read, so netcfg
      writes only the default drop, reports a policy asking for `forward` (or `errdisable`, which
      Junos has no form of), and reads any `pfc-watchdog` option it does not know as an unknown
      action, never as drop.
    - Cable length is a setting of the congestion-notification profile (`input cable-length`), not
      of the port: ports on cables of different lengths need profiles of their own, and a port
      whose profile sets none sizes its headroom for Junos's 100 m default.
    - A classifier on `ieee-802.1` code points is what other platforms call trust pcp (or cos);
      Junos has no "trust none" (an interface without a classifier uses the default one).
"""

from __future__ import annotations

# One reference buffer for fill levels (see above): 1 % = 30,000 bytes.
FILL_REFERENCE_BYTES = 3_000_000
FILL_STEP_BYTES = FILL_REFERENCE_BYTES // 100
# Juniper: "Do not configure the last fill level as 100 percent."
MAX_FILL_PERCENT = 99
# Congestion notification profile defaults (Juniper's cable-length and PFC watchdog topics; the
# watchdog's default action is drop on every QFX, forward being the AI-ML platforms' alternative).
DEFAULT_CABLE_M = 100
DEFAULT_POLL_MS = 100
DEFAULT_DETECTION_POLLS = 2
DEFAULT_RECOVERY_MS = 200
WATCHDOG_ACTION = "drop"
# Forwarding classes every QFX switch has: name -> (queue, no-loss).
DEFAULT_CLASSES = {
    "best-effort": (0, False),
    "fcoe": (3, True),
    "no-loss": (4, True),
    "network-control": (7, False),
    "mcast": (8, False),
}
# Standard DSCP and IEEE 802.1p code-point aliases Junos accepts in place of bits.
DSCP_ALIASES = {
    "be": 0,
    "cs1": 8,
    "af11": 10,
    "af12": 12,
    "af13": 14,
    "cs2": 16,
    "af21": 18,
    "af22": 20,
    "af23": 22,
    "cs3": 24,
    "af31": 26,
    "af32": 28,
    "af33": 30,
    "cs4": 32,
    "af41": 34,
    "af42": 36,
    "af43": 38,
    "cs5": 40,
    "ef": 46,
    "cs6": 48,
    "nc1": 48,
    "cs7": 56,
    "nc2": 56,
}
IEEE_ALIASES = {"be": 0, "be1": 1, "ef": 2, "ef1": 3, "af11": 4, "af12": 5, "nc1": 6, "nc2": 7}


def dscp_bits(dscp: int) -> str:
    return format(dscp, "06b")


def ieee_bits(priority: int) -> str:
    return format(priority, "03b")


def code_point(text: str, bits: int, aliases: dict[str, int]) -> int | None:
    """A code point as bits (`011010`) or a standard alias (`af31`); None when it is neither."""
    if len(text) == bits and set(text) <= {"0", "1"}:
        return int(text, 2)
    return aliases.get(text)


def fill_percent(threshold_bytes: int) -> int:
    """The whole fill level nearest a byte threshold, within what Junos takes (0-99 %)."""
    return max(0, min(MAX_FILL_PERCENT, (threshold_bytes + FILL_STEP_BYTES // 2) // FILL_STEP_BYTES))


def fill_bytes(percent: int) -> int:
    return percent * FILL_STEP_BYTES
