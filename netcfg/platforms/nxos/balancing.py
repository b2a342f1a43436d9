"""The ECMP hash of a Nexus 9000 as its configuration guide gives it (Cisco Nexus 9000 Series NX-OS
Interfaces Configuration Guide, 10.3(x), "Configuring ECMP Load Balancing"):

    ip load-sharing address {destination port destination | source-destination [port
        source-destination | gre | gtpu | ipv6-flowlabel | ttl | udf offset N length N | symmetric |
        inner all|greheader]} [universal-id seed] [rotate rotate] [concatenation]

`universal-id` is the seed that randomises the hash (Cisco's NX-API reference: "Universal Id to
Randomize Hash Functions"). An option whose fields the guide does not spell out (gre, gtpu, udf,
inner) leaves the hash unknown rather than guessed. NX-OS DLB is not rendered: no Nexus 9000 guide in
reach gives its lines.
"""

from __future__ import annotations

import re

from netcfg.platforms.base import LoadBalancing

PREFIX = "ip load-sharing address "
_METHOD = re.compile(
    r"ip load-sharing address (destination port destination|source-destination(?: port source-destination)?)"
    r"((?: \S+)*)"
)
_METHOD_FIELDS = {
    "destination port destination": frozenset({"dst_ip", "l4_dst_port"}),
    "source-destination": frozenset({"src_ip", "dst_ip"}),
    "source-destination port source-destination": frozenset(
        {"src_ip", "dst_ip", "l4_src_port", "l4_dst_port"}
    ),
}
_EXTRA_FIELDS = {"ipv6-flowlabel": "ipv6_flow_label", "ttl": "ttl"}
MAX_SEED = 2**32 - 1

SUPPORT = LoadBalancing(
    hash_fields=frozenset({"src_ip", "dst_ip", "l4_src_port", "l4_dst_port", "ipv6_flow_label"}),
    renders=frozenset({"hash_fields", "hash_seed"}),
    reads=frozenset({"hash_fields", "hash_seed"}),
)


def render_line(fields: frozenset[str] | None, seed: int | None) -> str | None:
    """The one `ip load-sharing` line for these fields and seed; None where the guide's methods cannot
    express the fields (netcfg then renders none, and the intent names the closest it can)."""
    if fields is None:
        return None
    base = {"src_ip", "dst_ip", "l4_src_port", "l4_dst_port"} & fields
    method = next((m for m, f in _METHOD_FIELDS.items() if f == base), None)
    if method is None:
        return None
    line = PREFIX + method
    if "ipv6_flow_label" in fields and "port" not in method:
        line += " ipv6-flowlabel"
    if seed is not None:
        line += f" universal-id {seed}"
    return line


def intent_fields(fields: frozenset[str]) -> frozenset[str]:
    """What NX-OS can hash on of what the policy asks: one of the guide's methods (the largest inside
    the ask), plus the IPv6 flow label where the method has no ports."""
    ask = frozenset(fields)
    fitting = [f for f in _METHOD_FIELDS.values() if f <= ask]
    best = max(fitting, key=len, default=frozenset())
    if "ipv6_flow_label" in ask and best == _METHOD_FIELDS["source-destination"]:
        best |= {"ipv6_flow_label"}
    return best


def read_line(text: str) -> tuple[frozenset[str] | None, int | None]:
    """The hash fields and seed of one `ip load-sharing address` line, the options in any order (the
    NX-API reference writes `rotate 43 universal-id 1`); fields None for an option the guide gives
    without naming its fields (gre, gtpu, udf, inner), or a line netcfg does not know."""
    found = _METHOD.fullmatch(text.strip())
    if found is None:
        return None, None
    fields: set[str] | None = set(_METHOD_FIELDS[found.group(1)])
    seed = None
    words = found.group(2).split()
    while words:
        word = words.pop(0)
        if word in ("universal-id", "rotate") and words and words[0].isdigit():
            value = int(words.pop(0))
            if word == "universal-id":
                seed = value if value <= MAX_SEED else None
        elif word in _EXTRA_FIELDS and fields is not None:
            fields.add(_EXTRA_FIELDS[word])
        elif word not in ("symmetric", "concatenation"):
            fields = None
    return (frozenset(fields) if fields is not None else None), seed
