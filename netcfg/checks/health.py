"""Fabric health: links running below plan, and what the counters say happened since the last reading.

Link rules read the current state ("link" facet). Counter rules compare each port's counters with
the same port's in an earlier reading of the device (`CheckContext.previous`: the previous audit, or
the go-live baseline when there is none): rates are deltas over the seconds between the two readings.
A counter that went down was cleared (or the device restarted) in between: what it shows now is what
happened since, over at most that time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import cast

from netcfg.checks.base import CheckContext, Issue, Severity, rule
from netcfg.checks.device import fabric_port_names, fabric_ports
from netcfg.model import Device, DeviceState, PortCounters


# Not frozen: a frozen dataclass sets each field through object.__setattr__, and a run makes one
# Reading per fabric port.
@dataclass(slots=True)
class Reading:
    """One port's counters now and at the earlier reading, and the seconds between them (None: the
    readings carry no time, so only counts, not rates, can be judged)."""

    port: str
    now: PortCounters
    before: PortCounters
    seconds: float | None

    def delta(self, field: str, key: int | None = None) -> int | None:
        """How much a counter grew between the readings (None: one of them does not show it)."""
        if key is None:
            return _grown(getattr(self.now, field), getattr(self.before, field))
        return _grown(getattr(self.now, field).get(key), getattr(self.before, field).get(key))

    def exceeds(self, count: int, per_s: float) -> bool:
        """Whether a count over this interval is above a per-second threshold (0: any count is)."""
        if not count:
            return False
        if per_s == 0:
            return True
        return self.seconds is not None and count / self.seconds > per_s

    def rate(self, count: int) -> str:
        if self.seconds is None:
            return f"{count:,} since the previous reading"
        return f"{count:,} in {_duration(self.seconds)} ({count / self.seconds:,.1f}/s)"


def _grown(now: int | None, before: int | None) -> int | None:
    """How much a counter grew from `before` to `now`; one that went down was cleared in between, so
    all it shows now is new."""
    if now is None or before is None:
        return None
    return now - before if now >= before else now


def _duration(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def readings(
    state: DeviceState, device: Device, ctx: CheckContext, against: dict[str, DeviceState] | None = None
) -> list[Reading]:
    """The fabric ports of a device counted in both its current and its earlier reading (`against`:
    the go-live baseline; default the previous reading). Worked out once per device and run: ten
    rules read them, and a fabric has hundreds of thousands of ports."""
    key = f"readings {'baseline' if against is not None else 'previous'} {state.name}"
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = list(_readings(state, device, ctx, against))
    return cast(list[Reading], found)


def _readings(
    state: DeviceState, device: Device, ctx: CheckContext, against: dict[str, DeviceState] | None
) -> Iterator[Reading]:
    earlier = (ctx.previous if against is None else against).get(state.name)
    if earlier is None or "counters" not in earlier.facets or earlier.collection_error:
        return
    seconds = None
    if state.read_at is not None and earlier.read_at is not None and state.read_at > earlier.read_at:
        seconds = state.read_at - earlier.read_at
    now_counters, before_counters = state.counters, earlier.counters
    for name in fabric_port_names(device, ctx):
        now, before = now_counters.get(name), before_counters.get(name)
        if now is not None and before is not None:
            yield Reading(name, now, before, seconds)


@rule("link.degraded", Severity.ERROR, facet="link", fields=("speed_gbps",))
def check_link_speed(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Every cabled port that is up runs at the plan's speed: a 400G link that trained at 200G stays up
    and halves what every collective crossing it can move. (A port that is down is named by the
    cabling rules, not here.)"""
    for local, link, _ in ctx.fabric.links_of(device.name):
        port = state.interfaces.get(local.interface)
        if port is not None and port.oper_up is False:
            continue
        speed = port.speed_gbps if port is not None else None
        if speed is None or speed < link.speed_gbps:
            actual = "unknown" if speed is None else f"{speed}G"
            yield Issue(
                state.name,
                local.interface,
                f"{link.speed_gbps}G",
                actual,
                f"link runs at {actual}, the plan's speed is {link.speed_gbps}G",
            )


@rule("host.pcie_degraded", Severity.ERROR, facet="link", kinds=["host"], fields=("pcie",))
def check_pcie(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Every NIC's PCIe link trained at the width and speed the NIC and slot can do: a 400G NIC on a
    Gen5 x8 link (or one that fell back to Gen4) cannot feed its port."""
    for port in fabric_ports(state, device, ctx):
        pcie = port.pcie
        if pcie is None:
            yield Issue(state.name, port.name, "PCIe link width and speed", "unknown", "PCIe link unknown")
            continue
        short = []
        if pcie.width is not None and pcie.max_width is not None and pcie.width < pcie.max_width:
            short.append(f"x{pcie.width} of x{pcie.max_width}")
        if (
            pcie.speed_gts is not None
            and pcie.max_speed_gts is not None
            and pcie.speed_gts < pcie.max_speed_gts
        ):
            short.append(f"{pcie.speed_gts:g} of {pcie.max_speed_gts:g} GT/s")
        if short:
            yield Issue(
                state.name,
                port.name,
                f"x{pcie.max_width} at {pcie.max_speed_gts:g} GT/s",
                ", ".join(short),
                f"NIC's PCIe link trained below what it can do: {', '.join(short)}",
            )


@rule("link.flapping", Severity.ERROR, facet="counters", compares="previous")
def check_flaps(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """A link stays up between two readings: each flap drops what was in flight and stalls every
    collective on it while routes and QPs recover."""
    limit = ctx.policy.health.max_flaps
    for r in readings(state, device, ctx):
        flaps = _grown(r.now.link_downs, r.before.link_downs)
        if flaps is not None and flaps > limit:
            yield Issue(
                state.name,
                r.port,
                f"at most {limit} link-down events",
                f"{flaps} link-down events",
                f"link went down {r.rate(flaps)} since the previous reading",
            )


def _error_rate(
    state: DeviceState, device: Device, ctx: CheckContext, fields: tuple[str, ...], per_s: float, what: str
) -> Iterator[Issue]:
    # Read through attrgetter, not Reading.delta: these rules read every port of the fabric.
    first, second = attrgetter(fields[0]), attrgetter(fields[-1])
    for r in readings(state, device, ctx):
        count = _grown(first(r.now), first(r.before))
        if count is None:
            count = _grown(second(r.now), second(r.before))
        if count and r.exceeds(count, per_s):
            yield Issue(
                state.name,
                r.port,
                f"{what} at most {per_s:g}/s",
                r.rate(count),
                f"{what} rising: {r.rate(count)}",
            )


@rule("link.fec_uncorrected", Severity.ERROR, facet="counters", compares="previous")
def check_fec_uncorrected(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Uncorrectable FEC codewords stay below the policy's rate (`health.fec_uncorrected_per_s`, default
    none at all): each is a dropped frame, and RoCE recovers a dropped frame with a go-back-N retransmit."""
    yield from _error_rate(
        state, device, ctx, ("fec_uncorrected",), ctx.policy.health.fec_uncorrected_per_s, "uncorrectable FEC"
    )


@rule("link.fec_corrected", Severity.WARNING, facet="counters", compares="previous")
def check_fec_corrected(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """FEC-corrected codewords stay below the policy's rate (`health.fec_corrected_per_s`): a link that
    corrects this much is one dirty connector or failing optic away from dropping frames."""
    yield from _error_rate(
        state,
        device,
        ctx,
        ("fec_corrected",),
        ctx.policy.health.fec_corrected_per_s,
        "FEC-corrected codewords",
    )


@rule("link.crc_errors", Severity.ERROR, facet="counters", compares="previous")
def check_crc(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """CRC (FCS) errors, or symbol errors where the platform counts no CRC, stay below the policy's rate
    (`health.crc_errors_per_s`, default none): every one is a frame dropped on the wire."""
    yield from _error_rate(
        state, device, ctx, ("crc_errors", "symbol_errors"), ctx.policy.health.crc_errors_per_s, "CRC errors"
    )


@rule("pfc.pause_storm", Severity.ERROR, facet="counters", compares="previous")
def check_pause_storm(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Pause frames stay within what the policy expects: none at all in lossy mode (a port still
    pausing was left lossless), and in lossless mode below `health.pause_storm_per_s` on each priority
    each way (above it the port is in a pause storm that spreads congestion upstream)."""
    lossy = ctx.policy.mode == "lossy"
    limit = 0 if lossy else ctx.policy.health.pause_storm_per_s
    for r in readings(state, device, ctx):
        parts = []
        for way, now, before in (
            ("received", r.now.pause_rx, r.before.pause_rx),
            ("sent", r.now.pause_tx, r.before.pause_tx),
        ):
            if now == before:
                continue
            for priority, frames in now.items():
                count = _grown(frames, before.get(priority))
                if count and r.exceeds(count, limit):
                    parts.append(f"priority {priority} {way}: {r.rate(count)}")
        if parts:
            yield Issue(
                state.name,
                r.port,
                "no pause frames (lossy policy)" if lossy else f"at most {limit:g}/s",
                "; ".join(parts),
                f"PFC pause frames {'; '.join(parts)}"
                + (", where the lossy policy expects none" if lossy else ": a pause storm"),
            )


@rule("pfc.watchdog_storms", Severity.ERROR, facet="counters")
def check_watchdog_storms(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """No queue is held stormed by the PFC watchdog now, and the watchdog broke no storm since the previous
    reading: each storm it breaks drops the lossless queue's traffic until the pauses stop."""
    earlier: dict[str, Reading] | None = None
    for name in fabric_port_names(device, ctx):
        counters = state.counters.get(name)
        if counters is None or not (counters.stormed or any(counters.watchdog_storms.values())):
            continue
        if earlier is None:
            earlier = {r.port: r for r in readings(state, device, ctx)}
        storms = {}
        if name in earlier:
            storms = {
                q: d for q in counters.watchdog_storms if (d := earlier[name].delta("watchdog_storms", q))
            }
        if counters.stormed or storms:
            parts = [f"queue {q} stormed now" for q in sorted(counters.stormed)]
            parts += [
                f"{n} storm(s) on queue {q} since the previous reading" for q, n in sorted(storms.items())
            ]
            yield Issue(
                state.name,
                name,
                "no PFC watchdog storms",
                "; ".join(parts),
                f"PFC watchdog: {'; '.join(parts)}",
            )


@rule("queue.lossless_drops", Severity.ERROR, facet="counters", compares="previous")
def check_lossless_drops(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The lossless queue drops nothing, and no lossless packet is discarded for want of buffer: in
    lossless mode one drop means headroom, PFC or the watchdog failed on this port."""
    if ctx.policy.mode != "lossless":
        return
    queue = state.queue_of(ctx.policy.roce.priority)
    for r in readings(state, device, ctx):
        drops = _grown(r.now.queue_drops.get(queue), r.before.queue_drops.get(queue))
        discards = _grown(r.now.no_buffer_discards, r.before.no_buffer_discards)
        parts = []
        if drops:
            parts.append(f"{r.rate(drops)} dropped on queue {queue}")
        if discards:
            parts.append(f"{r.rate(discards)} discarded for want of buffer")
        if parts:
            yield Issue(
                state.name,
                r.port,
                "no drops on the lossless queue",
                "; ".join(parts),
                f"lossless traffic lost: {'; '.join(parts)}",
            )


@rule("host.cnp_loop", Severity.ERROR, facet="counters", compares="previous", kinds=["host"])
def check_cnp_loop(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """A NIC that receives ECN-marked RoCE packets sends CNPs back: marked packets with no CNP sent mean
    the DCQCN loop is broken (notification point off on the RoCE priority, or CNPs dropped before they
    leave), so senders never slow down and congestion falls through to PFC."""
    for r in readings(state, device, ctx):
        marked = _grown(r.now.ecn_marked_roce, r.before.ecn_marked_roce)
        sent = _grown(r.now.cnp_sent, r.before.cnp_sent)
        if marked and sent == 0:
            yield Issue(
                state.name,
                r.port,
                "CNPs sent for ECN-marked RoCE packets",
                f"{marked:,} ECN-marked packets, no CNP sent",
                f"broken DCQCN loop: {r.rate(marked)} ECN-marked RoCE packets received, no CNP sent",
            )


@rule("host.retransmits", Severity.WARNING, facet="counters", compares="previous", kinds=["host"])
def check_retransmits(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """RoCE retransmissions (`roce_adp_retrans`) stay below the policy's rate (`health.retransmits_per_s`):
    above it, packets of this host are being lost somewhere on their path."""
    yield from _error_rate(
        state, device, ctx, ("retransmits",), ctx.policy.health.retransmits_per_s, "RoCE retransmissions"
    )


@rule("host.out_of_buffer", Severity.WARNING, facet="counters", compares="previous", kinds=["host"])
def check_out_of_buffer(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The NIC drops nothing for want of posted receive buffers (`out_of_buffer`, policy
    `health.out_of_buffer_per_s`): the application or driver cannot keep up with the link."""
    yield from _error_rate(
        state, device, ctx, ("out_of_buffer",), ctx.policy.health.out_of_buffer_per_s, "receive-buffer drops"
    )


_SINCE_BASELINE = (
    ("link_downs", "link-down events"),
    ("fec_uncorrected", "uncorrectable FEC codewords"),
    ("crc_errors", "CRC errors"),
    ("no_buffer_discards", "no-buffer discards"),
)


@rule("health.since_baseline", Severity.WARNING, facet="counters", compares="baseline")
def check_since_baseline(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Error counters have not grown since the go-live baseline (`netcfg audit --baseline`): a link that
    is quiet tonight but has collected errors since go-live fails intermittently."""
    if not ctx.baseline:
        return
    for r in readings(state, device, ctx, against=ctx.baseline):
        grown = [(n, what) for field, what in _SINCE_BASELINE if (n := r.delta(field))]
        if grown:
            text = ", ".join(f"{n:,} {what}" for n, what in grown)
            yield Issue(
                state.name,
                r.port,
                "no errors since the go-live baseline",
                text,
                f"since the go-live baseline: {text}",
            )
