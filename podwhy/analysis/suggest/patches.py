"""The changes a suggestion carries: RFC 7386 merge patches against objects of the snapshot, and
the commands that make a change to the pod (to its manifest, or to its workload's template)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import msgspec

from podwhy.analysis.commands import manifest_command, patch_command, strategic_patch
from podwhy.analysis.suggest.facts import Command
from podwhy.model import objects as o
from podwhy.model.gojson import without_nulls
from podwhy.snapshot.cluster import Snapshot

if TYPE_CHECKING:
    from podwhy.analysis.suggest.base import _Verifier


def _builtins(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def _pod_ref(pod: o.Pod) -> dict[str, Any]:
    return {"kind": "Pod", "namespace": pod.metadata.namespace, "name": pod.metadata.name}


def typed_document(pod: o.Pod) -> dict[str, Any]:
    """The pod as podwhy's typed model encodes it (only the fields the scheduler reads)."""
    return {"apiVersion": "v1", "kind": "Pod", **_builtins(pod)}


def _source_document(snapshot: Snapshot, pod: o.Pod) -> dict[str, Any] | None:
    """The pod as its source held it, when the snapshot kept it and it is this very pod (not a
    manifest given with -f that happens to share its name)."""
    data = snapshot.raw_pods.get(f"{pod.metadata.namespace}/{pod.metadata.name}")
    if data is None or not any(p is pod for p in snapshot.pods):
        return None
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    if not isinstance(doc, dict):
        return None
    doc = without_nulls(doc)  # a field the API server wrote as null is as absent (Go reads it so)
    return doc if isinstance(doc.get("spec"), dict) else None


def _pointer(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def apply_json_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """RFC 6902 add / replace / remove applied to a copy of DOC, as strictly as kubectl's patch
    (evanphx/json-patch): `add` needs the parent, `replace` and `remove` the member itself, an
    array index must be in range. KeyError, IndexError, TypeError or ValueError when not."""
    out = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _pointer(op["path"])
        target = out
        for part in parents:
            target = target[_index(part, target, len(target) - 1)] if isinstance(target, list) else target[part]
        value = copy.deepcopy(op.get("value"))
        if isinstance(target, list):
            if op["op"] == "add":
                target.insert(len(target) if last == "-" else _index(last, target, len(target)), value)
            elif op["op"] == "remove":
                del target[_index(last, target, len(target) - 1)]
            else:
                target[_index(last, target, len(target) - 1)] = value
        elif isinstance(target, dict):
            if op["op"] != "add" and last not in target:
                raise KeyError(f"{op['path']}: no such member to {op['op']}")
            if op["op"] == "remove":
                del target[last]
            else:
                target[last] = value
        else:
            raise TypeError(f"{op['path']}: not an object or array")
    return out


def _index(part: str, target: list[Any], highest: int) -> int:
    """An RFC 6901 array index: digits without a leading zero, at most HIGHEST."""
    if not part.isdigit() or (len(part) > 1 and part[0] == "0") or int(part) > highest:
        raise IndexError(f"array index {part!r} out of range")
    return int(part)


def merge_diff(old: Any, new: Any) -> Any:
    """The RFC 7386 merge patch that turns OLD into NEW: objects member by member (null removes a
    member), anything else, lists included, whole."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return copy.deepcopy(new)
    patch: dict[str, Any] = {key: None for key in old if key not in new}
    for key, value in new.items():
        if key not in old:
            patch[key] = copy.deepcopy(value)
        elif old[key] != value:
            patch[key] = merge_diff(old[key], value)
    return patch


def _pod_command(v: _Verifier, ops: list[dict[str, Any]]) -> Command | None:
    """The command that makes the change OPS (RFC 6902, paths relative to the pod): to the manifest
    the pod was given in, else to the template of the workload that owns it. None when the ops do
    not apply to the pod as its source holds it (a change of requests is a strategic merge patch
    by container name, which applies to any: commands.strategic_patch)."""
    if strategic_patch(v.pod, ops) is None:
        try:
            apply_json_patch(v.pod_document(), ops)
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    if v.manifest is not None:
        return manifest_command(v.manifest, v.pod, ops)
    return patch_command(v.pod, v.snapshot, ops, v.group)


def _pod_patch(v: _Verifier, ops: list[dict[str, Any]]) -> dict[str, Any]:
    """The merge patch against the pod that RFC 6902 OPS (paths relative to the pod) make. A list it
    changes is written whole (RFC 7386 has no list merge) with its entries as the source held them."""
    doc = v.pod_document()
    try:
        new = apply_json_patch(doc, ops)
    except (KeyError, IndexError, TypeError, ValueError):
        # The source's pod lacks a path the typed model has (a value defaulted on decoding).
        doc = typed_document(v.pod)
        new = apply_json_patch(doc, ops)
    return {**_pod_ref(v.pod), "patch": merge_diff(doc, new)}
