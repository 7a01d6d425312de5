from __future__ import annotations

from fractions import Fraction

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import PodwhyError
from podwhy.model.errors import ModelError
from podwhy.model.quantity import QuantityError, milli_value, parse_quantity, quantity_milli_value, quantity_value


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
