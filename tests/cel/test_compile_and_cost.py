"""Compile errors as cel-go's checker words them for undeclared names, the authorizer as not
evaluated, lazily evaluated variables, and the runtime cost limit of one evaluation
(k8s.io/apiserver/pkg/apis/cel/config.go PerCallLimit; the "expensive" case of
k8s.io/apiserver/pkg/admission/plugin/cel/compile_test.go)."""

from __future__ import annotations

import pytest

from podwhy.cel.errors import CelCompileError, CelError, CelNotEvaluatedError
from podwhy.cel.interpreter import PER_CALL_LIMIT, Program
from podwhy.cel.values import LazyMap, Unevaluated

DECLARED = frozenset({"object", "oldObject", "request", "authorizer"})


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("x", "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^"),
        (
            "object.a == y",
            "ERROR: <input>:1:13: undeclared reference to 'y' (in container '')\n | object.a == y\n | ............^",
        ),
        (
            "params.x && foo(1)",
            "ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x && foo(1)\n | ^\n"
            "ERROR: <input>:1:16: undeclared reference to 'foo' (in container '')\n | params.x && foo(1)\n"
            " | ...............^",
        ),
        (
            "object.bar()",
            "ERROR: <input>:1:11: undeclared reference to 'bar' (in container '')\n | object.bar()\n | ..........^",
        ),
    ],
)
def test_undeclared_references_are_compile_errors(expression: str, error: str) -> None:
    with pytest.raises(CelCompileError) as exc:
        Program(expression, declarations=DECLARED)
    assert str(exc.value) == error


@pytest.mark.parametrize(
    "expression",
    [
        "object.items.all(i, i > 0)",
        "object.m.all(k, v, k != v)",
        "cel.bind(z, object.a, z + 1) > 0",
        "has(object.a) && size(object.b) > 0",
        "optional.of(object).hasValue()",
        "authorizer.group('apps').resource('deployments').check('create').allowed()",
    ],
)
def test_declared_names_and_macro_variables_compile(expression: str) -> None:
    Program(expression, declarations=DECLARED)


def test_without_declarations_nothing_is_checked() -> None:
    """DRA's selectors are compiled so: an unknown name is a runtime error there."""
    with pytest.raises(CelError, match="no such attribute"):
        Program("x").evaluate({})


def test_the_authorizer_is_not_evaluated_unless_absorbed() -> None:
    bindings = {"authorizer": Unevaluated("authorizer")}
    program = Program("authorizer.group('').check('get').allowed()", declarations=DECLARED)
    with pytest.raises(CelNotEvaluatedError) as exc:
        program.evaluate(bindings)
    assert exc.value.what == "authorizer"
    assert Program("true || authorizer.check('get').allowed()").evaluate(bindings) is True
    assert Program("false && authorizer.check('get').allowed()").evaluate(bindings) is False


def test_lazy_variables_are_evaluated_once_and_keep_their_error() -> None:
    calls: list[str] = []

    def resolve(name: str) -> int:
        calls.append(name)
        if name == "bad":
            raise CelError("no such key: x")
        return 2

    variables = LazyMap(frozenset({"two", "bad"}), resolve)
    assert Program("variables.two + variables.two + variables['two']").evaluate({"variables": variables}) == 6
    assert calls == ["two"]
    assert Program("has(variables.two) && !has(variables.three)").evaluate({"variables": variables}) is True
    for _ in range(2):
        with pytest.raises(CelError, match="no such key: x"):
            Program("variables.bad").evaluate({"variables": variables})
    assert calls == ["two", "bad"]
    with pytest.raises(CelError, match="no such key: three"):
        Program("variables.three").evaluate({"variables": variables})


TEN = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"


def test_an_expensive_expression_stops_at_the_per_call_limit() -> None:
    """compile_test.go's "expensive" expression: ten to the seventh steps."""
    expression = (
        f"{TEN}.all(x, {TEN}.all(y, {TEN}.all(z, {TEN}.all(z2, {TEN}.all(z3, {TEN}.all(z4, {TEN}.all(z5,"
        " int('1'.find('[0-9]*')) < 100)))))))"
    )
    outcome = Program(expression, declarations=DECLARED).run({})
    assert str(outcome.error) == "operation cancelled: actual cost limit exceeded"
    assert outcome.cost > PER_CALL_LIMIT


def test_run_reports_the_cost_of_a_cheap_expression() -> None:
    outcome = Program("[1, 2, 3].exists(x, x == 3)").run({})
    assert outcome.value is True and outcome.error is None
    assert 0 < outcome.cost < 100
