"""Inputs built to hurt are refused in one line naming the input and the limit (issue 26, "Every
input bounded"): YAML aliases, decompressed and read sizes, deep nesting, huge numbers, symlink
loops, empty paths. Every input is generated here, small: the limits are lowered where needed."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import threading
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.manifests import ManifestSource
from podwhy.errors import PodwhyError
from podwhy.snapshot import limits, source
from podwhy.snapshot.decode import decode
from podwhy.snapshot.source import FileSource

POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: i}]}\n"


def laughs(kind: str, levels: int = 10) -> bytes:
    """A "billion laughs": each level an alias list of nine of the level before (9**levels nodes)."""
    lines = [
        f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: x}}\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"
    ]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return ("\n".join(lines) + "\n").encode()


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("kind", ["Pod", "ConfigMap", "SomethingPodwhyIgnores"])
def test_billion_laughs_is_refused_before_expanding(kind: str) -> None:
    assert len(laughs(kind)) < 700  # a few hundred bytes
    with pytest.raises(PodwhyError, match=r"laughs.yaml: malformed YAML: its aliases expand to more than 1,000,000"):
        decode(laughs(kind), "laughs.yaml")


def test_a_few_aliases_read_as_before() -> None:
    text = POD.replace(
        "metadata: {name: p, namespace: default}",
        "metadata: {name: p, namespace: default, labels: &l {a: b}, annotations: *l}",
    )
    (pod,) = decode(text.encode(), "anchors.yaml").objects["Pod"]
    assert pod.metadata.labels == {"a": "b"}


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(PodwhyError, match="recursive alias"):
        decode(b"apiVersion: v1\nkind: Pod\nmetadata: &m {name: p, x: [*m]}\n", "loop.yaml")


def test_gzip_bomb_stops_at_the_limit_file_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "1Mi")
    bomb = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9)  # 64 MiB of spaces in ~64 KiB
    path = tmp_path / "bomb.yaml.gz"
    path.write_bytes(bomb)
    with pytest.raises(PodwhyError, match=r"bomb.yaml.gz: expands to more than 1 MiB, the most podwhy reads"):
        FileSource([str(path)]).load()
    with pytest.raises(PodwhyError, match=r"<stdin>: expands to more than 1 MiB") as exc:
        FileSource(["-"], stdin=io.BytesIO(bomb)).load()
    assert exc.value.hint is not None and "PODWHY_MAX_INPUT_SIZE" in exc.value.hint


def test_an_endless_input_stops_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "1Mi")

    class Endless(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            buffer[:] = b"#" * len(buffer)
            return len(buffer)

    with pytest.raises(PodwhyError, match="<stdin>: holds more than 1 MiB"):
        FileSource(["-"], stdin=io.BufferedReader(Endless())).load()


# ----------------------------------------------------- issue 35: decided while streaming

# The most a refused read may allocate at once (tracemalloc's peak): a few chunks of
# source.READ_CHUNK_BYTES (8 MiB), however large the input limit.
READ_BOUND = 64 << 20


class Stream(io.RawIOBase):
    """A pipe-like stdin: HEAD, then BODY repeated up to TOTAL bytes (for ever when 0), made as read."""

    def __init__(self, body: bytes, head: bytes = b"", total: int = 0) -> None:
        self.pending = head
        self.body = body
        self.left = total or -1
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if not self.pending:
            self.pending = self.body * max(1, len(buffer) // len(self.body))
        size = min(len(buffer), len(self.pending), self.left if self.left >= 0 else len(buffer))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        self.given += size
        if self.left >= 0:
            self.left -= size
        return size


def bounded(read: Callable[[], object]) -> tuple[BaseException, int]:
    """The error READ raises, and the most it allocated at once."""
    tracemalloc.start()
    try:
        with pytest.raises(PodwhyError) as exc:
            read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return exc.value, peak


def gzip_bomb(path: Path, size: int, head: bytes = b"", fill: bytes = b"\0") -> int:
    """Writes HEAD then FILL up to SIZE bytes, gzip-compressed, to PATH a MiB at a time; its size."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = fill * (1 << 20)
    with path.open("wb") as out:
        out.write(packer.compress(head))
        for _ in range((size - len(head)) >> 20):
            out.write(packer.compress(block))
        out.write(packer.flush())
    return path.stat().st_size


def test_a_gzip_bomb_of_zeros_is_refused_at_its_first_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "256Mi")
    path = tmp_path / "bomb.json.gz"
    assert gzip_bomb(path, 320 << 20) < 1 << 20  # 320 MiB of zeros in 320 KiB, past the limit
    said = "bomb.json.gz: not JSON or YAML text: a NUL byte at offset 0 once decompressed"
    error, peak = bounded(lambda: FileSource([str(path)]).load())
    assert str(error).endswith(said) and peak < READ_BOUND
    with path.open("rb") as stdin:  # the same bytes through a pipe-like stdin
        error, peak = bounded(lambda: FileSource(["-"], stdin=stdin).load())
    assert str(error) == "<stdin>: not JSON or YAML text: a NUL byte at offset 0 once decompressed"
    assert peak < READ_BOUND
    code, err = run("pending", "-A", "--from", str(path))
    assert (
        code == 3 and err == f"podwhy: error: {path}: not JSON or YAML text: a NUL byte at offset 0 once decompressed\n"
    )


def test_a_gzip_bomb_of_text_is_refused_holding_a_bounded_buffer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Text that may start a dump (a List, then spaces): only the limit ends it. Past
    # source.GZIP_HELD_BYTES its text is counted and looked at, not held.
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "256Mi")
    path = tmp_path / "spaces.json.gz"
    gzip_bomb(path, 320 << 20, head=b'{"kind": "List", "items": [', fill=b" ")
    error, peak = bounded(lambda: FileSource([str(path)]).load())
    assert str(error) == f"{path}: expands to more than 256 MiB, the most podwhy reads from one input"
    assert peak < READ_BOUND
    with path.open("rb") as stdin:
        error, peak = bounded(lambda: FileSource(["-"], stdin=stdin).load())
    assert str(error) == "<stdin>: expands to more than 256 MiB, the most podwhy reads from one input"
    assert peak < READ_BOUND


def test_gzip_past_the_held_text_is_decompressed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "GZIP_HELD_BYTES", 100)
    monkeypatch.setattr(source, "READ_CHUNK_BYTES", 64)
    text = "---\n".join(POD.replace("name: p,", f"name: p{i},") for i in range(20)).encode()
    packed = tmp_path / "pods.yaml.gz"
    packed.write_bytes(gzip.compress(text[:500]) + gzip.compress(text[500:]) + b"\0" * 10)
    names = [f"p{i}" for i in range(20)]
    assert sorted(p.metadata.name for p in FileSource([str(packed)]).load().pods) == sorted(names)  # read again
    with packed.open("rb") as stdin:  # its compressed bytes held
        assert sorted(p.metadata.name for p in FileSource(["-"], stdin=stdin).load().pods) == sorted(names)
    monkeypatch.setenv(limits.MAX_INPUT_ENV, str(len(text) - 1))
    with pytest.raises(PodwhyError, match=rf"pods.yaml.gz: expands to more than {len(text) - 1} bytes"):
        FileSource([str(packed)]).load()


def test_endless_zeros_on_stdin_are_refused_at_the_first_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "0")  # no limit at all: the first chunk decides
    stdin = Stream(b"\0")
    error, peak = bounded(lambda: FileSource(["-"], stdin=io.BufferedReader(stdin)).load())
    assert str(error) == "<stdin>: not JSON or YAML text: a NUL byte at offset 0" and peak < READ_BOUND
    assert stdin.given <= source.READ_CHUNK_BYTES
    code, err = run("pending", "-A", "--from", "-", stdin=b"\0" * 4096)
    assert code == 3 and err == "podwhy: error: <stdin>: not JSON or YAML text: a NUL byte at offset 0\n"


def test_manifests_are_read_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "0")
    error, peak = bounded(lambda: ManifestSource(["-"], stdin=io.BufferedReader(Stream(b"\0"))).read())
    assert str(error) == "<stdin>: not JSON or YAML text: a NUL byte at offset 0" and peak < READ_BOUND
    if os.path.exists("/dev/zero"):
        with pytest.raises(PodwhyError, match=r"^/dev/zero: a character device, not a dump$"):
            ManifestSource(["/dev/zero"]).read()


def test_text_read_whole_is_held_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A valid input within the limit is held whole, once: no joined copy of its chunks.
    size = 96 << 20
    stdin = Stream(b" ", head=b'{"kind": "List", "items": []}', total=size)
    tracemalloc.start()
    try:
        text = source.read_stream(io.BufferedReader(stdin), "<stdin>")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(text) == size and peak < size * 5 // 4 + 2 * source.READ_CHUNK_BYTES


@pytest.mark.parametrize(
    ("head", "fill", "said"),
    [
        (POD.encode(), b"\0\xc3(", f"malformed YAML: a NUL byte at offset {len(POD)}"),  # the first bad byte
        (b'{"kind": "List", "items": [' + b" " * 20, b"\0", "malformed JSON: a NUL byte at offset 47"),
        (POD.encode(), b"\xc3(\0", f"malformed YAML: not UTF-8 text (byte 0xc3 at offset {len(POD)})"),
        (b"\n  ", b"[]", "a top-level JSON array is not a Kubernetes object or List"),
        (b"", b"\xff", "not JSON or YAML text: not UTF-8 text (byte 0xff at offset 0)"),
    ],
)
def test_an_endless_stream_that_turns_bad_is_refused_where_it_does(
    head: bytes, fill: bytes, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "0")
    monkeypatch.setattr(source, "READ_CHUNK_BYTES", 4096)
    stdin = Stream(fill, head=head)
    error, peak = bounded(lambda: FileSource(["-"], stdin=io.BufferedReader(stdin, 4096)).load())
    assert str(error) == f"<stdin>: {said}" and peak < 1 << 20
    assert stdin.given <= len(head) + 2 * 4096


def test_text_split_across_chunks_reads_as_a_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # A character, a NUL check, the input's first byte: none depends on where a chunk ends.
    text = f"\n\n{POD}".replace("name: p,", "name: p, labels: {note: 'é€𝄞'},").encode()
    for chunk in (1, 2, 3, 5, 7):
        monkeypatch.setattr(source, "READ_CHUNK_BYTES", chunk)
        for data in (text, gzip.compress(text), gzip.compress(text) + gzip.compress(b"---\n") + b"\0" * 9):
            (pod,) = FileSource(["-"], stdin=io.BytesIO(data)).load().pods
            assert pod.metadata.labels == {"note": "é€𝄞"}
    bad = text.replace("é".encode(), b"\xc3(")
    assert bad.index(b"\xc3(") == text.index("é".encode())
    whole = decode_error(bad)
    monkeypatch.setattr(source, "READ_CHUNK_BYTES", 3)
    with pytest.raises(PodwhyError) as exc:
        FileSource(["-"], stdin=io.BytesIO(bad)).load()
    assert str(exc.value) == whole  # the words and offset decode gives the whole input


def decode_error(data: bytes) -> str:
    with pytest.raises(PodwhyError) as exc:
        decode(data, "<stdin>")
    return str(exc.value)


def test_endless_empty_gzip_members_stop_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "1Mi")
    stdin = Stream(gzip.compress(b""))  # 20 bytes each, nothing once decompressed
    with pytest.raises(PodwhyError, match=r"^<stdin>: holds more than 1 MiB"):
        FileSource(["-"], stdin=io.BufferedReader(stdin)).load()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_before_it_is_read(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    code, err = run("pending", "-A", "--from", device)
    assert code == 3 and err == (
        f"podwhy: error: {device}: a character device, not a dump "
        "(podwhy reads files, folders of them, pipes, and - for stdin)\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_read_and_bounded_like_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "dump.yaml"
    os.mkfifo(fifo)

    def write(data: bytes) -> threading.Thread:
        def run() -> None:
            with contextlib.suppress(BrokenPipeError), fifo.open("wb") as out:
                out.write(data)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    writer = write(POD.encode())
    assert [p.metadata.name for p in FileSource([str(fifo)]).load().pods] == ["p"]
    writer.join()
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "256Mi")
    writer = write(b"\0" * (64 << 20))  # the reader stops at its first chunk, the writer's pipe breaks
    error, peak = bounded(lambda: FileSource([str(fifo)]).load())
    assert str(error) == f"{fifo}: not JSON or YAML text: a NUL byte at offset 0" and peak < READ_BOUND
    writer.join()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_a_folder_is_refused_not_waited_for(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(POD)
    os.mkfifo(tmp_path / "b.yaml")  # nothing writes to it: opening it would wait for ever
    code, err = run("pending", "-A", "--from", str(tmp_path))
    assert code == 3 and err == (
        f"podwhy: error: {tmp_path / 'b.yaml'}: a named pipe, not a dump "
        "(podwhy reads files, folders of them, pipes, and - for stdin)\n"
    )
    (tmp_path / "b.yaml").unlink()
    (tmp_path / "b.yaml").symlink_to(tmp_path / "gone.yaml")  # a dangling link is read, and says so
    code, err = run("pending", "-A", "--from", str(tmp_path))
    assert code == 3 and err == f"podwhy: error: {tmp_path / 'b.yaml'}: no such file or directory\n"


def test_a_folder_is_looked_through_up_to_a_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FOLDER_ENTRIES", 10)
    for i in range(6):
        (tmp_path / "pods" / f"logs-{i}").mkdir(parents=True)
    (tmp_path / "pods" / "pod.yaml").write_text(POD)
    assert [p.metadata.name for p in FileSource([str(tmp_path)]).load().pods] == ["p"]  # 9 names
    for i in range(3):
        (tmp_path / "pods" / f"logs-{i}" / "logs.txt").write_text("x")  # 12 names: too many
    code, err = run("pending", "-A", "--from", str(tmp_path))
    assert code == 3 and err == (
        f"podwhy: error: {tmp_path}: holds more than 10 files and folders, the most podwhy looks through "
        "in one folder (give the files of the dump, or a folder that holds only them)\n"
    )


def test_a_folder_is_walked_as_before(tmp_path: Path) -> None:
    # os.walk's order and choices: sorted, files before subfolders, links to folders not followed.
    for rel in ("b/x.yaml", "a/z/y.yml", "a/w.json.gz", "c.yaml", "a/notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "b", target_is_directory=True)
    expected = [
        Path(dirpath) / name
        for dirpath, dirnames, filenames in _sorted_walk(tmp_path)
        for name in filenames
        if name.removesuffix(".gz").endswith((".json", ".yaml", ".yml"))
    ]
    assert source._object_files(tmp_path) == expected
    assert [p.relative_to(tmp_path).as_posix() for p in expected] == ["c.yaml", "a/w.json.gz", "a/z/y.yml", "b/x.yaml"]


def _sorted_walk(root: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        yield dirpath, dirnames, sorted(filenames)


def test_a_large_regular_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "1000")
    path = tmp_path / "big.yaml"
    path.write_bytes((POD + "---\n").encode() * 20)
    with pytest.raises(PodwhyError, match=r"big.yaml: holds more than 1000 bytes"):
        FileSource([str(path)]).load()
    monkeypatch.setenv(limits.MAX_INPUT_ENV, "0")  # no limit
    assert FileSource([str(path)]).load().pods


@pytest.mark.parametrize("value", ["lots", "-1", "1.5Gi", "4GB"])
def test_a_malformed_limit_is_named(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.MAX_INPUT_ENV, value)
    with pytest.raises(PodwhyError, match=f"PODWHY_MAX_INPUT_SIZE='{value}': not a size"):
        limits.max_input_bytes()


def test_the_default_limit_passes_a_real_cluster() -> None:
    assert limits.max_input_bytes() == limits.MAX_INPUT_BYTES >= 4 * 1024**3


def test_deep_json_is_one_line() -> None:
    data = b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    with pytest.raises(PodwhyError, match=r"deep.json: nested too deeply to read"):
        decode(data, "deep.json")


@pytest.mark.parametrize("nesting", ["[" * 50_000 + "]" * 50_000, "{a: " * 50_000 + "b" + "}" * 50_000])
def test_deep_yaml_is_one_line(nesting: str) -> None:
    # libyaml would overflow the C stack at this depth: the bound is told before it parses.
    data = f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {nesting}\n".encode()
    with pytest.raises(PodwhyError, match=r"deep.yaml: malformed YAML: nested more than 1000 levels deep"):
        decode(data, "deep.yaml")


def test_deep_block_yaml_is_one_line() -> None:
    data = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n" + "- " * 5_000 + "x\n").encode()
    with pytest.raises(PodwhyError, match=r"nested more than 1000 levels deep"):
        decode(data, "block.yaml")


def test_a_huge_number_is_one_line() -> None:
    data = f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  generation: {'9' * 100_000}\n".encode()
    with pytest.raises(
        PodwhyError, match=r"big.yaml: malformed YAML \(line 5, column 15\): a number of 100000 characters"
    ):
        decode(data, "big.yaml")


def test_a_symlink_loop_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    code, err = run("pending", "-A", "--from", str(tmp_path / "a.yaml"))
    assert (
        code == 3 and err.startswith(f"podwhy: error: {tmp_path / 'a.yaml'}: cannot read: ") and "internal" not in err
    )
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "p", "--from", ""],
        ["explain", "-f", "", "--from", "x.yaml"],
        ["pending", "--from", ""],
        ["check", "-f", "", "--from", "x.yaml"],
        ["check", "-f", "m.yaml", "--from", "x.yaml", "--from", ""],
    ],
)
def test_an_empty_path_is_a_usage_error(args: list[str]) -> None:
    code, err = run(*args)
    assert code == 2
    assert err.startswith("podwhy: error: ") and "'': an empty path" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["explain", "p", "--from", "x.yaml", "--scheduler-config", ""], "'--scheduler-config'"),
        (["check", "-f", "m.yaml", "--from", "x.yaml", "--junit", ""], "'--junit'"),
        (["snapshot", "-o", ""], "'--output' / '-o'"),
        (["explain", "p", "--kubeconfig", ""], "'--kubeconfig'"),
    ],
)
def test_an_empty_path_option_is_a_usage_error(args: list[str], option: str) -> None:
    """`--scheduler-config ''` read the current folder, `--junit ''` tried to write it."""
    code, err = run(*args)
    assert code == 2
    assert err.startswith(f"podwhy: error: Invalid value for {option}: an empty path") and err.count("\n") == 1


def _deployment(name: str, replicas: int, kind: str = "Deployment") -> str:
    count = f"parallelism: {replicas}" if kind == "Job" else f"replicas: {replicas}"
    return (
        f"apiVersion: {'batch/v1' if kind == 'Job' else 'apps/v1'}\nkind: {kind}\nmetadata: {{name: {name}}}\n"
        f"spec:\n  {count}\n  selector: {{matchLabels: {{app: {name}}}}}\n"
        f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
        "    spec: {restartPolicy: Never, containers: [{name: c, image: nginx}]}\n"
    )


@pytest.mark.parametrize(
    ("manifests", "said"),
    [
        (_deployment("web", 2147483647), "Deployment default/web: 2,147,483,647 replicas: more than"),
        (_deployment("batch", 200_000, "Job"), "Job default/batch: 200,000 pods: more than"),
        (
            _deployment("a", 100_000) + "---\n" + _deployment("b", 60_000),
            "Deployment default/b: 60,000 replicas (with the manifests' other pods, 160,000): more than",
        ),
    ],
)
def test_check_refuses_more_pods_than_a_cluster_runs(tmp_path: Path, manifests: str, said: str) -> None:
    """`replicas: 2147483647` is refused at once (MAX_PODS), one workload or all together, before
    a single pod is built."""
    path = tmp_path / "big.yaml"
    path.write_text(manifests)
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', pods: '110'}}\n"
    )
    code, err = run("check", "-f", str(path), "--from", str(nodes))
    assert code == 3
    assert err == (
        f"podwhy: error: {path}: {said} a cluster runs at once ({limits.MAX_PODS:,} pods, Kubernetes' supported"
        " limit) (check places every replica; lower the count to one a cluster can run)\n"
    )


def test_a_long_in_selector_is_validated_once_and_matched_by_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """A legal selector of many values is validated once, however many nodes it is matched
    against (labels.NewRequirement ran per node: 100,000 values over 400 nodes took minutes), and
    a lookup does not walk the values."""
    from podwhy.helpers import labelselectors as labels
    from podwhy.helpers.namevalidation import is_valid_label_value

    labels._new_requirement.cache_clear()
    calls = 0

    def counting(value: str) -> bool:
        nonlocal calls
        calls += 1
        return is_valid_label_value(value)

    monkeypatch.setattr(labels, "is_valid_label_value", counting)
    values = [f"v{i}" for i in range(10_000)]
    for _ in range(50):  # as the plugins build it for each node
        requirement = labels.new_requirement("zone", "In", values)
    assert calls == len(values)
    assert requirement.matches({"zone": "v9999"}) and not requirement.matches({"zone": "w"})
    assert isinstance(requirement.value_set, frozenset) and len(requirement.value_set) == len(values)
    bad = [*values, "not valid!"]
    for _ in range(3):
        with pytest.raises(labels.SelectorError, match="invalid label value 'not valid!'"):
            labels.new_requirement("zone", "In", bad)
    assert calls == 2 * len(values) + 1
