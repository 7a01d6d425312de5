"""An apply configuration merged into an object as the API server merges a
MutatingAdmissionPolicy's (patch/smd.go's ApplyStructuredMergeDiff over
sigs.k8s.io/structured-merge-diff's typed values): the patch converted to a typed value against
the served schema (an undeclared field or a scalar of the wrong type refused, in SMD's words),
refused if it sets an atomic list, map or struct (validatePatch), then merged with the object
(TypedValue.Merge with ruleKeepRHS): structs and granular maps key by key, associative lists
item by item in SMD's order, atomic values and scalars replaced. Values are JSON-like."""

from __future__ import annotations

import json
from typing import Any

from podwhy.cluster.apiserver.admission.policy.patch.schema import (
    ATOMIC,
    BOOLEAN,
    DEDUCED,
    INTEGER,
    NUMERIC,
    STRING,
    ListType,
    MapType,
    Schema,
    Struct,
)


class PatchError(Exception):
    """The patch cannot be applied: the message is the API server's (after `error applying patch: `)."""


class _Absent:
    """Go's nil value (no value at all), as against JSON's null."""


ABSENT: Any = _Absent()

Resolved = Struct | ListType | MapType | str


def _go_value(value: Any) -> str:
    """fmt's %#v of an unstructured value.Value, as SMD's scalar errors print it."""
    if isinstance(value, dict):
        inner = "map[string]interface {}{" + ", ".join(f"{json.dumps(k)}:{_go_inner(v)}" for k, v in value.items())
        return "&value.valueUnstructured{Value:" + inner + "}}"
    return "&value.valueUnstructured{Value:" + _go_inner(value) + "}"


def _go_inner(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_inner(v) for v in value) + "}"
    if isinstance(value, dict):
        return "map[string]interface {}{" + ", ".join(f"{json.dumps(k)}:{_go_inner(v)}" for k, v in value.items()) + "}"
    return "<nil>" if value is None else str(value)


def _go_type(value: Any) -> str:
    """fmt's %T of an unstructured value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "float64" if isinstance(value, float) else "int64"


def _scalar_error(kind: str, value: Any) -> str:
    """validateScalar."""
    if value is None:
        return ""
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind in (NUMERIC, INTEGER) and not is_number:
        return f"expected numeric (int or float), got {_go_type(value)}"
    if kind == STRING and not isinstance(value, str):
        return f"expected string, got {_go_value(value)}"
    if kind == BOOLEAN and not isinstance(value, bool):
        return f"expected boolean, got {_go_value(value)[1:].replace('value.valueUnstructured', '')}"
    return ""


def _key_string(value: Any) -> str:
    """value.ToString: a key's value as JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def path_element(items: ListType, schema: Schema, child: Any) -> tuple[Any, ...]:
    """listItemToPathElement: the identity of an associative list's item (its keys, or its value
    for a set), as a hashable tuple; PatchError's words for an item that has none."""
    if items.relationship == ATOMIC:
        raise PatchError("invalid indexing of non-associative list")
    if items.keys:
        if child is None:
            raise PatchError("associative list with keys may not have a null element")
        if not isinstance(child, dict):
            raise PatchError("associative list with keys may not have non-map elements")
        element = schema.resolve(items.element)
        defaults = (element.defaults or {}) if isinstance(element, Struct) else {}
        found = []
        for key in items.keys:
            if key in child:
                found.append((key, _key_string(child[key])))
            elif key in defaults:
                found.append((key, _key_string(defaults[key])))
        if not found:
            keys = "[" + " ".join(json.dumps(k) for k in items.keys) + "]"
            raise PatchError(
                f"associative list with keys has an element that omits all key fields {keys} "
                "(and doesn't have default values for any key fields)"
            )
        return ("key", *sorted(found))
    if isinstance(child, dict):
        raise PatchError("associative list without keys has an element that's a map type")
    if isinstance(child, list):
        raise PatchError("not supported: associative list with lists as elements")
    if child is None:
        raise PatchError("associative list without keys has an element that's an explicit null")
    return ("value", _key_string(child))


def element_string(pe: tuple[Any, ...]) -> str:
    """fieldpath.PathElement.String of a list item."""
    if pe[0] == "value":
        return f"[={pe[1]}]"
    return "[" + ",".join(f"{name}={value}" for name, value in pe[1:]) + "]"


def _errors(found: list[str]) -> str:
    """ValidationErrors.Error."""
    if len(found) == 1:
        return found[0]
    return "\n".join(["errors:", *("  " + e for e in found)])


class _Validator:
    """ObjectToTyped's validation of the patch (validatingObjectWalker)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.errors: list[str] = []

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}" if path else message)

    def walk(self, value: Any, expr: Any, path: str) -> None:
        resolved = self.schema.resolve(expr) if expr is not None else DEDUCED
        if isinstance(resolved, str):
            message = _scalar_error(resolved, value) if resolved != DEDUCED else ""
            if message:
                self.error(path, message)
        elif value is None:
            return
        elif isinstance(resolved, ListType):
            self._list(value, resolved, path)
        elif not isinstance(value, dict):
            self.error(path, f"expected map, got {_go_value(value)[1:].replace('value.valueUnstructured', '')}")
        elif isinstance(resolved, Struct):
            for key, child in value.items():
                if key not in resolved.fields:
                    self.error(f"{path}.{key}", "field not declared in schema")
                    return
                self.walk(child, resolved.fields[key], f"{path}.{key}")
        else:
            for key, child in value.items():
                self.walk(child, resolved.element, f"{path}.{key}")

    def _list(self, value: Any, items: ListType, path: str) -> None:
        if not isinstance(value, list):
            self.error(path, f"expected list, got {_go_value(value)[1:].replace('value.valueUnstructured', '')}")
            return
        seen: set[tuple[Any, ...]] = set()
        for i, child in enumerate(value):
            if items.relationship == ATOMIC:
                self.walk(child, items.element, f"{path}[{i}]")
                continue
            try:
                pe = path_element(items, self.schema, child)
            except PatchError as exc:
                self.error(path, f"element {i}: {exc}")
                return
            if pe in seen:
                self.error(path, f"duplicate entries for key {element_string(pe)}")
            seen.add(pe)
            self.walk(child, items.element, path + element_string(pe))


def find_atomics(schema: Schema, value: Any, expr: Any, path: str = "") -> list[str]:
    """findAtomics: the paths of every atomic list, map or struct the patch sets."""
    resolved = schema.resolve(expr)
    found: list[str] = []
    if isinstance(value, dict) and isinstance(resolved, (Struct, MapType)):
        if resolved.atomic:
            found.append(path)
        if isinstance(resolved, Struct):
            for key, child in value.items():
                if key in resolved.fields:
                    found += find_atomics(schema, child, resolved.fields[key], f"{path}.{key}")
    if isinstance(value, list) and isinstance(resolved, ListType):
        if resolved.relationship == ATOMIC:
            found.append(path)
        for i, child in enumerate(value):
            found += find_atomics(schema, child, resolved.element, f"{path}[{i}]")
    return found


class _Merger:
    """mergingWalker with ruleKeepRHS: the object (lhs) and the patch (rhs) merged."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def merge(self, lhs: Any, rhs: Any, expr: Any) -> Any:
        if expr is None:
            return rhs if rhs is not ABSENT else lhs
        resolved = self.schema.resolve(expr)
        if isinstance(resolved, ListType) and resolved.relationship != ATOMIC:
            return self._list(lhs, rhs, resolved)
        if isinstance(resolved, (Struct, MapType)) and not resolved.atomic:
            return self._map(lhs, rhs, resolved)
        if resolved == DEDUCED and isinstance(lhs, dict) and isinstance(rhs, dict):
            return self._map(lhs, rhs, MapType(DEDUCED))
        return rhs if rhs is not ABSENT else lhs

    def _map(self, lhs: Any, rhs: Any, kind: Struct | MapType) -> Any:
        left = lhs if isinstance(lhs, dict) else {}
        right = rhs if isinstance(rhs, dict) else {}
        if (not left and not right) or (not isinstance(lhs, dict) and not isinstance(rhs, dict)):
            return rhs if rhs is not ABSENT else lhs
        out: dict[str, Any] = {}
        for key in [*left, *(k for k in right if k not in left)]:
            field = kind.fields.get(key) if isinstance(kind, Struct) else kind.element
            merged = self.merge(left.get(key, ABSENT), right.get(key, ABSENT), field)
            if merged is not ABSENT:
                out[key] = merged
        return out if out else ABSENT

    def _index(self, items: ListType, values: list[Any]) -> tuple[list[tuple[Any, ...]], dict[tuple[Any, ...], Any]]:
        pes: list[tuple[Any, ...]] = []
        observed: dict[tuple[Any, ...], Any] = {}
        for child in values:
            pe = path_element(items, self.schema, child)
            observed[pe] = None if pe in observed else child  # a duplicate reads as null
            pes.append(pe)
        return pes, observed

    def _list(self, lhs: Any, rhs: Any, items: ListType) -> Any:
        left = lhs if isinstance(lhs, list) else []
        right = rhs if isinstance(rhs, list) else []
        if not left and not right:
            return rhs if rhs is not ABSENT else lhs
        rhs_pes, observed_rhs = self._index(items, right)
        lhs_pes, observed_lhs = self._index(items, left)
        shared = [pe for pe in rhs_pes if pe in observed_lhs]
        next_shared = shared.pop(0) if shared else None
        merged_rhs: set[tuple[Any, ...]] = set()
        out: list[Any] = []

        def add(pe: tuple[Any, ...], lchild: Any, rchild: Any) -> None:
            value = self.merge(lchild, rchild, items.element)
            if value is not ABSENT:
                out.append(value)

        li = ri = 0
        while li < len(lhs_pes) or ri < len(rhs_pes):
            if li < len(lhs_pes) and ri < len(rhs_pes):
                pe = lhs_pes[li]
                if pe == rhs_pes[ri]:
                    merged_rhs.add(pe)
                    add(pe, observed_lhs[pe], observed_rhs[pe])
                    li += 1
                    ri += 1
                    next_shared = shared.pop(0) if shared else None
                    continue
                if pe in observed_rhs and next_shared is not None and next_shared != pe:
                    li += 1
                    continue
            if li < len(lhs_pes):
                pe = lhs_pes[li]
                if pe not in observed_rhs:
                    add(pe, left[li], ABSENT)
                    li += 1
                    continue
                if pe in merged_rhs:
                    li += 1
            if ri < len(rhs_pes):
                pe = rhs_pes[ri]
                merged_rhs.add(pe)
                add(pe, observed_lhs.get(pe, ABSENT), observed_rhs[pe])
                ri += 1
                if next_shared is not None and next_shared == pe:
                    next_shared = shared.pop(0) if shared else None
        return out if out else ABSENT


def apply_structured_merge_diff(schema: Schema, kind: str, original: dict[str, Any], patch: dict[str, Any]) -> Any:
    """ApplyStructuredMergeDiff: ORIGINAL (an object of KIND, "v1/Pod") with PATCH merged in, a
    new value; PatchError in the API server's words when the patch cannot be."""
    root = schema.root(kind)
    if root is None:
        raise PatchError(f"no schema for {kind}")
    expr = "@" + root.name
    validator = _Validator(schema)
    validator.walk(patch, expr, "")
    if validator.errors:
        raise PatchError(f"failed to convert patch object to typed object: {_errors(validator.errors)}")
    atomics = find_atomics(schema, patch, expr)
    if atomics:
        raise PatchError(
            f"invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {', '.join(atomics)}"
        )
    try:
        merged = _Merger(schema).merge(original, patch, expr)
    except PatchError as exc:
        raise PatchError(f"failed to merge patch: {exc}") from exc
    return {} if merged is ABSENT else merged
