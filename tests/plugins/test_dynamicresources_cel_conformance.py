"""The CEL evaluator against upstream's own test cases.

- The CEL conformance suite (cel-spec v0.24.0, the version cel-go v0.26.0 builds against), for
  the files whose features device selectors can use: see tests/plugins/cel_spec_cases.py.
- The Kubernetes quantity library's cases (k8s.io/apiserver/pkg/cel/library/quantity_test.go).

Every case runs unless a rule in SPEC_SKIPS or QUANTITY_SKIPS names it, with the reason.
Expected errors are checked as errors only: the suite does not fix their wording (cel-go's
own wording is checked in test_dynamicresources_cel.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from podwhy.cel.errors import CelError
from podwhy.cel.interpreter import Program
from podwhy.cel.values import UInt, type_name
from podwhy.model.quantity import Quantity
from tests.plugins.cel_spec_cases import CASES, CEL_SPEC_FILES, EVAL_ERROR, SpecCase

# Suite files left out whole, and why.
SKIPPED_SPEC_FILES: dict[str, str] = {
    "timestamps": "timestamp and duration values: device attributes have no time types",
    "proto2": "protobuf messages: device selectors see none",
    "proto3": "protobuf messages: device selectors see none",
    "proto2_ext": "protobuf extensions: device selectors see no messages",
    "wrappers": "protobuf wrapper types: device selectors see no messages",
    "enums": "protobuf enums: device selectors see no messages",
    "fields": "protobuf message fields and JSON values: device selectors see no messages",
    "dynamic": "protobuf well-known types: device selectors see no messages",
    "namespace": "containers (namespace resolution): the device selector environment has none",
    "type_deduction": "type-checker results only (no evaluation)",
    "unknowns": "partial evaluation with unknowns: the scheduler evaluates with every value known",
    "optionals": "optional types: not implemented (device selectors have no optional fields)",
    "math_ext": "cel-go ext.Math: not in the Kubernetes environment",
    "encoders_ext": "cel-go ext.Encoders: not in the Kubernetes environment",
    "block_ext": "cel.block: an optimizer's output, not written in selectors",
}

_PROTO_MARKERS = ("google.protobuf.", "TestAllTypes", "cel.expr.conformance")

# (reason, predicate): a case is skipped for the first rule that matches it.
SPEC_SKIPS: list[tuple[str, Callable[[SpecCase], bool]]] = [
    (
        "protobuf messages or a namespace container: device selectors have neither",
        lambda case: case.unrepresentable == "container" or any(m in case.expr for m in _PROTO_MARKERS),
    ),
    (
        "timestamp() and duration(): device attributes have no time types",
        lambda case: "timestamp(" in case.expr or "duration(" in case.expr,
    ),
    (
        "type values (type(), type denotations): the evaluator has none",
        lambda case: case.unrepresentable == "type_value" or "type(" in case.expr,
    ),
    (
        "format() and strings.quote() (ext.Strings v1): not implemented, device selectors build no text",
        lambda case: ".format(" in case.expr or "strings.quote(" in case.expr,
    ),
    (
        "cel-go v0.26.0 returns -1 for an indexOf/lastIndexOf offset past the end; the suite expects an error",
        lambda case: (
            case.id
            in ("string_ext/value_errors/indexof_out_of_range", "string_ext/value_errors/lastindexof_out_of_range")
        ),
    ),
]


def _skip_reason(case: SpecCase) -> str | None:
    for reason, applies in SPEC_SKIPS:
        if applies(case):
            return reason
    if case.unrepresentable:
        return f"not expressible here: {case.unrepresentable}"
    return None


def same_value(got: Any, want: Any) -> bool:
    """Equal values of the same CEL type (1 and 1u and 1.0 differ; NaN equals NaN; -0.0 is not 0.0)."""
    if type_name(got) != type_name(want):
        return False
    if isinstance(want, float):
        if math.isnan(want):
            return math.isnan(got)
        return bool(got == want) and math.copysign(1.0, got) == math.copysign(1.0, want)
    if isinstance(want, list):
        return len(got) == len(want) and all(same_value(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict):
        if len(got) != len(want):
            return False
        for key, value in want.items():
            matches = [k for k in got if type_name(k) == type_name(key) and k == key]
            if len(matches) != 1 or not same_value(got[matches[0]], value):
                return False
        return True
    return bool(got == want)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_cel_spec_case(case: SpecCase) -> None:
    reason = _skip_reason(case)
    if reason is not None:
        pytest.skip(reason)
    program = Program(case.expr)
    if case.expected is EVAL_ERROR:
        with pytest.raises(CelError):
            program.evaluate(case.bindings)
        return
    got = program.evaluate(case.bindings)
    assert same_value(got, case.expected), f"{case.expr} gave {got!r}, the suite expects {case.expected!r}"


def test_every_spec_skip_rule_is_used() -> None:
    for reason, applies in SPEC_SKIPS:
        assert any(applies(case) for case in CASES), f"stale skip rule: {reason}"


def test_spec_files_are_either_run_or_skipped_with_a_reason() -> None:
    assert not set(CEL_SPEC_FILES) & set(SKIPPED_SPEC_FILES)
    assert {case.id.split("/")[0] for case in CASES} == set(CEL_SPEC_FILES)


def test_most_spec_cases_run() -> None:
    """Guards against a skip rule that grows to swallow the suite."""
    ran = [case for case in CASES if _skip_reason(case) is None]
    assert len(ran) > 0.75 * len(CASES)


def test_same_value_tells_cel_types_apart() -> None:
    assert same_value(1, 1)
    assert not same_value(1, UInt(1))
    assert not same_value(1, 1.0)
    assert not same_value(0.0, -0.0)
    assert same_value(math.nan, math.nan)
    assert not same_value({1: "a"}, {UInt(1): "a"})
    assert not same_value([1, 2], [1, 2, 3])


# k8s.io/apiserver/pkg/cel/library/quantity_test.go (TestQuantity): name, expression, and the
# expected value, or ("error", pattern) for a runtime error whose text must match the pattern.
QUANTITY_CASES: list[tuple[str, str, Any]] = [
    ("parse", 'quantity("12Mi")', Quantity.parse("12Mi")),
    ("parseInvalidSuffix", 'quantity("10Mo")', ("error", "quantities must match the regular expression.*")),
    ("parseInvalidSuffixPassesRegex", 'quantity("10Mm")', ("error", "unable to parse quantity's suffix")),
    ("isQuantity", 'isQuantity("20")', True),
    ("isQuantity_megabytes", 'isQuantity("20M")', True),
    ("isQuantity_mebibytes", 'isQuantity("20Mi")', True),
    ("isQuantity_invalidSuffix", 'isQuantity("20Mo")', False),
    ("isQuantity_passingRegex", 'isQuantity("10Mm")', False),
    ("isQuantity_noOverload", "isQuantity([1, 2, 3])", ("error", "no such overload")),
    ("equality_reflexivity", 'quantity("200M") == quantity("200M")', True),
    ("equality_symmetry", 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True),
    (
        "equality_transitivity",
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") '
        '&& quantity("0.002G") == quantity("2000k")',
        True,
    ),
    ("inequality", 'quantity("200M") == quantity("0.3G")', False),
    ("quantity_less", 'quantity("50M").isLessThan(quantity("50Mi"))', True),
    ("quantity_less_obvious", 'quantity("50M").isLessThan(quantity("100M"))', True),
    ("quantity_less_false", 'quantity("100M").isLessThan(quantity("50M"))', False),
    ("quantity_greater", 'quantity("50Mi").isGreaterThan(quantity("50M"))', True),
    ("quantity_greater_obvious", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', True),
    ("quantity_greater_false", 'quantity("50M").isGreaterThan(quantity("100M"))', False),
    ("compare_equal", 'quantity("200M").compareTo(quantity("0.2G"))', 0),
    ("compare_less", 'quantity("50M").compareTo(quantity("50Mi"))', -1),
    ("compare_greater", 'quantity("50Mi").compareTo(quantity("50M"))', 1),
    ("add_quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    ("add_int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', False),
    ("sub_quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
    ("sub_int", 'quantity("50k").sub(20) == quantity("49980")', True),
    ("multiply", 'quantity("50k").mul(2) == quantity("100000")', True),
    ("divide_float_result", 'quantity("10000").div(3).asApproximateFloat()', 3333.3333),
    ("divide_scaled", 'quantity("10k").div(2) == quantity("5000")', True),
    ("integer_division", 'quantity("10000").divInt(3) == quantity("3333")', True),
    ("arith_chain_1", 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
    ("arith_chain", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
    ("as_integer", 'quantity("50k").asInteger()', 50000),
    (
        "as_integer_error",
        'quantity("9999999999999999999999999999999999999G").asInteger()',
        ("error", "cannot convert value to integer"),
    ),
    ("is_integer", 'quantity("9999999999999999999999999999999999999G").isInteger()', False),
    ("is_integer", 'quantity("50").isInteger()', True),
    ("as_float", 'quantity("50.703k").asApproximateFloat()', 50703.0),
]

QUANTITY_SKIPS: dict[str, str] = {
    name: "mul/div/divInt came after Kubernetes v1.35's quantity library"
    for name in ("multiply", "divide_float_result", "divide_scaled", "integer_division")
}
# isQuantity([1, 2, 3]) is a compile error upstream (no matching overload); without a type
# checker it is the same overload error at evaluation.


@pytest.mark.parametrize("name,expression,want", QUANTITY_CASES, ids=[case[0] for case in QUANTITY_CASES])
def test_kubernetes_quantity_case(name: str, expression: str, want: Any) -> None:
    if name in QUANTITY_SKIPS:
        pytest.skip(QUANTITY_SKIPS[name])
    program = Program(expression)
    if isinstance(want, tuple):
        with pytest.raises(CelError, match=want[1]):
            program.evaluate({})
        return
    got = program.evaluate({})
    assert type_name(got) == type_name(want)
    assert got == want
