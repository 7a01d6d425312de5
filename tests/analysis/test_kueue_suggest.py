"""analysis/kueuesuggest.py: the knob that admits a Workload Kueue holds, each verified by
recomputing Kueue's decision with the change applied, and its kubectl command."""

from __future__ import annotations

import json
import shlex
from typing import Any

import msgspec
import pytest

from podwhy.analysis.kueuefacts import (
    WORKLOAD,
    Fate,
    KueueFacts,
    KueueKnob,
    KueueSuggestion,
    QueueSwitch,
    QuotaRaise,
    TaintToleration,
)
from podwhy.analysis.kueuesuggest import admits_next, smallest, suggestions_for
from podwhy.cluster.kueue.admission import KueueObjects, VerdictOptions, explain_workload
from podwhy.model import objects as o
from tests.cluster.kueue.builders import (
    admitted,
    cluster_queue,
    flavor_quotas,
    group,
    pod_set,
    resource_flavor,
    resource_map,
    workload,
)

GPU = "nvidia.com/gpu"


def _lq(name: str, cq: str, namespace: str = "default") -> o.LocalQueue:
    return msgspec.convert(
        {"metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": cq}}, o.LocalQueue
    )


def _ns(name: str = "default") -> o.Namespace:
    return msgspec.convert({"metadata": {"name": name}}, o.Namespace)


def _gpu_cq(name: str, nominal: str | tuple[str, ...], cohort: str = "") -> o.ClusterQueue:
    return cluster_queue(name, group(resource_map("a100", {GPU: nominal})), cohort=cohort)


def _target(gpus: int = 8, queue: str = "lq", spec: dict[str, Any] | None = None) -> o.KueueWorkload:
    return workload("target", pod_set(count=1, requests={GPU: str(gpus)}, spec=spec), queue=queue)


def _used(cq: str, gpus: int, name: str = "running") -> o.KueueWorkload:
    return admitted(name, cq, {GPU: str(gpus)}, {GPU: "a100"})


def _suggest(target: o.KueueWorkload, *objects: object) -> tuple[KueueSuggestion, ...]:
    objs = KueueObjects.of([target, resource_flavor("a100"), _ns(), *objects])
    verdict = explain_workload(target, objs, VerdictOptions())
    facts = KueueFacts(
        WORKLOAD, "default", "target", target, cluster_queue=verdict.cluster_queue, fate=Fate.SHORT_OF_QUOTA
    )
    found = suggestions_for(facts, objs, VerdictOptions())
    for s in found:  # each one verified: nothing lowered, and a command of each change
        assert all(c.new > c.old for c in s.changes if isinstance(c, QuotaRaise))
        assert s.commands
    return found


def _by_knob(found: tuple[KueueSuggestion, ...]) -> dict[KueueKnob, KueueSuggestion]:
    return {s.knob: s for s in found}


def _ops(line: str) -> Any:
    words = shlex.split(line)
    return json.loads(words[words.index("-p") + 1])


def test_nominal_quota_raised_by_exactly_the_shortfall() -> None:
    found = _by_knob(_suggest(_target(8), _gpu_cq("cq", "16"), _used("cq", 12), _lq("lq", "cq")))
    assert set(found) == {KueueKnob.NOMINAL_QUOTA}  # no cohort: no borrowing, nobody lends
    s = found[KueueKnob.NOMINAL_QUOTA]
    assert s.changes == (QuotaRaise(KueueKnob.NOMINAL_QUOTA, "cq", "a100", GPU, 16, 20),)
    assert not s.takes_from_others
    (command,) = s.commands
    assert command.target == "clusterqueue/cq"
    assert command.line.startswith("kubectl patch clusterqueue cq --type=json -p ")
    path = "/spec/resourceGroups/0/flavors/0/resources/0"
    assert _ops(command.line) == [
        {"op": "test", "path": f"{path}/name", "value": GPU},
        {"op": "replace", "path": f"{path}/nominalQuota", "value": "20"},
    ]
    assert command.patch == _ops(command.line)


def test_the_first_short_resource_alone_is_not_enough() -> None:
    """cpu and the GPUs are both short: raising the first one found still leaves the other short;
    the suggestion raises both, each by its own shortfall, in one patch."""
    cq = cluster_queue("cq", group(resource_map("a100", {"cpu": "8", GPU: "4"})))
    running = admitted("running", "cq", {"cpu": "6", GPU: "2"}, {"cpu": "a100", GPU: "a100"})
    target = workload("target", pod_set(requests={"cpu": "4", GPU: "4"}))
    found = _by_knob(_suggest(target, cq, running, _lq("lq", "cq")))
    s = found[KueueKnob.NOMINAL_QUOTA]
    assert set(s.changes) == {
        QuotaRaise(KueueKnob.NOMINAL_QUOTA, "cq", "a100", "cpu", 8000, 10000),
        QuotaRaise(KueueKnob.NOMINAL_QUOTA, "cq", "a100", GPU, 4, 6),
    }
    (command,) = s.commands
    values = {op["path"].rsplit("/", 2)[1]: op["value"] for op in _ops(command.line) if op["op"] == "replace"}
    assert values == {"0": "10", "1": "6"}


def test_borrowing_limit_raised_when_the_cohort_has_unused_quota() -> None:
    found = _by_knob(
        _suggest(
            _target(6), _gpu_cq("cq", ("4", "0"), cohort="all"), _gpu_cq("other", "8", cohort="all"), _lq("lq", "cq")
        )
    )
    assert set(found) == {KueueKnob.NOMINAL_QUOTA, KueueKnob.BORROWING_LIMIT}
    assert found[KueueKnob.BORROWING_LIMIT].changes == (QuotaRaise(KueueKnob.BORROWING_LIMIT, "cq", "a100", GPU, 0, 2),)
    ops = _ops(found[KueueKnob.BORROWING_LIMIT].commands[0].line)
    assert ops[1] == {"op": "add", "path": "/spec/resourceGroups/0/flavors/0/resources/0/borrowingLimit", "value": "2"}
    assert found[KueueKnob.NOMINAL_QUOTA].changes[0].new == 6


def test_borrowing_limit_not_offered_when_the_cohort_has_nothing_left() -> None:
    found = _by_knob(
        _suggest(
            _target(6),
            _gpu_cq("cq", ("4", "0"), cohort="all"),
            _gpu_cq("other", "8", cohort="all"),
            _used("other", 8),
            _lq("lq", "cq"),
        )
    )
    assert set(found) == {KueueKnob.NOMINAL_QUOTA}


def test_a_cohort_members_lending_limit_is_raised_and_marked() -> None:
    found = _by_knob(
        _suggest(
            _target(6),
            _gpu_cq("cq", "4", cohort="all"),
            _gpu_cq("lender", ("8", "", "0"), cohort="all"),
            _lq("lq", "cq"),
        )
    )
    s = found[KueueKnob.LENDING_LIMIT]
    assert s.changes == (QuotaRaise(KueueKnob.LENDING_LIMIT, "lender", "a100", GPU, 0, 2),)
    assert s.takes_from_others
    assert s.commands[0].target == "clusterqueue/lender"
    assert _ops(s.commands[0].line)[1]["path"].endswith("/lendingLimit")


def test_a_lending_limit_is_never_raised_into_what_the_member_uses() -> None:
    """The lender uses 7 of its 8: lending 1 more is all it could, and that is not enough."""
    found = _by_knob(
        _suggest(
            _target(6),
            _gpu_cq("cq", "4", cohort="all"),
            _gpu_cq("lender", ("8", "", "0"), cohort="all"),
            _used("lender", 7),
            _lq("lq", "cq"),
        )
    )
    assert KueueKnob.LENDING_LIMIT not in found
    assert KueueKnob.NOMINAL_QUOTA in found


@pytest.mark.parametrize(
    ("queues", "expected"),
    [
        ([("team-a", "cq"), ("other", "cq")], QueueSwitch("tem-a", "team-a", closest=True)),
        # The closest name leads to a ClusterQueue without the quota: the next one that admits it.
        ([("team-a", "small"), ("other", "cq")], QueueSwitch("tem-a", "other", closest=False)),
    ],
)
def test_an_existing_local_queue_for_a_missing_one(queues: list[tuple[str, str]], expected: QueueSwitch) -> None:
    lqs = [_lq(name, cq) for name, cq in queues]
    found = _by_knob(_suggest(_target(4, queue="tem-a"), _gpu_cq("cq", "8"), _gpu_cq("small", "2"), *lqs))
    assert set(found) == {KueueKnob.LOCAL_QUEUE}
    s = found[KueueKnob.LOCAL_QUEUE]
    assert s.changes == (expected,)
    # Nothing owns the Workload: its spec.queueName is patched.
    assert s.commands[0].line == (
        f'kubectl patch workload target -n default --type=merge -p \'{{"spec":{{"queueName":"{expected.new}"}}}}\''
    )


def test_a_jobs_queue_name_label_is_changed() -> None:
    target = _target(4, queue="tem-a")
    target.metadata.owner_references = [o.OwnerReference(kind="Job", name="train", uid="u", controller=True)]
    s = _by_knob(_suggest(target, _gpu_cq("cq", "8"), _lq("team-a", "cq")))[KueueKnob.LOCAL_QUEUE]
    assert s.commands[0].line == "kubectl label job train -n default kueue.x-k8s.io/queue-name=team-a --overwrite"


SPOT_TAINT = {"key": "spot", "value": "true", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("tolerations", "path"),
    [
        ([], "/spec/podSets/0/template/spec/tolerations"),
        ([{"key": "other", "operator": "Exists"}], "/spec/podSets/0/template/spec/tolerations/-"),
    ],
)
def test_a_flavor_taint_is_tolerated(tolerations: list[dict[str, Any]], path: str) -> None:
    target = workload("target", pod_set(requests={"cpu": "1"}, spec={"tolerations": tolerations}))
    cq = cluster_queue("cq", group(flavor_quotas("spot", cpu="8")))
    objs = KueueObjects.of([target, cq, resource_flavor("spot", taints=[SPOT_TAINT]), _lq("lq", "cq"), _ns()])
    facts = KueueFacts(WORKLOAD, "default", "target", target, cluster_queue="cq", fate=Fate.NO_FLAVOR)
    (s,) = suggestions_for(facts, objs, VerdictOptions())
    assert s.knob is KueueKnob.TOLERATION
    assert s.changes == (TaintToleration("spot", "spot", "true", "NoSchedule"),)
    (op,) = _ops(s.commands[0].line)
    assert op["path"] == path
    toleration = {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    assert op["value"] == (toleration if path.endswith("-") else [toleration])


def test_no_knob_admits_a_resource_the_cluster_queue_does_not_cover() -> None:
    cq = cluster_queue("cq", group(flavor_quotas("a100", cpu="8")))
    assert _suggest(_target(1), cq, _lq("lq", "cq")) == ()


def test_nothing_is_suggested_for_an_admitted_or_unevaluated_target() -> None:
    target = _target(1)
    objs = KueueObjects.of([target, _gpu_cq("cq", "8"), resource_flavor("a100"), _lq("lq", "cq"), _ns()])
    assert admits_next(target, objs, VerdictOptions())
    admitted_facts = KueueFacts(WORKLOAD, "default", "target", target, cluster_queue="cq", admitted=True)
    assert suggestions_for(admitted_facts, objs, VerdictOptions()) == ()
    preempting = KueueFacts(WORKLOAD, "default", "target", target, cluster_queue="cq", fate=Fate.PREEMPTION)
    assert suggestions_for(preempting, objs, VerdictOptions()) == ()


def test_quota_is_not_suggested_when_a_workload_ahead_would_then_fit_first() -> None:
    """Raising the quota by the target's shortfall lets an older, smaller Workload ahead fit: it is
    admitted first, so the raise does not admit the target in the next cycle."""
    ahead = workload("ahead", pod_set(requests={GPU: "2"}), metadata={"creationTimestamp": "2026-01-01T00:00:00Z"})
    target = _target(4)
    target.metadata.creation_timestamp = "2026-01-02T00:00:00Z"
    found = _by_knob(_suggest(target, ahead, _gpu_cq("cq", "4"), _used("cq", 3), _lq("lq", "cq")))
    assert KueueKnob.NOMINAL_QUOTA not in found


@pytest.mark.parametrize(
    ("low", "cap", "threshold", "expected"),
    [
        (5, 100, 5, 5),  # the shortfall itself
        (5, 100, 13, 13),  # more needed: doubled past it, then halved back to the least
        (5, 100, 100, 100),
        (5, 100, 101, None),  # never within the cap
        (7, 3, 0, None),  # nothing to search
        (1, 10**18, 2**19 + 7, 2**19 + 7),
        (1, 10**18, 2**22, None),  # past MAX_DOUBLINGS doublings of the step: given up
    ],
)
def test_smallest(low: int, cap: int, threshold: int, expected: int | None) -> None:
    assert smallest(low, cap, lambda v: v >= threshold) == expected
