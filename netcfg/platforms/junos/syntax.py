"""A Junos config as statements: paths of words, each with the line it was written on.

Junos prints one configuration tree in two forms: `show configuration | display set` gives one
`set <path>` line per leaf, `show configuration` (and most files kept in repositories) the same tree
in braces. Both become the same `Statement`s here, so one reader handles both and every setting
keeps its line for file:line findings. What the device would not apply is left out: `inactive:`
blocks and `deactivate`d paths, `delete`d paths, and groups nobody applies; groups that are applied
are expanded where `apply-groups` applies them.

Anything no Junos config holds (EOS or NX-OS lines, JSON, YAML, Markdown prose) is `foreign`: one
line and what is wrong with it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

# Tokens: a quoted string, a comment, punctuation, or a bare word.
_TOKEN = re.compile(
    r'(?P<quoted>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<block_comment>/\*.*?\*/)"
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<punct>[{};\[\]])"
    r"|(?P<word>[^\s{};\[\]\"#]+)"
    r"|(?P<newline>\n)"
    r"|(?P<space>[ \t\r\f\v]+)"
    r"|(?P<other>.)",
    re.S,
)
_SET_VERBS = frozenset({"set", "deactivate", "activate", "delete"})
# Markers Junos puts before a statement in the brace form; only `inactive:` changes what applies.
_MARKERS = frozenset({"protect:", "replace:", "inactive:"})
# Junos' deepest hierarchies are about a dozen levels and a few dozen words. Without a bound every
# statement copies the path of the blocks it is in, so a text of nothing but `a {` lines would take
# memory growing with the square of its length.
MAX_DEPTH = 64
MAX_PATH_WORDS = 256


@dataclass(frozen=True, slots=True)
class Statement:
    path: tuple[str, ...]
    line: int


@dataclass(slots=True)
class ConfigText:
    statements: list[Statement] = field(default_factory=list)
    # (line, why) when the text is not a Junos config, or not a whole one.
    foreign: tuple[int, str] | None = None
    last_line: int = 0


class _NotJunos(Exception):
    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line, self.why = line, why


def read_config(text: str) -> ConfigText:
    """The statements of a config in either form; `foreign` says why a text is not (wholly) one.

    A brace config whose blocks are not all closed (a fragment, or output cut short) keeps the
    statements read up to its end and says which block is open: the device would refuse to load it.
    """
    config = ConfigText(last_line=text.count("\n") + (0 if text.endswith("\n") else 1))
    try:
        tokens = list(_tokens(text))
        words = [t for t in tokens if t[0] != "\n"]
        if not words:
            raise _NotJunos(1, "no Junos statement found")
        first_line = words[0][1]
        set_form = words[0][0] in _SET_VERBS
        raw = _set_statements(tokens) if set_form else _brace_statements(tokens, config)
        if not raw and config.foreign is None:
            raise _NotJunos(first_line, "no Junos statement found")
    except _NotJunos as exc:
        config.foreign = (exc.line, exc.why)
        return config
    config.statements, wildcard = _apply_groups(raw)
    if wildcard is not None and config.foreign is None:
        config.foreign = (
            wildcard,
            "an applied group with '<...>' wildcards: collect it with "
            "'| display inheritance' to have Junos expand it",
        )
    return config


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """(token, line) pairs; newlines are kept as "\\n" tokens, comments and spaces dropped."""
    if "/*" not in text:
        # Nothing then spans lines (quoted strings never do), and the lines of a fabric's switches
        # repeat from one switch to the next: each distinct line is tokenised once.
        lines = text.split("\n")
        for number, line in enumerate(lines, 1):
            words, bad = _line_tokens(line)
            if bad is not None:
                raise _NotJunos(number, f"unexpected character {bad!r}")
            for word in words:
                yield word, number
            if number < len(lines):
                yield "\n", number
        return
    line = 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        value = match.group()
        if kind == "newline":
            yield "\n", line
            line += 1
        elif kind in ("block_comment", "comment", "space"):
            line += value.count("\n")
        elif kind == "quoted":
            yield value, line
        elif kind == "other":
            raise _NotJunos(line, f"unexpected character {value!r}")
        else:
            yield value, line


@lru_cache(maxsize=65536)
def _line_tokens(line: str) -> tuple[tuple[str, ...], str | None]:
    """The tokens of one line with no block comment, and the first character no token takes."""
    words = []
    for match in _TOKEN.finditer(line):
        kind = match.lastgroup
        if kind == "other":
            return tuple(words), match.group()
        if kind not in ("comment", "space", "block_comment"):
            words.append(match.group())
    return tuple(words), None


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] == token[-1] == '"':
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return token


def _expand(words: list[str | list[str]], line: int) -> list[tuple[str, ...]]:
    """`code-points [ 000000 000001 ]` -> one path per list element, as display set prints them.

    Junos takes one list per statement, as its last value: each further list would multiply the
    paths (forty two-element lists, 2^40)."""
    if sum(isinstance(w, list) for w in words) > 1:
        raise _NotJunos(line, "a second '[ ... ]' list in one statement; expected at most one")
    choices = [w if isinstance(w, list) else [w] for w in words]
    return [tuple(p) for p in itertools.product(*choices)]


def _set_statements(tokens: list[tuple[str, int]]) -> list[tuple[tuple[str, ...], int, str]]:
    """(path, line, verb) per line of the display-set form."""
    out = []
    for number, group in itertools.groupby(tokens, key=lambda t: t[1]):
        words = [t for t, _ in group if t != "\n"]
        if not words:
            continue
        verb = words[0]
        if verb not in _SET_VERBS:
            raise _NotJunos(number, f"{_shown(words)} is not a set, delete or deactivate line")
        if "{" in words or "}" in words or ";" in words:
            raise _NotJunos(number, "braces in a display-set config (one form per file)")
        path = _list_words(words[1:], number)
        if not path:
            raise _NotJunos(number, f"'{verb}' with no configuration path")
        _bounded(len(path), number)
        out += [(p, number, verb) for p in _expand(path, number)]
    return _resolve_verbs(out)


def _bounded(words: int, line: int) -> None:
    if words > MAX_PATH_WORDS:
        raise _NotJunos(line, f"a statement of more than {MAX_PATH_WORDS} words; expected a Junos config")


def _list_words(words: list[str], line: int) -> list[str | list[str]]:
    out: list[str | list[str]] = []
    current: list[str] | None = None
    for word in words:
        if word == "[":
            if current is not None:
                raise _NotJunos(line, "a list inside a list")
            current = []
        elif word == "]":
            if current is None:
                raise _NotJunos(line, "']' with no '['")
            out.append(current)
            current = None
        elif current is not None:
            current.append(_unquote(word))
        else:
            out.append(_unquote(word))
    if current is not None:
        raise _NotJunos(line, "'[' with no ']'")
    return out


def _resolve_verbs(
    raw: list[tuple[tuple[str, ...], int, str]],
) -> list[tuple[tuple[str, ...], int, str]]:
    """Apply `delete` and `deactivate`/`activate` lines in order: what remains is what applies."""
    statements: list[tuple[tuple[str, ...], int]] = []
    inactive: list[tuple[str, ...]] = []
    for path, line, verb in raw:
        if verb == "set":
            statements.append((path, line))
        elif verb == "delete":
            statements = [(p, n) for p, n in statements if p[: len(path)] != path]
        elif verb == "deactivate":
            inactive.append(path)
        else:
            inactive = [p for p in inactive if p != path]
    return [(p, n, "set") for p, n in statements if not any(p[: len(off)] == off for off in inactive)]


def _brace_statements(
    tokens: list[tuple[str, int]], config: ConfigText
) -> list[tuple[tuple[str, ...], int, str]]:
    out: list[tuple[tuple[str, ...], int, str]] = []
    # Open blocks: (path prefix, inactive, line it opened on).
    stack: list[tuple[tuple[str, ...], bool, int]] = []
    words: list[str | list[str]] = []
    start = 0
    in_list: list[str] | None = None
    for token, line in tokens:
        if token == "\n":
            if words and in_list is None:
                raise _NotJunos(start, f"{_shown(words)} does not end with ';' or '{{'")
            continue
        if in_list is not None:
            if token == "]":
                words.append(in_list)
                in_list = None
            elif token in "{};[":
                raise _NotJunos(line, f"{token!r} inside a '[ ... ]' list")
            else:
                in_list.append(_unquote(token))
            continue
        if token == "[":
            in_list = []
        elif token == "]":
            raise _NotJunos(line, "']' with no '['")
        elif token in ";{":
            if not words:
                what = "a JSON document" if token == "{" and not stack else f"{token!r} with no statement"
                raise _NotJunos(line, what)
            prefix = stack[-1][0] if stack else ()
            off = bool(stack and stack[-1][1])
            inactive = words[0] == "inactive:"
            words = [w for w in words if not (isinstance(w, str) and w in _MARKERS)]
            if token == "{":
                if len(words) != sum(1 for w in words if isinstance(w, str)):
                    raise _NotJunos(start, "a '[ ... ]' list before '{'")
                if len(stack) == MAX_DEPTH:
                    too_deep = f"blocks nested more than {MAX_DEPTH} deep; expected a Junos config"
                    raise _NotJunos(start, too_deep)
                _bounded(len(prefix) + len(words), start)
                stack.append((prefix + tuple(str(w) for w in words), off or inactive, start))
            elif not (off or inactive):
                _bounded(len(prefix) + len(words), start)
                out += [(prefix + p, start, "set") for p in _expand(words, start)]
            words = []
        elif token == "}":
            if words:
                raise _NotJunos(start, f"{_shown(words)} does not end with ';' or '{{'")
            if not stack:
                raise _NotJunos(line, "'}' closes no block")
            stack.pop()
        else:
            if not words:
                start = line
            words.append(_unquote(token))
    if words or in_list is not None:
        raise _NotJunos(start, f"{_shown(words)} does not end with ';' or '{{'")
    if stack:
        path, _, opened = stack[0]
        config.foreign = (opened, f"{_shown([*path, '{'])} is never closed (a fragment, or cut short)")
    return out


def _apply_groups(
    raw: list[tuple[tuple[str, ...], int, str]],
) -> tuple[list[Statement], int | None]:
    """Statements with `groups` removed and applied groups expanded where `apply-groups` stands, and
    the line of an applied group statement with wildcards (`<et-*>`), which netcfg does not expand.

    Junos lets explicit statements override inherited ones: inherited statements come first, so a
    reader that keeps the last value of a setting keeps the explicit one."""
    groups: dict[str, list[Statement]] = {}
    plain: list[Statement] = []
    applied: list[tuple[tuple[str, ...], str]] = []
    for path, line, _ in raw:
        if path[0] == "groups" and len(path) > 2:
            groups.setdefault(path[1], []).append(Statement(path[2:], line))
        elif path[-2:-1] == ("apply-groups",):
            applied.append((path[:-2], path[-1]))
        else:
            plain.append(Statement(path, line))
    inherited = [
        s for prefix, name in applied for s in groups.get(name, ()) if s.path[: len(prefix)] == prefix
    ]
    wildcard = next((s.line for s in inherited if any(w.startswith("<") for w in s.path)), None)
    return inherited + plain, wildcard


def _shown(words: list) -> str:
    """The words of a statement as an error quotes them (`sources.withhold_secrets` replaces a
    reason that quotes a secret before anyone sees it)."""
    text = " ".join(w if isinstance(w, str) else "[ " + " ".join(w) + " ]" for w in words)
    return repr(text if len(text) <= 60 else text[:57] + "...")
