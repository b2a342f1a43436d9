"""Read YAML into pydantic models, turning every mistake into an InputError with file and line.

Beyond what a YAML parser refuses, a user file is refused when it repeats a key (PyYAML would keep
the last one silently), uses a tag (`!!python/object` and friends), nests deeper than any inventory
needs, or expands through aliases into more nodes than any inventory has (a "billion laughs").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from netcfg.errors import InputError
from netcfg.files import MiB, read_text

M = TypeVar("M", bound=BaseModel)

# An explicit inventory of a 32,768-GPU fabric is about 2 MiB and 300,000 nodes.
MAX_YAML_BYTES = 16 * MiB
MAX_YAML_NODES = 5_000_000
_BASE_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


class _Loader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a mapping that names a key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[object, yaml.Node] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            if key in seen:
                raise _DuplicateKey(
                    problem=f"duplicate key {key!r} (first at line {seen[key].start_mark.line + 1})",
                    problem_mark=key_node.start_mark,
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


# A date-like scalar stays the text it is: PyYAML would build a date (and crash on 2026-13-01), where
# each schema reads its own dates (a waiver's `expires`) and names a bad one with its field.
_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def _expanded_size(root: yaml.Node) -> int:
    """Nodes the document has once every alias is expanded, without expanding anything."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if children_done or not children:
            sizes[id(node)] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[id(node)] > MAX_YAML_NODES:
                return sizes[id(node)]
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def read_yaml(path: Path, what: str = "YAML file") -> tuple[Any, yaml.Node | None]:
    """Parse a YAML file; return the data and its node tree (for line numbers)."""
    text = read_text(path, what, MAX_YAML_BYTES)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_size(node) > MAX_YAML_NODES:
            raise InputError(
                str(path),
                f"YAML aliases expand to more than {MAX_YAML_NODES:,} nodes; expected a plain {what}",
            )
        data = loader.construct_document(node) if node is not None else None
    except yaml.constructor.ConstructorError as exc:
        raise _yaml_error(path, exc, "expected plain YAML (mappings, lists and scalars; no tags)") from None
    except yaml.YAMLError as exc:
        raise _yaml_error(path, exc, "malformed YAML") from None
    except RecursionError:
        raise InputError(str(path), f"YAML nested too deeply; expected a {what}") from None
    finally:
        loader.dispose()
    return data, node


def _yaml_error(path: Path, exc: yaml.YAMLError, expected: str) -> InputError:
    mark = getattr(exc, "problem_mark", None)
    line = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    # An unbalanced bracket is noticed lines later: also say where the construct began.
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None and (mark is None or start.line != mark.line):
        problem = f"{problem}, {context} at line {start.line + 1}"
    if isinstance(exc, _DuplicateKey):
        return InputError(f"{path}{line}", f"{problem}; expected each key once")
    if isinstance(exc, yaml.constructor.ConstructorError):
        return InputError(f"{path}{line}", f"{problem}; {expected}")
    return InputError(f"{path}{line}", f"{expected} ({problem})")


def line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """1-based line of the value at `loc` in a composed YAML tree, or of its nearest parent."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == key), None)
            if match is None:
                key_node = next((k for k, _ in node.value if k.value == key), None)
                return key_node.start_mark.line + 1 if key_node is not None else line
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return line
        line = node.start_mark.line + 1
    return line


# pydantic error types whose message is clearer with the value that was given.
_TYPE_ERRORS = ("_type", "_parsing", "finite_number")


def _given(value: object) -> str:
    """A scalar as the YAML file spelled it, for 'got ...' in an error; '' for anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 24 else f"a {len(text)}-digit number"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else f"a {len(value)}-character string"
    return {dict: "a mapping", list: "a list"}.get(type(value), "")


def describe_validation_error(path: Path, node: yaml.Node | None, exc: ValidationError) -> InputError:
    """The first schema error as an InputError naming file, line and field."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    field = ".".join(str(p) for p in loc) or "(top level)"
    line = line_of(node, loc)
    if err["type"] == "extra_forbidden":
        # pydantic puts the unknown key itself at the end of loc.
        expected = f"unknown key {loc[-1]!r}"
    elif err["type"] == "missing":
        expected = "required field is missing"
    else:
        expected = err["msg"].removeprefix("Value error, ")
        given = _given(err.get("input")) if err["type"].endswith(_TYPE_ERRORS) else ""
        if given:
            expected = f"{expected} (got {given})"
        if err["type"] == "string_type" and isinstance(err.get("input"), int | float):
            # YAML reads 4.30 as the number 4.3: a version or name must be quoted to stay as written.
            expected += "; quote it to keep it as written"
    where = f"{path}:{line}" if line else str(path)
    return InputError(f"{where}: {field}", expected)


def load_model(path: Path, model: type[M], what: str = "YAML file", context: object = None) -> M:
    """A YAML file validated as `model`; `context` reaches the model's validators (`info.context`)."""
    data, node = read_yaml(path, what)
    if data is None:
        raise InputError(str(path), f"{what} is empty; expected a mapping at the top level")
    if not isinstance(data, dict):
        raise InputError(str(path), f"expected a mapping at the top level, got {type(data).__name__}")
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise describe_validation_error(path, node, exc) from None
