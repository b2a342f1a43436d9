"""Secrets in config_db JSON, masked in place so the text keeps its lines and still parses.

Fields: TACPLUS/RADIUS `passkey` (global and per server), BGP_NEIGHBOR and BGP_PEER_GROUP `password`
(and `auth_password`), LDAP `bind_password`, SNMP_USER_AUTH/ENCRYPTION_PASSWORD, MACsec `primary_cak`
and `fallback_cak`, and any `password` field (local users, where a build keeps them). SNMP communities
are the keys of SNMP_COMMUNITY (and SNMP_COMMUNITY|<name> in flat dumps): each becomes
`<masked-N>`, numbered so the JSON keeps distinct keys.
"""

from __future__ import annotations

import json
import re

from netcfg.platforms.sonic.configdb import scan

_SECRET_FIELD = re.compile(r"(?i)(?:^|_)(?:password|passwd|passkey|secret|cak|psk)$")
# Text holding none of these has nothing to mask: most outputs, scanned at C speed.
_MAYBE_SECRET = re.compile(r'(?i)(?:password|passwd|passkey|secret|cak|psk)"|SNMP_COMMUNITY')
MASK = "<masked>"


def mask(text: str) -> str:
    if not text.lstrip().startswith("{") or not _MAYBE_SECRET.search(text):
        return text
    spans: list[tuple[int, int, str]] = []
    communities = 0
    for key in scan(text):
        path = key.path
        if key.is_key and len(path) == 2 and path[0] == "SNMP_COMMUNITY":
            communities += 1
            raw = text[key.start + 1 : key.end - 1]
            name = f"<masked-{communities}>"
            replacement = f"{raw.partition('|')[0]}|{name}" if "|" in raw else name
            spans.append((key.start, key.end, json.dumps(replacement)))
        elif not key.is_key and path and _SECRET_FIELD.search(path[-1]) and key.end - key.start > 2:
            spans.append((key.start, key.end, json.dumps(MASK)))
    out, last = [], 0
    for start, end, replacement in spans:
        out += [text[last:start], replacement]
        last = end
    return "".join([*out, text[last:]])
