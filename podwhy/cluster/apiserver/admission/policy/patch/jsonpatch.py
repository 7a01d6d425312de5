"""RFC 6902 JSON Patch as the API server applies a MutatingAdmissionPolicy's
(gopkg.in/evanphx/json-patch.v4, patch/json_patch.go): add, remove, replace, move, copy and test
over JSON-like values, with v4's particulars (a replace of a missing object key adds it,
negative array indices count from the end, `-` appends on add only) and its error words. A
failed test leaves the object unpatched (TestFailedError), never an error."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec

MISSING = "missing value"
INVALID_INDEX = "invalid index referenced"


class JSONPatchError(Exception):
    """The patch cannot be applied: the message is json-patch's."""


class TestFailedError(Exception):
    """ErrTestFailed: a test operation did not hold."""

    __test__ = False  # not a pytest class


class Operation(msgspec.Struct, frozen=True):
    """One operation: op, path, from (empty: none) and value (HAS_VALUE False: none)."""

    op: str
    path: str
    from_: str = ""
    value: Any = None
    has_value: bool = False


def escape_key(key: str) -> str:
    """jsonpatch.escapeKey: a key as one JSON pointer segment."""
    return key.replace("~", "~0").replace("/", "~1")


def _decode(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _atoi(key: str) -> int:
    """strconv.Atoi, with its error."""
    text = key[1:] if key[:1] in "+-" and len(key) > 1 else key
    if not text.isdigit() or not text.isascii():
        raise JSONPatchError(f'strconv.Atoi: parsing "{key}": invalid syntax')
    return int(key)


class _Array:
    """partialArray's operations on a list."""

    @staticmethod
    def index(items: list[Any], key: str, size: int) -> int:
        idx = _atoi(key)
        if idx < 0:
            if idx < -size:
                raise JSONPatchError(f"Unable to access invalid index: {idx}: {INVALID_INDEX}")
            idx += size
        return idx

    @classmethod
    def get(cls, items: list[Any], key: str) -> Any:
        idx = cls.index(items, key, len(items))
        if idx >= len(items):
            raise JSONPatchError(f"Unable to access invalid index: {idx}: {INVALID_INDEX}")
        return items[idx]

    @classmethod
    def add(cls, items: list[Any], key: str, value: Any) -> None:
        if key == "-":
            items.append(value)
            return
        try:
            idx = _atoi(key)
        except JSONPatchError as exc:
            raise JSONPatchError(f"value was not a proper array index: '{key}': {exc}") from exc
        if idx >= len(items) + 1:
            raise JSONPatchError(f"Unable to access invalid index: {idx}: {INVALID_INDEX}")
        idx = cls.index(items, key, len(items) + 1)
        items.insert(idx, value)

    @classmethod
    def remove(cls, items: list[Any], key: str) -> None:
        idx = _atoi(key)
        if idx >= len(items):
            raise JSONPatchError(f"Unable to access invalid index: {idx}: {INVALID_INDEX}")
        del items[cls.index(items, key, len(items))]


def _find(doc: Any, path: str) -> tuple[Any, str] | None:
    """findObject: the container of PATH's last segment and that segment (decoded)."""
    split = path.split("/")
    if len(split) < 2:
        return None
    node = doc
    for part in split[1:-1]:
        key = _decode(part)
        try:
            node = _Array.get(node, key) if isinstance(node, list) else node.get(key)
        except JSONPatchError:
            return None
        if not isinstance(node, (dict, list)):
            return None
    return node, _decode(split[-1])


def _get(container: Any, key: str) -> Any:
    return _Array.get(container, key) if isinstance(container, list) else container.get(key)


def _add(container: Any, key: str, value: Any) -> None:
    if isinstance(container, list):
        _Array.add(container, key, value)
    else:
        container[key] = value


def _remove(container: Any, key: str) -> None:
    if isinstance(container, list):
        _Array.remove(container, key)
    elif key not in container:
        raise JSONPatchError(f"Unable to remove nonexistent key: {key}: {MISSING}")
    else:
        del container[key]


def _equal(a: Any, b: Any) -> bool:
    """lazyNode.equal: objects and arrays by content, scalars by their JSON."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    return _scalar_json(a) == _scalar_json(b)


def _scalar_json(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return json.dumps(value)


def _add_op(doc: Any, op: Operation) -> None:
    found = _find(doc, op.path)
    if found is None:
        raise JSONPatchError(f'add operation does not apply: doc is missing path: "{op.path}": {MISSING}')
    try:
        _add(found[0], found[1], copy.deepcopy(op.value))
    except JSONPatchError as exc:
        raise JSONPatchError(f"error in add for path: '{op.path}': {exc}") from exc


def _remove_op(doc: Any, op: Operation) -> None:
    found = _find(doc, op.path)
    if found is None:
        raise JSONPatchError(f'remove operation does not apply: doc is missing path: "{op.path}": {MISSING}')
    try:
        _remove(*found)
    except JSONPatchError as exc:
        raise JSONPatchError(f"error in remove for path: '{op.path}': {exc}") from exc


def _replace_op(doc: Any, op: Operation) -> Any:
    if op.path == "":
        if not isinstance(op.value, (dict, list)):
            raise JSONPatchError("replace operation value must be object or array: <nil>")
        return copy.deepcopy(op.value)
    found = _find(doc, op.path)
    if found is None:
        raise JSONPatchError(f"replace operation does not apply: doc is missing path: {op.path}: {MISSING}")
    container, key = found
    try:
        _get(container, key)
    except JSONPatchError as exc:
        raise JSONPatchError(f"replace operation does not apply: doc is missing key: {op.path}: {MISSING}") from exc
    if isinstance(container, list):
        container[_Array.index(container, key, len(container))] = copy.deepcopy(op.value)
    else:
        container[key] = copy.deepcopy(op.value)
    return doc


def _move_op(doc: Any, op: Operation, copying: bool) -> None:
    name = "copy" if copying else "move"
    if not op.from_:
        raise JSONPatchError(f"{name} operation failed to decode from: operation, missing from field: {MISSING}")
    found = _find(doc, op.from_)
    if found is None:
        raise JSONPatchError(f"{name} operation does not apply: doc is missing from path: {op.from_}: {MISSING}")
    container, key = found
    try:
        value = _get(container, key)
        if not copying:
            _remove(container, key)
    except JSONPatchError as exc:
        where = f"from: '{op.from_}'" if copying else f"path: '{key}'"
        raise JSONPatchError(f"error in {name} for {where}: {exc}") from exc
    target = _find(doc, op.path)
    if target is None:
        raise JSONPatchError(f"{name} operation does not apply: doc is missing destination path: {op.path}: {MISSING}")
    try:
        _add(target[0], target[1], copy.deepcopy(value))
    except JSONPatchError as exc:
        prefix = "error while adding value during copy" if copying else f"error in move for path: '{op.path}'"
        raise JSONPatchError(f"{prefix}: {exc}") from exc


def _test_op(doc: Any, op: Operation) -> None:
    if op.path == "":
        if _equal(doc, op.value):
            return
        raise TestFailedError
    found = _find(doc, op.path)
    if found is None:
        raise JSONPatchError(f"test operation does not apply: is missing path: {op.path}: {MISSING}")
    try:
        value = _get(*found)
    except JSONPatchError as exc:
        raise JSONPatchError(f"error in test for path: '{op.path}': {exc}") from exc
    if value is None:  # absent, or null: json-patch reads both as no node
        if not op.has_value:
            return
        raise TestFailedError
    if op.has_value and _equal(value, op.value):
        return
    raise TestFailedError


def apply(doc: Any, operations: list[Operation]) -> Any:
    """Patch.Apply: a new document; JSONPatchError, or TestFailedError for a failed test."""
    doc = copy.deepcopy(doc)
    for op in operations:
        if op.op == "add":
            _add_op(doc, op)
        elif op.op == "remove":
            _remove_op(doc, op)
        elif op.op == "replace":
            doc = _replace_op(doc, op)
        elif op.op in ("move", "copy"):
            _move_op(doc, op, copying=op.op == "copy")
        elif op.op == "test":
            _test_op(doc, op)
        else:
            raise JSONPatchError(f"Unexpected kind: {op.op}")
    return doc
