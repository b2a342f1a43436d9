"""Masking what a Linux host prints before it is saved: hosts have no config syntax for secrets, so
secrets are found by their shape (PEM private keys, HTTP bearer and basic credentials), wherever
they appear (an LLDP SysDescr, a script comment, a driver string)."""

from __future__ import annotations

import re

MASK = "<removed>"
_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----.*?(?:-----END \1-----|\Z)", re.S)
_HTTP_CREDENTIAL = re.compile(r"\b(Bearer|Basic)([ \t]+)[A-Za-z0-9._~+/=-]+", re.I)


def mask_secrets(text: str) -> str:
    """`text` with every private key block and HTTP credential masked (a key block cut off by the
    end of the output is masked to the end)."""
    if "PRIVATE KEY" in text:
        text = _PEM.sub(lambda m: f"-----BEGIN {m.group(1)}----- {MASK}", text)
    if "earer" in text or "asic" in text or "EARER" in text or "ASIC" in text:
        text = _HTTP_CREDENTIAL.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return text
