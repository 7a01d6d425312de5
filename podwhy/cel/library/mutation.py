"""The types a MutatingAdmissionPolicy's mutations construct (k8s.io/apiserver/pkg/cel/mutation:
the DynamicTypeResolver, `Object` and `Object.<field>...` as dynamic.ObjectType, `JSONPatch`)
and the jsonpatch library (library/jsonpatch.go: `jsonpatch.escapeKey`).

An `Object.spec{...}` value is an ObjectVal: its type name and its fields, converted to JSON as
the API server converts it (ConvertToNative); a `JSONPatch{...}` is a JSONPatchVal, its op, path
and from strings and its value."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import type_name

OBJECT = "Object"
JSON_PATCH = "JSONPatch"
_PATCH_FIELDS = ("op", "path", "from", "value")


class ObjectVal(msgspec.Struct, eq=False):
    """dynamic.ObjectVal: an object of type NAME ("Object.spec") with its FIELDS (CEL values)."""

    name: str
    fields: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def CEL_TYPE(self) -> str:  # noqa: N802 - the attribute values.type_name reads
        return self.name

    def lookup(self, name: str) -> Any:
        if name not in self.fields:
            raise CelError(f"no such key: {name}")
        return self.fields[name]

    def has(self, name: str) -> bool:
        return name in self.fields

    def equal(self, other: Any) -> bool:
        return isinstance(other, ObjectVal) and other.name == self.name and _deep_equal(self.fields, other.fields)


class JSONPatchVal(msgspec.Struct, eq=False):
    """mutation.JSONPatchVal: one operation (unset strings are empty; VALUE unset is HAS_VALUE False)."""

    op: str = ""
    path: str = ""
    from_: str = ""
    value: Any = None
    has_value: bool = False

    CEL_TYPE = JSON_PATCH

    def lookup(self, name: str) -> Any:
        if name == "op":
            return self.op
        if name == "path":
            return self.path
        if name == "from":
            return self.from_
        if name == "value":
            return self.value
        raise CelError(f"unsupported indexer: {name}")

    def has(self, name: str) -> bool:
        if name == "value":
            return self.has_value
        if name in _PATCH_FIELDS:
            return bool(self.lookup(name))
        raise CelError(f"unsupported field: {name}")

    def equal(self, other: Any) -> bool:
        if not isinstance(other, JSONPatchVal):
            return False
        if (self.op, self.path, self.from_, self.has_value) != (other.op, other.path, other.from_, other.has_value):
            return False
        return not self.has_value or _deep_equal(self.value, other.value)


def _deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual of CEL values: same types, same content."""
    if isinstance(a, (ObjectVal, JSONPatchVal)):
        return a.equal(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_GO_TYPES = {"int": "int64", "uint": "uint64", "double": "float64", "bool": "bool", "bytes": "[]uint8"}


def _go_type(value: Any) -> str:
    """%T of a CEL value's Value(), for JSONPatch's field type errors."""
    name = type_name(value)
    if name == "null_type":
        return "structpb.NullValue"
    if name == "list":
        return "[]ref.Val"
    if name == "map":
        return "map[ref.Val]ref.Val"
    return _GO_TYPES.get(name, name)


def _json_patch(fields: Mapping[str, Any]) -> JSONPatchVal:
    """JSONPatchType.Val: op, path and from must be strings."""
    out = JSONPatchVal()
    for name, value in fields.items():
        if name in ("op", "path", "from"):
            if not isinstance(value, str):
                raise CelError(f"unexpected type {_go_type(value)} for JSONPatchType '{name}' field")
            setattr(out, "from_" if name == "from" else name, value)
        elif name == "value":
            out.value, out.has_value = value, True
        else:
            raise CelError(f"unexpected JSONPatchType field: {name}")
    return out


Constructor = Callable[[Mapping[str, Any]], Any]


def resolve_type(name: str) -> Constructor | None:
    """DynamicTypeResolver.Resolve: JSONPatch, Object and `Object.<field>...`; None for any other."""
    if name == JSON_PATCH:
        return _json_patch
    if name == OBJECT or name.startswith(OBJECT + "."):
        return lambda fields: ObjectVal(name, dict(fields))
    return None


def escape_key(key: Any) -> str:
    """jsonpatch.escapeKey."""
    if not isinstance(key, str):
        raise CelError(NO_SUCH_OVERLOAD)
    return key.replace("~", "~0").replace("/", "~1")


FUNCTIONS: Mapping[str, Callable[..., Any]] = {"jsonpatch.escapeKey": escape_key}


# ------------------------------------------------------------------ the values as JSON


def check_type_names(value: ObjectVal) -> list[str]:
    """CheckTypeNamesMatchFieldPathNames: every nested Object's type name must be its field path."""
    return _type_check(value, [value.name])


def _type_check(value: Any, path: list[str]) -> list[str]:
    errors: list[str] = []
    if isinstance(value, ObjectVal):
        expected = ".".join(path)
        if value.name != expected:
            errors.append(
                f"unexpected type name {_quote(value.name)}, expected {_quote(expected)}, "
                "which matches field name path from root Object type"
            )
        for key, child in value.fields.items():
            errors += _type_check(child, [*path, key])
    elif isinstance(value, list):
        for child in value:
            errors += _type_check(child, path)
    elif isinstance(value, dict):
        for child in value.values():
            errors += _type_check(child, path)
    return errors


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class NotJSONError(CelError):
    """A value that cannot become JSON (structpb.Value)."""


def to_json(value: Any) -> Any:
    """A CEL value as the JSON the API server makes of it (an Object's fields, lists and maps with
    string keys, scalars); NotJSONError for what has no JSON form."""
    if isinstance(value, ObjectVal):
        return {key: to_json(child) for key, child in value.fields.items()}
    if isinstance(value, list):
        return [to_json(child) for child in value]
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            if not isinstance(key, str):
                raise NotJSONError(f"map key {key!r} is of type {_go_type(key)}, not string")
            out[key] = to_json(child)
        return out
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int):
        return int(value)  # a uint too
    raise NotJSONError(f"type conversion error from '{type_name(value)}' to 'google.protobuf.Value'")
