"""What a ValidatingAdmissionPolicy's validation requires of the object, read from its expression's
CEL syntax tree (podwhy/cel's parser): the fields it tests and how, as paths from `object`.

Read where a test must hold for the expression to be true: the terms of `&&` and `||` (each a
way to satisfy it), the bodies of `all`, `exists` and `exists_one` over a list (each element of
it: `*`), a negation turning what follows around, the branches of a conditional, `cel.bind`, and
`variables.NAME` (the policy's variables, read the same way). What it finds:

- `has(x.f)`, `'f' in x` (a map's key): the field is present (PRESENT);
- `x in ['a', 'b']`, `x == 'a'` (and `x != 'a'` negated): the value is one of those (ONE_OF);
- `quantity(x).compareTo(quantity('1Gi')) <= 0`, `!quantity(x).isGreaterThan(quantity('1Gi'))`
  and their mirrors: a quantity at most / at least another (AT_MOST, AT_LEAST; a strict bound
  gives none: no value is the bound);
- `size(xs.filter(c, P)) == 0` as `xs.all(c, !P)` (and `> 0`, `!= 0` as `exists`).

A list is followed through `xs + ys`, `xs.filter(...)`, `x.?f.orValue(...)` and conditionals.
Anything else says nothing (a suggestion is only what verification then accepts). A pure
function of the text: nothing is evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

import msgspec

from podwhy.cel.errors import CelCompileError
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
    Node,
    Select,
    Unary,
)
from podwhy.cel.parser import parse

OBJECT = "object"
VARIABLES = "variables"
# Every element of a list (or every value of a map).
ELEMENT = "*"

Path = tuple[str, ...]
Paths = frozenset[Path]
_NONE: Paths = frozenset()

# The macros whose body is a test over each element.
_ELEMENT_TESTS = ("all", "exists", "exists_one")
# compareTo's sign: what each comparison with a literal allows of it.
_SIGNS = (-1, 0, 1)
_COMPARE = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class Test(StrEnum):
    PRESENT = "present"
    ONE_OF = "oneOf"
    AT_MOST = "atMost"
    AT_LEAST = "atLeast"


class Requirement(msgspec.Struct, frozen=True):
    """A test the expression makes of the field at PATH (from `object`, ELEMENT for each element of a
    list): ONE_OF's `values` as JSON texts, AT_MOST's and AT_LEAST's the quantity."""

    path: Path
    test: Test
    values: tuple[str, ...] = ()


def requirements(expression: str, variables: Mapping[str, str] = {}) -> tuple[Requirement, ...]:
    """The tests EXPRESSION makes where they must hold for it to be true, in its order, once each;
    VARIABLES: the policy's, by name (their expressions). () when it does not parse."""
    try:
        ast = parse(expression)
    except CelCompileError:
        return ()
    reader = _Reader(variables)
    reader.visit(ast, {}, positive=True)
    return tuple(dict.fromkeys(reader.found))


class _Reader(msgspec.Struct):
    variables: Mapping[str, str]
    found: list[Requirement] = msgspec.field(default_factory=list)
    parsed: dict[str, Node | None] = msgspec.field(default_factory=dict)
    # Variables being read (a variable naming itself, directly or not, is not followed again).
    reading: set[str] = msgspec.field(default_factory=set)

    def _variable(self, name: str) -> Node | None:
        if name not in self.parsed:
            text = self.variables.get(name)
            try:
                self.parsed[name] = parse(text) if text is not None else None
            except CelCompileError:
                self.parsed[name] = None
        return self.parsed[name] if name not in self.reading else None

    def _add(self, paths: Iterable[Path], test: Test, values: tuple[str, ...] = ()) -> None:
        self.found += [Requirement(p, test, values) for p in sorted(paths)]

    # ---- what a node is: the fields it reads

    def paths(self, node: Node, env: Mapping[str, Paths]) -> Paths:
        """The fields NODE's value is (a path each), when it is one of the object's."""
        match node:
            case Ident(name):
                return env.get(name, frozenset({()}) if name == OBJECT else _NONE)
            case Select(Ident("variables"), name, False) if VARIABLES not in env:
                return self._variable_paths(name)
            case Select(operand, name, False):
                return frozenset((*p, name) for p in self.paths(operand, env))
            case Index(operand, Lit(value)) if isinstance(value, str):
                return frozenset((*p, value) for p in self.paths(operand, env))
            case Index(operand, Lit(value)) if isinstance(value, int) and not isinstance(value, bool):
                return frozenset((*p, ELEMENT) for p in self.paths(operand, env))
            case Call(target, "orValue" | "value") if target is not None:
                return self.paths(target, env)
            case Binary("+", left, right):
                return self.paths(left, env) | self.paths(right, env)
            case Comprehension("filter", target):
                return self.paths(target, env)
            case Cond(_, then, otherwise):
                return self.paths(then, env) | self.paths(otherwise, env)
        return _NONE

    def _variable_paths(self, name: str) -> Paths:
        ast = self._variable(name)
        if ast is None:
            return _NONE
        self.reading.add(name)
        try:
            return self.paths(ast, {})
        finally:
            self.reading.discard(name)

    def _elements(self, target: Node, env: Mapping[str, Paths]) -> Paths:
        return frozenset((*p, ELEMENT) for p in self.paths(target, env))

    # ---- what a test requires

    def visit(self, node: Node, env: Mapping[str, Paths], positive: bool) -> None:
        """The tests NODE makes, where it must be true (POSITIVE) or false."""
        match node:
            case Logical(_, terms):
                for term in terms:
                    self.visit(term, env, positive)
            case Unary("!", operand):
                self.visit(operand, env, not positive)
            case Cond(_, then, otherwise):
                self.visit(then, env, positive)
                self.visit(otherwise, env, positive)
            case Comprehension(macro, target, var, _, body, var2) if macro in _ELEMENT_TESTS:
                elements = self._elements(target, env)
                inner = {**env, var: elements} if var2 is None else {**env, var: _NONE, var2: elements}
                self.visit(body, inner, positive)
            case Bind(var, init, body):
                self.visit(body, {**env, var: self.paths(init, env)}, positive)
            case Select(operand, name, True):
                if positive:
                    self._add(((*p, name) for p in self.paths(operand, env)), Test.PRESENT)
            case Select(Ident("variables"), name, False) if VARIABLES not in env:
                self._visit_variable(name, positive)
            case Binary("in", left, right):
                self._in(left, right, env, positive)
            case Binary(op, left, right) if op in _COMPARE:
                self._compare(op, left, right, env, positive)
            case Call(target, "isLessThan" | "isGreaterThan" as name, (arg,)) if target is not None:
                # x.isLessThan(y): compareTo(x, y) is -1; isGreaterThan: 1.
                self._bound(target, arg, {-1} if name == "isLessThan" else {1}, env, positive)

    def _visit_variable(self, name: str, positive: bool) -> None:
        ast = self._variable(name)
        if ast is None:
            return
        self.reading.add(name)
        try:
            self.visit(ast, {}, positive)
        finally:
            self.reading.discard(name)

    def _in(self, left: Node, right: Node, env: Mapping[str, Paths], positive: bool) -> None:
        key = _string(left)
        if key is not None and positive:  # 'memory' in c.resources.limits: a map's key
            self._add(((*p, key) for p in self.paths(right, env)), Test.PRESENT)
        elif isinstance(right, ListLit) and positive:
            values = _literals(right.items)
            if values is not None:
                self._add(self.paths(left, env), Test.ONE_OF, values)

    def _compare(self, op: str, left: Node, right: Node, env: Mapping[str, Paths], positive: bool) -> None:
        if op in ("==", "!=") and positive == (op == "=="):
            for path_side, lit_side in ((left, right), (right, left)):
                values = _literals((lit_side,))
                if values is not None:
                    self._add(self.paths(path_side, env), Test.ONE_OF, values)
        if isinstance(left, Lit) and not isinstance(right, Lit):  # 0 >= x.compareTo(y)
            op, left, right = _MIRRORED[op], right, left
        sign = _number(right)
        if sign is not None and isinstance(left, Call) and left.function == "compareTo" and len(left.args) == 1:
            allowed = {s for s in _SIGNS if _COMPARE[op](s, sign)}
            if left.target is not None:
                self._bound(left.target, left.args[0], allowed, env, positive)
            return
        if op in ("==", "!=", ">", ">="):
            self._filter_size(op, left, sign, env, positive)

    def _bound(self, target: Node, arg: Node, allowed: set[int], env: Mapping[str, Paths], positive: bool) -> None:
        """quantity(x) compared with quantity('Q'), where compareTo's sign must be in ALLOWED."""
        if not positive:
            allowed = set(_SIGNS) - allowed
        paths, bound = _quantity_of(target, self, env), _quantity_literal(arg)
        if bound is None:  # quantity('Q').isLessThan(quantity(x)): the mirror
            paths, bound = _quantity_of(arg, self, env), _quantity_literal(target)
            allowed = {-s for s in allowed}
        if bound is None or not paths:
            return
        if allowed == {-1, 0}:
            self._add(paths, Test.AT_MOST, (bound,))
        elif allowed == {0, 1}:
            self._add(paths, Test.AT_LEAST, (bound,))
        elif allowed == {0}:
            self._add(paths, Test.AT_MOST, (bound,))
            self._add(paths, Test.AT_LEAST, (bound,))

    def _filter_size(self, op: str, left: Node, number: int | None, env: Mapping[str, Paths], positive: bool) -> None:
        """size(xs.filter(c, P)) == 0 is xs.all(c, !P); > 0, != 0 and >= 1 are xs.exists(c, P)."""
        match left:
            case Call(None, "size", (Comprehension("filter") as filtered,)) | Call(
                Comprehension("filter") as filtered, "size", ()
            ):
                pass
            case _:
                return
        if number == 0 and op == "==":
            holds = False
        elif (number == 0 and op in ("!=", ">")) or (number == 1 and op == ">="):
            holds = True
        else:
            return
        self.visit(
            filtered.body,
            {**env, filtered.var: self._elements(filtered.target, env)},
            positive if holds else not positive,
        )


def _string(node: Node) -> str | None:
    return node.value if isinstance(node, Lit) and isinstance(node.value, str) else None


def _number(node: Node) -> int | None:
    if isinstance(node, Lit) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return int(node.value)
    return None


def _literals(items: Iterable[Node]) -> tuple[str, ...] | None:
    """The items as JSON texts, when every one is a literal string, number or bool."""
    out: list[str] = []
    for item in items:
        value: Any = item.value if isinstance(item, Lit) else None
        if not isinstance(value, (str, int, float, bool)):
            return None
        out.append(json.dumps(value))
    return tuple(out)


def _quantity_of(node: Node, reader: _Reader, env: Mapping[str, Paths]) -> Paths:
    """The fields `quantity(x)` reads."""
    if isinstance(node, Call) and node.target is None and node.function == "quantity" and len(node.args) == 1:
        return reader.paths(node.args[0], env)
    return _NONE


def _quantity_literal(node: Node) -> str | None:
    """'Q' of `quantity('Q')`."""
    if isinstance(node, Call) and node.target is None and node.function == "quantity" and len(node.args) == 1:
        return _string(node.args[0])
    return None
