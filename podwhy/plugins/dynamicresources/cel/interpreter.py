"""A small CEL evaluator for DRA device selectors (k8s.io/dynamic-resource-allocation/cel).

Covers the CEL subset device selectors use: literals, lists and maps, the usual operators
with CEL's error-absorbing `&&`/`||`, member access and indexing, `in`, the ternary,
the `has()`, `all`/`exists`/`exists_one`/`map`/`filter` and `cel.bind` macros and their
two-variable forms, string functions (regular expressions with RE2, as Go's regexp), and the
Kubernetes `quantity()` and `semver()` libraries.

Runtime errors are raised as CelError with cel-go's wording ("no such key: x", ...),
because the allocator surfaces them verbatim in the Filter status.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

from podwhy.model.gojson import GO_SPACE
from podwhy.model.quantity import Quantity, QuantityParseError

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


class CelProgramError(CelCompileError):
    """The expression compiles but cel-go cannot plan it (a constant regex that does not compile)."""


# ------------------------------------------------------------------ value types


class UInt(int):
    """CEL uint: kept apart from int for typing; arithmetic results are re-wrapped."""


class QuantityPointer(Quantity):
    """What the quantity library's add() and sub() return: a *resource.Quantity to cel-go, whose
    equality then refuses it as the right-hand operand."""

    __slots__ = ()


def _pointer(q: Quantity) -> QuantityPointer:
    return QuantityPointer(q.coefficient, q.exponent, q.int64_form)


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
    macro: str  # all, exists, exists_one, map, filter, transformMap, transformMapEntry
    target: Node
    var: str
    filter: Node | None
    body: Node
    # The second variable of ext.TwoVarComprehensions (index or key first, then the value).
    var2: str | None = None


@dataclass(frozen=True)
class Bind(Node):
    var: str
    init: Node
    body: Node


# ------------------------------------------------------------------ parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        # Found while parsing, reported once the whole expression has parsed.
        self.validation_issues: list[str] = []
        self.program_error: str | None = None

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
        if self.validation_issues:
            raise CelCompileError("\n".join(self.validation_issues))
        if self.program_error is not None:
            raise CelProgramError(self.program_error)
        return node

    def check_regex_literals(self, member: bool, name: str, args: tuple[Node, ...], positions: list[int]) -> None:
        """What cel-go and the k8s libraries check before evaluation: the environment's regex
        validator compiles a literal first argument of matches(); the planner compiles a constant
        pattern of matches(), find() and findAll() (the argument after the receiver string)."""
        if name == "matches" and args and _string_literal(args[0]) is not None:
            try:
                compile_regex(_string_literal(args[0]) or "")
            except RegexSyntaxError:
                self.validation_issues.append(_display_error(self.text, positions[0], "invalid matches argument"))
        pattern_index = 0 if member else 1
        if name == "matches" or (member and name in ("find", "findAll")):
            pattern = _string_literal(args[pattern_index]) if len(args) > pattern_index else None
            if pattern is not None and self.program_error is None:
                try:
                    compile_regex(pattern)
                except RegexSyntaxError as exc:
                    self.program_error = str(exc)

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
                    args, positions = self.call_args()
                    self.check_regex_literals(True, tok.value, args, positions)
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

    def call_args(self) -> tuple[tuple[Node, ...], list[int]]:
        """The arguments, and where each starts in the text."""
        self.expect("(")
        args: list[Node] = []
        positions: list[int] = []
        if not self.at(")"):
            positions.append(self.peek().pos)
            args.append(self.expr())
            while self.at(","):
                self.take()
                positions.append(self.peek().pos)
                args.append(self.expr())
        self.expect(")")
        return tuple(args), positions

    def method(self, target: Node, name: str, args: tuple[Node, ...]) -> Node:
        two_var = _TWO_VAR_MACROS.get(name)
        if two_var is not None and len(args) in two_var[1] and isinstance(args[0], Ident):
            if not isinstance(args[1], Ident):
                raise CelCompileError("argument must be a simple name")
            if args[0].name == args[1].name:
                raise CelCompileError(f"duplicate variable name: {args[0].name}")
            filter_node = args[2] if len(args) == 4 else None
            return Comprehension(two_var[0], target, args[0].name, filter_node, args[-1], var2=args[1].name)
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
                args, positions = self.call_args()
                self.check_regex_literals(False, name, args, positions)
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


# ext.TwoVarComprehensions: macro name -> (evaluation, argument counts).
_TWO_VAR_MACROS: dict[str, tuple[str, tuple[int, ...]]] = {
    "all": ("all", (3,)),
    "exists": ("exists", (3,)),
    "existsOne": ("exists_one", (3,)),
    "exists_one": ("exists_one", (3,)),
    "transformList": ("map", (3, 4)),
    "transformMap": ("transformMap", (3, 4)),
    "transformMapEntry": ("transformMapEntry", (3, 4)),
}


def parse(expression: str) -> Node:
    return _Parser(expression).parse()


def _string_literal(node: Node) -> str | None:
    return node.value if isinstance(node, Lit) and isinstance(node.value, str) else None


def _display_error(text: str, pos: int, message: str) -> str:
    """A compile issue as cel-go displays it: location (1-based column), the source line, a caret."""
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    line_no = text.count("\n", 0, pos) + 1
    column = pos - line_start
    snippet = line.replace("\t", " ")
    marker = "".join("\uff0e" if len(c.encode("utf-8")) > 1 else "." for c in snippet[:column])
    caret = "\uff3e" if column < len(snippet) and len(snippet[column].encode("utf-8")) > 1 else "^"
    return f"ERROR: <input>:{line_no}:{column + 1}: {message}\n | {snippet}\n | {marker}{caret}"


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
    """CEL `==`: an error value (a Kubernetes type compared with another type) raises."""
    result = _equal(a, b)
    if result is None:
        raise CelError(NO_SUCH_OVERLOAD)
    return result


def _equal(a: Any, b: Any) -> bool | None:
    """cel-go's heterogeneous equality, called on the left operand; None is an error value.

    Numbers compare by value across int, uint and double; other kinds must match. The
    Kubernetes types give an error for any other right operand (and a Quantity for one that
    add() or sub() returned, which is a pointer to cel-go). Lists and maps are unequal only
    when some element compares false: an element error does not make them unequal.
    """
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Quantity):
        if not isinstance(b, Quantity) or isinstance(b, QuantityPointer):
            return None
        return a.compare(b) == 0
    if isinstance(a, Semver):
        return a.compare(b) == 0 if isinstance(b, Semver) else None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            return False
        return _compare_numbers(a, b) == 0
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(_equal(x, y) is not False for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, val in a.items():
            other = _map_find(b, key)
            if other is _MISSING or _equal(val, other) is False:
                return False
        return True
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _compare(a: Any, b: Any) -> int:
    if _is_number(a) and _is_number(b):
        if (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
            raise CelError("NaN values cannot be ordered")
        return _compare_numbers(a, b)
    if type(a) is not type(b) or not isinstance(a, (bool, str, bytes)):
        raise CelError(NO_SUCH_OVERLOAD)
    return int(a > b) - int(a < b)


def _compare_numbers(a: int | float, b: int | float) -> int:
    """cel-go's cross-type numeric order: ints and uints compare exactly; against a double, an
    int or uint in the double's range is converted to double (so 2**63-1 == 2.0**63)."""
    if isinstance(a, float) and not isinstance(b, float):
        return _compare_double_integer(a, b)
    if isinstance(b, float) and not isinstance(a, float):
        return -_compare_double_integer(b, a)
    return (a > b) - (a < b)


def _compare_double_integer(d: float, i: int) -> int:
    low, high = (0.0, float(UINT64_MAX)) if isinstance(i, UInt) else (float(INT64_MIN), float(INT64_MAX))
    if d < low:
        return -1
    if d > high:
        return 1
    converted = float(i)
    return (d > converted) - (d < converted)


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
        return Quantity.parse(value)
    except QuantityParseError as exc:
        raise CelError(str(exc)) from None


def _is_quantity(value: Any) -> bool:
    """isQuantity(): ParseQuantity on the string as it is (no trimming)."""
    if not isinstance(value, str):
        raise CelError(NO_SUCH_OVERLOAD)
    try:
        Quantity.parse(value)
    except QuantityParseError:
        return False
    return True


def _quantity_sign(value: Any) -> int:
    """sign() is declared as a global function only: sign(q), not q.sign()."""
    quantity: Quantity = _need(value, Quantity)
    return quantity.sign()


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


def _conversion_error(value: Any, target: str) -> CelError:
    return CelError(f"type conversion error from '{type_name(value)}' to '{target}'")


def _to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from None
    raise CelError(NO_SUCH_OVERLOAD)


def format_double(value: float) -> str:
    """Go's %g with the shortest precision: exponent form below 1e-4 and from 1e6 on."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that round-trip, as Go's shortest formatting does.
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + int(exp_text or 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        tail = f".{digits[1:]}" if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{tail}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


# strconv.ParseInt/ParseUint (base 10) and ParseFloat: no spaces or underscores, unlike int()/float().
_GO_INT_RE = re.compile(r"[+-]?[0-9]+")
_GO_UINT_RE = re.compile(r"[0-9]+")
_GO_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE)


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(value, int):
        return _check_int(int(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not (INT64_MIN < value < 2.0**63):
            raise CelError("integer overflow")
        return int(value)
    if isinstance(value, str):
        if _GO_INT_RE.fullmatch(value) is None or not INT64_MIN <= int(value) <= INT64_MAX:
            raise _conversion_error(value, "int")
        return int(value)
    raise CelError(NO_SUCH_OVERLOAD)


def _to_uint(value: Any) -> UInt:
    if isinstance(value, bool):
        raise CelError(NO_SUCH_OVERLOAD)
    if isinstance(value, int):
        return _check_uint(int(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not (0 <= value < 2.0**64):
            raise CelError("unsigned integer overflow")
        return UInt(int(value))
    if isinstance(value, str):
        if _GO_UINT_RE.fullmatch(value) is None or int(value) > UINT64_MAX:
            raise _conversion_error(value, "uint")
        return UInt(int(value))
    raise CelError(NO_SUCH_OVERLOAD)


def _to_double(value: Any) -> float:
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        if _GO_FLOAT_RE.fullmatch(value) is None:
            raise _conversion_error(value, "double")
        parsed = float(value)
        if math.isinf(parsed) and "inf" not in value.lower():
            raise _conversion_error(value, "double")  # out of range for ParseFloat
        return parsed
    raise CelError(NO_SUCH_OVERLOAD)


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in _TRUE_STRINGS:
            return True
        if value in _FALSE_STRINGS:
            return False
        raise _conversion_error(value, "bool")
    raise CelError(NO_SUCH_OVERLOAD)


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
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
    if name in ("isGreaterThan", "isLessThan", "compareTo") and len(args) == 1:
        other = _need(args[0], Quantity)
        cmp = q.compare(other)
        if name == "compareTo":
            return cmp
        return cmp > 0 if name == "isGreaterThan" else cmp < 0
    if name in ("add", "sub") and len(args) == 1:
        arg = args[0]
        # An int operand is resource.NewQuantity(n).
        other = arg if isinstance(arg, Quantity) else Quantity.from_int(_need(arg, int))
        return _pointer(q.sub(other) if name == "sub" else q.add(other))
    if not args:
        if name == "isInteger":
            return q.as_int64() is not None
        if name == "asInteger":
            value = q.as_int64()
            if value is None:
                raise CelError("cannot convert value to integer")
            return value
        if name == "asApproximateFloat":
            return q.approximate_float()
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
    """Standard string functions and cel-go's ext.Strings (version 2, as Kubernetes enables it)."""
    arity = len(args)
    if name == "contains" and arity == 1:
        return _need(args[0], str) in s
    if name == "startsWith" and arity == 1:
        return s.startswith(_need(args[0], str))
    if name == "endsWith" and arity == 1:
        return s.endswith(_need(args[0], str))
    if name == "matches" and arity == 1:
        return _matches(s, _need(args[0], str))
    if name == "size" and arity == 0:
        return len(s)
    if name == "lowerAscii" and arity == 0:
        return "".join(c.lower() if c.isascii() else c for c in s)
    if name == "upperAscii" and arity == 0:
        return "".join(c.upper() if c.isascii() else c for c in s)
    if name == "trim" and arity == 0:
        return s.strip(GO_SPACE)
    if name == "split" and arity in (1, 2):
        return _split(s, _need(args[0], str), _need(args[1], int) if arity == 2 else -1)
    if name == "indexOf" and arity in (1, 2):
        return _index_of(s, _need(args[0], str), _need(args[1], int) if arity == 2 else 0)
    if name == "lastIndexOf" and arity in (1, 2):
        sub = _need(args[0], str)
        if arity == 2:
            return _last_index_of(s, sub, _need(args[1], int))
        if not sub:
            return len(s)
        if len(s.encode("utf-8")) < len(sub.encode("utf-8")):
            return -1
        return _last_index_of(s, sub, len(s) - 1)
    if name == "charAt" and arity == 1:
        idx = _need(args[0], int)
        if idx < 0 or idx > len(s):
            raise CelError(f"index out of range: {idx}")
        return s[idx : idx + 1]
    if name == "substring" and arity in (1, 2):
        start = _need(args[0], int)
        end = _need(args[1], int) if arity == 2 else len(s)
        if arity == 2 and start > end:
            raise CelError(f"invalid substring range. start: {start}, end: {end}")
        for bound in (start, end):
            if bound < 0 or bound > len(s):
                raise CelError(f"index out of range: {bound}")
        return s[start:end]
    if name == "replace" and arity in (2, 3):
        count = _need(args[2], int) if arity == 3 else -1
        return s.replace(_need(args[0], str), _need(args[1], str), count)
    if name == "find" and arity == 1:
        match = _find_regex(_need(args[0], str)).search(s)
        return match.group(0) if match else ""
    if name == "findAll" and arity in (1, 2):
        regex = _find_regex(_need(args[0], str))
        return _find_all(regex, s, _need(args[1], int) if arity == 2 else -1)
    raise CelError(NO_SUCH_OVERLOAD)


def _split(s: str, sep: str, limit: int) -> list[str]:
    """strings.SplitN: limit 0 gives no parts, a negative limit all of them; an empty
    separator splits after each character."""
    if limit == 0:
        return []
    if sep:
        return s.split(sep, limit - 1 if limit > 0 else -1)
    chars = list(s)
    if 0 < limit < len(chars):
        return [*chars[: limit - 1], "".join(chars[limit - 1 :])]
    return chars


def _index_of(s: str, sub: str, offset: int) -> int:
    if not sub:
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def _last_index_of(s: str, sub: str, offset: int) -> int:
    if not sub:
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    # The match may start at offset at the latest.
    return s.rfind(sub, 0, min(offset, len(s) - len(sub)) + len(sub)) if len(sub) <= len(s) else -1


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


def _matches(s: str, pattern: str) -> bool:
    try:
        regex = compile_regex(pattern)
    except RegexSyntaxError as exc:
        raise CelError(str(exc)) from None
    return regex.search(s) is not None


def _find_regex(pattern: str) -> Any:
    """The k8s regex library (find, findAll) words a bad pattern as "Illegal regex: ..."."""
    try:
        return compile_regex(pattern)
    except RegexSyntaxError as exc:
        raise CelError(f"Illegal regex: {exc}") from None


def _find_all(regex: Any, s: str, limit: int) -> list[str]:
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
        # cel-go's `!=` is "equality is not true": an error value from the equality reads as true.
        return _equal(left, right) is not True
    if op in ("<", "<=", ">", ">="):
        cmp = _compare(left, right)
        return {"<": cmp < 0, "<=": cmp <= 0, ">": cmp > 0, ">=": cmp >= 0}[op]
    if op == "in":
        if isinstance(right, list):
            return any(_equal(left, item) is True for item in right)
        if isinstance(right, dict):
            return _map_find(right, left) is not _MISSING
        raise CelError(NO_SUCH_OVERLOAD)
    return _arith(op, left, right)


# strconv.ParseBool
_TRUE_STRINGS = ("1", "t", "T", "true", "TRUE", "True")
_FALSE_STRINGS = ("0", "f", "F", "false", "FALSE", "False")

_GLOBAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "sign": _quantity_sign,
    "semver": _semver,
    "size": _size,
    "int": _to_int,
    "uint": _to_uint,
    "double": _to_double,
    "bool": _to_bool,
    "bytes": _to_bytes,
    "string": _to_string,
    "matches": lambda s, pattern: _matches(_need(s, str), _need(pattern, str)),
    "dyn": lambda value: value,
}


def _eval_call(node: Call, env: dict[str, Any]) -> Any:
    if node.target is None:
        args = [_eval(arg, env) for arg in node.args]
        if node.function == "isSemver" and len(args) in (1, 2):
            try:
                _semver(args[0], bool(args[1]) if len(args) == 2 else False)
            except CelError:
                return False
            return True
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
    # Each item binds the first variable; with two variables, (index or key, value).
    items: list[Any]
    if isinstance(target, dict):
        items = list(target.items()) if node.var2 is not None else list(target.keys())
    elif isinstance(target, list):
        items = list(enumerate(target)) if node.var2 is not None else list(target)
    else:
        raise CelError(NO_SUCH_OVERLOAD)
    scope = dict(env)

    def run(expr: Node, item: Any) -> Any:
        if node.var2 is None:
            scope[node.var] = item
        else:
            scope[node.var], scope[node.var2] = item
        return _eval(expr, scope)

    if node.macro in ("transformMap", "transformMapEntry"):
        return _transform_map(node, items, run)

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


def _transform_map(node: Comprehension, items: list[Any], run: Callable[[Node, Any], Any]) -> dict[Any, Any]:
    """transformMap inserts key -> transform (the key is the list index for a list);
    transformMapEntry merges the single-entry maps the transform returns."""
    out: dict[Any, Any] = {}
    for item in items:
        if node.filter is not None:
            keep = run(node.filter, item)
            if not isinstance(keep, bool):
                raise CelError(NO_SUCH_OVERLOAD)
            if not keep:
                continue
        result = run(node.body, item)
        entries = [(item[0], result)] if node.macro == "transformMap" else None
        if entries is None:
            if not isinstance(result, dict):
                raise CelError(NO_SUCH_OVERLOAD)
            entries = list(result.items())
        for key, value in entries:
            if _map_find(out, key) is not _MISSING:
                raise CelError(f"insert failed: key {_format_key(key)} already exists")
            out[key] = value
    return out


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
            except CelProgramError as exc:
                compiled = CompiledSelector(expression, None, f"program instantiation failed: {exc}")
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
