"""The CEL subset used by DRA device selectors (cel-go semantics, Kubernetes libraries)."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cel.errors import CelCompileError, CelError
from podwhy.cel.interpreter import Program
from podwhy.cel.values import Semver
from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.cel.compile import SelectorCache, cel_device, evaluate_selector
from tests.builders import from_raw

DRIVER = "gpu.example.com"

DEVICE = from_raw(
    o.Device,
    {
        "name": "gpu-0",
        "attributes": {
            "productName": {"string": "NVIDIA H100 80GB HBM3"},
            "index": {"int": 3},
            "healthy": {"bool": True},
            "driverVersion": {"version": "12.8.0"},
            "other.example.com/zone": {"string": "a"},
        },
        "capacity": {"memory": {"value": "80Gi"}, "cores": {"value": 16}},
    },
)


def evaluate(expression: str) -> Any:
    return Program(expression).evaluate({"device": cel_device(DEVICE, DRIVER)})


CASES: list[tuple[str, Any]] = [
    (f'device.driver == "{DRIVER}"', True),
    ('device.driver == "other"', False),
    (f'device.attributes["{DRIVER}"].productName == "NVIDIA H100 80GB HBM3"', True),
    (f'device.attributes["{DRIVER}"].productName != "NVIDIA H100 80GB HBM3"', False),
    (f'device.attributes["{DRIVER}"].index >= 2 && device.attributes["{DRIVER}"].index < 4', True),
    (f'device.attributes["{DRIVER}"].healthy', True),
    (f'!device.attributes["{DRIVER}"].healthy || false', False),
    ('device.attributes["other.example.com"].zone == "a"', True),
    (f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0', True),
    (f'device.capacity["{DRIVER}"].memory.compareTo(quantity("80Gi")) == 0', True),
    (f'device.capacity["{DRIVER}"].memory.isLessThan(quantity("81Gi"))', True),
    (f'device.capacity["{DRIVER}"].cores.isGreaterThan(quantity("15500m"))', True),
    (f'device.capacity["{DRIVER}"].cores.asInteger() == 16', True),
    (f'device.attributes["{DRIVER}"].driverVersion.isGreaterThan(semver("12.1.0"))', True),
    (f'device.attributes["{DRIVER}"].driverVersion == semver("12.8.0")', True),
    (f'device.attributes["{DRIVER}"].driverVersion.compareTo(semver("12.8.0-rc.1")) > 0', True),
    (
        f'device.attributes["{DRIVER}"].productName.startsWith("NVIDIA") && '
        f'device.attributes["{DRIVER}"].productName.contains("H100")',
        True,
    ),
    (f'device.attributes["{DRIVER}"].productName.matches("^NVIDIA (A|H)100")', True),
    (f'device.attributes["{DRIVER}"].index in [1, 3, 5]', True),
    (f'"productName" in device.attributes["{DRIVER}"]', True),
    ('"nope.example.com" in device.attributes', False),
    (f'has(device.attributes["{DRIVER}"].index)', True),
    (f'has(device.attributes["{DRIVER}"].missing)', False),
    ('has(device.attributes["nope.example.com"].missing)', False),
    # An error is absorbed by a deciding operand of && and ||, whichever side it is on.
    (f'device.attributes["{DRIVER}"].missing == "x" && false', False),
    (f'device.attributes["{DRIVER}"].missing == "x" || true', True),
    (f'(device.attributes["{DRIVER}"].index > 5) ? "big" == "x" : true', True),
    (f'cel.bind(gpu, device.attributes["{DRIVER}"], gpu.index == 3 && gpu.healthy)', True),
    ("[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(x, x == 2) && [1, 2].exists_one(x, x == 1)", True),
    ("[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x % 2 == 1) == [1, 3]", True),
    ("1 == 1.0 && 1u == 1 && 'a' != 1", True),
    ("-7 / 2 == -3 && -7 % 2 == -1", True),
    ("size('héllo') == 5 && 'ab' + 'c' == 'abc'", True),
    ('{"a": 1}.a == 1 && {"a": 1}["a"] == 1', True),
    ("0x1F == 31 && 1e3 == 1000.0 && r'\\d' == '\\\\d'", True),
    ("'''multi\nline''' == 'multi\\nline'", True),
    ("semver('v1.2', true) == semver('1.2.0')", True),
    ("isQuantity('1Gi') && !isQuantity('1Gx')", True),
]


@pytest.mark.parametrize("expression,want", CASES)
def test_evaluate(expression: str, want: Any) -> None:
    assert evaluate(expression) == want


ERRORS: list[tuple[str, str]] = [
    (f'device.attributes["{DRIVER}"].missing == "x"', "no such key: missing"),
    ('device.attributes["nope.example.com"].zone == "a"', "no such key: zone"),
    (f'device.attributes["{DRIVER}"].missing == "x" && true', "no such key: missing"),
    (f'device.attributes["{DRIVER}"].productName < 3', "no such overload"),
    ("9223372036854775807 + 1 > 0", "integer overflow"),
    ("1 / 0 == 0", "division by zero"),
    ("[1][3] == 1", "index out of bounds: 3"),
    (f'device.capacity["{DRIVER}"].memory == 5', "no such overload"),
]


@pytest.mark.parametrize("expression,message", ERRORS)
def test_runtime_errors(expression: str, message: str) -> None:
    with pytest.raises(CelError) as exc:
        evaluate(expression)
    assert exc.value.message == message


@pytest.mark.parametrize("expression", ["device.driver ==", "(1 + 2", "device.$x", "if == 1", "'unterminated"])
def test_compile_errors(expression: str) -> None:
    with pytest.raises(CelCompileError):
        Program(expression)
    assert SelectorCache().get(expression).program is None


def test_selector_must_be_bool() -> None:
    program = Program("device.driver")
    with pytest.raises(CelError):
        evaluate_selector(program, cel_device(DEVICE, DRIVER))


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("1.2.3", "1.2.3", 0),
        ("1.2.3", "1.10.0", -1),
        ("1.0.0-alpha", "1.0.0", -1),
        ("1.0.0-alpha", "1.0.0-alpha.1", -1),
        ("1.0.0-alpha.beta", "1.0.0-beta", -1),
        ("1.0.0-beta.2", "1.0.0-beta.11", -1),
        ("1.0.0-rc.1", "1.0.0-beta.11", 1),
        ("1.0.0+build.1", "1.0.0+build.2", 0),
    ],
)
def test_semver_order(a: str, b: str, want: int) -> None:
    assert Semver.parse(a).compare(Semver.parse(b)) == want


def test_bad_version_attribute_is_an_error() -> None:
    bad = from_raw(o.Device, {"name": "d", "attributes": {"v": {"version": "1.02"}}})
    with pytest.raises(CelError):
        cel_device(bad, DRIVER)


# ------------------------------------------------------------------ regular expressions (RE2, as Go's regexp)

REGEX_CASES: list[tuple[str, Any]] = [
    # `$` matches only at the very end of the text (Python's re also matches before a final newline).
    ("'a\\n'.matches('a$')", False),
    ("'a\\n'.matches('(?m)a$')", True),
    ("'a'.matches('a$')", True),
    ("'ab\\ncd'.matches('^cd')", False),
    ("'ab\\ncd'.matches('(?m)^cd')", True),
    ("'a\\nb'.matches('a.b')", False),
    ("'a\\nb'.matches('(?s)a.b')", True),
    # \s is [\t\n\f\r ]: no vertical tab, no Unicode spaces; \d and \w are ASCII.
    ("'\\v'.matches('\\\\s')", False),
    ("'\\u00a0'.matches('\\\\s')", False),
    ("'٣'.matches('\\\\d')", False),
    ("'é'.matches('\\\\w')", False),
    ("'é'.matches('\\\\pL')", True),
    ("'ÉTÉ'.matches('(?i)^été$')", True),
    ("'abc'.matches('')", True),
    ("matches('abc', 'b')", True),
    ("'x1y22'.find('[0-9]+')", "1"),
    ("'xyz'.find('[0-9]+')", ""),
    ("'x1y22z333'.findAll('[0-9]+')", ["1", "22", "333"]),
    ("'x1y22z333'.findAll('[0-9]+', 2)", ["1", "22"]),
    ("'x1y22z333'.findAll('[0-9]+', 0)", []),
    # Go drops an empty match right after a match (Python's finditer keeps it).
    ("'baaab'.findAll('a*')", ["", "aaa", ""]),
    ("'héllo'.findAll('')", ["", "", "", "", "", ""]),
]


@pytest.mark.parametrize("expression,want", REGEX_CASES)
def test_regex_semantics(expression: str, want: Any) -> None:
    assert Program(expression).evaluate({}) == want


REGEX_RUNTIME_ERRORS: list[tuple[str, str]] = [
    ("x.matches(y)", "error parsing regexp: missing closing ): `a(b`"),
    ("x.find(y)", "Illegal regex: error parsing regexp: missing closing ): `a(b`"),
    ("x.findAll(y)", "Illegal regex: error parsing regexp: missing closing ): `a(b`"),
]


@pytest.mark.parametrize("expression,message", REGEX_RUNTIME_ERRORS)
def test_regex_errors_at_evaluation(expression: str, message: str) -> None:
    """A pattern that is not a literal is compiled when evaluated."""
    with pytest.raises(CelError) as exc:
        Program(expression).evaluate({"x": "a", "y": "a(b"})
    assert exc.value.message == message


@pytest.mark.parametrize(
    "pattern,message",
    [
        ("a(b", "missing closing ): `a(b`"),
        ("a)", "unexpected ): `a)`"),
        ("[a", "missing closing ]: `[a`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("*", "missing argument to repetition operator: `*`"),
        ("x{1001}", "invalid repeat count: `{1001}`"),
        ("(a)\\\\1", "invalid escape sequence: `\\1`"),
        ("a(?=b)", "invalid or unsupported Perl syntax: `(?=`"),
        ("a\\\\", "trailing backslash at end of expression: ``"),
    ],
)
def test_regex_error_texts_are_go_s(pattern: str, message: str) -> None:
    with pytest.raises(CelError) as exc:
        Program("x.matches(y)").evaluate({"x": "a", "y": pattern.replace("\\\\", "\\")})
    assert exc.value.message == f"error parsing regexp: {message}"


def test_literal_matches_pattern_is_checked_at_compile_time() -> None:
    """The Kubernetes environment validates regex literals of matches() while compiling."""
    compiled = SelectorCache().get('device.driver.matches("gpu(")')
    assert compiled.program is None
    assert compiled.error == (
        "compilation failed: ERROR: <input>:1:23: invalid matches argument\n"
        ' | device.driver.matches("gpu(")\n'
        " | ......................^"
    )


@pytest.mark.parametrize(
    "expression", ["'a'.find('(')", "'a'.findAll('(')", "matches(device.driver, '(')", "'a'.findAll('(', 1)"]
)
def test_constant_patterns_fail_program_planning(expression: str) -> None:
    compiled = SelectorCache().get(expression)
    assert compiled.program is None
    assert compiled.error == "program instantiation failed: error parsing regexp: missing closing ): `(`"


# ------------------------------------------------------------------ quantities (apimachinery's ParseQuantity)

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"


@pytest.mark.parametrize(
    "text,message",
    [
        ("", FORMAT_ERROR),
        (" 1", FORMAT_ERROR),
        ("1 ", FORMAT_ERROR),
        ("1.2.3", FORMAT_ERROR),
        ("0x10", FORMAT_ERROR),
        ("10Mo", FORMAT_ERROR),
        ("1e", SUFFIX_ERROR),
        ("1K", SUFFIX_ERROR),
        ("10Mm", SUFFIX_ERROR),
        ("1ee3", SUFFIX_ERROR),
    ],
)
def test_quantity_parse_errors(text: str, message: str) -> None:
    with pytest.raises(CelError) as exc:
        Program(f"quantity('{text}')").evaluate({})
    assert exc.value.message == message
    assert Program(f"isQuantity('{text}')").evaluate({}) is False


QUANTITY_CASES: list[tuple[str, Any]] = [
    # isInteger/asInteger need an int64 mantissa with a non-negative decimal scale (AsInt64):
    # "1.0" is held as 10 at scale -1, "1.5Ki" as an arbitrary-precision decimal.
    ("quantity('1k').asInteger()", 1000),
    ("quantity('1.5k').asInteger()", 1500),
    ("quantity('80Gi').asInteger()", 80 * 2**30),
    ("quantity('1.0').isInteger()", False),
    ("quantity('1000m').isInteger()", False),
    ("quantity('1.5Ki').isInteger()", False),
    ("quantity('1536').isInteger()", True),
    # Up to 18 digits parse to an int64; more go to the decimal form, even when they would fit.
    ("quantity('999999999999999999').isInteger()", True),
    ("quantity('1000000000000000000').isInteger()", False),
    ("quantity('9223372036854775k').isInteger()", True),
    ("quantity('9223372036854776k').isInteger()", False),
    # add() keeps the finer scale: 1 + 500m - 500m is 1000m, not an int64 at scale 0.
    ("quantity('1').add(quantity('500m')).sub(quantity('500m')).isInteger()", False),
    ("quantity('1').add(quantity('500m')).sub(quantity('500m')) == quantity('1')", True),
    ("quantity('1.5Ki').add(1).isInteger()", False),
    ("quantity('1Ki').add(1).asInteger()", 1025),
    # Values: ParseQuantity rounds up to nanos (away from zero), caps binary quantities at 2^63-1.
    ("quantity('0.1n') == quantity('1n')", True),
    ("quantity('-0.1n') == quantity('-1n')", True),
    ("quantity('1Ei').isLessThan(quantity('8Ei'))", True),
    ("quantity('8Ei') == quantity('9223372036854775807')", True),
    ("quantity('.') == quantity('0') && quantity('+') == quantity('0') && quantity('1.') == quantity('1')", True),
    (
        "quantity('1e3') == quantity('1k') && quantity('1E3') == quantity('1k') && quantity('1E') == quantity('1e18')",
        True,
    ),
    ("quantity('0.1').asApproximateFloat()", 0.1),
    ("quantity('1e400').asApproximateFloat()", float("inf")),
    # A mantissa beyond float64 range: an infinity, as big.Float's Float64 gives.
    (f"quantity('{'9' * 400}').asApproximateFloat()", float("inf")),
    (f"quantity('-{'9' * 400}').asApproximateFloat()", float("-inf")),
    ("sign(quantity('-1m')) == -1 && sign(quantity('0')) == 0 && sign(quantity('2Ki')) == 1", True),
    # A quantity compared with another type is an error value; `!=` reads it as "not equal".
    ("quantity('1') != 1", True),
    ("1 == quantity('1')", False),
    ("quantity('1') == null", False),
    # add()/sub() return a pointer in cel-go: a Quantity's equality refuses it on the right...
    ("quantity('2') != quantity('1').add(1)", True),
    # ...but accepts it on the left.
    ("quantity('1').add(1) == quantity('2')", True),
    # An element comparison error does not make lists unequal (only a false one does).
    ("[quantity('1'), 2] == [1, 2]", True),
    ("[quantity('1'), 2] == [1, 3]", False),
]


@pytest.mark.parametrize("expression,want", QUANTITY_CASES)
def test_quantity_library(expression: str, want: Any) -> None:
    assert Program(expression).evaluate({}) == want


@pytest.mark.parametrize(
    "expression,message",
    [
        ("quantity('1.0').asInteger()", "cannot convert value to integer"),
        ("quantity('1') == 1", "no such overload"),
        ("quantity('2') == quantity('1').add(1)", "no such overload"),
        ("quantity('1').sign()", "no such overload"),
        ("isQuantity(1)", "no such overload"),
        ("quantity(1)", "no such overload"),
    ],
)
def test_quantity_library_errors(expression: str, message: str) -> None:
    with pytest.raises(CelError) as exc:
        Program(expression).evaluate({})
    assert exc.value.message == message


# ------------------------------------------------------------------ conversions and strings as cel-go has them

CONVERSION_CASES: list[tuple[str, Any]] = [
    ("string(1234567.0)", "1.234567e+06"),
    ("string(123456.0)", "123456"),
    ("string(0.0001)", "0.0001"),
    ("string(0.00001)", "1e-05"),
    ("string(-2.5)", "-2.5"),
    ("string(1e21)", "1e+21"),
    ("int('+5')", 5),
    ("bool('T') && !bool('F')", True),
    ("double('1e3')", 1000.0),
    ("bytes('ÿ') == b'\\303\\277' && b'ÿ' == b'\\xc3\\xbf'", True),
    ("9223372036854775807 == 9223372036854775808.0", True),
    ("18446744073709551615u == 18446744073709551616.0", True),
    ("' \\u00a0\\u3000x\\t'.trim()", "x"),
    ("'\\u001cx'.trim()", "\u001cx"),
    ("'abc'.split('', 2)", ["a", "bc"]),
    ("'tacocat'.indexOf('a', 30)", -1),
    ("'tacocat'.lastIndexOf('a', 3)", 1),
    ("[1, 2].transformList(i, v, i * v)", [0, 2]),
    ("{'a': 1}.transformMap(k, v, v + 1)", {"a": 2}),
    ("[1, 2].transformMapEntry(i, v, {string(v): i})", {"1": 0, "2": 1}),
]


@pytest.mark.parametrize("expression,want", CONVERSION_CASES)
def test_conversions_and_strings(expression: str, want: Any) -> None:
    assert Program(expression).evaluate({}) == want


@pytest.mark.parametrize(
    "expression,message",
    [
        ("int(' 5')", "type conversion error from 'string' to 'int'"),
        ("int('1_000')", "type conversion error from 'string' to 'int'"),
        ("uint('+5')", "type conversion error from 'string' to 'uint'"),
        ("double('1e400')", "type conversion error from 'string' to 'double'"),
        ("bool('yes')", "type conversion error from 'string' to 'bool'"),
        ("int(-9223372036854775808.0)", "integer overflow"),
        ("uint(-0.5)", "unsigned integer overflow"),
        ("string(b'\\xff')", "invalid UTF-8 in bytes, cannot convert to string"),
        ("1.0 < double('NaN')", "NaN values cannot be ordered"),
        ("'tacocat'.indexOf('a', -1)", "index out of range: -1"),
        ("'tacocat'.substring(4, 2)", "invalid substring range. start: 4, end: 2"),
        ("'ab'.contains('a', 'b')", "no such overload"),
        ("[1, 1].transformMapEntry(i, v, {v: i})", "insert failed: key 1 already exists"),
    ],
)
def test_conversion_and_string_errors(expression: str, message: str) -> None:
    with pytest.raises(CelError) as exc:
        Program(expression).evaluate({})
    assert exc.value.message == message


TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"


@pytest.mark.parametrize(
    "expression",
    [
        # upstream's compile_test "expensive" case (from the ValidatingAdmissionPolicy tests): 10**7 steps.
        f"{TEN}.all(x, {TEN}.all(y, {TEN}.all(z, {TEN}.all(z2, {TEN}.all(z3, {TEN}.all(z4, {TEN}.all(z5,"
        " int('1'.find('[0-9]*')) < 100)))))))",
        # a string doubled forty times: 2**40 characters without the limit
        "cel.bind(x0, 'ab', "
        + "".join(f"cel.bind(x{i}, x{i - 1} + x{i - 1}, " for i in range(1, 40))
        + "size(x39) > 0"
        + ")" * 40,
        # a list doubled, then looked through
        "cel.bind(a, [1, 2, 3, 4, 5, 6, 7, 8], "
        + "".join("cel.bind(a, a + a, " for _ in range(17))
        + "a.all(x, x in a)"
        + ")" * 18,
    ],
    ids=["nested", "doubling-string", "doubling-list"],
)
def test_an_expensive_expression_stops_at_the_runtime_cost_limit(expression: str) -> None:
    with pytest.raises(CelError, match=r"^operation cancelled: actual cost limit exceeded$"):
        Program(expression).evaluate({"device": {}})


def test_the_cost_limit_counts_steps_and_sizes() -> None:
    """A cheap expression passes under a limit just above its cost and fails just below it."""
    program = Program("[1, 2, 3].exists(x, x == 3)")
    assert program.evaluate({}, cost_limit=100) is True
    with pytest.raises(CelError, match="actual cost limit exceeded"):
        program.evaluate({}, cost_limit=5)
