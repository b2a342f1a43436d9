"""What a simulated device is, as data: its CLI behaviour, its replies and its injected faults.

Kept free of asyncssh, so building a lab fabric does not load the SSH server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from netcfg.platforms.simulator import CliProfile


@dataclass(frozen=True)
class TransportFault:
    """Misbehaviour injected into one device, to exercise a collector's error handling.

    refuse: nothing listens on the device's port, so connecting is refused at once.
    auth_fail: every password is rejected.
    silent: login succeeds, then the device never prints a prompt or any output.
    latency_s: seconds slept before replying to each non-empty command line (setup commands included,
        as a slow device is slow for every command; bare Enter stays instant).
    truncate: command output keeps only its first ~40% of lines; the prompt still follows, so the
        client completes and the damage is only visible in the content.
    garble: command output is replaced by deterministic junk with the same number of lines; the prompt
        still follows.
    """

    refuse: bool = False
    auth_fail: bool = False
    silent: bool = False
    latency_s: float = 0.0
    truncate: bool = False
    garble: bool = False


@dataclass(frozen=True)
class LabDevice:
    """One simulated device: its name, its CLI, its command outputs and its faults.

    ``responder`` maps a command line (stripped) to its output text; ``None`` means the device does not
    know the command, and the profile's ``invalid_input`` is printed instead. A device whose counters
    move gives ``sessions`` instead: each SSH session asks it once for that session's responder, so a
    collection reads the device at one instant (and the lab renders its outputs once per login).
    """

    name: str
    profile: CliProfile
    responder: Callable[[str], str | None] | None = None
    fault: TransportFault = TransportFault()
    sessions: Callable[[], Callable[[str], str | None]] | None = None

    def __post_init__(self) -> None:
        if (self.responder is None) == (self.sessions is None):
            raise ValueError(f"lab device {self.name}: give exactly one of responder and sessions")

    def session_responder(self) -> Callable[[str], str | None]:
        """The responder for one new SSH session."""
        if self.sessions is not None:
            return self.sessions()
        assert self.responder is not None  # __post_init__: one of the two is set
        return self.responder
