"""A view over a snapshot shared by another release (Handle.for_release) decides every pod as a
view built anew for that release does: the likely-release check reuses explain's node indexes
instead of indexing every pod once per release (issue 39)."""

from __future__ import annotations

from hypothesis import given

from podwhy.features.emulation import EMULATED
from podwhy.report.build.explain import build_report
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import framework_for_release, make_framework, run_cycle
from tests.strategies import Cluster, clusters


@given(clusters())
def test_a_view_shared_by_every_release_decides_as_one_built_for_it(cluster: Cluster) -> None:
    snapshot = cluster.snapshot()
    releases = sorted(EMULATED.values(), key=lambda e: e.minor)
    base = make_framework(snapshot, default_profile(releases[-1]))
    run_cycle(snapshot, cluster.pod, framework=base)  # the emulated release's own cycle first, as explain's
    for emulation in releases:
        profile = default_profile(emulation)
        fresh = build_report(run_cycle(snapshot, cluster.pod, profile), snapshot)
        framework = framework_for_release(base, profile)
        shared = build_report(run_cycle(snapshot, cluster.pod, framework=framework), snapshot)
        assert shared == fresh, emulation.name


@given(clusters())
def test_a_shared_view_leaves_the_one_it_shares_as_it_was(cluster: Cluster) -> None:
    """Pods bound in the shared view (as check binds them) leave the base view's nodes as they were."""
    snapshot = cluster.snapshot()
    releases = sorted(EMULATED.values(), key=lambda e: e.minor)
    base = make_framework(snapshot, default_profile(releases[-1]))
    before = {ni.name: (len(ni.pods), ni.requested.clone()) for ni in base.handle.node_infos}
    other = framework_for_release(base, default_profile(releases[0]))
    if snapshot.nodes:
        pod = cluster.pod
        pod.spec.node_name = snapshot.nodes[0].metadata.name
        other.handle.add_bound_pod(pod)
        assert len(other.handle.node_info_by_name[pod.spec.node_name].pods) == before[pod.spec.node_name][0] + 1
    assert {ni.name: (len(ni.pods), ni.requested) for ni in base.handle.node_infos} == before
