"""Where snapshots come from: the protocol every source implements, and the files source.

A source returns a Snapshot whose `missing` names the kinds it cannot vouch for, each with
its cause ("" when the source simply holds no object of the kind, as a `kubectl get nodes,pods`
dump holds no PersistentVolumeClaims). Every source decodes with snapshot.decode.decode.

Files vouch for a kind when they hold an object of it, a typed List of it (an empty
`PersistentVolumeClaimList` says the cluster has none), or a `podwhy snapshot` List that
fetched it; `complete` (--complete) is the user's word that they hold every object of the
cluster. See docs/complete.md.
"""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, Protocol

from podwhy.errors import PodwhyError
from podwhy.heap import gc_paused
from podwhy.model.objects import KINDS
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode

# The kinds files must vouch for: every kind podwhy reads but Nodes and Pods (without which
# nothing is explained) and Events (which only add what the scheduler said). Files that hold
# no object of one of them cannot tell a cluster without any from a dump that left it out
# (`kubectl cluster-info dump` never writes PVCs; `kubectl get nodes,pods` writes nothing else).
VOUCHED_KINDS = frozenset(KINDS) - {"Node", "Pod", "Event"}

_SUFFIXES = (".json", ".yaml", ".yml")


class SnapshotSource(Protocol):
    """Anything that can produce a snapshot of a cluster."""

    def load(self) -> Snapshot:
        """The snapshot, with `missing` holding the kinds this source could not provide."""
        ...


class FileSource:
    """`kubectl get -o yaml|json` files (gzipped or not), folders of them, cluster-info dumps, or '-' for stdin."""

    def __init__(self, paths: Sequence[str], stdin: BinaryIO | None = None, complete: bool = False) -> None:
        self.paths = list(paths)
        self.stdin = stdin
        # --complete: the user's word that the files hold every object of the cluster.
        self.complete = complete
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
                        self._add(snapshot, _read_bytes(file), str(file))
                else:
                    self._add(snapshot, _read_bytes(path), str(path))
        for kind in [kind for kind in snapshot.missing if kind in snapshot.kinds_seen]:
            del snapshot.missing[kind]  # another file holds what a podwhy snapshot could not fetch
        if not self.complete:
            for kind in sorted(VOUCHED_KINDS - snapshot.kinds_seen):
                snapshot.missing.setdefault(kind, "")
        return snapshot

    def _add(self, snapshot: Snapshot, data: bytes, source: str) -> None:
        decoded = decode(data, source)
        self.reference_reads += decoded.reference_reads
        decoded.add_to(snapshot)


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
