"""What the verdicts over one snapshot share (issue 37's benchmark): each shortcut gives what the
one-by-one computation gives. The usage of many admitted Workloads added per node and resource at
once equals add_usage one by one (lending limits passing usage up a hierarchy of Cohorts, and the
fallback when an amount is negative); every ClusterQueue's queue sorted in one pass equals
pending_in_cluster_queue, and who is ahead as the queue's prefix equals workloads_ahead; a
KueueContext's verdicts equal explain_workload's for every Workload."""

from __future__ import annotations

import random
from typing import Any

import pytest

from podwhy.cluster.kueue.admission import KueueContext, KueueObjects, explain_workload
from podwhy.cluster.kueue.order import (
    Queue,
    pending_by_cluster_queue,
    pending_in_cluster_queue,
    queue_key,
    workloads_ahead,
)
from podwhy.cluster.kueue.resourcenode import Node, QuotaTree, add_all_usage, add_usage, build_tree
from podwhy.cluster.kueue.resources import FlavorResource
from podwhy.model import objects as o
from tests.cluster.kueue.builders import admitted, cluster_queue, cohort, flavor_quotas, group, pod_set, workload

RED, BLUE = FlavorResource("red", "cpu"), FlavorResource("blue", "cpu")


def _tree() -> QuotaTree:
    """Four ClusterQueues in two Cohorts under a root; some lend only part of their quota."""
    cqs = [
        cluster_queue(
            "a", group(flavor_quotas("red", cpu=("10", "", "4")), flavor_quotas("blue", cpu="5")), cohort="left"
        ),
        cluster_queue(
            "b", group(flavor_quotas("red", cpu="6"), flavor_quotas("blue", cpu=("8", "", "2"))), cohort="left"
        ),
        cluster_queue("c", group(flavor_quotas("red", cpu=("3", "", "0"))), cohort="right"),
        cluster_queue("d", group(flavor_quotas("red", cpu="7")), cohort="right"),
    ]
    cohorts = [
        cohort("left", group(flavor_quotas("red", cpu=("2", "", "1"))), parent="root"),
        cohort("right", parent="root"),
        cohort("root", group(flavor_quotas("red", cpu="4"))),
    ]
    return build_tree(cqs, cohorts)


def _state(tree: QuotaTree) -> dict[str, dict[FlavorResource, int]]:
    nodes: list[Node] = [*tree.cluster_queues.values(), *tree.cohorts.values()]
    return {node.name: dict(node.usage) for node in nodes}


@pytest.mark.parametrize("seed", range(30))
def test_usage_added_at_once_equals_one_by_one(seed: int) -> None:
    rng = random.Random(seed)
    one_by_one, at_once = _tree(), _tree()
    names = list(one_by_one.cluster_queues)
    picks = [(rng.choice(names), rng.choice((RED, BLUE)), rng.choice((0, 500, 1_000, 3_000, 7_000))) for _ in range(40)]
    if seed % 5 == 0:  # a negative amount: added one by one, as add_usage does
        picks.insert(rng.randrange(len(picks)), (names[0], RED, -2_000))
    for name, fr, q in picks:
        add_usage(one_by_one.cluster_queues[name], fr, q)
    add_all_usage([(at_once.cluster_queues[name], fr, q) for name, fr, q in picks])
    assert _state(at_once) == _state(one_by_one)


def _queues() -> dict[tuple[str, str], o.LocalQueue]:
    def lq(name: str, cq: str) -> o.LocalQueue:
        return o.LocalQueue(
            metadata=o.ObjectMeta(name=name, namespace="default"), spec=o.LocalQueueSpec(cluster_queue=cq)
        )

    return {("default", "lq"): lq("lq", "cq"), ("default", "other"): lq("other", "cq2")}


def _pending_workloads(count: int) -> list[o.KueueWorkload]:
    rng = random.Random(7)
    out = []
    for i in range(count):
        created = f"2026-08-01T{rng.randrange(10, 12)}:00:00Z"  # ties: the uid decides
        spec: dict[str, Any] = {"priority": rng.choice((0, 0, 100)), "queueName": rng.choice(("lq", "lq", "other"))}
        out.append(workload(f"wl-{i}", spec=spec, metadata={"creationTimestamp": created}))
    return out


def test_queues_in_one_pass_and_ahead_as_a_prefix() -> None:
    workloads, local_queues = _pending_workloads(40), _queues()
    by_cq = pending_by_cluster_queue(workloads, local_queues)
    for name in ("cq", "cq2", "none"):
        pending = pending_in_cluster_queue(name, workloads, local_queues)
        assert by_cq.get(name, []) == pending
        queue = Queue.of(pending)
        for target in workloads:
            got = queue.ahead_of(queue_key(target), target.metadata.namespace, target.metadata.name)
            assert got == workloads_ahead(target, pending)


def test_ahead_excludes_a_namesake_already_queued() -> None:
    """A Workload not of the snapshot (check's) whose name one in the queue has: not ahead of itself."""
    workloads, local_queues = _pending_workloads(10), _queues()
    pending = pending_in_cluster_queue("cq", workloads, local_queues)
    last = pending[-1]
    namesake = workload(
        last.metadata.name, spec={"priority": 1000}, metadata={"creationTimestamp": "2026-08-02T00:00:00Z"}
    )
    got = Queue.of(pending).ahead_of(queue_key(namesake), namesake.metadata.namespace, namesake.metadata.name)
    assert got == workloads_ahead(namesake, pending) == []
    late = workload(pending[2].metadata.name, metadata={"creationTimestamp": "2026-08-03T00:00:00Z"})
    got = Queue.of(pending).ahead_of(queue_key(late), late.metadata.namespace, late.metadata.name)
    assert got == workloads_ahead(late, pending)
    assert pending[2] not in got


def test_context_verdicts_equal_explain_workload() -> None:
    quota = cluster_queue("cq", group(flavor_quotas("red", cpu="6")), cohort="team")
    lender = cluster_queue("cq2", group(flavor_quotas("red", cpu="4")), cohort="team")
    running = admitted("running", "cq", {"cpu": "3"}, {"cpu": "red"})
    pending = [
        workload(f"p{i}", pod_set(count=1 + i % 4, cpu="1"), metadata={"creationTimestamp": f"2026-08-01T1{i}:00:00Z"})
        for i in range(8)
    ]
    objs = KueueObjects.of(
        [
            quota,
            lender,
            running,
            *pending,
            o.LocalQueue(
                metadata=o.ObjectMeta(name="lq", namespace="default"), spec=o.LocalQueueSpec(cluster_queue="cq")
            ),
            o.ResourceFlavor(metadata=o.ObjectMeta(name="red")),
            o.Namespace(metadata=o.ObjectMeta(name="default")),
        ]
    )
    objs = KueueObjects(
        objs.cluster_queues,
        objs.cohorts,
        objs.local_queues,
        objs.flavors,
        objs.workloads,
        namespaces=objs.namespaces,
    )
    context = KueueContext(objs)
    for wl in [running, *reversed(pending)]:
        assert context.explain(wl) == explain_workload(wl, objs)
        assert context.explain(wl) is context.explain(wl)
