"""Writes what a source fetched as one `kubectl get -o json`-shaped List that `--from` reads back.

Items are copied as the API server sent them (every field, not only the ones podwhy reads), each
with its kind and apiVersion; the kinds that could not be fetched are recorded on the List so the
dump explains a pod exactly as the live cluster did. `redact` replaces free text that can carry
secrets with placeholders; nothing a plugin reads is touched.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from podwhy.errors import PodwhyError
from podwhy.snapshot.decode import MISSING_KINDS_ANNOTATION, SERVER_VERSION_ANNOTATION

REDACTED = "<redacted>"
# Annotations plugins or admission read (volume binding, CSI migration, DRA claims, the
# default StorageClass): kept by --redact.
KEPT_ANNOTATIONS = frozenset(
    {
        "volume.beta.kubernetes.io/storage-class",
        "volume.kubernetes.io/selected-node",
        "volume.kubernetes.io/storage-provisioner",
        "volume.beta.kubernetes.io/storage-provisioner",
        "storage.alpha.kubernetes.io/migrated-plugins",
        "pv.kubernetes.io/bind-completed",
        "pv.kubernetes.io/bound-by-controller",
        "pv.kubernetes.io/provisioned-by",
        "resource.kubernetes.io/pod-claim-name",
        "scheduler.alpha.kubernetes.io/critical-pod",
        # The default StorageClass, which `podwhy check` gives claims created without a class.
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    }
)
# Keys whose values are commands or free text, wherever they appear in an object.
FREE_TEXT_LISTS = frozenset({"command", "args"})
# Words of a command line kept by --redact: they say which schedulerNames a scheduler pod
# serves (podwhy pending), and carry no secret.
KEPT_FLAGS = ("--scheduler-name", "-scheduler-name", "--config", "-config")
KEPT_PROGRAMS = frozenset({"kube-scheduler"})


def redact(obj: Any) -> Any:
    """A copy of a decoded object with env values, command lines and foreign annotations replaced."""
    if isinstance(obj, list):
        return [redact(item) for item in obj]
    if not isinstance(obj, dict):
        return obj
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key in FREE_TEXT_LISTS and isinstance(value, list):
            out[key] = _redact_command(value)
        elif key == "env" and isinstance(value, list):
            out[key] = [_redact_env(v) for v in value]
        elif key == "annotations" and isinstance(value, dict):
            out[key] = {k: (v if k in KEPT_ANNOTATIONS else REDACTED) for k, v in value.items()}
        else:
            out[key] = redact(value)
    return out


def _redact_command(words: list[Any]) -> list[Any]:
    """Every word replaced, but a kube-scheduler program and its --scheduler-name / --config flags."""
    out: list[Any] = []
    flag_value_next = False
    for word in words:
        keep = isinstance(word, str) and (
            flag_value_next
            or word in KEPT_FLAGS
            or word.startswith(tuple(f"{flag}=" for flag in KEPT_FLAGS))
            or word.rstrip("/").rpartition("/")[2] in KEPT_PROGRAMS
        )
        flag_value_next = isinstance(word, str) and word in KEPT_FLAGS
        out.append(word if keep else REDACTED)
    return out


def _redact_env(entry: Any) -> Any:
    if isinstance(entry, dict) and "value" in entry:
        return {**entry, "value": REDACTED}
    return entry


def _with_kind(raw: bytes, kind: str, api_version: str) -> bytes:
    """The item's JSON with kind and apiVersion first (list items do not carry them)."""
    body = raw.strip()
    head = json.dumps({"kind": kind, "apiVersion": api_version})[:-1].encode()
    rest = body[1:].lstrip()
    return head + (b"}" if rest == b"}" else b"," + rest)


def write_dump(
    path: Path,
    items: Mapping[tuple[str, str], list[msgspec.Raw]],
    missing: Mapping[str, str],
    redact_text: bool = False,
    server_version: str = "",
) -> int:
    """Write {(kind, apiVersion): raw items} as one List; returns the number of objects written.
    `server_version`: the API server's gitVersion, recorded for choosing the scheduler release."""
    annotations = {MISSING_KINDS_ANNOTATION: json.dumps(dict(sorted(missing.items())))} if missing else {}
    if server_version:
        annotations[SERVER_VERSION_ANNOTATION] = server_version
    head = {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}}
    count = 0
    try:
        with _open(path) as out:
            out.write(json.dumps(head)[:-1].encode() + b',"items":[\n')
            first = True
            for (kind, api_version), raws in items.items():
                for raw in raws:
                    data = bytes(raw)
                    if redact_text:
                        data = msgspec.json.encode(redact(msgspec.json.decode(data)))
                    if not first:
                        out.write(b",\n")
                    out.write(_with_kind(data, kind, api_version))
                    first = False
                    count += 1
            out.write(b"\n]}\n")
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot write: {exc.strerror}") from None
    return count


def _open(path: Path) -> gzip.GzipFile | BinaryIO:
    if path.name.endswith(".gz"):
        return gzip.open(path, "wb")
    return path.open("wb")
