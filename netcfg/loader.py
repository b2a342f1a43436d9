"""Read YAML into pydantic models, turning every mistake into an InputError with file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from netcfg.errors import InputError

M = TypeVar("M", bound=BaseModel)


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """Parse a YAML file; return the data and its node tree (for line numbers)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(str(path), "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot read file ({exc.__class__.__name__})") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        # An unbalanced bracket is noticed lines later: also say where the construct began.
        context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and start is not None and (mark is None or start.line != mark.line):
            problem = f"{problem}, {context} at line {start.line + 1}"
        raise InputError(f"{path}{line}", f"malformed YAML ({problem})") from None
    return data, node


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


def describe_validation_error(path: Path, node: yaml.Node | None, exc: ValidationError) -> InputError:
    """The first schema error as an InputError naming file, line and field."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    field = ".".join(str(p) for p in loc) or "(top level)"
    if err["type"] == "extra_forbidden":
        # pydantic puts the unknown key itself at the end of loc.
        line = line_of(node, loc)
        expected = f"unknown key {loc[-1]!r}"
    else:
        line = line_of(node, loc)
        expected = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            expected = "required field is missing"
    where = f"{path}:{line}" if line else str(path)
    return InputError(f"{where}: {field}", expected)


def load_model(path: Path, model: type[M]) -> M:
    data, node = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError(str(path), f"expected a mapping at the top level, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise describe_validation_error(path, node, exc) from None
