"""The chosen kube-scheduler release in words: the warnings scheduler.release' choice calls for."""

from __future__ import annotations

from podwhy.features.emulation import DIFFERENCES_AFTER, DIFFERENCES_BEFORE
from podwhy.scheduler.release import KUBELET_SKEW, ChosenVersion, VersionSource


def version_warnings(chosen: ChosenVersion | None) -> list[str]:
    """What the choice leaves uncertain, in one line: the cluster's release and how podwhy knows
    it (a kubelet's is a lower bound), the release emulated in its place when podwhy does not
    emulate it (and what may differ), DRA or MutatingAdmissionPolicy turned on by the cluster,
    MutatingAdmissionPolicies in a version the release does not serve, kubelets outside the
    supported skew of the cluster's own control plane. [] when nothing is uncertain."""
    if chosen is None:
        return []
    found = chosen.found
    name = chosen.emulation.name
    parts: list[str] = []
    if chosen.source is VersionSource.KUBELET:
        parts.append(
            f"the cluster runs {found} or newer (its newest kubelet, a lower bound: pass --kube-version to say"
            " which release its kube-scheduler runs)"
        )
    if chosen.not_emulated:
        differs = DIFFERENCES_BEFORE if chosen.older_than_emulated else DIFFERENCES_AFTER
        nearest = "oldest" if chosen.older_than_emulated else "newest"
        emulates = f"v{name}, the {nearest} release it has; what may differ: {differs}"
        if chosen.source is VersionSource.KUBELET:
            parts.append(f"podwhy emulates {emulates}")
        else:
            parts.append(f"podwhy does not emulate kube-scheduler {found} ({chosen.where}): it emulates {emulates}")
    if chosen.dra_enabled_by_cluster:
        served = ", ".join(chosen.dra_enabled_by_cluster)
        parts.append(
            f"the cluster serves DRA objects ({served}): it has DynamicResourceAllocation on, which is off by"
            f" default in v{name}; podwhy emulates v{name} with it on"
        )
    if chosen.map_enabled_by_cluster:
        served = ", ".join(chosen.map_enabled_by_cluster)
        parts.append(
            f"the cluster serves MutatingAdmissionPolicies ({served}): it has MutatingAdmissionPolicy on, which is"
            f" off by default in v{name}; podwhy emulates v{name} with it on"
        )
    if chosen.map_not_served:
        held = ", ".join(chosen.map_not_served)
        serves = ", ".join(
            f"admissionregistration.k8s.io/{v}" for v in chosen.emulation.mutating_admission_policy_versions
        )
        parts.append(
            f"the snapshot holds MutatingAdmissionPolicies in {held}, which Kubernetes v{name} does not serve (it"
            f" serves {serves}): they are of another release; podwhy applies them as v{name} applies its own"
            " (pass --kube-version to emulate the cluster's release)"
        )
    if chosen.old_kubelets:
        names = ", ".join(f"v{major}.{minor}" for major, minor in chosen.old_kubelets)
        parts.append(
            f"some kubelets ({names}) are more than {KUBELET_SKEW} minor releases older than"
            f" {chosen.skew_reference}: outside the supported version skew, their nodes may not report what the"
            " scheduler reads"
        )
    return ["; ".join(parts)] if parts else []
