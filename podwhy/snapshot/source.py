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

import codecs
import io
import os
import stat
import sys
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Protocol, TypeVar

import msgspec

from podwhy.errors import PodwhyError
from podwhy.heap import gc_paused
from podwhy.model.objects import ADMISSION_KINDS, ALPHA_KINDS, KINDS, KUEUE_KINDS
from podwhy.snapshot import limits
from podwhy.snapshot.cluster import Reread, Snapshot
from podwhy.snapshot.decode import decode, decode_list_stream
from podwhy.snapshot.decoded import FETCHED_KINDS_ANNOTATION, Decoded
from podwhy.snapshot.limits import max_input_bytes, too_large
from podwhy.snapshot.liststream import Item, ItemSplitter, NotStreamable
from podwhy.snapshot.params import policy_param_kinds

# The kinds files must vouch for: every kind podwhy reads but Nodes and Pods (without which
# nothing is explained) and Events (which only add what the scheduler said). Files that hold
# no object of one of them cannot tell a cluster without any from a dump that left it out
# (`kubectl cluster-info dump` never writes PVCs; `kubectl get nodes,pods` writes nothing else).
VOUCHED_KINDS = frozenset(KINDS) - {"Node", "Pod", "Event"} - ALPHA_KINDS - KUEUE_KINDS.keys() - ADMISSION_KINDS.keys()
# Kueue's kinds are an add-on's that most clusters lack: files vouch for them only by holding
# them (objects, a typed List, a `podwhy snapshot` that fetched them; kinds_seen says which), and a
# dump without any names none of them missing (docs/kueue.md). So are the admission policies and
# webhook configurations (docs/policies.md).
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


class ReadProgress(msgspec.Struct):
    """A file being read, for the command line to show: what is done to it, and how far."""

    path: str
    # reading (done of total bytes), decompressing or decoding (total: its size), or loaded (all
    # paths read: the reading is over).
    step: str
    done: int
    total: int


ReadCallback = Callable[[ReadProgress], None]
# How every message names standard input (`-` on the command line), the decoder's errors included.
STDIN = "<stdin>"


def input_name(path: str) -> str:
    """How a message names an input given on the command line: `-` is STDIN."""
    return STDIN if path == "-" else path


def input_names(paths: Sequence[str]) -> str:
    """The inputs given, for a message: `a.yaml, <stdin>`."""
    return ", ".join(input_name(path) for path in paths)


# Every input is read (and decompressed) a chunk of READ_CHUNK_BYTES at a time; a regular file's
# progress is reported, chunk by chunk, from CHUNKED_READ_BYTES on.
CHUNKED_READ_BYTES = 32 * 1024 * 1024
READ_CHUNK_BYTES = 8 * 1024 * 1024
# The most gzip's decompressed text read_input holds before all of it is known to be within the
# input limit (past it, what was compressed is decompressed a second time, once the limit is known
# to hold): a gzip bomb costs at most this and its compressed bytes, however much it expands to.
GZIP_HELD_BYTES = 32 * 1024 * 1024


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
                            self._add_decoded(snapshot, _decode_file(file, self.progress, skip_kindless=True))
                elif given.first_time(path, raw_path, folder=False):
                    self._add_decoded(snapshot, _decode_file(path, self.progress, skip_kindless=False))
        for kind in [kind for kind in snapshot.missing if kind in snapshot.kinds_seen]:
            del snapshot.missing[kind]  # another file holds what a podwhy snapshot could not fetch
        keep_policy_params(snapshot, self.complete)
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
        self._add_decoded(snapshot, decode(data, source, skip_kindless=skip_kindless))

    def _add_decoded(self, snapshot: Snapshot, decoded: Decoded) -> None:
        self.reference_reads += decoded.reference_reads
        if decoded.list_meta is not None and FETCHED_KINDS_ANNOTATION in decoded.list_meta.annotations:
            self.fetched.update(decoded.fetched_kinds())
        decoded.add_to(snapshot)


def keep_policy_params(snapshot: Snapshot, complete: bool) -> None:
    """Once every input is read: keep the possible params of the kinds the snapshot's Validating-
    and MutatingAdmissionPolicies name, those their bindings' paramRefs may read (no longer
    counted among the ignored), and drop the rest."""
    snapshot.params.complete = complete
    kinds = policy_param_kinds(
        (snapshot.validating_admission_policies.values(), snapshot.validating_admission_policy_bindings.values()),
        (snapshot.mutating_admission_policies.values(), snapshot.mutating_admission_policy_bindings.values()),
    )
    kept = snapshot.params.keep_kinds(kinds)
    for kind, count in kept.items():
        left = snapshot.ignored_kinds.get(kind, 0) - count
        if left > 0:
            snapshot.ignored_kinds[kind] = left
        else:
            snapshot.ignored_kinds.pop(kind, None)


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


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _TextCheck:
    """What no JSON or YAML text holds, looked for in each chunk as it is read (issue 35): a NUL
    byte (JSON and YAML forbid it anywhere: `--from /dev/zero`, a gzip bomb of zeros), bytes that
    are not UTF-8 (decode.not_utf8 refuses them in the whole input, with the same words), and a
    top-level JSON array. The first chunk that shows one ends the read: nothing more is held."""

    def __init__(self, name: str, gzipped: bool) -> None:
        self.name = name
        self.at = " once decompressed" if gzipped else ""
        self.offset = 0  # of the chunk's first byte
        self.start = b""  # the input's first byte that is not white space, once seen
        self.start_offset = -1
        self.utf8 = codecs.getincrementaldecoder("utf-8")("strict")

    def __call__(self, chunk: bytes) -> None:
        if not self.start and (stripped := chunk.lstrip()):
            self.start = stripped[:1]
            self.start_offset = self.offset + len(chunk) - len(stripped)
            if self.start == b"[":
                raise PodwhyError(f"{self.name}: a top-level JSON array is not a Kubernetes object or List")
        found: list[tuple[int, str]] = []  # the first bad byte is named
        nul = chunk.find(b"\0")
        if nul >= 0:
            at = self.offset + nul
            found.append((at, f"{self._what(at, False)}: a NUL byte at offset {at}{self.at}"))
        pending = len(self.utf8.getstate()[0])  # the start of a character the last chunk ended in
        if pending or not chunk.isascii():
            try:
                self.utf8.decode(chunk)
            except UnicodeDecodeError as exc:
                at = self.offset - pending + exc.start
                byte = f"byte 0x{exc.object[exc.start]:02x} at offset {at}{self.at}"
                found.append((at, f"{self._what(at, True)}: not UTF-8 text ({byte})"))
        if found:
            raise PodwhyError(f"{self.name}: {min(found)[1]}")
        self.offset += len(chunk)

    def _what(self, at: int, utf8: bool) -> str:
        """How decode words malformed input whose bad byte is AT."""
        if self.start == b"{":
            return "the JSON is invalid" if utf8 else "malformed JSON"
        if not self.start or at <= self.start_offset:
            return "not JSON or YAML text"
        return "malformed YAML"


def _raw_chunks(stream: _Readable, first: bytes) -> Iterator[bytes]:
    yield first
    while chunk := stream.read(READ_CHUNK_BYTES):
        yield chunk


def _gunzipped(raw: Iterable[bytes]) -> Iterator[bytes]:
    """The decompressed bytes of the gzip stream RAW, a chunk of at most READ_CHUNK_BYTES at a time
    (however much one compressed chunk expands to); members one after another, zeros between or
    after them skipped, as gzip.GzipFile reads them."""
    member: zlib._Decompress | None = None
    for data in raw:
        while data:
            if member is None:
                data = data.lstrip(b"\0")
                if not data:
                    break
                member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            piece = member.decompress(data, READ_CHUNK_BYTES)
            if piece:
                yield piece
            while not member.eof and not member.unconsumed_tail and len(piece) == READ_CHUNK_BYTES:
                piece = member.decompress(b"", READ_CHUNK_BYTES)  # what zlib holds of input it consumed
                if piece:
                    yield piece
            if member.eof:
                data, member = member.unused_data, None
            else:
                data = member.unconsumed_tail
    if member is not None:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")


class _Reading:
    """One pass over an input's bytes: counted against the input limit as read (raw) and once
    decompressed (text), each chunk of text looked at (_TextCheck)."""

    def __init__(self, name: str, gzipped: bool, limit: int | None, progress: Callable[[int], None] | None) -> None:
        self.name = name
        self.gzipped = gzipped
        self.limit = limit
        self.progress = progress
        self.raw = 0
        self.done = 0
        self.check = _TextCheck(name, gzipped)

    def counted(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.raw += len(chunk)
            if self.limit is not None and self.raw > self.limit:  # endless zeros or empty gzip members
                raise too_large(self.name, self.limit)
            yield chunk
            if self.progress is not None:
                self.progress(self.raw)

    def text(self, raw: Iterable[bytes]) -> Iterator[bytes]:
        try:
            for chunk in _gunzipped(self.counted(raw)) if self.gzipped else self.counted(raw):
                self.done += len(chunk)
                if self.limit is not None and self.done > self.limit:
                    raise too_large(self.name, self.limit, "expands to" if self.gzipped else "holds")
                self.check(chunk)
                yield chunk
        except (EOFError, zlib.error) as exc:
            raise PodwhyError(f"{self.name}: corrupt gzip data: {exc}") from None


def read_input(
    stream: _Readable,
    name: str,
    *,
    size: int = 0,
    progress: ReadCallback | None = None,
    reread: Callable[[], Iterable[bytes]] | None = None,
) -> bytes:
    """All of STREAM (a file, a pipe, stdin), decompressed when it is gzip (told by its first bytes,
    whatever its name); NAME names it in errors, SIZE (a regular file's) in PROGRESS.

    Read a chunk at a time (issue 35), each counted against the input limit (limits.py) and looked
    at (_TextCheck): the read ends at the first chunk past the limit or holding what no JSON or YAML
    holds, having held what came before it and one chunk. Text that is not compressed is held as it
    is read: the decoder needs all of it. Gzip is decompressed once to be counted and looked at,
    its text kept only up to GZIP_HELD_BYTES; past that, only the compressed bytes are kept (none:
    REREAD reads the file again), and decompressed again once all of it is known to be within the
    limit. A gzip bomb is refused holding at most GZIP_HELD_BYTES and what it was compressed to."""
    limit = max_input_bytes()
    first = stream.read(READ_CHUNK_BYTES)
    while 0 < len(first) < len(GZIP_MAGIC) and (more := stream.read(READ_CHUNK_BYTES)):
        first += more  # a pipe that gave one byte so far
    gzipped = first[:2] == GZIP_MAGIC
    report: Callable[[int], None] | None = None
    if progress is not None and size >= CHUNKED_READ_BYTES:
        step = "decompressing" if gzipped else "reading"
        report = lambda done: progress(ReadProgress(name, step, done, max(size, done)))  # noqa: E731
    reading = _Reading(name, gzipped, limit, report)
    text = io.BytesIO()  # getvalue() hands over its buffer: the text is held once
    if not gzipped:
        for chunk in reading.text(_raw_chunks(stream, first)):
            text.write(chunk)
        return text.getvalue()
    held: deque[bytes] | None = None if reread is not None else deque()

    def kept(chunks: Iterator[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            if held is not None:
                held.append(chunk)
            yield chunk

    for chunk in reading.text(kept(_raw_chunks(stream, first))):
        if reading.done <= GZIP_HELD_BYTES:
            text.write(chunk)
        elif text.tell():
            text = io.BytesIO()  # past GZIP_HELD_BYTES: counted and looked at only
    if reading.done <= GZIP_HELD_BYTES:
        return text.getvalue()
    again = _Reading(name, gzipped, limit, report)
    for chunk in again.text(reread() if reread is not None else _drained(held)):
        text.write(chunk)
    return text.getvalue()


def _drained(chunks: deque[bytes] | None) -> Iterator[bytes]:
    """CHUNKS from the first, each let go of as it is taken."""
    while chunks:
        yield chunks.popleft()


def read_stream(stream: _Readable, name: str) -> bytes:
    """All of STREAM (stdin), decompressed when it is gzip; bounded and checked as read_input says."""
    return read_input(stream, name)


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
_T = TypeVar("_T")


def _read_bytes(path: Path, progress: ReadCallback | None = None) -> bytes:
    """The bytes of the file or pipe PATH (read_input). A device is refused before it is opened:
    `--from /dev/zero` or `/dev/urandom` is no dump, and opening some devices does something."""

    def read(f: BinaryIO, size: int, reread: Callable[[], Iterator[bytes]] | None) -> bytes:
        return read_input(f, str(path), size=size, progress=progress, reread=reread)

    return _with_input(path, read)


def _decode_file(path: Path, progress: ReadCallback | None, skip_kindless: bool) -> Decoded:
    """The objects of the file PATH: a regular file's JSON List read an item at a time as its text
    arrives (issue 39: a 4 GB dump is not held whole), anything else read whole and decoded."""

    def read(f: BinaryIO, size: int, reread: Callable[[], Iterator[bytes]] | None) -> Decoded:
        if reread is not None:  # a pipe cannot be read again should the List need reading whole
            try:
                return _stream_list(f, str(path), size, progress, skip_kindless)
            except NotStreamable:
                f.seek(0)
        data = read_input(f, str(path), size=size, progress=progress, reread=reread)
        if progress is not None:
            progress(ReadProgress(str(path), "decoding", len(data), len(data)))
        return decode(data, str(path), skip_kindless=skip_kindless)

    return _with_input(path, read)


def _stream_list(f: BinaryIO, name: str, size: int, progress: ReadCallback | None, skip_kindless: bool) -> Decoded:
    """The JSON List F holds, read as read_input reads (the same limit, checks and words, gzip
    decompressed as it comes), its items decoded as they complete (liststream.py)."""
    first = f.read(READ_CHUNK_BYTES)
    gzipped = first[:2] == GZIP_MAGIC
    report: Callable[[int], None] | None = None
    if progress is not None and size >= CHUNKED_READ_BYTES:
        step = "decompressing" if gzipped else "reading"
        report = lambda done: progress(ReadProgress(name, step, done, max(size, done)))  # noqa: E731
    reading = _Reading(name, gzipped, max_input_bytes(), report)
    splitter = ItemSplitter()
    around: list[bytes] = []

    def batches() -> Iterator[list[Item]]:
        for chunk in reading.text(_raw_chunks(f, first)):
            yield splitter.feed(chunk)
        last, text = splitter.end()
        around.append(text)
        yield last

    return decode_list_stream(batches(), lambda: around[0], name, skip_kindless)


def _with_input(path: Path, use: Callable[[BinaryIO, int, Callable[[], Iterator[bytes]] | None], _T]) -> _T:
    """USE of the file or pipe PATH, opened once it is known to be one: USE(file, its size (0 for a
    pipe), a way to read a regular file again from its start (None for a pipe))."""
    limit = max_input_bytes()
    try:
        info = path.stat()
        if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
            raise not_a_file(path, info.st_mode)
        with path.open("rb") as f:
            info = os.fstat(f.fileno())
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
                raise not_a_file(path, info.st_mode)
            if stat.S_ISREG(info.st_mode) and limit is not None and info.st_size > limit:
                raise too_large(str(path), limit)
            if stat.S_ISREG(info.st_mode) and info.st_size == 0 and path.name.endswith(".gz"):
                raise PodwhyError(f"{path}: empty file: no gzip data")
            if not stat.S_ISREG(info.st_mode):
                return use(f, 0, None)

            def reread() -> Iterator[bytes]:
                f.seek(0)
                return _raw_chunks(f, f.read(READ_CHUNK_BYTES))

            return use(f, info.st_size, reread)
    except FileNotFoundError:
        raise PodwhyError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise PodwhyError(f"{path}: cannot read: {exc.strerror}") from None


_FILE_TYPES = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def not_a_file(path: Path, mode: int) -> PodwhyError:
    what = next((words for test, words in _FILE_TYPES if test(mode)), "not a regular file")
    return PodwhyError(
        f"{path}: {what}, not a dump", hint="podwhy reads files, folders of them, pipes, and - for stdin"
    )


def _object_files(root: Path) -> list[Path]:
    """The .json, .yaml and .yml files (gzipped or not) under ROOT, in sorted order, as os.walk
    (not following links to folders) finds them; refused past MAX_FOLDER_ENTRIES names looked at,
    and when one is not a regular file (a named pipe would wait for a writer for ever)."""
    bound = limits.MAX_FOLDER_ENTRIES
    seen = 0
    files: list[str] = []  # Paths once the walk is over: a Path costs several times its string
    folders = [root]
    while folders:
        folder = folders.pop()
        names: list[tuple[str, bool]] = []  # (name, a folder to walk?)
        kept: dict[str, os.DirEntry[str]] = {}
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > bound:
                        raise PodwhyError(
                            f"{root}: holds more than {bound:,} files and folders,"
                            " the most podwhy looks through in one folder",
                            hint="give the files of the dump, or a folder that holds only them",
                        )
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if is_dir:
                        if not entry.is_symlink():
                            names.append((entry.name, True))
                        continue
                    base = entry.name[:-3] if entry.name.endswith(".gz") else entry.name
                    if base.endswith(_SUFFIXES):
                        names.append((entry.name, False))
                        kept[entry.name] = entry
        except OSError:
            continue  # as os.walk: a folder it cannot list is left out
        subfolders = sorted(name for name, is_dir in names if is_dir)
        for name in sorted(name for name, is_dir in names if not is_dir):
            entry = kept[name]
            if not entry.is_file():  # told by the folder's listing, but for links
                try:
                    mode = entry.stat().st_mode
                except OSError:
                    mode = stat.S_IFREG  # a dangling link: reading it says so
                if not stat.S_ISREG(mode):
                    raise not_a_file(Path(entry.path), mode)
            files.append(entry.path)
        folders.extend(folder / name for name in reversed(subfolders))
    return [Path(file) for file in files]
