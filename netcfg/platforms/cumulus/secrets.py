"""Secrets in NVUE configurations, masked before a snapshot is saved (netutils' sanitize_config, with
NVUE's keywords): in `nv set` lines (`... user X password P`, `... radius server S secret K`,
`... bgp neighbor N password P`, `... snmp-server readonly-community C access any`) and in the
startup.yaml tree (`password: P`, a community as the key under `readonly-community:`).

NVUE encrypts most of these in startup.yaml by default (`$nvsec$...`); an encrypted secret is masked too.
Secrets of any platform's shape (private keys, bearer tokens, JSON) go first (`netcfg.platforms.secrets`).
"""

from __future__ import annotations

import re

from netcfg.platforms.secrets import MASK, mask_shapes, sanitize

# Keywords whose next word (command form) or value (YAML form) is a secret.
_SECRET_WORDS = (
    r"[\w-]*password",  # password, hashed-password, community-password, auth-...-password
    r"[\w-]*secret",
    "md5-key",
    "auth-md5",
    "auth-sha",
    "encrypt-aes",
    "encrypt-des",
)
_COMMUNITY = r"(?:readonly|readwrite)-community(?:-v6)?"
_WORDS = "|".join(_SECRET_WORDS)
# A value not masked already: quoted, or one word.
_VALUE = rf"(?!{MASK})(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"
SECRET_FILTERS = [
    # nv set ... password P, ... secret K; in YAML `password: P`.
    {"regex": rf"((?<![\w-])(?:{_WORDS})(?::)? +){_VALUE}", "replace": rf"\1{MASK}"},
    # Keys by id (NTP): `nv set ... key 1 value K`, and `value: K` under the id in YAML.
    {"regex": rf"((?<![\w-])key +\S+ +value +){_VALUE}", "replace": rf"\1{MASK}"},
    {"regex": rf"(^[ \t]+value: +){_VALUE}", "replace": rf"\1{MASK}"},
    {"regex": rf"((?<![\w-]){_COMMUNITY} +){_VALUE}", "replace": rf"\1{MASK}"},
]
_YAML_COMMUNITY = re.compile(rf"([ \t]*){_COMMUNITY}:\s*")


def mask_secrets(text: str) -> str:
    return _mask_yaml_communities(sanitize(mask_shapes(text), SECRET_FILTERS))


def _mask_yaml_communities(text: str) -> str:
    """In startup.yaml a community is the key of each entry under `readonly-community:`."""
    lines = text.split("\n")
    block: int | None = None
    child: int | None = None
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" "))
        found = _YAML_COMMUNITY.fullmatch(line)
        if found:
            block, child = indent, None
            continue
        if block is None or not line.strip():
            continue
        if indent <= block:
            block = None
            continue
        child = indent if child is None else child
        if indent == child and ":" in line:
            key, _, rest = line.strip().partition(":")
            if key != MASK:
                lines[i] = f"{' ' * indent}{MASK}:{rest}"
    return "\n".join(lines)
