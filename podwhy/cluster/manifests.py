"""`kubectl apply -f` for `podwhy check` and `explain -f`: the manifests read, and the objects
created through the API server in their order.

Inputs are files, folders (recursively), multi-document YAML or JSON, and `-` for stdin (e.g.
`helm template ... | podwhy check -f -`), read by the one typed decoder (decode.py) that reads
dumps. Objects the plugins read that a chart may ship alongside (Services, PVs, PVCs, PDBs,
PriorityClasses, RuntimeClasses, StorageClasses) are added to the snapshot first, as `kubectl
apply` would create them. Workloads are Pods, Deployments, ReplicaSets, ReplicationControllers,
StatefulSets, DaemonSets, Jobs and CronJobs: each is validated as the API server validates it,
then becomes its pods as its controller would create them (workloads.py).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from podwhy.cluster.admissionopen import AdmissionOpen
from podwhy.cluster.apiserver.admission.chain import add_manifest_pod
from podwhy.cluster.apiserver.admission.defaultstorageclass import admit_claim
from podwhy.cluster.apiserver.admission.policy.admission import admit_workload, mutate_workload, open_of
from podwhy.cluster.apiserver.admission.resourcequota import sync_manifest_quotas
from podwhy.cluster.apiserver.fieldvalidation import check_fields
from podwhy.cluster.apiserver.validation.invalid import InvalidObjectError
from podwhy.cluster.apiserver.validation.workloads import validate_workload
from podwhy.cluster.apiserver.warnings import warn_on_create
from podwhy.cluster.controllers.types import ManifestWorkload, created_uid
from podwhy.cluster.kueuecheck import suspends
from podwhy.cluster.workloads import WorkloadCreator
from podwhy.errors import PodwhyError
from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.model import objects as o
from podwhy.model.gojson import without_nulls
from podwhy.model.records import replace
from podwhy.snapshot.cluster import Snapshot, ns_name
from podwhy.snapshot.decode import decode
from podwhy.snapshot.decoded import Entry
from podwhy.snapshot.source import STDIN, _object_files, _read_bytes, input_names, read_stream

WORKLOAD_KINDS = o.WORKLOAD_KINDS
SUPPORT_KINDS = o.MANIFEST_SUPPORT_KINDS
_CLUSTER_SCOPED_SUPPORT = frozenset(
    {"Namespace", "PersistentVolume", "PriorityClass", "RuntimeClass", "StorageClass", "DeviceClass"}
)


class ManifestSource:
    """Manifests from files, folders or '-' (stdin)."""

    def __init__(self, paths: Sequence[str], namespace: str = "default", stdin: BinaryIO | None = None) -> None:
        self.paths = list(paths)
        self.namespace = namespace
        self.stdin = stdin
        self._entries: list[Entry] | None = None
        # Kinds of the manifests podwhy does not read, with how many objects of each.
        self.ignored: Counter[str] = Counter()
        # The manifests' own PVCs, created as they are applied (before any replica).
        self.applied_claims: list[o.PersistentVolumeClaim] = []
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
        entries = self.read()
        for entry in entries:
            check_fields(entry, emulation)  # the API server's strict decoding, before anything else
        snapshot.kindless.extend(self.kindless)
        creator = WorkloadCreator(snapshot, self.namespace, emulation, kueue_manages=suspends(snapshot))
        for entry in entries:
            if entry.kind in SUPPORT_KINDS:
                self.apply(entry.kind, entry.obj, snapshot)
        sync_manifest_quotas(snapshot)
        workloads: list[ManifestWorkload] = []
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            object_open: AdmissionOpen | None = None
            if entry.kind in WORKLOAD_KINDS or entry.kind == "ReplicationController":
                if entry.raw:  # MutatingAdmissionPolicies first, then the object's validation
                    entry, object_open = self._mutated(entry, snapshot, emulation)
                    entries[index] = entry
                validate_workload(entry.kind, entry.obj, emulation, entry.source)  # as `kubectl apply` creates it
                warn_on_create(snapshot, entry.kind, entry.obj, emulation.minor, self.namespace)
                if entry.raw:  # the admission policies read every field as written
                    answer = admit_workload(
                        snapshot, entry.document, entry.kind, self.namespace, emulation, entry.source
                    )
                    if answer is not None:
                        met = open_of(answer, _object_name(entry, self.namespace))
                        object_open = met.joined(object_open) if met else object_open
            workload = creator.create(entry, snapshot)
            if workload is None:
                continue
            workload.object_open = object_open or None
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

    def _mutated(self, entry: Entry, snapshot: Snapshot, emulation: Emulation) -> tuple[Entry, AdmissionOpen | None]:
        """ENTRY as MutatingAdmissionPolicies leave it on its `kubectl apply` (read again by the
        typed decoder; its changes recorded as the API server's, under the workload's key), and
        the bindings podwhy could not evaluate on it."""
        mutated = mutate_workload(snapshot, entry.document, entry.kind, self.namespace, emulation, entry.source)
        on = _object_name(entry, self.namespace)
        left_open = AdmissionOpen(policies=tuple(replace(p, on=on) for p in mutated.open)) if mutated.open else None
        if mutated.obj is None:
            return entry, left_open
        obj = mutated.obj
        obj["metadata"] = {**dict(obj.get("metadata") or {}), "name": entry.obj.metadata.name}
        raw = msgspec.json.encode(obj)
        decoded = decode(raw, entry.source, manifests=True).entries
        if len(decoded) != 1:
            raise PodwhyError(f"{entry.source}: {entry.where}: MutatingAdmissionPolicies leave no object to decode")
        again = Entry(entry.kind, decoded[0].obj, entry.source, entry.where, entry.api_version, raw)
        snapshot.defaulted[_workload_key(entry, self.namespace)] = list(mutated.changed)
        return again, left_open

    def apply(self, kind: str, obj: Any, snapshot: Snapshot) -> None:
        """One support object, as `kubectl apply` creates it. A PV or PVC the cluster already has
        keeps its binding (their specs are immutable once bound)."""
        if kind not in _CLUSTER_SCOPED_SUPPORT and not obj.metadata.namespace:
            obj.metadata.namespace = self.namespace
        if kind == "PersistentVolumeClaim":
            if ns_name(obj.metadata.namespace, obj.metadata.name) in snapshot.persistent_volume_claims:
                return
            obj.metadata.uid = obj.metadata.uid or created_uid(obj.metadata.namespace, kind, obj.metadata.name)
            admit_claim(obj, snapshot)
            self.applied_claims.append(obj)
        elif kind == "PersistentVolume":
            if obj.metadata.name in snapshot.persistent_volumes:
                return
            obj.status.phase = obj.status.phase or "Available"
        elif kind == "StorageClass" and obj.volume_binding_mode is None:
            obj.volume_binding_mode = "Immediate"  # the API server's default
        snapshot.add(kind, obj)


def _object_name(entry: Entry, namespace: str) -> str:
    """ "Deployment shop/web": the workload as admission's facts name it."""
    meta = entry.obj.metadata
    return f"{entry.kind} {meta.namespace or namespace}/{meta.name}"


def _workload_key(entry: Entry, namespace: str) -> str:
    """Where the API server's changes to a workload itself are kept in Snapshot.defaulted."""
    return _object_name(entry, namespace)


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


class PodManifest(msgspec.Struct):
    """What `explain -f` reads: one Pod, and the objects created with it (its ResourceClaimTemplate,
    PVCs, PriorityClass, ... as `kubectl apply` of the file would create them)."""

    pod: o.Pod
    support: list[Entry]
    source: str = ""  # the file, as errors name it
    # The Pod as the file holds it (what a command that patches the file patches), when read.
    document: dict[str, Any] | None = None
    # Every object of the file, the Pod's included, in its order (their fields as written).
    entries: list[Entry] = msgspec.field(default_factory=list)
    # What admission left open once admitted (webhooks never called, policies not evaluated).
    admission_open: AdmissionOpen | None = None

    def admit(self, snapshot: Snapshot, namespace: str, emulation: Emulation) -> o.Pod:
        """The pod as the API server admits it into SNAPSHOT (admission.add_manifest_pod); one it
        would find invalid, or whose file has fields the API server does not know, is refused
        naming the file."""
        for entry in self.entries:
            check_fields(entry, emulation)
        spec = self.document.get("spec") if self.document is not None else None
        left_open: list[AdmissionOpen] = []
        try:
            pod = add_manifest_pod(
                self.pod,
                snapshot,
                namespace,
                emulation,
                raw_spec=spec if isinstance(spec, dict) else None,
                admission_open=left_open,
            )
        except InvalidObjectError as invalid:
            raise invalid.in_file(self.source) from None
        self.admission_open = left_open[0] if left_open else None
        return pod

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
    pod.metadata.uid = pod.metadata.uid or created_uid(pod.metadata.namespace, "Pod", pod.metadata.name)
    return PodManifest(
        pod,
        [e for e in entries if e.kind != "Pod"],
        source,
        document=document if isinstance(document, dict) else None,
        entries=entries,
    )
