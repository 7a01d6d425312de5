"""What the human output says first, and how it reads at any width (issue 15).

`explain` says first what `pending` says keeps the pod Pending (one classifier for both); the
scheduler's differing word is one line (its words and the usual causes behind -v and in the
JSON); below NARROW_WIDTH columns the tables turn into lists; no line is wider than the
terminal but a command to paste, and no name is ever split across lines.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from podwhy.cli import app
from tests.builders import make_node, make_pod
from tests.cluster.test_check import ANTI_AFFINITY, CLUSTER, container, deployment, stream
from tests.paths import REPO, TESTS

# Every output here is produced with the clock years ahead, in a time zone far from UTC
# (tests/cli/test_clock.py): none of it may depend on either.
pytestmark = pytest.mark.usefixtures("moved_clock")

FIXTURES = REPO / "fixtures" / "pending"
CAUSES = FIXTURES / "causes"
SCHEDULER_DOWN = FIXTURES / "scheduler-down"
SCORED = TESTS / "scenarios" / "scored" / "cluster.yaml"
WIDTHS = ("80", "100", "200", None)  # None: piped, no COLUMNS (120)
PIPE_WIDTH = 120


def run(*args: str, columns: str | None = "200", stdin: bytes | None = None) -> tuple[int, str, str]:
    # The fixtures are whole clusters: read them as complete (docs/complete.md).
    complete = ["--complete"] if "--from" in args else []
    result = CliRunner().invoke(app, [*args, *complete], env={"COLUMNS": columns, "NO_COLOR": "1"}, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def pending_json(source: Path) -> dict[str, Any]:
    _, out, _ = run("pending", "-A", "--from", str(source), "-o", "json")
    doc: dict[str, Any] = json.loads(out)
    return doc


# ------------------------------------------------------------------ the first lines are the answer


@pytest.mark.parametrize(
    ("source", "pod", "verdict", "first"),
    [
        (
            CAUSES,
            "shop/web-7c9d8b6f5-q9w5c",
            "AlreadyBound",
            "— bound, not running: cannot pull image ghcr.io/acme/shop-web:2.5.0 (ErrImagePull, ImagePullBackOff)",
        ),
        (
            CAUSES,
            "shop/api-6b7f9c4d8-x2kpl",
            "AlreadyBound",
            "— bound, not running: CreateContainerConfigError: couldn't find key LOG_LEVEL in ConfigMap "
            "shop/api-config",
        ),
        (
            CAUSES,
            "monitoring/node-exporter-z4p8x",
            "AlreadyBound",
            "— bound to node worker-3, which is NotReady",
        ),
        (
            CAUSES,
            "batch/cleanup-29541630-q8z7n",
            "AlreadyBound",
            "— bound to node worker-5, which no longer exists",
        ),
        (
            CAUSES,
            "batch/critical-etl-7hx2k",
            "Unschedulable",
            "— nominated to node worker-2, waiting for 2 victim(s) to terminate; it fits there once they are gone",
        ),
        (
            CAUSES,
            "ml/feature-backfill-zx8q2",
            "Unschedulable",
            "— nominated to node worker-1, where it no longer fits (stale nomination)",
        ),
        (
            CAUSES,
            "batch/critical-etl-p9m4d",
            "Unschedulable",
            "— nominated to node worker-5, which no longer exists (stale nomination)",
        ),
        (
            CAUSES,
            "ml/train-resnet-4mz8d",
            "Gated",
            "Scheduling gates [example.com/gpu-quota] keep kube-scheduler from trying this pod "
            "(gated since 2026-03-04T10:22:15Z). Once they are removed:",
        ),
        (CAUSES, "ml/vc-train-worker-0", "NoProfile", "— no running scheduler serves 'volcano':"),
        (CAUSES, "shop/search-7d8f9c6b5-hw7kq", "Unschedulable", "0/4 nodes are available: 2 Insufficient cpu"),
        (
            SCHEDULER_DOWN,
            "shop/web-5b8c9d7f6-d4fzq",
            "Schedulable",
            "— no running scheduler serves 'default-scheduler': kube-system/kube-scheduler-cp1 is CrashLoopBackOff",
        ),
    ],
)
def test_explain_says_first_what_pending_says(source: Path, pod: str, verdict: str, first: str) -> None:
    """The first line says the verdict and, when `pending` classifies the pod otherwise, its fate
    ("— nominated to node ..."); the release emulated is on the line after it (issue 34: the
    verdict never wraps behind it), and the next one says what keeps it Pending."""
    code, out, _ = run("explain", pod, "--from", str(source))
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("priority "))
    headline = " ".join(" ".join(lines[:at]).split())
    assert lines[at].split(" · ")[1].startswith("kube-scheduler v")
    if first.startswith("— "):
        assert headline.startswith(f"Pod {pod} · {verdict} {first}")
    else:
        assert (at, headline) == (1, f"Pod {pod} · {verdict}")
        assert lines[at + 1].startswith(first)
    assert code == (0 if verdict == "Schedulable" else 1)


@pytest.mark.parametrize("source", [CAUSES, SCHEDULER_DOWN], ids=["causes", "scheduler-down"])
def test_explain_and_pending_classify_every_pod_alike(source: Path) -> None:
    """One code path: explain's `pending` is the group `pending` puts the pod in."""
    report = pending_json(source)
    assert report["total"] > 0
    for group in report["groups"]:
        for pod in group["pods"]:
            _, out, _ = run("explain", pod, "--from", str(source), "-o", "json")
            said = json.loads(out)["pending"]
            assert (said["verdict"], said["cause"], said["owner"]) == (group["verdict"], group["cause"], group["owner"])
            assert set(said["details"]) <= set(group["details"])


SAMPLE_DUMP = REPO / "fixtures" / "samples" / "cluster-info-dump"
LEDGER = "prod/ledger-fg8cf9ffd9-rwzqg"
PREEMPTS = "will preempt 9 pods on ip-10-40-0-35.ec2.internal"


def test_pending_and_explain_agree_on_a_pod_preemption_places() -> None:
    """Issue 34, item 2: prod/ledger of the cluster-info dump is placed by preemption. pending says
    "will preempt 9 pods (list)" as explain's first line does, neither suggests a node or a manual
    eviction, and the summary's next step is to do nothing."""
    # A cluster-info dump lacks kinds: read it as it is (not --complete).
    result = CliRunner().invoke(app, ["pending", "-A", "--from", str(SAMPLE_DUMP), "-o", "json"])
    report = json.loads(result.stdout)
    (group,) = [g for g in report["groups"] if LEDGER in g["pods"]]
    assert group["cause"].startswith(PREEMPTS + " (prod/search-api-g6dgd58e5g-5lq5l, ")
    assert (group["suggestions"], group["sizing"]) == ([], None)
    (cause,) = [c for c in report["summary"] if c["cause"] == group["cause"]]
    assert cause["remedy"] == "no action needed: the scheduler preempts 9 pods on ip-10-40-0-35.ec2.internal"
    # Its two replicas that fit on the nodes they are nominated to are one group (one cause), the
    # nodes in its details.
    (nominated,) = [g for g in report["groups"] if g["owner"] == "prod/ledger (Deployment)" and g is not group]
    assert (nominated["verdict"], nominated["count"]) == ("Nominated", 2)
    assert nominated["details"] == [
        "nominated to node ip-10-40-0-15.ec2.internal",
        "nominated to node ip-10-40-0-27.ec2.internal",
    ]
    assert cause["nodes"] is None and cause["commands"] == []
    explained = CliRunner().invoke(app, ["explain", LEDGER, "--from", str(SAMPLE_DUMP)], env={"COLUMNS": "200"})
    assert explained.stdout.splitlines()[0].endswith(f"Unschedulable — {PREEMPTS}")
    doc = json.loads(CliRunner().invoke(app, ["explain", LEDGER, "--from", str(SAMPLE_DUMP), "-o", "json"]).stdout)
    assert doc["pending"]["cause"] == group["cause"]
    kinds = [s["kind"] for s in doc["suggestions"]]
    assert kinds[0] == "awaitPreemption" and not {"addNode", "addNodesForGroup", "evictPods"} & set(kinds), kinds
    # One line per victim, no chained eviction command.
    first = doc["suggestions"][0]
    assert first["command"] == "" and len(first["summary"].splitlines()) == 1 + 9


@pytest.mark.parametrize("columns", ["80", "120", None])
@pytest.mark.parametrize("wide", [False, True], ids=["table", "wide"])
def test_pending_lines_hang_align_and_end_without_blanks(columns: str | None, wide: bool) -> None:
    """Issue 34, item 8: a bullet's wrapped lines hang under its text; causes numbered 10 and on
    start their lines in the column the others do; no line ends with a blank, piped or not."""
    code, out, _ = run("pending", "-A", "--from", str(CAUSES), *(["-o", "wide"] if wide else []), columns=columns)
    assert code == 1
    lines = out.splitlines()
    assert [line for line in lines if line != line.rstrip()] == []
    start, end = (
        lines.index("By cause:"),
        next(i for i, line in enumerate(lines) if line in ("Groups:",) or "┏" in line),
    )
    summary = lines[start + 1 : end]
    numbered = [line for line in summary if re.match(r"^ ?\d+\. ", line)]
    assert len(numbered) == 18 and {line.index(". ") for line in numbered} == {2}
    # Every other line of the summary starts in the text's column (4), or hangs 2 further under a bullet.
    previous = ""
    for line in summary:
        if line in numbered:
            previous = line
            continue
        indent = len(line) - len(line.lstrip())
        if line.lstrip()[:2] in ("· ", "→ ", "⇒ "):
            assert indent == 4, line
        elif previous.lstrip()[:2] in ("· ", "→ ", "⇒ ") and indent != 4:
            assert indent == 6, line  # a wrapped bullet, or a command under its step
        else:
            assert indent in (4, 6), line
        if indent == 4:
            previous = line


@pytest.mark.parametrize("columns", ["80", "120"])
def test_a_pod_preemption_places_at_80_and_120_columns(columns: str, snapshot: SnapshotAssertion) -> None:
    """Issue 34, items 2 and 3, as read: pending over the cluster-info dump (prod/ledger: will
    preempt 9 pods, no node, no eviction), and explain's first lines and suggestions for it (no
    action needed, one line per victim; no node, no chained evictions)."""
    env = {"COLUMNS": columns, "NO_COLOR": "1"}
    listed = CliRunner().invoke(app, ["pending", "-A", "--from", str(SAMPLE_DUMP)], env=env)
    explained = CliRunner().invoke(app, ["explain", LEDGER, "--from", str(SAMPLE_DUMP)], env=env)
    lines = explained.stdout.splitlines()
    suggestions = lines[next(i for i, line in enumerate(lines) if line.startswith("Suggestions")) :]
    assert not any("Eviction" in line or "shaped like" in line for line in suggestions), suggestions
    assert (listed.exit_code, listed.stdout, explained.exit_code, lines[:2], suggestions) == snapshot


def test_one_owner_with_one_cause_is_one_group() -> None:
    """ErrImagePull and ImagePullBackOff of one image are one cause: shop/web's two pods are one
    group (they were causes 9 and 12)."""
    report = pending_json(CAUSES)
    web = [g for g in report["groups"] if g["owner"] == "shop/web (Deployment)"]
    assert len(web) == 1 and web[0]["count"] == 2
    assert web[0]["cause"] == (
        "bound, not running: cannot pull image ghcr.io/acme/shop-web:2.5.0 (ErrImagePull, ImagePullBackOff)"
    )
    # The details keep each container's own reason.
    assert any("ErrImagePull: rpc error" in d for d in web[0]["details"])
    assert any("ImagePullBackOff: Back-off pulling" in d for d in web[0]["details"])
    owners = [(g["owner"], g["cause"]) for g in report["groups"] if g["owner"]]
    assert len(owners) == len(set(owners))


def test_a_pod_given_with_f_is_not_classified(tmp_path: Path) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: new}\nspec: {containers: [{name: c, image: x}]}\n")
    _, out, _ = run("explain", "-f", str(manifest), "--from", str(CAUSES), "-o", "json")
    assert json.loads(out)["pending"] is None


def _dump(tmp_path: Path, *items: tuple[str, dict[str, Any]]) -> Path:
    path = tmp_path / "cluster.json"
    objects = [{"apiVersion": "v1", "kind": kind, **raw} for kind, raw in items]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return path


def _reserved_cluster(tmp_path: Path) -> Path:
    """n1 and n2 have room for the pod but for big-nominee's reservation on n1; n3 is full."""
    nodes = [make_node(n).alloc(cpu="4", memory="8Gi", pods="110") for n in ("n1", "n2")]
    full = make_pod("filler", "batch").req(cpu="3").node("n2").phase("Running")
    nominee = make_pod("big-nominee", "batch").req(cpu="3").priority(100).nominated("n1").phase("Pending")
    pod = make_pod("web", "shop").req(cpu="2").phase("Pending")
    return _dump(
        tmp_path,
        *[("Node", n.raw) for n in nodes],
        ("Pod", full.container().raw),
        ("Pod", nominee.container().raw),
        ("Pod", pod.container().raw),
    )


def test_room_reserved_by_nominated_pods_comes_first(tmp_path: Path) -> None:
    cluster = _reserved_cluster(tmp_path)
    cause = "fits on 1 node (n1) once the room reserved by batch/big-nominee is released"
    code, out, _ = run("explain", "shop/web", "--from", str(cluster))
    assert code == 1
    assert out.splitlines()[2] == cause
    assert "nominated pod batch/big-nominee (priority 100) reserves that room" in out.splitlines()[3]
    report = pending_json(cluster)
    group = next(g for g in report["groups"] if g["pods"] == ["shop/web"])
    assert (group["verdict"], group["cause"]) == ("Unschedulable", cause)
    _, out, _ = run("explain", "shop/web", "--from", str(cluster), "-o", "json")
    assert json.loads(out)["pending"]["cause"] == cause


# ------------------------------------------------------------------ the scheduler's own word


def _disagreeing(tmp_path: Path) -> Path:
    node = make_node("n1").alloc(cpu="1", memory="1Gi")
    condition = {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "0/1 nodes are available: 1 node(s) had untolerated taint(s).",
    }
    pod = make_pod("p").req(cpu="2").phase("Pending").status(conditions=[condition])
    return _dump(tmp_path, ("Node", node.raw), ("Pod", pod.container().raw))


def test_a_differing_scheduler_message_is_one_line_and_the_causes_need_v(tmp_path: Path) -> None:
    cluster = _disagreeing(tmp_path)
    _, out, _ = run("explain", "p", "--from", str(cluster))
    said = [line for line in out.splitlines() if "kube-scheduler's own last message differs" in line]
    assert said == ["kube-scheduler's own last message differs from podwhy's (-v shows it and the usual causes)."]
    assert "untolerated" not in out and "Usual causes" not in out
    _, out, _ = run("explain", "p", "--from", str(cluster), "-v")
    assert "  PodScheduled condition: 0/1 nodes are available: 1 node(s) had untolerated taint(s)." in out
    assert "Usual causes:" in out and "  · a scheduler extender rejected nodes" in out
    _, out, _ = run("explain", "p", "--from", str(cluster), "-o", "json")
    word = json.loads(out)["scheduler"]
    assert word["agrees"] is False and len(word["causes"]) == 4


# ------------------------------------------------------------------ readable in any terminal

# A line holding a command to paste may be as long as the command.
COMMAND = re.compile(r"^\s*(kubectl |echo |# |⇒? ?kubectl )")
BOX = "│┃║"


def _check_manifests(tmp_path: Path) -> Path:
    path = tmp_path / "manifests.yaml"
    path.write_bytes(
        stream(
            deployment("web", 5, {"affinity": ANTI_AFFINITY, "containers": [container()]}),
            deployment("api", 2, {"containers": [container()]}),
            deployment("big-batch-worker-with-a-long-name", 6, {"containers": [container("1500m")]}),
        )
    )
    return path


def _names(*sources: Path) -> set[str]:
    """Every pod, owner and node name the fixtures hold: none may be split across lines."""
    names: set[str] = set()
    for source in sources:
        for group in pending_json(source)["groups"]:
            names.update(group["pods"])
            names.update(p.partition("/")[2] for p in group["pods"])
            if group["owner"]:
                names.add(group["owner"].partition(" ")[0])
    names.update({"worker-1", "worker-2", "worker-3", "worker-5", "cp1"})
    names.add("volcano-system/volcano-scheduler-6c8f7b9d4-k2mzx")
    names.update({n.partition("/")[0] for n in names if "/" in n} | {n.partition("/")[2] for n in names if "/" in n})
    return names


def assert_readable(out: str, width: int, names: set[str]) -> None:
    # What a split leaves on a line: the start of a name, cut after a "-", "/" or "." of it at least.
    prefixes = {name[:i] for name in names for i in range(6, len(name)) if re.search(r"[-/.]", name[:i])} - names
    for line in out.splitlines():
        if not COMMAND.match(line.strip(" " + BOX)):
            assert len(line) <= width, f"{len(line)} > {width}: {line!r}"
        for token in re.split(r"[\s" + BOX + r"]+", line):
            word = token.strip("\"'(),;:[]…·⇒")
            assert word not in prefixes, f"a name is split: {word!r} in {line!r}"


def _outputs(tmp_path: Path, columns: str | None) -> list[str]:
    manifests = _check_manifests(tmp_path)
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    runs = [
        ("pending", "-A", "--from", str(CAUSES)),
        ("pending", "-A", "--from", str(SCHEDULER_DOWN)),
        ("explain", "shop/search-indexer-5c7d9f8b6-m3jv8", "--from", str(CAUSES)),
        ("explain", "ml/feature-backfill-zx8q2", "--from", str(CAUSES)),
        ("explain", "ml/feature-backfill-zx8q2", "--from", str(CAUSES), "--node", "worker-1"),
        ("explain", "batch/critical-etl-7hx2k", "--from", str(CAUSES), "-o", "wide"),
        ("explain", "ml/vc-train-worker-0", "--from", str(CAUSES)),
        ("explain", "web", "--from", str(SCORED)),
        ("explain", "web", "--from", str(SCORED), "--node", "b"),
        ("check", "-f", str(manifests), "--from", str(cluster)),
        ("check", "-f", str(manifests), "--from", str(cluster), "-o", "wide"),
    ]
    return [run(*args, columns=columns)[1] for args in runs]


@pytest.mark.parametrize("columns", WIDTHS, ids=["80", "100", "200", "piped"])
def test_no_line_too_wide_and_no_name_split(columns: str | None, tmp_path: Path) -> None:
    names = _names(CAUSES, SCHEDULER_DOWN) | {
        "default/big-batch-worker-with-a-long-name",
        "big-batch-worker-with-a-long-name",
    }
    width = int(columns) if columns else PIPE_WIDTH
    outputs = _outputs(tmp_path, columns)
    for out in outputs:
        assert out
        assert_readable(out, width, names)
    check_out = outputs[-2]
    # Generated replica names are split nowhere either.
    replicas = set(re.findall(r"big-batch-worker-with-a-long-name-[a-z0-9]+-[a-z0-9]{5}", check_out))
    assert replicas
    assert_readable(check_out, width, names | replicas)


def test_narrow_means_lists_wide_means_tables() -> None:
    for columns, table in (("80", False), ("99", False), ("100", True), ("200", True)):
        _, out, _ = run("explain", "ml/feature-backfill-zx8q2", "--from", str(CAUSES), columns=columns)
        assert ("┏" in out) is table
        assert ("2 nodes: worker-1, worker-2" in out) is not table
        _, out, _ = run("pending", "-A", "--from", str(CAUSES), columns=columns)
        # At 100 columns the longest words of this dump do not fit beside its pod names: a list.
        assert ("┏" in out) is (columns == "200")


def test_the_narrow_list_of_explain(snapshot: SnapshotAssertion) -> None:
    outputs = [
        run("explain", pod, "--from", str(CAUSES), columns="80")[1]
        for pod in ("ml/feature-backfill-zx8q2", "shop/web-7c9d8b6f5-q9w5c", "batch/critical-etl-7hx2k")
    ]
    outputs.append(
        run("explain", "ml/feature-backfill-zx8q2", "--from", str(CAUSES), "--node", "worker-1", columns="80")[1]
    )
    outputs.append(run("explain", "web", "--from", str(SCORED), columns="80")[1])
    outputs.append(run("explain", "web", "--from", str(SCORED), "--node", "b", columns="80")[1])
    assert outputs == snapshot


def test_the_narrow_list_of_pending(snapshot: SnapshotAssertion) -> None:
    assert run("pending", "-A", "--from", str(SCHEDULER_DOWN), columns="80")[1] == snapshot


@pytest.mark.parametrize("columns", ["80", "200"])
def test_check_says_the_summary_first(columns: str, tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    manifests = _check_manifests(tmp_path)
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    code, out, _ = run("check", "-f", str(manifests), "--from", str(cluster), columns=columns)
    assert code == 1
    assert out.splitlines()[0] == "8/13 replicas placed; 5 stay Pending in 2 workloads"
    # Identical Pending replicas: one row with a count; a fully placed workload: one line.
    assert out.count("web-") <= 4
    if columns == "80":
        assert "default/api (Deployment): 2/2 placed on n1, n2" in out.splitlines()
        assert "  3 Pending: " in out
    assert out == snapshot


def test_check_when_everything_fits(tmp_path: Path) -> None:
    manifests = tmp_path / "m.yaml"
    manifests.write_bytes(stream(deployment("api", 2, {"containers": [container()]})))
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    code, out, _ = run("check", "-f", str(manifests), "--from", str(cluster), columns="80")
    assert code == 0
    assert out.splitlines()[:2] == [
        "2/2 replicas placed in 1 workload: everything fits",
        "default/api (Deployment): 2/2 placed on n1, n2",
    ]


EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"


def test_verbose_explain_gives_the_expert_the_arithmetic_and_the_plugin_names() -> None:
    """-v (issue 34, item 9): under a resource cause, the closest node's arithmetic and the pods
    that hold its room; the table's columns named by plugin."""
    code, out, _ = run("explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(EXAMPLE), "-v")
    assert code == 1
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  · needs cpu 2;"))
    below = " ".join(line.strip() for line in lines[at + 1 :] if line.startswith("    "))
    assert below.startswith(
        "worker-a1: cpu: this pod 2000m + already requested 2600m vs allocatable 4000m; held most by"
        " shop/catalog-6b7f9c5d4-az0 (1500m), shop/catalog-6b7f9c5d4-bz1 (1),"
        " kube-system/coredns-5d78c9869d-x2x4k (100m)"
    )
    assert "┃ Nodes                  ┃ NodeUnschedulable ┃ NodeName ┃ TaintToleration ┃ NodeResourcesFit ┃" in out
    _, quiet, _ = run("explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(EXAMPLE))
    assert "held most by" not in quiet and "NodeResourcesFit" not in quiet


def test_verbose_says_why_pods_of_some_namespaces_are_not_vouched_for(tmp_path: Path) -> None:
    """A dump of one namespace's pods is not "cannot vouch for Pod": -v says what it holds."""
    dump = tmp_path / "pods.yaml"
    dump.write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', pods: '110'}}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default},"
        " spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '8'}}}]}, status: {phase: Pending}}\n"
    )
    result = CliRunner().invoke(app, ["explain", "default/web", "--from", str(dump), "-v"], env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert "cannot vouch for: " in result.stderr and ", Pod," not in result.stderr
    assert "its 1 pods look like some namespaces' only (none of kube-system" in result.stderr


def _on_a_terminal(*args: str, columns: int) -> str:
    """What podwhy prints when its stdout is a terminal COLUMNS wide (a pseudo-terminal)."""
    master, slave = os.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "xterm"}
    with subprocess.Popen(
        [sys.executable, "-c", "from podwhy.cli import app; app()", *args],
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=env,
    ) as process:
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed with the process (EIO)
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(master)
    styled = b"".join(chunks).decode().replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;]*m", "", styled)  # bold and dim: NO_COLOR leaves them


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
@pytest.mark.parametrize("columns", [80, 120])
def test_on_a_terminal_the_first_line_is_the_verdict_and_no_line_ends_in_a_blank(columns: int) -> None:
    """Issue 34, items 5 and 8: in a terminal, the verdict on line 1 (the release on line 2), no
    trailing blanks, and every command whole on a line of its own."""
    out = _on_a_terminal("explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(EXAMPLE), columns=columns)
    lines = out.splitlines()
    assert lines[:2] == [
        "Pod shop/checkout-7c9d8b6f5-m4x2q · Unschedulable",
        "priority 0 · kube-scheduler v1.35 (default)",
    ]
    assert [line for line in lines if line != line.rstrip()] == []
    assert "    kubectl get configmap -n kube-system cluster-autoscaler-status -o yaml" in lines
    assert all(len(line) <= columns for line in lines if "kubectl" not in line and "#" not in line)


def test_a_command_inside_styled_words_is_said_whole_and_the_style_spans_it() -> None:
    """The fuzz run found a command inside a styled line: cutting the markup at the command
    broke its closing tag (an internal error). The markup is read first."""
    import io

    from rich.console import Console

    from podwhy.report.render.layout import say as _say

    out = io.StringIO()
    console = Console(file=out, width=40, no_color=True, highlight=False)
    _say(console, "[yellow]Inconclusive: add them: `kubectl get pods -A -o yaml`; or not[/yellow]", 0)
    assert out.getvalue().splitlines() == ["Inconclusive: add them:", "  kubectl get pods -A -o yaml", "or not"]
