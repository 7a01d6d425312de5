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
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from podwhy.errors import PodwhyError
from podwhy.heap import gc_paused
from podwhy.model.objects import ALPHA_KINDS, KINDS
from podwhy.snapshot.cluster import Reread, Snapshot
from podwhy.snapshot.decode import FETCHED_KINDS_ANNOTATION, decode
from podwhy.snapshot.limits import max_input_bytes, too_large

# The kinds files must vouch for: every kind podwhy reads but Nodes and Pods (without which
# nothing is explained) and Events (which only add what the scheduler said). Files that hold
# no object of one of them cannot tell a cluster without any from a dump that left it out
# (`kubectl cluster-info dump` never writes PVCs; `kubectl get nodes,pods` writes nothing else).
VOUCHED_KINDS = frozenset(KINDS) - {"Node", "Pod", "Event"} - ALPHA_KINDS
# --complete vouches for every kind, the autoscalers' too: the user's word that the files hold
# every object of the cluster podwhy reads (docs/complete.md says to add Cluster Autoscaler's
# status and Karpenter's objects, which the main dump command cannot list, where the cluster has
# them). Live mode and a `podwhy snapshot` of the same cluster then read the same.

_SUFFIXES = (".json", ".yaml", ".yml")

# Namespaces a cluster normally runs no pod in: a dump's pods may leave them out.
PODLESS_NAMESPACES = frozenset({"default", "kube-public", "kube-node-lease"})
# Every cluster runs pods in it (its DNS, its network plugin, kube-proxy, static control-plane pods).
SYSTEM_NAMESPACE = "kube-system"
# How many namespaces a cause names before "and N more".
_NAMED_NAMESPACES = 3


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
# How every message names standard input (`-` on the command line), the decoder's errors included.
STDIN = "<stdin>"


def input_name(path: str) -> str:
    """How a message names an input given on the command line: `-` is STDIN."""
    return STDIN if path == "-" else path


def input_names(paths: Sequence[str]) -> str:
    """The inputs given, for a message: `a.yaml, <stdin>`."""
    return ", ".join(input_name(path) for path in paths)


CHUNKED_READ_BYTES = 32 * 1024 * 1024
READ_CHUNK_BYTES = 8 * 1024 * 1024


class FileSource:
    """`kubectl get -o yaml|json` files (gzipped or not), folders of them, cluster-info dumps, or '-' for stdin."""

    def __init__(
        self,
        paths: Sequence[str],
        stdin: BinaryIO | None = None,
        progress: ReadCallback | None = None,
        complete: bool = False,
    ) -> None:
        self.paths = list(paths)
        self.stdin = stdin
        # Told what is read and decoded, as it goes (the command line shows it when it takes long).
        self.progress = progress
        # --complete: the user's word that the files hold every object of the cluster.
        self.complete = complete
        # YAML documents or List items the fast YAML reader left to the reference reader.
        self.reference_reads = 0
        # Kinds a `podwhy snapshot` file read fetched in full (its List's annotation).
        self.fetched: set[str] = set()

    def load(self) -> Snapshot:
        """Load every path into one snapshot; a file is added only once all of it decoded. A file
        given again (the same path, or a file inside a folder also given) is read once; an object
        several files hold is taken once (Snapshot.load)."""
        snapshot = Snapshot()
        given = GivenFiles(snapshot)
        with gc_paused():
            for raw_path in self.paths:
                snapshot.sources.append(raw_path)
                if raw_path == "-":
                    stream = self.stdin if self.stdin is not None else sys.stdin.buffer
                    self._add(snapshot, read_stream(stream, STDIN), STDIN, skip_kindless=False)
                    continue
                path = Path(raw_path)
                if path.is_dir():
                    files = _object_files(path)
                    if not files:
                        raise PodwhyError(f"{path}: the folder holds no .json or .yaml files")
                    for file in files:
                        if given.first_time(file, raw_path, folder=True):
                            self._add(snapshot, _read_bytes(file, self.progress), str(file), skip_kindless=True)
                elif given.first_time(path, raw_path, folder=False):
                    self._add(snapshot, _read_bytes(path, self.progress), str(path), skip_kindless=False)
        for kind in [kind for kind in snapshot.missing if kind in snapshot.kinds_seen]:
            del snapshot.missing[kind]  # another file holds what a podwhy snapshot could not fetch
        if not self.complete:
            for kind in sorted(VOUCHED_KINDS - snapshot.kinds_seen):
                snapshot.missing.setdefault(kind, "")
            if "Pod" not in snapshot.kinds_seen:
                # No pod at all (`kubectl get nodes -o yaml`): the room they take is unknown.
                snapshot.missing.setdefault("Pod", "")
            elif "Pod" not in self.fetched and (cause := some_namespaces_pods(snapshot)):
                snapshot.missing.setdefault("Pod", cause)
        if self.progress is not None:
            self.progress(ReadProgress(input_names(self.paths), "loaded", 0, 0))
        return snapshot

    def _add(self, snapshot: Snapshot, data: bytes, source: str, skip_kindless: bool) -> None:
        if self.progress is not None:
            self.progress(ReadProgress(source, "decoding", len(data), len(data)))
        decoded = decode(data, source, skip_kindless=skip_kindless)
        self.reference_reads += decoded.reference_reads
        if decoded.list_meta is not None and FETCHED_KINDS_ANNOTATION in decoded.list_meta.annotations:
            self.fetched.update(decoded.fetched_kinds())
        decoded.add_to(snapshot)


def some_namespaces_pods(snapshot: Snapshot) -> str:
    """Why SNAPSHOT's pods look like some namespaces' only, or "" when they may be every pod.

    `kubectl get pods -n NS` and `kubectl get pods -A` write the same List, so only what the
    snapshot holds tells them apart. Every cluster runs pods in kube-system: a snapshot holding
    some of them holds every namespace's, as far as anything shows (a namespace without pods is
    common: one just made for the workload being checked, or a distribution's own, such as
    OpenShift's `openshift-config` or GKE's `gmp-public`). Without them, the pods are some
    namespaces' only, unless the snapshot's Namespaces are a chosen few without kube-system
    (`kubectl get namespace shop`) each running some pod (but those that normally run none).
    """
    with_pods = {pod.metadata.namespace for pod in snapshot.pods}
    if SYSTEM_NAMESPACE in with_pods:
        return ""
    if snapshot.namespaces and SYSTEM_NAMESPACE not in snapshot.namespaces:
        without = sorted(set(snapshot.namespaces) - with_pods - PODLESS_NAMESPACES)
        if not without:
            return ""
        lacking = f"none of its Namespace{'s' if len(without) > 1 else ''} {_names(without)}"
    else:
        lacking = f"none of {SYSTEM_NAMESPACE}, where every cluster runs some"
    held = sorted(with_pods)
    holds = f"pods of namespace{'s' if len(held) > 1 else ''} {_names(held)} only" if held else "no pod"
    return (
        f"the snapshot holds {holds}, {lacking}: add every namespace's with `kubectl get pods -A -o yaml`,"
        " or pass --complete if it holds every pod"
    )


def _names(namespaces: Sequence[str]) -> str:
    named = ", ".join(namespaces[:_NAMED_NAMESPACES])
    more = len(namespaces) - _NAMED_NAMESPACES
    return named + (f" and {more} more" if more > 0 else "")


def _read_chunks(path: Path, f: BinaryIO, total: int, progress: ReadCallback) -> bytes:
    """The regular file's bytes (TOTAL of them), read in chunks, each reported (a large file takes a while)."""
    if total < CHUNKED_READ_BYTES:
        return f.read()
    chunks: list[bytes] = []
    done = 0
    while chunk := f.read(READ_CHUNK_BYTES):
        chunks.append(chunk)
        done += len(chunk)
        progress(ReadProgress(str(path), "reading", done, max(total, done)))
    return b"".join(chunks)


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def _read_bounded(stream: _Readable, name: str, limit: int | None, what: str = "holds") -> bytes:
    """All of STREAM (a pipe, a device, a decompressing reader), refused as soon as it passes LIMIT bytes."""
    chunks: list[bytes] = []
    done = 0
    while chunk := stream.read(READ_CHUNK_BYTES):
        done += len(chunk)
        if limit is not None and done > limit:
            raise too_large(name, limit, what)
        chunks.append(chunk)
    return b"".join(chunks)


class GivenFiles:
    """The files read so far, by their resolved path: one given again is not read again."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.read: dict[Path, tuple[str, bool]] = {}  # resolved path -> the argument that named it, a folder?

    def first_time(self, file: Path, given_as: str, folder: bool) -> bool:
        """Whether FILE (named by the argument GIVEN_AS, a FOLDER or the file) is read now; if
        not, the snapshot says so."""
        try:
            resolved = file.resolve()
        except (OSError, RuntimeError):  # reading it fails with a clear error (RuntimeError: a symlink loop)
            return True
        first = self.read.get(resolved)
        if first is None:
            self.read[resolved] = (given_as, folder)
            return True
        self.snapshot.rereads.append(Reread(str(file), first[0], given_as, first[1], folder))
        return False


GZIP_MAGIC = b"\x1f\x8b"


def gunzip(data: bytes, name: str) -> bytes:
    """DATA decompressed when it is gzip (told by its magic bytes, whatever its name); NAME names it
    in errors. Decompressed as a stream, refused once it expands past the input limit (limits.py)."""
    if data[:2] != GZIP_MAGIC:
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
            return _read_bounded(unzipped, name, max_input_bytes(), "expands to")
    except (OSError, EOFError, zlib.error) as exc:
        raise PodwhyError(f"{name}: corrupt gzip data: {exc}") from None


def read_stream(stream: BinaryIO, name: str) -> bytes:
    """All of STREAM (stdin), decompressed when it is gzip; each bounded by the input limit."""
    return gunzip(_read_bounded(stream, name, max_input_bytes()), name)


def _read_bytes(path: Path, progress: ReadCallback | None = None) -> bytes:
    limit = max_input_bytes()
    try:
        with path.open("rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):  # a pipe, <(...), a device: read until the limit
                data = _read_bounded(f, str(path), limit)
            elif limit is not None and info.st_size > limit:
                raise too_large(str(path), limit)
            else:
                data = f.read() if progress is None else _read_chunks(path, f, info.st_size, progress)
                if limit is not None and len(data) > limit:  # it grew while read
                    raise too_large(str(path), limit)
    except FileNotFoundError:
        raise PodwhyError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot read: {exc.strerror}") from None
    if not data and path.name.endswith(".gz"):
        raise PodwhyError(f"{path}: empty file: no gzip data")
    if data[:2] == GZIP_MAGIC and progress is not None:
        progress(ReadProgress(str(path), "decompressing", len(data), len(data)))
    return gunzip(data, str(path))


def _object_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            base = name[:-3] if name.endswith(".gz") else name
            if base.endswith(_SUFFIXES):
                files.append(Path(dirpath) / name)
    return files
