"""CEL's grammar, its macros (has, all, exists, exists_one, map, filter, cel.bind and
ext.TwoVarComprehensions) and the checks cel-go makes before evaluation."""

from __future__ import annotations

from podwhy.cel.errors import CelCompileError, CelProgramError
from podwhy.cel.lexer import RESERVED, Token, tokenize
from podwhy.cel.library.regex import RegexSyntaxError, compile_regex
from podwhy.cel.nodes import (
    Binary,
    Bind,
    Call,
    Comprehension,
    Cond,
    Ident,
    Index,
    ListLit,
    Lit,
    Logical,
    MapLit,
    Node,
    Select,
    StructLit,
    Unary,
)
from podwhy.cel.values import INT64_MAX, INT64_MIN, UInt


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
                self.validation_issues.append(display_error(self.text, positions[0], "invalid matches argument"))
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
            minus = self.take()
            tok = self.peek()
            if tok.kind == "num" and not isinstance(tok.value, UInt) and not self._followed_by_member():
                self.take()
                value = -tok.value
                if isinstance(value, int) and value < INT64_MIN:
                    raise CelCompileError(f"invalid int literal at {tok.pos}")
                return Lit(value, pos=minus.pos)
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
                optional = self.at("?")
                if optional:
                    self.take()
                tok = self.take()
                if tok.kind != "ident":
                    raise CelCompileError(f"Syntax error: expected identifier at {tok.pos}")
                if self.at("(") and not optional:
                    open_pos = self.peek().pos
                    args, positions = self.call_args()
                    self.check_regex_literals(True, tok.value, args, positions)
                    node = self.method(node, tok.value, args, open_pos)
                else:
                    node = Select(node, tok.value, optional=optional)
            elif self.at("{") and _qualified_name(node) is not None:
                node = self.struct_literal(str(_qualified_name(node)))
            elif self.at("["):
                self.take()
                optional = self.at("?")
                if optional:
                    self.take()
                index = self.expr()
                self.expect("]")
                node = Index(node, index, optional=optional)
            else:
                return node

    def struct_literal(self, name: str) -> Node:
        """`Name{field: value, ?field: optional}` (cel-go's CreateMessage)."""
        pos = self.peek().pos
        self.expect("{")
        fields: list[tuple[str, Node, bool]] = []
        while not self.at("}"):
            optional = self.optional_marker()
            tok = self.take()
            if tok.kind != "ident":
                raise CelCompileError(f"Syntax error: expected identifier at {tok.pos}")
            self.expect(":")
            fields.append((tok.value, self.expr(), optional))
            if not self.at(","):
                break
            self.take()
        self.expect("}")
        return StructLit(name, tuple(fields), pos=pos)

    def optional_marker(self) -> bool:
        """A leading `?` of a list element, map entry or message field (cel-go's optExpr and
        optField; the API server's environments enable cel-go's optional syntax): taken if there."""
        if not self.at("?"):
            return False
        self.take()
        return True

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

    def method(self, target: Node, name: str, args: tuple[Node, ...], open_pos: int) -> Node:
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
        if name in OPTIONAL_MACROS and len(args) == 2:
            return _optional_map(name, target, args)
        if isinstance(target, Ident) and target.name in NAMESPACES:
            return Call(None, f"{target.name}.{name}", args, pos=open_pos)
        return Call(target, name, args, pos=open_pos)

    def punct_primary(self, tok: Token) -> Node | None:
        """A parenthesised expression, a list or map literal, or a leading-dot name."""
        if tok.value == "(":
            node = self.expr()
            self.expect(")")
            return node
        if tok.value == "[":
            items: list[Node] = []
            optional_items: list[int] = []
            if self.at(","):  # CEL.g4 CreateList: '[' listInit? ','? ']', so `[,]` is an empty list
                self.take()
                self.expect("]")
                return ListLit((), ())
            while not self.at("]"):
                if self.optional_marker():
                    optional_items.append(len(items))
                items.append(self.expr())
                if not self.at(","):
                    break
                self.take()
            self.expect("]")
            return ListLit(tuple(items), tuple(optional_items))
        if tok.value == "{":
            entries: list[tuple[Node, Node]] = []
            optional_entries: list[int] = []
            if self.at(","):  # CEL.g4 CreateStruct: '{' mapInitializerList? ','? '}', so `{,}` is an empty map
                self.take()
                self.expect("}")
                return MapLit((), ())
            while not self.at("}"):
                if self.optional_marker():
                    optional_entries.append(len(entries))
                key = self.expr()
                self.expect(":")
                entries.append((key, self.expr()))
                if not self.at(","):
                    break
                self.take()
            self.expect("}")
            return MapLit(tuple(entries), tuple(optional_entries))
        if tok.value == ".":
            ident = self.take()
            if ident.kind != "ident":
                raise CelCompileError(f"Syntax error: expected identifier at {ident.pos}")
            return Ident(ident.value, pos=ident.pos)
        return None

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind in ("num", "str", "bytes"):
            if tok.kind == "num" and isinstance(tok.value, int) and not isinstance(tok.value, UInt):
                if tok.value > INT64_MAX:
                    raise CelCompileError(f"invalid int literal at {tok.pos}")
            return Lit(tok.value, pos=tok.pos)
        if tok.kind == "ident":
            name = tok.value
            if name in _KEYWORD_LITERALS:
                return Lit(_KEYWORD_LITERALS[name], pos=tok.pos)
            if name in RESERVED or name == "in":
                raise CelCompileError(f"Syntax error: reserved identifier: {name}")
            if self.at("("):
                open_pos = self.peek().pos
                args, positions = self.call_args()
                self.check_regex_literals(False, name, args, positions)
                if name == "has":
                    if len(args) != 1 or not isinstance(args[0], Select):
                        raise CelCompileError("invalid argument to has() macro")
                    sel = args[0]
                    return Select(sel.operand, sel.field, test_only=True)
                return Call(None, name, args, pos=open_pos)
            return Ident(name, pos=tok.pos)
        if tok.kind == "punct":
            node = self.punct_primary(tok)
            if node is not None:
                return node
        raise CelCompileError(f"Syntax error: mismatched input at {tok.pos}")


_KEYWORD_LITERALS: dict[str, bool | None] = {"true": True, "false": False, "null": None}

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


# The namespaces of functions named `ns.name` (cel-go's optional library, ext.Strings' quote,
# ext.Sets, ext.Lists' range, the Kubernetes ip, format and jsonpatch libraries): `ns.f(x)` is a
# call of "ns.f", not a method.
NAMESPACES = frozenset({"optional", "strings", "sets", "lists", "ip", "format", "jsonpatch"})


# cel-go's optional library's macros (version 1): `opt.optMap(v, expr)`, `opt.optFlatMap(v, expr)`.
OPTIONAL_MACROS = frozenset({"optMap", "optFlatMap"})


def _optional_map(name: str, target: Node, args: tuple[Node, ...]) -> Node:
    """cel-go's optMap and optFlatMap macros: `target.hasValue() ? optional.of(EXPR) :
    optional.none()` (optFlatMap: EXPR itself), EXPR with VAR bound to `target.value()`."""
    var = args[0]
    if not isinstance(var, Ident):
        raise CelCompileError(f"{name}() variable name must be a simple identifier")
    body: Node = Bind(var.name, Call(target, "value", ()), args[1])
    if name == "optMap":
        body = Call(None, "optional.of", (body,))
    return Cond(Call(target, "hasValue", ()), body, Call(None, "optional.none", ()))


def _qualified_name(node: Node) -> str | None:
    """A dotted name (`Object.spec.containers`) a message may be created of; None otherwise."""
    if isinstance(node, Ident):
        return node.name
    if isinstance(node, Select) and not node.optional and not node.test_only:
        prefix = _qualified_name(node.operand)
        return None if prefix is None else f"{prefix}.{node.field}"
    return None


def parse(expression: str) -> Node:
    return _Parser(expression).parse()


def _string_literal(node: Node) -> str | None:
    return node.value if isinstance(node, Lit) and isinstance(node.value, str) else None


def display_error(text: str, pos: int, message: str) -> str:
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
