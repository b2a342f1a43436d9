"""Fabric health: links running below plan, and what the counters say happened since the last reading.

Link rules read the current state ("link" facet). Counter rules compare each port's counters with
the same port's in an earlier reading of the device (`CheckContext.previous`: the previous audit, or
the go-live baseline when there is none): rates are deltas over the seconds between the two readings.
A counter that went down was cleared (or the device restarted) in between: what it shows now is what
happened since, over at most that time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import attrgetter, methodcaller, sub
from typing import Any, cast

from netcfg.model import Device, DeviceState, PortCounters
from netcfg.rules import CheckContext, Issue, Severity, fabric_port_names, fabric_ports, rule


@dataclass(slots=True)
class Readings:
    """The fabric ports of one device counted in both readings: their names, their counters now and
    at the earlier reading (same order), and the seconds between the readings (None: the readings
    carry no time, so only counts, not rates, can be judged)."""

    ports: list[str]
    now: list[PortCounters]
    before: list[PortCounters]
    seconds: float | None

    def changed(
        self, counters: Callable[[PortCounters], Any]
    ) -> list[tuple[str, PortCounters, PortCounters]]:
        """(port, now, before) of each port on which `counters` reads differently in the two readings.

        A counter that reads the same grew by nothing, so no rule can fault it; and most error counters
        of a fabric never move, so the readings are first compared whole, in C, before any port is."""
        nows, befores = self.values(counters)
        if nows == befores:
            return []
        return [
            (port, now, before)
            for port, now, before, a, b in zip(self.ports, self.now, self.before, nows, befores, strict=True)
            if a != b
        ]

    def values(self, counter: Callable[[PortCounters], Any]) -> tuple[list[Any], list[Any]]:
        """What `counter` reads on each port now, and at the earlier reading."""
        return list(map(counter, self.now)), list(map(counter, self.before))

    def rising_per_key(
        self, counters: Callable[[PortCounters], dict[int, int]], per_s: float
    ) -> list[tuple[str, int, int]]:
        """(port, key, count) of each priority or queue of a counter map that grew faster than `per_s`,
        in port order, then key order."""
        nows, befores = self.values(counters)
        if nows == befores:
            return []
        found = []
        for key in sorted(set().union(*nows)):
            get = methodcaller("get", key)
            found += [
                (port, key, count)
                for port, count in self.rising((list(map(get, nows)), list(map(get, befores))), per_s)
            ]
        if len({key for _, key, _ in found}) < 2:
            return found
        index = {port: i for i, port in enumerate(self.ports)}
        return sorted(found, key=lambda f: (index[f[0]], f[1]))

    def rising(
        self, values: tuple[list[int | None], list[int | None]], per_s: float
    ) -> list[tuple[str, int]]:
        """(port, count) of each port whose counter (its `values` now and before) grew faster than
        `per_s` (0: grew at all)."""
        nows, befores = values
        if nows == befores:
            return []
        seconds = self.seconds
        if per_s:
            if seconds is None:
                return []
            # Counters that only rose, the fastest of them not above the threshold: then none is, since
            # division by the same interval keeps their order. Asked of all ports at once, in C, as a
            # healthy fabric's FEC-corrected and pause counters rise on every port.
            if None not in nows and None not in befores:
                deltas = list(map(sub, nows, befores))
                if min(deltas) >= 0 and max(deltas) / seconds <= per_s:
                    return []
        return [
            (port, count)
            for port, now, before in zip(self.ports, nows, befores, strict=True)
            if (count := grown(now, before)) and self.exceeds(count, per_s)
        ]

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


def grown(now: int | None, before: int | None) -> int | None:
    """How much a counter grew from `before` to `now`; one that went down was cleared in between, so
    all it shows now is new (None: one of the readings does not show it)."""
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


_NONE = Readings([], [], [], None)


def readings(
    state: DeviceState, device: Device, ctx: CheckContext, against: dict[str, DeviceState] | None = None
) -> Readings:
    """The fabric ports of a device counted in both its current and its earlier reading (`against`:
    the go-live baseline; default the previous reading). Worked out once per device and run: ten
    rules read them, and a fabric has hundreds of thousands of ports."""
    key = f"readings {'baseline' if against is not None else 'previous'} {state.name}"
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = _readings(state, device, ctx, against)
    return cast(Readings, found)


def _readings(
    state: DeviceState, device: Device, ctx: CheckContext, against: dict[str, DeviceState] | None
) -> Readings:
    earlier = (ctx.previous if against is None else against).get(state.name)
    if earlier is None or "counters" not in earlier.facets or earlier.collection_error:
        return _NONE
    seconds = None
    if state.read_at is not None and earlier.read_at is not None and state.read_at > earlier.read_at:
        seconds = state.read_at - earlier.read_at
    names = fabric_port_names(device, ctx)
    now, before = list(map(state.counters.get, names)), list(map(earlier.counters.get, names))
    # PortCounters has no length or truth value of its own, so all() is False only for a missing port.
    if all(now) and all(before):
        return Readings(names, now, before, seconds)
    both = [
        (name, n, b) for name, n, b in zip(names, now, before, strict=True) if n is not None and b is not None
    ]
    return Readings([p for p, _, _ in both], [n for _, n, _ in both], [b for _, _, b in both], seconds)


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
    counted = readings(state, device, ctx)
    for port, now, before in counted.changed(_LINK_DOWNS):
        flaps = grown(now.link_downs, before.link_downs)
        if flaps is not None and flaps > limit:
            yield Issue(
                state.name,
                port,
                f"at most {limit} link-down events",
                f"{flaps} link-down events",
                f"link went down {counted.rate(flaps)} since the previous reading",
            )


_LINK_DOWNS = attrgetter("link_downs")


def _error_rate(
    state: DeviceState, device: Device, ctx: CheckContext, fields: tuple[str, ...], per_s: float, what: str
) -> Iterator[Issue]:
    """Ports on which the first of `fields` (or, where a reading lacks it, the second) grew faster than
    `per_s`."""
    counted = readings(state, device, ctx)
    nows, befores = counted.values(attrgetter(fields[0]))
    if len(fields) > 1 and (None in nows or None in befores):
        other_nows, other_befores = counted.values(attrgetter(fields[1]))
        pairs = [
            (now, before) if now is not None and before is not None else (other_now, other_before)
            for now, before, other_now, other_before in zip(
                nows, befores, other_nows, other_befores, strict=True
            )
        ]
        nows, befores = [now for now, _ in pairs], [before for _, before in pairs]
    for port, count in counted.rising((nows, befores), per_s):
        yield Issue(
            state.name,
            port,
            f"{what} at most {per_s:g}/s",
            counted.rate(count),
            f"{what} rising: {counted.rate(count)}",
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


_PAUSES_RECEIVED, _PAUSES_SENT = attrgetter("pause_rx"), attrgetter("pause_tx")


@rule("pfc.pause_storm", Severity.ERROR, facet="counters", compares="previous")
def check_pause_storm(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Pause frames stay within what the policy expects: none at all in lossy mode (a port still
    pausing was left lossless), and in lossless mode below `health.pause_storm_per_s` on each priority
    each way (above it the port is in a pause storm that spreads congestion upstream)."""
    lossy = ctx.policy.mode == "lossy"
    limit = 0 if lossy else ctx.policy.health.pause_storm_per_s
    counted = readings(state, device, ctx)
    parts: dict[str, list[str]] = {}
    for way, counters in (("received", _PAUSES_RECEIVED), ("sent", _PAUSES_SENT)):
        for port, priority, count in counted.rising_per_key(counters, limit):
            parts.setdefault(port, []).append(f"priority {priority} {way}: {counted.rate(count)}")
    for port in counted.ports if parts else ():
        if port in parts:
            text = "; ".join(parts[port])
            yield Issue(
                state.name,
                port,
                "no pause frames (lossy policy)" if lossy else f"at most {limit:g}/s",
                text,
                f"PFC pause frames {text}"
                + (", where the lossy policy expects none" if lossy else ": a pause storm"),
            )


_STORMED, _STORMS = attrgetter("stormed"), attrgetter("watchdog_storms")


@rule("pfc.watchdog_storms", Severity.ERROR, facet="counters")
def check_watchdog_storms(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """No queue is held stormed by the PFC watchdog now, and the watchdog broke no storm since the previous
    reading: each storm it breaks drops the lossless queue's traffic until the pauses stop."""
    names = fabric_port_names(device, ctx)
    current = list(filter(None, map(state.counters.get, names)))
    # Nearly every port of a fabric has never stormed: that is asked of all of them at once, in C.
    if not any(map(_STORMED, current)) and not any(map(any, map(dict.values, map(_STORMS, current)))):
        return
    earlier: dict[str, PortCounters] | None = None
    for name in names:
        counters = state.counters.get(name)
        if counters is None or not (counters.stormed or any(counters.watchdog_storms.values())):
            continue
        if earlier is None:
            counted = readings(state, device, ctx)
            earlier = dict(zip(counted.ports, counted.before, strict=True))
        before = earlier.get(name)
        storms = {}
        if before is not None:
            storms = {
                q: d
                for q, n in counters.watchdog_storms.items()
                if (d := grown(n, before.watchdog_storms.get(q)))
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


_LOSSES = attrgetter("queue_drops", "no_buffer_discards")


@rule("queue.lossless_drops", Severity.ERROR, facet="counters", compares="previous")
def check_lossless_drops(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The lossless queue drops nothing, and no lossless packet is discarded for want of buffer: in
    lossless mode one drop means headroom, PFC or the watchdog failed on this port."""
    if ctx.policy.mode != "lossless":
        return
    queue = state.queue_of(ctx.policy.roce.priority)
    counted = readings(state, device, ctx)
    for port, now, before in counted.changed(_LOSSES):
        drops = grown(now.queue_drops.get(queue), before.queue_drops.get(queue))
        discards = grown(now.no_buffer_discards, before.no_buffer_discards)
        parts = []
        if drops:
            parts.append(f"{counted.rate(drops)} dropped on queue {queue}")
        if discards:
            parts.append(f"{counted.rate(discards)} discarded for want of buffer")
        if parts:
            yield Issue(
                state.name,
                port,
                "no drops on the lossless queue",
                "; ".join(parts),
                f"lossless traffic lost: {'; '.join(parts)}",
            )


_MARKED = attrgetter("ecn_marked_roce")


@rule("host.cnp_loop", Severity.ERROR, facet="counters", compares="previous", kinds=["host"])
def check_cnp_loop(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """A NIC that receives ECN-marked RoCE packets sends CNPs back: marked packets with no CNP sent mean
    the DCQCN loop is broken (notification point off on the RoCE priority, or CNPs dropped before they
    leave), so senders never slow down and congestion falls through to PFC."""
    counted = readings(state, device, ctx)
    for port, now, before in counted.changed(_MARKED):
        marked = grown(now.ecn_marked_roce, before.ecn_marked_roce)
        sent = grown(now.cnp_sent, before.cnp_sent)
        if marked and sent == 0:
            yield Issue(
                state.name,
                port,
                "CNPs sent for ECN-marked RoCE packets",
                f"{marked:,} ECN-marked packets, no CNP sent",
                f"broken DCQCN loop: {counted.rate(marked)} ECN-marked RoCE packets received, no CNP sent",
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
_BASELINE_ERRORS = attrgetter(*(name for name, _ in _SINCE_BASELINE))


@rule("health.since_baseline", Severity.WARNING, facet="counters", compares="baseline")
def check_since_baseline(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """Error counters have not grown since the go-live baseline (`netcfg audit --baseline`): a link that
    is quiet tonight but has collected errors since go-live fails intermittently."""
    if not ctx.baseline:
        return
    for port, now, before in readings(state, device, ctx, against=ctx.baseline).changed(_BASELINE_ERRORS):
        errors = [
            (n, what)
            for name, what in _SINCE_BASELINE
            if (n := grown(getattr(now, name), getattr(before, name)))
        ]
        if errors:
            text = ", ".join(f"{n:,} {what}" for n, what in errors)
            yield Issue(
                state.name,
                port,
                "no errors since the go-live baseline",
                text,
                f"since the go-live baseline: {text}",
            )
