"""Secrets in config_db JSON, masked in place so the text keeps its lines and still parses.

Every field whose name says secret (TACPLUS/RADIUS `passkey`, BGP `password`, LDAP `bind_password`,
SNMP_USER `AUTH_PASSWORD`, MACsec `primary_cak`, a token under any table, as a string, a number or a
list) is masked by shape, as on every platform (`netcfg.platforms.secrets`), also where a warning line
comes before the JSON. SONiC's own: SNMP communities are the keys of SNMP_COMMUNITY (and
SNMP_COMMUNITY|<name> in flat dumps), and each becomes `<masked-N>`, numbered so the JSON keeps
distinct keys.
"""

from __future__ import annotations

import json

from netcfg.platforms.secrets import mask_shapes
from netcfg.platforms.sonic.configdb import scan


def mask(text: str) -> str:
    text = mask_shapes(text)
    # Read from the first brace: a warning line before the JSON may hold quotes the scan would misread.
    offset = text.find("{")
    if offset < 0 or "SNMP_COMMUNITY" not in text:
        return text
    spans: list[tuple[int, int, str]] = []
    communities = 0
    for key in scan(text[offset:]):
        path = key.path
        if key.is_key and len(path) == 2 and path[0] == "SNMP_COMMUNITY":
            communities += 1
            raw = text[offset + key.start + 1 : offset + key.end - 1]
            name = f"<masked-{communities}>"
            replacement = f"{raw.partition('|')[0]}|{name}" if "|" in raw else name
            spans.append((offset + key.start, offset + key.end, json.dumps(replacement)))
    out, last = [], 0
    for start, end, replacement in spans:
        out += [text[last:start], replacement]
        last = end
    return "".join([*out, text[last:]])
