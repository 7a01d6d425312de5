"""CEL values as the evaluator holds them, and the CEL type of each.

int, double, string, bytes, bool, null, list and map are Python's; `UInt` keeps uint apart;
the Kubernetes types are model.quantity's `Quantity` (and `QuantityPointer`, what add() and
sub() give) and `Semver`; `DefaultingMap` is a device's attributes or capacity map.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.model.quantity import Quantity

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class UInt(int):
    """CEL uint: kept apart from int for typing; arithmetic results are re-wrapped."""


class QuantityPointer(Quantity):
    """What the quantity library's add() and sub() return: a *resource.Quantity to cel-go, whose
    equality then refuses it as the right-hand operand."""

    __slots__ = ()

    @classmethod
    def of(cls, q: Quantity) -> QuantityPointer:
        return cls(q.coefficient, q.exponent, q.int64_form)


_SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


class Semver(msgspec.Struct, frozen=True):
    """A semantic version (blang/semver): build metadata does not take part in comparisons."""

    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Semver:
        match = _SEMVER_RE.match(text)
        if match is None:
            raise ValueError(f"invalid semantic version {text!r}")
        pre = tuple(match[4].split(".")) if match[4] else ()
        build = tuple(match[5].split(".")) if match[5] else ()
        return cls(int(match[1]), int(match[2]), int(match[3]), pre, build)

    def compare(self, other: Semver) -> int:
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return -1 if a < b else 1
        if not self.pre or not other.pre:
            if self.pre == other.pre:
                return 0
            return 1 if not self.pre else -1
        for a_id, b_id in zip(self.pre, other.pre, strict=False):
            if a_id == b_id:
                continue
            a_num, b_num = a_id.isdigit(), b_id.isdigit()
            if a_num and b_num:
                return -1 if int(a_id) < int(b_id) else 1
            if a_num != b_num:
                return -1 if a_num else 1
            return -1 if a_id < b_id else 1
        if len(self.pre) == len(other.pre):
            return 0
        return -1 if len(self.pre) < len(other.pre) else 1


class DefaultingMap(dict[str, Any]):
    """The device.attributes / device.capacity maps: unknown domains read as an empty map."""

    def lookup(self, key: Any) -> Any:
        return self.get(key, {})


class LazyMap:
    """A map of string keys whose values are computed on first read and kept (the API server's
    lazy.MapValue, which holds a policy's `variables`): `resolve` computes one, and raises
    CelError for a value that fails, which each later read raises again."""

    CEL_TYPE = "map"

    def __init__(self, names: frozenset[str], resolve: Callable[[str], Any]) -> None:
        self.names = names
        self._resolve = resolve
        self._values: dict[str, Any] = {}

    def has(self, name: Any) -> bool:
        return name in self.names

    def lookup(self, name: Any) -> Any:
        if not isinstance(name, str):
            raise CelError(NO_SUCH_OVERLOAD)
        if name not in self.names:
            raise CelError(f"no such key: {name}")
        if name not in self._values:
            try:
                self._values[name] = self._resolve(name)
            except CelError as exc:
                self._values[name] = exc
        value = self._values[name]
        if isinstance(value, CelError):
            raise value
        return value


class Unevaluated(msgspec.Struct, frozen=True):
    """A variable bound to what podwhy does not evaluate: reading it raises CelNotEvaluatedError."""

    name: str


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, UInt):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if value is None:
        return "null_type"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, Quantity):
        return "kubernetes.Quantity"
    if isinstance(value, Semver):
        return "kubernetes.Semver"
    return str(getattr(value, "CEL_TYPE", type(value).__name__))


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_int(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise CelError("integer overflow")
    return value


def check_uint(value: int) -> UInt:
    if value < 0 or value > UINT64_MAX:
        raise CelError("unsigned integer overflow")
    return UInt(value)


def need(value: Any, kind: type | tuple[type, ...]) -> Any:
    if isinstance(value, bool) and kind is not bool:
        raise CelError(NO_SUCH_OVERLOAD)
    if not isinstance(value, kind):
        raise CelError(NO_SUCH_OVERLOAD)
    return value


def go_quote(text: str) -> str:
    """Go's %q of a string, for the printable text errors quote."""
    return json.dumps(text, ensure_ascii=False)
