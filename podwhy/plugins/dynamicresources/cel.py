"""A small CEL evaluator for DRA device selectors (k8s.io/dynamic-resource-allocation/cel).

Covers the CEL subset device selectors use: literals, lists and maps, the usual operators
with CEL's error-absorbing `&&`/`||`, member access and indexing, `in`, the ternary,
the `has()`, `all`/`exists`/`exists_one`/`map`/`filter` and `cel.bind` macros, string
functions, and the Kubernetes `quantity()` and `semver()` libraries.

Runtime errors are raised as CelError with cel-go's wording ("no such key: x", ...),
because the allocator surfaces them verbatim in the Filter status.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import total_ordering
from typing import Any

from podwhy.model.quantity import QuantityError, parse_quantity

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1

NO_SUCH_OVERLOAD = "no such overload"


class CelError(Exception):
    """A CEL runtime error (an error value in CEL terms)."""

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class CelCompileError(Exception):
    """The expression does not parse (or uses something this evaluator lacks)."""


# ------------------------------------------------------------------ value types


class UInt(int):
    """CEL uint: kept apart from int for typing; arithmetic results are re-wrapped."""


@total_ordering
class Quantity:
    """A Kubernetes resource.Quantity as the CEL quantity library sees it."""

    __slots__ = ("amount",)

    def __init__(self, amount: Fraction) -> None:
        self.amount = amount

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.amount == other.amount

    def __lt__(self, other: Quantity) -> bool:
        return self.amount < other.amount

    def __hash__(self) -> int:
        return hash(self.amount)

    def __repr__(self) -> str:
        return f"Quantity({self.amount})"


_SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


@dataclass(frozen=True)
class Semver:
    """A semantic version (blang/semver): build metadata does not take part in comparisons."""

    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Semver:
        match = _SEMVER_RE.match(text)
        if match is None:
            raise ValueError(f"invalid semantic version {text!r}")
        pre = tuple(match[4].split(".")) if match[4] else ()
        build = tuple(match[5].split(".")) if match[5] else ()
        return cls(int(match[1]), int(match[2]), int(match[3]), pre, build)

    def compare(self, other: Semver) -> int:
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return -1 if a < b else 1
        if not self.pre or not other.pre:
            if self.pre == other.pre:
                return 0
            return 1 if not self.pre else -1
        for a_id, b_id in zip(self.pre, other.pre, strict=False):
            if a_id == b_id:
                continue
            a_num, b_num = a_id.isdigit(), b_id.isdigit()
            if a_num and b_num:
                return -1 if int(a_id) < int(b_id) else 1
            if a_num != b_num:
                return -1 if a_num else 1
            return -1 if a_id < b_id else 1
        if len(self.pre) == len(other.pre):
            return 0
        return -1 if len(self.pre) < len(other.pre) else 1


class DefaultingMap(dict[str, Any]):
    """The device.attributes / device.capacity maps: unknown domains read as an empty map."""

    def lookup(self, key: Any) -> Any:
        return self.get(key, {})


# ------------------------------------------------------------------ lexer

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
_RESERVED = frozenset(
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


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "str", "bytes", "ident", "punct", "eof"
    value: Any
    pos: int


def _unescape(body: str, raw: bool, pos: int) -> str:
    if raw:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        i += 1
        if i >= len(body):
            raise CelCompileError(f"invalid escape at {pos}")
        esc = body[i]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            i += 1
        elif esc in "xX":
            out.append(chr(int(body[i + 1 : i + 3], 16)))
            i += 3
        elif esc == "u":
            out.append(chr(int(body[i + 1 : i + 5], 16)))
            i += 5
        elif esc == "U":
            out.append(chr(int(body[i + 1 : i + 9], 16)))
            i += 9
        elif esc in "0123":
            out.append(chr(int(body[i : i + 3], 8)))
            i += 3
        else:
            raise CelCompileError(f"invalid escape sequence \\{esc} at {pos}")
    return "".join(out)


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
            body = _unescape(text[j + len(quote) : k], "r" in prefix, i)
            if "b" in prefix:
                tokens.append(Token("bytes", body.encode("latin-1", errors="replace"), i))
            else:
                tokens.append(Token("str", body, i))
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


# ------------------------------------------------------------------ AST


class Node:
    __slots__ = ()


@dataclass(frozen=True)
class Lit(Node):
    value: Any


@dataclass(frozen=True)
class Ident(Node):
    name: str


@dataclass(frozen=True)
class Select(Node):
    operand: Node
    field: str
    test_only: bool = False


@dataclass(frozen=True)
class Index(Node):
    operand: Node
    index: Node


@dataclass(frozen=True)
class Call(Node):
    target: Node | None
    function: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class MapLit(Node):
    entries: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Logical(Node):
    op: str  # "&&" or "||"
    terms: tuple[Node, ...]


@dataclass(frozen=True)
class Cond(Node):
    cond: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True)
class Comprehension(Node):
    macro: str  # all, exists, exists_one, map, filter
    target: Node
    var: str
    filter: Node | None
    body: Node


@dataclass(frozen=True)
class Bind(Node):
    var: str
    init: Node
    body: Node


# ------------------------------------------------------------------ parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def at(self, value: str) -> bool:
        tok = self.tokens[self.i]
        return tok.kind == "punct" and tok.value == value

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, value: str) -> None:
        tok = self.take()
        if tok.kind != "punct" or tok.value != value:
            raise CelCompileError(f"Syntax error: expected '{value}' at {tok.pos}")

    def parse(self) -> Node:
        node = self.expr()
        if self.peek().kind != "eof":
            raise CelCompileError(f"Syntax error: unexpected input at {self.peek().pos}")
        return node

    def expr(self) -> Node:
        cond = self.logical("||")
        if self.at("?"):
            self.take()
            then = self.logical("||")
            self.expect(":")
            otherwise = self.expr()
            return Cond(cond, then, otherwise)
        return cond

    def logical(self, op: str) -> Node:
        terms = [self._logical_term(op)]
        while self.at(op):
            self.take()
            terms.append(self._logical_term(op))
        return terms[0] if len(terms) == 1 else Logical(op, tuple(terms))

    def _logical_term(self, op: str) -> Node:
        return self.logical("&&") if op == "||" else self.relation()

    def relation(self) -> Node:
        node = self.addition()
        while True:
            tok = self.peek()
            if tok.kind == "punct" and tok.value in ("==", "!=", "<", "<=", ">", ">="):
                self.take()
                node = Binary(tok.value, node, self.addition())
            elif tok.kind == "ident" and tok.value == "in":
                self.take()
                node = Binary("in", node, self.addition())
            else:
                return node

    def addition(self) -> Node:
        node = self.multiplication()
        while self.at("+") or self.at("-"):
            op = self.take().value
            node = Binary(op, node, self.multiplication())
        return node

    def multiplication(self) -> Node:
        node = self.unary()
        while self.at("*") or self.at("/") or self.at("%"):
            op = self.take().value
            node = Binary(op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.at("!"):
            self.take()
            return Unary("!", self.unary())
        if self.at("-"):
            self.take()
            tok = self.peek()
            if tok.kind == "num" and not isinstance(tok.value, UInt) and not self._followed_by_member():
                self.take()
                value = -tok.value
                if isinstance(value, int) and value < INT64_MIN:
                    raise CelCompileError(f"invalid int literal at {tok.pos}")
                return Lit(value)
            return Unary("-", self.unary())
        return self.member()

    def _followed_by_member(self) -> bool:
        nxt = self.tokens[self.i + 1]
        return nxt.kind == "punct" and nxt.value in (".", "[")

    def member(self) -> Node:
        node = self.primary()
        while True:
            if self.at("."):
                self.take()
                tok = self.take()
                if tok.kind != "ident":
                    raise CelCompileError(f"Syntax error: expected identifier at {tok.pos}")
                if self.at("("):
                    args = self.call_args()
                    node = self.method(node, tok.value, args)
                else:
                    node = Select(node, tok.value)
            elif self.at("["):
                self.take()
                index = self.expr()
                self.expect("]")
                node = Index(node, index)
            else:
                return node

    def call_args(self) -> tuple[Node, ...]:
        self.expect("(")
        args: list[Node] = []
        if not self.at(")"):
            args.append(self.expr())
            while self.at(","):
                self.take()
                args.append(self.expr())
        self.expect(")")
        return tuple(args)

    def method(self, target: Node, name: str, args: tuple[Node, ...]) -> Node:
        if name in ("all", "exists", "exists_one", "map", "filter") and args and isinstance(args[0], Ident):
            var = args[0].name
            if name == "map" and len(args) == 3:
                return Comprehension("map", target, var, args[1], args[2])
            if len(args) != 2:
                raise CelCompileError(f"wrong number of arguments for macro {name}")
            return Comprehension(name, target, var, None, args[1])
        if name == "bind" and isinstance(target, Ident) and target.name == "cel":
            if len(args) != 3 or not isinstance(args[0], Ident):
                raise CelCompileError("cel.bind() variable name must be a simple identifier")
            return Bind(args[0].name, args[1], args[2])
        return Call(target, name, args)

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind in ("num", "str", "bytes"):
            if tok.kind == "num" and isinstance(tok.value, int) and not isinstance(tok.value, UInt):
                if tok.value > INT64_MAX:
                    raise CelCompileError(f"invalid int literal at {tok.pos}")
            return Lit(tok.value)
        if tok.kind == "ident":
            name = tok.value
            if name == "true":
                return Lit(True)
            if name == "false":
                return Lit(False)
            if name == "null":
                return Lit(None)
            if name in _RESERVED or name == "in":
                raise CelCompileError(f"Syntax error: reserved identifier: {name}")
            if self.at("("):
                args = self.call_args()
                if name == "has":
                    if len(args) != 1 or not isinstance(args[0], Select):
                        raise CelCompileError("invalid argument to has() macro")
                    sel = args[0]
                    return Select(sel.operand, sel.field, test_only=True)
                return Call(None, name, args)
            return Ident(name)
        if tok.kind == "punct":
            if tok.value == "(":
                node = self.expr()
                self.expect(")")
                return node
            if tok.value == "[":
                items: list[Node] = []
                while not self.at("]"):
                    items.append(self.expr())
                    if not self.at(","):
                        break
                    self.take()
                self.expect("]")
                return ListLit(tuple(items))
            if tok.value == "{":
                entries: list[tuple[Node, Node]] = []
                while not self.at("}"):
                    key = self.expr()
                    self.expect(":")
                    entries.append((key, self.expr()))
                    if not self.at(","):
                        break
                    self.take()
                self.expect("}")
                return MapLit(tuple(entries))
            if tok.value == ".":
                ident = self.take()
                if ident.kind != "ident":
                    raise CelCompileError(f"Syntax error: expected identifier at {ident.pos}")
                return Ident(ident.value)
        raise CelCompileError(f"Syntax error: mismatched input at {tok.pos}")


def parse(expression: str) -> Node:
    return _Parser(expression).parse()


# ------------------------------------------------------------------ evaluation helpers


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, UInt):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if value is None:
        return "null_type"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, Quantity):
        return "kubernetes.Quantity"
    if isinstance(value, Semver):
        return "kubernetes.Semver"
    return type(value).__name__


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_int(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise CelError("integer overflow")
    return value


def _check_uint(value: int) -> UInt:
    if value < 0 or value > UINT64_MAX:
        raise CelError("unsigned integer overflow")
    return UInt(value)


def cel_equal(a: Any, b: Any) -> bool:
    """CEL heterogeneous equality: numbers compare by value, other kinds must match."""
    if a is None or b is None:
        return a is None and b is None
    if _is_number(a) and _is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            return False
        return Fraction(a) == Fraction(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (Quantity, Semver)) or isinstance(b, (Quantity, Semver)):
        if type(a) is not type(b):
            raise CelError(NO_SUCH_OVERLOAD)
        if isinstance(a, Semver):
            return a.compare(b) == 0
        return bool(a == b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        if len(a) != len(b):
            return False
        for key, val in a.items():
            other = _map_find(b, key)
            if other is _MISSING or not cel_equal(val, other):
                return False
        return True
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _compare(a: Any, b: Any) -> int:
    if _is_number(a) and _is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            raise CelError(NO_SUCH_OVERLOAD)
        fa, fb = Fraction(a), Fraction(b)
        return (fa > fb) - (fa < fb)
    if type(a) is not type(b) or not isinstance(a, (bool, str, bytes)):
        raise CelError(NO_SUCH_OVERLOAD)
    return int(a > b) - int(a < b)


_MISSING = object()


def _map_find(container: Mapping[Any, Any], key: Any) -> Any:
    """Map lookup with CEL key equality (1 == 1u == 1.0 for numeric keys)."""
    if isinstance(key, (str, bool)) or key is None:
        for k, v in container.items():
            if type(k) is type(key) and k == key:
                return v
        return _MISSING
    if _is_number(key):
        for k, v in container.items():
            if _is_number(k) and cel_equal(k, key):
                return v
        return _MISSING
    raise CelError(f"unsupported key type: {type_name(key)}")


def _format_key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _index(container: Any, key: Any) -> Any:
    if isinstance(container, DefaultingMap):
        return container.lookup(key)
    if isinstance(container, dict):
        found = _map_find(container, key)
        if found is _MISSING:
            raise CelError(f"no such key: {_format_key(key)}")
        return found
    if isinstance(container, list):
        if isinstance(key, float):
            if not key.is_integer():
                raise CelError(f"unsupported index value {key} in list")
            key = int(key)
        if not isinstance(key, int) or isinstance(key, bool):
            raise CelError(f"unsupported index type '{type_name(key)}' in list")
        if key < 0 or key >= len(container):
            raise CelError(f"index out of bounds: {key}")
        return container[key]
    raise CelError(f"no such key: {_format_key(key)}")


def _quantity(value: Any) -> Quantity:
    if not isinstance(value, str):
        raise CelError(NO_SUCH_OVERLOAD)
    try:
        return Quantity(parse_quantity(value))
    except QuantityError as exc:
        raise CelError(str(exc)) from None


def _semver(value: Any, normalize: bool = False) -> Semver:
    if not isinstance(value, str):
        raise CelError(NO_SUCH_OVERLOAD)
    text = value
    if normalize:
        text = _normalize_semver(text)
    try:
        return Semver.parse(text)
    except ValueError:
        raise CelError(f"could not parse {value!r} as semver") from None


def _normalize_semver(text: str) -> str:
    """semver(s, true): drop a leading "v", pad minor/patch, strip leading zeros."""
    if text.startswith("v"):
        text = text[1:]
    cut = min((i for i in (text.find("-"), text.find("+")) if i >= 0), default=len(text))
    core, rest = text[:cut], text[cut:]
    parts = core.split(".")
    while len(parts) < 3:
        parts.append("0")
    return ".".join(str(int(p)) if p.isdigit() else p for p in parts) + rest


def _to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(int(value)) if abs(value) < 1e21 else repr(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    raise CelError(NO_SUCH_OVERLOAD)


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(value, int):
        return _check_int(int(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not (INT64_MIN <= value < 2.0**63):
            raise CelError("integer overflow")
        return int(value)
    if isinstance(value, str):
        try:
            return _check_int(int(value, 10))
        except ValueError:
            raise CelError(f"cannot convert string {value!r} to int") from None
    raise CelError(NO_SUCH_OVERLOAD)


def _size(value: Any) -> int:
    if isinstance(value, (str, bytes, list, dict)):
        return len(value)
    raise CelError(NO_SUCH_OVERLOAD)


def _need(value: Any, kind: type | tuple[type, ...]) -> Any:
    if isinstance(value, bool) and kind is not bool:
        raise CelError(NO_SUCH_OVERLOAD)
    if not isinstance(value, kind):
        raise CelError(NO_SUCH_OVERLOAD)
    return value


def _quantity_method(name: str, q: Quantity, args: list[Any]) -> Any:
    if name in ("isGreaterThan", "isLessThan", "compareTo"):
        other = _need(args[0], Quantity) if len(args) == 1 else None
        if other is None:
            raise CelError(NO_SUCH_OVERLOAD)
        cmp = (q.amount > other.amount) - (q.amount < other.amount)
        if name == "compareTo":
            return cmp
        return cmp > 0 if name == "isGreaterThan" else cmp < 0
    if name in ("add", "sub") and len(args) == 1:
        arg = args[0]
        amount = arg.amount if isinstance(arg, Quantity) else Fraction(_need(arg, int))
        return Quantity(q.amount + amount if name == "add" else q.amount - amount)
    if not args:
        if name == "isInteger":
            return q.amount.denominator == 1 and INT64_MIN <= q.amount <= INT64_MAX
        if name == "asInteger":
            if q.amount.denominator != 1 or not INT64_MIN <= q.amount <= INT64_MAX:
                raise CelError("cannot convert value to integer")
            return int(q.amount)
        if name == "asApproximateFloat":
            return float(q.amount)
        if name == "sign":
            return (q.amount > 0) - (q.amount < 0)
    raise CelError(NO_SUCH_OVERLOAD)


def _semver_method(name: str, v: Semver, args: list[Any]) -> Any:
    if name in ("isGreaterThan", "isLessThan", "compareTo") and len(args) == 1:
        cmp = v.compare(_need(args[0], Semver))
        if name == "compareTo":
            return cmp
        return cmp > 0 if name == "isGreaterThan" else cmp < 0
    if not args and name in ("major", "minor", "patch"):
        return int(getattr(v, name))
    raise CelError(NO_SUCH_OVERLOAD)


def _string_method(name: str, s: str, args: list[Any]) -> Any:
    if name == "contains":
        return _need(args[0], str) in s
    if name == "startsWith":
        return s.startswith(_need(args[0], str))
    if name == "endsWith":
        return s.endswith(_need(args[0], str))
    if name == "matches":
        return _regex(_need(args[0], str)).search(s) is not None
    if name == "size" and not args:
        return len(s)
    if name == "lowerAscii" and not args:
        return "".join(c.lower() if c.isascii() else c for c in s)
    if name == "upperAscii" and not args:
        return "".join(c.upper() if c.isascii() else c for c in s)
    if name == "trim" and not args:
        return s.strip()
    if name == "split":
        sep = _need(args[0], str)
        parts = s.split(sep) if sep else list(s)
        if len(args) > 1:
            limit = _need(args[1], int)
            if limit == 0:
                return []
            if limit > 0 and sep:
                parts = s.split(sep, limit - 1)
        return parts
    if name == "indexOf":
        return s.find(_need(args[0], str), _need(args[1], int) if len(args) > 1 else 0)
    if name == "lastIndexOf":
        return s.rfind(_need(args[0], str))
    if name == "charAt":
        idx = _need(args[0], int)
        if idx < 0 or idx > len(s):
            raise CelError(f"index out of range: {idx}")
        return s[idx : idx + 1]
    if name == "substring":
        start = _need(args[0], int)
        end = _need(args[1], int) if len(args) > 1 else len(s)
        if start < 0 or end > len(s) or start > end:
            raise CelError(f"index out of range: {start if start < 0 or start > len(s) else end}")
        return s[start:end]
    if name == "replace":
        count = _need(args[2], int) if len(args) > 2 else -1
        return s.replace(_need(args[0], str), _need(args[1], str), count)
    if name == "find":
        match = _regex(_need(args[0], str)).search(s)
        return match.group(0) if match else ""
    if name == "findAll":
        found = [m.group(0) for m in _regex(_need(args[0], str)).finditer(s)]
        if len(args) > 1:
            limit = _need(args[1], int)
            if limit >= 0:
                found = found[:limit]
        return found
    raise CelError(NO_SUCH_OVERLOAD)


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise CelError(f"invalid regex: {exc}") from None


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        if isinstance(a, bytes) and isinstance(b, bytes):
            return a + b
        if isinstance(a, list) and isinstance(b, list):
            return a + b
    if isinstance(a, bool) or isinstance(b, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(a, UInt) and isinstance(b, UInt):
        if op == "+":
            return _check_uint(a + b)
        if op == "-":
            return _check_uint(a - b)
        if op == "*":
            return _check_uint(a * b)
        if b == 0:
            raise CelError("division by zero" if op == "/" else "modulus by zero")
        return UInt(a // b if op == "/" else a % b)
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, UInt) and not isinstance(b, UInt):
        if op == "+":
            return _check_int(a + b)
        if op == "-":
            return _check_int(a - b)
        if op == "*":
            return _check_int(a * b)
        if b == 0:
            raise CelError("division by zero" if op == "/" else "modulus by zero")
        if op == "/":
            if a == INT64_MIN and b == -1:
                raise CelError("integer overflow")
            quotient = abs(a) // abs(b)
            return quotient if (a >= 0) == (b >= 0) else -quotient
        remainder = abs(a) % abs(b)
        return remainder if a >= 0 else -remainder
    if isinstance(a, float) and isinstance(b, float):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if b == 0:
                return math.copysign(math.inf, a) * math.copysign(1.0, b) if a != 0 else math.nan
            return a / b
    raise CelError(NO_SUCH_OVERLOAD)


# ------------------------------------------------------------------ evaluator


class Program:
    """A parsed expression, evaluated against a variable binding."""

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.ast = parse(expression)

    def evaluate(self, variables: Mapping[str, Any]) -> Any:
        return _eval(self.ast, dict(variables))


def _eval(node: Node, env: dict[str, Any]) -> Any:
    if isinstance(node, Lit):
        return node.value
    if isinstance(node, Ident):
        if node.name in env:
            return env[node.name]
        raise CelError(f"no such attribute(s): {node.name}")
    if isinstance(node, Select):
        return _eval_select(node, env)
    if isinstance(node, Index):
        return _index(_eval(node.operand, env), _eval(node.index, env))
    if isinstance(node, Logical):
        return _eval_logical(node, env)
    if isinstance(node, Cond):
        cond = _eval(node.cond, env)
        if not isinstance(cond, bool):
            raise CelError(NO_SUCH_OVERLOAD)
        return _eval(node.then if cond else node.otherwise, env)
    if isinstance(node, Unary):
        value = _eval(node.operand, env)
        if node.op == "!":
            if not isinstance(value, bool):
                raise CelError(NO_SUCH_OVERLOAD)
            return not value
        if isinstance(value, bool) or isinstance(value, UInt) or not _is_number(value):
            raise CelError(NO_SUCH_OVERLOAD)
        return -value if isinstance(value, float) else _check_int(-value)
    if isinstance(node, Binary):
        return _eval_binary(node, env)
    if isinstance(node, ListLit):
        return [_eval(item, env) for item in node.items]
    if isinstance(node, MapLit):
        out: dict[Any, Any] = {}
        for key_node, val_node in node.entries:
            key = _eval(key_node, env)
            if not isinstance(key, (str, int)) and key is not None:
                raise CelError(f"unsupported key type: {type_name(key)}")
            if _map_find(out, key) is not _MISSING:
                raise CelError(f"Failed with repeated key: {_format_key(key)}")
            out[key] = _eval(val_node, env)
        return out
    if isinstance(node, Call):
        return _eval_call(node, env)
    if isinstance(node, Comprehension):
        return _eval_comprehension(node, env)
    if isinstance(node, Bind):
        scope = dict(env)
        scope[node.var] = _eval(node.init, env)
        return _eval(node.body, scope)
    raise CelError(f"unsupported expression node {type(node).__name__}")  # pragma: no cover


def _eval_select(node: Select, env: dict[str, Any]) -> Any:
    operand = _eval(node.operand, env)
    if isinstance(operand, DefaultingMap):
        return True if node.test_only else operand.lookup(node.field)
    if isinstance(operand, dict):
        found = _map_find(operand, node.field)
        if node.test_only:
            return found is not _MISSING
        if found is _MISSING:
            raise CelError(f"no such key: {node.field}")
        return found
    if node.test_only:
        raise CelError(f"invalid type for field selection: {type_name(operand)}")
    raise CelError(f"no such key: {node.field}")


def _eval_logical(node: Logical, env: dict[str, Any]) -> Any:
    absorbing = node.op == "||"  # the value that decides: true for ||, false for &&
    first_error: CelError | None = None
    for term in node.terms:
        try:
            value = _eval(term, env)
        except CelError as exc:
            first_error = first_error or exc
            continue
        if isinstance(value, bool):
            if value is absorbing:
                return absorbing
        elif first_error is None:
            first_error = CelError(NO_SUCH_OVERLOAD)
    if first_error is not None:
        raise first_error
    return not absorbing


def _eval_binary(node: Binary, env: dict[str, Any]) -> Any:
    left = _eval(node.left, env)
    right = _eval(node.right, env)
    op = node.op
    if op == "==":
        return cel_equal(left, right)
    if op == "!=":
        return not cel_equal(left, right)
    if op in ("<", "<=", ">", ">="):
        cmp = _compare(left, right)
        return {"<": cmp < 0, "<=": cmp <= 0, ">": cmp > 0, ">=": cmp >= 0}[op]
    if op == "in":
        if isinstance(right, list):
            return any(_safe_equal(left, item) for item in right)
        if isinstance(right, dict):
            return _map_find(right, left) is not _MISSING
        raise CelError(NO_SUCH_OVERLOAD)
    return _arith(op, left, right)


def _safe_equal(a: Any, b: Any) -> bool:
    try:
        return cel_equal(a, b)
    except CelError:
        return False


_TRUE_STRINGS = ("true", "True", "TRUE", "t", "1")
_FALSE_STRINGS = ("false", "False", "FALSE", "f", "0")

_GLOBAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _quantity,
    "semver": _semver,
    "size": _size,
    "int": _to_int,
    "string": _to_string,
    "dyn": lambda value: value,
}


def _eval_call(node: Call, env: dict[str, Any]) -> Any:
    if node.target is None:
        args = [_eval(arg, env) for arg in node.args]
        if node.function == "isQuantity" and len(args) == 1:
            try:
                _quantity(args[0])
            except CelError:
                return False
            return True
        if node.function == "isSemver" and len(args) in (1, 2):
            try:
                _semver(args[0], bool(args[1]) if len(args) == 2 else False)
            except CelError:
                return False
            return True
        if node.function == "double" and len(args) == 1:
            value = args[0]
            if _is_number(value):
                return float(value)
            if isinstance(value, str):
                try:
                    return float(value)
                except ValueError:
                    raise CelError(f"cannot convert string {value!r} to double") from None
            raise CelError(NO_SUCH_OVERLOAD)
        if node.function == "bool" and len(args) == 1:
            value = args[0]
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value in _TRUE_STRINGS + _FALSE_STRINGS:
                return value in _TRUE_STRINGS
            raise CelError(NO_SUCH_OVERLOAD)
        if node.function == "uint" and len(args) == 1:
            value = args[0]
            if isinstance(value, bool) or not (_is_number(value) or isinstance(value, str)):
                raise CelError(NO_SUCH_OVERLOAD)
            try:
                return _check_uint(int(value))
            except ValueError:
                raise CelError(f"cannot convert string {value!r} to uint") from None
        fn = _GLOBAL_FUNCTIONS.get(node.function)
        if fn is None:
            raise CelError(f"no such overload: {node.function}")
        try:
            return fn(*args)
        except TypeError:
            raise CelError(NO_SUCH_OVERLOAD) from None
    target = _eval(node.target, env)
    args = [_eval(arg, env) for arg in node.args]
    name = node.function
    if isinstance(target, Quantity):
        return _quantity_method(name, target, args)
    if isinstance(target, Semver):
        return _semver_method(name, target, args)
    if isinstance(target, str):
        try:
            return _string_method(name, target, args)
        except IndexError:
            raise CelError(NO_SUCH_OVERLOAD) from None
    if name == "size" and not args:
        return _size(target)
    if name == "join" and isinstance(target, list):
        sep = _need(args[0], str) if args else ""
        if not all(isinstance(item, str) for item in target):
            raise CelError(NO_SUCH_OVERLOAD)
        return sep.join(target)
    raise CelError(NO_SUCH_OVERLOAD)


def _eval_comprehension(node: Comprehension, env: dict[str, Any]) -> Any:
    target = _eval(node.target, env)
    if isinstance(target, dict):
        items = list(target.keys())
    elif isinstance(target, list):
        items = list(target)
    else:
        raise CelError(NO_SUCH_OVERLOAD)
    scope = dict(env)

    def run(expr: Node, item: Any) -> Any:
        scope[node.var] = item
        return _eval(expr, scope)

    if node.macro in ("all", "exists"):
        # Folded like a chain of && (all) or || (exists): errors are absorbed by a deciding value.
        decisive = node.macro == "exists"
        first_error: CelError | None = None
        for item in items:
            try:
                value = run(node.body, item)
            except CelError as exc:
                first_error = first_error or exc
                continue
            if not isinstance(value, bool):
                first_error = first_error or CelError(NO_SUCH_OVERLOAD)
                continue
            if value is decisive:
                return decisive
        if first_error is not None:
            raise first_error
        return not decisive
    if node.macro == "exists_one":
        count = 0
        for item in items:
            value = run(node.body, item)
            if not isinstance(value, bool):
                raise CelError(NO_SUCH_OVERLOAD)
            count += value
        return count == 1
    if node.macro == "filter":
        out = []
        for item in items:
            keep = run(node.body, item)
            if not isinstance(keep, bool):
                raise CelError(NO_SUCH_OVERLOAD)
            if keep:
                out.append(item)
        return out
    mapped = []
    for item in items:
        if node.filter is not None:
            keep = run(node.filter, item)
            if not isinstance(keep, bool):
                raise CelError(NO_SUCH_OVERLOAD)
            if not keep:
                continue
        mapped.append(run(node.body, item))
    return mapped


# ------------------------------------------------------------------ DRA device selectors


@dataclass(frozen=True)
class CompiledSelector:
    expression: str
    program: Program | None
    error: str = ""


class SelectorCache:
    """Compiled selector expressions by text (the scheduler keeps a CEL cache too)."""

    def __init__(self) -> None:
        self._compiled: dict[str, CompiledSelector] = {}

    def get(self, expression: str) -> CompiledSelector:
        compiled = self._compiled.get(expression)
        if compiled is None:
            try:
                compiled = CompiledSelector(expression, Program(expression))
            except CelCompileError as exc:
                compiled = CompiledSelector(expression, None, f"compilation failed: {exc}")
            self._compiled[expression] = compiled
        return compiled


def evaluate_selector(program: Program, device: Mapping[str, Any]) -> bool:
    """Run a selector on a device binding; a non-bool result is an error, as upstream."""
    result = program.evaluate({"device": device})
    if not isinstance(result, bool):
        raise CelError(
            f"CEL result of type {type_name(result)} could not be converted to bool: "
            f"type conversion error from '{type_name(result)}' to 'bool'"
        )
    return result
