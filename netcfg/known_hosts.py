"""Host keys for collection: an OpenSSH known_hosts file read strictly, then split per device."""

from __future__ import annotations

import re
from pathlib import Path

import paramiko
from nornir.core.inventory import Host
from paramiko.hostkeys import HostKeyEntry

from netcfg.errors import InputError, OutputError

# A line per host: even 100,000 devices stay far below this.
KNOWN_HOSTS_MAX_BYTES = 64 * 1024 * 1024
# How OpenSSH names key types: ssh-ed25519, ecdsa-sha2-nistp256, sk-ssh-ed25519@openssh.com, ...
_KEY_TYPE = re.compile(r"[a-z0-9][a-z0-9@._-]*")
_EXPECTED = "expected an OpenSSH known_hosts file"


def read_known_hosts(path: Path) -> paramiko.HostKeys:
    """Host keys from an OpenSSH known_hosts file; InputError naming the file or line that is not one.

    paramiko skips lines it cannot read without a word: a file that is not a known_hosts file would
    then refuse every device as unknown instead of being named as the mistake.
    """
    where = f"--known-hosts {path}"
    if not path.is_file():
        raise InputError(where, f"not a regular file; {_EXPECTED}")
    try:
        if path.stat().st_size > KNOWN_HOSTS_MAX_BYTES:
            raise InputError(where, f"larger than {KNOWN_HOSTS_MAX_BYTES >> 20} MiB; {_EXPECTED}")
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(where, f"cannot be read ({exc.strerror}); {_EXPECTED}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{where}:{line}", f"not UTF-8 text; {_EXPECTED}") from None
    keys = paramiko.HostKeys()
    for number, line in enumerate(text.splitlines(), 1):
        line = " ".join(line.split())
        if not line or line.startswith("#"):
            continue
        if line.startswith("@revoked"):
            raise InputError(
                f"{where}:{number}", "@revoked is not supported: remove the revoked key's lines instead"
            )
        if line.startswith("@"):
            # @cert-authority: netcfg trusts no host certificate, so such hosts are refused, not let in.
            continue
        fields = line.split(" ")
        if len(fields) < 3 or not _KEY_TYPE.fullmatch(fields[1]):
            raise InputError(f"{where}:{number}", "expected 'HOSTS KEY-TYPE BASE64-KEY' (a known_hosts line)")
        try:
            entry = HostKeyEntry.from_line(line, number)
        except Exception:  # paramiko's key classes raise several kinds of error on corrupt key data
            raise InputError(f"{where}:{number}", "the key is not a valid base64 SSH public key") from None
        if entry is not None:  # None: a key type paramiko cannot use; such a host is refused
            for name in entry.hostnames:
                keys.add(name, entry.key.get_name(), entry.key)
    return keys


def split_known_hosts(every: paramiko.HostKeys, hosts: list[Host], folder: Path) -> dict[str, Path]:
    """One small known_hosts file per device.

    netmiko has paramiko re-read the whole file on every connection: with a thousand devices that
    parsing cost more CPU than the SSH sessions themselves. Keys are still checked before any password
    is sent; a device missing from the file gets an empty one and is refused.
    """
    out = {}
    # paramiko's lookup scans every entry (and hashes each hashed one) per host: with a thousand
    # devices that was most of a second before the first was contacted. Plain names are indexed
    # once; a host not among them (a hashed entry, a pattern) is still looked up as before.
    plain: dict[str, dict[str, paramiko.PKey]] = {}
    for entry in every._entries:  # paramiko has no public view of its entries
        for listed in entry.hostnames:
            if not listed.startswith("|") and not any(c in listed for c in "*?!"):
                plain.setdefault(listed, {}).setdefault(entry.key.get_name(), entry.key)
    for host in hosts:
        name = host.hostname if host.port == 22 else f"[{host.hostname}]:{host.port}"
        mine = paramiko.HostKeys()
        found = plain.get(name)
        for key_type, key in (found if found is not None else every.lookup(name) or {}).items():
            mine.add(name, key_type, key)
        path = folder / f"{host.name}.known_hosts"
        try:
            mine.save(str(path))
        except OSError as exc:
            raise OutputError.from_os_error(path, exc) from None
        out[host.name] = path
    return out
