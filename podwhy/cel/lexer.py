"""CEL's tokens: literals (with escapes, raw and bytes prefixes), identifiers, punctuation."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from podwhy.cel.errors import CelCompileError
from podwhy.cel.values import UINT64_MAX, UInt

_PUNCT = (
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "<",
    ">",
    "!",
    "+",
    "-",
    "*",
    "/",
    "%",
    "?",
    ":",
    ".",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
)
RESERVED = frozenset(
    "as break const continue else for function if import let loop package namespace return var void while".split()
)
_NUMBER_RE = re.compile(r"0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?[uU]?|\d+[eE][+-]?\d+")
_IDENT_RE = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}


class Token(msgspec.Struct, frozen=True):
    kind: str  # "num", "str", "bytes", "ident", "punct", "eof"
    value: Any
    pos: int


def _unescape(body: str, raw: bool, pos: int, as_bytes: bool) -> str | bytes:
    """A literal's value. In a bytes literal, characters are UTF-8 encoded and hex or octal
    escapes are single bytes; in a string, those escapes are code points."""
    if raw:
        return body.encode("utf-8") if as_bytes else body
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8", "surrogatepass")
            i += 1
            continue
        i += 1
        if i >= len(body):
            raise CelCompileError(f"invalid escape at {pos}")
        esc = body[i]
        if esc in _ESCAPES:
            out += _ESCAPES[esc].encode("utf-8")
            i += 1
            continue
        if esc in "xX":
            digits, base = body[i + 1 : i + 3], 16
        elif esc in "uU" and not as_bytes:
            digits, base = body[i + 1 : i + (5 if esc == "u" else 9)], 16
        elif esc in "0123":
            digits, base = body[i : i + 3], 8
            i -= 1
        else:
            raise CelCompileError(f"invalid escape sequence \\{esc} at {pos}")
        try:
            code = int(digits, base)
        except ValueError:
            raise CelCompileError(f"invalid escape sequence at {pos}") from None
        i += 1 + len(digits)
        if as_bytes:
            out.append(code)
        elif 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            raise CelCompileError(f"invalid unicode code point at {pos}")
        else:
            out += chr(code).encode("utf-8")
    if as_bytes:
        return bytes(out)
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise CelCompileError(f"invalid string literal at {pos}") from None


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r\n\f":
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        # string and bytes literals, with r/b prefixes
        prefix_match = re.match(r"(?:[rR][bB]?|[bB][rR]?)?(?=['\"])", text[i:])
        if prefix_match is not None and i + prefix_match.end() < n and text[i + prefix_match.end()] in "'\"":
            prefix = prefix_match.group(0).lower()
            j = i + len(prefix)
            quote = text[j : j + 3] if text[j : j + 3] in ('"""', "'''") else text[j]
            k = j + len(quote)
            while True:
                if k >= n:
                    raise CelCompileError(f"unterminated string literal at {i}")
                if text[k] == "\\" and "r" not in prefix:
                    k += 2
                    continue
                if text.startswith(quote, k):
                    break
                if len(quote) == 1 and text[k] == "\n":
                    raise CelCompileError(f"unterminated string literal at {i}")
                k += 1
            body = _unescape(text[j + len(quote) : k], "r" in prefix, i, "b" in prefix)
            tokens.append(Token("bytes" if "b" in prefix else "str", body, i))
            i = k + len(quote)
            continue
        if ch.isdigit() or (ch == "." and i + 1 < n and text[i + 1].isdigit()):
            num_match = _NUMBER_RE.match(text, i)
            if num_match is None:  # pragma: no cover - the first character is a digit
                raise CelCompileError(f"bad number at {i}")
            lit = num_match.group(0)
            tokens.append(Token("num", _number(lit, i), i))
            i = num_match.end()
            continue
        ident = _IDENT_RE.match(text, i)
        if ident is not None:
            tokens.append(Token("ident", ident.group(0), i))
            i = ident.end()
            continue
        for p in _PUNCT:
            if text.startswith(p, i):
                tokens.append(Token("punct", p, i))
                i += len(p)
                break
        else:
            raise CelCompileError(f"Syntax error: token recognition error at: '{ch}'")
    tokens.append(Token("eof", None, n))
    return tokens


def _number(lit: str, pos: int) -> Any:
    unsigned = lit[-1] in "uU"
    body = lit[:-1] if unsigned else lit
    if body[:2].lower() == "0x":
        value: int | float = int(body, 16)
    elif any(c in body for c in ".eE"):
        if unsigned:
            raise CelCompileError(f"invalid uint literal at {pos}")
        return float(body)
    else:
        value = int(body)
    if unsigned:
        if value > UINT64_MAX:
            raise CelCompileError(f"invalid uint literal at {pos}")
        return UInt(value)
    # int64 range is checked by the parser, which sees a leading minus sign.
    return int(value)
