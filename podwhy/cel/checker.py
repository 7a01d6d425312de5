"""What cel-go's checker says of names before evaluation: a variable or function the environment
does not declare is `undeclared reference to 'x' (in container '')`, located as cel-go locates it;
a literal given where cel-go's optional syntax wants an optional (`{?'k': 'v'}`, `[?1]`,
`Msg{?f: 1}`) is `expected type 'optional_type(string)' but found 'string'`.

Other types are not checked (object, oldObject, params and the rest are dynamic in the API server's
environment too); a wrong operand type is a runtime error here (`no such overload`)."""

from __future__ import annotations

from collections.abc import Callable

from podwhy.cel.calls import GLOBAL_FUNCTIONS, METHOD_NAMES, UNEVALUATED_IDENTS, UNEVALUATED_MACROS, unevaluated
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
from podwhy.cel.parser import display_error
from podwhy.cel.values import UInt


def _undeclared(name: str) -> str:
    return f"undeclared reference to '{name}' (in container '')"


def undeclared_references(
    ast: Node,
    text: str,
    declared: frozenset[str],
    functions: frozenset[str],
    types: Callable[[str], object] | None = None,
) -> list[str]:
    """cel-go's issues for unknown names (variables, functions, and message types TYPES does not
    resolve), in the order of their place in the text."""
    found: list[tuple[int, str]] = []
    _walk(ast, declared, functions, found, types or (lambda name: None))
    found.sort(key=lambda issue: issue[0])
    return [display_error(text, pos, message) for pos, message in found]


def _walk(
    node: Node,
    scope: frozenset[str],
    functions: frozenset[str],
    found: list[tuple[int, str]],
    types: Callable[[str], object],
) -> None:
    if isinstance(node, StructLit) and types(node.name) is None:
        found.append((node.pos, _undeclared(node.name)))
    for value in _optional_values(node):
        kind = literal_type(value)
        if isinstance(value, Lit) and kind is not None:
            found.append((value.pos, f"expected type 'optional_type({kind})' but found '{kind}'"))
    if isinstance(node, Ident):
        if node.name not in scope and node.name not in UNEVALUATED_IDENTS:
            found.append((node.pos, _undeclared(node.name)))
        return
    if isinstance(node, Call):
        known = node.function in functions or unevaluated(node.function, node.target is not None)
        known = known or (node.function in GLOBAL_FUNCTIONS if node.target is None else node.function in METHOD_NAMES)
        if not known:
            found.append((node.pos, _undeclared(node.function)))
        if node.function in UNEVALUATED_MACROS and node.target is not None and node.function not in functions:
            _walk(node.target, scope, functions, found, types)  # its arguments: a variable, what it binds
            return
    if isinstance(node, Comprehension):
        _walk(node.target, scope, functions, found, types)
        inner = scope | {node.var} | ({node.var2} if node.var2 else set())
        for part in (node.filter, node.body):
            if part is not None:
                _walk(part, inner, functions, found, types)
        return
    if isinstance(node, Bind):
        _walk(node.init, scope, functions, found, types)
        _walk(node.body, scope | {node.var}, functions, found, types)
        return
    for child in _children(node):
        _walk(child, scope, functions, found, types)


def _optional_values(node: Node) -> tuple[Node, ...]:
    """The values of a literal's optional elements, entries or fields: each must be an optional."""
    if isinstance(node, ListLit):
        return tuple(node.items[i] for i in node.optional)
    if isinstance(node, MapLit):
        return tuple(node.entries[i][1] for i in node.optional)
    if isinstance(node, StructLit):
        return tuple(value for _, value, optional in node.fields if optional)
    return ()


# A literal's type as cel-go's checker names it (UInt before int: it is an int subclass).
_LITERAL_TYPES = ((bool, "bool"), (UInt, "uint"), (int, "int"), (float, "double"), (str, "string"), (bytes, "bytes"))


def literal_type(node: Node) -> str | None:
    """The type cel-go's checker gives a literal; None for anything else."""
    if not isinstance(node, Lit):
        return None
    if node.value is None:
        return "null_type"
    return next((name for kind, name in _LITERAL_TYPES if isinstance(node.value, kind)), None)


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Select):
        return (node.operand,)
    if isinstance(node, Index):
        return (node.operand, node.index)
    if isinstance(node, Call):
        return (*((node.target,) if node.target is not None else ()), *node.args)
    if isinstance(node, ListLit):
        return node.items
    if isinstance(node, MapLit):
        return tuple(part for entry in node.entries for part in entry)
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Logical):
        return node.terms
    if isinstance(node, Cond):
        return (node.cond, node.then, node.otherwise)
    if isinstance(node, StructLit):
        return tuple(value for _, value, _ in node.fields)
    return ()
