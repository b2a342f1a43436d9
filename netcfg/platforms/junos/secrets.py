"""Secrets in Junos configs, in both forms Junos prints them, masked before anything is saved.

Junos writes secrets as `$9$` (reversible) or `$1$`/`$5$`/`$6$` (hashes) strings after a keyword:
`encrypted-password`, `authentication-key`, `secret`, `pre-shared-key ascii-text`, `key`, and
SNMP communities are names that are themselves the secret. Each value becomes `<masked>`, keyword
kept, so the masked config still reads (and is never masked twice). Secrets of any platform's shape
(private keys, bearer tokens) go first (`netcfg.platforms.secrets`).
"""

from __future__ import annotations

from netcfg.platforms.secrets import mask_shapes, sanitize

_VALUE = r'(?!"?<masked>)(?:"(?:[^"\\\n]|\\.)*"|[^\s;{}"]+)'
_BEFORE_SECRET = [
    r"\b(?:encrypted-password|plain-text-password-value|privacy-key|secret|simple-password)",
    # `authentication-key "$9$..."`; NTP's `authentication-key 1 type md5 value "$9$..."` keeps its id.
    r"\bauthentication-key(?! \d+ type)",
    r"\bauthentication-key \d+ type \S+ value",
    r"\bpre-shared-key (?:ascii-text|hexadecimal)",
    r"\b(?:md5|hmac-sha-1-96|hmac-sha-256-128) \d+ key",
    r"\bauthentication (?:md5|sha\S*) \d+ key",
    r"\bkey-chain \S+ key \d+ secret",
    # `set snmp community NAME ...`; in braces `community NAME {` / `community NAME;` (policy-options
    # communities are followed by `members` and stay).
    r"^set snmp community",
    r'^\s*community(?= (?:"[^"\n]*"|[^\s"]+)\s*[{;])',
    r"^set snmp trap-group \S+ community",
]
SECRET_FILTERS = [{"regex": rf"({before}) {_VALUE}", "replace": r"\1 <masked>"} for before in _BEFORE_SECRET]
# Whatever keyword stands before it, a Junos secret string is never kept.
SECRET_FILTERS.append({"regex": r'"\$(?:1|5|6|8|9)\$[^"\n]*"', "replace": '"<masked>"'})


def mask(text: str) -> str:
    return sanitize(mask_shapes(text), SECRET_FILTERS)
