"""Which kube-scheduler release to emulate for a cluster, how podwhy knows, and what that leaves open.

In order: --kube-version; the API server's /version (live, or as `podwhy snapshot` recorded
it); the image tag of the cluster's own kube-scheduler pod; the highest kubelet version of
the nodes (a lower bound: the control plane may be up to three minors newer); else v1.35.
A release podwhy does not emulate is emulated by the nearest one it does, with a warning.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

import msgspec

from podwhy.errors import UsageError
from podwhy.features.emulation import DEFAULT, EMULATED, Emulation, KubeVersion, nearest_emulation, parse_version
from podwhy.features.kubefeatures import DYNAMIC_RESOURCE_ALLOCATION, MUTATING_ADMISSION_POLICY
from podwhy.model.records import replace
from podwhy.scheduler.schedulers import KUBE_SCHEDULER, KUBE_SYSTEM, SchedulerPods, image_name
from podwhy.snapshot.cluster import Snapshot

# kube-scheduler supports kubelets up to three minors older than itself (version skew policy).
KUBELET_SKEW = 3


class VersionSource(StrEnum):
    """How the version was chosen (the report's scheduler.versionSource)."""

    FLAG = "flag"
    API_SERVER = "apiServer"
    SCHEDULER_IMAGE = "schedulerImage"
    KUBELET = "kubeletLowerBound"
    DEFAULT = "default"


class ChosenVersion(msgspec.Struct):
    emulation: Emulation
    source: VersionSource
    # The cluster's version as found ("v1.36.3-eks-1a2b"), None when nothing said it.
    found: KubeVersion | None = None
    # Where it was found, in words ("the API server's /version of live: https://...").
    where: str = ""
    # Kubelets (major, minor) more than KUBELET_SKEW minor releases older than the emulated release.
    old_kubelets: list[tuple[int, int]] = msgspec.field(default_factory=list)
    # The DRA apiVersions the cluster served although DynamicResourceAllocation is off by default
    # in the emulated release: the cluster enabled it, and so does the emulation.
    dra_enabled_by_cluster: list[str] = msgspec.field(default_factory=list)
    # The MutatingAdmissionPolicy apiVersions the cluster served although the gate is off by
    # default in the emulated release (it turned it on, and so does the emulation), and those of
    # its objects the emulated release cannot serve at all (the snapshot is of another release).
    map_enabled_by_cluster: list[str] = msgspec.field(default_factory=list)
    map_not_served: list[str] = msgspec.field(default_factory=list)

    @property
    def not_emulated(self) -> bool:
        """The cluster's release is not one podwhy emulates (the nearest one stands in for it)."""
        found = self.found
        return found is not None and (found.major, found.minor) != (1, self.emulation.minor)

    @property
    def reference_minor(self) -> int:
        """The minor release kubelets are held to (the skew policy): the cluster's own control plane's
        where podwhy found it, else the emulated release's."""
        found = self.found
        return found.minor if found is not None and found.major == 1 else self.emulation.minor

    @property
    def skew_reference(self) -> str:
        """The release kubelets are held to, in words: "the control plane's v1.30" where podwhy found
        the cluster's release ("the newest kubelet's v1.30" where a kubelet said it, a lower bound of
        the control plane's), else "kube-scheduler v1.35" (the emulated one)."""
        found = self.found
        if found is None or found.major != 1:
            return f"kube-scheduler v{self.emulation.name}"
        if self.source is VersionSource.KUBELET:
            return f"the newest kubelet's v1.{found.minor}"
        return f"the control plane's v1.{found.minor}"

    @property
    def older_than_emulated(self) -> bool:
        found = self.found
        return found is not None and (found.major, found.minor) < (1, self.emulation.minor)


def parse_kube_version_flag(text: str) -> KubeVersion:
    version = parse_version(text)
    if version is None:
        supported = ", ".join(f"1.{m}" for m in sorted(EMULATED))
        raise UsageError(f"--kube-version {text!r}: not a Kubernetes version", hint=f"e.g. {supported} or v1.36.3")
    return version


def _scheduler_image_version(snapshot: Snapshot) -> KubeVersion | None:
    """The highest version tag of the cluster's own kube-scheduler pods' images (they run in
    kube-system, or a namespace named after the scheduler: the other pods are not looked at)."""
    found: list[KubeVersion] = []
    for sp in SchedulerPods.of(snapshot.pods):  # found once for the snapshot's pods
        namespace = sp.pod.metadata.namespace
        if not sp.control_plane or not (namespace == KUBE_SYSTEM or "sched" in namespace):
            continue
        for container in sp.pod.spec.containers:
            if image_name(container.image) != KUBE_SCHEDULER:
                continue
            tag = container.image.partition("@")[0].rpartition("/")[2].partition(":")[2]
            version = parse_version(tag) if tag else None
            if version is not None and version.major == 1:
                found.append(version)
    return max(found) if found else None


def _kubelet_versions(snapshot: Snapshot) -> list[KubeVersion]:
    """The nodes' kubelet versions, each once (the release is chosen from the highest, and the
    skew is said of the set): most nodes of a large cluster run one of a few. In the nodes' order."""
    nodes = snapshot.nodes
    written = dict.fromkeys(info.kubelet_version for node in nodes if (info := node.status.node_info) is not None)
    return [version for text in written if text and (version := parse_version(text)) is not None]


# The DRA kinds, and the version a cluster serves them in whatever its gates (resource.k8s.io/v1
# exists only from v1.34, where the gate is on by default).
DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")
DRA_GA_VERSION = "resource.k8s.io/v1"


def _honour_dra_gate(chosen: ChosenVersion, snapshot: Snapshot) -> None:
    """A cluster of a release whose DynamicResourceAllocation is off by default (v1.33) that serves
    DRA objects in a beta or alpha version has turned the gate on (the API group is only served
    then): emulate the release with it on, rather than ignore its claims."""
    if chosen.emulation.enabled(DYNAMIC_RESOURCE_ALLOCATION):
        return
    served = sorted({v for kind in DRA_KINDS for v in snapshot.api_versions.get(kind, ()) if v and v != DRA_GA_VERSION})
    if served:
        gates = MappingProxyType({**chosen.emulation.gates, DYNAMIC_RESOURCE_ALLOCATION: True})
        chosen.emulation = replace(chosen.emulation, gates=gates)
        chosen.dra_enabled_by_cluster = served


# The kinds of the MutatingAdmissionPolicy API.
MAP_KINDS = ("MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding")


def _honour_map_gate(chosen: ChosenVersion, snapshot: Snapshot) -> None:
    """A snapshot holding MutatingAdmissionPolicies is of a cluster that serves them: where the
    release's gate is off by default, the cluster turned it on (emulated with it on). Versions the
    release cannot serve are said: the snapshot and the emulated release disagree."""
    found = sorted({v for kind in MAP_KINDS for v in snapshot.api_versions.get(kind, ()) if v})
    if not found:
        return
    serves = chosen.emulation.mutating_admission_policy_versions
    chosen.map_not_served = [v for v in found if v.rpartition("/")[2] not in serves]
    if not chosen.emulation.enabled(MUTATING_ADMISSION_POLICY):
        gates = MappingProxyType({**chosen.emulation.gates, MUTATING_ADMISSION_POLICY: True})
        chosen.emulation = replace(chosen.emulation, gates=gates)
        chosen.map_enabled_by_cluster = [v for v in found if v not in chosen.map_not_served]


def choose_version(flag: str | None, snapshot: Snapshot) -> ChosenVersion:
    """The release to emulate for this snapshot (see the module's docstring)."""
    kubelets = _kubelet_versions(snapshot)
    chosen: ChosenVersion
    server = parse_version(snapshot.server_version) if snapshot.server_version else None
    image = _scheduler_image_version(snapshot) if flag is None and server is None else None
    if flag is not None:
        version = parse_kube_version_flag(flag)
        chosen = ChosenVersion(nearest_emulation(version), VersionSource.FLAG, version, "--kube-version")
    elif server is not None:
        version = server
        where = "the API server's /version"
        if snapshot.server_version_from:
            where += f" ({snapshot.server_version_from})"
        chosen = ChosenVersion(nearest_emulation(version), VersionSource.API_SERVER, version, where)
    elif image is not None:
        version = image
        chosen = ChosenVersion(
            nearest_emulation(version), VersionSource.SCHEDULER_IMAGE, version, "the kube-scheduler pod's image tag"
        )
    elif kubelets:
        version = max(kubelets)
        chosen = ChosenVersion(
            nearest_emulation(version), VersionSource.KUBELET, version, "the highest kubelet version of the nodes"
        )
    else:
        chosen = ChosenVersion(DEFAULT, VersionSource.DEFAULT)
    _honour_dra_gate(chosen, snapshot)
    _honour_map_gate(chosen, snapshot)
    # The skew is the cluster's own: kubelets against its control plane's release where known.
    oldest_supported = chosen.reference_minor - KUBELET_SKEW
    chosen.old_kubelets = sorted({(v.major, v.minor) for v in kubelets if v.major == 1 and v.minor < oldest_supported})
    return chosen
