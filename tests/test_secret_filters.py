"""No secret a device prints reaches anything netcfg writes.

Skipping the keyword passes over text without a keyword never lets a secret through: for any text,
EOS and NX-OS masking equals netutils' sanitize_config with all of their filters, after the shapes.
Then the real pipeline: every form of secret seeded into what the lab's devices of all seven
platforms print, collected live and as a lab snapshot, checked, diffed, reported in every format,
and looked for in every file and stream netcfg wrote."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netutils.config.clean import sanitize_config

from netcfg.cli import main
from netcfg.inventory import load_fabric
from netcfg.lab.devices import load_faults
from netcfg.lab.snapshot import simulated_outputs
from netcfg.platforms import get_platform, platform_names, secrets
from netcfg.platforms.eos import secrets as eos_secrets
from netcfg.platforms.nxos import secrets as nxos_secrets
from netcfg.platforms.secrets import MASK, mask_shapes
from netcfg.policy import load_policy
from netcfg.report import FORMATS
from netcfg.snapshot import read_device_outputs
from tests.conftest import ROOT
from tests.test_nxos import SECRET_LINES as NXOS_LINES
from tests.test_parse_eos import SECRET_LINES as EOS_LINES

CASES = {
    "eos": (eos_secrets.SECRET_FILTERS, EOS_LINES),
    "nxos": (nxos_secrets.SECRET_FILTERS, NXOS_LINES),
}


def lines(secret_lines: list[tuple[str, str]]) -> st.SearchStrategy[str]:
    """Config-like text: words of real secret lines (keywords, types, values) shuffled and cut,
    secret lines and their tails, and noise, over several lines."""
    words = sorted({w for line, _ in secret_lines for w in line.split()} | {"Ethernet1", "0", "up"})
    shuffled = st.lists(st.sampled_from(words), max_size=8).map(" ".join)
    # Every tail of a secret line: a filter that matches mid-line must fire without the line's start.
    tails = sorted({" ".join(line.split()[i:]) for line, _ in secret_lines for i in range(len(line.split()))})
    whole = st.sampled_from(tails)
    indent = st.sampled_from(["", "   ", "      "])
    line = st.tuples(indent, st.one_of(shuffled, whole, st.text(max_size=20))).map("".join)
    return st.lists(line, max_size=6).map("\n".join)


@pytest.mark.parametrize("platform", sorted(CASES))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_masking_equals_every_filter_applied(platform: str, data: st.DataObject):
    filters, secret_lines = CASES[platform]
    text = data.draw(lines(secret_lines))
    assert get_platform(platform).mask_secrets(text) == sanitize_config(mask_shapes(text), filters)


@pytest.mark.parametrize("platform", sorted(CASES))
def test_every_secret_line_on_its_own_is_masked(platform: str):
    # Alone, a line must carry one of the keywords itself: no other line lets the passes run.
    for line, secret in CASES[platform][1]:
        assert secret not in get_platform(platform).mask_secrets(line), line


# Fragments of every shape's words and syntax, in cases and spellings that fold (ſ is s, K is k, ß is
# ss, İ is i and a dot), so the shortcuts mask_shapes takes meet every way its regexes match.
_FRAGMENTS = [
    "password", "PassWord", "paſswd", "api_key", "API-KEY", "token", "credentials", "secret",
    "community", "psk", "key", "rx_buffer_passed_thres_phy", "Authorization", "Bearer ", "basic ",
    '"', "'", ":", " :", "=", "::", " ", "\t", "\n", "\r\n", "[", "]", "{", "}", ",", "true",
    MASK, "abc123XYZ", "Xy9+/aB=", "0", "ß", "İ", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----",
]  # fmt: skip


def _whole_text_masking(text: str) -> str:
    """Every shape's regex over the whole text, unconditionally: what mask_shapes must equal."""
    text = secrets._PRIVATE_KEY.sub(secrets._masked_key_block, text)
    text = secrets._JSON_MEMBER.sub(secrets._masked_member, text)
    for regex in (secrets._AUTHORIZATION, secrets._BEARER, secrets._BASIC):
        text = regex.sub(rf"\1{MASK}", text)
    return secrets._ASSIGNED.sub(secrets._masked_assignment, text)


_NAMES = st.sampled_from(["password", "PassWord", "paſswd", "api_key", "authPassword", "keepalive", "x"])
_SEPARATORS = st.sampled_from([":", " :", "\t:", "\n: ", ": ", "=", " = ", "::"])
_VALUES = st.sampled_from(['"abc"', "abc", "123", '["a", 1]', '""', "true", f'"{MASK}"', "'q'"])
# A JSON member or an assignment whole, which fragments alone would rarely spell.
_MEMBERS = st.tuples(st.sampled_from(['"', ""]), _NAMES, st.sampled_from(['"', ""]), _SEPARATORS, _VALUES)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), _MEMBERS.map("".join)), max_size=30).map("".join))
def test_masking_by_shape_equals_every_regex_over_the_whole_text(text: str):
    assert mask_shapes(text) == _whole_text_masking(text)


# --- every form of secret, through the real pipeline -------------------------------------------------

LAB_MULTI = ROOT / "inventories" / "lab-multi"


@dataclass(frozen=True)
class Form:
    """One secret as a device prints it: `text` printed into `cli`'s output of `device`, before the
    first `before` (None: at the end); `secret` must then be nowhere netcfg writes."""

    device: str
    cli: str
    before: str | None
    text: str
    secret: str


def _forms(device: str, cli: str, before: str, lines: list[tuple[str, str]]) -> list[Form]:
    """Whole lines of a config, each printed before `before`."""
    return [Form(device, cli, before, f"{text}\n", secret) for text, secret in lines]


_PEM = "-----BEGIN {0}-----\n{1}\n{1}x\n-----END {0}-----"
EOS_RUNNING = ("leaf-su1-r1", "show running-config", "!\nend")
NXOS_RUNNING = ("leaf-su1-r4", "show running-config", "feature lldp")
JUNOS_SET = ("spine1", "show configuration | display set", "set interfaces")
SONIC_DB = ("leaf-su1-r3", "show runningconfiguration all", '    "BUFFER_PG": {')
NVUE = ("leaf-su1-r2", "nv config show -o commands", "nv set qos roce mode lossless")
LLDPCLI = "lldpcli show neighbors"
FORMS: dict[str, list[Form]] = {
    "eos": [
        *_forms(
            *EOS_RUNNING,
            [
                ("username ops secret 0 Zq01a,Zq01b", "Zq01a,Zq01b"),
                ('tacacs-server key 0 "Zq02a Zq02b"', "Zq02a Zq02b"),
                (
                    'alias getcfg bash curl -s -H "Authorization: Bearer Zq03TokEos9" https://cvp/api',
                    "Zq03TokEos9",
                ),
                ("banner motd\n" + _PEM.format("RSA PRIVATE KEY", "Zq04PemEos") + "\nEOF", "Zq04PemEos"),
                ("snmp-server community Zq05comm ro", "Zq05comm"),
                ("enable secret 5 $1$Zq06$EnAbLe", "$1$Zq06$EnAbLe"),
                ("router bgp 65101\n   neighbor 10.1.0.0 password 0 Zq07bgp", "Zq07bgp"),
                ("radius-server host 10.0.0.50 key 7 Zq08rad", "Zq08rad"),
                ("ntp authentication-key 1 md5 0 Zq09ntp", "Zq09ntp"),
                ("snmp-server user mon NETOPS v3 auth sha Zq10auth priv aes Zq11priv", "Zq10auth"),
                ("snmp-server user mon2 NETOPS v3 auth sha Zq10bauth priv aes Zq11priv", "Zq11priv"),
                ("daemon TerminAttr\n   exec /usr/bin/TerminAttr -cvauth=key,Zq12cv -cvvrf=MGMT", "Zq12cv"),
                (
                    'alias basic bash curl -H "Authorization: Basic WnExM2Jhc2ljOnB3ZA=="',
                    "WnExM2Jhc2ljOnB3ZA==",
                ),
                ("alias tok bash export API_TOKEN=Zq14env,tail", "Zq14env,tail"),
            ],
        ),
        Form("leaf-su1-r1", "show interfaces", "Ethernet1 is up", "! token=Zq15intf\n", "Zq15intf"),
    ],
    "nxos": [
        *_forms(
            *NXOS_RUNNING,
            [
                ("username ops password 0 Zq21a,Zq21b role network-operator", "Zq21a,Zq21b"),
                ('tacacs-server key 7 "Zq22a Zq22b"', "Zq22a Zq22b"),
                ("snmp-server community Zq23comm group network-operator", "Zq23comm"),
                ("snmp-server host 10.40.1.20 traps version 2c Zq24trap", "Zq24trap"),
                ("radius-server host 10.0.0.5 key 0 Zq25rad", "Zq25rad"),
                ("key chain KC\n  key 1\n    key-string 7 Zq26ks", "Zq26ks"),
                ("banner motd ^\n" + _PEM.format("EC PRIVATE KEY", "Zq27PemNx") + "\n^", "Zq27PemNx"),
                ('cli alias name tok run bash curl -H "Authorization: Bearer Zq28TokNxos"', "Zq28TokNxos"),
                ("enable secret 0 Zq29en", "Zq29en"),
                ("router bgp 65101\n  neighbor 10.2.1.0\n    password 3 Zq30bgp", "Zq30bgp"),
                ("ntp authentication-key 1 md5 Zq31ntp 7", "Zq31ntp"),
            ],
        ),
        Form(
            "leaf-su1-r4",
            "show lldp neighbors detail",
            "netcfg lab device",
            "curl -H 'Authorization: Bearer Zq32LldpNx' ",
            "Zq32LldpNx",
        ),
    ],
    "junos": [
        *_forms(
            *JUNOS_SET,
            [
                (
                    'set system login user ops authentication encrypted-password "$6$Zq41$hash"',
                    "$6$Zq41$hash",
                ),
                ('set system radius-server 10.0.0.5 secret "$9$Zq42rad"', "$9$Zq42rad"),
                ('set system tacplus-server 10.0.0.6 secret "Zq43a Zq43b"', "Zq43a Zq43b"),
                ("set snmp community Zq44comm authorization read-only", "Zq44comm"),
                ('set protocols bgp group SPINE authentication-key "$9$Zq45bgp"', "$9$Zq45bgp"),
                ('set system ntp authentication-key 1 type md5 value "$9$Zq46ntp"', "$9$Zq46ntp"),
                (
                    'set system login message "'
                    + _PEM.format("OPENSSH PRIVATE KEY", "Zq47Pem").replace("\n", "\\n")
                    + '"',
                    "Zq47Pem",
                ),
                (
                    'set snmp v3 usm local-engine user mon authentication-sha authentication-key "Zq48usm"',
                    "Zq48usm",
                ),
                ('set security ike proposal P pre-shared-key ascii-text "$9$Zq49psk"', "$9$Zq49psk"),
                ('set system services rest http api-key "Zq50rest" token=Zq50tok', "Zq50tok"),
            ],
        ),
        Form(
            "spine1",
            "show interfaces extensive",
            "leaf-su1-r1:Ethernet31",
            "Bearer Zq51DescJunos ",
            "Zq51DescJunos",
        ),
    ],
    "sonic": [
        *_forms(
            *SONIC_DB,
            [
                ('    "TACPLUS": {"global": {"passkey": "Zq61pk", "auth_type": "pap"}},\n', "Zq61pk"),
                ('    "RADIUS": {"global": {"passkey": ["Zq62a", "Zq62b"]}},\n', "Zq62b"),
                (
                    '    "KUBERNETES_MASTER": {"SERVER": {"ip": "10.0.0.9", "token": "Zq63kube"}},\n',
                    "Zq63kube",
                ),
                ('    "BGP_NEIGHBOR": {"10.0.0.1": {"password": 97531864, "asn": "65000"}},\n', "97531864"),
                ('    "SNMP_COMMUNITY": {"Zq65comm": {"TYPE": "RO"}},\n', "Zq65comm"),
                ('    "SNMP_COMMUNITY|Zq66flat": {"TYPE": "RW"},\n', "Zq66flat"),
                ('    "LDAP": {"global": {"bind_password": "Zq67ldap"}},\n', "Zq67ldap"),
                ('    "SNMP_USER": {"mon": {"SNMP_USER_AUTH_PASSWORD": "Zq68auth",\n', "Zq68auth"),
                ('        "SNMP_USER_ENCRYPTION_PASSWORD": "Zq69enc"}},\n', "Zq69enc"),
                (
                    '    "MACSEC_PROFILE": {"P": {"primary_cak": "Zq70cak", "fallback_cak": "Zq71cak"}},\n',
                    "Zq71cak",
                ),
                ('    "REST_SERVER": {"config": {"client_auth": {"apiKey": "Zq72api"}}},\n', "Zq72api"),
            ],
        ),
        Form("leaf-su1-r3", "show version", "Build commit", "SSO: token=Zq73ver\n", "Zq73ver"),
    ],
    "cumulus": [
        *_forms(
            *NVUE,
            [
                ("nv set system aaa user ops password Zq81a,Zq81b", "Zq81a,Zq81b"),
                ("nv set system aaa radius server 192.0.2.50 secret 'Zq82a Zq82b'", "Zq82a Zq82b"),
                ("nv set system aaa tacacs server 1 secret Zq83tac", "Zq83tac"),
                ("nv set vrf default router bgp neighbor 10.0.0.1 password Zq84bgp", "Zq84bgp"),
                ("nv set service snmp-server readonly-community Zq85comm access any", "Zq85comm"),
                ("nv set system message pre-login 'Authorization: Bearer Zq86TokNv'", "Zq86TokNv"),
                (
                    "nv set system message post-login '"
                    + _PEM.format("PRIVATE KEY", "Zq87Pem").replace("\n", "\\n")
                    + "'",
                    "Zq87Pem",
                ),
                ("nv set service ntp default server 10.0.0.1 key 1 value Zq88ntp", "Zq88ntp"),
            ],
        ),
        Form(
            "leaf-su1-r2",
            "nv show interface -o json",
            '    "type": "eth",',
            '    "auth-key": "Zq89js",\n',
            "Zq89js",
        ),
        Form("leaf-su1-r2", "nv show system", "timezone", "motd               token=Zq90sys\n", "Zq90sys"),
    ],
    "connectx": [
        Form(
            "gpu01",
            LLDPCLI,
            "Arista Networks EOS",
            "curl -H 'Authorization: Bearer Zq91LldpCx' ",
            "Zq91LldpCx",
        ),
        Form(
            "gpu01",
            LLDPCLI,
            "Arista Networks EOS",
            _PEM.format("RSA PRIVATE KEY", "Zq92PemCx") + " ",
            "Zq92PemCx",
        ),
        Form("gpu01", LLDPCLI, "Arista Networks EOS", "password=Zq93pw ", "Zq93pw"),
        Form("gpu01", LLDPCLI, "Arista Networks EOS", "X-Auth-Token: Zq94xat ", "Zq94xat"),
        Form("gpu01", LLDPCLI, "Arista Networks EOS", "Basic WnE5NWJhc2ljOng= ", "WnE5NWJhc2ljOng="),
        Form("gpu01", "ethtool -i eth0", "bus-info", "api_key: Zq96drv\n", "Zq96drv"),
    ],
    "thor": [
        Form("gpu05", LLDPCLI, "Arista Networks EOS", "bearer Zq97LldpThor ", "Zq97LldpThor"),
        Form(
            "gpu05",
            LLDPCLI,
            "Arista Networks EOS",
            _PEM.format("OPENSSH PRIVATE KEY", "Zq98Pem") + " ",
            "Zq98Pem",
        ),
        Form("gpu05", LLDPCLI, "Arista Networks EOS", '{"secret": "Zq99js"} ', "Zq99js"),
        Form("gpu05", LLDPCLI, "Arista Networks EOS", "Proxy-Authorization: Negotiate Zq100neg ", "Zq100neg"),
        Form("gpu05", LLDPCLI, "Arista Networks EOS", "SECRET=Zq101env ", "Zq101env"),
        Form("gpu05", "ethtool -i eth0", "bus-info", "passphrase: 'Zq102a Zq102b'\n", "Zq102a Zq102b"),
    ],
}
SECRETS = [form.secret for forms in FORMS.values() for form in forms]
# Printed before the JSON of the SONiC leaf: its secrets must be masked all the same.
SONIC_WARNING = {"before": "", "text": "WARNING: the running configuration may be stale\n"}
# A Junos brace-form line missing its `;`: the config cannot be read, and the error names the line.
MALFORMED_JUNOS = "system {\n    login {\n        user ops {\n            authentication {\n"
MALFORMED_JUNOS += '                encrypted-password "$6$Zq103$brace"\n            }\n        }\n    }\n}\n'


def _pieces(secret: str) -> list[str]:
    """What must not show of a secret: the whole, and each part (a comma or a space cuts a masker)."""
    return [secret, *(part for part in re.split(r"[\s,]+", secret) if len(part) >= 5)]


def _faults() -> dict[str, object]:
    prints: dict[str, dict[str, list[dict[str, str | None]]]] = {}
    for forms in FORMS.values():
        for form in forms:
            printed = {"before": form.before, "text": form.text}
            prints.setdefault(form.device, {}).setdefault(form.cli, []).append(printed)
    prints[SONIC_DB[0]][SONIC_DB[1]].append(SONIC_WARNING)
    return {"devices": {device: {"prints": by_cli} for device, by_cli in prints.items()}}


def test_at_least_seventy_forms_are_seeded_on_every_platform():
    assert (
        set(FORMS)
        == set(platform_names())
        == {"eos", "nxos", "junos", "sonic", "cumulus", "connectx", "thor"}
    )
    assert len(SECRETS) >= 70 and len(set(SECRETS)) == len(SECRETS)
    fabric = load_fabric(LAB_MULTI)
    assert {fabric.devices[form.device].platform for forms in FORMS.values() for form in forms} == set(FORMS)


@pytest.fixture(scope="module")
def faults_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("faults") / "faults.yaml"
    path.write_text(json.dumps(_faults(), indent=1), encoding="utf-8")
    return path


def test_the_lab_devices_print_every_seeded_secret(faults_file: Path):
    # What the scan below looks for is really printed: without masking, the test would fail.
    fabric = load_fabric(LAB_MULTI)
    policy = load_policy(fabric.policy_ref, LAB_MULTI)
    printed = simulated_outputs(fabric, policy, load_faults(faults_file, fabric))
    text = "\n".join(output for outputs in printed.values() for output in outputs.values())
    for secret in SECRETS:
        assert secret in text, secret


def test_no_secret_reaches_any_file_or_stream_netcfg_writes(tmp_path: Path, faults_file: Path, capfd, caplog):
    inventory = str(LAB_MULTI)
    streams: list[str] = []

    def run(*argv: str) -> int:
        code = main(list(argv))
        out, err = capfd.readouterr()
        streams.extend([out, err])
        assert "internal error" not in err, err
        return code

    # Simulated snapshots, twice: masked output is the same each time, so drift fingerprints stay put.
    snapshots = [tmp_path / "lab-1", tmp_path / "lab-2"]
    for snapshot in snapshots:
        assert run("lab", "snapshot", inventory, "--faults", str(faults_file), "-o", str(snapshot)) == 0
    # Counters move between two readings (fingerprints leave them out); every other masked output stays.
    fabric = load_fabric(LAB_MULTI)
    masked = [
        path.relative_to(snapshots[0])
        for path in snapshots[0].rglob("*.txt")
        if "<masked>" in path.read_text()
        and path.stem
        not in get_platform(fabric.devices[path.parent.name].platform).counter_files(
            fabric.devices[path.parent.name]
        )
    ]
    assert len(masked) >= 8
    for path in masked:
        assert (snapshots[0] / path).read_text() == (snapshots[1] / path).read_text(), path

    # Live: the lab served over SSH, audited twice (a go-live baseline, then the nightly audit).
    demo = tmp_path / "demo"
    assert run("demo", inventory, "--faults", str(faults_file), "--out", str(demo)) == 1
    live = sorted(p.parent for p in demo.rglob("meta.json"))[-1]

    reports = tmp_path / "reports"
    reports.mkdir()
    for source in (snapshots[0], live):
        assert run("check", inventory, "--snapshot", str(source)) == 1
        for fmt in ("table", *FORMATS):
            target = reports / f"{source.name}.{fmt}"
            assert (
                run("check", inventory, "--snapshot", str(source), "--format", fmt, "--output", str(target))
                == 1
            )
        # The seeded lines, the SONiC leaf's behind its warning line too, are outside what netcfg
        # renders: diff reads every switch and proposes nothing for them.
        assert run("diff", inventory, "--snapshot", str(source)) == 0
    assert run("drift", "--inventory", inventory, str(snapshots[0]), str(live)) in (0, 1)

    # Pre-merge: a Junos brace-form line holding a secret and missing its `;`.
    configs = tmp_path / "configs"
    assert run("render", inventory, "-o", str(configs)) == 0
    (configs / "spine1.set").unlink()
    (configs / "spine1.conf").write_text(MALFORMED_JUNOS, encoding="utf-8")
    (configs / "spine1.set").write_text(MALFORMED_JUNOS, encoding="utf-8")
    assert run("check", inventory, "--configs", str(configs)) == 2
    assert f"{configs / 'spine1.set'}:5: cannot read" in streams[-1]
    assert "not shown" in streams[-1]

    written = [p for p in tmp_path.rglob("*") if p.is_file() and configs not in p.parents]
    assert len(written) > 100
    texts = {str(p): p.read_text(encoding="utf-8", errors="replace") for p in written}
    texts |= {f"stream {i}": text for i, text in enumerate(streams)}
    texts["log"] = caplog.text
    for secret in [*SECRETS, "$6$Zq103$brace"]:
        for piece in _pieces(secret):
            leaks = [where for where, text in texts.items() if piece in text]
            assert not leaks, f"{piece!r} reached {leaks[:3]}"
    # Masked, not dropped: each seeded device's saved outputs say where a secret was.
    for forms in FORMS.values():
        device = forms[0].device
        saved = "".join(read_device_outputs(live / f"{device}.jsonl").values())
        assert "<masked>" in saved, device
