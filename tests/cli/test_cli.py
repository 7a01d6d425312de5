"""The command line: exit codes, outputs, and one-line errors for bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
"""


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["explain", *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_example_json_is_valid_and_pure(report_schema_validator: object) -> None:
    code, out, _ = run(POD, "--from", str(EXAMPLE), "--complete", "-o", "json")
    report = json.loads(out)  # stdout holds nothing but the report
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert report["pod"]["name"] == "checkout-7c9d8b6f5-m4x2q"
    assert code == (0 if report["verdict"] == "Schedulable" else 1)


def test_yaml_output() -> None:
    import yaml

    _code, out, _ = run(POD, "--from", str(EXAMPLE), "--complete", "-o", "yaml")
    assert yaml.safe_load(out)["kind"] == "Explanation"


def test_namespace_flag_equals_slash_form() -> None:
    _, a, _ = run(POD, "--from", str(EXAMPLE), "--complete", "-o", "json")
    _, b, _ = run(POD.split("/")[1], "-n", "shop", "--from", str(EXAMPLE), "--complete", "-o", "json")
    assert json.loads(a)["nodes"] == json.loads(b)["nodes"]


def test_stdin_source() -> None:
    _code, out, _ = run(POD, "--from", "-", "-o", "json", input=EXAMPLE.read_text())
    assert json.loads(out)["pod"]["namespace"] == "shop"


def test_pod_manifest_gets_admission_defaults(tmp_path: Path) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\n"
        "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '64'}}}]}\n"
    )
    _code, out, _ = run("-f", str(manifest), "--from", str(EXAMPLE), "--complete", "-o", "json")
    report = json.loads(out)
    assert report["pod"]["schedulerName"] == "default-scheduler"
    assert report["pod"]["priority"] == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["x", "--from", str(EXAMPLE), "--complete", "--kubeconfig", "k"], "for live mode"),
        ([POD, "--from", str(EXAMPLE), "--complete", "--node", "no-such-node"], "no such node"),
        (["--from", str(EXAMPLE), "--complete"], "no pod given"),
    ],
)
def test_usage_errors_exit_2(args: list[str], needle: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert needle in err


def test_unknown_pod_names_closest(tmp_path: Path) -> None:
    code, out, err = run("shop/checkout-7c9d8b6f5-m4x2x", "--from", str(EXAMPLE), "--complete")
    assert code == 3
    assert out == ""
    assert "not found" in err and POD in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("items: [\n  - {", "malformed YAML"),
        ('{"kind": "List", "items": [', "malformed JSON"),
        (
            "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{resources: {requests: {cpu: 1x}}}]}\n" + "---" + NODE,
            "unparsable quantity",
        ),
        ("kind: Node\nmetadata: {labels: {a: b}}\n", "has no metadata.name"),
        ("kind: Node\nmetadata: {name: n}\nspec: {taints: 5}\n", "is invalid"),
        ("kind: ConfigMap\nmetadata: {name: c}\n", "holds no nodes and no pods"),
    ],
)
def test_bad_input_is_one_line_exit_3(tmp_path: Path, content: str, needle: str) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(content)
    code, out, err = run("p", "--from", str(dump))
    assert code == 3, err
    assert needle in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert out == ""


def test_missing_file_exit_3(tmp_path: Path) -> None:
    code, _, err = run("p", "--from", str(tmp_path / "nope.yaml"))
    assert code == 3
    assert "no such file" in err


def test_gzip_and_json_dumps(tmp_path: Path) -> None:
    import gzip

    import yaml

    doc = {"kind": "List", "items": next(iter(yaml.safe_load_all(EXAMPLE.read_text())))["items"]}
    path = tmp_path / "dump.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    _code, out, _ = run(POD, "--from", str(path), "-o", "json")
    assert json.loads(out)["snapshot"]["nodes"] == 4


def test_node_view_unknown_node_is_a_usage_error_before_any_output() -> None:
    code, out, err = run(POD, "--from", str(EXAMPLE), "--complete", "--node", "worker-a9")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "'worker-a9'" in err and "closest: worker-a1" in err


@pytest.mark.parametrize("kind", ["Explanation", "CheckReport", "PendingReport"])
def test_committed_schema_is_generated_from_the_report_model(kind: str) -> None:
    from podwhy.report.schema import SCHEMA_PATHS, schema_text

    assert SCHEMA_PATHS[kind].read_text() == schema_text(kind), "run: python -m podwhy.report.schema"


# ------------------------------------------------------------------ -f: a manifest read by the dumps' decoder
@pytest.mark.parametrize(
    "manifest",
    [
        "kind: Pod\nmetadata: {name: x}\nspec: {priority: many}\n",
        "kind: Pod\nmetadata: {name: x}\nspec:\n  containers: [\n",
        "kind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}\n",
        '{"kind": "Pod", "metadata": {"name": "x"}, "spec": {"tolerations": {}}}',
        "kind: Pod\nmetadata: {namespace: shop}\nspec: {}\n",
    ],
    ids=["wrong-type", "malformed", "quantity", "json", "no-name"],
)
def test_manifest_errors_are_worded_as_for_dumps(manifest: str, tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(manifest)
    code, out, err = run("-f", str(path), "--from", str(EXAMPLE), "--complete")
    dump_code, _, dump_err = run(POD, "--from", str(EXAMPLE), "--complete", "--from", str(path))
    assert (code, dump_code) == (3, 3)
    assert out == ""
    assert err == dump_err
    assert len(err.strip().splitlines()) == 1 and str(path) in err


def test_a_manifest_with_only_generate_name_is_named_as_check_names_it(tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {generateName: probe-}\nspec: {containers: [{name: c, image: img}]}\n"
    )
    _, out, _ = run("-f", str(path), "-n", "shop", "--from", str(EXAMPLE), "--complete", "-o", "json")
    pod = json.loads(out)["pod"]
    assert pod["namespace"] == "shop"
    assert pod["name"].startswith("probe-") and len(pod["name"]) == len("probe-") + 5
    checked = CliRunner().invoke(
        app, ["check", "-f", str(path), "-n", "shop", "--from", str(EXAMPLE), "--complete", "-o", "json"]
    )
    (workload,) = json.loads(checked.stdout)["workloads"]
    assert workload["replicas"][0]["name"] == pod["name"]


@pytest.mark.parametrize(
    ("manifest", "found"),
    [
        ("kind: Deployment\nmetadata: {name: x}\n", "found Deployment"),
        ("kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n", "found Pod, Pod"),
        ("kind: ConfigMap\nmetadata: {name: x}\n", "found nothing podwhy reads"),
    ],
)
def test_a_manifest_must_hold_one_pod(manifest: str, found: str, tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(manifest)
    code, _, err = run("-f", str(path), "--from", str(EXAMPLE), "--complete")
    assert code == 3
    assert f"expected exactly one Pod object (and objects created with it), {found}" in err


def test_a_manifest_from_stdin(tmp_path: Path) -> None:
    manifest = "kind: Pod\nmetadata: {name: big, namespace: shop}\nspec: {containers: [{name: c, image: img}]}\n"
    code, out, _ = run("-f", "-", "--from", str(EXAMPLE), "--complete", "-o", "json", input=manifest)
    assert code in (0, 1)
    assert json.loads(out)["pod"]["name"] == "big"
    code, _, err = run("-f", "-", "--from", "-", input=manifest)
    assert code == 2 and "cannot both read stdin" in err


@pytest.mark.parametrize("given", ["empty.yaml", "-"])  # /dev/null is refused as a device
def test_empty_input_says_its_first_clause_and_points_to_the_readme(tmp_path: Path, given: str) -> None:
    """The error on an empty input is one short line: the one command that dumps a cluster, and
    where the kubectl ways are told (issue 34: it was a line of 1,003 characters)."""
    path = str(tmp_path / given) if given == "empty.yaml" else given
    if given == "empty.yaml":
        Path(path).write_text("")
    code, out, err = run("x", "--from", path, input="")
    name = "<stdin>" if given == "-" else path
    assert (code, out) == (3, "")
    assert err == (
        f"podwhy: error: the snapshot holds no nodes and no pods ({name}) (dump the cluster with"
        ' `podwhy snapshot -o cluster.json.gz`; to dump it with kubectl, see "Which snapshot to take" in'
        " podwhy's README)\n"
    )


def test_the_readme_section_the_hint_names_holds_the_kubectl_dump() -> None:
    from podwhy.snapshot.live.source import kubectl_dump_command

    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Which snapshot to take\n", 1)[1].split("\n## ", 1)[0]
    assert kubectl_dump_command() + " > cluster.yaml" in section and "--complete" in section


@pytest.mark.parametrize(
    ("command", "stdin", "said"),
    [
        (["explain", "x", "--from", "-"], "", "the snapshot holds no nodes and no pods (<stdin>)"),
        (["pending", "--from", "-"], "", "the snapshot holds no pods (<stdin>)"),
        (["check", "-f", "-", "--from", str(EXAMPLE), "--complete"], "", "no Pods or workloads in <stdin>"),
        (["check", "-f", str(EXAMPLE), "--from", "-"], "", "the snapshot holds no nodes (<stdin>)"),
        (["explain", "-f", "-", "--from", str(EXAMPLE)], "", "<stdin>: expected exactly one Pod object"),
        (["explain", "x", "--from", "-"], "items: [", "<stdin>: malformed YAML"),
    ],
)
def test_stdin_has_one_name_in_every_message(command: list[str], stdin: str, said: str) -> None:
    result = CliRunner().invoke(app, command, input=stdin)
    assert result.exit_code == 3 and said in result.stderr, result.stderr
    assert "(-)" not in result.stderr and " in -" not in result.stderr


def test_verbose_names_stdin_as_every_message_does() -> None:
    result = CliRunner().invoke(app, ["pending", "-v", "-q", "--from", "-"], input=EXAMPLE.read_text())
    assert "loaded 4 nodes, 8 pods from <stdin>\n" in result.stderr


def _pod(namespace: str, name: str, node: str = "") -> str:
    bound = f", nodeName: {node}" if node else ""
    phase = "Running" if node else "Pending"
    return (
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {json.dumps(name)}, namespace: {namespace}}}\n"
        f"spec: {{containers: [{{name: c, image: x}}]{bound}}}\nstatus: {{phase: {phase}}}\n"
    )


def test_an_unknown_pod_offers_the_pending_pods_as_examples(tmp_path: Path) -> None:
    dump = tmp_path / "dump.yaml"
    pods = [_pod("db", "pg-0"), _pod("shop", "web-1", node="n1"), _pod("shop", "web-2"), _pod("db", "pg-1")]
    pods += [_pod("db", "evil\x1b[2J"), _pod("shop", "api-0")]
    dump.write_text(NODE + "".join(pods))
    # Nothing close: the Pending pods, the asked namespace's first, a few of them.
    code, out, err = run("shop/nosuch", "--from", str(dump))
    assert (code, out) == (3, "")
    assert err == (
        "podwhy: error: pod shop/nosuch not found in the snapshot"
        " (Pending pods: shop/web-2, shop/api-0, db/pg-0, … (5 in all))\n"
    )
    # Beside the closest names (not offered twice); a name from the dump is escaped.
    code, _, err = run("db/pg-2", "--from", str(dump))
    assert err == (
        "podwhy: error: pod db/pg-2 not found in the snapshot"
        " (closest: db/pg-1, db/pg-0; Pending pods: db/evil\\x1b[2J, shop/web-2, shop/api-0)\n"
    )
    assert "\x1b" not in err


# ------------------------------------------------------------------ kubectl's spellings (issue 34, item 9)
MANIFEST = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: {containers: [{name: c, image: x}]}\n"
)


def _command(name: str, tmp_path: Path) -> list[str]:
    if name == "check":
        pod = tmp_path / "pod.yaml"
        pod.write_text(MANIFEST)
        return ["check", "-f", str(pod), "--from", str(EXAMPLE), "--complete"]
    if name == "pending":
        return ["pending", "-A", "--from", str(EXAMPLE), "--complete"]
    return ["explain", POD, "--from", str(EXAMPLE), "--complete"]


def _invoke(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["explain", "pending", "check"])
def test_kubectl_spellings_of_output_and_verbosity(command: str, tmp_path: Path) -> None:
    args = _command(command, tmp_path)
    quiet, verbose, as_json = (
        _invoke([*args, "-o", "yaml"]),
        _invoke([*args, "-v", "-o", "yaml"]),
        _invoke([*args, "-o", "json"]),
    )
    assert verbose[2] != quiet[2]  # -v says more on stderr
    for spelling in (["-o=json"], ["--output=json"], ["-ojson"]):
        assert _invoke([*args, *spelling]) == as_json
    for level in (["-v=6"], ["--v=1"], ["-v3"], ["-v", "6"], ["--v", "2"]):
        assert _invoke([*args, *level, "-o=yaml"]) == verbose
    for level in (["-v=0"], ["-v", "0"], ["--v", "0"]):
        assert _invoke([*args, *level, "-o=yaml"]) == quiet


def test_kubectl_spellings_are_read_only_as_options() -> None:
    from podwhy.cli import kubectl_spellings

    assert kubectl_spellings(["snapshot", "-o=-", "-n=shop", "--v=2"]) == ["snapshot", "-o", "-", "-n", "shop", "-v"]
    assert kubectl_spellings(["check", "-f=a.yaml", "-v=0", "-vq"]) == ["check", "-f", "a.yaml", "-vq"]
    # After `--` everything is an argument; an `=` in a value is the value's.
    assert kubectl_spellings(["explain", "-n", "a=b", "--", "-v=2"]) == ["explain", "-n", "a=b", "--", "-v=2"]


def test_kubectl_spellings_of_levels_and_booleans_with_their_values() -> None:
    """klog's -v takes a level, after `=` or as the next argument; pflag's boolean -A takes
    `=true` or `=false` (Go's strconv.ParseBool spellings)."""
    from podwhy.cli import kubectl_spellings

    assert kubectl_spellings(["explain", "-v", "6", "web"]) == ["explain", "-v", "web"]
    assert kubectl_spellings(["explain", "--v", "0", "web"]) == ["explain", "web"]
    assert kubectl_spellings(["explain", "-v", "web"]) == ["explain", "-v", "web"]  # a flag before a name
    for true in ("true", "True", "TRUE", "t", "T", "1"):
        assert kubectl_spellings(["pending", f"-A={true}"]) == ["pending", "-A"]
        assert kubectl_spellings(["pending", f"--all-namespaces={true}"]) == ["pending", "--all-namespaces"]
    for false in ("false", "False", "FALSE", "f", "F", "0"):
        assert kubectl_spellings(["pending", f"-A={false}", "-n", "shop"]) == ["pending", "-n", "shop"]
    assert kubectl_spellings(["pending", "--", "-A=true"]) == ["pending", "--", "-A=true"]


def test_pending_all_namespaces_spelt_with_a_value() -> None:
    every = _invoke(["pending", "-A", "--from", str(EXAMPLE), "-o", "json"])
    assert _invoke(["pending", "-A=true", "--from", str(EXAMPLE), "-o", "json"]) == every
    assert _invoke(["pending", "--all-namespaces=True", "--from", str(EXAMPLE), "-o", "json"]) == every
    one = _invoke(["pending", "--from", str(EXAMPLE), "-o", "json"])
    assert _invoke(["pending", "-A=false", "--from", str(EXAMPLE), "-o", "json"]) == one


def test_a_boolean_go_would_not_read_or_a_level_missing_is_a_usage_error() -> None:
    code, out, err = _invoke(["pending", "-A=yes", "--from", str(EXAMPLE)])
    assert (code, out) == (2, "")
    assert err == (
        'podwhy: error: invalid argument "yes" for "-A, --all-namespaces" flag: strconv.ParseBool: parsing "yes":'
        " invalid syntax (-A=true or -A=false, as kubectl reads them; see: podwhy --help)\n"
    )
    code, out, err = _invoke(["pending", '-A=y"es', "--from", str(EXAMPLE)])
    assert code == 2
    assert 'invalid argument "y\\"es" for "-A, --all-namespaces" flag' in err  # Go's %q
    code, out, err = _invoke(["pending", "-A", "--from", str(EXAMPLE), "--v"])
    assert (code, out) == (2, "")
    assert err == (
        "podwhy: error: flag needs an argument: --v (--v=N or -v=N, as kubectl reads them; see: podwhy --help)\n"
    )


def test_a_verbosity_level_that_is_not_a_number_is_a_usage_error() -> None:
    code, out, err = _invoke(["explain", POD, "--from", str(EXAMPLE), "--v=high"])
    assert (code, out) == (2, "")
    assert err == (
        "podwhy: error: --v=high: a verbosity level is a number, as kubectl's -v=N"
        " (-v=1 or more is -v, -v=0 is not; see: podwhy --help)\n"
    )


# ------------------------------------------------------------------ messages on a terminal (issue 34, item 8)
RUNTIME_CLASS_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\n"
    "spec: {runtimeClassName: gvisor, containers: [{name: c, image: x}]}\n"
)
COMMAND = "`kubectl get runtimeclasses.node.k8s.io -A -o yaml`"


def _warnings(tmp_path: Path) -> tuple[int, str, str]:
    pod = tmp_path / "pod.yaml"
    pod.write_text(RUNTIME_CLASS_POD)
    return _invoke(["explain", "-f", str(pod), "--from", str(EXAMPLE), "-q"])


def test_piped_warnings_stay_one_line_each(tmp_path: Path) -> None:
    _, _, err = _warnings(tmp_path)
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("podwhy: warning: ") for line in lines)
    assert COMMAND in lines[0]


def test_on_a_terminal_warnings_wrap_at_words_and_keep_commands_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("podwhy.cli.output.stderr_width", lambda: 70)
    _, _, err = _warnings(tmp_path)
    assert err.splitlines() == [
        "podwhy: warning: the snapshot holds no RuntimeClasses, so it cannot",
        "  tell whether the cluster has none: add them with --from a dump, or",
        "  pass --complete if the files hold every object of the cluster:",
        f"  {COMMAND}; or take the",
        "  whole cluster: `podwhy snapshot -o cluster.json.gz`",
        "podwhy: warning: scores not evaluated (the snapshot lacks kinds they",
        "  read), counted as 0: NodeAffinity, NodeResourcesBalancedAllocation,",
        "  NodeResourcesFit, TaintToleration",
    ]
    # Narrower than the command: it stands whole on a line of its own.
    monkeypatch.setattr("podwhy.cli.output.stderr_width", lambda: 40)
    _, _, err = _warnings(tmp_path)
    assert f"\n  {COMMAND};\n" in err and all(len(line) <= 40 for line in err.splitlines() if "`" not in line)


def test_errors_wrap_on_a_terminal_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("podwhy.cli.output.stderr_width", lambda: 60)
    code, _, err = run("x", "--from", "-", input="")
    assert code == 3
    assert err == (
        "podwhy: error: the snapshot holds no nodes and no pods\n"
        "  (<stdin>) (dump the cluster with\n"
        "  `podwhy snapshot -o cluster.json.gz`; to dump it with\n"
        '  kubectl, see "Which snapshot to take" in podwhy\'s README)\n'
    )


@pytest.mark.parametrize("width", [20, 33, 50, 80])
def test_wrapping_loses_no_word_and_splits_none(width: int) -> None:
    from podwhy.report.render.stderr import INDENT, wrapped

    line = (
        "podwhy: warning: the snapshot holds no PersistentVolumeClaims: add them with `kubectl get pvc -A -o yaml`"
        " (or `podwhy snapshot -o x.json`), or pass --complete; a_very_long_word_that_is_wider_than_twenty"
    )
    lines = wrapped(line, width)
    assert " ".join(part.removeprefix(INDENT) for part in lines) == line
    assert all(part.startswith(INDENT) and not part.startswith(INDENT + " ") for part in lines[1:])
    for part in lines:  # a line wider than the width is one word (a command, or a word that long)
        body = part.removeprefix(INDENT) if part is not lines[0] else part
        assert len(part) <= width or " " not in re.sub(r"`[^`]*`", "x", body)
    assert any("`kubectl get pvc -A -o yaml`" in part for part in lines)
    assert wrapped("short", width) == ["short"]


def test_the_terminal_width_is_stderrs_and_none_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import sys

    from podwhy.cli import say, stderr_width

    assert stderr_width() is None  # pytest's capture: not a terminal
    if not hasattr(os, "openpty"):
        pytest.skip("no pseudo-terminals here")
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=True) as tty:
            monkeypatch.setattr(sys, "stderr", tty)
            monkeypatch.setenv("COLUMNS", "30")
            assert stderr_width() == 30
            say("podwhy: warning: one two three four five six")
            tty.flush()
        received = b""
        while True:  # one read may return part of what was written: read until the closed end (EIO)
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            received += chunk
        shown = received.decode().replace("\r\n", "\n")
    finally:
        os.close(master)
    assert shown == "podwhy: warning: one two three\n  four five six\n"


@pytest.mark.parametrize("output", ["table", "json"])
def test_an_answer_over_a_changed_shared_empty_is_not_written(output: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pod's empty lists are one shared list (podwhy/model/shared.py): were podwhy to add to it
    in place, every pod would change, and the answer is refused, never written (exit 3)."""
    from podwhy import engine
    from podwhy.model import shared

    explain = engine.explain

    def changing(request: engine.ExplainRequest) -> object:
        report = explain(request)
        shared.EMPTY_LIST.append("changed")
        return report

    monkeypatch.setattr(engine, "explain", changing)
    try:
        code, out, err = run(POD, "--from", str(EXAMPLE), "--complete", "-o", output)
    finally:
        shared.EMPTY_LIST.clear()
    assert (code, out) == (3, "")
    assert "podwhy changed a value its snapshot's objects share" in err
