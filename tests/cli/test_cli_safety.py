"""An answer to act on: no false all-clears, one-line usage errors, readable help, a reader that
stops early, `--version`, the kubectl plugin's name, and `snapshot -o -` / safe dump files."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.snapshot.source import FileSource
from tests.apiserver import FakeApiServer, load_objects
from tests.builders import quotas_listed
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"
ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


def cli(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=input, env=ENV)
    return result.exit_code, result.stdout, result.stderr


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("podwhy: error: ") and "Traceback" not in err
    return lines[0]


def manifest(tmp_path: Path, namespace: str = "shop", priority_class: str | None = None, **spec_fields: Any) -> Path:
    # Requests given in full: no LimitRange of the namespace could add any (EXAMPLE holds none).
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]
    }
    if priority_class is not None:
        spec["priorityClassName"] = priority_class
    spec.update(spec_fields)
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big"}, "spec": spec}))
    if namespace:
        doc = yaml.safe_load(path.read_text())
        doc["metadata"]["namespace"] = namespace
        path.write_text(yaml.safe_dump(doc))
    return path


def extra_objects(tmp_path: Path, *objects: dict[str, Any]) -> Path:
    path = tmp_path / "extra.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return path


def namespace_object(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


# ------------------------------------------------------------------ 1. no false all-clears
@pytest.mark.parametrize(
    "args",
    [
        ["explain", "checkout-7c9d8b6f5-m4x2q", "-n", "shopp"],
        ["explain", "shopp/checkout-7c9d8b6f5-m4x2q"],
        ["pending", "-n", "shopp"],
    ],
    ids=["explain-n", "explain-slash", "pending"],
)
def test_a_misspelt_namespace_is_an_error_naming_the_closest(args: list[str]) -> None:
    code, out, err = cli(*args, "--from", str(EXAMPLE))
    assert (code, out) == (3, "")
    line = one_error_line(err)
    assert "namespace 'shopp' not found" in line and "closest: shop" in line


def test_explain_f_and_check_refuse_a_namespace_the_snapshot_does_not_have(tmp_path: Path) -> None:
    pod = manifest(tmp_path, namespace="shopp")
    for command in (["explain", "-f", str(pod)], ["check", "-f", str(pod)]):
        code, out, err = cli(*command, "--from", str(EXAMPLE))
        assert (code, out) == (3, ""), err
        assert "namespace 'shopp' not found" in one_error_line(err)


def test_check_accepts_a_namespace_its_manifests_create(tmp_path: Path) -> None:
    pod = manifest(tmp_path, namespace="fresh")
    objects = [namespace_object("fresh"), yaml.safe_load(pod.read_text())]
    pod.write_text(yaml.safe_dump_all(objects))
    quotas = quotas_listed(tmp_path)
    code, out, err = cli("check", "-f", str(pod), "--from", str(EXAMPLE), "--from", quotas, "-o", "json")
    assert code == 0, err
    assert json.loads(out)["workloads"][0]["namespace"] == "fresh"


def _elsewhere(namespace: str) -> str:
    """pending's first line for a namespace without Pending pods while another holds a stuck one."""
    return f"1 stuck Pending pod in other namespaces, none in {namespace}; -A shows them:"


def test_a_namespace_without_pods_that_exists_says_what_is_stuck_elsewhere(tmp_path: Path) -> None:
    extra = extra_objects(tmp_path, namespace_object("quiet"))
    code, out, err = cli("pending", "-n", "quiet", "--from", str(EXAMPLE), "--from", str(extra))
    # Stuck pods elsewhere: the first line says so and the exit code agrees with it (issue 34).
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        _elsewhere("quiet"),
        f"podwhy pending -A --from {EXAMPLE} --from {extra}",
    ]
    # The namespaces every API server creates exist even in a dump that holds nothing of them.
    code, out, _ = cli("pending", "-n", "kube-public", "--from", str(EXAMPLE))
    assert (code, out.splitlines()[0]) == (
        1,
        _elsewhere("kube-public"),
    )


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[FakeApiServer, Path]]:
    objects = load_objects(EXAMPLE) + [namespace_object(n) for n in ("default", "kube-system", "ml", "shop", "quiet")]
    with FakeApiServer(objects) as server:
        yield server, server.kubeconfig(tmp_path / "config", namespace="shop")


def test_live_a_namespace_the_api_server_does_not_have_is_an_error(live: tuple[FakeApiServer, Path]) -> None:
    _, config = live
    code, out, err = cli("pending", "-n", "shopp", "--kubeconfig", str(config))
    assert (code, out) == (3, "")
    line = one_error_line(err)
    assert "the cluster has no such Namespace" in line and "closest: shop" in line
    code, out, err = cli("pending", "-n", "quiet", "--kubeconfig", str(config))
    assert (code, out.splitlines()[0], err) == (
        1,
        _elsewhere("quiet"),
        "",
    )


def test_live_without_the_namespace_list_the_namespace_is_read_one_by_one(tmp_path: Path) -> None:
    objects = load_objects(EXAMPLE) + [namespace_object(n) for n in ("default", "kube-system", "ml", "shop", "quiet")]
    with FakeApiServer(objects, list_forbidden={"namespaces"}) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        code, out, err = cli("pending", "-n", "quiet", "--kubeconfig", config)
        assert (code, out.splitlines()[0]) == (
            1,
            _elsewhere("quiet"),
        ), err
        code, out, err = cli("pending", "-n", "shopp", "--kubeconfig", config)
        assert (code, out) == (3, "")
        assert "the cluster has no such Namespace (closest: shop)" in one_error_line(err)
        assert {r.path for r in server.requests if r.path.count("/") == 4 and "/namespaces/" in r.path} == {
            "/api/v1/namespaces/quiet",
            "/api/v1/namespaces/shopp",
        }


# ------------------------------------------------------------------ 2. two pods given
def test_a_name_and_a_manifest_are_two_pods(tmp_path: Path) -> None:
    code, out, err = cli("explain", POD, "-f", str(manifest(tmp_path)), "--from", str(EXAMPLE))
    assert (code, out) == (2, "")
    assert "two pods given" in one_error_line(err)


# ------------------------------------------------------------------ 3. the Priority admission plugin
def test_an_unknown_priority_class_is_refused_as_the_api_server_refuses_it(tmp_path: Path) -> None:
    extra = extra_objects(tmp_path, priority_class("high", 1000))
    pod = manifest(tmp_path, priority_class="gold")
    for command in ("explain", "check"):
        code, out, err = cli(command, "-f", str(pod), "--from", str(EXAMPLE), "--from", str(extra))
        assert (code, out) == (3, "")
        assert one_error_line(err).startswith(
            'podwhy: error: pods "big" is forbidden: no PriorityClass with name gold was found ('
        )


@pytest.mark.parametrize(
    ("spec", "refusal"),
    [
        (
            {"priority": 5},
            "the integer value of priority (5) must not be provided in pod spec; priority admission controller "
            "computed 1000 from the given PriorityClass name",
        ),
        (
            {"preemptionPolicy": "Never"},
            "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission "
            "controller computed PreemptLowerPriority from the given PriorityClass name",
        ),
    ],
    ids=["priority", "preemptionPolicy"],
)
def test_a_priority_the_manifest_sets_must_be_the_classs(tmp_path: Path, spec: dict[str, Any], refusal: str) -> None:
    extra = extra_objects(tmp_path, priority_class("gold", 1000))
    pod = manifest(tmp_path, priority_class="gold", **spec)
    code, out, err = cli("explain", "-f", str(pod), "--from", str(EXAMPLE), "--from", str(extra))
    assert (code, out) == (3, "")
    assert one_error_line(err).startswith(f'podwhy: error: pods "big" is forbidden: {refusal} (')


@pytest.mark.parametrize(
    ("classes", "name", "priority", "spec"),
    [
        ([priority_class("gold", 1000)], "gold", 1000, {}),
        ([priority_class("gold", 1000)], "gold", 1000, {"priority": 1000}),  # as exported from the cluster
        ([priority_class("gold", 1000)], "system-node-critical", 2000001000, {}),
        ([priority_class("gold", 1000)], "system-cluster-critical", 2000000000, {}),
        ([], "system-node-critical", 2000001000, {}),
        ([], "gold", 1000, {"priority": 1000}),  # no PriorityClasses: the priority the manifest states
    ],
)
def test_known_and_built_in_priority_classes(
    tmp_path: Path, classes: list[Any], name: str, priority: int, spec: dict[str, Any]
) -> None:
    sources = ["--from", str(EXAMPLE), "--from", quotas_listed(tmp_path)]
    sources += ["--from", str(extra_objects(tmp_path, *classes))] if classes else []
    pod = manifest(tmp_path, priority_class=name, **spec)
    code, out, err = cli("explain", "-f", str(pod), *sources, "-o", "json")
    report = json.loads(out)
    assert report["pod"]["priority"] == priority
    assert not any("PriorityClass" in w for w in report["warnings"]), err
    assert code == 0 and report["verdict"] == "Schedulable"


def test_without_any_priority_class_only_what_reads_the_priority_is_not_evaluated(tmp_path: Path) -> None:
    """The snapshot holds no PriorityClasses: 'gold' may exist. The pod fits, and only preemption
    reads its priority, so the verdict stands and nothing is asked for; with --complete the API
    server's refusal is given."""
    pod = manifest(tmp_path, priority_class="gold")
    quotas = quotas_listed(tmp_path)
    code, out, err = cli("explain", "-f", str(pod), "--from", str(EXAMPLE), "--from", quotas, "-o", "json")
    report = json.loads(out)
    assert (code, report["verdict"], report["pod"]["priority"]) == (0, "Schedulable", 0)
    assert not any("PriorityClass" in w for w in report["warnings"])
    code, _, err = cli("explain", "-f", str(pod), "--from", str(EXAMPLE), "--complete")
    assert code == 3 and "no PriorityClass with name gold was found" in err


# ------------------------------------------------------------------ 4. pending's scope
def test_pending_first_line_names_its_scope(live: tuple[FakeApiServer, Path]) -> None:
    _, config = live
    for args, code, first in [
        (["--from", str(EXAMPLE), "-n", "shop"], 1, "1 Pending pod in namespace shop, 1 stuck, in 1 group"),
        (["--from", str(EXAMPLE), "-A"], 1, "1 Pending pod in all 4 namespaces, 1 stuck, in 1 group"),
        (
            ["--from", str(EXAMPLE), "-n", "ml"],
            1,
            _elsewhere("ml"),
        ),
        # Offline as live: without -n one namespace (default, as offline explain and check), -A for all.
        (["--from", str(EXAMPLE)], 1, _elsewhere("default")),
        (["--kubeconfig", str(config)], 1, "1 Pending pod in namespace shop, 1 stuck, in 1 group"),  # the context's
        (["--kubeconfig", str(config), "-A"], 1, "1 Pending pod in all 5 namespaces, 1 stuck, in 1 group"),
    ]:
        got, out, _ = cli("pending", *args)
        assert (got, out.splitlines()[0]) == (code, first)
    _, out, _ = cli("pending", "--kubeconfig", str(config), "-A", "-o", "json")
    scope = json.loads(out)["scope"]
    assert {k: scope[k] for k in ("namespace", "namespaces", "only", "elsewhere")} == {
        "namespace": None,
        "namespaces": 5,
        "only": None,
        "elsewhere": 0,
    }


def test_verbose_on_every_command(live: tuple[FakeApiServer, Path], tmp_path: Path) -> None:
    _, config = live
    loaded = "loaded 4 nodes, "
    for args, lines in [
        (["explain", POD, "--from", str(EXAMPLE)], [loaded]),
        (["pending", "--from", str(EXAMPLE)], [loaded, "namespaces: default (no -n: default, as offline explain"]),
        (["pending", "--from", str(EXAMPLE), "-A"], [loaded, "namespaces: every one (-A)"]),
        (["pending", "--kubeconfig", str(config)], ["namespaces: shop (no -n: the context's namespace)"]),
        (
            ["check", "-f", str(manifest(tmp_path)), "--from", str(EXAMPLE), "--complete"],
            [loaded, "namespace of manifests"],
        ),
        (
            ["snapshot", "-o", str(tmp_path / "c.json"), "--kubeconfig", str(config), "-q"],
            ["fetched: ", "the cluster has none of: "],
        ),
    ]:
        for verbose in ("-v", "--verbose"):
            code, _, err = cli(*args, verbose)
            assert code in (0, 1), err
            said = err.splitlines()
            for line in lines:
                assert any(s.startswith(line) for s in said), (args, err)
        _, _, quiet = cli(*args)
        assert not any(s.startswith(line) for line in lines for s in quiet.splitlines()), (args, quiet)


# ------------------------------------------------------------------ 5. a reader that stops early
@pytest.mark.parametrize("output", ["table", "json"])
@pytest.mark.parametrize(
    ("args", "verdict_code"),
    [
        (["explain", "-f", "{pod}", "--from", str(EXAMPLE), "--complete"], 0),
        (["pending", "-A", "--from", str(EXAMPLE), "--complete"], 1),
    ],
    ids=["schedulable", "pending"],
)
def test_a_reader_that_stops_early_keeps_the_verdicts_exit_code(
    tmp_path: Path, args: list[str], verdict_code: int, output: str
) -> None:
    args = [a.replace("{pod}", str(manifest(tmp_path))) for a in args]
    command = [sys.executable, "-c", "from podwhy.cli import app; app()", *args, "-o", output]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**ENV, "PATH": ""}) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # `| head -0`: the reader is gone before podwhy writes a byte
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert (code, err) == (verdict_code, "")


def test_a_reader_of_stdout_and_stderr_that_stops_early_keeps_the_exit_code(tmp_path: Path) -> None:
    """`podwhy ... 2>&1 | head`: the warnings (an unknown RuntimeClass: Inconclusive, 3) find
    the pipe closed too."""
    pod = manifest(tmp_path, runtimeClassName="gvisor")
    command = [sys.executable, "-c", "from podwhy.cli import app; app()", "explain", "-f", str(pod)]
    command += ["--from", str(EXAMPLE)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV) as proc:
        assert proc.stdout is not None
        proc.stdout.close()
        assert proc.wait(timeout=120) == 3
    _, _, err = cli("explain", "-f", str(pod), "--from", str(EXAMPLE))
    assert "podwhy: warning: the snapshot holds no RuntimeClasses" in err and "error" not in err


# ------------------------------------------------------------------ 6. usage errors and help
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["explain", POD, "-o", "xml"], "'xml' is not one of 'table', 'wide', 'json', 'yaml'"),
        (["explain", POD, "--no-such-option"], "No such option: --no-such-option"),
        (["check"], "Missing option '--file' / '-f'"),
        (["pending", "--request-timeout", "soon"], "--request-timeout"),
        (["snapshot"], "Missing option '--output' / '-o'"),
    ],
)
def test_usage_errors_are_one_line_and_a_hint(args: list[str], needle: str) -> None:
    code, out, err = cli(*args)
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert needle in line and line.endswith(f"(see: podwhy {args[0]} --help)")


@pytest.mark.parametrize("command", [[], ["explain"], ["pending"], ["check"], ["snapshot"]])
def test_help_shows_placeholders_a_person_reads(command: list[str]) -> None:
    code, out, _ = cli(*command, "--help")
    assert code == 0
    assert "<" not in out.replace("<redacted>", ""), out
    if command == ["explain"]:
        for shown in ("[POD]", "--from PATH", "-n, --namespace NAMESPACE", "-f, --file FILE", "--node NODE"):
            assert shown in out
        assert "--request-timeout DURATION" in out and "-q, --quiet  " in out


def test_options_are_validated_before_anything_is_fetched(live: tuple[FakeApiServer, Path], tmp_path: Path) -> None:
    server, config = live
    code, out, err = cli("pending", "--kubeconfig", str(config), "--scheduler-config", str(tmp_path / "none.yaml"))
    assert (code, out) == (3, "") and "none.yaml" in one_error_line(err)
    pod = manifest(tmp_path)
    code, out, err = cli("check", "-f", str(pod), "--kubeconfig", str(config), "--junit", str(tmp_path / "no/j.xml"))
    assert (code, out) == (3, "") and "cannot write" in one_error_line(err)
    assert server.requests == []


# ------------------------------------------------------------------ 7. --version, kubectl podwhy
def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert cli("--version") == (0, f"podwhy {version('podwhy')}\n", "")


def test_as_a_kubectl_plugin_it_names_itself_kubectl_podwhy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/kubectl-podwhy", "--help"])
    code, out, _ = cli("--help")
    assert code == 0 and out.startswith("Usage: kubectl podwhy [OPTIONS] COMMAND [ARGS]...")
    code, _, err = cli("explain", "-o", "xml", "p")
    assert code == 2 and one_error_line(err).endswith("(see: kubectl podwhy explain --help)")


# ------------------------------------------------------------------ 8. snapshot
def test_snapshot_to_stdout_reads_back(live: tuple[FakeApiServer, Path]) -> None:
    _, config = live
    code, out, err = cli("snapshot", "-o", "-", "--kubeconfig", str(config), "-q")
    assert code == 0 and "wrote" in err and "to stdout" in err
    assert json.loads(out)["kind"] == "List"
    code, report, _ = cli("explain", POD, "--from", "-", "-o", "json", input=out)
    assert code == 1 and json.loads(report)["pod"]["name"] == POD.split("/")[1]


@pytest.mark.parametrize(
    ("make_path", "needle"),
    [
        (lambda tmp: tmp / "missing" / "dump.json", "No such file or directory"),
        (lambda tmp: tmp, "is a directory"),
    ],
    ids=["missing-folder", "directory"],
)
def test_snapshot_path_that_cannot_be_written_fails_before_fetching(
    live: tuple[FakeApiServer, Path], tmp_path: Path, make_path: Any, needle: str
) -> None:
    server, config = live
    code, out, err = cli("snapshot", "-o", str(make_path(tmp_path)), "--kubeconfig", str(config), "-q")
    assert (code, out) == (3, "")
    assert needle in one_error_line(err)
    assert server.requests == []


def test_snapshot_that_fails_leaves_the_old_file_and_no_partial_one(tmp_path: Path) -> None:
    dump = tmp_path / "out" / "dump.json"
    dump.parent.mkdir()
    dump.write_text("old")
    with FakeApiServer(load_objects(EXAMPLE), forbidden={"pods"}) as server:
        code, _, err = cli("snapshot", "-o", str(dump), "--kubeconfig", str(server.kubeconfig(tmp_path / "c")), "-q")
    assert code == 3 and "cannot list pods" in err
    assert dump.read_text() == "old" and sorted(p.name for p in dump.parent.iterdir()) == ["dump.json"]


def test_an_interrupted_write_leaves_the_old_file_and_no_partial_one(tmp_path: Path) -> None:
    from podwhy.snapshot.writer import DumpTarget, write_dump

    class Interrupted(list[msgspec.Raw]):
        def __iter__(self) -> Iterator[msgspec.Raw]:
            yield msgspec.Raw(b'{"metadata": {"name": "n1"}}')
            raise KeyboardInterrupt

    dump = tmp_path / "dump.json.gz"
    dump.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        write_dump(DumpTarget(dump), {("Node", "v1"): Interrupted()}, {})
    assert dump.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["dump.json.gz"]
    write_dump(DumpTarget(dump), {("Node", "v1"): [msgspec.Raw(b'{"metadata": {"name": "n1"}}')]}, {})
    assert [n.metadata.name for n in FileSource([str(dump)]).load().nodes] == ["n1"]


RUN = "from podwhy.cli import app; app()"
# Ctrl-C raises KeyboardInterrupt, as in a terminal (a shell's background job would ignore SIGINT).
RUN_INTERRUPTIBLE = f"import signal; signal.signal(signal.SIGINT, signal.default_int_handler); {RUN}"
NODE_ITEMS = {("Node", "v1"): [msgspec.Raw(b'{"metadata": {"name": "n1"}}')]}


def test_what_is_not_a_regular_file_is_written_through_never_replaced(tmp_path: Path) -> None:
    """`-o` a FIFO (or a device, /dev/stdout): the bytes go through it, as a shell's `>` sends
    them; it is never replaced by a file (as root, a rename over /dev/null replaces the device)."""
    import os
    import stat
    import threading

    from podwhy.snapshot.writer import DumpTarget, write_dump

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()))
    reader.start()
    assert write_dump(DumpTarget(fifo), NODE_ITEMS, {}) == 1
    reader.join()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and json.loads(read[0])["items"][0]["metadata"]["name"] == "n1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]  # no temporary file beside it
    write_dump(DumpTarget(Path(os.devnull)), NODE_ITEMS, {})
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_symlink_s_file_is_replaced_keeping_the_link_and_modes_are_kept_or_private(tmp_path: Path) -> None:
    import os

    from podwhy.snapshot.writer import DumpTarget, write_dump

    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real.name)
    write_dump(DumpTarget(link), NODE_ITEMS, {})
    assert link.is_symlink() and json.loads(real.read_text())["kind"] == "List"
    assert real.stat().st_mode & 0o777 == 0o640  # a replaced snapshot keeps its permissions
    new = tmp_path / "new.json"
    write_dump(DumpTarget(new), NODE_ITEMS, {})
    assert new.stat().st_mode & 0o777 == 0o600  # a new one may hold secrets: the owner's only
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "new.json", "real.json"]
    assert os.readlink(link) == "real.json"


def test_sigterm_during_a_snapshot_leaves_the_old_file_and_no_partial_one(tmp_path: Path) -> None:
    """SIGTERM (a cancelled CI job, `timeout`) stops `podwhy snapshot` as Ctrl-C does: exit 143,
    the old file untouched, no `.partial` left. The fake API server holds the pods' list until the
    signal has been sent (no clock)."""
    import signal

    dump = tmp_path / "out" / "dump.json"
    dump.parent.mkdir()
    dump.write_text("old")
    with FakeApiServer(load_objects(EXAMPLE), hold={"pods"}) as server:
        config = server.kubeconfig(tmp_path / "config")
        process = subprocess.Popen(
            [sys.executable, "-c", RUN, "snapshot", "-o", str(dump), "--kubeconfig", str(config), "-q"],
            stderr=subprocess.PIPE,
        )
        try:
            assert server.holding.wait(120), "the fetch never reached the pods"
            assert sorted(p.suffix for p in dump.parent.iterdir()) == [".json", ".partial"]
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=120)
        finally:
            server.release.set()
            if process.poll() is None:
                process.kill()
    assert process.returncode == 143 and b"podwhy: terminated" in err
    assert dump.read_text() == "old" and [p.name for p in dump.parent.iterdir()] == ["dump.json"]


@pytest.mark.parametrize("command", ["snapshot", "explain"])
def test_sigint_during_a_held_fetch_exits_at_once(command: str, tmp_path: Path) -> None:
    """Ctrl-C while the fetch's worker threads wait on a request the API server holds open: exit
    130 at once (not when the request timeout ends the held request), one line, no traceback, and
    for `snapshot` the old file untouched with no `.partial` left."""
    import signal

    dump = tmp_path / "out" / "dump.json"
    dump.parent.mkdir()
    dump.write_text("old")
    args = ["snapshot", "-o", str(dump)] if command == "snapshot" else ["explain", "shop/checkout-7c9d8b6f5-m4x2q"]
    args += ["--request-timeout", "300s", "-q"]
    with FakeApiServer(load_objects(EXAMPLE), hold={"pods"}) as server:
        config = server.kubeconfig(tmp_path / "config")
        process = subprocess.Popen(
            [sys.executable, "-c", RUN_INTERRUPTIBLE, *args, "--kubeconfig", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert server.holding.wait(120), "the fetch never reached the pods"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)  # the held request would last 300 s
        finally:
            if process.poll() is None:
                process.kill()
            server.release.set()
    assert process.returncode == 130, err
    assert out == b"" and [line for line in err.decode().splitlines() if line] == ["podwhy: aborted"]
    assert dump.read_text() == "old" and [p.name for p in dump.parent.iterdir()] == ["dump.json"]
