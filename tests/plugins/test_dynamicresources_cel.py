"""The CEL subset used by DRA device selectors (cel-go semantics, Kubernetes libraries)."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.allocator import cel_device
from podwhy.plugins.dynamicresources.cel import (
    CelCompileError,
    CelError,
    Program,
    SelectorCache,
    Semver,
    evaluate_selector,
)
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
