from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import PodwhyError
from podwhy.model.errors import ModelError
from podwhy.model.quantity import (
    Quantity,
    QuantityError,
    QuantityParseError,
    milli_value,
    parse_quantity,
    quantity_milli_value,
    quantity_value,
)


@pytest.mark.parametrize(
    ("raw", "exact"),
    [
        ("0", Fraction(0)),
        ("100m", Fraction(1, 10)),
        ("1.5", Fraction(3, 2)),
        ("2Ki", Fraction(2048)),
        ("1Gi", Fraction(2**30)),
        ("1G", Fraction(10**9)),
        ("128974848e-3", Fraction(128974848, 1000)),
        ("1e3", Fraction(1000)),
        (".5", Fraction(1, 2)),
        ("-1", Fraction(-1)),
        (3, Fraction(3)),
        (0.25, Fraction(1, 4)),
        # ParseQuantity rounds up to nano units.
        ("0.1n", Fraction(1, 10**9)),
    ],
)
def test_parse(raw: str | int | float, exact: Fraction) -> None:
    assert parse_quantity(raw) == exact


@pytest.mark.parametrize(
    ("raw", "value", "milli"),
    [("100m", 1, 100), ("1500m", 2, 1500), ("1", 1, 1000), ("0.0001", 1, 1), ("1Mi", 1048576, 1048576000)],
)
def test_rounding_is_upwards(raw: str, value: int, milli: int) -> None:
    assert quantity_value(raw) == value
    assert quantity_milli_value(raw) == milli


def test_milli_value_of_sum() -> None:
    # Sums are exact; rounding happens once on the aggregate.
    assert milli_value(parse_quantity("0.0004") + parse_quantity("0.0004")) == 1


@pytest.mark.parametrize("raw", ["", "abc", "1.2.3", "5Qi", "--1", "1 Gi"])
def test_invalid(raw: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(raw)


def test_quantity_errors_are_model_errors_with_a_hint() -> None:
    with pytest.raises(QuantityError) as info:
        parse_quantity("1x")
    assert isinstance(info.value, ModelError)
    assert not isinstance(info.value, PodwhyError)
    assert info.value.message == "unparsable quantity '1x'"
    assert info.value.hint == "quantities look like 500m, 2, 1.5Gi or 128974848e-3"


def test_the_command_line_reports_a_model_error_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import podwhy.engine

    def explain_bad_quantity(request: object) -> object:
        return parse_quantity("5Qi")

    monkeypatch.setattr(podwhy.engine, "explain", explain_bad_quantity)
    result = CliRunner().invoke(app, ["explain", "p", "--from", "x.yaml"])
    assert result.exit_code == 3
    assert result.stderr == (
        "podwhy: error: unparsable quantity '5Qi' (quantities look like 500m, 2, 1.5Gi or 128974848e-3)\n"
    )


@pytest.mark.parametrize(
    "raw",
    ["1e999", "1e19", "9223372036854775808", "-1e30", "1e999999999999", "1" * 30, 10**30, -(2**63), 1e308, "2" * 65],
)
def test_out_of_range_or_too_long(raw: str | int | float) -> None:
    # Quantity.Value() is an int64 upstream; such input cannot be read as kube-scheduler reads it.
    with pytest.raises(QuantityError):
        parse_quantity(raw)


@pytest.mark.parametrize(
    ("raw", "exact"),
    [
        ("9223372036854775807", Fraction(2**63 - 1)),
        ("99999999999999999999Ei", Fraction(2**63 - 1)),  # binary quantities are capped, not refused
        ("1e-999", Fraction(1, 10**9)),  # rounded up to 1n
        ("0e999999999999", Fraction(0)),
        ("1E", Fraction(10**18)),
    ],
)
def test_extremes_within_range(raw: str, exact: Fraction) -> None:
    assert parse_quantity(raw) == exact


# ------------------------------------------------------------------ one parser, two views
#
# Quantity.parse is resource.ParseQuantity (CEL's quantity() reads it); parse_quantity is the
# API's view of the same parse: the exact value, refused beyond int64. Cases after
# apimachinery's quantity_test.go (TestQuantityParse and its invalid inputs).

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


@pytest.mark.parametrize(
    ("text", "exact", "int64_form"),
    [
        ("0", Decimal(0), True),
        ("0n", Decimal(0), True),
        ("0Ki", Decimal(0), True),
        ("1", Decimal(1), True),
        ("1Ki", Decimal(1024), True),
        ("7Mi", Decimal(7 * 2**20), True),
        ("3Ei", Decimal(3 * 2**60), False),
        ("5n", Decimal("5e-9"), True),
        ("50k", Decimal(50000), True),
        ("1E", Decimal(10**18), True),
        ("1E-3", Decimal("0.001"), True),
        ("1e3", Decimal(1000), True),
        ("100.035k", Decimal(100035), True),
        ("0.0005k", Decimal("0.5"), True),
        ("0.5e-2", Decimal("0.005"), True),
        ("1.3E+6", Decimal(1300000), True),
        ("6.987654321G", Decimal(6987654321), True),
        # Rounded up to nano units, away from zero.
        ("3.001n", Decimal("4e-9"), False),
        ("1.1E-9", Decimal("2e-9"), False),
        ("0.0000000001", Decimal("1e-9"), False),
        ("0.00000012345", Decimal("124e-9"), False),
        ("0.000000000001Ki", Decimal("2e-9"), False),
        # Binary quantities are capped at 2^63-1.
        ("9Ei", Decimal(INT64_MAX), False),
        ("9223372036854775807Ki", Decimal(INT64_MAX), False),
        ("100.035Ki", Decimal("102435.84"), False),
        ("0.05Gi", Decimal("53687091.2"), False),
        (".001", Decimal("0.001"), True),
        ("1.", Decimal(1), True),
        ("1.G", Decimal(10**9), True),
        ("9223372036854775807", Decimal(INT64_MAX), False),
        ("12E", Decimal(12 * 10**18), True),
        ("9223372036854775808", Decimal(2**63), False),
    ],
)
@pytest.mark.parametrize("sign", ["", "+", "-"])
def test_both_views_of_a_parse(sign: str, text: str, exact: Decimal, int64_form: bool) -> None:
    expected = -exact if sign == "-" else exact
    q = Quantity.parse(sign + text)
    assert q.exact == expected
    assert q.int64_form is int64_form
    assert q == Quantity.parse(text) if sign != "-" else q.sign() == -Quantity.parse(text).sign()
    if abs(expected) <= INT64_MAX:
        assert parse_quantity(sign + text) == Fraction(expected)
    else:
        with pytest.raises(QuantityError, match="out of range"):
            parse_quantity(sign + text)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1.1.M", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1+1.0M", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("0.1mi", "unable to parse quantity's suffix"),
        ("0.1am", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("aoeu", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        (".5i", "unable to parse quantity's suffix"),
        ("-3.01i", "unable to parse quantity's suffix"),
        ("-3.01e-", "unable to parse quantity's suffix"),
        ("1e99999999999999999999", "unable to parse quantity's suffix"),
        (" 1", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ],
)
def test_both_views_refuse(text: str, error: str) -> None:
    with pytest.raises(QuantityParseError) as info:
        Quantity.parse(text)
    assert str(info.value) == error
    if text.strip() != "1":
        with pytest.raises(QuantityError):
            parse_quantity(text)


@pytest.mark.parametrize(
    ("raw", "parsed", "api"),
    [
        # Objects are JSON-decoded first: a quantity field's spaces are trimmed.
        (" 1", Decimal(1), Fraction(1)),
        ("1 ", Decimal(1), Fraction(1)),
        (" -1", Decimal(-1), Fraction(-1)),
        # ParseQuantity reads a number without digits as 0; the API's view refuses it.
        (".", Decimal(0), None),
        ("-.", Decimal(0), None),
        # An exponent is narrowed to int32 by ParseQuantity; the API's view refuses what is beyond int64.
        ("1e4294967297", Decimal(10), None),
        ("1e-999", Decimal("1e-9"), Fraction(1, 10**9)),
    ],
)
def test_where_the_views_differ(raw: str, parsed: Decimal, api: Fraction | None) -> None:
    assert Quantity.from_object(raw).exact == parsed
    if api is None:
        with pytest.raises(QuantityError):
            parse_quantity(raw)
    else:
        assert parse_quantity(raw) == api


def test_objects_are_trimmed_as_json_decoding_does() -> None:
    assert Quantity.from_object(" 16 ") == Quantity.parse("16")
    assert Quantity.from_object(16).as_int64() == 16
    assert Quantity.from_object(1.5) == Quantity.parse("1.5")
    with pytest.raises(QuantityError, match="unparsable quantity '16 cores': quantities must match"):
        Quantity.from_object("16 cores")


@pytest.mark.parametrize(
    ("a", "b", "cmp"),
    [
        # TestQuantityCmpInt64AndDec: (coefficient, exponent) pairs.
        ((901, -2), (901, -2), 0),
        ((90, -1), (901, -2), -1),
        ((0, 1), (0, -1), 0),
        ((800, -3), (1, 0), -1),
        ((800, -3), (79, -2), 1),
        ((INT64_MAX, 0), (1, -1), 1),
        ((INT64_MAX, -16), (1, 3), -1),
        ((INT64_MIN, -18), (-1, 0), -1),
        ((INT64_MIN, -19), (-1, 0), 1),
        ((10**18, -17), (1, 1), 0),
        ((-(10**18), -17), (-10, 0), 0),
        ((10**18 + 1, -17), (1, 1), 1),
        ((10**18 - 1, -17), (1, 1), -1),
    ],
)
@pytest.mark.parametrize("forms", [(True, True), (False, True), (True, False), (False, False)])
def test_compare(a: tuple[int, int], b: tuple[int, int], cmp: int, forms: tuple[bool, bool]) -> None:
    qa, qb = Quantity(*a, forms[0]), Quantity(*b, forms[1])
    assert qa.compare(qb) == cmp
    assert qb.compare(qa) == -cmp
    assert (qa == qb) is (cmp == 0)


@pytest.mark.parametrize(
    ("a", "b", "cmp"), [("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1)]
)
def test_compare_parsed(a: str, b: str, cmp: int) -> None:
    assert Quantity.parse(a).compare(Quantity.parse(b)) == cmp
    fa, fb = parse_quantity(a), parse_quantity(b)
    assert (fa > fb) - (fa < fb) == cmp


@pytest.mark.parametrize(
    ("text", "sign"), [("0", 0), ("-0", 0), ("0n", 0), ("1n", 1), ("-1.5", -1), ("-0.0000000001", -1), ("9Ei", 1)]
)
def test_sign(text: str, sign: int) -> None:
    assert Quantity.parse(text).sign() == sign
    api = parse_quantity(text)
    assert (api > 0) - (api < 0) == sign


@pytest.mark.parametrize(
    ("text", "as_int64"),
    [
        ("0", 0),
        ("1", 1),
        ("1k", 1000),
        ("1Ti", 2**40),
        # A binary quantity past ParseQuantity's fast path is held as a decimal.
        ("1Ei", None),
        ("1e18", 10**18),
        ("-1e18", -(10**18)),
        ("9e18", 9 * 10**18),
        # An int64 with a negative scale is not an integer to AsInt64, whatever its value.
        ("1000m", None),
        ("100m", None),
        ("0n", None),
        # Beyond int64, or held as a decimal.
        ("10e18", None),
        ("12E", None),
        ("9223372036854775807", None),
        ("0.5Mi", None),
    ],
)
def test_as_int64(text: str, as_int64: int | None) -> None:
    q = Quantity.parse(text)
    assert q.as_int64() == as_int64
    if as_int64 is not None:
        assert parse_quantity(text) == as_int64


MEBI7 = 7 * 1024 * 1024


@pytest.mark.parametrize(
    ("coefficient", "exponent", "approximate"),
    [
        # TestQuantityAsApproximateFloat64: float(coefficient) * math.Pow10(exponent), as Go rounds it.
        (0, 0, 0.0),
        (0, -500, 0.0),
        (1, 0, 1.0),
        (1024, 0, 1024.0),
        (MEBI7, 1, MEBI7 * 10.0),
        (MEBI7, 8, MEBI7 * 100000000.0),
        (MEBI7, -1, MEBI7 * 0.1),
        (MEBI7, -8, MEBI7 / 100000000.0),
        (INT64_MAX, 0, float(INT64_MAX)),
        (12, 18, 1.2e19),
        (12, 500, math.inf),
        (-12, 500, -math.inf),
        # A coefficient beyond float64 is an infinity, also when the exponent would shrink it.
        (10**400, 0, math.inf),
        (-(10**400), 1, -math.inf),
        (10**400, -400, math.nan),
    ],
)
@pytest.mark.parametrize("int64_form", [True, False])
def test_approximate_float(coefficient: int, exponent: int, approximate: float, int64_form: bool) -> None:
    result = Quantity(coefficient, exponent, int64_form).approximate_float()
    assert result == approximate or (math.isnan(result) and math.isnan(approximate))


@pytest.mark.parametrize(
    ("text", "approximate"), [("2Ki", 2048.0), ("1.1Ki", 1126.4), ("1Mi", 1048576.0), ("2Gi", 2147483648.0)]
)
def test_approximate_float_of_parsed(text: str, approximate: float) -> None:
    assert Quantity.parse(text).approximate_float() == approximate
    assert float(parse_quantity(text)) == approximate


@pytest.mark.parametrize(
    ("a", "b", "total", "difference"),
    [
        # TestAdd and TestSub, plus the int64 form's bounds.
        ((10, 0, True), (1, 1, True), (20, 0, True), (0, 0, True)),
        ((10, 0, False), (1, 0, True), (11, 0, False), (9, 0, False)),
        ((0, 0, True), (50, 0, True), (50, 0, True), (-50, 0, True)),
        ((50, 0, True), (0, 0, True), (50, 0, True), (50, 0, True)),
        # Adding zero keeps the other operand's scale (TestQuantityAddZeroPreservesSuffix).
        ((100, -3, True), (0, 0, True), (100, -3, True), (100, -3, True)),
        ((0, 0, True), (100, -3, True), (100, -3, True), (-100, -3, True)),
        # The sum is at the finer scale.
        ((15, -1, True), (2, 3, True), (20015, -1, True), (-19985, -1, True)),
        # Overflowing int64 gives the decimal form.
        ((INT64_MAX, 0, True), (1, 0, True), (2**63, 0, False), (INT64_MAX - 1, 0, True)),
        ((INT64_MAX, 0, True), (1, 1, True), (INT64_MAX + 10, 0, False), (INT64_MAX - 10, 0, True)),
        ((1, 19, True), (1, 0, True), (10**19 + 1, 0, False), (10**19 - 1, 0, False)),
        # int64 negation wraps: -(-2^63) stays -2^63.
        ((1, 0, True), (INT64_MIN, 0, True), (INT64_MIN + 1, 0, True), (INT64_MIN + 1, 0, True)),
        ((1, 0, False), (INT64_MIN, 0, True), (INT64_MIN + 1, 0, False), (2**63 + 1, 0, False)),
    ],
)
def test_add_and_sub(
    a: tuple[int, int, bool],
    b: tuple[int, int, bool],
    total: tuple[int, int, bool],
    difference: tuple[int, int, bool],
) -> None:
    qa, qb = Quantity(*a), Quantity(*b)
    for result, (coefficient, exponent, int64_form) in ((qa.add(qb), total), (qa.sub(qb), difference)):
        assert (result.coefficient, result.exponent, result.int64_form) == (coefficient, exponent, int64_form)
    # The API's view: Fractions, exact (the int64 wrap aside).
    fa = Fraction(a[0]) * Fraction(10) ** a[1]
    fb = Fraction(b[0]) * Fraction(10) ** b[1]
    assert Fraction(qa.add(qb).exact) == fa + fb
    if b[0] != INT64_MIN or not (a[2] and b[2]):
        assert Fraction(qa.sub(qb).exact) == fa - fb
