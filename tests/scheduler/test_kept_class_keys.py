"""The class keys a node keeps (equivalence.NodeClasses.key, NodeInfo.class_keys) decide as keys read
anew: the pod's cycles in every release over one set of node indexes (the likely-release check's
shared views), with pods bound in between, decide every node as filtering each node on its own."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings

from podwhy.features.emulation import EMULATED
from podwhy.framework import equivalence
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import framework_for_release, make_framework, run_cycle
from tests.scheduler.test_node_classes import _cycle, node_classes, shaped_clusters
from tests.strategies import Cluster


@settings(max_examples=max(100, settings().max_examples))
@given(shaped_clusters())
def test_kept_keys_decide_as_keys_read_anew(cluster: Cluster) -> None:
    snapshot = cluster.snapshot()
    releases = sorted(EMULATED.values(), key=lambda e: -e.minor)
    base = make_framework(snapshot, default_profile(releases[0]))
    with node_classes(True):
        run_cycle(snapshot, cluster.pod, framework=base)
    nodes = [n.metadata.name for n in snapshot.nodes]
    for step, emulation in enumerate(releases * 2):
        profile = default_profile(emulation)
        shared = framework_for_release(base, profile)
        if step >= len(releases) and nodes:
            # A pod bound since: that node's kept keys are forgotten, its new room read.
            pod = snapshot.pods[step % len(snapshot.pods)]
            name = f"bound-{step}"
            bound = msgspec.structs.replace(
                pod,
                metadata=msgspec.structs.replace(pod.metadata, name=name, uid=name),
                spec=msgspec.structs.replace(pod.spec, node_name=nodes[step % len(nodes)]),
            )
            base.handle.add_bound_pod(bound)
            shared = framework_for_release(base, profile)
        with node_classes(True):
            kept = _cycle(run_cycle(snapshot, cluster.pod, framework=shared))
        with node_classes(False):
            fresh = _cycle(run_cycle(snapshot, cluster.pod, framework=framework_for_release(base, profile)))
        assert kept == fresh, (step, emulation.name)
    assert equivalence.ENABLED
