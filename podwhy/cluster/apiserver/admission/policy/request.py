"""What the policy and webhook matchers are handed (k8s.io/apiserver's admission.Attributes, the
parts matching reads): the operation, the kind and resource requested, the object and the
namespace it is in, as JSON-like data (what CEL sees as `object`, `oldObject`, `namespaceObject`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from podwhy.errors import PodwhyError

ADMISSIONREGISTRATION_GROUP = "admissionregistration.k8s.io"
# admission.Operation
CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
CONNECT = "CONNECT"


class GroupVersionKind(msgspec.Struct, frozen=True, order=True):
    group: str
    version: str
    kind: str

    def __str__(self) -> str:
        return f"{self.group}/{self.version}, Kind={self.kind}"


class GroupVersionResource(msgspec.Struct, frozen=True, order=True):
    group: str
    version: str
    resource: str

    def __str__(self) -> str:
        return f"{self.group}/{self.version}, Resource={self.resource}"


# What metav1.NamespaceNone is, and the one resource whose namespace is its own name.
NAMESPACE_NONE = ""
NAMESPACES = GroupVersionResource("", "v1", "namespaces")

# The kinds podwhy creates through the API server (manifests, controllers), by apiVersion and kind:
# the resource each is requested as.
CREATED_RESOURCES: dict[tuple[str, str], GroupVersionResource] = {
    ("v1", "Pod"): GroupVersionResource("", "v1", "pods"),
    ("v1", "PersistentVolumeClaim"): GroupVersionResource("", "v1", "persistentvolumeclaims"),
    ("v1", "ReplicationController"): GroupVersionResource("", "v1", "replicationcontrollers"),
    ("apps/v1", "Deployment"): GroupVersionResource("apps", "v1", "deployments"),
    ("apps/v1", "ReplicaSet"): GroupVersionResource("apps", "v1", "replicasets"),
    ("apps/v1", "StatefulSet"): GroupVersionResource("apps", "v1", "statefulsets"),
    ("apps/v1", "DaemonSet"): GroupVersionResource("apps", "v1", "daemonsets"),
    ("batch/v1", "Job"): GroupVersionResource("batch", "v1", "jobs"),
    ("batch/v1", "CronJob"): GroupVersionResource("batch", "v1", "cronjobs"),
}


class Request(msgspec.Struct, frozen=True):
    """One admission request. NAMESPACE is the object's namespace ("" for a cluster-scoped one, the
    namespace's own name for a Namespace); NAMESPACE_OBJECT the Namespace it is in as the API server
    holds it (None: no such namespace), read for namespaceSelectors (and CEL's namespaceObject)."""

    operation: str
    kind: GroupVersionKind
    resource: GroupVersionResource
    subresource: str = ""
    name: str = ""
    namespace: str = ""
    object: Mapping[str, Any] | None = None
    old_object: Mapping[str, Any] | None = None
    namespace_object: Mapping[str, Any] | None = None


def _split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def request_for(
    obj: Mapping[str, Any],
    namespace_object: Mapping[str, Any] | None,
    *,
    operation: str = CREATE,
    old_object: Mapping[str, Any] | None = None,
) -> Request:
    """The request that creates (or updates) OBJ, one of the kinds podwhy creates (CREATED_RESOURCES),
    in the namespace NAMESPACE_OBJECT describes."""
    api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    resource = CREATED_RESOURCES.get((api_version, kind))
    if resource is None:
        known = ", ".join(f"{k} {v}" for v, k in CREATED_RESOURCES)
        raise PodwhyError(f"{kind} {api_version} is not a kind podwhy creates ({known})")
    metadata = obj.get("metadata") or {}
    group, version = _split_api_version(api_version)
    return Request(
        operation=operation,
        kind=GroupVersionKind(group, version, kind),
        resource=resource,
        name=str(metadata.get("name", "")),
        namespace=str(metadata.get("namespace", "")),
        object=obj,
        old_object=old_object,
        namespace_object=namespace_object,
    )


def labels_of(obj: Mapping[str, Any] | None) -> dict[str, str] | None:
    """An object's metadata.labels (None when there is no object)."""
    if obj is None:
        return None
    metadata = obj.get("metadata") or {}
    return dict(metadata.get("labels") or {})


# The kinds whose admission no policy or webhook sees (rules.IsExemptAdmissionConfigurationResource):
# the admission configuration itself.
EXEMPT_KINDS = frozenset(
    {
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)


def is_exempt(request: Request) -> bool:
    """Whether REQUEST admits the admission configuration itself, which no policy or webhook sees."""
    return request.kind.group == ADMISSIONREGISTRATION_GROUP and request.kind.kind in EXEMPT_KINDS
