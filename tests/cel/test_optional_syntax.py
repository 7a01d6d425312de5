"""cel-go's optional syntax in literals (the API server's policy environments enable cel-go's
OptionalTypes, and with it the parser's EnableOptionalSyntax): optional list elements `[?x]`, map
entries `{?k: x}` and message fields `Msg{?f: x}`. The grammar is parser/gen/CEL.g4 (listInit of
optExpr, mapInitializerList of optExpr keys, fieldInitializerList of optField); an element, entry or
field given optional.none() is left out (an entry or field also removes an earlier one of its key),
given optional.of(v) is v, given anything else is cel-go's runtime error (interpreter/
interpretable.go, invalidOptionalEntryInit, invalidOptionalElementInit) or, where the value is a
literal, the checker's type mismatch (checker/checker.go, checkCreateList/Map/Struct).

Each case cites the cel-go test it is ported from (google/cel-go, file and test name)."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cel.errors import CelCompileError, CelError
from podwhy.cel.interpreter import Program
from podwhy.cel.library import mutation
from podwhy.cel.library.optional import NONE, Optional, of
from podwhy.cel.nodes import Ident, ListLit, Lit, MapLit, StructLit
from podwhy.cel.parser import parse
from podwhy.cluster.apiserver.admission.policy.cel import FUNCTIONS


def _eval(expression: str, variables: dict[str, Any] | None = None) -> Any:
    return Program(expression, functions=FUNCTIONS).evaluate(variables or {})


def test_parse_optional_literals() -> None:
    """parser/parser_test.go, testCases with EnableOptionalSyntax(true): `{?'key': value}`,
    `[?a, ?b]`, `[?a[?b]]`, `Msg{?field: value}` parse, the `?` marking the entry, not its key."""
    assert parse("{?'key': value}") == MapLit(((Lit("key"), Ident("value")),), (0,))
    assert parse("[?a, ?b]") == ListLit((Ident("a"), Ident("b")), (0, 1))
    nested = parse("[?a[?b]]")
    assert isinstance(nested, ListLit) and nested.optional == (0,)
    assert parse("Msg{?field: value}") == StructLit("Msg", (("field", Ident("value"), True),))
    # Not optional: a conditional key, a plain list, and trailing commas (CEL.g4's `','?`).
    assert parse("{a ? 'x' : 'y': 1}") == MapLit(((parse("a ? 'x' : 'y'"), Lit(1)),))
    assert parse("[a, ?b,]") == ListLit((Ident("a"), Ident("b")), (1,))
    assert parse("{'a': 1, ?'b': x,}") == MapLit(((Lit("a"), Lit(1)), (Lit("b"), Ident("x"))), (1,))
    # listInit and mapInitializerList are optional before that comma: `[,]` and `{,}` are empty.
    assert parse("[,]") == ListLit(())
    assert parse("{,}") == MapLit(())
    assert _eval("[,] == [] && {,} == {} && size([ , ]) == 0") is True
    for wrong in ("[,,]", "{,,}", "[1,,]", "[,1]", "{,'a': 1}"):
        with pytest.raises(CelCompileError):
            parse(wrong)


EVALUATIONS = [
    # interpreter/interpreter_test.go, testData: literal_map_optional_field
    ("{?'hi': {}.?missing, ?'world': {'present': 42u}.?present}", {}, {"world": 42}),
    # interpreter/interpreter_test.go, testData: literal_list_optional_element
    ("[?{}.?missing, ?{'present': 42u}.?present]", {}, [42]),
    # cel/folding_test.go, TestConstantFoldingOptimizer (the folded forms' values)
    ("[?optional.ofNonZeroValue(0)]", {}, []),
    ("[1, ?optional.ofNonZeroValue(0)]", {}, [1]),
    ("[optional.none(), ?x]", {"x": of(2)}, [NONE, 2]),
    ("[?optional.none(), ?x]", {"x": NONE}, []),
    ("[1, x, ?optional.ofNonZeroValue(3), ?x.?y]", {"x": {"y": 4}}, [1, {"y": 4}, 3, 4]),
    ("[1, x, ?optional.ofNonZeroValue(0), ?x.?y]", {"x": {}}, [1, {}]),
    ("{?'a': optional.of('hello'), ?x : optional.of(1), ?'b': optional.none()}", {"x": "k"}, {"a": "hello", "k": 1}),
    ("{?'hello': optional.of('world')}['hello'] == x", {"x": "world"}, True),
    # interpreter/prune_test.go, testCases
    ("[1, 2, 3, ?optional.none()]", {}, [1, 2, 3]),
    ("[1, 2, 3, ?optional.of(10)]", {}, [1, 2, 3, 10]),
    ("{1: 2, ?3: optional.none()}", {}, {1: 2}),
    ("[?optional.of(10), a, 2, 3]", {"a": 1}, [10, 1, 2, 3]),
    ("'hi' in {?a: optional.of('world')}", {"a": "hi"}, True),
    ("{?a: b.?c}", {"a": "hi", "b": {"c": 1}}, {"hi": 1}),
    # cel/cel_test.go, TestOptionalValuesEval
    ("has({?'foo': optional.none()}.foo)", {}, False),
    ("has({'foo': optional.none()}.foo)", {}, True),
    ("optional.ofNonZeroValue({?'nested_map': optional.ofNonZeroValue({?'map': m.?c})})", {"m": {}}, NONE),
    # ext/comprehensions_test.go, TestTwoVarComprehensions
    (
        "'key1:value1:extra key2:value2 key3'.split(' ')"
        ".transformMapEntry(i, v, cel.bind(entry, v.split(':'), {?entry[0]: entry[?1]}))"
        " == {'key1': 'value1', 'key2': 'value2'}",
        {},
        True,
    ),
    # interpretable.go evalMap: an optional none removes an earlier entry of its key.
    ("{'a': 1, ?'a': optional.none()}", {}, {}),
    ("{'a': 1, ?'a': optional.of(2)}", {}, {"a": 2}),
    # A repeated key keeps its last value: cel-go has no repeated-key error (conformance/BUILD.bazel
    # skips cel-spec's fields/qualified_identifier_resolution/map_value_repeat_key).
    ("{'a': 1, 'a': 2}", {}, {"a": 2}),
]


@pytest.mark.parametrize(("expression", "variables", "expected"), EVALUATIONS)
def test_optional_literals_evaluate(expression: str, variables: dict[str, Any], expected: Any) -> None:
    assert _eval(expression, variables) == expected


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        # interpreter/interpreter_test.go, testData: literal_map_optional_field_bad_init (unchecked)
        ("{?'hi': x}", "cannot initialize optional entry 'hi' from non-optional value world"),
        # interpreter/interpreter_test.go, testData: literal_list_optional_bad_element (unchecked)
        ("[?y]", "cannot initialize optional list element from non-optional value 123"),
        # cel/cel_test.go, TestOptionalValuesEval
        ("has({?'foo': optional.none()}.foo.value)", "no such key: foo"),
    ],
)
def test_optional_literal_errors(expression: str, error: str) -> None:
    with pytest.raises(CelError) as exc:
        _eval(expression, {"x": "world", "y": 123})
    assert str(exc.value) == error


def test_optional_message_fields() -> None:
    """interpreter/interpreter_test.go, testData: literal_pb_optional_field and
    literal_pb_optional_field_bad_init, with the mutating policies' Object type."""
    program = Program("Object{?spec: {'value': 1}.?value, ?status: {}.?missing}", types=mutation.resolve_type)
    assert mutation.to_json(program.evaluate({})) == {"spec": 1}
    bad = Program("Object{?spec: x}", types=mutation.resolve_type).run({"x": 1})
    assert bad.error is not None
    assert str(bad.error) == "cannot initialize optional entry 'spec' from non-optional value 1"


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        # checker/checker_test.go, testCases: `{?'key': 'hi'}` and `[?'value']`
        (
            "{?'key': 'hi'}",
            "ERROR: <input>:1:10: expected type 'optional_type(string)' but found 'string'\n"
            " | {?'key': 'hi'}\n | .........^",
        ),
        (
            "[?'value']",
            "ERROR: <input>:1:3: expected type 'optional_type(string)' but found 'string'\n | [?'value']\n | ..^",
        ),
        # checker/checker_test.go, testCases: `TestAllTypes{?single_int32: 1}` (here the Object type)
        (
            "Object{?spec: 1}",
            "ERROR: <input>:1:15: expected type 'optional_type(int)' but found 'int'\n"
            " | Object{?spec: 1}\n | ..............^",
        ),
    ],
)
def test_optional_literal_type_mismatch(expression: str, error: str) -> None:
    with pytest.raises(CelCompileError) as exc:
        Program(expression, declarations=frozenset(), types=mutation.resolve_type)
    assert str(exc.value) == error


def test_optional_value_kept_whole() -> None:
    """An optional in a plain element or entry is a value like any other."""
    assert _eval("[optional.none()]") == [NONE]
    assert _eval("{'a': optional.of(1)}") == {"a": Optional(True, 1)}


# cel/cel_test.go, TestOptionalValuesEval: the library's macros (version 1) and list functions
# (version 2), which the API server has (cel.OptionalTypes() at its latest version).
LIBRARY = [
    ("x.optMap(y, y + 1)", {"x": NONE}, NONE),
    ("x.optMap(y, y + 1)", {"x": of(42)}, of(43)),
    ("m.?key.optFlatMap(k, k.?subkey)", {"m": {}}, NONE),
    ("m.?key.optFlatMap(k, k.?subkey)", {"m": {"key": {}}}, NONE),
    ("m.?key.optFlatMap(k, k.?subkey)", {"m": {"key": {"subkey": "subvalue"}}}, of("subvalue")),
    ("m.?key.optFlatMap(k, k.?subkey)", {"m": {"key": {"subkey": ""}}}, of("")),
    ("m.?key.optFlatMap(k, optional.ofNonZeroValue(k.subkey))", {"m": {"key": {"subkey": ""}}}, NONE),
    ("[].first()", {}, NONE),
    ("['a','b','c'].first()", {}, of("a")),
    ("[].last()", {}, NONE),
    ("[1, 2, 3].last()", {}, of(3)),
    ("optional.unwrap([])", {}, []),
    ("optional.unwrap([optional.none(), optional.none()])", {}, []),
    ("optional.unwrap([optional.of(42), optional.none(), optional.of('a')])", {}, [42, "a"]),
    ("optional.unwrap([optional.of(42), optional.of('a')])", {}, [42, "a"]),
    ("[].unwrapOpt()", {}, []),
    ("[optional.none(), optional.none()].unwrapOpt()", {}, []),
    ("[optional.of(42), optional.none(), optional.of('a')].unwrapOpt()", {}, [42, "a"]),
    ("[optional.of(42), optional.of('a')].unwrapOpt()", {}, [42, "a"]),
    # The same binding of the variable as cel.bind: the outer name is shadowed, then restored.
    ("x.optMap(x, x + 1).value() + x.value()", {"x": of(1)}, 3),
]


@pytest.mark.parametrize(("expression", "variables", "expected"), LIBRARY)
def test_optional_library(expression: str, variables: dict[str, Any], expected: Any) -> None:
    program = Program(expression, declarations=frozenset(variables), functions=FUNCTIONS)
    assert program.evaluate(variables) == expected


@pytest.mark.parametrize("expression", ["x.optMap(y.z, y.z + 1)", "x.optFlatMap(y.z, y.z + 1)"])
def test_optional_macro_error(expression: str) -> None:
    """cel/cel_test.go, TestOptionalMacroError."""
    with pytest.raises(CelCompileError, match="variable name must be a simple identifier"):
        Program(expression, declarations=frozenset({"x"}))


def test_unwrap_of_a_value_not_optional() -> None:
    """cel/library.go optUnwrap: `value %v is not optional`."""
    assert str(Program("[1].unwrapOpt()").run({}).error) == "value 1 is not optional"
