"""MkDocs hook: the rule reference and the file-format reference, generated from the code at build time.

`rules.md` lists every rule of `netcfg.checks.catalogue.RULES` (id, severity, scope, facet, the
platforms it applies to, its docstring); `schema/<kind>.md` every field of the JSON Schema `netcfg
schema <kind>` prints. Neither page exists in the repository, so neither can go stale: a new rule or
field is on the site the next time it is built. tests/test_docs.py builds the site and holds every
rule id to its entry.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

RULES_PAGE = "rules.md"
SCHEMA_PAGES = {
    "inventory": "schema/inventory.md",
    "policy": "schema/policy.md",
    "waivers": "schema/waivers.md",
    "faults": "schema/faults.md",
}
# What each first part of a rule id is about, as the rule reference groups them.
GROUPS = {
    "cabling": "Cabling (LLDP against the plan)",
    "cnp": "Congestion notification packets",
    "collect": "Collection",
    "config": "Applied and operational configuration",
    "ecn": "ECN",
    "firmware": "NOS and NIC firmware",
    "health": "Counters since the go-live baseline",
    "host": "Host NICs",
    "junos": "Junos",
    "link": "Links",
    "mtu": "MTU",
    "nxos": "NX-OS",
    "parse": "Reading device output",
    "pfc": "PFC",
    "plan": "The cabling plan",
    "qos": "QoS classification",
    "queue": "Queues",
    "rail": "Rails",
    "sonic": "SONiC",
    "waiver": "Waivers",
}
_FACETS = {
    None: "none: judged whatever the source holds",
    "qos": "`qos`: the device's QoS settings",
    "counters": "`counters`: counters, against an earlier reading",
    "link": "`link`: link state and speed",
    "lldp": "`lldp`: the LLDP neighbour table",
    "version": "`version`: the NOS or NIC firmware version",
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, "index.md", content=home_page()))
    files.append(File.generated(config, RULES_PAGE, content=rules_page()))
    for kind, page in SCHEMA_PAGES.items():
        files.append(File.generated(config, page, content=schema_page(kind)))
    return files


_README = Path(__file__).resolve().parents[2] / "README.md"


def home_page() -> str:
    """The site's home is the README, the repository's front door, its links into docs/ made
    relative to the site (one text, so the two cannot drift apart)."""
    text = re.sub(r"\]\(docs/", "](", _README.read_text(encoding="utf-8"))
    # GitHub wants a table's `|` escaped even inside code; Python-Markdown would show the backslash.
    return "\n".join(
        _CODE.sub(lambda m: m.group(0).replace("\\|", "|"), line) if line.startswith("|") else line
        for line in text.split("\n")
    )


_CODE = re.compile(r"`[^`\n]*`")


# `<!-- generated: platform NAME -->` in a page: what netcfg collects from a device of that platform.
_PLATFORM_MARKER = re.compile(r"^<!-- generated: platform ([a-z0-9_]+) -->$", re.M)
# The inventory with a device of every platform, whose devices the generated tables show.
_EVERY_PLATFORM = Path(__file__).resolve().parents[2] / "inventories" / "lab-multi"


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return _PLATFORM_MARKER.sub(lambda m: platform_section(m.group(1)), markdown)


def platform_section(name: str) -> str:
    """The platform's facts as its class states them, the commands collection sends to one lab
    device (every one on the platform's read-only list) and the platform's own rules."""
    from netcfg.checks.catalogue import RULES
    from netcfg.inventory import load_fabric
    from netcfg.platforms import get_platform

    platform = get_platform(name)
    fabric = load_fabric(_EVERY_PLATFORM)
    device = next(d for d in sorted(fabric.devices.values(), key=lambda d: d.name) if d.platform == name)
    commands = platform.commands(device)
    batches = platform.batches(device)
    out = [
        "| | |",
        "| --- | --- |",
        f"| devices | {platform.description} |",
        f"| kind | {platform.kind} |",
        f"| netmiko device type | `{platform.netmiko_device_type}` |",
        f"| rendered file | `<device>{platform.config_suffix}` |",
        f"| remediation (`netcfg diff`) | {_remediation(platform)} |",
        "",
        f"What a collection sends to `{device.name}` of `inventories/lab-multi`, in "
        f"{len(batches)} round trip(s) (generated from the code; a counters command's output is left "
        "out of the snapshot's fingerprint, so drift skips a device whose settings did not change):",
        "",
        "| command | snapshot file | counters or link state |",
        "| --- | --- | --- |",
    ]
    out += [f"| `{c.cli}` | `{c.file}.txt` | {'yes' if c.counters else ''} |" for c in commands]
    own = sorted(r.id for r in RULES.values() if r.platforms and name in r.platforms)
    out += [
        "",
        "Rules of this platform's own: "
        + (", ".join(f"[`{r}`](../rules.md#{r})" for r in own) or "none")
        + "; every shared rule applies as well ([Rule reference](../rules.md)).",
        "",
    ]
    return "\n".join(out)


def _remediation(platform: Any) -> str:
    if platform.hier_config_platform:
        return f"hier_config `{platform.hier_config_platform}`"
    return "its own (see below)" if platform.kind == "switch" else "none: the host script is idempotent"


def rules_page() -> str:
    from netcfg.checks.catalogue import RULES
    from netcfg.platforms import registry

    platforms = registry()
    out = [
        "# Rule reference",
        "",
        f"netcfg has {len(RULES)} rules. This page is generated from the code when the site is built "
        "(`netcfg rules` prints the same list in a terminal); the sentence under each rule is its "
        "docstring, which reports also show. Every rule can be waived ([Waivers](waivers.md)).",
        "",
        "- **severity**: what a finding of the rule is, unless a waiver makes it `info`;",
        "- **scope**: `device` rules judge one device, `link` rules both ends of a cable, `fabric` rules "
        "the whole fabric at once, `waivers` the waivers file;",
        "- **needs**: what a source must show for the rule to judge anything; a source without it leaves "
        "the rule not run, which reports say (unknown is never a pass);",
        "- **applies to**: the platforms whose devices the rule judges.",
        "",
    ]
    groups: dict[str, list[Any]] = defaultdict(list)
    for rule in RULES.values():
        groups[rule.id.split(".", 1)[0]].append(rule)
    for prefix in sorted(groups):
        out += [f"## {GROUPS.get(prefix, prefix)}", ""]
        for rule in sorted(groups[prefix], key=lambda r: r.id):
            out += [
                f"### `{rule.id}` {{#{rule.id}}}",
                "",
                f"**severity** {rule.severity.value} · **scope** {rule.scope} · "
                f"**needs** {_FACETS.get(rule.facet, f'`{rule.facet}`')} · "
                f"**applies to** {_applies_to(rule, platforms)}"
                + (f" · **compares with** the {rule.compares} reading" if rule.compares else ""),
                "",
                rule.doc or "(no docstring)",
                "",
            ]
    return "\n".join(out)


def _applies_to(rule: Any, platforms: dict[str, Any]) -> str:
    if rule.platforms is None and rule.roles is None:
        return "the whole fabric" if rule.scope in ("fabric", "waivers") else "every platform"
    names = sorted(
        name
        for name, platform in platforms.items()
        if (rule.platforms is None or name in rule.platforms)
        and (rule.roles is None or platform.kind in rule.roles)
    )
    return ", ".join(f"`{name}`" for name in names)


def schema_page(kind: str) -> str:
    from netcfg.schema import json_schema

    if kind == "faults":
        # The lab's faults file is no user-facing schema of `netcfg schema`, but it is a typed model.
        from netcfg.lab.devices import FaultsFile

        schema = FaultsFile.model_json_schema()
    else:
        schema = json_schema(kind)
    defs: dict[str, Any] = schema.get("$defs", {})  # type: ignore[assignment]
    titles = {
        "inventory": "Inventory",
        "policy": "Policy",
        "waivers": "Waivers file",
        "faults": "Lab faults file",
    }
    source = (
        "the lab's `FaultsFile` model (`netcfg/lab/devices.py`), which `netcfg lab` and `netcfg demo` read"
        if kind == "faults"
        else f"the code; `netcfg schema {kind}` prints the same JSON Schema (draft 2020-12), which editors "
        "read for completion ([Editor completion](../inventory.md#editor-completion))"
    )
    out = [
        f"# {titles[kind]} schema",
        "",
        f"Generated when the site is built from {source}. Unknown keys are refused.",
        "",
    ]
    out += _object_table("Top level", schema)
    for name in sorted(defs):
        if defs[name].get("properties"):
            out += _object_table(name, defs[name], anchor=name)
        elif "enum" in defs[name]:
            values = ", ".join(f"`{v}`" for v in defs[name]["enum"])
            out += [f"## {name} {{#{name}}}", "", f"One of {values}.", ""]
    out += [
        "## The schema itself",
        "",
        '??? note "JSON Schema"',
        "",
        "    ```json",
        *("    " + line for line in json.dumps(schema, indent=2).splitlines()),
        "    ```",
        "",
    ]
    return "\n".join(out)


def _object_table(title: str, node: dict[str, Any], anchor: str | None = None) -> list[str]:
    heading = f"## {title}" + (f" {{#{anchor}}}" if anchor else "")
    out = [heading, ""]
    if node.get("description") and anchor:
        out += [_one_line(node["description"]), ""]
    required = set(node.get("required", ()))
    out += ["| field | type | default | description |", "| --- | --- | --- | --- |"]
    for name, prop in node.get("properties", {}).items():
        default = "required" if name in required else _default(prop)
        out.append(f"| `{name}` | {_type(prop)} | {default} | {_one_line(prop.get('description', ''))} |")
    out.append("")
    return out


def _type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name})"
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " or ".join(_type(p) for p in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop.get('items', {}))}"
    if kind == "object" and "additionalProperties" in prop and isinstance(prop["additionalProperties"], dict):
        return f"map to {_type(prop['additionalProperties'])}"
    bounds = [
        f"≥ {prop['minimum']}" if "minimum" in prop else "",
        f"≤ {prop['maximum']}" if "maximum" in prop else "",
    ]
    extra = ", ".join(b for b in bounds if b)
    return f"{kind} ({extra})" if extra else str(kind)


def _default(prop: dict[str, Any]) -> str:
    if "default" not in prop:
        return ""
    text = json.dumps(prop["default"])
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
