"""Identical replicas placed one after another reuse what the cycle before them learnt (verdicts of
untouched nodes, node-local raw scores): every placement and message must equal a fresh cycle's."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from podwhy.cluster.placement import Placer, replica_signature
from podwhy.engine import scheduler_config
from podwhy.model import objects as o
from podwhy.report.words.placement import placement_text
from podwhy.scheduler.config import default_config
from podwhy.snapshot.source import FileSource
from tests.builders import make_node, make_pod
from tests.conformance import case_dirs, cluster_file

REPLICAS = 6


def _replicas(pod: o.Pod, count: int) -> list[o.Pod]:
    out = []
    for i in range(count):
        replica = copy.deepcopy(pod)
        replica.metadata.name = f"{pod.metadata.name}-r{i}"
        replica.metadata.labels = {**replica.metadata.labels, "index": str(i)}  # labels differ, as an Indexed Job's
        out.append(replica)
    return out


def _placements(case: Path, reuse: bool) -> list[tuple[str, str, str, list[str]]]:
    meta = json.loads((case / "case.json").read_text())
    target = meta["pod"]
    config = scheduler_config(case / meta["config"] if "config" in meta else None)
    snapshot = FileSource([str(cluster_file(case))]).load()
    pod = next(p for p in snapshot.pods if f"{p.metadata.namespace}/{p.metadata.name}" == target)
    if pod.spec.node_name:
        pytest.skip("the target is bound")
    placer = Placer(snapshot, config, reuse=reuse)
    return [
        (r.node, r.verdict.value, placement_text(r.reason), r.tied)
        for r in (placer.schedule(p) for p in _replicas(pod, REPLICAS))
    ]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in case_dirs()])
def test_reuse_places_replicas_as_fresh_cycles_do(case: Path) -> None:
    assert _placements(case, reuse=True) == _placements(case, reuse=False)


def test_labels_are_not_part_of_the_signature_but_the_spec_is() -> None:
    a = make_pod("a").labels(x="1").req(cpu="1").obj()
    b = make_pod("b").labels(x="2").req(cpu="1").obj()
    c = make_pod("c").labels(x="1").req(cpu="2").obj()
    assert replica_signature(a) == replica_signature(b) != replica_signature(c)


def test_a_bound_node_is_filtered_again() -> None:
    """Two replicas fit on n1, the third no longer: the verdict of n1 kept from the first cycle
    must not outlive the pods bound there."""
    from podwhy.snapshot.cluster import Snapshot

    snapshot = Snapshot(nodes=[make_node("n1").alloc(cpu="2", memory="8Gi", pods=110).obj()])
    placer = Placer(snapshot, default_config())
    pods = [make_pod(f"p{i}").req(cpu="1").obj() for i in range(3)]
    placed = [placer.schedule(p) for p in pods]
    assert [r.node for r in placed] == ["n1", "n1", ""]
    assert "Insufficient cpu" in placement_text(placed[2].reason)
