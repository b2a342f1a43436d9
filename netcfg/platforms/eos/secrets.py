"""Secrets in EOS configs, masked before anything is saved: by shape (`netcfg.platforms.secrets`), and
after EOS keywords with netutils' sanitize_config."""

from __future__ import annotations

from netcfg.platforms.secrets import SecretFilters

# Secrets in EOS config lines: what precedes each secret (keywords and encryption type, kept), for
# netutils' sanitize_config, which puts <masked> in place of the secret so the config still parses.
_TYPE = r"(?: (?:0|5|7|8a|sha512|md5))?"
_BEFORE_SECRET = [
    rf"^\s*(?:username|enable)\b.*? (?:secret|password){_TYPE}",
    rf"^\s*neighbor \S+ password{_TYPE}",
    rf"(?<![\w-])secret{_TYPE}",
    rf"^\s*(?:radius|tacacs)-server\b.*? key{_TYPE}",
    rf"authentication-key(?: \d+)?(?: (?:md5|sha\d*))?{_TYPE}",
    rf"message-digest-key \d+ (?:md5|sha\d*){_TYPE}",
    rf"^\s*(?:isis )?authentication key{_TYPE}",
    rf"(?:pre-)?shared-key{_TYPE}",
    r"^\s*snmp-server community",
    r"\bauth (?:md5|sha\d*)",
    r"\bpriv (?:des|3des|aes\d*)",
]
# The secret: a quoted string (a key may hold spaces) or one word, commas and all. Where the rest of
# the line is already masked (by an earlier filter, or an earlier run), it stays.
_VALUE = r" (?![^\n]*<masked>)(?:\"[^\"\n]*\"|\S+)"
SECRET_FILTERS = [{"regex": rf"({before}){_VALUE}", "replace": r"\1 <masked>"} for before in _BEFORE_SECRET]
# TerminAttr's CloudVision key sits inside one long `exec` argument.
SECRET_FILTERS.append({"regex": r"(-cvauth=key,)[^\s,]+", "replace": r"\1<masked>"})

# Every filter above matches one of these (case matters: sanitize_config's filters are case-sensitive).
_SECRETS = SecretFilters(
    tuple(SECRET_FILTERS), ("secret", "password", "key", "snmp-server", "auth ", "priv ")
)


def mask_secrets(text: str) -> str:
    """The text with every secret replaced by `<masked>`, keywords and encryption type kept."""
    return _SECRETS.mask(text)
