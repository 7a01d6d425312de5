"""The scheduler's index of a snapshot is built once and kept with it (framework/handle.py,
`indexed`): every later Handle is a view of the kept one while the snapshot's nodes and pods are
those indexed, and the snapshot is indexed anew once they changed. Each view indexes the snapshot
exactly as a Handle made anew does (`described`), binding pods in a view leaves the kept index as it
was, and explaining pod after pod over one loaded snapshot answers as loading it for each pod does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from podwhy.engine import ExplainRequest, explain
from podwhy.features.emulation import EMULATED
from podwhy.framework import handle as h
from podwhy.framework.handle import _POD_READS, KEPT, Handle, described, indexed
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from podwhy.verdict import Verdict
from tests.builders import from_raw, make_node, make_pod, make_snapshot
from tests.paths import REPO, TESTS

NAMES = frozenset({"default-scheduler"})


@pytest.fixture
def unchecked() -> Iterator[None]:
    """The views are compared here, by the test itself (tests/conftest.py checks them otherwise)."""
    was, h.CHECK_KEPT = h.CHECK_KEPT, False
    yield
    h.CHECK_KEPT = was


def _cluster() -> Snapshot:
    pods = [
        make_pod("web-0").node("n1").req(cpu="1", memory="1Gi").phase("Running").obj(),
        make_pod("web-1").node("n2").req(cpu="500m").host_port(8080).phase("Running").obj(),
        make_pod("db-0").node("n2").req(cpu="250m").phase("Running").priority(-5).obj(),
        make_pod("batch").node("n1").req(cpu="2").phase("Succeeded").obj(),
        make_pod("waiting").req(cpu="3").obj(),
        make_pod("nominated").req(cpu="1").obj(),
    ]
    pods[5].status.nominated_node_name = "n1"
    return make_snapshot(make_node("n1").obj(), make_node("n2").obj(), make_node("n3").obj(), *pods)


def _same_as_anew(snapshot: Snapshot, names: frozenset[str] | None = NAMES) -> Handle:
    view = indexed(snapshot, names)
    assert described(view) == described(Handle(snapshot, names))
    return view


@pytest.mark.usefixtures("unchecked")
def test_a_later_handle_is_a_view_of_the_kept_index() -> None:
    snapshot = _cluster()
    first = _same_as_anew(snapshot)
    kept = snapshot.indexes[KEPT]
    # What the index read of every pod (a finished one too), recorded while indexing.
    assert kept.pod_reads == [_POD_READS(pod) for pod in snapshot.pods]
    second = _same_as_anew(snapshot)
    assert snapshot.indexes[KEPT] is kept, "the snapshot was indexed again although nothing changed"
    assert second is not first and second is not kept.handle
    # The node indexes themselves are shared, not rebuilt.
    assert all(a is b for a, b in zip(second.node_infos, kept.handle.node_infos, strict=True))


@pytest.mark.usefixtures("unchecked")
def test_binding_pods_in_a_view_leaves_the_kept_index_as_it_was() -> None:
    snapshot = _cluster()
    kept_before = described(indexed(snapshot, NAMES))
    view = indexed(snapshot, NAMES)
    bound = make_pod("new").node("n3").req(cpu="1").obj()
    view.add_bound_pod(bound)
    view.remove_bound_pod(snapshot.pods[0])
    assert [pi.key for pi in view.node_info_by_name["n3"].pods] == ["default/new"]
    assert described(snapshot.indexes[KEPT].handle) == kept_before
    assert described(_same_as_anew(snapshot)) == kept_before


def _append_pod(s: Snapshot) -> None:
    s.pods.append(make_pod("late").node("n3").req(cpu="1").obj())


def _bind(s: Snapshot) -> None:
    s.pods[4].spec.node_name = "n3"


def _finish(s: Snapshot) -> None:
    s.pods[0].status.phase = "Succeeded"


def _nominate(s: Snapshot) -> None:
    s.pods[4].status.nominated_node_name = "n2"


def _other_scheduler(s: Snapshot) -> None:
    s.pods[5].spec.scheduler_name = "other"


def _pod_level_resources(s: Snapshot) -> None:
    s.pods[0].spec.resources = from_raw(o.ResourceRequirements, {"requests": {"cpu": "3"}})


def _replace_pod(s: Snapshot) -> None:
    s.pods[1] = replace(s.pods[1], spec=replace(s.pods[1].spec, containers=[]))


def _replace_node(s: Snapshot) -> None:
    s.nodes[2] = make_node("n3").alloc(cpu="64").obj()


def _add_node(s: Snapshot) -> None:
    s.nodes.append(make_node("n4").obj())


def _new_lists(s: Snapshot) -> None:
    s.pods, s.nodes = list(s.pods), list(s.nodes)


CHANGES: dict[str, tuple[Callable[[Snapshot], None], bool]] = {
    # What changed, and whether the kept index still holds after it.
    "a pod added": (_append_pod, False),
    "an unbound pod bound in place": (_bind, False),
    "a bound pod finished in place": (_finish, False),
    "a pod nominated in place": (_nominate, False),
    "a pod moved to another scheduler": (_other_scheduler, False),
    "a pod's pod-level resources set": (_pod_level_resources, False),
    "a pod replaced by a changed copy": (_replace_pod, False),
    "a node replaced": (_replace_node, False),
    "a node added": (_add_node, False),
    "the same objects in new lists": (_new_lists, True),
}


@pytest.mark.usefixtures("unchecked")
@pytest.mark.parametrize("change", CHANGES, ids=str)
def test_a_changed_snapshot_is_indexed_anew(change: str) -> None:
    snapshot = _cluster()
    before = described(indexed(snapshot, NAMES))
    kept = snapshot.indexes[KEPT]
    apply, holds = CHANGES[change]
    apply(snapshot)
    after = _same_as_anew(snapshot)
    assert (snapshot.indexes[KEPT] is kept) is holds
    if not holds:
        assert described(after) != before, "the change should show in the index: the test would check nothing"


@pytest.mark.usefixtures("unchecked")
def test_other_scheduler_names_and_releases() -> None:
    snapshot = _cluster()
    indexed(snapshot, NAMES)
    kept = snapshot.indexes[KEPT]
    for emulation in EMULATED.values():
        view = indexed(snapshot, NAMES, emulation)
        assert view.emulation == emulation and snapshot.indexes[KEPT] is kept
        assert described(view) == described(Handle(snapshot, NAMES, emulation))
    _same_as_anew(snapshot, frozenset({"other"}))
    assert snapshot.indexes[KEPT] is not kept  # nominated pods are those of other profiles there


def test_a_copy_of_the_snapshot_keeps_no_index() -> None:
    snapshot = _cluster()
    indexed(snapshot, NAMES)
    assert KEPT not in replace(snapshot, nodes=snapshot.nodes[:2]).indexes


def test_the_suite_checks_every_view() -> None:
    """tests/conftest.py turns the check on; a view that differs from the snapshot indexed anew fails."""
    assert h.CHECK_KEPT
    snapshot = _cluster()
    indexed(snapshot, NAMES)
    snapshot.pods[0].spec.containers[0].resources.requests["cpu"] = "7"  # a change the kept index cannot see
    with pytest.raises(AssertionError, match="kept scheduler index differs"):
        indexed(snapshot, NAMES)


class _Held:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def load(self) -> Snapshot:
        return self.snapshot


def _pending_pods(path: Path) -> list[str]:
    snapshot = FileSource([str(path)]).load()
    return [f"{p.metadata.namespace}/{p.metadata.name}" for p in snapshot.pods if not p.spec.node_name]


SCENARIOS = sorted(
    p / "cluster.yaml"
    for root in ("scenarios", "scenarios-kueue")
    for p in (TESTS / root).iterdir()
    if (p / "cluster.yaml").is_file()
)
FOLDERS = [REPO / "fixtures" / "examples" / "shop-cluster.yaml", *SCENARIOS]


@pytest.mark.usefixtures("moved_clock")
@pytest.mark.parametrize("path", FOLDERS, ids=lambda p: p.parent.name)
def test_pod_after_pod_over_one_load_answers_as_loading_for_each(path: Path) -> None:
    refs = _pending_pods(path)
    if not refs:
        pytest.skip(f"{path.parent.name} holds no Pending pod")
    held = FileSource([str(path)]).load()
    for ref in [*refs, *refs]:  # every pod twice: the second time over a kept index
        once = explain(ExplainRequest(pod_ref=ref, namespace="default", source=_Held(held)))
        anew = explain(ExplainRequest(pod_ref=ref, namespace="default", source=FileSource([str(path)])))
        assert msgspec.json.encode(once) == msgspec.json.encode(anew), ref
    assert KEPT in held.indexes or once.verdict is Verdict.NO_PROFILE  # no profile: nothing to index


def test_a_small_fleet_pod_after_pod(tmp_path: Path) -> None:
    """The benchmark's AI fleet, small: the gang's Pending pod and a Pending pod of each owner
    (GPU, CPU, a missing pool), in turn over one load and each over its own."""
    from benchmarks.fleet import Fleet, write

    fleet = Fleet(nodes=24, pool_size=8, gang=6, job_size=4, pending=9, owners=3)
    path = tmp_path / "fleet.json"
    write(fleet, path)
    held = FileSource([str(path)]).load()
    owners = {p.metadata.owner_references[0].name: p for p in held.pods if not p.spec.node_name}
    refs = [f"{p.metadata.namespace}/{p.metadata.name}" for p in owners.values()]
    assert fleet.gang_pending in refs and len(refs) == 4
    kept = []
    for ref in [*refs, *refs]:
        once = explain(ExplainRequest(pod_ref=ref, namespace="default", source=_Held(held)))
        anew = explain(ExplainRequest(pod_ref=ref, namespace="default", source=FileSource([str(path)])))
        assert once.verdict is Verdict.UNSCHEDULABLE
        assert msgspec.json.encode(once) == msgspec.json.encode(anew), ref
        kept.append(held.indexes[KEPT])
    assert all(k is kept[0] for k in kept), "explaining a pod changed what the snapshot's index read"
