"""The evaluator: a parsed expression run against a variable binding."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from podwhy.cel.calls import UNEVALUATED_IDENTS, UNEVALUATED_MACROS, Function, call_global, call_method, unevaluated
from podwhy.cel.checker import undeclared_references
from podwhy.cel.errors import NO_SUCH_OVERLOAD, UNEVALUATED_NAME, CelCompileError, CelError, CelNotEvaluatedError
from podwhy.cel.library.optional import INVALID_OPTIONAL_ELEMENT, INVALID_OPTIONAL_ENTRY, NONE, Optional, go_value, of
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
from podwhy.cel.operators import (
    MISSING,
    arith,
    cel_equal,
    compare,
    format_key,
    index,
    map_find,
    try_equal,
)
from podwhy.cel.parser import parse
from podwhy.cel.values import (
    DefaultingMap,
    LazyMap,
    UInt,
    Unevaluated,
    check_int,
    is_number,
    type_name,
)

# The runtime cost limit of one evaluation unless the caller sets another: the API server's
# celconfig.PerCallLimit (DRA's resourceapi.CELSelectorExpressionMaxCost is the same number), and
# cel-go's error past it.
PER_CALL_LIMIT = 1_000_000
COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
# Where an evaluation keeps its cost and its environment's functions in the variable binding:
# not identifiers CEL can name.
_COST = "@cost"
_FUNCTIONS = "@functions"
_TYPES = "@types"

# What an environment's type provider gives for a message type's name: its constructor (from the
# fields set), or None for a name it does not know.
TypeResolver = Callable[[str], Callable[[Mapping[str, Any]], Any] | None]


def _no_types(name: str) -> None:
    return None


class Outcome(msgspec.Struct, frozen=True):
    """An evaluation: its value, or the error it ended with, and its actual cost either way."""

    value: Any
    error: CelError | None
    cost: int


class Program:
    """A parsed expression, evaluated against a variable binding.

    With `declarations` (the variables the environment declares), the expression is checked as
    cel-go's checker does for names: a variable or function it does not know is a compile error
    worded as cel-go's (`ERROR: <input>:1:1: undeclared reference to 'x' (in container '')`).
    `functions` are the environment's own global functions (libraries it adds)."""

    def __init__(
        self,
        expression: str,
        declarations: frozenset[str] | None = None,
        functions: Mapping[str, Function] | None = None,
        types: TypeResolver | None = None,
    ) -> None:
        self.expression = expression
        self.ast = parse(expression)
        self.functions: Mapping[str, Function] = functions or {}
        self.types: TypeResolver = types or _no_types
        if declarations is not None:
            issues = undeclared_references(self.ast, expression, declarations, frozenset(self.functions), self.types)
            if issues:
                raise CelCompileError("\n".join(issues))

    def evaluate(self, variables: Mapping[str, Any], cost_limit: int = PER_CALL_LIMIT) -> Any:
        """The value; CelError once the evaluation's cost passes cost_limit. The cost is counted
        as cel-go's actual cost is, in its units: one per step evaluated, plus the size of what a
        step walks (a list `in` looks through, a tenth of the strings and lists concatenated or
        searched), so a nested or doubling expression stops as the DRA allocator stops it."""
        return _eval(self.ast, {**variables, _COST: [0, cost_limit], _FUNCTIONS: self.functions, _TYPES: self.types})

    def run(self, variables: Mapping[str, Any], cost_limit: int = PER_CALL_LIMIT) -> Outcome:
        """The evaluation with its cost, as cel-go's evaluation details give it."""
        cost = [0, cost_limit]
        try:
            value = _eval(self.ast, {**variables, _COST: cost, _FUNCTIONS: self.functions, _TYPES: self.types})
        except CelError as exc:
            return Outcome(None, exc, cost[0])
        return Outcome(value, None, cost[0])


def _charge(env: dict[str, Any], amount: int) -> None:
    cost = env[_COST]
    cost[0] += amount
    if cost[0] > cost[1]:
        raise CelError(COST_LIMIT_EXCEEDED)


def _sized(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, list, dict)) else 0


def _eval(node: Node, env: dict[str, Any]) -> Any:
    _charge(env, 1)
    if isinstance(node, Lit):
        return node.value
    if isinstance(node, Ident):
        if node.name in env:
            value = env[node.name]
            if isinstance(value, Unevaluated):
                raise CelNotEvaluatedError(value.name)
            return value
        if node.name in UNEVALUATED_IDENTS:
            raise CelNotEvaluatedError(UNEVALUATED_NAME + node.name)
        raise CelError(f"no such attribute(s): {node.name}")
    if isinstance(node, Select):
        return _eval_select(node, env)
    if isinstance(node, Index):
        return _eval_index(node, env)
    if isinstance(node, Logical):
        return _eval_logical(node, env)
    if isinstance(node, Cond):
        cond = _eval(node.cond, env)
        if not isinstance(cond, bool):
            raise CelError(NO_SUCH_OVERLOAD)
        return _eval(node.then if cond else node.otherwise, env)
    if isinstance(node, Unary):
        return _eval_unary(node, env)
    if isinstance(node, Binary):
        return _eval_binary(node, env)
    if isinstance(node, ListLit):
        return _eval_list(node, env) if node.optional else [_eval(item, env) for item in node.items]
    if isinstance(node, MapLit):
        return _eval_map(node, env)
    if isinstance(node, Call):
        return _eval_call(node, env)
    if isinstance(node, Comprehension):
        return _eval_comprehension(node, env)
    if isinstance(node, StructLit):
        return _eval_struct(node, env)
    if isinstance(node, Bind):
        scope = dict(env)
        scope[node.var] = _eval(node.init, env)
        return _eval(node.body, scope)
    raise CelError(f"unsupported expression node {type(node).__name__}")  # pragma: no cover


def _eval_unary(node: Unary, env: dict[str, Any]) -> Any:
    value = _eval(node.operand, env)
    if node.op == "!":
        if not isinstance(value, bool):
            raise CelError(NO_SUCH_OVERLOAD)
        return not value
    if isinstance(value, bool) or isinstance(value, UInt) or not is_number(value):
        raise CelError(NO_SUCH_OVERLOAD)
    return -value if isinstance(value, float) else check_int(-value)


def _eval_list(node: ListLit, env: dict[str, Any]) -> list[Any]:
    """A list with optional elements: an element there is added only when present."""
    out: list[Any] = []
    for i, item in enumerate(node.items):
        value = _eval(item, env)
        if i in node.optional:
            if not isinstance(value, Optional):
                raise CelError(f"{INVALID_OPTIONAL_ELEMENT} {go_value(value)}")
            if not value.present:
                continue
            value = value.value
        out.append(value)
    return out


def _eval_map(node: MapLit, env: dict[str, Any]) -> dict[Any, Any]:
    """A map literal as cel-go's evalMap builds it: a repeated key keeps its last value (cel-go
    has no repeated-key error: its conformance run skips cel-spec's map_value_repeat_key); an
    optional entry sets its optional's value, and given none removes the key."""
    out: dict[Any, Any] = {}
    for i, (key_node, val_node) in enumerate(node.entries):
        key = _eval(key_node, env)
        if not isinstance(key, (str, int)) and key is not None:
            raise CelError(f"unsupported key type: {type_name(key)}")
        value = _eval(val_node, env)
        if i in node.optional:
            value = _optional_entry(key, value)
            if value is MISSING:  # none: the entry is left out, and an earlier one of its key removed
                out.pop(key, None)
                continue
        out[key] = value
    return out


def _optional_entry(key: Any, value: Any) -> Any:
    """The value an optional entry or field sets: the optional's value, MISSING for none; an
    error for a value that is not an optional (cel-go's invalidOptionalEntryInit)."""
    if not isinstance(value, Optional):
        raise CelError(INVALID_OPTIONAL_ENTRY.format(key=format_key(key), value=go_value(value)))
    return value.value if value.present else MISSING


def _eval_struct(node: StructLit, env: dict[str, Any]) -> Any:
    """A message of the environment's type NAME, from the fields set (an optional field set only
    when its value is present)."""
    constructor = env[_TYPES](node.name)
    if constructor is None:
        raise CelError(f"unknown type: {node.name}")
    fields: dict[str, Any] = {}
    for name, value_node, optional in node.fields:
        value = _eval(value_node, env)
        if optional:
            value = _optional_entry(name, value)
            if value is MISSING:
                fields.pop(name, None)
                continue
        fields[name] = value
    return constructor(fields)


def _eval_index(node: Index, env: dict[str, Any]) -> Any:
    operand = _eval(node.operand, env)
    key = _eval(node.index, env)
    if isinstance(operand, Optional) or node.optional:
        return _optional_step(operand, lambda container: index(container, key))
    if isinstance(operand, LazyMap):
        return operand.lookup(key)
    return index(operand, key)


def _optional_step(operand: Any, step: Callable[[Any], Any]) -> Optional:
    """`.?f`, `[?k]`, and any selection after them: none when the operand is none or lacks it."""
    if isinstance(operand, Optional):
        if not operand.present:
            return NONE
        operand = operand.value
    if isinstance(operand, (dict, list, LazyMap)) or operand is None:
        try:
            return of(step(operand))
        except CelError as exc:
            if str(exc).startswith(("no such key", "index out of bounds")):
                return NONE
            raise
    return of(step(operand))


def _eval_select(node: Select, env: dict[str, Any]) -> Any:
    operand = _eval(node.operand, env)
    if (isinstance(operand, Optional) or node.optional) and not node.test_only:
        return _optional_step(operand, lambda container: _select(container, node.field, False))
    return _select(operand, node.field, node.test_only)


def _select(operand: Any, field: str, test_only: bool) -> Any:
    if isinstance(operand, LazyMap) or hasattr(operand, "equal"):  # a lazy map, a constructed message
        return operand.has(field) if test_only else operand.lookup(field)
    if isinstance(operand, Optional) and test_only:
        return operand.present and _select(operand.value, field, True)
    if isinstance(operand, DefaultingMap):
        return True if test_only else operand.lookup(field)
    if isinstance(operand, dict):
        found = map_find(operand, field)
        if test_only:
            return found is not MISSING
        if found is MISSING:
            raise CelError(f"no such key: {field}")
        return found
    if test_only:
        raise CelError(f"invalid type for field selection: {type_name(operand)}")
    raise CelError(f"no such key: {field}")


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
        return try_equal(left, right) is not True
    if op in ("<", "<=", ">", ">="):
        cmp = compare(left, right)
        return {"<": cmp < 0, "<=": cmp <= 0, ">": cmp > 0, ">=": cmp >= 0}[op]
    if op == "in":
        if isinstance(right, list):
            _charge(env, len(right))
            return any(try_equal(left, item) is True for item in right)
        if isinstance(right, dict):
            return map_find(right, left) is not MISSING
        raise CelError(NO_SUCH_OVERLOAD)
    result = arith(op, left, right)
    _charge(env, _sized(result) // 10)
    return result


def _eval_call(node: Call, env: dict[str, Any]) -> Any:
    if unevaluated(node.function, node.target is not None) and node.function not in env[_FUNCTIONS]:
        if node.target is not None and node.function not in UNEVALUATED_MACROS:
            _eval(node.target, env)  # an error or what is not evaluated of the receiver first
        raise CelNotEvaluatedError(UNEVALUATED_NAME + node.function)
    if node.target is None:
        args = [_eval(arg, env) for arg in node.args]
        _charge(env, sum(_sized(arg) for arg in args) // 10)
        return call_global(node.function, args, env[_FUNCTIONS])
    target = _eval(node.target, env)
    args = [_eval(arg, env) for arg in node.args]
    _charge(env, (_sized(target) + sum(_sized(arg) for arg in args)) // 10)
    return call_method(node.function, target, args)


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
        return _fold_all_exists(node, items, run)
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


def _fold_all_exists(node: Comprehension, items: list[Any], run: Callable[[Node, Any], Any]) -> bool:
    """Folded like a chain of && (all) or || (exists): errors are absorbed by a deciding value."""
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
            if map_find(out, key) is not MISSING:
                raise CelError(f"insert failed: key {format_key(key)} already exists")
            out[key] = value
    return out
