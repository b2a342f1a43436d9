"""The two forms of an NVUE configuration as (line number, "set ...") pairs: `nv set` lines (as
`nv config show -o commands` prints them and `nv config replace` takes them) and the startup.yaml tree
(`nv config show`, /etc/nvue.d/startup.yaml), where each path from `set` to a leaf is one command."""

from __future__ import annotations

import re

import yaml

from netcfg.platforms.cumulus.tree import Unreadable


def looks_like_yaml(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip() and not line.startswith("#")), "")
    return first.startswith("- ")


def command_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or line == "nv config apply":
            continue
        if line.startswith("nv set "):
            out.append((number, line[len("nv ") :]))
        elif line.startswith("nv unset "):
            raise Unreadable(
                number, "an 'nv unset' line; expected the applied configuration as 'nv set' lines"
            )
        else:
            raise Unreadable(number, f"not an NVUE configuration: {_what(line, text)}")
    if not out:
        raise Unreadable(1, "not an NVUE configuration: no 'nv set' line")
    return out


def _what(line: str, text: str) -> str:
    """What a foreign line shows the text to be, for the one-line error."""
    if re.search(r"^(?:traffic|pfc|ecn_red|priority_group)\.\S+ *=", text, re.M):
        return "a Cumulus Linux 3.x/4.x traffic.conf (Cumulus 5 configures QoS through NVUE)"
    if line.startswith(("{", "[")):
        return "a JSON document"
    if line.startswith(("interface ", "!", "hostname ")):
        return "a CLI config line (EOS or similar)"
    return f"expected 'nv set ...', found {line[:40]!r}"


class YamlLines(list[tuple[int, str]]):
    version: str | None = None
    model: str | None = None


def yaml_lines(text: str) -> YamlLines:
    """startup.yaml (`nv config show`) as `set ...` lines: each path from `set` to a leaf is a command."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise Unreadable(
            mark.line + 1 if mark else 1, f"malformed YAML ({getattr(exc, 'problem', exc)})"
        ) from None
    except RecursionError:
        raise Unreadable(1, "YAML nested too deeply for an NVUE configuration") from None
    if not isinstance(root, yaml.SequenceNode):
        raise Unreadable(1, "not an NVUE configuration: expected a YAML list of '- header:' and '- set:'")
    out = YamlLines()
    try:
        _set_items(root, out)
    except RecursionError:
        raise Unreadable(1, "YAML nested too deeply for an NVUE configuration") from None
    if not any(line != "set" for _, line in out):
        raise Unreadable(1, "not an NVUE configuration: no '- set:' item")
    return out


def _set_items(root: yaml.SequenceNode, out: YamlLines) -> None:
    seen: set[int] = set()
    for item in root.value:
        if not isinstance(item, yaml.MappingNode):
            raise Unreadable(item.start_mark.line + 1, "expected '- header:' or '- set:' items")
        for key, value in item.value:
            if key.value == "set":
                _flatten(value, ["set"], out, seen)
            elif key.value == "header" and isinstance(value, yaml.MappingNode):
                header = {k.value: v.value for k, v in value.value if isinstance(v, yaml.ScalarNode)}
                out.version = version_of(str(header.get("version", "")))
                out.model = header.get("model")
            else:
                raise Unreadable(key.start_mark.line + 1, f"expected 'header' or 'set', found {key.value!r}")


def _flatten(
    node: yaml.Node, path: list[str], out: list[tuple[int, str]], seen: set[int], line: int = 1
) -> None:
    """Each path from `set` to a leaf as one line; `line` is where the path's last key stands."""
    if id(node) in seen:
        # NVUE writes no anchors; a repeated node is an alias, which could expand without bound.
        raise Unreadable(line, "YAML alias; NVUE configurations have none")
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode) and node.value:
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise Unreadable(key.start_mark.line + 1, "a YAML key that is not a name")
            _flatten(value, [*path, str(key.value)], out, seen, key.start_mark.line + 1)
    elif isinstance(node, yaml.MappingNode):
        out.append((node.start_mark.line + 1, " ".join(path)))
    elif isinstance(node, yaml.ScalarNode):
        value = node.value if " " not in node.value else f"'{node.value}'"
        out.append((node.start_mark.line + 1, " ".join([*path, value]) if value else " ".join(path)))
    else:
        raise Unreadable(node.start_mark.line + 1, "a YAML list inside 'set'; NVUE configurations have none")


def version_of(text: str) -> str | None:
    found = re.search(r"(\d+\.\d+(?:\.\d+)*)", text)
    return found.group(1) if found else None
