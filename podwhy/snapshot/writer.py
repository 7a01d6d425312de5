"""Writes what a source fetched as one `kubectl get -o json`-shaped List that `--from` reads back.

Items are copied as the API server sent them (every field, not only the ones podwhy reads), each
with its kind and apiVersion; the kinds that could not be fetched are recorded on the List so the
dump explains a pod exactly as the live cluster did. With `redact_text`, each object keeps only
what the allowlist of its kind keeps (redact.py, docs/redact.md).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import stat
import sys
import tempfile
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from podwhy.errors import PodwhyError
from podwhy.model.objects.kinds import api_kind
from podwhy.snapshot.decode import leading_type
from podwhy.snapshot.decoded import (
    FETCHED_KINDS_ANNOTATION,
    MISSING_KINDS_ANNOTATION,
    REDACTED_ANNOTATION,
    SERVER_VERSION_ANNOTATION,
    TAKEN_AT_ANNOTATION,
)
from podwhy.snapshot.live.params import ParamFetch
from podwhy.snapshot.params import PARAMS_ANNOTATION, fetched_text, read_param
from podwhy.snapshot.redact import Redactor, redact_object, redact_param
from podwhy.snapshot.resources import Resource


def _with_kind(raw: bytes, kind: str, api_version: str) -> bytes:
    """The item's JSON with kind and apiVersion first (list items do not carry them); KIND as the
    kind table keys it, written as the API names it (`Workload` of `Workload.kueue.x-k8s.io`)."""
    body = raw.strip()
    if leading_type(body) == (api_kind(kind), api_version):
        return body  # a custom resource's item carries both, as the server sent it
    head = json.dumps({"kind": api_kind(kind), "apiVersion": api_version})[:-1].encode()
    rest = body[1:].lstrip()
    return head + (b"}" if rest == b"}" else b"," + rest)


def _new_params(
    items: Mapping[tuple[str, str], Iterable[msgspec.Raw | bytes]], params: ParamFetch | None
) -> list[tuple[str, str, bytes]]:
    """The params fetched that ITEMS do not hold already (Cluster Autoscaler's status ConfigMap)."""
    if params is None:
        return []
    held = set()
    for (kind, api_version), raws in items.items():
        if any(kind == k and api_version == v for k, v, _ in params.objects):
            for raw in raws:
                param = read_param(kind, api_version, bytes(raw))
                if param is not None:
                    held.add((kind, api_version, param.namespace, param.name))
    out = []
    for kind, api_version, data in params.objects:
        param = read_param(kind, api_version, data)
        if param is not None and (kind, api_version, param.namespace, param.name) not in held:
            out.append((kind, api_version, data))
    return out


# `-o -`: the List goes to stdout.
STDOUT = "-"


class DumpTarget:
    """Where a dump goes: stdout, or a file written under a temporary name in its folder and
    renamed over PATH only once complete, so an interrupted or failed write (Ctrl-C, SIGTERM, a
    full disk) never leaves a truncated dump. Created before anything is fetched: a path that
    cannot be written is an error at once.

    Only a regular file is ever replaced. A symlink is followed: the file it names is replaced,
    the link kept. What is not a regular file — a device (`/dev/null`), a FIFO, `/dev/stdout` —
    is written through, as a shell's `>` writes it, never replaced by a file (as root, a rename
    over `/dev/null` would replace the device node). A replaced file keeps its permissions; a new
    one is created 0600: a snapshot holds what the cluster's pods hold (environment, commands)
    unless --redact."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.to_stdout = str(path) == STDOUT
        self._temp: str | None = None
        self._through: Path | None = None
        self._replaces = path
        if self.to_stdout:
            return
        if path.is_dir():
            raise PodwhyError(f"{path}: cannot write: is a directory", hint="name a file: -o cluster.json.gz")
        try:
            existing: os.stat_result | None = os.stat(path)  # what a symlink names
        except FileNotFoundError:
            existing = None
        except OSError as exc:
            raise PodwhyError(f"{path}: cannot write: {exc.strerror}") from None
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            if not os.access(path, os.W_OK):
                raise PodwhyError(f"{path}: cannot write: Permission denied")
            self._through = path  # a device or FIFO (/dev/stdout: the fd): written through, never replaced
            return
        real = Path(os.path.realpath(path))  # a symlink's file is replaced, the link kept
        try:
            fd, self._temp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".partial")
        except OSError as exc:
            raise PodwhyError(f"{path}: cannot write: {exc.strerror}") from None
        os.close(fd)
        self._replaces = real
        os.chmod(self._temp, stat.S_IMODE(existing.st_mode) if existing is not None else 0o600)

    @property
    def folder(self) -> str | None:
        """The folder the file is written in (None for stdout, a device or a FIFO)."""
        return str(self._replaces.parent) if self._temp is not None else None

    @property
    def description(self) -> str:
        return "stdout" if self.to_stdout else str(self.path)

    def open(self) -> io.BufferedIOBase | BinaryIO:
        name = self._through if self._through is not None else self._temp
        if name is None:
            return _Unclosed(sys.stdout.buffer)
        if self.path.name.endswith(".gz"):
            return gzip.open(name, "wb")
        return open(name, "wb")

    def commit(self) -> None:
        if self._temp is not None:
            os.replace(self._temp, self._replaces)
            self._temp = None

    def discard(self) -> None:
        """Remove the temporary file of a dump that was not completed (no-op once committed)."""
        if self._temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._temp)
            self._temp = None


class _Unclosed(io.BufferedIOBase):
    """stdout for a `with`: flushed, not closed, at the end."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw

    def write(self, data: Any) -> int:
        return self._raw.write(data)

    def close(self) -> None:
        if not self.closed:
            try:
                self._raw.flush()
            finally:
                super().close()


# A spooled item's length, before its bytes.
_LENGTH = 8
# Each spooled page is compressed at this zlib level (the fastest, as the API server's gzip): the
# spool takes a fraction of the uncompressed size on disk, for little CPU (zlib lets the other
# lists' threads run meanwhile).
SPOOL_LEVEL = 1


class Spool:
    """The pages of a raw fetch (live/source.py PageSink), written to an unnamed temporary file as
    they arrive, so that `podwhy snapshot` holds no copy of the cluster in memory: the List is
    written from it once every list is in (its head says what was fetched, and its items keep the
    order of the kinds, whichever list ended first). The file is in the dump's folder (the system's
    temporary folder for stdout) and is gone once closed, or when the process ends however it ends.
    Pages are stored compressed (SPOOL_LEVEL) and read back one at a time."""

    def __init__(self, folder: str | None) -> None:
        try:
            self._file = tempfile.TemporaryFile(dir=folder, prefix=".podwhy-snapshot.", suffix=".spool")
        except OSError as exc:
            raise PodwhyError(f"{folder or tempfile.gettempdir()}: cannot write: {exc.strerror}") from None
        self._lock = threading.Lock()
        # Each resource's pages: (offset, length) in the file, and its item count.
        self._pages: dict[Resource, list[tuple[int, int]]] = {}
        self._counts: dict[Resource, int] = {}

    def page(self, resource: Resource, items: list[msgspec.Raw]) -> None:
        block = zlib.compress(
            b"".join(len(item).to_bytes(_LENGTH, "little") + bytes(item) for item in items), SPOOL_LEVEL
        )
        with self._lock:
            try:
                offset = self._file.seek(0, io.SEEK_END)
                self._file.write(block)
            except OSError as exc:
                raise PodwhyError(f"the snapshot's temporary file: cannot write: {exc.strerror}") from None
            self._pages.setdefault(resource, []).append((offset, len(block)))
            self._counts[resource] = self._counts.get(resource, 0) + len(items)

    def restart(self, resource: Resource) -> None:
        with self._lock:
            self._pages.pop(resource, None)
            self._counts.pop(resource, None)

    def count(self, resource: Resource) -> int:
        return self._counts.get(resource, 0)

    def items(self, resource: Resource) -> Iterator[bytes]:
        """RESOURCE's items as the server sent them, in order, one page read at a time."""
        for offset, size in self._pages.get(resource, []):
            with self._lock:
                self._file.seek(offset)
                block = zlib.decompress(self._file.read(size))
            view = memoryview(block)
            at = 0
            while at < len(block):
                length = int.from_bytes(view[at : at + _LENGTH], "little")
                at += _LENGTH
                yield bytes(view[at : at + length])
                at += length

    def close(self) -> None:
        self._file.close()


class Parts:
    """The items of one (kind, apiVersion) of a dump: lists held in memory and lists spooled, in
    order; iterable again and again (write_dump reads them twice when a param may be among them)."""

    def __init__(self) -> None:
        self._parts: list[tuple[list[Any], Spool | None, Resource | None]] = []

    def add(self, held: list[Any], spool: Spool | None = None, resource: Resource | None = None) -> None:
        self._parts.append((held, spool, resource))

    def __iter__(self) -> Iterator[msgspec.Raw | bytes]:
        for held, spool, resource in self._parts:
            yield from held
            if spool is not None and resource is not None:
                yield from spool.items(resource)

    def __len__(self) -> int:
        return sum(len(h) + (s.count(r) if s is not None and r is not None else 0) for h, s, r in self._parts)


def write_dump(
    target: DumpTarget,
    items: Mapping[tuple[str, str], Iterable[msgspec.Raw | bytes]],
    missing: Mapping[str, str],
    redact_text: bool = False,
    server_version: str = "",
    taken_at: str = "",
    params: ParamFetch | None = None,
) -> int:
    """Write {(kind, apiVersion): raw items} as one List; returns the number of objects written.

    Every kind of ITEMS was fetched in full (an empty list: the cluster has none): the List says
    so, which makes the dump complete for them when read back (see docs/complete.md).
    `server_version`: the API server's gitVersion, recorded for choosing the scheduler release;
    `taken_at`: when the fetch began, which ages in reports on the dump are measured to;
    `params`: the policies' params fetched (live/params.py), written after the items (an object
    the items hold already, Cluster Autoscaler's status ConfigMap, once), and what was learnt of
    each paramKind (PARAMS_ANNOTATION). Redacted, a param keeps every field but its metadata's
    (which the allowlist keeps): a policy's expressions may read any of them."""
    annotations = {FETCHED_KINDS_ANNOTATION: json.dumps(sorted({kind for kind, _ in items}))}
    if missing:
        annotations[MISSING_KINDS_ANNOTATION] = json.dumps(dict(sorted(missing.items())))
    if server_version:
        annotations[SERVER_VERSION_ANNOTATION] = server_version
    if taken_at:
        annotations[TAKEN_AT_ANNOTATION] = taken_at
    if redact_text:
        annotations[REDACTED_ANNOTATION] = "true"
    if params is not None and params.kinds:
        annotations[PARAMS_ANNOTATION] = fetched_text(params.kinds)
    head = {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}}
    count = 0
    redactor = Redactor() if redact_text else None
    try:
        with target.open() as out:
            out.write(json.dumps(head)[:-1].encode() + b',"items":[\n')
            first = True
            for (kind, api_version), raws in items.items():
                for raw in raws:
                    data = bytes(raw)
                    if redactor is not None:
                        data = redact_object(kind, data, redactor)
                    if not first:
                        out.write(b",\n")
                    out.write(_with_kind(data, kind, api_version))
                    first = False
                    count += 1
            for kind, api_version, data in _new_params(items, params):
                if redactor is not None:
                    data = redact_param(data, redactor)
                out.write((b",\n" if not first else b"") + _with_kind(data, kind, api_version))
                first = False
                count += 1
            out.write(b"\n]}\n")
        target.commit()
    except BrokenPipeError:
        raise  # stdout's reader stopped: the command line's to handle
    except OSError as exc:
        raise PodwhyError(f"{target.description}: cannot write: {exc.strerror}") from None
    finally:
        target.discard()  # a write that failed or was interrupted (Ctrl-C) leaves nothing behind
    return count
