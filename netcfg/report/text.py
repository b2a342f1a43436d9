"""Device text made safe to show: what a device prints (a description, an LLDP neighbour's name, the
line a parser could not read) goes into terminals, Markdown, JUnit XML and HTML, and must act in none.

Control characters would act on a terminal (ESC starts an escape sequence, CR rewrites the line,
BEL rings) and make a JUnit file invalid XML (XML 1.0 allows no C0 control but tab and newline);
bidirectional overrides make a terminal or a web page show text in another order than it reads.
Each is shown as its escape (`\\x1b`, `\\u202e`), so the reader sees that the device printed it.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL and C1, the bidirectional marks, embeddings, overrides and
# isolates, and the two non-characters XML forbids.
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
# What Markdown (and the HTML it may hold) reads as markup in a table cell's text.
_MARKDOWN = re.compile(r"[\\`*_\[\]<>|~!#&]")


def neutral(text: str) -> str:
    """`text` with every character that acts on a reader's screen or file shown as its escape."""
    return _UNSAFE.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)


def markdown_text(text: str) -> str:
    """Neutral text as one line of a Markdown table cell, its markup characters escaped."""
    return _MARKDOWN.sub(r"\\\g<0>", neutral(text)).replace("\n", " ")


def markdown_code(text: str) -> str:
    """Neutral text inside a Markdown code span of a table cell: backslash escapes do not work
    there, and a `|` still ends the cell unless escaped."""
    return neutral(text).replace("|", "\\|").replace("`", "'").replace("\n", " ")
