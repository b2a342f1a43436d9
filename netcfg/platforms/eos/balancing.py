"""The ECMP hash of an EOS switch on a Broadcom Strata chip, read from its running config, one line
per address family (folded here):

    ip load-sharing trident fields ip source-ip source-port destination-ip destination-port
        ingress-interface
    ip load-sharing trident fields ipv6 destination-port source-ip ingress-interface destination-ip
        source-port flow-label

EOS prints such a line only where the field set differs from its default (the two above are that
default, which a running config therefore never shows), so a config without one leaves the hash
unknown. The words are those of configs generated for Arista fleets (the Arista generator of annet,
a network configuration tool, writes the default pair above); Arista's TOI "Selectable hashing
fields" (EOS-4.20.1F) announces the feature but no page in reach gives its grammar, so netcfg reads
these lines and renders none, and a word it does not know leaves the hash unknown rather than
guessed. RoCEv2 over IPv4 meets the `ip` line, which is the one judged (as SONiC's packet-type hash
for IPv4 is). Sand (Jericho) platforms' `load-balance policies` profiles are not read.
"""

from __future__ import annotations

from netcfg.platforms.base import LoadBalancing

PREFIX = "ip load-sharing trident fields ip "
# EOS's words and netcfg's vendor-neutral field names.
HASH_FIELDS = {
    "source-ip": "src_ip",
    "destination-ip": "dst_ip",
    "source-port": "l4_src_port",
    "destination-port": "l4_dst_port",
    "ingress-interface": "ingress_port",
}

SUPPORT = LoadBalancing(hash_fields=frozenset(HASH_FIELDS.values()), reads=frozenset({"hash_fields"}))


def read_fields(lines: list[tuple[int, str]]) -> tuple[frozenset[str] | None, int | None]:
    """The IPv4 hash fields of the last `ip load-sharing trident fields ip` line (a later one replaces
    an earlier one) and its line number; fields None where a word is not one netcfg knows, or where
    no such line is given."""
    found = [(number, text) for number, text in lines if text.startswith(PREFIX)]
    if not found:
        return None, None
    number, text = found[-1]
    words = text[len(PREFIX) :].split()
    if not words or any(w not in HASH_FIELDS for w in words):
        return None, number
    return frozenset(HASH_FIELDS[w] for w in words), number
