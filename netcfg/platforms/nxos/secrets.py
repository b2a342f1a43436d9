"""Secrets in NX-OS config lines, masked before anything is saved.

Each filter names what precedes a secret (keywords and the encryption type, kept) for netutils'
sanitize_config, which puts <masked> in place of the secret so the config still parses: local user
passwords (`username admin password 5 $5$...`), SNMPv3 user keys (`auth md5 0x...`, `priv
[aes-128] 0x...`), communities (also where a v1/v2c trap host names one), TACACS+/RADIUS/LDAP
keys (`tacacs-server key 7 "..."`, also per host), key-chain keys (`key-string 7 ...`), BGP
neighbour passwords (`password 3 ...`), OSPF, HSRP, NTP and BFD authentication keys. Secrets of any
platform's shape (private keys, bearer tokens) go first (`netcfg.platforms.secrets`).
"""

from __future__ import annotations

from netcfg.platforms.secrets import SecretFilters

_TYPE = r"(?: \d)?"
_BEFORE_SECRET = [
    rf"^\s*username \S+ password{_TYPE}",
    rf"^\s*enable secret{_TYPE}",
    r"^\s*snmp-server community",
    r"^\s*snmp-server host \S+(?: (?:traps|informs))? version (?:1|2c)",
    r"^\s*snmp-server user \S+.*? auth (?:md5|sha\S*)",
    r"^\s*snmp-server user \S+.*? priv(?: (?:aes-128|des|3des))?",
    rf"^\s*(?:tacacs|radius|ldap)-server\b.*? key{_TYPE}",
    rf"^\s*key-string{_TYPE}",
    rf"^\s*password{_TYPE}",
    rf"^\s*neighbor \S+.*? password{_TYPE}",
    rf"\bauthentication-key(?: \d+)?(?: md5)?{_TYPE}",
    rf"\bmessage-digest-key \d+ md5{_TYPE}",
    r"^\s*authentication (?:md5 key-string|text)",
    r"\bkeyed-sha1 key-id \d+ key",
]
# The secret: a quoted string (TACACS keys may hold spaces) or one word, commas and all; a line already masked
# (by an earlier filter, or an earlier run) stays as it is.
_VALUE = r" (?![^\n]*<masked>)(?:\"[^\"\n]*\"|\S+)"
SECRET_FILTERS = [{"regex": rf"({before}){_VALUE}", "replace": r"\1 <masked>"} for before in _BEFORE_SECRET]

# Every filter above matches one of these (case matters: sanitize_config's filters are case-sensitive).
_SECRETS = SecretFilters(
    tuple(SECRET_FILTERS), ("password", "secret", "snmp-server", "key", "authentication")
)


def mask_secrets(text: str) -> str:
    return _SECRETS.mask(text)
