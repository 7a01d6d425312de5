"""Verified suggestions: per kind with builders, and the proof over every golden case that each
suggestion's patches, applied to the recorded cluster, make podwhy's verdict Schedulable."""

from __future__ import annotations

import copy
import gzip
import json
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from podwhy.analysis.keymeanings import condition_taint, reserving_taint, well_known_label
from podwhy.analysis.suggest import MAX_SUGGESTIONS, Suggestion, suggest, template_owner
from podwhy.analysis.suggest.notes import Note
from podwhy.cluster.nodecopy import added_node_pods, with_copies
from podwhy.engine import ExplainRequest, explain
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.report.model import Report, to_builtins
from podwhy.report.model import Suggestion as ReportSuggestion
from podwhy.report.words.sizing import sizing_text
from podwhy.report.words.suggest import command_text, note_text, suggestion_text
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from podwhy.verdict import Verdict
from tests.builders import make_node, make_pod, make_snapshot
from tests.conformance import case_dirs, cluster_file

Json = dict[str, Any]


def merge_patch(target: Any, patch: Any, merge_keys: Mapping[str, str] | None = None) -> Any:
    """RFC 7386: objects merge member by member, null removes a member, anything else replaces.
    MERGE_KEYS (a strategic merge patch): the lists of those members merge their entries by that
    key instead of being replaced."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    keys = merge_keys or {}
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, list) and key in keys and isinstance(out.get(key), list):
            merged = [copy.deepcopy(item) for item in out[key]]
            for item in value:
                at = next((i for i, old in enumerate(merged) if old.get(keys[key]) == item[keys[key]]), None)
                if at is None:
                    merged.append(copy.deepcopy(item))
                else:
                    merged[at] = merge_patch(merged[at], item, keys)
            out[key] = merged
        else:
            out[key] = merge_patch(out.get(key), value, keys)
    return out


@pytest.mark.parametrize(
    ("target", "patch", "expected"),
    [
        ({"a": "b"}, {"a": "c"}, {"a": "c"}),
        ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
        ({"a": "b"}, {"a": None}, {}),
        ({"a": ["b"]}, {"a": ["c", "d"]}, {"a": ["c", "d"]}),
        ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
        ({"a": "b"}, None, None),
        ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ],
)
def test_merge_patch_follows_rfc_7386(target: Any, patch: Any, expected: Any) -> None:
    assert merge_patch(target, patch) == expected


def apply_patches(objects: list[Json], patches: list[Json], snapshot: Snapshot | None = None) -> list[Json]:
    """The objects with every patch applied; an object patched to null is gone. An added Node comes
    with the pods its DaemonSets' controllers and its kubelet create there, as podwhy counts them
    (added_node_pods; `snapshot` holds the objects)."""
    out = copy.deepcopy(objects)
    for p in patches:
        if "object" in p:
            out.append(copy.deepcopy(p["object"]))
            if p["kind"] == "Node":
                assert snapshot is not None, "an added Node needs the snapshot its pods come from"
                node = msgspec.convert(p["object"], o.Node)
                out += [_pod_object(pod) for pod in added_node_pods(snapshot, node)]
            continue
        matches = [
            i
            for i, obj in enumerate(out)
            if obj.get("kind") == p["kind"]
            and obj["metadata"]["name"] == p["name"]
            and obj["metadata"].get("namespace", "") == p.get("namespace", "")
        ]
        assert len(matches) == 1, f"{p['kind']} {p.get('namespace')}/{p['name']} is not one object of the snapshot"
        patched = merge_patch(out[matches[0]], p["patch"])
        if patched is None:
            del out[matches[0]]
        else:
            out[matches[0]] = patched
    return out


def _pod_object(pod: o.Pod) -> Json:
    return {"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(pod)}


def _verify_by_reloading(
    objects: list[Json], patches: list[Json], pod_ref: str, tmp: Path, snapshot: Snapshot | None = None
) -> Report:
    path = tmp / "patched.json"
    items = apply_patches(objects, patches, snapshot)
    path.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": items}))
    # Golden clusters hold pods no API server would store (their recordings had none): not refused.
    source = FileSource([str(path)], complete=True)
    return explain(ExplainRequest(pod_ref=pod_ref, namespace="default", source=source))


# ---------------------------------------------------------------- per kind, with builders


def _suggestions(snapshot: Snapshot, pod: o.Pod) -> list[Suggestion]:
    cycle = run_cycle(snapshot, pod)
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    return suggest(snapshot, cycle, default_profile())


def _snap(nodes: list[o.Node], pods: tuple[o.Pod, ...] | list[o.Pod] = ()) -> Snapshot:
    return make_snapshot(*nodes, *pods)


def _node(name: str, cpu: str = "4") -> o.Node:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods=110).obj()


def _zone_node(name: str, zone: str, cpu: str = "4") -> o.Node:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods=110).labels(zone=zone).obj()


CASES: list[tuple[str, Any]] = [
    # The request is lowered to what the roomiest node has left: 4 - 3 = 1 CPU.
    (
        "lowerRequest",
        lambda: (
            _snap(
                nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()],
                pods=[make_pod("busy").node("n1").req(cpu="3").obj()],
            ),
            make_pod("p").req(cpu="2", memory="1Gi").obj(),
            {"nodes": ["n1"], "summary": "to 1000m"},
        ),
    ),
    (
        "addToleration",
        lambda: (
            _snap(nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).taint("dedicated", "db").obj()]),
            make_pod("p").req(cpu="1").obj(),
            {"nodes": ["n1"], "summary": "dedicated=db:NoSchedule"},
        ),
    ),
    (
        "labelNode",
        lambda: (
            _snap(
                nodes=[
                    make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).labels(disk="hdd").obj(),
                    make_node("n2").alloc(cpu="4", memory="8Gi", pods=110).obj(),
                ]
            ),
            make_pod("p").req(cpu="1").node_selector(disk="ssd").obj(),
            {"nodes": ["n1"], "summary": "disk=ssd", "command": "kubectl label node n1 disk=ssd --overwrite"},
        ),
    ),
    (
        "labelNode",
        lambda: (
            _snap(nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()]),
            make_pod("p").req(cpu="1").node_affinity_in("pool", "gpu", "tpu").obj(),
            {"nodes": ["n1"], "summary": "pool=gpu"},
        ),
    ),
    # Lowering cannot help (the request exceeds the node), a copy of the node can: it is empty.
    (
        "addNode",
        lambda: (
            _snap(
                nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()],
                pods=[make_pod("busy").node("n1").req(cpu="4").obj()],
            ),
            make_pod("p").req(cpu="4").obj(),
            {"nodes": ["n1-copy"], "summary": "shaped like n1"},
        ),
    ),
    # A pod that may not preempt (preemptionPolicy Never): evicting the dry run's victims is offered.
    (
        "evictPods",
        lambda: (
            _snap(
                nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()],
                pods=[make_pod("low").node("n1").priority(0).req(cpu="4").obj()],
            ),
            make_pod("p").priority(100).preemption_policy("Never").req(cpu="4").obj(),
            {
                "nodes": ["n1"],
                "summary": "default/low: a bare pod, nothing recreates it: gone for good",
                "command": """echo '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"low","""
                """"namespace":"default"}}' | kubectl create --raw /api/v1/namespaces/default/pods/low/eviction -f -"""
                "  # the Eviction API, which refuses what a PodDisruptionBudget forbids (kubectl delete pod would not)",
            },
        ),
    ),
    (
        "relaxTopologySpread",
        lambda: (
            _snap(
                nodes=[_zone_node("a1", "a"), _zone_node("b1", "b", cpu="1")],
                pods=[make_pod("w0").node("a1").labels(app="w").req(cpu="1").obj()],
            ),
            make_pod("p").labels(app="w").req(cpu="2").spread(1, "zone", selector={"matchLabels": {"app": "w"}}).obj(),
            {"nodes": ["a1"], "summary": "maxSkew to 2"},
        ),
    ),
    (
        "dropAntiAffinity",
        lambda: (
            _snap(
                nodes=[_zone_node("a1", "a")],
                pods=[make_pod("w0").node("a1").labels(app="w").obj()],
            ),
            make_pod("p")
            .labels(app="w")
            .req(cpu="1")
            .affinity(
                {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {"labelSelector": {"matchLabels": {"app": "w"}}, "topologyKey": "zone"}
                        ]
                    }
                }
            )
            .obj(),
            {"nodes": ["a1"], "summary": "anti-affinity term #0"},
        ),
    ),
    # A stale nomination: big, nominated to n1, no longer fits there (busy took the room), yet it
    # reserves 3 CPUs against every pod of its priority or lower. Releasing it is offered first.
    (
        "releaseNomination",
        lambda: (
            _snap(
                nodes=[_node("n1", cpu="4"), _node("n2", cpu="1")],
                pods=[
                    make_pod("busy").node("n1").req(cpu="2").obj(),
                    make_pod("big").priority(100).req(cpu="3").nominated("n1").obj(),
                ],
            ),
            make_pod("p").priority(100).req(cpu="2").obj(),
            {
                "nodes": ["n1"],
                "summary": "release the stale nomination of default/big (priority 100) to node n1, the likely root",
                "patched": ["big"],
                "first": True,
                "command": "kubectl patch pod big -n default --subresource=status --type merge "
                """-p '{"status":{"nominatedNodeName":null}}'  # kubectl 1.24+; needs patch on pods/status""",
            },
        ),
    ),
    # A valid nomination (big fits n1 and waits to be bound): releasing it is still offered, saying
    # what it costs, after the evictions.
    (
        "releaseNomination",
        lambda: (
            _snap(
                nodes=[_node("n1", cpu="4")],
                pods=[
                    make_pod("busy").node("n1").priority(100).req(cpu="1").obj(),
                    make_pod("big").priority(100).req(cpu="2").nominated("n1").obj(),
                ],
            ),
            make_pod("p").priority(100).req(cpu="2").obj(),
            {"nodes": ["n1"], "summary": "must preempt again", "patched": ["big"], "first": False},
        ),
    ),
    # big waits for the pod it preempted to terminate: not stale, and the summary says so.
    (
        "releaseNomination",
        lambda: (
            _snap(
                nodes=[_node("n1", cpu="4")],
                pods=[
                    make_pod("victim").node("n1").priority(0).req(cpu="2").terminating().obj(),
                    make_pod("big").priority(100).req(cpu="2").nominated("n1").obj(),
                ],
            ),
            make_pod("p").priority(100).req(cpu="2").obj(),
            {"nodes": ["n1"], "summary": "default/big waits for 1 preempted pod(s) to terminate", "patched": ["big"]},
        ),
    ),
    # Two nominations on n1: big's is stale, small's is valid (small fits once big's room is not
    # counted against it, being of higher priority). Releasing big alone is enough.
    (
        "releaseNomination",
        lambda: (
            _snap(
                nodes=[_node("n1", cpu="4")],
                pods=[
                    make_pod("busy").node("n1").req(cpu="2").obj(),
                    make_pod("big").priority(100).req(cpu="3").nominated("n1").obj(),
                    make_pod("small").priority(150).req(cpu="1").nominated("n1").obj(),
                ],
            ),
            make_pod("p").priority(100).req(cpu="1").obj(),
            {"nodes": ["n1"], "summary": "stale nomination of default/big (priority 100)", "patched": ["big"]},
        ),
    ),
]


@pytest.mark.parametrize(("kind", "make"), CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_each_kind_is_found_and_verified(kind: str, make: Any, tmp_path: Path) -> None:
    snapshot, pod, want = make()
    suggestions = _suggestions(snapshot, pod)
    found = [s for s in suggestions if s.kind == kind]
    assert found, [suggestion_text(s) for s in suggestions]
    s = found[0]
    assert s.nodes == want["nodes"]
    assert want["summary"] in suggestion_text(s)
    if "command" in want:
        assert command_text(s.command) == want["command"]
    if "patched" in want:
        assert [p["name"] for p in s.patches] == want["patched"]
    if "first" in want:
        assert (suggestions[0] is s) == want["first"], [x.kind for x in suggestions]
    # The shared snapshot and pod are untouched.
    assert run_cycle(snapshot, pod).verdict == Verdict.UNSCHEDULABLE
    # Its patches, applied to the objects as files hold them, make the pod fit.
    objects = [{"apiVersion": "v1", "kind": "Node", **msgspec.to_builtins(n)} for n in snapshot.nodes]
    objects += [{"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(p)} for p in [*snapshot.pods, pod]]
    report = _verify_by_reloading(objects, s.patches, f"default/{pod.metadata.name}", tmp_path, snapshot)
    assert report.verdict == Verdict.SCHEDULABLE


def test_preemption_that_places_the_pod_needs_no_action() -> None:
    """Issue 34, items 2 and 3: when the scheduler's preemption places the pod, the first
    suggestion says no action is needed and whom it evicts, one line per victim; no node and no
    manual eviction is offered for it."""
    snapshot = _snap(
        nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()],
        pods=[
            make_pod("low-a").node("n1").priority(0).req(cpu="2").obj(),
            make_pod("low-b", "shop").owner("ReplicaSet", "web-5f7c9").node("n1").priority(0).req(cpu="2").obj(),
        ],
    )
    pod = make_pod("p").priority(100).req(cpu="4").obj()
    suggestions = _suggestions(snapshot, pod)
    kinds = [s.kind for s in suggestions]
    assert kinds[0] == "awaitPreemption", kinds
    assert not {"addNode", "addNodesForGroup", "evictPods", "raiseGroupMaxSize"} & set(kinds), kinds
    first = suggestions[0]
    assert (first.nodes, first.patches, command_text(first.command)) == (["n1"], [], "")
    assert suggestion_text(first).splitlines() == [
        "no action needed: the scheduler preempts 2 lower-priority pods on node n1 and binds the pod there; evicted:",
        "· default/low-a: a bare pod, nothing recreates it: gone for good",
        "· shop/low-b: its ReplicaSet shop/web-5f7c9 creates a new pod; no node fits it then: it stays Pending",
    ]


def test_an_eviction_that_leaves_another_workload_pending_is_the_last_resort() -> None:
    """A pod that may not preempt is offered the eviction of the dry run's victims; when a victim's
    replacement would then stay Pending, it is worded "last resort" and ranked after every other
    change, one line per victim."""
    snapshot = _snap(
        nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()],
        pods=[make_pod("api-0", "shop").owner("ReplicaSet", "api-5f7c9").node("n1").priority(0).req(cpu="3").obj()],
    )
    pod = make_pod("p").priority(100).preemption_policy("Never").req(cpu="2").obj()
    suggestions = _suggestions(snapshot, pod)
    kinds = [s.kind for s in suggestions]
    assert "evictPods" in kinds and kinds[-1] == "evictPods", kinds
    assert kinds.index("evictPods") > kinds.index("lowerRequest"), kinds
    text = suggestion_text(suggestions[-1])
    assert text.startswith("last resort (a replacement then stays Pending): evict 1 lower-priority pod(s)"), text
    assert text.splitlines()[1:] == [
        "· shop/api-0: its ReplicaSet shop/api-5f7c9 creates a new pod; no node fits it then: it stays Pending"
    ]


def test_no_suggestion_when_no_change_can_help() -> None:
    # The node is cordoned: no kind here changes spec.unschedulable, so nothing verified is offered.
    snapshot = _snap(nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).unschedulable().obj()])
    assert _suggestions(snapshot, make_pod("p").req(cpu="1").obj()) == []


@pytest.mark.parametrize(
    ("owner_kind", "replica_set_owner", "expected", "command"),
    [
        ("ReplicaSet", "Deployment", ("Deployment", "default", "web"), "kubectl patch deployment web -n default"),
        ("ReplicaSet", None, ("ReplicaSet", "default", "web-abc12"), "kubectl patch replicaset web-abc12 -n default"),
        ("StatefulSet", None, ("StatefulSet", "default", "web-abc12"), "kubectl patch statefulset web-abc12"),
        ("Job", None, ("Job", "default", "web-abc12"), "kubectl get job web-abc12 -n default -o json | "),
        ("Node", None, None, "kubectl get pod p -n default -o json | kubectl patch --local"),
    ],
)
def test_commands_patch_the_owning_workload(
    owner_kind: str, replica_set_owner: str | None, expected: tuple[str, str, str] | None, command: str
) -> None:
    """Which owner a command goes to (tests/analysis/test_commands.py runs each owner kind's command)."""
    rs: Json = {"metadata": {"name": "web-abc12", "namespace": "default"}}
    if replica_set_owner is not None:
        rs["metadata"]["ownerReferences"] = [{"kind": replica_set_owner, "name": "web", "controller": True}]
    snapshot = _snap(nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).taint("k", "v").obj()])
    snapshot.add("ReplicaSet", msgspec.convert(rs, o.ReplicaSet))
    pod = make_pod("p").owner(owner_kind, "web-abc12").req(cpu="1").obj()
    assert template_owner(pod, snapshot) == expected
    suggested = command_text(_suggestions(snapshot, pod)[0].command)
    assert suggested.startswith(command)
    path = "/spec/tolerations" if expected is None else "/spec/template/spec/tolerations"
    assert f'"path":"{path}"' in suggested


def test_suggestions_are_bounded() -> None:
    # Every kind applies; at most MAX_SUGGESTIONS are verified and kept.
    nodes = [make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=110).taint("t", str(i)).obj() for i in range(50)]
    snapshot = _snap(nodes=nodes)
    suggestions = _suggestions(snapshot, make_pod("p").req(cpu="1").obj())
    assert 1 <= len(suggestions) <= MAX_SUGGESTIONS


# ---------------------------------------------------------------- the proof over the golden cases

# The four large gzip-compressed clusters (thousands of objects) take most of the time; the
# default run covers every other case. PODWHY_SUGGEST_ALL=1 includes them.
BIG = {"g0489", "g0492", "g0495", "g0498"}


def _golden_cases() -> list[Path]:
    import os

    every = os.environ.get("PODWHY_SUGGEST_ALL") == "1"
    return [c for c in case_dirs() if every or c.name not in BIG]


def _raw_objects(path: Path) -> list[Json]:
    text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    objects: list[Json] = []
    for doc in yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if isinstance(doc, dict) and doc.get("kind", "").endswith("List"):
            objects.extend(doc.get("items") or [])
        elif isinstance(doc, dict):
            objects.append(doc)
    return objects


def _fields_kept(old: Any, new: Any) -> bool:
    """Every field of OLD is in NEW (values may differ, a list of plain values is a value), recursively."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and _fields_kept(v, new[k]) for k, v in old.items())
    if isinstance(old, list):
        if isinstance(new, list) and not any(isinstance(x, dict | list) for x in old):
            return True
        return isinstance(new, list) and len(old) == len(new) and all(map(_fields_kept, old, new))
    return True


def _dropped_fields(original: Any, patch: Any, where: str = "") -> list[str]:
    """Where a list the patch writes whole loses what the object's own list held: each original
    entry must survive with all its fields (values may change), or be the one entry removed."""
    if isinstance(patch, dict) and isinstance(original, dict):
        return [p for k, v in patch.items() if k in original for p in _dropped_fields(original[k], v, f"{where}/{k}")]
    if not isinstance(patch, list) or not isinstance(original, list):
        return []
    if len(patch) == len(original) - 1:
        removed_one = any(patch == original[:i] + original[i + 1 :] for i in range(len(original)))
        return [] if removed_one else [where]
    if len(patch) < len(original):
        return [where]
    return [f"{where}/{i}" for i, old in enumerate(original) if not _fields_kept(old, patch[i])]


def _object(objects: list[Json], ref: Json) -> Json | None:
    return next(
        (
            obj
            for obj in objects
            if obj.get("kind") == ref["kind"]
            and obj["metadata"]["name"] == ref["name"]
            and obj["metadata"].get("namespace", "") == ref.get("namespace", "")
        ),
        None,
    )


def _explain_case(case: Path, source: Path) -> Report:
    meta = json.loads((case / "case.json").read_text())
    config = case / meta["config"] if "config" in meta else None
    return explain(
        ExplainRequest(
            pod_ref=meta["pod"],
            namespace="default",
            source=FileSource([str(source)], complete=True),
            scheduler_config=config,
        )
    )


def test_every_golden_suggestion_makes_the_pod_schedulable(tmp_path: Path) -> None:
    checked = lists = awaited = 0
    failures: list[str] = []
    started = time.monotonic()
    for case in _golden_cases():
        report = _explain_case(case, cluster_file(case))
        if report.verdict != Verdict.UNSCHEDULABLE:
            assert report.suggestions == [], case.name
            continue
        assert len(report.suggestions) <= MAX_SUGGESTIONS
        objects = _raw_objects(cluster_file(case))
        loaded: Snapshot | None = None
        for s in report.suggestions:
            if s.kind == "awaitPreemption":
                # No change: the scheduler's own preemption places it, on the node it nominates.
                pre = report.preemption
                assert pre is not None and s.nodes == [pre.nominatedNode], case.name
                assert (s.patches, s.command) == ([], ""), case.name
                assert report.suggestions.index(s) == 0, case.name
                assert not {"addNode", "evictPods"} & {x.kind for x in report.suggestions}, case.name
                awaited += 1
                continue
            patched = tmp_path / f"{case.name}.json"
            patches = to_builtins(report)["suggestions"][report.suggestions.index(s)]["patches"]
            for p in patches:
                target = _object(objects, p) if "object" not in p else None
                if target is not None and p["patch"] is not None:
                    lost = _dropped_fields(target, p["patch"])
                    failures += [f"{case.name} {s.kind}: the patch drops entries' fields at {w}" for w in lost]
                    lists += 1
            if any(p.get("kind") == "Node" and "object" in p for p in patches):
                loaded = loaded or FileSource([str(cluster_file(case))], complete=True).load()
            items = apply_patches(objects, patches, loaded)
            patched.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": items}))
            again = _explain_case(case, patched)
            checked += 1
            if again.verdict != Verdict.SCHEDULABLE:
                failures.append(f"{case.name} {s.kind}: {again.verdict} {again.message}")
    assert not failures, failures
    # The proof must prove something: the golden cases hold many unschedulable pods.
    assert checked >= 50, checked
    assert lists >= 50, lists
    assert awaited >= 2, awaited
    assert time.monotonic() - started < 600


RESERVED_MARK = "which puts this workload on nodes reserved for"


def _label_keys(s: ReportSuggestion) -> set[str]:
    """Node label keys a suggestion's patches or `kubectl label` command change."""
    keys = {
        key
        for p in s.patches
        if p.get("kind") == "Node" and "patch" in p
        for key in ((p["patch"] or {}).get("metadata") or {}).get("labels", {})
    }
    if s.command.startswith("kubectl label"):
        keys |= {w.partition("=")[0] for w in shlex.split(s.command, comments=True)[3:] if "=" in w}
    return keys


def test_no_golden_suggestion_touches_a_well_known_label_or_puts_reserved_nodes_first() -> None:
    """Over every golden case: no suggestion changes a well-known node label; no toleration of a
    node's condition; a toleration of a reserving taint says so, and reserved-node tolerations come
    after every other suggestion (first only when nothing else was found)."""
    failures: list[str] = []
    labels = tolerations = reserved = 0
    for case in _golden_cases():
        report = _explain_case(case, cluster_file(case))
        objects: list[Json] | None = None
        marked: list[int] = []
        for index, s in enumerate(report.suggestions):
            keys = _label_keys(s)
            labels += bool(keys)
            failures += [f"{case.name} {s.kind}: changes {k}" for k in sorted(keys) if well_known_label(k)]
            if s.kind != "addToleration":
                continue
            tolerations += 1
            objects = objects if objects is not None else _raw_objects(cluster_file(case))
            (patch,) = s.patches
            pod = _object(objects, patch)
            own = (pod or {}).get("spec", {}).get("tolerations") or []
            added = [t for t in patch["patch"]["spec"]["tolerations"] if t not in own]
            assert added, f"{case.name}: the toleration patch adds nothing"
            failures += [f"{case.name}: tolerates {t['key']}" for t in added if condition_taint(t.get("key", ""))]
            if RESERVED_MARK in s.summary:
                marked.append(index)
            elif any(reserving_taint(t.get("key", "")) for t in added):
                failures.append(f"{case.name}: tolerates a reserving taint without saying so: {s.summary}")
        reserved += len(marked)
        others = [i for i in range(len(report.suggestions)) if i not in marked]
        if marked and others and min(marked) < max(others):
            failures.append(f"{case.name}: reserved nodes before {[s.kind for s in report.suggestions]}")
    assert not failures, failures
    # The proof must prove something: labels, tolerations and reserved nodes are suggested.
    assert labels >= 5 and tolerations >= 10 and reserved >= 2, (labels, tolerations, reserved)


def test_every_golden_group_suggestion_places_the_whole_group(tmp_path: Path) -> None:
    """`podwhy pending` on every golden cluster: each group's suggested nodes, added to the recorded
    cluster, let the group's pods all be placed one after another."""
    from podwhy.cluster.placement import Placer
    from podwhy.engine import PendingRequest, pending
    from podwhy.scheduler.config import default_config

    checked = 0
    for case in _golden_cases():
        source = FileSource([str(cluster_file(case))], complete=True)
        report = pending(PendingRequest(source, None))
        objects: list[Json] | None = None
        loaded: Snapshot | None = None
        for group in report.groups:
            assert len(group.suggestions) <= 1
            # Never silent: an Unschedulable group is sized, or says why not.
            # (A pod the scheduler's preemption places needs no node: not sized.)
            unschedulable = group.verdict == Verdict.UNSCHEDULABLE and not group.cause.startswith("will preempt")
            assert (group.sizing is not None) == unschedulable, (case.name, group.owner)
            if group.sizing is not None:
                assert (group.sizing.outcome == "sized") == bool(group.suggestions), (case.name, group.sizing)
            for s in group.suggestions:
                assert group.verdict == Verdict.UNSCHEDULABLE and s.kind == "addNodesForGroup"
                objects = objects if objects is not None else _raw_objects(cluster_file(case))
                loaded = loaded or FileSource([str(cluster_file(case))], complete=True).load()
                patched = tmp_path / f"{case.name}.json"
                items = apply_patches(objects, s.patches, loaded)
                patched.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": items}))
                snapshot = FileSource([str(patched)], complete=True).load()
                by_key = {f"{p.metadata.namespace}/{p.metadata.name}": p for p in snapshot.pods}
                placer = Placer(snapshot, default_config())
                assert all(placer.schedule(by_key[key]).placed for key in group.pods), (case.name, s.summary)
                checked += 1
    # (Groups preemption places are no longer sized: 37 of the 40+ before issue 34.)
    assert checked >= 35, checked


def test_large_clusters_get_only_pod_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    import podwhy.analysis.suggest.base as suggest_base

    node = make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()
    snapshot = _snap([node], [make_pod("busy").node("n1").req(cpu="3").obj()])
    pod = make_pod("p").req(cpu="2").obj()
    assert {s.kind for s in _suggestions(snapshot, pod)} == {"lowerRequest", "addNode"}
    # Above the size limit, node copies (which re-index the snapshot) are not tried.
    monkeypatch.setattr(suggest_base, "MAX_NODES_FOR_CLUSTER_CHANGES", 0)
    assert {s.kind for s in _suggestions(snapshot, pod)} == {"lowerRequest"}


# ---------------------------------------------------------------- reservations


@pytest.mark.parametrize(
    ("nominated_priority", "verdict", "counted"),
    [
        # Of the pod's priority or higher: it reserves its room against the pod.
        (100, Verdict.UNSCHEDULABLE, True),
        # Of lower priority: it reserves nothing against the pod, which fits.
        (50, Verdict.SCHEDULABLE, False),
    ],
)
def test_only_nominations_of_equal_or_higher_priority_reserve(
    nominated_priority: int, verdict: Verdict, counted: bool
) -> None:
    snapshot = _snap(
        nodes=[_node("n1", cpu="4")],
        pods=[make_pod("other").priority(nominated_priority).req(cpu="3").nominated("n1").obj()],
    )
    pod = make_pod("p").priority(100).req(cpu="2").obj()
    cycle = run_cycle(snapshot, pod)
    assert cycle.verdict == verdict
    assert cycle.outcome is not None
    assert bool(cycle.outcome.nodes[0].nominated_pods) == counted
    kinds = [s.kind for s in suggest(snapshot, cycle, default_profile())]
    assert ("releaseNomination" in kinds) == counted


def test_a_reservation_that_is_not_the_only_cause_is_not_released() -> None:
    # n1 is too small for the pod even without the reservation: releasing it would not help.
    snapshot = _snap(
        nodes=[_node("n1", cpu="2")],
        pods=[make_pod("other").priority(100).req(cpu="1").nominated("n1").obj()],
    )
    suggestions = _suggestions(snapshot, make_pod("p").priority(100).req(cpu="3").obj())
    assert "releaseNomination" not in [s.kind for s in suggestions]


# ---------------------------------------------------------------- nodes for a whole pending group


def _gpu_node(name: str) -> o.Node:
    return make_node(name).alloc({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}).labels(zone="a").obj()


def _trainer(i: int, gpus: int = 1, anti_affinity: bool = False) -> o.Pod:
    builder = make_pod(f"trainer-{i}", "ml").owner("Job", "trainer", api_version="batch/v1").labels(app="trainer")
    builder = builder.req({"cpu": "1", "nvidia.com/gpu": str(gpus)})
    if anti_affinity:
        term = {"labelSelector": {"matchLabels": {"app": "trainer"}}, "topologyKey": "zone"}
        builder = builder.affinity({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}})
    return builder.obj()


def _placed_all(snapshot: Snapshot, added: list[o.Node], pods: list[o.Pod]) -> bool:
    """Whether every pod gets placed, one after another, on the snapshot plus the added nodes."""
    from podwhy.cluster.placement import Placer
    from podwhy.scheduler.config import default_config

    started = [pod for node in added for pod in added_node_pods(snapshot, node)]
    changed = records.replace(snapshot, nodes=[*snapshot.nodes, *added], pods=[*snapshot.pods, *started])
    placer = Placer(changed, default_config())
    return all(placer.schedule(copy.deepcopy(p)).placed for p in pods)


GROUP_CASES = [
    # (group size, GPUs per pod, required anti-affinity on zone, nodes needed; None: never)
    pytest.param(3, 1, False, 1, id="one-node"),
    pytest.param(12, 1, False, 3, id="several-nodes"),
    pytest.param(5, 2, False, 3, id="rounded-up"),
    # Each zone takes one trainer, and every copy of gpu-node-1 is in zone a: no count helps.
    pytest.param(2, 1, True, None, id="never"),
]


@pytest.mark.parametrize(("size", "gpus", "anti_affinity", "needed"), GROUP_CASES)
def test_how_many_nodes_a_whole_group_needs(size: int, gpus: int, anti_affinity: bool, needed: int | None) -> None:
    from podwhy.analysis.pending import pending_group
    from podwhy.scheduler.config import default_config

    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    group = [_trainer(i, gpus, anti_affinity) for i in range(size)]
    snapshot = _snap([_gpu_node("gpu-node-1")], [busy, *group])
    owner, members = pending_group(snapshot, group[0])
    assert str(owner) == "ml/trainer (Job)" and members == group
    cycle = run_cycle(snapshot, group[0])
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    found = suggest(snapshot, cycle, default_profile(), config=default_config(), group=members, group_owner=str(owner))
    kinds = [s.kind for s in found]
    # One pod alone always fits on one copy.
    assert "addNode" in kinds
    groups = [s for s in found if s.kind == "addNodesForGroup"]
    if needed is None:
        assert groups == []
        return
    s = groups[0]
    assert suggestion_text(s).startswith(
        f"{size} pods of ml/trainer (Job) need {needed} more node{'s' if needed > 1 else ''} shaped like gpu-node-1"
    )
    added = [msgspec.convert(p["object"], o.Node) for p in s.patches]
    assert [p["kind"] for p in s.patches] == ["Node"] * needed
    assert set(s.nodes) <= {n.metadata.name for n in added}
    # Verified: with the added nodes every pod of the group is placed; with one fewer, not.
    assert _placed_all(snapshot, added, group)
    assert not _placed_all(snapshot, added[:-1], group)
    # The shared snapshot is untouched.
    assert len(snapshot.nodes) == 1 and all(not p.spec.node_name for p in group)


def test_group_sizing_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import podwhy.analysis.suggest.base as suggest_base
    import podwhy.analysis.suggest.groups as groups_module
    from podwhy.scheduler.config import default_config

    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    group = [_trainer(i) for i in range(12)]
    snapshot = _snap([_gpu_node("gpu-node-1")], [busy, *group])
    cycle = run_cycle(snapshot, group[0])

    def sized() -> Suggestion | None:
        return groups_module.size_group(snapshot, cycle, group, default_config(), "ml/trainer (Job)").suggestion

    assert sized() is not None
    # Past the cap on added nodes, or on node evaluations (a count, not a time), no count is given.
    monkeypatch.setattr(groups_module, "MAX_ADDED_NODES", 2)
    assert sized() is None
    monkeypatch.undo()
    monkeypatch.setattr(groups_module, "MAX_GROUP_PLACEMENT_WORK", 10)
    assert sized() is None
    monkeypatch.undo()
    # Sizing copies the snapshot's indexes rather than indexing it again: the size limit on
    # changes that re-index does not apply to it (its bounds are the ones above).
    monkeypatch.setattr(suggest_base, "MAX_NODES_FOR_CLUSTER_CHANGES", 0)
    assert sized() is not None


@pytest.mark.parametrize(
    ("bound", "value", "outcome", "note"),
    [
        ("MAX_ADDED_NODES", 2, "stopped", "sizing stopped: more than 2 added nodes shaped like gpu-node-1"),
        ("MAX_GROUP_PLACEMENT_WORK", 10, "stopped", "sizing stopped at the 10 node evaluations one group may spend"),
        ("GROUP_TIME_BUDGET_SECONDS", -1.0, "stopped", "sizing stopped by its safety net of -1 s"),
        (None, None, "sized", "sized: 3 more nodes shaped like gpu-node-1; with 2 not all of them do"),
    ],
)
def test_sizing_says_which_bound_stopped_it(
    bound: str | None, value: Any, outcome: str, note: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import podwhy.analysis.suggest.groups as groups_module
    from podwhy.scheduler.config import default_config

    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    group = [_trainer(i) for i in range(12)]
    snapshot = _snap([_gpu_node("gpu-node-1")], [busy, *group])
    cycle = run_cycle(snapshot, group[0])
    if bound is not None:
        monkeypatch.setattr(groups_module, bound, value)
    sizing = groups_module.size_group(snapshot, cycle, group, default_config(), "ml/trainer (Job)")
    assert sizing.outcome == outcome
    assert sizing_text(sizing.note).startswith(note)
    assert (sizing.suggestion is not None) == (outcome == "sized")


def test_explain_says_when_a_bound_stopped_sizing_the_pods_group(monkeypatch: pytest.MonkeyPatch) -> None:
    import podwhy.analysis.suggest.groups as groups_module
    from podwhy.scheduler.config import default_config

    busy = make_pod("busy", "ml").node("gpu-node-1").req({"nvidia.com/gpu": "4"}).obj()
    group = [_trainer(i) for i in range(12)]
    snapshot = _snap([_gpu_node("gpu-node-1")], [busy, *group])
    cycle = run_cycle(snapshot, group[0])
    monkeypatch.setattr(groups_module, "MAX_GROUP_PLACEMENT_WORK", 10)
    notes: list[Note] = []
    found = suggest(
        snapshot,
        cycle,
        default_profile(),
        config=default_config(),
        group=group,
        group_owner="ml/trainer (Job)",
        notes=notes,
    )
    assert "addNodesForGroup" not in [s.kind for s in found]
    assert [note_text(n) for n in notes] == [
        "12 pods of ml/trainer (Job), the pod's pending group: sizing stopped at the 10 node evaluations one group "
        "may spend (1 node: a scheduling cycle that scores looks at every one); no count was verified"
    ]


def _sizing_case(name: str) -> tuple[list[o.Node], list[o.Pod], list[o.Pod]]:
    """(nodes, pods bound to them, the pending group) of one sizing case."""

    def group(count: int, cpu: str = "1", **build: Any) -> list[o.Pod]:
        pods = []
        for i in range(count):
            b = make_pod(f"w-{i}", "ml").owner("Job", "w", api_version="batch/v1").labels(app="w").req(cpu=cpu)
            for method, args in build.items():
                b = getattr(b, method)(*args[0], **args[1])
            pods.append(b.obj())
        return pods

    def full(node: str, cpu: str = "4", **labels: str) -> o.Pod:
        return make_pod(f"fill-{node}").node(node).labels(labels or {"app": "fill"}).req(cpu=cpu).obj()

    same_app = {"matchLabels": {"app": "w"}}
    if name == "resources":
        return [_node("n1"), _node("n2")], [full("n1", "3"), full("n2", "3")], group(9, "1500m")
    if name == "host-port":
        node = _node("n1", cpu="8")
        port = make_pod("port-holder").node("n1").host_port(8080).obj()
        return [node], [port, full("n1", "7")], group(4, "100m", host_port=((8080,), {}))
    if name == "soft-spread":
        nodes = [_zone_node("a1", "a", cpu="2"), _zone_node("b1", "b", cpu="2")]
        soft = ((1, "zone"), {"when": "ScheduleAnyway", "selector": same_app})
        return nodes, [full("a1", "2"), full("b1", "2")], group(5, spread=soft)
    if name == "running-anti-affinity":
        # A running pod keeps w pods out of zone a: copies of a1 take none, copies of b1 do.
        guard = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": same_app, "topologyKey": "zone"}]
            }
        }
        nodes = [_zone_node("a1", "a", cpu="2"), _zone_node("b1", "b", cpu="2")]
        guard_pod = make_pod("guard").node("a1").labels(app="guard").req(cpu="2").affinity(guard).obj()
        return nodes, [guard_pod, full("b1", "2")], group(3)
    if name == "hard-spread":
        hard = ((1, "kubernetes.io/hostname"), {"selector": same_app})
        return [_node("n1"), _node("n2")], [full("n1"), full("n2")], group(4, spread=hard)
    if name == "anti-affinity":
        anti = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": same_app, "topologyKey": "kubernetes.io/hostname"}
                ]
            }
        }
        return [_node("n1")], [full("n1")], group(3, affinity=((anti,), {}))
    if name == "own-affinity":
        together = {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": same_app, "topologyKey": "zone"}]
            }
        }
        nodes = [_zone_node("a1", "a"), _zone_node("b1", "b")]
        return nodes, [full("a1"), full("b1")], group(6, affinity=((together,), {}))
    assert name == "mixed-specs"
    return [_node("n1")], [full("n1")], [*group(2, "1"), *group(1, "3")[:1]]


SIZING_CASES = [
    # (case, whether the search may skip scoring, nodes needed)
    pytest.param("resources", True, 5, id="resources"),
    pytest.param("host-port", True, 4, id="host-port"),
    pytest.param("soft-spread", True, 3, id="soft-spread"),
    pytest.param("running-anti-affinity", True, 2, id="running-anti-affinity"),
    # Constraints between the group's own pods: where one goes changes where the next may go.
    pytest.param("hard-spread", False, 4, id="hard-spread"),
    pytest.param("anti-affinity", False, 3, id="anti-affinity"),
    pytest.param("own-affinity", False, 2, id="own-affinity"),
    pytest.param("mixed-specs", False, 2, id="mixed-specs"),
]


@pytest.mark.parametrize(("case", "fast", "needed"), SIZING_CASES)
def test_fast_sizing_gives_the_count_of_full_placements(
    case: str, fast: bool, needed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search without scoring (node-local groups only) finds the count the search with full
    placements finds; either count places every pod on the cluster indexed afresh with that many
    nodes added, and one fewer does not. Groups whose pods constrain one another never take it."""
    import podwhy.analysis.suggest.groups as groups_module
    from podwhy.scheduler.config import default_config
    from podwhy.scheduler.cycle import make_framework

    nodes, bound, group = _sizing_case(case)
    if case == "mixed-specs":
        group[2].metadata.name = "w-2"
    snapshot = _snap(nodes, [*bound, *group])
    config = default_config()
    profile = config.profiles[0]
    cycle = run_cycle(snapshot, group[0])
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    real_place = groups_module._GroupSizer.place
    searched: list[bool] = []

    def spy(self: Any, node: o.Node, copies: int, first_fit: bool = False, learned: bool = True) -> Any:
        searched.append(first_fit)
        return real_place(self, node, copies, first_fit, learned)

    monkeypatch.setattr(groups_module._GroupSizer, "place", spy)
    base = make_framework(snapshot, profile)
    before = {ni.name: len(ni.pods) for ni in base.handle.node_infos}
    sized = groups_module.size_group(
        snapshot, cycle, group, config, "ml/w (Job)", frameworks={"default-scheduler": base}
    )
    assert any(searched) == fast, searched
    # The same search with full placements only.
    searched.clear()
    monkeypatch.setattr(groups_module, "node_local_group", lambda *_: False)
    full = groups_module.size_group(snapshot, cycle, group, config, "ml/w (Job)")
    assert not any(searched)
    assert sized.suggestion is not None and full.suggestion is not None, (
        sizing_text(sized.note),
        sizing_text(full.note),
    )
    assert len(sized.suggestion.patches) == len(full.suggestion.patches) == needed
    assert sized.suggestion.patches == full.suggestion.patches
    added = [msgspec.convert(p["object"], o.Node) for p in sized.suggestion.patches]
    assert _placed_all(snapshot, added, group)
    assert not _placed_all(snapshot, added[:-1], group)
    # Placements copied the shared indexes and left them as they were.
    assert {ni.name: len(ni.pods) for ni in base.handle.node_infos} == before


# ---------------------------------------------------------------- lists as the source held them


def test_list_patches_keep_the_entries_as_the_source_held_them(tmp_path: Path) -> None:
    """RFC 7386 replaces a list whole: the list written holds the pod's own entries, with the
    fields podwhy's typed model skips (command, env, probes, ...), plus the change."""
    container = {
        "name": "app",
        "image": "registry.example.com/app:1",
        "command": ["/app", "--serve"],
        "env": [{"name": "MODE", "value": "prod"}],
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
        "resources": {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
    }
    toleration = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}
    pod: Json = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "uid-p"},
        "spec": {"containers": [container], "tolerations": [toleration], "dnsPolicy": "ClusterFirst"},
        "status": {"phase": "Pending"},
    }
    node = make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).taint("dedicated", "db").obj()
    busy = make_pod("busy").node("n2").req(cpu="3").obj()
    other = make_node("n2").alloc(cpu="4", memory="8Gi", pods=110).obj()
    objects = [{"apiVersion": "v1", "kind": "Node", **msgspec.to_builtins(n)} for n in (node, other)] + [
        {"apiVersion": "v1", "kind": "Pod", **msgspec.to_builtins(busy)},
        pod,
    ]
    path = tmp_path / "cluster.json"
    path.write_bytes(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": objects}))
    report = explain(
        ExplainRequest(pod_ref="default/p", namespace="default", source=FileSource([str(path)], complete=True))
    )
    by_kind = {s.kind: s for s in report.suggestions}
    lowered = by_kind["lowerRequest"].patches[0]["patch"]
    assert lowered == {
        "spec": {
            "containers": [
                {**container, "resources": {**container["resources"], "requests": {"cpu": "1000m", "memory": "1Gi"}}}
            ]
        }
    }
    tolerated = by_kind["addToleration"].patches[0]["patch"]
    assert tolerated["spec"]["tolerations"][0] == toleration
    assert len(tolerated["spec"]["tolerations"]) == 2
    for s in (by_kind["lowerRequest"], by_kind["addToleration"]):
        assert _verify_by_reloading(objects, s.patches, "default/p", tmp_path).verdict == Verdict.SCHEDULABLE


def test_sizing_on_copied_indexes_places_as_indexing_anew() -> None:
    """Each sizing placement copies the snapshot's indexes and adds the new nodes with their
    DaemonSet pods: the pods go where they go when the grown snapshot is indexed afresh (spread,
    affinity and images too)."""
    import podwhy.analysis.suggest.groups as groups_module
    from podwhy.cluster.placement import Placer
    from podwhy.scheduler.config import default_config
    from podwhy.scheduler.cycle import make_framework

    spread = {"matchLabels": {"app": "w"}}
    nodes = [
        make_node(f"n{i}").alloc(cpu="2", memory="8Gi", pods=110).zone("ab"[i % 2]).image(10**9, "app:1").obj()
        for i in range(4)
    ]
    guard = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "w"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    bound = [
        make_pod("guard").node("n0").labels(app="guard").req(cpu="1").affinity(guard).obj(),
        make_pod("w-old").node("n1").labels(app="w").req(cpu="1500m").obj(),
        make_pod("filler").node("n2").req(cpu="1500m").obj(),
        # Every copy of n2 runs it: its cpu leaves room for one w pod there, not two.
        make_pod("agent-n2").node("n2").owner("DaemonSet", "agent").labels(app="agent").req(cpu="700m").obj(),
        make_pod("filler2").node("n3").req(cpu="1000m").obj(),
    ]
    group = [
        make_pod(f"w-{i}")
        .labels(app="w")
        .container(name="c", image="app:1", requests={"cpu": "700m"})
        .spread(2, "topology.kubernetes.io/zone", selector=spread)
        .obj()
        for i in range(7)
    ]
    snapshot = _snap(nodes, [*bound, *group])
    config = default_config()
    profile = config.profiles[0]
    bases = {profile.scheduler_name: make_framework(snapshot, profile)}
    sizer = groups_module._GroupSizer(snapshot, config, group, groups_module.GroupBudget(), bases)
    placements: list[list[str]] = []
    for copies in (1, 2, 3):
        copied = sizer.place(nodes[2], copies)
        grown, _ = with_copies(snapshot, nodes[2], copies)
        assert [p.metadata.name for p in grown.pods if p.spec.node_name.startswith("n2-copy")] == [
            "agent-n2-n2-copy",
            *[f"agent-n2-n2-copy{i}" for i in range(2, copies + 1)],
        ]
        fresh = Placer(grown, config, placement_only=True)
        anew: list[str] = []
        for pod in group:
            placement = fresh.schedule(copy.deepcopy(pod))
            if not placement.placed:
                break
            anew.append(placement.node)
        assert copied == (len(anew), anew)
        placements.append(anew)
    # The case is not trivial: more copies place more pods, on old nodes and new ones.
    assert len(placements[0]) < len(placements[-1])
    assert {n.startswith("n2-copy") for n in placements[-1]} == {True, False}


# ---------------------------------------------------------------- new nodes run their DaemonSet pods


def _agent(**build: Any) -> o.Pod:
    """A DaemonSet's pod on n1, pinned there as its controller pins it."""
    pin = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}
    builder = make_pod("agent-x7k2q", "kube-system").node("n1").owner("DaemonSet", "agent")
    builder = builder.affinity({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": pin}})
    builder = builder.req(cpu=build.get("cpu", "1"))
    return builder.host_port(build["port"]).obj() if "port" in build else builder.obj()


def _static(cpu: str) -> o.Pod:
    builder = make_pod("etcd-n1", "kube-system").node("n1").owner("Node", "n1", api_version="v1")
    return builder.req(cpu=cpu).obj()


def _mirror(pod: o.Pod) -> o.Pod:
    meta = msgspec.structs.replace(pod.metadata, annotations={"kubernetes.io/config.mirror": "hash"})
    return msgspec.structs.replace(pod, metadata=meta)


def _replica(cpu: str) -> o.Pod:
    return make_pod("web-5d8f-abcde").node("n1").owner("ReplicaSet", "web-5d8f").req(cpu=cpu).obj()


def _waiting(i: int, cpu: str, port: int | None) -> o.Pod:
    builder = make_pod(f"w-{i}").owner("ReplicaSet", "w-7c9d").labels(app="w").req(cpu=cpu)
    return builder.host_port(port).obj() if port is not None else builder.obj()


DAEMON_CASES = [
    # (bound on n1 besides a 2-cpu pod, pending pods' cpu, their host port, group size,
    #  nodes the group needs (None: no copy of n1 ever holds one), words of the addNode summary)
    pytest.param([_agent()], "2500m", None, 1, 1, ", with the 1 DaemonSet pod node n1 runs", id="ds-fits-one-per-copy"),
    pytest.param([_agent()], "3500m", None, 1, None, "", id="ds-leaves-too-little"),
    pytest.param([_agent()], "2", None, 3, 3, ", with the 1 DaemonSet pod node n1 runs", id="ds-group-of-3-needs-3"),
    pytest.param([_replica("1")], "2", None, 3, 2, "; no pods yet", id="not-ds-group-of-3-needs-2"),
    pytest.param([_replica("1")], "3500m", None, 1, 1, "; no pods yet", id="not-ds-copies-stay-empty"),
    pytest.param([_agent(cpu="100m", port=8080)], "2", 8080, 1, None, "", id="ds-holds-the-host-port"),
    pytest.param(
        [_agent(cpu="100m", port=8080)],
        "2",
        9090,
        1,
        1,
        ", with the 1 DaemonSet pod node n1 runs",
        id="ds-other-host-port",
    ),
    pytest.param([_mirror(_static("1"))], "3500m", None, 1, None, "", id="static-pod-leaves-too-little"),
    pytest.param(
        [_agent(), _mirror(_static("500m"))],
        "2",
        None,
        1,
        1,
        ", with the 1 DaemonSet pod and 1 static pod node n1 runs",
        id="both",
    ),
]


@pytest.mark.parametrize(("started", "cpu", "port", "size", "needed", "words"), DAEMON_CASES)
def test_added_nodes_run_the_daemonset_pods_of_the_node_they_copy(
    started: list[o.Pod], cpu: str, port: int | None, size: int, needed: int | None, words: str, tmp_path: Path
) -> None:
    from podwhy.analysis.suggest import SizingOutcome, size_group
    from podwhy.scheduler.config import default_config

    busy = make_pod("busy").node("n1").owner("ReplicaSet", "busy-1").req(cpu="2").obj()
    group = [_waiting(i, cpu, port) for i in range(size)]
    snapshot = _snap([_node("n1")], [busy, *started, *group])
    cycle = run_cycle(snapshot, group[0])
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    # One pod: a copy of n1 is offered exactly when one pod fits beside what a copy runs.
    found = [s for s in suggest(snapshot, cycle, default_profile()) if s.kind == "addNode"]
    assert bool(found) == (needed is not None), [suggestion_text(s) for s in found]
    sizing = size_group(snapshot, cycle, group, default_config(), "default/w (ReplicaSet)")
    if needed is None:
        assert sizing.outcome == SizingOutcome.NO_NODE_SHAPE, sizing_text(sizing.note)
        assert "DaemonSet and static pods a new node runs" in sizing_text(sizing.note)
        return
    (s,) = found
    assert f"add 1 node shaped like n1 (same labels, taints and allocatable{words}" in suggestion_text(s)
    # The patch adds the Node alone; applied, with the pods its controllers create there, it fits.
    assert [p["kind"] for p in s.patches] == ["Node"] and "object" in s.patches[0]
    objects = [{"apiVersion": "v1", "kind": "Node", **msgspec.to_builtins(n)} for n in snapshot.nodes]
    objects += [_pod_object(p) for p in snapshot.pods]
    report = _verify_by_reloading(objects, s.patches, "default/w-0", tmp_path, snapshot)
    assert report.verdict == Verdict.SCHEDULABLE
    # The group: the fewest copies, verified with and without the last one.
    assert sizing.suggestion is not None, sizing_text(sizing.note)
    assert sizing_text(sizing.note).startswith(f"sized: {needed} more node"), sizing_text(sizing.note)
    assert words in suggestion_text(sizing.suggestion)
    added = [msgspec.convert(p["object"], o.Node) for p in sizing.suggestion.patches]
    assert len(added) == needed
    assert _placed_all(snapshot, added, group)
    assert not _placed_all(snapshot, added[:-1], group)


def test_copies_of_startup_pods_are_bound_pinned_and_named_per_copy() -> None:
    agent, static = _agent(cpu="100m", port=8080), _mirror(_static("500m"))
    static = msgspec.structs.replace(static, metadata=msgspec.structs.replace(static.metadata, uid="u-etcd"))
    finished = make_pod("agent-old", "kube-system").node("n1").owner("DaemonSet", "agent").phase("Succeeded").obj()
    leaving = make_pod("agent-bye", "kube-system").node("n1").owner("DaemonSet", "agent").terminating().obj()
    snapshot = _snap([_node("n1")], [agent, static, finished, leaving, _replica("1")])
    grown, added = with_copies(snapshot, snapshot.nodes[0], 2)
    assert [n.metadata.name for n in added] == ["n1-copy", "n1-copy2"]
    assert len(snapshot.pods) == 5 and len(snapshot.nodes) == 1  # untouched
    new = grown.pods[5:]
    assert [(p.metadata.name, p.spec.node_name) for p in new] == [
        ("agent-x7k2q-n1-copy", "n1-copy"),
        ("etcd-n1-copy", "n1-copy"),
        ("agent-x7k2q-n1-copy2", "n1-copy2"),
        ("etcd-n1-copy2", "n1-copy2"),
    ]
    assert len({p.metadata.uid for p in grown.pods}) == len(grown.pods)
    pinned = new[0].spec.affinity
    assert pinned is not None and pinned.node_affinity is not None
    required = pinned.node_affinity.required_during_scheduling_ignored_during_execution
    assert required is not None and required.node_selector_terms[0].match_fields[0].values == ["n1-copy"]
    # The same pods for a Node added by a patch, found from its name; none for other nodes.
    assert added_node_pods(snapshot, added[1]) == new[2:]
    assert added_node_pods(snapshot, _node("n9")) == []
    # Counted on the copy as any bound pod: its cpu and host port.
    from podwhy.framework.handle import Handle

    info = Handle(grown).node_info_by_name["n1-copy"]
    assert info.requested.milli_cpu == 600 and len(info.pods) == 2
    assert info.used_ports.check_conflict("", "TCP", 8080)


def test_no_node_shape_counts_what_the_daemonset_pods_take() -> None:
    from podwhy.analysis.suggest import allocatable_shapes, beyond_every_node
    from podwhy.scheduler.cycle import make_framework

    pod = make_pod("p").req(cpu="3500m").obj()
    plain = _snap([_node("n1")], [_replica("1")])
    with_agent = _snap([_node("n1")], [_agent()])
    assert beyond_every_node(pod, allocatable_shapes(plain), make_framework(plain, default_profile())) is None
    why = beyond_every_node(pod, allocatable_shapes(with_agent), make_framework(with_agent, default_profile()))
    assert why is not None and "its cpu request 3500m exceeds what any node has free (at most 3)" in sizing_text(why)
    # A second node of the same allocatable without the DaemonSet's pod holds it.
    other = _snap([_node("n1"), _node("n2")], [_agent()])
    assert beyond_every_node(pod, allocatable_shapes(other), make_framework(other, default_profile())) is None
