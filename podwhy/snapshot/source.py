"""Where snapshots come from: the protocol every source implements, and the files source.

A source returns a Snapshot whose `missing` names the kinds it could not provide, each with
its cause ("" when the source simply lacks the kind, as a cluster-info dump lacks
PersistentVolumeClaims). Every source decodes with snapshot.decode.decode.
"""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from podwhy.errors import PodwhyError
from podwhy.heap import gc_paused
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode

# Kinds that `kubectl cluster-info dump` never writes: a plugin that needs one of them
# for the pod at hand cannot be evaluated from such a dump.
CLUSTER_INFO_DUMP_LACKS = frozenset(
    {
        "PersistentVolume",
        "PersistentVolumeClaim",
        "StorageClass",
        "CSINode",
        "CSIDriver",
        "CSIStorageCapacity",
        "PriorityClass",
        "PodDisruptionBudget",
        "Namespace",
        "RuntimeClass",
        "DeviceClass",
        "ResourceSlice",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "StatefulSet",
        # Read only to name pods' owners (a Job's CronJob); no plugin needs them.
        "Job",
        "CronJob",
    }
)

_SUFFIXES = (".json", ".yaml", ".yml")


class SnapshotSource(Protocol):
    """Anything that can produce a snapshot of a cluster."""

    def load(self) -> Snapshot:
        """The snapshot, with `missing` holding the kinds this source could not provide."""
        ...


@dataclass
class ReadProgress:
    """A file being read, for the command line to show: what is done to it, and how far."""

    path: str
    # reading (done of total bytes), decompressing or decoding (total: its size), or loaded (all
    # paths read: the reading is over).
    step: str
    done: int
    total: int


ReadCallback = Callable[[ReadProgress], None]
# Files read in chunks, each reported, from this size on (smaller ones are read at once).
CHUNKED_READ_BYTES = 32 * 1024 * 1024
READ_CHUNK_BYTES = 8 * 1024 * 1024


class FileSource:
    """`kubectl get -o yaml|json` files (gzipped or not), folders of them, cluster-info dumps, or '-' for stdin."""

    def __init__(
        self, paths: Sequence[str], stdin: BinaryIO | None = None, progress: ReadCallback | None = None
    ) -> None:
        self.paths = list(paths)
        self.stdin = stdin
        # Told what is read and decoded, as it goes (the command line shows it when it takes long).
        self.progress = progress
        # YAML documents or List items the fast YAML reader left to the reference reader.
        self.reference_reads = 0

    def load(self) -> Snapshot:
        """Load every path into one snapshot; a file is added only once all of it decoded."""
        snapshot = Snapshot()
        with gc_paused():
            for raw_path in self.paths:
                snapshot.sources.append(raw_path)
                if raw_path == "-":
                    stream = self.stdin if self.stdin is not None else sys.stdin.buffer
                    self._add(snapshot, stream.read(), "<stdin>")
                    continue
                path = Path(raw_path)
                if path.is_dir():
                    if _is_cluster_info_dump(path):
                        snapshot.from_cluster_info_dump = True
                    files = _object_files(path)
                    if not files:
                        raise PodwhyError(f"{path}: the folder holds no .json or .yaml files")
                    for file in files:
                        self._add(snapshot, _read_bytes(file, self.progress), str(file))
                else:
                    self._add(snapshot, _read_bytes(path, self.progress), str(path))
        if snapshot.from_cluster_info_dump:
            for kind in sorted(CLUSTER_INFO_DUMP_LACKS - snapshot.kinds_seen):
                snapshot.missing.setdefault(kind, "")
        if self.progress is not None:
            self.progress(ReadProgress(", ".join(self.paths), "loaded", 0, 0))
        return snapshot

    def _add(self, snapshot: Snapshot, data: bytes, source: str) -> None:
        if self.progress is not None:
            self.progress(ReadProgress(source, "decoding", len(data), len(data)))
        decoded = decode(data, source)
        self.reference_reads += decoded.reference_reads
        decoded.add_to(snapshot)


def _read_chunks(path: Path, progress: ReadCallback) -> bytes:
    """The file's bytes, read in chunks, each reported (a large file takes a while)."""
    with path.open("rb") as f:
        total = os.fstat(f.fileno()).st_size
        if total < CHUNKED_READ_BYTES:
            return f.read()
        chunks: list[bytes] = []
        done = 0
        while chunk := f.read(READ_CHUNK_BYTES):
            chunks.append(chunk)
            done += len(chunk)
            progress(ReadProgress(str(path), "reading", done, max(total, done)))
    return b"".join(chunks)


def _read_bytes(path: Path, progress: ReadCallback | None = None) -> bytes:
    try:
        data = path.read_bytes() if progress is None else _read_chunks(path, progress)
    except FileNotFoundError:
        raise PodwhyError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot read: {exc.strerror}") from None
    if data[:2] == b"\x1f\x8b":
        if progress is not None:
            progress(ReadProgress(str(path), "decompressing", len(data), len(data)))
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise PodwhyError(f"{path}: corrupt gzip data: {exc}") from None
    return data


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
