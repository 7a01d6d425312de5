"""The served schema of the kinds podwhy creates as structured-merge-diff reads it (the API
server's type converter, kube-openapi's schemaconv over the OpenAPI v3 it serves): each type's
fields, which lists are atomic, sets or maps keyed by which fields, which maps and structs are
atomic, and the defaults of list keys. The data (`schemas.json`) holds every emulated release's
fields, each with the releases that serve it; `tests/cluster/apiserver/openapischemas.py`
writes it from the releases' api/openapi-spec."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

SCHEMAS_PATH = Path(__file__).resolve().parent / "schemas.json"

# Scalars (schema.Scalar) and the element relationships (schema.ElementRelationship).
STRING = "string"
INTEGER = "integer"
NUMERIC = "numeric"
BOOLEAN = "boolean"
UNTYPED = "untyped"
DEDUCED = "deduced"
ATOMIC = "atomic"
SET = "set"
MAP = "map"
SCALARS = frozenset({STRING, INTEGER, NUMERIC, BOOLEAN, UNTYPED})


class Struct(msgspec.Struct, frozen=True):
    """A named object type: its fields (None: any key, as a granular map of ELEMENT), atomic or not."""

    name: str
    fields: dict[str, Any]
    atomic: bool = False
    defaults: dict[str, Any] | None = None


class ListType(msgspec.Struct, frozen=True):
    element: Any
    relationship: str  # atomic, set, map
    keys: tuple[str, ...] = ()


class MapType(msgspec.Struct, frozen=True):
    element: Any
    atomic: bool = False


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMAS_PATH.read_text())
    return data


class Schema:
    """One release's schema: `root(kind)` the type of an object of KIND ("v1/Pod",
    "apps/v1/Deployment"), `resolve(expr)` what a type reference stands for."""

    def __init__(self, minor: int) -> None:
        data = _data()
        releases: list[int] = data["releases"]
        self.minor = min(max(minor, releases[0]), releases[-1])
        self._types: dict[str, Any] = data["types"]
        self._roots: dict[str, str] = data["roots"]
        self._structs: dict[str, Struct] = {}

    def root(self, kind: str) -> Struct | None:
        name = self._roots.get(kind)
        return None if name is None else self.struct(name)

    def struct(self, name: str) -> Struct:
        found = self._structs.get(name)
        if found is None:
            body = self._types[name]
            fields = {}
            for field, expr in body["fields"].items():
                if isinstance(expr, dict) and "in" in expr:
                    if self.minor not in expr["in"]:
                        continue
                    expr = expr["of"]
                fields[field] = expr
            found = Struct(name, fields, bool(body.get("atomic")), body.get("defaults"))
            self._structs[name] = found
        return found

    def resolve(self, expr: Any) -> Struct | ListType | MapType | str:
        """A field's type: a Struct, a ListType, a MapType, or a scalar's name (or DEDUCED)."""
        if isinstance(expr, str):
            return self.struct(expr[1:]) if expr.startswith("@") else expr
        if "list" in expr:
            return ListType(expr["list"], expr["type"], tuple(expr.get("keys", ())))
        return MapType(expr["map"], expr.get("type") == ATOMIC)


@cache
def schema_for(minor: int) -> Schema:
    return Schema(minor)
