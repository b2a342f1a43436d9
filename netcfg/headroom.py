"""PFC headroom per lossless port (roce-reference.md §9.1, after SONiC's Mellanox buffer model).

Headroom must absorb everything still arriving after the port decides to pause: the frame being
sent, the cable round trip, the peer's reaction time and the frame the peer had started.
"""

from __future__ import annotations

from dataclasses import dataclass

# IEEE 802.3 Annex 31B upper bound on the peer's reaction, in 512-bit pause quanta, by speed (Gb/s).
PAUSE_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 905}
LIGHT_IN_FIBRE_M_PER_S = 198_000_000


@dataclass(frozen=True, slots=True)
class Headroom:
    speed_gbps: int
    cable_m: float
    mtu: int
    local_frame: int
    cable_round_trip: int
    peer_response: int
    peer_frame: int

    @property
    def bytes(self) -> int:
        """Total, rounded up to a whole KiB as buffer managers allocate it."""
        raw = self.local_frame + self.cable_round_trip + self.peer_response + self.peer_frame
        return -(-raw // 1024) * 1024


def headroom(speed_gbps: int, cable_m: float, mtu: int) -> Headroom:
    quanta = (
        PAUSE_QUANTA.get(speed_gbps) or PAUSE_QUANTA[min(PAUSE_QUANTA, key=lambda s: abs(s - speed_gbps))]
    )
    bytes_per_s = speed_gbps * 1_000_000_000 / 8
    round_trip = round(2 * cable_m / LIGHT_IN_FIBRE_M_PER_S * bytes_per_s)
    return Headroom(
        speed_gbps=speed_gbps,
        cable_m=cable_m,
        mtu=mtu,
        local_frame=mtu,
        cable_round_trip=round_trip,
        peer_response=quanta * 512 // 8,
        peer_frame=mtu,
    )
