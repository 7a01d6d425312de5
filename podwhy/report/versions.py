"""The chosen kube-scheduler release in words: the warnings scheduler.versions' choice calls for."""

from __future__ import annotations

from podwhy.framework.versions import DIFFERENCES_AFTER, DIFFERENCES_BEFORE
from podwhy.scheduler.versions import KUBELET_SKEW, ChosenVersion, VersionSource


def version_warnings(chosen: ChosenVersion | None) -> list[str]:
    """What the choice leaves uncertain: a version read off a kubelet, a release podwhy does not
    emulate (what may differ), kubelets outside the supported skew."""
    if chosen is None:
        return []
    out: list[str] = []
    found = chosen.found
    if chosen.source is VersionSource.KUBELET:
        out.append(
            f"the cluster's version is taken from its newest kubelet ({found}), a lower bound: the control"
            " plane may be newer (pass --kube-version to say which release its kube-scheduler runs)"
        )
    if chosen.not_emulated:
        differs = DIFFERENCES_BEFORE if chosen.older_than_emulated else DIFFERENCES_AFTER
        what = "release" if chosen.source is VersionSource.KUBELET else "kube-scheduler"
        out.append(
            f"podwhy does not emulate {what} {found} ({chosen.where}): it emulates v{chosen.emulation.name},"
            f" the nearest release it has; what may differ: {differs}"
        )
    if chosen.dra_enabled_by_cluster:
        served = ", ".join(chosen.dra_enabled_by_cluster)
        out.append(
            f"the cluster serves DRA objects ({served}): it has DynamicResourceAllocation on, which is off by"
            f" default in v{chosen.emulation.name}; podwhy emulates v{chosen.emulation.name} with it on"
        )
    if chosen.old_kubelets:
        names = ", ".join(f"v{major}.{minor}" for major, minor in chosen.old_kubelets)
        out.append(
            f"some kubelets ({names}) are more than {KUBELET_SKEW} minor releases older than kube-scheduler"
            f" v{chosen.emulation.name}: outside the supported version skew, their nodes may not report what the"
            " scheduler reads"
        )
    return out
