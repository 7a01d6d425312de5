"""Each workload of the manifests as `kubectl apply` of it leaves it: the API server stores it
(and refuses a Job's update its validation forbids), its controller's first sync creates what it
creates (a Deployment's ReplicaSet named after the template's hash, unless FindNewReplicaSet finds
the revision a rollback returns to) and its pods, named, labelled and owned as that controller
makes them (names.py: the random parts are podwhy's own, derived from hashes), each through the
API server's admission. A DaemonSet gets one admitted template: each node's pod is made from it
when it is placed (controllers/daemonset.py). The pods of a workload the cluster already runs
are read as its old pods, with whether the manifest changes its template.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec

from podwhy.cluster.admissionopen import AdmissionOpen
from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError
from podwhy.cluster.apiserver.admission.chain import admit
from podwhy.cluster.apiserver.validation.invalid import InvalidObjectError
from podwhy.cluster.controllers.daemonset import add_daemon_tolerations
from podwhy.cluster.controllers.deployment import ReplicaSetRevision, deployment_replica_sets, find_new_replica_set
from podwhy.cluster.controllers.job import job_shape, job_update_refusal, live_job
from podwhy.cluster.controllers.revisions import same_stored_template, stored_templates
from podwhy.cluster.controllers.rollout import existing_pods
from podwhy.cluster.controllers.statefulset import mount_claims
from podwhy.cluster.controllers.types import ManifestWorkload, PolicyRefused, created_uid, deep_copy
from podwhy.errors import PodwhyError
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.model.wellknownnames import CONTROLLER_REVISION_HASH, POD_TEMPLATE_HASH
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decoded import Entry
from podwhy.snapshot.limits import MAX_PODS
from podwhy.snapshot.names import generated_name, indexed_job_prefix, pods_prefix, template_hash
from podwhy.snapshot.typed import check_object

JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
# The scheduled time a CronJob's Job is named after (minutes since the Unix epoch): podwhy's
# own fixed 2025-01-01T00:00:00Z, since no real schedule is run.
CRON_JOB_SCHEDULED_MINUTES = 1735689600 // 60


class WorkloadCreator:
    """Creates the manifests' workloads one after another into SNAPSHOT, in NAMESPACE unless one
    names its own, as the API server of EMULATION admits their pods (the pods' names stay unique
    in each namespace; the pods of all of them stay within MAX_PODS)."""

    def __init__(
        self,
        snapshot: Snapshot,
        namespace: str,
        emulation: Emulation = DEFAULT,
        kueue_manages: Callable[[o.ObjectMeta], bool] | None = None,
    ) -> None:
        self.namespace = namespace
        self._emulation = emulation
        # Whether Kueue manages a Job: suspended by its webhook, resumed once admitted, so the
        # pods are those its controller runs then (kueuecheck decides whether they are created).
        self._kueue_manages = kueue_manages
        # The names of the pods in SNAPSHOT and of those created since, by namespace.
        self._names = {(p.metadata.namespace, p.metadata.name) for p in snapshot.pods}
        # How many pods the workloads created so far create (bounded by MAX_PODS).
        self._created = 0

    def create(self, entry: Entry, snapshot: Snapshot) -> ManifestWorkload | None:
        """The workload ENTRY is, with its pods (None: not a kind that creates pods)."""
        if entry.kind == "Pod":
            return self._pod(entry, snapshot)
        if entry.kind == "CronJob":
            return self._cron_job(entry, snapshot)
        if entry.kind == "ReplicationController":
            return self._workload(entry, _rc_as_workload(entry.obj), snapshot)
        if entry.kind in o.WORKLOAD_KINDS:
            return self._workload(entry, entry.obj, snapshot)
        return None

    def _unique(self, namespace: str, base: str, seed: str) -> str:
        """A generated name no pod of the namespace has yet."""
        name = generated_name(base, seed)
        attempt = 0
        while (namespace, name) in self._names:
            attempt += 1
            name = generated_name(base, f"{seed}#{attempt}")
        self._names.add((namespace, name))
        return name

    def _pod(self, entry: Entry, snapshot: Snapshot) -> ManifestWorkload:
        pod: o.Pod = entry.obj
        namespace = pod.metadata.namespace or self.namespace
        pod.metadata.namespace = namespace
        pod.metadata.uid = pod.metadata.uid or created_uid(namespace, "Pod", pod.metadata.name)
        # spec.nodeName stays: such a pod goes to that node's kubelet, never to the scheduler.
        pod.status = o.PodStatus()
        workload = ManifestWorkload("Pod", namespace, pod.metadata.name, entry.source, pods=[pod])
        pristine = deep_copy(pod, o.Pod) if snapshot.validating_admission_policy_bindings else pod
        self._admit(pod, snapshot, namespace, workload, _raw_spec(entry), lambda: pristine)
        self._names.add((namespace, pod.metadata.name))
        return workload

    def _admit(
        self,
        pod: o.Pod,
        snapshot: Snapshot,
        namespace: str,
        workload: ManifestWorkload,
        raw_spec: dict[str, Any] | None = None,
        remake: Callable[[], o.Pod] | None = None,
    ) -> o.Pod:
        """The API server's admission of a pod its controller (or `kubectl apply`) creates; a
        refusal by PodSecurity or ResourceQuota, or a pod the API server finds invalid (after
        LimitRange defaults), leaves a controller's pod not created (FailedCreate); an invalid Pod
        of the manifests is refused. An OrderedReady StatefulSet creates (and is charged for) each
        ordinal only when the one before runs: at placement. What admission leaves open (webhooks,
        policies not evaluated; RAW_SPEC is the spec as written, what policies read) is kept by pod name.
        The first replica a ValidatingAdmissionPolicy refuses is kept as REMAKE makes it again,
        before admission (what a suggestion changes)."""
        left_open: list[AdmissionOpen] = []
        try:
            admitted = admit(
                pod,
                snapshot,
                namespace,
                self._emulation,
                quota=not workload.ordered,
                raw_spec=raw_spec,
                admission_open=left_open,
            )
        except AdmissionRefusalError as refused:
            workload.refused[pod.metadata.name] = refused.words
            if refused.denied is not None and workload.policy_refused is None and remake is not None:
                workload.policy_refused = PolicyRefused(remake(), raw_spec, refused.denied, refused.words)
            return pod
        except InvalidObjectError as invalid:
            if workload.kind == "Pod":
                raise invalid.in_file(workload.source) from None
            workload.refused[pod.metadata.name] = invalid.words
            return pod
        if left_open:
            workload.admission_open[pod.metadata.name] = left_open[0]
        return admitted

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
                # getJobFromTemplate2: the Job template's labels and annotations (Kueue's
                # queue-name label among them).
                labels=dict(cron.spec.job_template.metadata.labels),
                annotations=dict(cron.spec.job_template.metadata.annotations),
                owner_references=[
                    o.OwnerReference(
                        api_version="batch/v1",
                        kind="CronJob",
                        name=cron.metadata.name,
                        uid=created_uid(namespace, "CronJob", cron.metadata.name),
                        controller=True,
                    )
                ],
            ),
            spec=cron.spec.job_template.spec,
        )
        workload = self._workload(entry, job, snapshot)
        workload.kind = "CronJob"
        workload.name = cron.metadata.name
        workload.job_manifest = job  # a new Job, which Kueue may manage
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
                out.job_manifest = wl
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
            uid=live_uid or created_uid(namespace, kind, name),  # a Job the cluster has keeps its uid
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
            rs_selector = deep_copy(selector or o.LabelSelector(), o.LabelSelector)
            rs_selector.match_labels[POD_TEMPLATE_HASH] = hashed
            rs = o.ReplicaSet(
                metadata=o.ObjectMeta(
                    name=rs_name,
                    namespace=namespace,
                    uid=created_uid(namespace, "ReplicaSet", rs_name),
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
        pristine = deep_copy(pod, o.Pod) if snapshot.validating_admission_policy_bindings else pod
        try:
            left_open: list[AdmissionOpen] = []
            out.daemon_template = admit(
                pod,
                snapshot,
                namespace,
                self._emulation,
                quota=False,
                raw_spec=_raw_spec(entry),
                admission_open=left_open,
            )
            out.daemon_open = left_open[0] if left_open else None
        except InvalidObjectError as invalid:
            raise PodwhyError(
                f"{entry.source}: DaemonSet {name!r}: its pods cannot be created: Error creating: {invalid.words}",
                hint="the API server refuses every pod the DaemonSet controller creates (FailedCreate)",
            ) from None
        except AdmissionRefusalError as refused:  # as it refuses every node's pod
            out.daemon_template, out.daemon_refusal = pod, refused.why
            if refused.denied is not None:
                out.policy_refused = PolicyRefused(pristine, _raw_spec(entry), refused.denied, refused.words)

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
        raw_spec = _raw_spec(entry)
        out.ordered = kind == "StatefulSet" and wl.spec.pod_management_policy in ("", "OrderedReady")
        indexed = kind == "Job" and wl.spec.completion_mode == "Indexed"
        out.kueue_managed = kind == "Job" and self._kueue_manages is not None and self._kueue_manages(wl.metadata)
        count = _replica_count(wl, resumed=out.kueue_managed)
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
            # Made again as before admission when a policy refuses it (what a suggestion changes).
            remake = partial(
                self._made_replica, entry, template, pod_name, namespace, owner, pod_labels, annotations, out, index
            )
            pod = remake()
            out.pods.append(self._admit(pod, snapshot, namespace, out, raw_spec, remake))

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

    def _made_replica(
        self,
        entry: Entry,
        template: o.PodTemplateSpec,
        name: str,
        namespace: str,
        owner: o.OwnerReference,
        labels: dict[str, str],
        annotations: dict[str, str],
        out: ManifestWorkload,
        index: int,
    ) -> o.Pod:
        """A replica as its controller makes it, a StatefulSet's with its ordinal's claims mounted."""
        pod = self._replica(entry, template, name, namespace, owner, labels, annotations)
        if out.kind == "StatefulSet":
            mount_claims(pod, out.claim_templates, out.name, index)
        return pod

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
        spec = deep_copy(template.spec, o.PodSpec)
        spec.node_name = ""
        pod = o.Pod(
            metadata=o.ObjectMeta(
                name=name,
                namespace=namespace,
                uid=created_uid(namespace, "Pod", name),
                labels={**template.metadata.labels, **labels},
                annotations={**template.metadata.annotations, **(annotations or {})},
                owner_references=[owner],
            ),
            spec=spec,
        )
        check_object("Pod", pod, entry.source, entry.where)
        return pod


def _raw_spec(entry: Entry) -> dict[str, Any] | None:
    """The pod spec ENTRY's manifest wrote (a Pod's, or a workload's template's), every field; None
    when the manifest's text is not kept."""
    if not entry.raw:
        return None
    document = entry.document
    if entry.kind == "Pod":
        spec = document.get("spec") if isinstance(document, dict) else None
    else:
        spec = _raw_template(document, entry.kind).get("spec")
    return spec if isinstance(spec, dict) else None


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


def _replica_count(wl: o.Workload, *, resumed: bool = False) -> int:
    """How many pods the controller keeps: replicas (default 1), or for a Job the pods running at
    once (RESUMED: as Kueue resumes it, whatever its suspend says)."""
    if wl.kind == "Job":
        if wl.spec.suspend and not resumed:
            return 0  # a suspended Job's controller creates no pods
        parallelism = 1 if wl.spec.parallelism is None else wl.spec.parallelism
        if wl.spec.completions is not None:
            parallelism = min(parallelism, wl.spec.completions)
        return max(parallelism, 0)
    return max(1 if wl.spec.replicas is None else wl.spec.replicas, 0)
