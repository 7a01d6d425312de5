"""What cel-go's checker says of names before evaluation: a variable or function the environment
does not declare is `undeclared reference to 'x' (in container '')`, located as cel-go locates it.

Types are not checked (object, oldObject, params and the rest are dynamic in the API server's
environment too); a wrong operand type is a runtime error here (`no such overload`)."""

from __future__ import annotations

from collections.abc import Callable

from podwhy.cel.calls import GLOBAL_FUNCTIONS, METHOD_NAMES
from podwhy.cel.nodes import (
    Binary,
    Bind,
    Call,
    Comprehension,
    Cond,
    Ident,
    Index,
    ListLit,
    Logical,
    MapLit,
    Node,
    Select,
    StructLit,
    Unary,
)
from podwhy.cel.parser import display_error


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
    if isinstance(node, Ident):
        if node.name not in scope:
            found.append((node.pos, _undeclared(node.name)))
        return
    if isinstance(node, Call):
        known = node.function in functions or (
            node.function in GLOBAL_FUNCTIONS if node.target is None else node.function in METHOD_NAMES
        )
        if not known:
            found.append((node.pos, _undeclared(node.function)))
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
