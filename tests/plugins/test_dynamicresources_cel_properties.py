"""Properties of the CEL evaluator's regular expressions and quantities."""

from __future__ import annotations

import re
from decimal import ROUND_UP, Context, Decimal

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.cel.errors import CelError
from podwhy.cel.interpreter import Program
from podwhy.model.quantity import Quantity

settings.register_profile("podwhy-cel", deadline=None, max_examples=100, database=None)
settings.load_profile("podwhy-cel")


def cel_string(text: str) -> str:
    """A CEL single-quoted literal for text."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    return f"'{escaped}'"


# Patterns in a subset where RE2 and Python's re agree once `$` is spelled \Z for Python.
_ATOMS = st.sampled_from(["a", "b", "1", ".", "[ab]", "[^a]", "\\d", "\\w", "\\s", "\\.", "x"])


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, children).map("".join),
        st.tuples(children, children).map(lambda parts: f"{parts[0]}|{parts[1]}"),
        children.map(lambda inner: f"({inner})"),
        st.tuples(children, st.sampled_from(["*", "+", "?", "{1,2}", "*?"])).map(
            lambda parts: f"(?:{parts[0]}){parts[1]}"
        ),
    )


PATTERNS = st.tuples(st.booleans(), st.recursive(_ATOMS, _combine, max_leaves=6), st.booleans()).map(
    lambda parts: ("^" if parts[0] else "") + parts[1] + ("$" if parts[2] else "")
)
SUBJECTS = st.text(alphabet="ab1x. \n", max_size=8)


@given(PATTERNS, SUBJECTS)
def test_matches_is_re2_search(pattern: str, subject: str) -> None:
    got = Program(f"s.matches({cel_string(pattern)})").evaluate({"s": subject})
    assert got == (re2.search(pattern, subject) is not None)
    # Python's `$` also matches before a final newline; its \Z is RE2's `$`.
    assert got == (re.search(pattern.replace("$", "\\Z"), subject) is not None)


# Regex metacharacters, quotes, a newline and multi-byte characters.
_QUOTING_ALPHABET = "ab.*+?()[]{}|^$\\-\n'\"é€🐱"


@given(st.text(alphabet=_QUOTING_ALPHABET, max_size=6), st.text(alphabet=_QUOTING_ALPHABET, max_size=12))
def test_quoted_text_matches_where_it_occurs(needle: str, haystack: str) -> None:
    expression = f"s.matches({cel_string(re2.escape(needle))})"
    assert Program(expression).evaluate({"s": haystack}) == (needle in haystack)


def test_dollar_is_end_of_text_only() -> None:
    assert Program("'a\\n'.matches('a$')").evaluate({}) is False
    assert re.search("a$", "a\n") is not None  # the difference the RE2 engine is here for


# ------------------------------------------------------------------ quantities

_DECIMAL_SUFFIXES = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
NANO = Decimal("1e-9")
EXACT = Context(prec=100)  # enough digits that the expected values here are never rounded


@st.composite
def decimal_quantities(draw: st.DrawFn) -> tuple[str, Decimal]:
    """A quantity string with a decimal suffix and its exact value before rounding."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.text(alphabet="0123456789", min_size=1, max_size=22))
    frac = draw(st.one_of(st.none(), st.text(alphabet="0123456789", max_size=12)))
    suffix = draw(st.sampled_from([*_DECIMAL_SUFFIXES, "e-12", "e5", "E2"]))
    text = f"{sign}{whole}" + ("" if frac is None else f".{frac}") + suffix
    exponent = _DECIMAL_SUFFIXES[suffix] if suffix in _DECIMAL_SUFFIXES else int(suffix[1:])
    value = EXACT.scaleb(Decimal(f"{whole}.{frac or '0'}"), exponent)
    return text, EXACT.minus(value) if sign == "-" else value


def rounded_to_nanos(value: Decimal) -> Decimal:
    """ParseQuantity rounds a value up, away from zero, to whole nanos."""
    return EXACT.multiply(EXACT.divide(value, NANO).to_integral_value(rounding=ROUND_UP), NANO)


@given(decimal_quantities())
def test_parsed_value_is_exact_up_to_nano_rounding(case: tuple[str, Decimal]) -> None:
    text, value = case
    assert Quantity.parse(text).exact == rounded_to_nanos(value)


@given(decimal_quantities())
def test_integer_forms_agree_with_the_value(case: tuple[str, Decimal]) -> None:
    q = Quantity.parse(case[0])
    as_int = q.as_int64()
    is_integer = Program("quantity(q).isInteger()").evaluate({"q": case[0]})
    assert is_integer == (as_int is not None)
    if as_int is not None:
        assert Decimal(as_int) == q.exact
        assert Program("quantity(q).asInteger()").evaluate({"q": case[0]}) == as_int


@given(st.integers(min_value=-(10**18) + 1, max_value=10**18 - 1))
def test_integers_up_to_18_digits_round_trip(n: int) -> None:
    assert Program("quantity(q).asInteger()").evaluate({"q": str(n)}) == n


@given(decimal_quantities(), decimal_quantities())
def test_add_sub_and_compare_are_exact(a: tuple[str, Decimal], b: tuple[str, Decimal]) -> None:
    qa, qb = Quantity.parse(a[0]), Quantity.parse(b[0])
    env = {"a": a[0], "b": b[0]}
    total = Program("quantity(a).add(quantity(b))").evaluate(env)
    assert total.exact == EXACT.add(qa.exact, qb.exact)
    assert Program("quantity(a).sub(quantity(b))").evaluate(env).exact == EXACT.subtract(qa.exact, qb.exact)
    # The sum's own (int64 or decimal) form must not change its value when compared again.
    assert Program("quantity(a).add(quantity(b)).sub(quantity(b)).compareTo(quantity(a))").evaluate(env) == 0
    cmp = Program("quantity(a).compareTo(quantity(b))").evaluate(env)
    assert cmp == (qa.exact > qb.exact) - (qa.exact < qb.exact)


@given(st.text(alphabet="0123456789.+-eEinumkKMGTPx ", max_size=8))
def test_is_quantity_is_whether_quantity_parses(text: str) -> None:
    env = {"q": text}
    try:
        Program("quantity(q)").evaluate(env)
    except CelError:
        parses = False
    else:
        parses = True
    assert Program("isQuantity(q)").evaluate(env) is parses
    # No trimming: a leading space never parses.
    assert Program("isQuantity(' ' + q)").evaluate(env) is False


@pytest.mark.parametrize("text", ["1.5Ki", "0.1Mi", "3Gi", "1Ei", "12345678901234567890"])
def test_binary_and_long_quantities_are_exact(text: str) -> None:
    digits, suffix = re.fullmatch(r"([0-9.]+)(\w*)", text).groups()  # type: ignore[union-attr]
    power = {"": 0, "Ki": 10, "Mi": 20, "Gi": 30, "Ei": 60}[suffix]
    assert Quantity.parse(text).exact == rounded_to_nanos(EXACT.multiply(Decimal(digits), Decimal(2**power)))
