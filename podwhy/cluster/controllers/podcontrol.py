"""How the workload controllers create pods (controller_utils.go's PodControl) while `check` runs
them, and the scheduler as they reach it.

A pod a controller creates comes with its claims: a StatefulSet ordinal's PVCs from its claim
templates (the StatefulSet controller), a generic ephemeral volume's PVC (the ephemeral volume
controller), each with what admission sets, and its ResourceClaims from templates (the
resource-claim controller). Once created, the scheduler places it: the controllers hand it to a
`Scheduler`, the protocol cluster/placement.py's Placer satisfies, and never import the
scheduler's side themselves. A pod preemption evicted is created again by its controller
(`replacement_pod`).
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from podwhy.cluster.apiserver.admission.defaultstorageclass import admit_claim
from podwhy.cluster.controllers.persistentvolume import ClaimBinder
from podwhy.cluster.controllers.resourceclaim import create_template_claims
from podwhy.cluster.controllers.types import ManifestWorkload, ReplicaPlacement, created_uid, deep_copy
from podwhy.framework.outcome import FilterOutcome
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.names import suffix


class Scheduler(Protocol):
    """kube-scheduler as the controllers' pods meet it (cluster/placement.py's Placer): a pod
    created is scheduled and bound where it fits (or, naming its node, admitted by that node's
    kubelet), a pod deleted leaves its node; the filters are what the DaemonSet controller's
    node predicates read. Its `claims` is the PV controller's binder, which VolumeBinding shares."""

    claims: ClaimBinder

    def schedule(self, pod: o.Pod) -> ReplicaPlacement: ...

    def pin(self, pod: o.Pod) -> ReplicaPlacement: ...

    def unbind(self, pod: o.Pod) -> None: ...

    def run_filters(self, pod: o.Pod) -> FilterOutcome | None: ...


def claims_for(workload: ManifestWorkload, pod: o.Pod, snapshot: Snapshot) -> list[o.PersistentVolumeClaim]:
    """The PVCs created along with POD: a StatefulSet ordinal's claims, and every generic
    ephemeral volume's claim; each with what admission sets (its default StorageClass)."""
    out: list[o.PersistentVolumeClaim] = []
    if workload.kind == "StatefulSet":
        ordinal = pod.metadata.name.rsplit("-", 1)[-1]
        for claim_template in workload.claim_templates:
            claim = deep_copy(claim_template, o.PersistentVolumeClaim)
            claim.metadata.name = f"{claim_template.metadata.name}-{workload.name}-{ordinal}"
            claim.metadata.namespace = workload.namespace
            claim.metadata.labels = {**claim.metadata.labels, **workload.selector_labels}
            out.append(claim)
    for volume in pod.spec.volumes:
        template = volume.ephemeral.volume_claim_template if volume.ephemeral is not None else None
        if template is None:
            continue
        meta = template.metadata
        claim = o.PersistentVolumeClaim(
            metadata=o.ObjectMeta(
                name=f"{pod.metadata.name}-{volume.name}",
                namespace=pod.metadata.namespace,
                labels=dict(meta.labels),
                annotations=dict(meta.annotations),
                owner_references=[
                    o.OwnerReference(
                        api_version="v1", kind="Pod", name=pod.metadata.name, uid=pod.metadata.uid, controller=True
                    )
                ],
            ),
            spec=deep_copy(template.spec or o.PersistentVolumeClaimSpec(), o.PersistentVolumeClaimSpec),
        )
        out.append(claim)
    for claim in out:
        claim.metadata.uid = created_uid(claim.metadata.namespace, "PersistentVolumeClaim", claim.metadata.name)
        admit_claim(claim, snapshot)
    return out


def create_claims(scheduler: Scheduler, workload: ManifestWorkload, pod: o.Pod, snapshot: Snapshot) -> None:
    """The claims created with POD (claims_for, which the PV controller binds if it can at once,
    and its ResourceClaims from templates), before the scheduler sees it."""
    for claim in claims_for(workload, pod, snapshot):
        scheduler.claims.create(claim)
    create_template_claims(pod, snapshot)


def replacement_pod(victim: o.Pod) -> o.Pod:
    """The pod the victim's controller creates in its place: the same spec, not bound, a name of
    its own (its generateName, or its controller's name, with podwhy's deterministic suffix; a
    StatefulSet's ordinal keeps its name)."""
    meta = victim.metadata
    owner = next((ref for ref in meta.owner_references if ref.controller), None)
    if owner is not None and owner.kind == "StatefulSet":
        name = meta.name  # a StatefulSet creates the same ordinal again
    else:
        base = meta.generate_name or (f"{owner.name}-" if owner is not None else f"{meta.name}-")
        name = base + suffix(f"replacement/{meta.namespace}/{meta.name}")
    spec = msgspec.structs.replace(victim.spec, node_name="")
    return msgspec.structs.replace(
        victim,
        metadata=msgspec.structs.replace(meta, name=name, uid=f"uid-replacement-{meta.namespace}-{meta.name}"),
        spec=spec,
        status=o.PodStatus(phase="Pending"),
    )
