"""A binding's params, looked up as the API server looks them up, over what the snapshot holds of
them (snapshot/params.py): k8s.io/apiserver admission/plugin/policy/generic policy_source.go
(calculatePolicyData: the paramKind's apiVersion parsed; ensureParamsForPolicyLocked: its
resource found, else the policy's configuration error) and policy_dispatcher.go CollectParams
(the namespace, paramRef.name or paramRef.selector, parameterNotFoundAction). The same in
v1.33 to v1.36 (microshift release-4.20 to release-5.0).

Where the snapshot cannot vouch for what the API server's informer holds (it holds no object of
the kind, or none in the namespace looked in; a live list was refused; a kind podwhy does not
read as params), the binding is not evaluated (a ParamsGap, worded by the report), never guessed.
"""

from __future__ import annotations

import msgspec

from podwhy.cluster import admissionopen as a
from podwhy.helpers.labelselectors import SelectorError, label_selector_as_selector
from podwhy.helpers.selectorerrors import label_selector_error
from podwhy.model import objects as o
from podwhy.snapshot.params import CONFIG_MAP, SECRET, ParamKey, ParamObject, ParamStore, param_kind_key

# Upstream's words (fmt.Errorf strings of policy_source.go and policy_dispatcher.go, and
# schema.ParseGroupVersion's), byte for byte.
NOT_FOUND = "failed to find resource referenced by paramKind: '{gvk}'"
NAMESPACED_FOR_CLUSTER_REQUEST = (
    "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
)
NAMESPACE_OF_CLUSTER_KIND = "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
NAME_AND_SELECTOR = "paramRef.name and paramRef.selector are mutually exclusive"
NAME_OR_SELECTOR = "one of name or selector must be provided"

# The kinds the core group serves (pkg/registry/core/rest/storage_core.go and the generic
# registries beside it; the same in every release podwhy emulates): a paramKind of the core group
# naming another kind is not served, which the API server says as the policy's configuration error.
CORE_KINDS = frozenset(
    {
        "Binding",
        "ComponentStatus",
        "ConfigMap",
        "Endpoints",
        "Event",
        "LimitRange",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Pod",
        "PodTemplate",
        "ReplicationController",
        "ResourceQuota",
        "Secret",
        "Service",
        "ServiceAccount",
    }
)

# Why a binding's params are not evaluated (facts, in cluster/admissionopen.py; the report words them).
NO_OBJECTS = a.PARAMS_NO_OBJECTS
NO_OBJECTS_IN_NAMESPACE = a.PARAMS_NO_OBJECTS_IN_NAMESPACE
UNKNOWN_KIND = a.PARAMS_UNKNOWN_KIND
OTHER_VERSION = a.PARAMS_OTHER_VERSION
NOT_READ = a.PARAMS_NOT_READ
SECRETS = a.PARAMS_SECRETS
TOO_MANY = a.PARAMS_TOO_MANY
NOT_FETCHED = a.PARAMS_NOT_FETCHED


class ParamsGap(msgspec.Struct, frozen=True):
    """Why a policy's params are not looked up (WHY, one of the facts above), of which paramKind
    (`v1/ConfigMap`), and what the fact names (a namespace, apiVersions, a source's words)."""

    why: str
    param_kind: str
    detail: str = ""


class ParamSource(msgspec.Struct, frozen=True):
    """A paramKind the API server serves (its informer): the kind as params are filed, its
    apiVersion, its scope, and whether the snapshot vouches for all of its objects (a live fetch
    or a `podwhy snapshot` of them, --complete) or only for the namespaces it holds some of."""

    key: ParamKey
    api_version: str
    namespaced: bool
    vouched: bool


class PolicySkipped(msgspec.Struct, frozen=True):
    """A paramKind whose apiVersion does not parse: calculatePolicyData leaves the policy out."""

    error: str


def parse_group_version(api_version: str) -> tuple[str, str] | str:
    """schema.ParseGroupVersion: (group, version), or its error."""
    if not api_version or api_version == "/":
        return "", ""
    if api_version.count("/") == 0:
        return "", api_version
    if api_version.count("/") == 1:
        group, _, version = api_version.partition("/")
        return group, version
    return f"unexpected GroupVersion string: {api_version}"


def param_source(store: ParamStore, param_kind: o.ParamKind) -> ParamSource | PolicySkipped | ParamsGap | str:
    """The paramKind's informer (ensureParamsForPolicyLocked), or why there is none: the
    policy left out, not evaluated (a gap), or the policy's configuration error (a string)."""
    parsed = parse_group_version(param_kind.api_version)
    if isinstance(parsed, str):
        return PolicySkipped(parsed)
    group, version = parsed
    kind = param_kind.kind
    named = param_kind_key(param_kind.api_version, kind)
    not_found = NOT_FOUND.format(gvk=f"{group}/{version}, Kind={kind}")
    fetched = store.fetched.get(named)
    if fetched is not None:
        if not fetched.served:
            return not_found
        if fetched.missing:
            return ParamsGap(NOT_FETCHED, named, fetched.missing)
        return ParamSource((group, kind), param_kind.api_version, fetched.namespaced, vouched=True)
    if group == "":
        if version != "v1" or kind not in CORE_KINDS:
            return not_found
        if kind == SECRET:
            return ParamsGap(SECRETS, named)
        if kind != CONFIG_MAP:
            return ParamsGap(NOT_READ, named)
    elif not _custom(group) or o.table_kind(kind, param_kind.api_version) in o.KINDS:
        return ParamsGap(NOT_READ, named)
    key = (group, kind)
    if key in store.dropped:
        return ParamsGap(TOO_MANY, named)
    if group == "":  # ConfigMaps: served by every API server, namespaced
        return ParamSource(key, param_kind.api_version, True, vouched=store.complete)
    versions = store.versions.get(key, set())
    if param_kind.api_version not in versions:
        if versions:
            return ParamsGap(OTHER_VERSION, named, ", ".join(sorted(versions)))
        return ParamsGap(UNKNOWN_KIND, named)
    namespaced = any(store.seen.get(key, set()))
    return ParamSource(key, param_kind.api_version, namespaced, vouched=store.complete)


def _custom(group: str) -> bool:
    return "." in group and not group.endswith(".k8s.io")


def _unvouched(store: ParamStore, source: ParamSource, namespace: str) -> ParamsGap | None:
    """Whether the snapshot may lack objects the informer holds where the lookup looks."""
    if source.vouched:
        return None
    named = param_kind_key(source.api_version, source.key[1])
    seen = store.seen.get(source.key, set())
    if not seen:
        return ParamsGap(NO_OBJECTS, named)
    if source.namespaced and namespace not in seen:
        return ParamsGap(NO_OBJECTS_IN_NAMESPACE, named, namespace)
    return None


def _in_order(found: list[ParamObject]) -> list[ParamObject]:
    """The informer's List walks a Go map (no order): here by namespace, then name."""
    return sorted(found, key=lambda p: (p.namespace, p.name))


def collect(
    store: ParamStore, source: ParamSource, ref: o.ParamRef, namespace: str
) -> list[ParamObject] | ParamsGap | str:
    """CollectParams for a binding with a paramRef of a policy with a paramKind: the objects it
    names or selects in the snapshot (empty: none; parameterNotFoundAction is the evaluator's),
    a gap, or the binding's configuration error (a string). NAMESPACE is the request's."""
    looked_in = ""
    if source.namespaced:
        looked_in = ref.namespace or namespace
        if not looked_in:
            return NAMESPACED_FOR_CLUSTER_REQUEST
    if ref.namespace and not source.namespaced:
        return NAMESPACE_OF_CLUSTER_KIND
    objects = store.of_kind(source.key)
    if ref.name:
        if ref.selector is not None:
            return NAME_AND_SELECTOR
        found = objects.get((looked_in, ref.name))
        if found is not None:
            return [found]
        gap = _unvouched(store, source, looked_in)
        return gap if gap is not None else []
    if ref.selector is not None:
        error = label_selector_error(ref.selector)  # metav1.LabelSelectorAsSelector's words
        if error is not None:
            return error
        try:
            selector = label_selector_as_selector(ref.selector)
        except SelectorError as exc:  # what apimachinery refuses, label_selector_error words
            return str(exc)
        gap = _unvouched(store, source, looked_in)
        if gap is not None:
            return gap
        return _in_order([p for p in store.in_namespace(source.key, looked_in) if selector.matches(p.labels)])
    return NAME_OR_SELECTOR
