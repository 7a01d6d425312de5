"""Template comparison, as the workload controllers compare a manifest's pod template with the
revision they run (pkg/controller/history, deploymentutil.EqualIgnoreHash): the stored templates
of a workload's owners, the template `kubectl apply` leaves, and, where the snapshot holds no
stored template, the old pods compared in every field podwhy reads."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from podwhy.cluster.apiserver.admission import podtopologylabels
from podwhy.cluster.apiserver.admission.defaulttolerationseconds import DEFAULT_TOLERATION_SECONDS
from podwhy.cluster.apiserver.admission.priority import DEFAULT_PREEMPTION_POLICY
from podwhy.cluster.apiserver.defaults import (
    Json,
    canonical_quantities,
    default_pod_spec,
    default_template,
    stored_form,
)
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.model.wellknownnames import (
    CONTROLLER_REVISION_HASH,
    POD_TEMPLATE_HASH,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_UNREACHABLE,
)
from podwhy.snapshot.cluster import Snapshot

# Labels a controller sets per revision or per pod: not part of what the template asks for.
_CONTROLLER_LABELS = frozenset(
    {
        POD_TEMPLATE_HASH,
        CONTROLLER_REVISION_HASH,
        "pod-template-generation",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "batch.kubernetes.io/controller-uid",
        "controller-uid",
        "batch.kubernetes.io/job-name",
        "job-name",
        "batch.kubernetes.io/job-completion-index",
    }
)
# Volumes the API server adds to every pod (the ServiceAccount admission's token volume).
_TOKEN_VOLUME_PREFIX = "kube-api-access-"


def _template_view(pod: o.Pod, not_template: Collection[str] = ()) -> object:
    """What a pod's template asked for, as far as podwhy reads pods: its spec without the node and
    the ServiceAccount's token volume, with what the API server's defaulting and admission fill in
    on every pod (so a dump stripped of those compares alike), and its labels without the
    controller's."""
    tolerations = list(pod.spec.tolerations)
    for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not any(t.key == key and t.effect == "NoExecute" for t in tolerations):
            tolerations.append(
                o.Toleration(
                    key=key, operator="Exists", effect="NoExecute", toleration_seconds=DEFAULT_TOLERATION_SECONDS
                )
            )
    spec = msgspec.structs.replace(
        pod.spec,
        node_name="",
        volumes=[v for v in pod.spec.volumes if not v.name.startswith(_TOKEN_VOLUME_PREFIX)],
        tolerations=sorted(tolerations, key=lambda t: msgspec.json.encode(t)),
        priority=pod.spec.priority or 0,
        preemption_policy=pod.spec.preemption_policy or DEFAULT_PREEMPTION_POLICY,
    )
    labels = {k: v for k, v in pod.metadata.labels.items() if k not in _CONTROLLER_LABELS and k not in not_template}
    raw = msgspec.to_builtins(spec)
    default_pod_spec(raw, pod=True)
    canonical_quantities(raw)  # "1000m" and "1" ask for the same
    return raw, labels


def stored_templates(snapshot: Snapshot, kind: str, namespace: str, old: Sequence[o.Pod]) -> list[Json] | None:
    """The stored pod templates a manifest of KIND is compared with, from the objects owning the
    OLD pods: their ReplicaSets' (a Deployment's or a ReplicaSet's own), or their StatefulSet's or
    Job's. None when the snapshot does not hold every one (a DaemonSet's or ReplicationController's
    template is not read): the pods are compared instead (same_template)."""
    if kind not in ("Deployment", "ReplicaSet", "StatefulSet", "Job") or not old:
        return None
    owner_kind = "ReplicaSet" if kind in ("Deployment", "ReplicaSet") else kind
    owners = {ref.name for p in old for ref in p.metadata.owner_references if ref.controller and ref.kind == owner_kind}
    found = [snapshot.raw_templates.get((owner_kind, namespace, name)) for name in sorted(owners)]
    if not found or any(data is None for data in found):
        return None
    try:
        templates = [msgspec.json.decode(data) for data in found if data is not None]
    except msgspec.DecodeError:
        return None
    return templates if all(isinstance(t, dict) for t in templates) else None


def same_template(old: Sequence[o.Pod], new: o.Pod, emulation: Emulation = DEFAULT) -> bool:
    """Every old pod asks for what the new replica asks for, in every field podwhy reads (the
    fallback when the snapshot holds no stored template: fields podwhy does not read are not
    compared). The topology labels PodTopologyLabels admission copied from the node at binding
    (on by default from v1.35) are not the template's: an old pod's are left out unless the new
    replica's template sets them."""
    view = _template_view(new)
    added: tuple[str, ...] = ()
    if podtopologylabels.enabled(emulation):
        added = tuple(key for key in podtopologylabels.TOPOLOGY_LABELS if key not in new.metadata.labels)
    return all(_template_view(p, added) == view for p in old)


def applied_template(manifest: Json, live: Json, emulation: Emulation = DEFAULT) -> Json:
    """The template `kubectl apply` of MANIFEST's template leaves on a workload whose stored
    template is LIVE, as the API server stores it: the manifest's, defaulted, with the live
    template's labels and annotations the manifest does not name kept (its three-way merge keeps
    a field it did not apply before, such as `kubectl rollout restart`'s
    kubectl.kubernetes.io/restartedAt). Other live-only fields are not merged: podwhy does not
    read the last-applied-configuration, so a field set by another client (`kubectl set env`)
    and absent from the manifest counts as a change."""
    applied = default_template(manifest, emulation)
    meta = applied.setdefault("metadata", {})
    live_meta = live.get("metadata")
    if isinstance(meta, dict) and isinstance(live_meta, dict):
        for part in ("labels", "annotations"):
            kept = live_meta.get(part)
            if isinstance(kept, dict) and kept:
                mine = meta.get(part)
                meta[part] = {**kept, **(mine if isinstance(mine, dict) else {})}
    return stored_form(applied)


def same_stored_template(manifest: Json, stored: Json, emulation: Emulation = DEFAULT) -> bool:
    """Whether applying MANIFEST's pod template leaves the STORED one as it is, every field
    compared as the API server stores it: what decides whether the controllers create new pods
    (the Deployment controller hashes the whole template into pod-template-hash and looks for the
    ReplicaSet whose template equals it but for that label; the StatefulSet and DaemonSet
    controllers compare the template with their ControllerRevision's). STORED is read as stored
    (defaulting it again changes nothing), less a ReplicaSet's pod-template-hash label."""
    live = without_hash(stored, emulation)
    return applied_template(manifest, live, emulation) == live


def without_hash(stored: Json, emulation: Emulation) -> Json:
    """A stored template as the API server writes it, less a ReplicaSet's pod-template-hash label."""
    live = stored_form(default_template(stored, emulation))
    labels = live.get("metadata", {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH, None)
        if not labels:
            del live["metadata"]["labels"]
    return live
