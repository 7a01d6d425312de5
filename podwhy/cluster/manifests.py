"""Manifests for `podwhy check` and `explain -f`: Pods and workload templates turned into the pods
their controllers would create, with what admission would set.

Inputs are files, folders (recursively), multi-document YAML or JSON, and `-` for stdin (e.g.
`helm template ... | podwhy check -f -`), read by the one typed decoder (decode.py) that reads
dumps. Workloads are Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs and CronJobs; each
becomes its replica pods, named and owned as their controller names and owns them (names.py:
the random parts are podwhy's own, derived from hashes). Objects the plugins read that a chart
may ship alongside (Services, PVs, PVCs, PDBs, PriorityClasses, RuntimeClasses,
StorageClasses) are added to the snapshot first, as `kubectl apply` would create them.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import msgspec

from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.chain import add_manifest_pod, admit
from podwhy.cluster.apiserver.admission.defaultstorageclass import admit_claim
from podwhy.cluster.apiserver.admission.resourcequota import sync_manifest_quotas
from podwhy.cluster.apiserver.fieldvalidation import check_fields
from podwhy.cluster.apiserver.validation import InvalidObjectError, validate_workload
from podwhy.cluster.apiserver.warnings import warn_on_create
from podwhy.cluster.controllers.daemonset import add_daemon_tolerations
from podwhy.cluster.controllers.deployment import ReplicaSetRevision, deployment_replica_sets, find_new_replica_set
from podwhy.cluster.controllers.job import JobShape, LiveJob, job_shape, job_update_refusal, live_job
from podwhy.cluster.controllers.revisions import same_stored_template, stored_templates
from podwhy.cluster.controllers.rollout import existing_pods
from podwhy.cluster.controllers.statefulset import mount_claims
from podwhy.errors import PodwhyError
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.model.gojson import without_nulls
from podwhy.model.wellknownnames import CONTROLLER_REVISION_HASH, POD_TEMPLATE_HASH
from podwhy.snapshot.cluster import Snapshot, ns_name
from podwhy.snapshot.decode import Entry, check_object, decode
from podwhy.snapshot.limits import MAX_PODS
from podwhy.snapshot.names import generated_name, indexed_job_prefix, pods_prefix, template_hash
from podwhy.snapshot.source import STDIN, _object_files, _read_bytes, input_names, read_stream

WORKLOAD_KINDS = o.WORKLOAD_KINDS
SUPPORT_KINDS = o.MANIFEST_SUPPORT_KINDS
_CLUSTER_SCOPED_SUPPORT = frozenset(
    {"Namespace", "PersistentVolume", "PriorityClass", "RuntimeClass", "StorageClass", "DeviceClass"}
)

# Tolerations the DaemonSet controller adds to its pods (if the template lacks them).
_T = TypeVar("_T", bound=msgspec.Struct)

JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
# The scheduled time a CronJob's Job is named after (minutes since the Unix epoch): podwhy's
# own fixed 2025-01-01T00:00:00Z, since no real schedule is run.
CRON_JOB_SCHEDULED_MINUTES = 1735689600 // 60


@dataclass
class ManifestWorkload:
    """One Pod or workload of the manifests, with the pods its controller would create."""

    kind: str
    namespace: str
    name: str
    source: str
    # The replicas in the order the controller creates them (empty for a DaemonSet).
    pods: list[o.Pod] = field(default_factory=list)
    # DaemonSet: the admitted pod every eligible node gets, before its node-name affinity.
    daemon_template: o.Pod | None = None
    # StatefulSet with OrderedReady: ordinal i+1 is created only once ordinal i runs.
    ordered: bool = False
    # StatefulSet: the claim templates each ordinal's PVCs are made from.
    claim_templates: list[o.PersistentVolumeClaim] = field(default_factory=list)
    selector_labels: dict[str, str] = field(default_factory=dict)
    # The pods of this workload the cluster already runs (the manifest updates it), and how the
    # manifest says to roll out a change (cluster.controllers.rollout).
    existing: list[o.Pod] = field(default_factory=list)
    # Whether the manifest leaves the stored template as it is, every field compared
    # (revisions.same_stored_template); None when the snapshot holds no stored template.
    template_unchanged: bool | None = None
    strategy: o.DeploymentStrategy | None = None
    update_strategy: o.StatefulSetUpdateStrategy | None = None
    progress_deadline_seconds: int | None = None
    # Deployment: the cluster's ReplicaSet whose template is the manifest's (FindNewReplicaSet:
    # a rollback, or a rollout under way), which its controller scales up rather than creating
    # one; and the pods it already runs (of EXISTING).
    new_replica_set: str = ""
    current: list[o.Pod] = field(default_factory=list)
    # Job: its spec as the manifest sets it, the Job the snapshot holds (None: none), and the API
    # server's words refusing the update ("": it applies).
    job_shape: JobShape | None = None
    live_job: LiveJob | None = None
    job_refusal: str = ""
    # The release whose API server admitted it (what its pods' comparison reads).
    emulation: Emulation = DEFAULT
    # Deployment: spec.paused (its controller rolls out no new template until it is resumed).
    paused: bool = False
    # Replicas PodSecurity or ResourceQuota admission refused, or the API server found invalid (by
    # pod name): the API server's words. Their controller's create fails (FailedCreate) and is
    # retried.
    refused: dict[str, str] = field(default_factory=dict)
    # DaemonSet: PodSecurity's refusal of its template, the words after `pods "NAME" is
    # forbidden: ` (it refuses every node's pod alike).
    daemon_refusal: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name} ({self.kind})"

    def claims_for(self, pod: o.Pod, snapshot: Snapshot) -> list[o.PersistentVolumeClaim]:
        """The PVCs created along with POD: a StatefulSet ordinal's claims, and every generic
        ephemeral volume's claim; each with what admission sets (its default StorageClass)."""
        out: list[o.PersistentVolumeClaim] = []
        if self.kind == "StatefulSet":
            ordinal = pod.metadata.name.rsplit("-", 1)[-1]
            for claim_template in self.claim_templates:
                claim = _copy(claim_template, o.PersistentVolumeClaim)
                claim.metadata.name = f"{claim_template.metadata.name}-{self.name}-{ordinal}"
                claim.metadata.namespace = self.namespace
                claim.metadata.labels = {**claim.metadata.labels, **self.selector_labels}
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
                spec=_copy(template.spec or o.PersistentVolumeClaimSpec(), o.PersistentVolumeClaimSpec),
            )
            out.append(claim)
        for claim in out:
            claim.metadata.uid = _uid(claim.metadata.namespace, "PersistentVolumeClaim", claim.metadata.name)
            admit_claim(claim, snapshot)
        return out


class ManifestSource:
    """Manifests from files, folders or '-' (stdin)."""

    _emulation: Emulation = DEFAULT

    def __init__(self, paths: Sequence[str], namespace: str = "default", stdin: BinaryIO | None = None) -> None:
        self.paths = list(paths)
        self.namespace = namespace
        self.stdin = stdin
        self._entries: list[Entry] | None = None
        # Kinds of the manifests podwhy does not read, with how many objects of each.
        self.ignored: Counter[str] = Counter()
        # The manifests' own PVCs, created as they are applied (before any replica).
        self.applied_claims: list[o.PersistentVolumeClaim] = []
        self._names: set[tuple[str, str]] = set()
        # The pods the workloads read so far create (bounded by MAX_PODS).
        self._created = 0
        # Documents without a kind in the folders given (skipped), as (file, where in it).
        self.kindless: list[tuple[str, str]] = []

    def read(self) -> list[Entry]:
        """Every object of the inputs that manifests are read for, in input order (Lists
        unpacked; read once, stdin included)."""
        if self._entries is not None:
            return self._entries
        entries: list[Entry] = []
        for raw_path in self.paths:
            if raw_path == "-":
                stream = self.stdin if self.stdin is not None else sys.stdin.buffer
                decoded = decode(read_stream(stream, STDIN), STDIN, manifests=True)
                entries.extend(decoded.entries)
                self.ignored.update(decoded.ignored)
                continue
            path = Path(raw_path)
            if path.is_dir():
                files = _object_files(path)
                if not files:
                    raise PodwhyError(f"{path}: the folder holds no .json or .yaml files")
                for file in files:
                    decoded = decode(_read_bytes(file), str(file), manifests=True, skip_kindless=True)
                    entries.extend(decoded.entries)
                    self.ignored.update(decoded.ignored)
                    self.kindless.extend((decoded.source, where) for where in decoded.kindless)
            else:
                decoded = decode(_read_bytes(path), str(path), manifests=True)
                entries.extend(decoded.entries)
                self.ignored.update(decoded.ignored)
        self._entries = entries
        return entries

    def not_checked(self) -> dict[str, int]:
        """The kinds of the manifests podwhy does not read that may create pods (every kind but the
        Kubernetes kinds that never do), with how many objects of each: their controllers, and so
        the pods they would create, are not simulated."""
        self.read()
        return {
            kind: count
            for kind, count in sorted(self.ignored.items())
            if kind.split(" (")[0] not in NO_POD_KINDS and kind != "<no kind>"
        }

    def unsimulated_fields(self) -> dict[tuple[str, str], int]:
        """Fields of the workloads read whose effect podwhy does not simulate, by kind and field,
        with how many objects set them: a Job's podFailurePolicy (what its controller does once
        pods fail; check places the pods it starts with)."""
        found: dict[tuple[str, str], int] = {}
        for entry in self.read():
            if entry.kind == "Job" and entry.obj.spec.pod_failure_policy is not None:
                key = ("Job", "spec.podFailurePolicy")
            elif entry.kind == "CronJob" and entry.obj.spec.job_template.spec.pod_failure_policy is not None:
                key = ("CronJob", "spec.jobTemplate.spec.podFailurePolicy")
            else:
                continue
            found[key] = found.get(key, 0) + 1
        return found

    def namespaces(self) -> set[str]:
        """The Namespaces the manifests create."""
        return {entry.obj.metadata.name for entry in self.read() if entry.kind == "Namespace"}

    def workload_namespaces(self) -> list[str]:
        """The namespaces the manifests' namespaced objects go to, in input order."""
        found = (
            entry.obj.metadata.namespace or self.namespace
            for entry in self.read()
            if entry.kind not in _CLUSTER_SCOPED_SUPPORT
        )
        return list(dict.fromkeys(found))

    def load_into(self, snapshot: Snapshot, emulation: Emulation = DEFAULT) -> list[ManifestWorkload]:
        """Add the manifests' support objects to SNAPSHOT, then build every workload's pods as the
        API server of EMULATION admits them, in the manifests' order (quotas are charged so)."""
        self._emulation = emulation
        entries = self.read()
        for entry in entries:
            check_fields(entry, emulation)  # the API server's strict decoding, before anything else
        snapshot.kindless.extend(self.kindless)
        self._names = {(p.metadata.namespace, p.metadata.name) for p in snapshot.pods}
        self._created = 0
        for entry in entries:
            if entry.kind in SUPPORT_KINDS:
                self.apply(entry.kind, entry.obj, snapshot)
        sync_manifest_quotas(snapshot)
        workloads: list[ManifestWorkload] = []
        seen: set[str] = set()
        for entry in entries:
            if entry.kind in WORKLOAD_KINDS or entry.kind == "ReplicationController":
                validate_workload(entry.kind, entry.obj, emulation, entry.source)  # as `kubectl apply` creates it
                warn_on_create(snapshot, entry.kind, entry.obj, emulation.minor, self.namespace)
            if entry.kind == "Pod":
                workload = self._pod(entry, snapshot)
            elif entry.kind == "CronJob":
                workload = self._cron_job(entry, snapshot)
            elif entry.kind == "ReplicationController":
                workload = self._workload(entry, _rc_as_workload(entry.obj), snapshot)
            elif entry.kind in WORKLOAD_KINDS:
                workload = self._workload(entry, entry.obj, snapshot)
            else:
                continue
            if workload.key in seen:
                raise PodwhyError(f"{entry.source}: {workload.key} is defined twice")
            seen.add(workload.key)
            workloads.append(workload)
        if not workloads:
            sources = input_names(self.paths)
            unread = self.not_checked()
            found = f" (only kinds podwhy does not simulate: {', '.join(unread)})" if unread else ""
            raise PodwhyError(
                f"no Pods or workloads in {sources}{found}",
                hint="pass Pod, Deployment, StatefulSet, DaemonSet, Job, CronJob, ReplicaSet or ReplicationController"
                " manifests",
            )
        return workloads

    def apply(self, kind: str, obj: Any, snapshot: Snapshot) -> None:
        """One support object, as `kubectl apply` creates it. A PV or PVC the cluster already has
        keeps its binding (their specs are immutable once bound)."""
        if kind not in _CLUSTER_SCOPED_SUPPORT and not obj.metadata.namespace:
            obj.metadata.namespace = self.namespace
        if kind == "PersistentVolumeClaim":
            if ns_name(obj.metadata.namespace, obj.metadata.name) in snapshot.persistent_volume_claims:
                return
            obj.metadata.uid = obj.metadata.uid or _uid(obj.metadata.namespace, kind, obj.metadata.name)
            admit_claim(obj, snapshot)
            self.applied_claims.append(obj)
        elif kind == "PersistentVolume":
            if obj.metadata.name in snapshot.persistent_volumes:
                return
            obj.status.phase = obj.status.phase or "Available"
        elif kind == "StorageClass" and obj.volume_binding_mode is None:
            obj.volume_binding_mode = "Immediate"  # the API server's default
        snapshot.add(kind, obj)

    def _unique(self, namespace: str, base: str, seed: str) -> str:
        """A generated name no pod of the namespace has yet."""
        name = generated_name(base, seed)
        attempt = 0
        while (namespace, name) in self._names:
            attempt += 1
            name = generated_name(base, f"{seed}#{attempt}")
        self._names.add((namespace, name))
        return name

    # ------------------------------------------------------------------ kinds
    def _pod(self, entry: Entry, snapshot: Snapshot) -> ManifestWorkload:
        pod: o.Pod = entry.obj
        namespace = pod.metadata.namespace or self.namespace
        pod.metadata.namespace = namespace
        pod.metadata.uid = pod.metadata.uid or _uid(namespace, "Pod", pod.metadata.name)
        # spec.nodeName stays: such a pod goes to that node's kubelet, never to the scheduler.
        pod.status = o.PodStatus()
        workload = ManifestWorkload("Pod", namespace, pod.metadata.name, entry.source, pods=[pod])
        self._admit(pod, snapshot, namespace, workload)
        self._names.add((namespace, pod.metadata.name))
        return workload

    def _admit(self, pod: o.Pod, snapshot: Snapshot, namespace: str, workload: ManifestWorkload) -> o.Pod:
        """The API server's admission of a pod its controller (or `kubectl apply`) creates; a
        refusal by PodSecurity or ResourceQuota, or a pod the API server finds invalid (after
        LimitRange defaults), leaves a controller's pod not created (FailedCreate); an invalid Pod
        of the manifests is refused. An OrderedReady StatefulSet creates (and is charged for) each
        ordinal only when the one before runs: at placement."""
        try:
            return admit(pod, snapshot, namespace, self._emulation, quota=not workload.ordered)
        except AdmissionRefusalError as refused:
            workload.refused[pod.metadata.name] = refused.words
            return pod
        except InvalidObjectError as invalid:
            if workload.kind == "Pod":
                raise invalid.in_file(workload.source) from None
            workload.refused[pod.metadata.name] = invalid.words
            return pod

    def _cron_job(self, entry: Entry, snapshot: Snapshot) -> ManifestWorkload:
        """A CronJob's next Job, `<cronjob>-<scheduled minutes>`, owned by the CronJob."""
        cron: o.CronJobManifest = entry.obj
        namespace = cron.metadata.namespace or self.namespace
        job = o.Workload(
            api_version="batch/v1",
            kind="Job",
            metadata=o.ObjectMeta(
                name=f"{cron.metadata.name}-{CRON_JOB_SCHEDULED_MINUTES}",
                namespace=namespace,
                owner_references=[
                    o.OwnerReference(
                        api_version="batch/v1",
                        kind="CronJob",
                        name=cron.metadata.name,
                        uid=_uid(namespace, "CronJob", cron.metadata.name),
                        controller=True,
                    )
                ],
            ),
            spec=cron.spec.job_template.spec,
        )
        workload = self._workload(entry, job, snapshot)
        workload.kind = "CronJob"
        workload.name = cron.metadata.name
        return workload

    def _workload(self, entry: Entry, wl: o.Workload, snapshot: Snapshot) -> ManifestWorkload:
        namespace = wl.metadata.namespace or self.namespace
        name = wl.metadata.name
        kind = wl.kind
        out = ManifestWorkload(kind, namespace, name, entry.source, emulation=self._emulation)
        out.existing = existing_pods(snapshot, kind, namespace, name)
        if kind == "Job":
            out.job_shape = job_shape(wl.spec)
            if entry.kind == "Job":  # a CronJob's next Job is a new one
                self._job_update(entry, out, snapshot)
        revision = self._new_replica_set(entry, kind, namespace, name, out.existing, snapshot)
        if revision is not None:
            # FindNewReplicaSet: the revision of this template exists (a rollback, or a rollout
            # under way): its pods are the new ones, and it is scaled up rather than created.
            out.new_replica_set = revision.name
            out.current = [p for p in out.existing if _owner_name(p) == revision.name]
            out.template_unchanged = len(out.current) == len(out.existing)
        elif out.live_job is not None and out.live_job.template is not None:
            # The Job's stored template, every field (its pods' labels are not its template's).
            manifest = _raw_template(entry.document, entry.kind) if entry.raw else {}
            out.template_unchanged = same_stored_template(manifest, out.live_job.template, self._emulation)
        else:
            out.template_unchanged = self._template_unchanged(entry, kind, namespace, out.existing, snapshot)
        out.strategy, out.update_strategy = wl.spec.strategy, wl.spec.update_strategy
        out.progress_deadline_seconds = wl.spec.progress_deadline_seconds
        out.paused = kind == "Deployment" and wl.spec.paused
        template = wl.spec.template
        hashed = template_hash(msgspec.json.encode(template))
        if revision is not None and revision.pod_template_hash:
            hashed = revision.pod_template_hash
        live_uid = out.live_job.uid if out.live_job is not None else ""
        owner = o.OwnerReference(
            api_version=_OWNER_API_VERSIONS.get(kind, "apps/v1"),
            kind=kind,
            name=name,
            uid=live_uid or _uid(namespace, kind, name),  # a Job the cluster has keeps its uid
            controller=True,
        )
        owner, labels, prefix = self._controller_objects(wl, out, owner, hashed, revision, snapshot)
        if kind == "DaemonSet":
            pod = self._replica(entry, template, prefix, namespace, owner, labels)
            add_daemon_tolerations(pod)
            self._daemon_template(entry, out, pod, snapshot)
            return out
        self._replicas(entry, wl, out, prefix, owner, labels, snapshot)
        return out

    def _controller_objects(
        self,
        wl: o.Workload,
        out: ManifestWorkload,
        owner: o.OwnerReference,
        hashed: str,
        revision: ReplicaSetRevision | None,
        snapshot: Snapshot,
    ) -> tuple[o.OwnerReference, dict[str, str], str]:
        """The objects the workload's controller creates or the API server holds (a Deployment's
        ReplicaSet, the workload itself), and its pods' owner, controller labels and name prefix."""
        kind, namespace, name = out.kind, out.namespace, out.name
        selector = wl.spec.selector
        labels: dict[str, str] = {}
        prefix = pods_prefix(name)
        if kind == "Deployment":
            # Pods belong to the Deployment's ReplicaSet `<deployment>-<pod-template-hash>`,
            # whose selector (which default spreading reads) gains the hash label.
            rs_name = f"{name}-{hashed}"
            rs_selector = _copy(selector or o.LabelSelector(), o.LabelSelector)
            rs_selector.match_labels[POD_TEMPLATE_HASH] = hashed
            rs = o.ReplicaSet(
                metadata=o.ObjectMeta(
                    name=rs_name,
                    namespace=namespace,
                    uid=_uid(namespace, "ReplicaSet", rs_name),
                    owner_references=[owner],
                ),
                spec=o.SelectorSpec(selector=rs_selector),
            )
            if revision is None or revision.name != rs_name:
                snapshot.add("ReplicaSet", rs)  # else the cluster's own ReplicaSet is scaled up
            owner = o.OwnerReference(
                api_version="apps/v1", kind="ReplicaSet", name=rs_name, uid=rs.metadata.uid, controller=True
            )
            labels[POD_TEMPLATE_HASH] = hashed
            prefix = pods_prefix(rs_name)
        elif kind == "ReplicationController":
            # Its selector is a plain label map (what default spreading reads of it).
            rc_meta = o.ObjectMeta(name=name, namespace=namespace, uid=owner.uid)
            rc_selector = dict(selector.match_labels) if selector is not None else {}
            snapshot.add(kind, o.ReplicationController(metadata=rc_meta, spec=o.ReplicationControllerSpec(rc_selector)))
        elif kind in ("ReplicaSet", "StatefulSet"):
            meta = o.ObjectMeta(name=name, namespace=namespace, uid=owner.uid)
            if kind == "ReplicaSet":
                snapshot.add(kind, o.ReplicaSet(metadata=meta, spec=o.SelectorSpec(selector=selector)))
            else:
                policy = wl.spec.pod_management_policy
                snapshot.add(
                    kind,
                    o.StatefulSet(
                        metadata=meta, spec=o.StatefulSetSpec(selector=selector, pod_management_policy=policy)
                    ),
                )
                labels[CONTROLLER_REVISION_HASH] = f"{name}-{hashed}"
                out.claim_templates = list(wl.spec.volume_claim_templates)
                out.selector_labels = dict(selector.match_labels) if selector is not None else {}
        elif kind == "Job":
            # As the API server would hold it: a CronJob's Job names the CronJob its pods' owner.
            refs = list(wl.metadata.owner_references)
            snapshot.add(
                kind, o.Job(metadata=o.ObjectMeta(name=name, namespace=namespace, uid=owner.uid, owner_references=refs))
            )
            labels.update(
                {
                    "batch.kubernetes.io/controller-uid": owner.uid,
                    "controller-uid": owner.uid,
                    "batch.kubernetes.io/job-name": name,
                    "job-name": name,
                }
            )
        elif kind == "DaemonSet":
            labels.update({CONTROLLER_REVISION_HASH: hashed, "pod-template-generation": "1"})
        return owner, labels, prefix

    def _daemon_template(self, entry: Entry, out: ManifestWorkload, pod: o.Pod, snapshot: Snapshot) -> None:
        """A DaemonSet's pod template, admitted once for every node's pod."""
        name, namespace = out.name, out.namespace
        # Each node's pod is created (and charged to quotas) when it is placed.
        try:
            out.daemon_template = admit(pod, snapshot, namespace, self._emulation, quota=False)
        except InvalidObjectError as invalid:
            raise PodwhyError(
                f"{entry.source}: DaemonSet {name!r}: its pods cannot be created: Error creating: {invalid.words}",
                hint="the API server refuses every pod the DaemonSet controller creates (FailedCreate)",
            ) from None
        except AdmissionRefusalError as refused:  # as it refuses every node's pod
            out.daemon_template, out.daemon_refusal = pod, refused.why

    def _replicas(
        self,
        entry: Entry,
        wl: o.Workload,
        out: ManifestWorkload,
        prefix: str,
        owner: o.OwnerReference,
        labels: dict[str, str],
        snapshot: Snapshot,
    ) -> None:
        """The workload's replica pods, named as its controller names them, each admitted."""
        kind, namespace, name = out.kind, out.namespace, out.name
        template = wl.spec.template
        out.ordered = kind == "StatefulSet" and wl.spec.pod_management_policy in ("", "OrderedReady")
        indexed = kind == "Job" and wl.spec.completion_mode == "Indexed"
        count = _replica_count(wl)
        if out.existing and wl.spec.replicas is None and kind in _KEEPS_RUNNING_COUNT:
            count = len(out.existing)  # `kubectl apply` keeps the count (an HPA's, say)
        self._created += count
        if self._created > MAX_PODS:
            what = "pods" if kind == "Job" else "replicas"
            raise PodwhyError(
                f"{entry.source}: {kind} {out.namespace}/{out.name}: {count:,} {what}"
                + ("" if count > MAX_PODS else f" (with the manifests' other pods, {self._created:,})")
                + f": more than a cluster runs at once ({MAX_PODS:,} pods, Kubernetes' supported limit)",
                hint="check places every replica; lower the count to one a cluster can run",
            )
        for index in range(count):
            pod_labels = dict(labels)
            annotations: dict[str, str] = {}
            if kind == "StatefulSet":
                pod_name = f"{name}-{index}"
                pod_labels.update(
                    {"statefulset.kubernetes.io/pod-name": pod_name, "apps.kubernetes.io/pod-index": str(index)}
                )
                self._names.add((namespace, pod_name))
            elif indexed:
                pod_name = self._unique(namespace, indexed_job_prefix(name, index), f"{namespace}/{name}/{index}")
                pod_labels[JOB_COMPLETION_INDEX] = str(index)
                annotations[JOB_COMPLETION_INDEX] = str(index)
            else:
                base = prefix
                pod_name = self._unique(namespace, base, f"{namespace}/{base}/{index}")
            pod = self._replica(entry, template, pod_name, namespace, owner, pod_labels, annotations)
            if kind == "StatefulSet":
                mount_claims(pod, out.claim_templates, name, index)
            out.pods.append(self._admit(pod, snapshot, namespace, out))

    def _job_update(self, entry: Entry, out: ManifestWorkload, snapshot: Snapshot) -> None:
        """The Job the snapshot holds of the manifest's name, and whether the API server accepts the
        update (before the manifest's Job takes its place in SNAPSHOT)."""
        live = snapshot.jobs.get(f"{out.namespace}/{out.name}")
        if live is None or out.job_shape is None:
            return
        data = snapshot.raw_templates.get(("Job", out.namespace, out.name))
        template: Any = None
        if data is not None:
            try:
                template = msgspec.json.decode(data)
            except msgspec.DecodeError:
                template = None
        out.live_job = live_job(live, template if isinstance(template, dict) else None)
        manifest = _raw_template(entry.document, entry.kind) if entry.raw else {}
        refusal = job_update_refusal(
            out.name, manifest, out.job_shape, out.live_job, len(out.existing), self._emulation
        )
        out.job_refusal = refusal or ""

    def _new_replica_set(
        self, entry: Entry, kind: str, namespace: str, name: str, existing: list[o.Pod], snapshot: Snapshot
    ) -> ReplicaSetRevision | None:
        """A Deployment's ReplicaSet whose stored template equals the manifest's but for the
        pod-template-hash label (FindNewReplicaSet), or None."""
        if kind != "Deployment" or not entry.raw:
            return None
        revisions = deployment_replica_sets(snapshot, namespace, name)
        # The Deployment's live template: its current revision's, the newest ReplicaSet running pods.
        running = {_owner_name(p) for p in existing}
        live = next((r.template for r in reversed(revisions) if r.name in running and r.template is not None), None)
        if live is None:
            return None
        return find_new_replica_set(_raw_template(entry.document, entry.kind), revisions, live, self._emulation)

    def _template_unchanged(
        self, entry: Entry, kind: str, namespace: str, existing: list[o.Pod], snapshot: Snapshot
    ) -> bool | None:
        """Whether the manifest's template, every field of it, is the workload's stored one."""
        stored = stored_templates(snapshot, kind, namespace, existing)
        if stored is None or not entry.raw:
            return None
        manifest = _raw_template(entry.document, entry.kind)
        return all(same_stored_template(manifest, template, self._emulation) for template in stored)

    @staticmethod
    def _replica(
        entry: Entry,
        template: o.PodTemplateSpec,
        name: str,
        namespace: str,
        owner: o.OwnerReference,
        labels: dict[str, str],
        annotations: dict[str, str] | None = None,
    ) -> o.Pod:
        """A pod as the controller creates it from the template (a copy: admission changes it)."""
        spec = _copy(template.spec, o.PodSpec)
        spec.node_name = ""
        pod = o.Pod(
            metadata=o.ObjectMeta(
                name=name,
                namespace=namespace,
                uid=_uid(namespace, "Pod", name),
                labels={**template.metadata.labels, **labels},
                annotations={**template.metadata.annotations, **(annotations or {})},
                owner_references=[owner],
            ),
            spec=spec,
        )
        check_object("Pod", pod, entry.source, entry.where)
        return pod


def _raw_template(raw: Any, kind: str) -> dict[str, Any]:
    """The pod template of a workload's JSON (a CronJob's Job's)."""
    spec = raw.get("spec") if isinstance(raw, dict) else None
    if kind == "CronJob" and isinstance(spec, dict):
        job = spec.get("jobTemplate")
        spec = job.get("spec") if isinstance(job, dict) else None
    template = spec.get("template") if isinstance(spec, dict) else None
    return template if isinstance(template, dict) else {}


def _owner_name(pod: o.Pod) -> str:
    return next((r.name for r in pod.metadata.owner_references if r.controller), "")


# Kubernetes kinds that never create pods: manifests holding them leave nothing unchecked.
NO_POD_KINDS = frozenset(
    {
        "APIService",
        "ClusterRole",
        "ClusterRoleBinding",
        "ConfigMap",
        "ControllerRevision",
        "CSIDriver",
        "CustomResourceDefinition",
        "Endpoints",
        "EndpointSlice",
        "Event",
        "HorizontalPodAutoscaler",
        "Ingress",
        "IngressClass",
        "Lease",
        "LimitRange",
        "MutatingWebhookConfiguration",
        "NetworkPolicy",
        "PodTemplate",
        "ResourceQuota",
        "Role",
        "RoleBinding",
        "Secret",
        "ServiceAccount",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)
_OWNER_API_VERSIONS = {"Job": "batch/v1", "ReplicationController": "v1"}


def _rc_as_workload(rc: o.ReplicationControllerManifest) -> o.Workload:
    """A ReplicationController as the workload its pods come from: replicas (default 1) of its
    template, its selector defaulted to the template's labels as the API server does."""
    labels = rc.spec.selector or dict(rc.spec.template.metadata.labels)
    spec = o.WorkloadSpec(
        replicas=rc.spec.replicas, selector=o.LabelSelector(match_labels=labels), template=rc.spec.template
    )
    return o.Workload(api_version=rc.api_version, kind="ReplicationController", metadata=rc.metadata, spec=spec)


# Kinds whose manifest without `replicas` keeps the count the cluster runs, as `kubectl apply`
# of a field it does not set keeps it (HPA-managed workloads are written so).
_KEEPS_RUNNING_COUNT = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})


def _replica_count(wl: o.Workload) -> int:
    """How many pods the controller keeps: replicas (default 1), or for a Job the pods running at once."""
    if wl.kind == "Job":
        if wl.spec.suspend:
            return 0  # a suspended Job's controller creates no pods
        parallelism = 1 if wl.spec.parallelism is None else wl.spec.parallelism
        if wl.spec.completions is not None:
            parallelism = min(parallelism, wl.spec.completions)
        return max(parallelism, 0)
    return max(1 if wl.spec.replicas is None else wl.spec.replicas, 0)


def daemon_pod_for_node(template: o.Pod, node_name: str) -> o.Pod:
    """The DaemonSet controller's pod for one node, `<daemonset>-<5 characters>`: the template with
    a required node affinity on that node's name (replacing any required node selector terms)."""
    pod = _copy(template, o.Pod)
    base = pod.metadata.name
    pod.metadata.name = generated_name(base, f"{pod.metadata.namespace}/{base}/{node_name}")
    pod.metadata.uid = _uid(pod.metadata.namespace, "Pod", pod.metadata.name)
    term = o.NodeSelectorTerm(
        match_fields=[o.NodeSelectorRequirement(key="metadata.name", operator="In", values=[node_name])]
    )
    affinity = pod.spec.affinity or o.Affinity()
    node_affinity = affinity.node_affinity or o.NodeAffinity()
    node_affinity.required_during_scheduling_ignored_during_execution = o.NodeSelector(node_selector_terms=[term])
    affinity.node_affinity = node_affinity
    pod.spec.affinity = affinity
    return pod


@dataclass
class PodManifest:
    """What `explain -f` reads: one Pod, and the objects created with it (its ResourceClaimTemplate,
    PVCs, PriorityClass, ... as `kubectl apply` of the file would create them)."""

    pod: o.Pod
    support: list[Entry]
    source: str = ""  # the file, as errors name it
    # The Pod as the file holds it (what a command that patches the file patches), when read.
    document: dict[str, Any] | None = None
    # Every object of the file, the Pod's included, in its order (their fields as written).
    entries: list[Entry] = field(default_factory=list)

    def admit(self, snapshot: Snapshot, namespace: str, emulation: Emulation) -> o.Pod:
        """The pod as the API server admits it into SNAPSHOT (admission.add_manifest_pod); one it
        would find invalid, or whose file has fields the API server does not know, is refused
        naming the file."""
        for entry in self.entries:
            check_fields(entry, emulation)
        try:
            return add_manifest_pod(self.pod, snapshot, namespace, emulation)
        except InvalidObjectError as invalid:
            raise invalid.in_file(self.source) from None

    def apply(self, snapshot: Snapshot, namespace: str) -> None:
        """Create the support objects in SNAPSHOT, as `check` creates a manifest's."""
        source = ManifestSource([], namespace)
        for entry in self.support:
            source.apply(entry.kind, entry.obj, snapshot)


def read_pod_manifest(path: Path, namespace: str, stdin: BinaryIO | None = None) -> PodManifest:
    """The one Pod of a manifest file (or '-', stdin) for `explain -f`, with the objects the file
    creates along with it, read by the decoder dumps are read by (named from generateName as
    `check` names it), in NAMESPACE unless it names its own."""
    if str(path) == "-":
        data, source = read_stream(stdin if stdin is not None else sys.stdin.buffer, STDIN), STDIN
    else:
        data, source = _read_bytes(path), str(path)
    decoded = decode(data, source, manifests=True)
    entries = decoded.entries
    pods = [e for e in entries if e.kind == "Pod"]
    others = [e for e in entries if e.kind != "Pod" and e.kind not in SUPPORT_KINDS]
    if len(pods) != 1 or others:
        found = ", ".join(e.kind for e in entries) or "nothing podwhy reads"
        raise PodwhyError(
            f"{source}: expected exactly one Pod object (and objects created with it), found {found}",
            hint="podwhy check -f places several pods and workloads",
        )
    pod: o.Pod = pods[0].obj
    document = without_nulls(pods[0].document) if pods[0].raw else None
    pod.metadata.namespace = pod.metadata.namespace or namespace
    pod.metadata.uid = pod.metadata.uid or _uid(pod.metadata.namespace, "Pod", pod.metadata.name)
    return PodManifest(
        pod,
        [e for e in entries if e.kind != "Pod"],
        source,
        document=document if isinstance(document, dict) else None,
        entries=entries,
    )


def _uid(namespace: str, kind: str, name: str) -> str:
    return f"podwhy-check-{kind.lower()}-{namespace}-{name}"


def _copy(obj: _T, tp: type[_T]) -> _T:
    """A deep copy of a model object (controllers and admission change their copies)."""
    return msgspec.json.decode(msgspec.json.encode(obj), type=tp)
