"""Offline loading: `kubectl get -o yaml|json` files, folders, cluster-info dumps, stdin.

JSON is decoded straight into the typed model by msgspec (only declared fields are
materialised); YAML goes through libyaml's C loader when present. The garbage
collector is paused while loading: the object graph is acyclic and large.
"""

from __future__ import annotations

import gc
import gzip
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import yaml

from podwhy.errors import PodwhyError
from podwhy.model.objects import KIND_TYPES
from podwhy.model.quantity import QuantityError, parse_quantity
from podwhy.snapshot.cluster import Snapshot

_SafeLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeLoader):  # type: ignore[misc]
    """SafeLoader without the timestamp resolver: keep timestamps as strings, as in JSON."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}

_SUFFIXES = (".json", ".yaml", ".yml")


class _Envelope(msgspec.Struct):
    kind: str = ""
    apiVersion: str = ""  # noqa: N815 - wire name
    items: list[msgspec.Raw] | None = None


class _KindPeek(msgspec.Struct):
    kind: str = ""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector; afterwards freeze what was built.

    Snapshots are millions of long-lived, acyclic objects: scanning them in every full
    collection costs seconds and frees nothing, so they are moved to the permanent
    generation (gc.freeze) once built.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


class _Decoder:
    """Decodes objects into a pending batch; a file's batch is committed only once it all decoded."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._pending: list[tuple[str, Any]] = []
        self._pending_seen: set[str] = set()
        self._pending_ignored: Counter[str] = Counter()
        self._json_decoders: dict[str, msgspec.json.Decoder[Any]] = {
            kind: msgspec.json.Decoder(tp) for kind, tp in KIND_TYPES.items()
        }
        self._envelope = msgspec.json.Decoder(_Envelope)
        self._peek = msgspec.json.Decoder(_KindPeek)

    # -- JSON -------------------------------------------------------------
    def load_json(self, data: bytes, source: str) -> None:
        try:
            env = self._envelope.decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            raise PodwhyError(f"{source}: malformed JSON: {exc}") from None
        if env.items is None:
            self._add_json(env.kind, data, source, "the object")
            return
        item_kind = env.kind[: -len("List")] if env.kind.endswith("List") else ""
        if item_kind and item_kind != "":
            self._mark_seen(item_kind)
        for index, raw in enumerate(env.items):
            kind = item_kind
            if not kind:
                try:
                    kind = self._peek.decode(raw).kind
                except (msgspec.ValidationError, UnicodeDecodeError) as exc:
                    raise PodwhyError(f"{source}: items[{index}] is not a Kubernetes object: {exc}") from None
            self._add_json(kind, raw, source, f"items[{index}]")

    def _add_json(self, kind: str, data: bytes | msgspec.Raw, source: str, where: str) -> None:
        decoder = self._json_decoders.get(kind)
        if decoder is None:
            self._pending_ignored[kind or "<no kind>"] += 1
            return
        try:
            obj = decoder.decode(data)
        # msgspec checks UTF-8 only in the strings it decodes, so bad bytes surface per object.
        except (msgspec.ValidationError, UnicodeDecodeError) as exc:
            raise PodwhyError(f"{source}: {where} ({kind}) is invalid: {exc}") from None
        self._check(kind, obj, source, where)
        self._pending.append((kind, obj))

    # -- YAML / already-parsed documents ----------------------------------
    def load_documents(self, docs: Iterable[Any], source: str) -> None:
        for doc_index, doc in enumerate(docs):
            if doc is None:
                continue
            if not isinstance(doc, dict):
                raise PodwhyError(f"{source}: document {doc_index + 1} is not a Kubernetes object")
            kind = _kind(doc, source, f"document {doc_index + 1}")
            items = doc.get("items")
            if isinstance(items, list):
                item_kind = kind[: -len("List")] if kind.endswith("List") and kind != "List" else ""
                if item_kind:
                    self._mark_seen(item_kind)
                for index, item in enumerate(items):
                    if not isinstance(item, dict):
                        raise PodwhyError(f"{source}: items[{index}] is not a Kubernetes object")
                    where = f"items[{index}]"
                    self._add_doc(item_kind or _kind(item, source, where), item, source, where)
            else:
                self._add_doc(kind, doc, source, f"document {doc_index + 1}")

    def _add_doc(self, kind: str, doc: dict[str, Any], source: str, where: str) -> None:
        tp = KIND_TYPES.get(kind)
        if tp is None:
            self._pending_ignored[kind or "<no kind>"] += 1
            return
        try:
            obj = msgspec.convert(doc, tp)
        except msgspec.ValidationError as exc:
            name = doc.get("metadata", {}).get("name", "") if isinstance(doc.get("metadata"), dict) else ""
            label = f"{kind} {name!r}" if name else kind
            raise PodwhyError(f"{source}: {where} ({label}) is invalid: {exc}") from None
        self._check(kind, obj, source, where)
        self._pending.append((kind, obj))

    # -- shared -----------------------------------------------------------
    def _mark_seen(self, kind: str) -> None:
        if kind in KIND_TYPES:
            self._pending_seen.add(kind)

    def commit(self) -> None:
        for kind, obj in self._pending:
            self.snapshot.add(kind, obj)
        self.snapshot.kinds_seen |= self._pending_seen
        self.snapshot.ignored_kinds.update(self._pending_ignored)
        self.discard()

    def discard(self) -> None:
        self._pending = []
        self._pending_seen = set()
        self._pending_ignored = Counter()

    @staticmethod
    def _check(kind: str, obj: Any, source: str, where: str) -> None:
        if not obj.metadata.name:
            raise PodwhyError(f"{source}: {where} ({kind}) has no metadata.name")
        if kind == "Pod" and not obj.metadata.namespace:
            obj.metadata.namespace = "default"
        try:
            for resources in _resource_lists(kind, obj):
                for raw in resources.values():
                    parse_quantity(raw)
        except QuantityError as exc:
            raise PodwhyError(f"{source}: {where} ({kind} {obj.metadata.name!r}): {exc.message}", exc.hint) from None


def _kind(doc: dict[str, Any], source: str, where: str) -> str:
    """An object's kind, which must be a string when present (as the JSON decoder demands)."""
    kind = doc.get("kind", "")
    if not isinstance(kind, str):
        got = "null" if kind is None else type(kind).__name__
        raise PodwhyError(f"{source}: {where} is not a Kubernetes object: its kind is {got}, not a string")
    return kind


def _resource_lists(kind: str, obj: Any) -> Iterator[dict[str, Any]]:
    """The quantity maps of an object, checked once at load so errors can name the object."""
    if kind == "Pod":
        spec = obj.spec
        for container in (*spec.containers, *spec.init_containers):
            yield container.resources.requests
            yield container.resources.limits
        yield spec.overhead
        if spec.resources is not None:
            yield spec.resources.requests
    elif kind == "Node":
        yield obj.status.allocatable
        yield obj.status.capacity


def _read_bytes(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PodwhyError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot read: {exc.strerror}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise PodwhyError(f"{path}: corrupt gzip data: {exc}") from None
    return data


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """Point file descriptor 2 at /dev/null: rapidyaml's C++ error handler prints some parse
    errors there before raising, while podwhy reports malformed YAML in one line of its own."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to protect
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _ryml_json_documents(data: bytes) -> list[bytes] | None:
    """YAML to JSON text, one string per document, with rapidyaml (C++); None if unavailable.

    PyYAML builds a Python dict of every field before msgspec sees it (13 s and 1.8 GB for a
    42 MB dump); rapidyaml parses and re-emits the same dump as JSON in 0.5 s, which msgspec then
    decodes into the typed model directly. Anchors are resolved first. Where rapidyaml's YAML 1.2
    reading could differ from PyYAML's (a "yes" or "~" in a typed field), typed decoding fails
    and the caller falls back to PyYAML for that file.
    """
    try:
        import ryml  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        with _stderr_silenced():
            tree = ryml.parse_in_arena(data)
            tree.resolve()
        root = tree.root_id()
        if not tree.is_stream(root):
            return [ryml.emit_json_malloc(tree, root).encode()]
        docs: list[bytes] = []
        child = tree.first_child(root)
        while child != ryml.NONE:
            if tree.has_children(child) or tree.has_val(child):
                docs.append(ryml.emit_json_malloc(tree, child).encode())
            child = tree.next_sibling(child)
        return docs
    # Any parse/emit problem (also bytes that are not UTF-8): let PyYAML read it and word the error.
    except Exception:
        return None


def _load_bytes(decoder: _Decoder, data: bytes, source: str) -> None:
    try:
        _decode_bytes(decoder, data, source)
    except PodwhyError:
        decoder.discard()
        raise
    decoder.commit()


def _decode_bytes(decoder: _Decoder, data: bytes, source: str) -> None:
    stripped = data.lstrip()
    if not stripped:
        return
    if stripped[:1] in (b"{", b"["):
        if stripped[:1] == b"[":
            raise PodwhyError(f"{source}: a top-level JSON array is not a Kubernetes object or List")
        decoder.load_json(data, source)
        return
    json_docs = _ryml_json_documents(data)
    if json_docs is not None:
        try:
            for doc in json_docs:
                decoder.load_json(doc, source)
            return
        except PodwhyError:
            decoder.discard()
    try:
        docs = list(yaml.load_all(data, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PodwhyError(f"{source}: malformed YAML{where}: {problem}") from None
    decoder.load_documents(docs, source)


def _is_cluster_info_dump(root: Path) -> bool:
    """The layout `kubectl cluster-info dump --output-directory` writes (files may be gzipped)."""

    def has(folder: Path, name: str) -> bool:
        return (folder / name).is_file() or (folder / (name + ".gz")).is_file()

    if not has(root, "nodes.json"):
        return False
    return any(has(child, "pods.json") for child in root.iterdir() if child.is_dir())


def _object_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            base = name[:-3] if name.endswith(".gz") else name
            if base.endswith(_SUFFIXES):
                files.append(Path(dirpath) / name)
    return files


def load_offline(paths: Iterable[str]) -> Snapshot:
    """Load every PATH (file, folder, cluster-info dump or '-') into one snapshot."""
    snapshot = Snapshot()
    decoder = _Decoder(snapshot)
    with gc_paused():
        for raw_path in paths:
            snapshot.sources.append(raw_path)
            if raw_path == "-":
                _load_bytes(decoder, sys.stdin.buffer.read(), "<stdin>")
                continue
            path = Path(raw_path)
            if path.is_dir():
                if _is_cluster_info_dump(path):
                    snapshot.from_cluster_info_dump = True
                files = _object_files(path)
                if not files:
                    raise PodwhyError(f"{path}: the folder holds no .json or .yaml files")
                for file in files:
                    _load_bytes(decoder, _read_bytes(file), str(file))
            else:
                _load_bytes(decoder, _read_bytes(path), str(path))
    return snapshot
