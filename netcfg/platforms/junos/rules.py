"""Junos's own rule: what the policy asks that a Junos config cannot say (see `facts`)."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.model import Device, DeviceState, EcnSetting, Watchdog
from netcfg.platforms.junos import facts
from netcfg.platforms.junos.render import junos_ecn, junos_watchdog
from netcfg.policy import KB
from netcfg.rules import CheckContext, Issue, Severity, kilobytes, rule


@rule("junos.inexpressible", Severity.WARNING, platforms=["junos"])
def check_inexpressible(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Policy settings a Junos config cannot write as they are, and what Junos gets instead: ECN
    thresholds that are not whole fill levels of netcfg's 3 MB reference buffer (or above the 99 %
    Junos takes), a watchdog detection time that is not a whole number of polls, a watchdog action
    other than the default drop (QFX5230/5240 can forward, by a statement netcfg does not write)."""
    p = ctx.policy
    asked = EcnSetting(p.ecn.min_kbytes * KB, p.ecn.max_kbytes * KB, p.ecn.probability)
    got = junos_ecn(asked)
    if got != asked:
        low, high = got.min_bytes // facts.FILL_STEP_BYTES, got.max_bytes // facts.FILL_STEP_BYTES
        yield Issue(
            state.name,
            None,
            f"ECN min {kilobytes(asked.min_bytes)}, max {kilobytes(asked.max_bytes)}",
            f"fill levels {low} % / {high} % ({kilobytes(got.min_bytes)} / {kilobytes(got.max_bytes)})",
            f"Junos marks ECN at whole fill levels of the queue buffer (netcfg's reference: "
            f"{facts.FILL_REFERENCE_BYTES:,} B, at most {facts.MAX_FILL_PERCENT} %): the policy's "
            f"{kilobytes(asked.min_bytes)} / {kilobytes(asked.max_bytes)} become {low} % / {high} %",
        )
    if not p.watchdog_required:
        return
    wd = p.pfc_watchdog
    asked_wd = Watchdog(True, wd.action, wd.detection_ms, wd.restoration_ms, wd.polling_ms)
    got_wd = junos_watchdog(asked_wd)
    if got_wd.detection_ms != wd.detection_ms:
        yield Issue(
            state.name,
            None,
            f"detection {wd.detection_ms} ms",
            f"detection {got_wd.detection_ms} ms",
            f"Junos counts PFC watchdog detection in polls of {wd.polling_ms} ms: the policy's "
            f"{wd.detection_ms} ms becomes {got_wd.detection_ms} ms",
        )
    if got_wd.action != wd.action:
        yield Issue(
            state.name,
            None,
            f"action {wd.action}",
            f"action {got_wd.action}",
            _action_message(wd.action),
        )


def _action_message(action: str) -> str:
    if action == "forward":
        return (
            "netcfg writes the Junos PFC watchdog's default action, drop: QFX5230/5240 (Junos OS "
            "Evolved 23.4R2 and later) can forward instead, but the statement that sets it is not "
            "one netcfg has confirmed, so the policy's forward is not configured"
        )
    return (
        f"the Junos PFC watchdog drops (it flushes the stalled queue), or forwards on QFX5230/5240: "
        f"the policy's action {action} cannot be configured"
    )
