"""Masking secrets before anything is saved, shared by every platform's `secrets.py`.

Two ways, used together: by shape (`mask_shapes`), which finds a secret wherever a device prints
it (a private key in a banner, a bearer token in an alias or an LLDP description, a passkey in JSON
under a table no platform knows); and by a platform's keywords (`SecretFilters`, netutils'
sanitize_config with the platform's filters). Every secret becomes `MASK`, always the same text, so
a masked output is the same from one collection to the next and drift fingerprints stay put.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MASK = "<masked>"

# A private key block (PEM, OpenSSH, PGP) to its END line or, cut off by the end of the output, to the end.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S
)
# HTTP credentials: whatever follows an Authorization header (and its scheme), and a bearer token
# anywhere. A basic credential outside a header must look like base64 (a digit, `+`, `=` or a case
# change inside a word), so prose such as "Basic Input/Output" stays.
_AUTHORIZATION = re.compile(
    rf"(?i)(\b(?:proxy-)?authorization[ \t]*[:=][ \t]*(?:[a-z-]+[ \t]+)?)(?!{MASK})[^\s\"']+"
)
_BEARER = re.compile(rf"(?i)(\bbearer[ \t]+)(?!{MASK})[A-Za-z0-9._~+/-]{{8,}}=*")
_BASIC = re.compile(
    rf"(?i)(\bbasic[ \t]+)(?!{MASK})(?=[A-Za-z0-9+/]*(?:[0-9+=]|(?-i:[a-z][A-Z])))[A-Za-z0-9+/]{{8,}}=*"
)
# `name=value` and `name: value` outside JSON (environment lines, URLs' queries, YAML, CLI flags),
# where the name ends in a word that says secret; a quoted value keeps its quotes. A JSON object,
# list or literal is JSON's, left to `_JSON_MEMBER`.
_ASSIGNED = re.compile(
    rf"(?i)(\b[\w-]*?(?:password|passwd|passphrase|passkey|secret|token|api[_-]?key|credentials?)['\"]?"
    rf"[ \t]*(?:=|:(?!:))[ \t]*)(?!['\"]?{MASK})(?![\[{{]|(?:true|false|null)\b)"
    r"('[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
)
# Every word `_ASSIGNED` needs, case-folded (a case-blind search is four times slower): it picks
# the lines that regex runs on. A text holding none of the words skips even that search.
_MAYBE_ASSIGNED = re.compile(r"pass|secret|token|api.?key|credential")
_ASSIGNED_WORDS = ("pass", "secret", "token", "api", "credential")
# JSON, at any depth and also in text around it (a warning line before it, output cut short): a
# member whose value is a string, a number or a list of them. Whether its name says secret is
# `_secret_name`'s to say; the regex only finds candidates, so most members are never looked at.
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_NUMBER = r"-?\d[\w.+-]*"
_SCALAR = re.compile(rf"{_STRING}|{_NUMBER}")
_JSON_MEMBER = re.compile(
    rf'"((?:[^"\\\n]|\\.)*?(?i:pass|secret|key|token|communit|cak|psk|credential)(?:[^"\\\n]|\\.)*)"'
    rf"(\s*:\s*)({_STRING}|{_NUMBER}|\[[^\[\]{{}}]*\])"
)
_JSON_WORDS = ("pass", "secret", "key", "token", "communit", "cak", "psk", "credential")
_SECRET_WORDS = frozenset(
    {"password", "passwd", "passphrase", "passkey", "secret", "key", "token", "community", "cak", "psk"}
    | {"credential", "credentials", "apikey"}
)
_JSON_MASK = f'"{MASK}"'


def mask_shapes(text: str) -> str:
    """`text` with every private key block, HTTP credential, secret JSON value and `secret=value`
    replaced by `MASK`, on any platform. Each pass runs only over text holding its words."""
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(_masked_key_block, text)
    # Case-folded as the regexes' (?i) folds (ſ is s, K is k), so a word they match is in it.
    lowered = text.casefold()
    unmasked = text
    if '"' in text and any(word in lowered for word in _JSON_WORDS):
        text = _JSON_MEMBER.sub(_masked_member, text)
    if "authorization" in lowered:
        text = _AUTHORIZATION.sub(rf"\1{MASK}", text)
    if "bearer" in lowered:
        text = _BEARER.sub(rf"\1{MASK}", text)
    if "basic" in lowered:
        text = _BASIC.sub(rf"\1{MASK}", text)
    # The passes above may have changed it: its offsets must be the text's.
    return _mask_assignments(text, lowered if text is unmasked else text.casefold())


def _mask_assignments(text: str, lowered: str) -> str:
    """`_ASSIGNED` applied to the lines holding one of its words. None of its matches crosses a
    line, so this is the whole text's substitution; but over a whole counter table, where only
    `rx_buffer_passed_thres` says "pass", the regex tries every word and costs a quarter of a
    millisecond, more than the rest of a host's masking."""
    if not any(word in lowered for word in _ASSIGNED_WORDS):
        return text
    if len(lowered) != len(text):
        # A character that folds to two (ß, İ) moves the offsets: the whole text, then.
        return _ASSIGNED.sub(_masked_assignment, text) if _MAYBE_ASSIGNED.search(lowered) else text
    pieces: list[str] = []
    done = 0
    for hit in _MAYBE_ASSIGNED.finditer(lowered):
        if hit.start() < done:
            continue
        start = text.rfind("\n", 0, hit.start()) + 1
        end = text.find("\n", hit.end())
        end = len(text) if end < 0 else end
        pieces += (text[done:start], _ASSIGNED.sub(_masked_assignment, text[start:end]))
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _masked_key_block(found: re.Match[str]) -> str:
    # One line, whole again: a block cut short reads as a whole one, and masks the same each time.
    return f"-----BEGIN {found.group(1)}----- {MASK} -----END {found.group(1)}-----"


def _secret_name(name: str) -> bool:
    """A JSON name says secret when one of its words does: `passkey`, `bind_password`,
    `authPassword`, `primary_cak`, `SNMP_COMMUNITY`; not `keepalive` or `monkey`."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return any(word in _SECRET_WORDS for word in re.findall(r"[a-z0-9]+", spaced.lower()))


def _masked_member(found: re.Match[str]) -> str:
    name, colon, value = found.groups()
    if not _secret_name(name):
        return found.group()
    if value.startswith("["):
        # Each item masked in place, so a list over several lines keeps its lines.
        value = _SCALAR.sub(lambda item: item.group() if item.group() == '""' else _JSON_MASK, value)
    elif value != '""':
        value = _JSON_MASK
    return f'"{name}"{colon}{value}'


def _masked_assignment(found: re.Match[str]) -> str:
    value = found.group(2)
    quote = value[0] if value[0] in "'\"" else ""
    return f"{found.group(1)}{quote}{MASK}{quote}"


@dataclass(frozen=True)
class SecretFilters:
    """A platform's sanitize_config filters, and words of which every filter's match holds one.

    Each filter is a regex pass over the whole text, and most of what a switch prints (interface
    tables, counters) holds none of the words: such text skips the passes. Shapes are masked first,
    whatever the words.
    """

    filters: tuple[dict[str, str], ...]
    keywords: tuple[str, ...]

    def mask(self, text: str) -> str:
        text = mask_shapes(text)
        if not any(word in text for word in self.keywords):
            return text
        return sanitize(text, list(self.filters))


def sanitize(text: str, filters: list[dict[str, str]]) -> str:
    """netutils' sanitize_config: each filter's regex replaced in the whole text."""
    # netutils' config module loads Jinja2: imported by the commands that save what they read.
    from netutils.config.clean import sanitize_config

    return sanitize_config(text, filters)
