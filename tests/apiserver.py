"""A local HTTP server speaking the Kubernetes REST API from fixture objects, for live-mode tests.

It serves discovery, paged lists (limit/continue), single objects and events, and can be told
to answer 403 for chosen resources, 404 for unserved groups, 410 for a continue token, and
500 once; lists filter by fieldSelector and labelSelector; more kinds (custom resources) can be
served (`extra_served`). A kind can be served in another version than SERVED's (`versions`, as a 1.32
cluster serves DRA as resource.k8s.io/v1beta1; the objects given must be in that version's
shape), and `/apis` can say nothing (`discovery=False`). Every request is recorded (method,
path, query, User-Agent), so tests can assert that podwhy sends only GETs and says who it is.
With `tls=True` it serves HTTPS with the self-signed certificate of tests/tls/ (TLS_CERT), as
a cluster whose CA the client may or may not be given.

What it emulates of kube-apiserver, with the upstream source of each (k8s.io/kubernetes unless
named otherwise), so that tests catch what a real cluster would show:
- Objects as stored (`stored`, on by default; `stored_object`): a nil slice or map whose Go field
  is not omitempty is written as `null` (encoding/json; the fields in NULL_WHEN_EMPTY, from the
  `json:"..."` tags of k8s.io/api storage/v1, core/v1 and resource/v1 types.go); the fields the
  API server sets on create: metadata.uid, resourceVersion, creationTimestamp and managedFields
  (staging/src/k8s.io/apiserver/pkg/registry/rest/create.go FillObjectMetaSystemFields, the
  etcd3 store's resourceVersion, fieldmanager); and the Pod defaults of pkg/apis/core/v1/defaults.go
  (SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_ContainerPort) that do not depend on
  admission.
- Lists: `{kind}List` with metadata.resourceVersion, `continue` and `remainingItemCount` when a
  page is cut (apiserver/pkg/storage/etcd3/store.go GetList: the token is opaque base64 JSON of
  {"v","rv","start"}, pkg/storage/continue.go); an expired token answers 410 `Expired` with
  the message of storage.NewResourceExpiredError / the etcd3 store, and podwhy restarts the list.
- Errors as `Status` objects (apimachinery/pkg/api/errors: NewNotFound, NewForbidden,
  NewInternalError, NewResourceExpired, NewMethodNotSupported).
- Discovery: `/api` (APIVersions), `/apis` as the legacy APIGroupList, or as the aggregated
  APIGroupDiscoveryList (apidiscovery.k8s.io/v2) when the client asks for it in Accept
  (apiserver/pkg/endpoints/discovery/aggregated), and `/apis/GROUP/VERSION` (APIResourceList).
- `/version`: the version.Info fields (apimachinery/pkg/version/types.go).
"""

from __future__ import annotations

import base64
import json
import socket
import ssl
import sys
import threading
import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

# Where each kind is served: (group/version, resource, namespaced). Facts of the Kubernetes API.
SERVED: dict[str, tuple[str, str, bool]] = {
    "Node": ("v1", "nodes", False),
    "Pod": ("v1", "pods", True),
    "PersistentVolume": ("v1", "persistentvolumes", False),
    "PersistentVolumeClaim": ("v1", "persistentvolumeclaims", True),
    "Namespace": ("v1", "namespaces", False),
    "Service": ("v1", "services", True),
    "LimitRange": ("v1", "limitranges", True),
    "ResourceQuota": ("v1", "resourcequotas", True),
    "ReplicationController": ("v1", "replicationcontrollers", True),
    "Event": ("v1", "events", True),
    "ConfigMap": ("v1", "configmaps", True),
    "Secret": ("v1", "secrets", True),
    "StorageClass": ("storage.k8s.io/v1", "storageclasses", False),
    "CSINode": ("storage.k8s.io/v1", "csinodes", False),
    "CSIDriver": ("storage.k8s.io/v1", "csidrivers", False),
    "CSIStorageCapacity": ("storage.k8s.io/v1", "csistoragecapacities", True),
    "VolumeAttachment": ("storage.k8s.io/v1", "volumeattachments", False),
    "PriorityClass": ("scheduling.k8s.io/v1", "priorityclasses", False),
    "RuntimeClass": ("node.k8s.io/v1", "runtimeclasses", False),
    "PodDisruptionBudget": ("policy/v1", "poddisruptionbudgets", True),
    "ReplicaSet": ("apps/v1", "replicasets", True),
    "StatefulSet": ("apps/v1", "statefulsets", True),
    "Deployment": ("apps/v1", "deployments", True),
    "DaemonSet": ("apps/v1", "daemonsets", True),
    "Job": ("batch/v1", "jobs", True),
    "CronJob": ("batch/v1", "cronjobs", True),
    "DeviceClass": ("resource.k8s.io/v1", "deviceclasses", False),
    "ResourceSlice": ("resource.k8s.io/v1", "resourceslices", False),
    "ResourceClaim": ("resource.k8s.io/v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("resource.k8s.io/v1", "resourceclaimtemplates", True),
    # Karpenter's CRDs (served where it is installed: unserved_groups={"karpenter.sh/v1"} without).
    "NodePool": ("karpenter.sh/v1", "nodepools", False),
    "NodeClaim": ("karpenter.sh/v1", "nodeclaims", False),
    # Kueue's CRDs (unserved_groups={"kueue.x-k8s.io/v1beta2"} without). Its Workload is keyed
    # by kind and group: scheduling.k8s.io's Workload is another kind of that name.
    "ResourceFlavor": ("kueue.x-k8s.io/v1beta2", "resourceflavors", False),
    "ClusterQueue": ("kueue.x-k8s.io/v1beta2", "clusterqueues", False),
    "Cohort": ("kueue.x-k8s.io/v1beta2", "cohorts", False),
    "LocalQueue": ("kueue.x-k8s.io/v1beta2", "localqueues", True),
    "Workload.kueue.x-k8s.io": ("kueue.x-k8s.io/v1beta2", "workloads", True),
    "WorkloadPriorityClass": ("kueue.x-k8s.io/v1beta2", "workloadpriorityclasses", False),
    "AdmissionCheck": ("kueue.x-k8s.io/v1beta2", "admissionchecks", False),
    "Topology": ("kueue.x-k8s.io/v1beta2", "topologies", False),
    # The admission configuration. MutatingAdmissionPolicies as v1.36 serves them (v1.35 serves
    # them as v1beta1 where their feature gate is on: versions={"MutatingAdmissionPolicy": ...}).
    "ValidatingAdmissionPolicy": ("admissionregistration.k8s.io/v1", "validatingadmissionpolicies", False),
    "ValidatingAdmissionPolicyBinding": ("admissionregistration.k8s.io/v1", "validatingadmissionpolicybindings", False),
    "MutatingAdmissionPolicy": ("admissionregistration.k8s.io/v1", "mutatingadmissionpolicies", False),
    "MutatingAdmissionPolicyBinding": ("admissionregistration.k8s.io/v1", "mutatingadmissionpolicybindings", False),
    "ValidatingWebhookConfiguration": ("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", False),
    "MutatingWebhookConfiguration": ("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", False),
}
# The groups of custom resources: their list items carry kind and apiVersion, as the API server
# serves every custom resource (built-in kinds' items carry neither).
CUSTOM_GROUPS = frozenset({"karpenter.sh", "kueue.x-k8s.io"})


def served_key(obj: dict[str, Any]) -> str:
    """The key of SERVED an object is served under: its kind, or `Kind.group` when SERVED has that."""
    kind = str(obj.get("kind", ""))
    qualified = f"{kind}.{str(obj.get('apiVersion', '')).rpartition('/')[0]}"
    return qualified if qualified in SERVED else kind


_SafeLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeLoader):  # type: ignore[misc]
    """Timestamps stay strings, as the API server writes them."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}


def load_objects(path: Path) -> list[dict[str, Any]]:
    """The objects of a dump file (a List, single objects or multi-document YAML; .gz too)."""
    import gzip

    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    out: list[dict[str, Any]] = []
    for doc in yaml.load_all(data, Loader=_Loader):
        if not isinstance(doc, dict):
            continue
        items = doc.get("items")
        if isinstance(items, list):
            item_kind = doc.get("kind", "")[: -len("List")] if doc.get("kind", "") != "List" else ""
            for item in items:
                if item_kind and "kind" not in item:
                    item = {**item, "kind": item_kind}
                out.append(item)
        else:
            out.append(doc)
    return out


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    user_agent: str = ""


# Slices and maps whose Go field has no omitempty: a nil one is written as `null`. Paths from the
# kind's root; `[]` steps into each item of a list. From k8s.io/api's types.go `json:"..."` tags:
# storage/v1 CSINodeSpec.Drivers, CSINodeDriver.TopologyKeys; core/v1 ContainerImage.Names,
# NodeSelector.NodeSelectorTerms, TopologySelectorLabelRequirement.Values; resource/v1
# DeviceClaim.Requests.
NULL_WHEN_EMPTY: dict[str, list[str]] = {
    "CSINode": ["spec.drivers", "spec.drivers[].topologyKeys"],
    "Node": ["status.images[].names"],
    "PersistentVolume": ["spec.nodeAffinity.required.nodeSelectorTerms"],
    "StorageClass": ["allowedTopologies[].matchLabelExpressions[].values"],
    "ResourceClaim": ["spec.devices.requests"],
    "ResourceClaimTemplate": ["spec.spec.devices.requests"],
}
# When every stored object was created (a fixture object without one).
CREATED = "2026-01-01T00:00:00Z"


def _null_when_empty(obj: Any, steps: list[str]) -> None:
    """Set the field STEPS lead to as `null` where it is absent or empty, as Go writes a nil slice."""
    if not isinstance(obj, dict) or not steps:
        return
    step, rest = steps[0], steps[1:]
    each = step.endswith("[]")
    key = step.removesuffix("[]")
    if key not in obj:
        if not rest and not each:
            obj[key] = None
        return
    if not rest and not each:
        if obj[key] in ([], {}, None):
            obj[key] = None
        return
    value = obj[key]
    for item in value if each and isinstance(value, list) else [value]:
        _null_when_empty(item, rest)


def _pod_defaults(obj: dict[str, Any]) -> None:
    """pkg/apis/core/v1/defaults.go: what SetDefaults_PodSpec, SetDefaults_Container and
    SetDefaults_ContainerPort fill in on every stored Pod (admission's fields are not guessed)."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            container.setdefault("terminationMessagePath", "/dev/termination-log")
            container.setdefault("terminationMessagePolicy", "File")
            image = str(container.get("image", ""))
            tagged = ":" in image.rpartition("/")[2] or "@" in image
            latest = not tagged or image.endswith(":latest")
            container.setdefault("imagePullPolicy", "Always" if latest else "IfNotPresent")
            for port in container.get("ports") or []:
                port.setdefault("protocol", "TCP")
                if spec.get("hostNetwork") and "hostPort" not in port:
                    port["hostPort"] = port.get("containerPort")


def stored_object(obj: dict[str, Any], index: int, api_version: str) -> dict[str, Any]:
    """OBJ as kube-apiserver stores and serves it (see the module's docstring)."""
    out: dict[str, Any] = json.loads(json.dumps(obj))
    kind = str(out.get("kind", ""))
    meta = out.setdefault("metadata", {})
    name = f"{kind}/{meta.get('namespace', '')}/{meta.get('name', '')}"
    meta.setdefault("uid", str(uuid.uuid5(uuid.NAMESPACE_URL, name)))
    meta.setdefault("resourceVersion", str(1000 + index))
    meta.setdefault("creationTimestamp", CREATED)
    meta.setdefault(
        "managedFields",
        [
            {
                "manager": "kubectl-client-side-apply",
                "operation": "Update",
                "apiVersion": api_version,
                "time": meta["creationTimestamp"],
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {}},
            }
        ],
    )
    if kind == "Pod":
        _pod_defaults(out)
    for path in NULL_WHEN_EMPTY.get(kind, []):
        _null_when_empty(out, path.split("."))
    return out


TLS = Path(__file__).resolve().parent / "tls"
# The server's certificate, its own CA (tests/tls/README.md).
TLS_CERT = TLS / "server.crt"


class _Server(ThreadingHTTPServer):
    """The test API server: a client that drops its connection (a fetch stopped at a bound, a
    refused request, a test over) ends that handler quietly, as a real API server logs it at most;
    any other error in a handler is still printed (a fault of the test server itself). Without
    this, socketserver prints the dropped connection's traceback to whichever stderr the thread
    sees, which a CliRunner capturing a later command's stderr would read as that command's."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class _TLSServer(_Server):
    """HTTPS: each connection's handshake in its own handler thread, a failed one dropped quietly
    (the client refusing the certificate is what a test expects)."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(TLS_CERT, TLS / "server.key")

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@dataclass
class FakeApiServer:
    objects: list[dict[str, Any]]
    page_size_cap: int | None = None
    forbidden: set[str] = field(default_factory=set)  # resource names, e.g. "persistentvolumeclaims"
    list_forbidden: set[str] = field(default_factory=set)  # resources that can be read one by one, not listed
    unserved_groups: set[str] = field(default_factory=set)  # group/versions, e.g. "resource.k8s.io/v1"
    versions: dict[str, str] = field(default_factory=dict)  # kind -> the group/version it is served in
    # More kinds to serve, as SERVED says them (a custom resource's: its list items carry kind and apiVersion).
    extra_served: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    discovery: bool = True  # False: /apis answers 404
    expire_continue_once: set[str] = field(default_factory=set)  # resources whose first continue is 410
    fail_once: set[str] = field(default_factory=set)  # resources whose first request is a 500
    fail_always: bool = False  # fail_once's resources answer 500 to every request
    token: str = "test-token"
    tls: bool = False  # HTTPS with tests/tls/'s certificate
    git_version: str = "v1.35.4"  # what /version says
    stored: bool = True  # objects as the API server stores them (stored_object); False: as given
    requests: list[Recorded] = field(default_factory=list)
    # Requests whose path ends with one of these wait for `release` (set `holding` first): a fetch
    # caught in the middle, without a clock.
    hold: set[str] = field(default_factory=set)
    holding: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    served: dict[str, tuple[str, str, bool]] = field(default_factory=dict, init=False)
    _index: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.served = {
            kind: (self.versions.get(kind, gv), resource, namespaced)
            for kind, (gv, resource, namespaced) in {**SERVED, **self.extra_served}.items()
        }
        index: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for number, obj in enumerate(self.objects):
            served = self.served.get(served_key(obj))
            if served is not None:
                index[served[1]].append(stored_object(obj, number, served[0]) if self.stored else obj)
        self._index = dict(index)

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> FakeApiServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._handle(self, "GET")

            def _refuse(self) -> None:
                server._handle(self, self.command)

            do_POST = do_PUT = do_PATCH = do_DELETE = _refuse  # noqa: N815

        self._server = (_TLSServer if self.tls else _Server)(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host!s}:{port}"

    def kubeconfig(self, path: Path, namespace: str | None = None, context: str = "test") -> Path:
        ctx: dict[str, Any] = {"cluster": "test", "user": "test"}
        if namespace:
            ctx["namespace"] = namespace
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "test", "cluster": {"server": self.url}}],
            "users": [{"name": "test", "user": {"token": self.token}}],
            "contexts": [{"name": context, "context": ctx}],
            "current-context": context,
        }
        path.write_text(yaml.safe_dump(doc))
        return path

    def dump(self, path: Path) -> Path:
        """What `kubectl get ... -A -o json` of this server's cluster writes: every object as stored."""
        items = [obj for objs in self._index.values() for obj in objs]
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        return path

    @property
    def methods(self) -> set[str]:
        return {r.method for r in self.requests}

    # ------------------------------------------------------------------ serving
    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(handler.path)
        query = parse_qs(parts.query)
        with self._lock:
            self.requests.append(Recorded(method, parts.path, query, handler.headers.get("User-Agent", "")))
        if method != "GET":
            self._send(handler, 405, _status(405, "MethodNotAllowed", f"{method} is not allowed here"))
            return
        if handler.headers.get("Authorization") != f"Bearer {self.token}":
            self._send(handler, 401, _status(401, "Unauthorized", "Unauthorized"))
            return
        if any(parts.path.endswith(f"/{resource}") for resource in self.hold):
            self.holding.set()
            self.release.wait()
        aggregated = "as=APIGroupDiscoveryList" in handler.headers.get("Accept", "")
        code, body = self._answer(parts.path, query, aggregated)
        self._send(handler, code, body)

    def _answer(self, path: str, query: dict[str, list[str]], aggregated: bool = False) -> tuple[int, dict[str, Any]]:
        if path == "/version":
            major, minor = self.git_version.lstrip("v").split(".")[:2]
            return 200, {
                "major": major,
                "minor": minor,
                "gitVersion": self.git_version,
                "gitCommit": "0" * 40,
                "gitTreeState": "clean",
                "buildDate": "2026-01-01T00:00:00Z",
                "goVersion": "go1.24.0",
                "compiler": "gc",
                "platform": "linux/amd64",
            }
        if path == "/api":
            return 200, {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}],
            }
        if path == "/apis" and self.discovery:
            return 200, self._aggregated_discovery() if aggregated else self._group_list()
        if self.discovery and path.startswith("/apis/") and path.count("/") == 3:
            gv = path.removeprefix("/apis/")
            resources = self._resources(gv)
            if resources:
                return 200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
        route = _route(path)
        if route is None:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        group_version, namespace, resource, name = route
        served = {(gv, res) for gv, res, _ in self.served.values()}
        if group_version in self.unserved_groups or (group_version, resource) not in served:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        if resource in self.forbidden or (resource in self.list_forbidden and name is None):
            return 403, _status(
                403,
                "Forbidden",
                f'{resource} is forbidden: User "system:serviceaccount:default:podwhy" cannot list resource '
                f'"{resource}" in API group "{group_version.rpartition("/")[0]}" at the cluster scope',
            )
        with self._lock:
            if resource in self.fail_once:
                if not self.fail_always:
                    self.fail_once.discard(resource)
                return 500, _status(500, "InternalError", "etcdserver: leader changed")
        items = [o for o in self._index.get(resource, []) if _in_namespace(o, namespace)]
        if name is not None:
            found = next((o for o in items if o.get("metadata", {}).get("name") == name), None)
            if found is None:
                return 404, _status(404, "NotFound", f'{resource} "{name}" not found')
            return 200, found
        for selector in query.get("fieldSelector", []):
            items = [o for o in items if _matches_fields(o, selector)]
        for selector in query.get("labelSelector", []):
            items = [o for o in items if _matches_labels(o, selector)]
        return self._page(resource, group_version, items, query)

    def _by_group(self) -> dict[str, list[str]]:
        served_gvs = {gv for gv, _, _ in self.served.values() if gv != "v1" and gv not in self.unserved_groups}
        by_group: dict[str, list[str]] = defaultdict(list)
        for gv in sorted(served_gvs):
            by_group[gv.split("/")[0]].append(gv)
        return by_group

    def _resources(self, group_version: str) -> list[dict[str, Any]]:
        if group_version in self.unserved_groups:
            return []
        return [
            {"name": res, "singularName": "", "namespaced": namespaced, "kind": kind, "verbs": ["get", "list", "watch"]}
            for kind, (gv, res, namespaced) in sorted(self.served.items())
            if gv == group_version
        ]

    def _group_list(self) -> dict[str, Any]:
        """The legacy discovery document (metav1.APIGroupList)."""
        groups = []
        for name, gvs in sorted(self._by_group().items()):
            versions = [{"groupVersion": gv, "version": gv.split("/")[1]} for gv in gvs]
            groups.append({"name": name, "versions": versions, "preferredVersion": versions[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def _aggregated_discovery(self) -> dict[str, Any]:
        """The aggregated discovery document (apidiscovery.k8s.io/v2 APIGroupDiscoveryList)."""
        items = []
        for name, gvs in sorted(self._by_group().items()):
            versions = []
            for gv in gvs:
                resources = [
                    {
                        "resource": r["name"],
                        "responseKind": {"group": name, "version": gv.split("/")[1], "kind": r["kind"]},
                        "scope": "Namespaced" if r["namespaced"] else "Cluster",
                        "singularResource": r["kind"].lower(),
                        "verbs": r["verbs"],
                    }
                    for r in self._resources(gv)
                ]
                versions.append({"version": gv.split("/")[1], "resources": resources, "freshness": "Current"})
            items.append({"metadata": {"name": name, "creationTimestamp": None}, "versions": versions})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items}

    def _page(
        self, resource: str, group_version: str, items: list[dict[str, Any]], query: dict[str, list[str]]
    ) -> tuple[int, dict[str, Any]]:
        start = 0
        token = (query.get("continue") or [""])[0]
        if token:
            with self._lock:
                if resource in self.expire_continue_once:
                    self.expire_continue_once.discard(resource)
                    return 410, _status(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a consistent list result. You can "
                        "start a new list without the continue parameter, or use the continue token in this response "
                        "to retrieve the remainder of the results. Continuing with the provided token results in an "
                        "inconsistent list - objects that were created, modified, or deleted between the time the "
                        "first chunk was returned and now may show up in the list.",
                    )
            start = int(json.loads(base64.b64decode(token.encode()))["start"])
        limit = int((query.get("limit") or ["0"])[0] or 0)
        if self.page_size_cap is not None:
            limit = min(limit or self.page_size_cap, self.page_size_cap)
        end = len(items) if not limit else min(len(items), start + limit)
        metadata: dict[str, Any] = {"resourceVersion": "12345"}
        if end < len(items):
            cont = {"v": "meta.k8s.io/v1", "rv": 12345, "start": str(end)}
            metadata["continue"] = base64.b64encode(json.dumps(cont).encode()).decode()
            metadata["remainingItemCount"] = len(items) - end
        kind = next(k for k, (gv, res, _) in self.served.items() if res == resource and gv == group_version)
        kind = kind.partition(".")[0]  # the API's kind of a key of SERVED
        group = group_version.rpartition("/")[0]
        if group in CUSTOM_GROUPS or any(gv.startswith(f"{group}/") for gv, _, _ in self.extra_served.values()):
            page_items = [_typed(o, kind, group_version) for o in items[start:end]]
        else:
            page_items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in items[start:end]]
        api_version = group_version
        return 200, {"kind": f"{kind}List", "apiVersion": api_version, "metadata": metadata, "items": page_items}

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def _typed(obj: dict[str, Any], kind: str, api_version: str) -> dict[str, Any]:
    """A custom resource as its list serves it: apiVersion and kind first, then its fields in
    the order encoding/json writes an unstructured object's (sorted keys)."""
    rest = {k: obj[k] for k in sorted(obj) if k not in ("kind", "apiVersion")}
    return {"apiVersion": api_version, "kind": kind, **rest}


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": {},
        "code": code,
    }


def _route(path: str) -> tuple[str, str | None, str, str | None] | None:
    """(group/version, namespace, resource, name) of an API path."""
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group_version, rest = "v1", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 3:
        group_version, rest = f"{parts[1]}/{parts[2]}", parts[3:]
    else:
        return None
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if len(rest) == 1:
        return group_version, namespace, rest[0], None
    if len(rest) == 2:
        return group_version, namespace, rest[0], rest[1]
    return None


def _in_namespace(obj: dict[str, Any], namespace: str | None) -> bool:
    return namespace is None or obj.get("metadata", {}).get("namespace", "default") == namespace


def _matches_fields(obj: dict[str, Any], selector: str) -> bool:
    for term in selector.split(","):
        key, _, want = term.partition("=")
        value: Any = obj
        for part in key.split("."):
            value = value.get(part, {}) if isinstance(value, dict) else {}
        if str(value) != want:
            return False
    return True


def _label_terms(selector: str) -> list[str]:
    """A labelSelector's terms (commas inside a set's parentheses belong to it)."""
    terms, depth, current = [], 0, ""
    for char in selector:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        terms.append(current.strip())
    return terms


def _matches_labels(obj: dict[str, Any], selector: str) -> bool:
    """labels.Parse's grammar, as far as podwhy writes it: k=v, k!=v, k in (..), k notin (..), k, !k."""
    labels = obj.get("metadata", {}).get("labels") or {}
    for term in _label_terms(selector):
        if " notin " in term or " in " in term:
            key, op, values = term.partition(" notin " if " notin " in term else " in ")
            wanted = {v.strip() for v in values.strip().strip("()").split(",")}
            found = labels.get(key.strip())
            if (op == " in " and found not in wanted) or (op == " notin " and found in wanted):
                return False
        elif "!=" in term:
            key, _, value = term.partition("!=")
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, _, value = term.partition("=")
            if labels.get(key) != value.lstrip("="):
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def served_kinds(objects: Iterable[dict[str, Any]]) -> set[str]:
    return {served_key(o) for o in objects if served_key(o) in SERVED}
