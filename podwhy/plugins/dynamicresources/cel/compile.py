"""DRA device selectors: compiled once per expression, run on a device (upstream's compile.go and cache.go)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from podwhy.cel.errors import CelCompileError, CelError, CelProgramError
from podwhy.cel.values import DefaultingMap, Semver, type_name
from podwhy.model import objects as o
from podwhy.model.quantity import Quantity

if TYPE_CHECKING:  # the interpreter is loaded when a selector is first compiled (most pods claim no device)
    from podwhy.cel.interpreter import Program

# The runtime cost limit of a device selector (resourceapi.CELSelectorExpressionMaxCost, set as
# cel.CostLimit by k8s.io/dynamic-resource-allocation/cel).
COST_LIMIT = 1_000_000


class CompiledSelector(msgspec.Struct, frozen=True):
    expression: str
    program: Program | None
    error: str = ""


class SelectorCache:
    """Compiled selector expressions by text (the scheduler keeps a CEL cache too)."""

    def __init__(self) -> None:
        self._compiled: dict[str, CompiledSelector] = {}

    def get(self, expression: str) -> CompiledSelector:
        compiled = self._compiled.get(expression)
        if compiled is None:
            from podwhy.cel.interpreter import Program

            try:
                compiled = CompiledSelector(expression, Program(expression))
            except CelProgramError as exc:
                compiled = CompiledSelector(expression, None, f"program instantiation failed: {exc}")
            except CelCompileError as exc:
                compiled = CompiledSelector(expression, None, f"compilation failed: {exc}")
            self._compiled[expression] = compiled
        return compiled


def _split_qualified(name: str, default_domain: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (default_domain, name)


def cel_device(device: o.Device, driver: str) -> dict[str, Any]:
    """The `device` variable of a selector; raises CelError for an attribute it cannot type."""
    attributes: dict[str, dict[str, Any]] = {}
    for name, attr in device.attributes.items():
        value: Any
        if attr.int_value is not None:
            value = attr.int_value
        elif attr.bool_value is not None:
            value = attr.bool_value
        elif attr.string_value is not None:
            value = attr.string_value
        elif attr.version_value is not None:
            try:
                value = Semver.parse(attr.version_value)
            except ValueError:
                raise CelError(f"attribute {name}: parse semantic version: {attr.version_value}") from None
        else:
            raise CelError(f"attribute {name}: unsupported attribute value")
        domain, ident = _split_qualified(name, driver)
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict[str, Any]] = {}
    for name, cap in device.capacity.items():
        domain, ident = _split_qualified(name, driver)
        capacity.setdefault(domain, {})[ident] = Quantity.from_object(cap.value)
    return {
        "driver": driver,
        "allowMultipleAllocations": bool(device.allow_multiple_allocations),
        "attributes": DefaultingMap(attributes),
        "capacity": DefaultingMap(capacity),
    }


def evaluate_selector(program: Program, device: Mapping[str, Any]) -> bool:
    """Run a selector on a device binding; a non-bool result is an error, as upstream."""
    result = program.evaluate({"device": device}, cost_limit=COST_LIMIT)
    if not isinstance(result, bool):
        raise CelError(
            f"CEL result of type {type_name(result)} could not be converted to bool: "
            f"type conversion error from '{type_name(result)}' to 'bool'"
        )
    return result
