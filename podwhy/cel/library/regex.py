"""Regular expressions as cel-go and the Kubernetes regex library match them: RE2, worded as Go."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

from podwhy.cel.errors import CelError

# cel-go matches with Go's regexp package, which implements RE2 syntax and semantics (no
# backreferences or lookaround; `$` matches only at the very end of the text). RE2 proper
# accepts the same language; its error codes are reworded as Go words them.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
_GO_REGEX_ERRORS = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
}


class RegexSyntaxError(Exception):
    """A pattern Go's regexp package rejects; the message is Go's `error parsing regexp: ...`."""


@lru_cache(maxsize=1024)
def compile_regex(pattern: str) -> Any:
    """Compile an RE2 pattern, raising RegexSyntaxError with Go's wording."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        if text.startswith("trailing \\"):
            raise RegexSyntaxError("error parsing regexp: trailing backslash at end of expression: ``") from None
        code, _, expr = text.partition(": ")
        raise RegexSyntaxError(f"error parsing regexp: {_GO_REGEX_ERRORS.get(code, code)}: `{expr}`") from None


def matches(s: str, pattern: str) -> bool:
    try:
        regex = compile_regex(pattern)
    except RegexSyntaxError as exc:
        raise CelError(str(exc)) from None
    return regex.search(s) is not None


def find_regex(pattern: str) -> Any:
    """The k8s regex library (find, findAll) words a bad pattern as "Illegal regex: ..."."""
    try:
        return compile_regex(pattern)
    except RegexSyntaxError as exc:
        raise CelError(f"Illegal regex: {exc}") from None


def find_all(regex: Any, s: str, limit: int) -> list[str]:
    """Go's FindAllString: successive non-overlapping matches; an empty match right after the
    previous match is dropped (Python's finditer keeps it)."""
    found: list[str] = []
    if limit < 0:
        limit = len(s) + 1
    pos = 0
    prev_end = -1
    while len(found) < limit and pos <= len(s):
        match = regex.search(s, pos)
        if match is None:
            break
        start, end = match.span()
        accept = True
        if end == start:
            accept = start != prev_end
            pos = end + 1
        else:
            pos = end
        prev_end = end
        if accept:
            found.append(match.group(0))
    return found
