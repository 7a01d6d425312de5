"""Inputs built to hurt are refused in one line naming the input and the limit (issue 26, "Every
input bounded"): YAML aliases, decompressed and read sizes, deep nesting, huge numbers, symlink
loops, empty paths. Every input is generated here, small: the limits are lowered where needed."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import PodwhyError
from podwhy.snapshot import limits
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
    if os.path.exists("/dev/zero"):
        code, err = run("pending", "-A", "--from", "/dev/zero")
        assert code == 3 and err == (
            "podwhy: error: /dev/zero: holds more than 1 MiB, the most podwhy reads from one input "
            "(set PODWHY_MAX_INPUT_SIZE to raise the limit, e.g. PODWHY_MAX_INPUT_SIZE=16Gi)\n"
        )

    class Endless(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            buffer[:] = b"#" * len(buffer)
            return len(buffer)

    with pytest.raises(PodwhyError, match="<stdin>: holds more than 1 MiB"):
        FileSource(["-"], stdin=io.BufferedReader(Endless())).load()


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
    from podwhy.model import labels
    from podwhy.model.validation import is_valid_label_value

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
