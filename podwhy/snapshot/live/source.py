"""The API server as a snapshot source: paged, concurrent, read-only lists decoded straight
into the typed model.

The official `kubernetes` client connects (kubeconfig.py: kubeconfig with its multi-path merge,
contexts, exec and auth-provider credentials, TLS, in-cluster service accounts); podwhy reads the
raw JSON bytes of each page and decodes them with the same typed decoder as dumps, so large
clusters never exist as Python dicts. Only GET requests are ever sent; a request that gets no
answer is worded by errors.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import msgspec

from podwhy import clock
from podwhy.errors import PodwhyError
from podwhy.heap import gc_paused
from podwhy.model import objects as o
from podwhy.model.records import replace
from podwhy.snapshot.apiversions import VERSIONS, Refused, group_of, read_versions
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode
from podwhy.snapshot.limits import max_input_bytes, too_large
from podwhy.snapshot.live.errors import HttpError as _HttpError
from podwhy.snapshot.live.errors import connection_error
from podwhy.snapshot.live.kubeconfig import api_client
from podwhy.snapshot.live.params import ParamFetch, fetch_params, policies_fetched
from podwhy.snapshot.live.wire import GROUPS_DECODER, PAGE_DECODER, VERSION_DECODER, decode_status
from podwhy.snapshot.live.wire import HELD_KINDS as HELD_KINDS
from podwhy.snapshot.live.wire import PageSink as PageSink
from podwhy.snapshot.live.wire import Progress as Progress
from podwhy.snapshot.live.wire import ProgressCallback as ProgressCallback
from podwhy.snapshot.params import read_param
from podwhy.snapshot.resources import (
    ADMISSION_RESOURCES as ADMISSION_RESOURCES,
)
from podwhy.snapshot.resources import (
    FORBIDDEN as FORBIDDEN,
)
from podwhy.snapshot.resources import (
    KUEUE_RESOURCES as KUEUE_RESOURCES,
)
from podwhy.snapshot.resources import (
    LIVE_SOURCE as LIVE_SOURCE,
)
from podwhy.snapshot.resources import (
    RESOURCES as RESOURCES,
)
from podwhy.snapshot.resources import (
    SNAPSHOT_COMMAND as SNAPSHOT_COMMAND,
)
from podwhy.snapshot.resources import (
    SNAPSHOT_DOCS as SNAPSHOT_DOCS,
)
from podwhy.snapshot.resources import (
    Resource as Resource,
)
from podwhy.snapshot.resources import (
    dump_hint as dump_hint,
)
from podwhy.snapshot.resources import (
    kubectl_dump_command as kubectl_dump_command,
)

PAGE_SIZE = 500
# Seconds one API request may take, from connecting to the last byte of its answer, when
# --request-timeout does not say (0: no limit). kubectl waits forever by default; a tool people
# script must not: a page of 500 pods takes a busy API server a few seconds.
DEFAULT_REQUEST_TIMEOUT = 60.0
# What one answer is read in: at most one receive each, so a server that sends one byte a second
# cannot outlast the request's deadline.
_CHUNK = 1 << 16
# Lists fetched at once; the client's connection pool is sized to match.
CONCURRENCY = 6
# The fetch's worker threads are named after this.
FETCH_THREADS = "podwhy-fetch"
# 5xx and 429 answers are retried this many times, with a short backoff.
RETRIES = 3
RETRY_BACKOFF_S = 0.2


# The autoscalers (read for the autoscaling analysis only; no plugin reads them): Cluster
# Autoscaler's status ConfigMap, read by name with one GET (never a list of ConfigMaps: a 404
# means no Cluster Autoscaler writes it), and Karpenter's NodePools and NodeClaims, listed only
# where the server serves karpenter.sh/v1 (elsewhere Karpenter is not installed).
CA_STATUS = Resource(
    "ConfigMap", "v1", "configmaps", namespace=o.AUTOSCALER_STATUS_NAMESPACE, name=o.AUTOSCALER_STATUS_CONFIGMAP
)
AUTOSCALER_RESOURCES: tuple[Resource, ...] = (
    CA_STATUS,
    Resource("NodePool", "karpenter.sh/v1", "nodepools", optional=True),
    Resource("NodeClaim", "karpenter.sh/v1", "nodeclaims", optional=True),
)
# What live mode reads, and `podwhy snapshot` writes.
LIVE_RESOURCES: tuple[Resource, ...] = (*RESOURCES, *AUTOSCALER_RESOURCES, *KUEUE_RESOURCES, *ADMISSION_RESOURCES)


def autoscaler_dump_commands(kinds: Iterable[str] | None = None) -> list[str]:
    """`kubectl get` commands for the autoscalers' objects (of KINDS): kept apart from
    kubectl_dump_command, as kubectl fails on a resource type the server does not serve (Karpenter's,
    where it is not installed), and only Cluster Autoscaler's status is read of the ConfigMaps."""
    wanted = set(o.AUTOSCALER_KINDS if kinds is None else kinds)
    commands = []
    if "ConfigMap" in wanted:
        commands.append(f"kubectl get configmap -n {CA_STATUS.namespace} {CA_STATUS.name} -o yaml")
    karpenter = [r.display for r in AUTOSCALER_RESOURCES if r.optional and r.kind in wanted]
    if karpenter:
        commands.append(f"kubectl get {','.join(karpenter)} -o yaml")
    return commands


EVENTS = Resource("Event", "v1", "events")
# The events of Cluster Autoscaler's status ConfigMap, listed in its namespace (a key of its own).
CA_STATUS_EVENTS = Resource("Event", "v1", "events", namespace=o.AUTOSCALER_STATUS_NAMESPACE)
# Without these two nothing can be explained: failing to list them is an error, not a missing kind.
ESSENTIAL = frozenset({"Node", "Pod"})
# Add-ons' kinds (the autoscalers', Kueue's) and the admission configuration: a list that fails
# leaves the kind missing with the server's words, never an error (no plugin reads them).
ADD_ON_KINDS = o.AUTOSCALER_KINDS | o.KUEUE_KINDS.keys() | o.ADMISSION_KINDS.keys()


@dataclass
class LiveSource:
    """Lists every kind the plugins read from the API server of a kubeconfig context."""

    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float | None = None
    # The pod whose events to fetch (namespace, name); None for no events.
    events_for: tuple[str, str] | None = None
    progress: ProgressCallback | None = None
    # A raw fetch's pages go here as they arrive (but those of HELD_KINDS); None: held until the end.
    sink: PageSink | None = None
    resources: tuple[Resource, ...] = LIVE_RESOURCES
    # --insecure-skip-tls-verify, as kubectl's: the server's certificate is not checked (the
    # kubeconfig's CA is set aside); nothing else of the connection changes.
    insecure_skip_tls_verify: bool = False
    _api: Any = field(default=None, init=False, repr=False)
    _namespace: str = field(default="default", init=False)
    _state: Progress = field(default_factory=Progress, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    # Unbound pods' JSON as served (see Snapshot.raw_pods), gathered from every page.
    _raw_pods: dict[str, bytes] = field(default_factory=dict, init=False, repr=False)
    # Workloads' pod templates as served (see Snapshot.raw_templates).
    _raw_templates: dict[tuple[str, str, str], bytes] = field(default_factory=dict, init=False, repr=False)
    # The group/versions discovery says the server serves (None: it did not say), set by fetch.
    _served: dict[str, list[str]] | None = field(default=None, init=False, repr=False)
    # The API server's gitVersion ("" when /version could not be read), set by fetch.
    server_version: str = field(default="", init=False)
    # When fetch began (RFC 3339), set by fetch: the time the snapshot was taken.
    taken_at: str = field(default="", init=False)
    # The policies' params (live/params.py), set by fetch once the policies and bindings are fetched.
    params: ParamFetch = field(default_factory=ParamFetch, init=False)
    # Pages of raw JSON held now (from their answer until nothing refers to it), and the most
    # held at once during a fetch: a raw fetch without a sink holds every page to the end.
    pages_held: int = field(default=0, init=False)
    peak_pages_held: int = field(default=0, init=False)

    # ------------------------------------------------------------------ connecting
    def connect(self) -> str:
        """Load credentials as kubectl does; returns the context's namespace (default "default")."""
        if self._api is not None:
            return self._namespace
        self._api, self._namespace = api_client(
            self.kubeconfig, self.context, self._timeout, self.insecure_skip_tls_verify, CONCURRENCY
        )
        return self._namespace

    @property
    def _timeout(self) -> float:
        """The request timeout in seconds (0: none)."""
        return DEFAULT_REQUEST_TIMEOUT if self.request_timeout is None else self.request_timeout

    @property
    def host(self) -> str:
        return str(self._api.configuration.host) if self._api is not None else ""

    # ------------------------------------------------------------------ requests (GET only)
    def get(self, path: str, query: Iterable[tuple[str, str]] = ()) -> bytes:
        """The body of a GET, retrying 5xx and 429 answers; _HttpError for any other failure."""
        from urllib3.exceptions import HTTPError as Urllib3Error

        self.connect()
        api = self._api
        query_list = list(query)
        method, url, headers, _body, _post = api.param_serialize(
            "GET",
            path,
            query_params=query_list,
            auth_settings=["BearerToken"],
            header_params={"Accept": "application/json"},
        )
        attempt = 0
        while True:
            attempt += 1
            with self._lock:
                self._state.requests += 1
            timeout = self._timeout
            deadline = time.monotonic() + timeout if timeout else None
            try:
                response = api.call_api(method, url, header_params=headers, _request_timeout=timeout or None)
                data = self._body(response.response, deadline, timeout)
                status: int = response.status
            except Urllib3Error as exc:
                raise connection_error(self.host, exc) from None
            if 200 <= status < 300:
                return data
            if (status >= 500 or status == 429) and attempt <= RETRIES:
                time.sleep(RETRY_BACKOFF_S * attempt)
                continue
            parsed = decode_status(data)
            raise _HttpError(status, parsed.reason, parsed.message or f"HTTP {status}")

    def _body(self, response: Any, deadline: float | None, timeout: float) -> bytes:
        """The whole answer, within the request's deadline (a total, not per receive) and the
        bound on any input (limits.MAX_INPUT_BYTES)."""
        limit = max_input_bytes()
        chunks: list[bytes] = []
        size = 0
        read = getattr(response, "read1", None) or response.read
        try:
            while chunk := read(_CHUNK):
                size += len(chunk)
                if limit is not None and size > limit:
                    raise too_large(f"an answer of {self.host}", limit, "sent")
                if deadline is not None and time.monotonic() > deadline:
                    raise PodwhyError(
                        f"{self.host} did not send its whole answer in {timeout:g} s (request timeout)",
                        hint="raise --request-timeout; 0 for no limit",
                    )
                chunks.append(chunk)
        finally:
            response.release_conn()
        return b"".join(chunks)

    def _list(
        self,
        resource: Resource,
        namespace: str | None,
        field_selector: str,
        raw: bool,
        label_selector: str = "",
        sink: PageSink | None = None,
    ) -> list[Any]:
        """Every item of a list, page by page, decoded as each page arrives (typed objects, or the raw
        JSON of each item with `raw`, handed to SINK when there is one, which then gets them all);
        restarts the list when its continue token expired (410 Gone)."""
        try:
            return self._pages(resource, namespace, field_selector, raw, label_selector, sink)
        except BaseException:
            if sink is not None:
                sink.restart(resource)  # a list that failed leaves nothing half-written
            raise

    def _pages(
        self,
        resource: Resource,
        namespace: str | None,
        field_selector: str,
        raw: bool,
        label_selector: str,
        sink: PageSink | None,
    ) -> list[Any]:
        items: list[Any] = []
        token = ""
        restarts = 0
        page_number = 0
        while True:
            page_number += 1
            with self._lock:
                self._state.current, self._state.page = resource.display, page_number
            self._report()
            query = [("limit", str(PAGE_SIZE))]
            if token:
                query.append(("continue", token))
            if field_selector:
                query.append(("fieldSelector", field_selector))
            if label_selector:
                query.append(("labelSelector", label_selector))
            try:
                data = self.get(resource.path(namespace), query)
            except _HttpError as exc:
                if exc.status == 410 and token and restarts < RETRIES:
                    items, token, page_number = [], "", 0
                    if sink is not None:
                        sink.restart(resource)
                    restarts += 1
                    continue
                raise
            self._held(1)
            if raw:
                page = PAGE_DECODER.decode(data)
                count, token = len(page.items), page.metadata.continue_
                if sink is not None:
                    sink.page(resource, page.items)
                else:
                    items.extend(page.items)  # the items refer to the page: held to the end
                del page
            else:
                # The same typed decoder as dumps: each item straight into the model.
                decoded = decode(data, f"{resource.display} from {self.host}")
                objects = decoded.objects.get(resource.kind, [])
                items.extend(objects)
                if decoded.raw_pods or decoded.raw_templates:
                    with self._lock:
                        self._raw_pods.update(decoded.raw_pods)
                        self._raw_templates.update(decoded.raw_templates)
                count = len(objects)
                token = decoded.list_meta.continue_ if decoded.list_meta is not None else ""
            del data  # at most one page of raw JSON is held at a time
            if not raw or sink is not None or not count:
                self._held(-1)  # nothing refers to the page now
            with self._lock:
                self._state.pages += 1
                self._state.objects += count
                self._state.by_kind[resource.kind] = self._state.by_kind.get(resource.kind, 0) + count
            self._report()
            if not token:
                return items

    def _held(self, change: int) -> None:
        with self._lock:
            self.pages_held += change
            self.peak_pages_held = max(self.peak_pages_held, self.pages_held)

    def _get_object(self, resource: Resource, raw: bool) -> list[Any]:
        """The one object RESOURCE names, as a list of it (typed, or its raw JSON without kind and
        apiVersion, as list items come); _HttpError when it cannot be read (404: there is none)."""
        with self._lock:
            self._state.current, self._state.page = resource.display, 1
        self._report()
        data = self.get(resource.path())
        if raw:
            try:
                fields = msgspec.json.decode(data)
            except msgspec.DecodeError as exc:
                raise PodwhyError(f"{resource.display} from {self.host}: malformed JSON: {exc}") from None
            if not isinstance(fields, dict):
                raise PodwhyError(f"{resource.display} from {self.host}: not a Kubernetes object")
            fields.pop("kind", None)
            fields.pop("apiVersion", None)
            items: list[Any] = [msgspec.Raw(msgspec.json.encode(fields))]
        else:
            items = decode(data, f"{resource.display} from {self.host}").objects.get(resource.kind, [])
        with self._lock:
            self._state.pages += 1
            self._state.objects += len(items)
            self._state.by_kind[resource.kind] = self._state.by_kind.get(resource.kind, 0) + len(items)
        self._report()
        return items

    def list_raw(
        self, resource: Resource, namespace: str | None, field_selector: str, label_selector: str
    ) -> list[Any]:
        """A list's items as raw JSON (live/params.py's ParamsClient)."""
        return self._list(resource, namespace, field_selector, True, label_selector)

    def get_raw(self, resource: Resource) -> list[Any]:
        """The object RESOURCE names as raw JSON, in a list (live/params.py's ParamsClient)."""
        return self._get_object(resource, True)

    @property
    def requests_sent(self) -> int:
        return self._state.requests

    def _report(self) -> None:
        if self.progress is not None:
            with self._lock:
                self.progress(self._state)

    # ------------------------------------------------------------------ discovery
    def served_group_versions(self) -> dict[str, list[str]] | None:
        """The group/versions the server serves, by group (discovery, GET /apis); None when it
        does not say (then each kind is tried in the versions podwhy reads, newest first)."""
        try:
            data = self.get("/apis")
            groups = GROUPS_DECODER.decode(data)
        except (_HttpError, msgspec.DecodeError):
            return None
        return {g.name: [v.groupVersion for v in g.versions] for g in groups.groups}

    @staticmethod
    def versions_to_try(resource: Resource, served: dict[str, list[str]] | None) -> list[Resource] | str:
        """RESOURCE in each version podwhy reads it in that the server serves, newest first; or why
        none can be listed. A kind served in several versions is read in the newest (a 1.32
        cluster's DRA objects as resource.k8s.io/v1beta1)."""
        group = resource.group
        candidates = [v for v in read_versions(resource.kind) if group_of(v) == group] or [resource.group_version]
        if len(candidates) == 1 or served is None:
            return [replace(resource, group_version=v) for v in candidates]
        offered = served.get(group, [])
        chosen = [replace(resource, group_version=v) for v in candidates if v in offered]
        if chosen:
            return chosen
        for version in offered:
            how = VERSIONS.get(resource.kind, {}).get(version)
            if isinstance(how, Refused):
                return f"cannot read {resource.display}: the server serves {version}: {how.why}"
        return f"the server does not serve {resource.display} in {', '.join(candidates)}"

    # ------------------------------------------------------------------ the snapshot
    def fetch(self, raw: bool = False) -> dict[Resource, list[Any] | str]:
        """Every resource's items (typed, or raw JSON with `raw`), or why the kind is missing; each
        resource keyed in the version it was listed in."""
        self.connect()
        self.taken_at = clock.rfc3339(clock.now())
        self._state = Progress(kinds_total=len(self.resources) + (1 if self.events_for else 0))
        self.pages_held = self.peak_pages_held = 0
        self._raw_pods = {}
        self._raw_templates = {}
        needs_discovery = any(
            r.optional or len([v for v in read_versions(r.kind) if group_of(v) == r.group]) > 1 for r in self.resources
        )
        served = self.served_group_versions() if needs_discovery else None
        self._served = served
        jobs: list[tuple[Resource, list[Resource] | str, str | None, str]] = [
            (r, self.versions_to_try(r, served), None, "") for r in self.resources
        ]
        out: dict[Resource, list[Any] | str] = {}
        for r in self.resources:
            offered = served.get(r.group, []) if served is not None else []
            readable = [v for v in read_versions(r.kind) if group_of(v) == r.group] or [r.group_version]
            if not r.optional or served is None or any(v in offered for v in readable):
                continue
            # The group not served: not installed, the cluster has none. Served in other versions
            # only (Karpenter before 1.0): missing, with why.
            out[r] = (
                f"the server serves {r.group} in {', '.join(offered)}, not {' or '.join(readable)}" if offered else []
            )
            jobs = [job for job in jobs if job[0] is not r]
            self._state.kinds_done += 1
        if self.events_for is not None:
            namespace, name = self.events_for
            selector = f"involvedObject.name={name}" if name else ""
            jobs.append((EVENTS, [EVENTS], namespace or None, selector))
            covered = not name and namespace in ("", CA_STATUS_EVENTS.namespace)  # the list above holds them
            if CA_STATUS in self.resources and not covered:
                # Cluster Autoscaler's events on its status (ScaleUpFailed with the cloud's error).
                selector = f"involvedObject.kind=ConfigMap,involvedObject.name={CA_STATUS.name}"
                jobs.append((CA_STATUS_EVENTS, [CA_STATUS_EVENTS], CA_STATUS.namespace, selector))
                self._state.kinds_total += 1
        pool = ThreadPoolExecutor(max_workers=CONCURRENCY, thread_name_prefix=FETCH_THREADS)
        try:
            with gc_paused():
                version = pool.submit(self._server_version)
                futures = [(job[0], pool.submit(self._fetch_any, *job[1:], raw)) for job in jobs]
                for resource, future in futures:
                    listed, outcome = future.result()
                    out[listed or resource] = outcome
                self.server_version = version.result()
                self.params = fetch_params(self, *policies_fetched(out))
        except KeyboardInterrupt:
            # Ctrl-C: no waiting for the requests in flight (an API server may hold one for the
            # request timeout); the command line exits without them (cli: _Group.main).
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        return out

    def _server_version(self) -> str:
        """The API server's gitVersion; "" when it does not say (podwhy then looks elsewhere)."""
        try:
            return VERSION_DECODER.decode(self.get("/version")).git_version
        except (_HttpError, msgspec.MsgspecError):
            return ""

    @property
    def description(self) -> str:
        return f"{LIVE_SOURCE}{self.host}" + (f" (context {self.context})" if self.context else "")

    def load(self) -> Snapshot:
        snapshot = Snapshot()
        fetched = self.fetch()
        snapshot.sources.append(self.description)
        snapshot.server_version = self.server_version
        snapshot.server_version_from = self.description
        snapshot.taken_at = self.taken_at
        snapshot.raw_pods.update(self._raw_pods)
        snapshot.raw_templates.update(self._raw_templates)
        for kind, api_version, raw in self.params.objects:
            param = read_param(kind, api_version, raw)
            if param is not None:
                snapshot.params.add(param)
        snapshot.params.fetched.update(self.params.kinds)
        with gc_paused():
            for resource, outcome in fetched.items():
                if isinstance(outcome, str):
                    if resource is not CA_STATUS_EVENTS:  # extra detail only: the status says the rest
                        snapshot.missing[resource.kind] = outcome
                    continue
                snapshot.kinds_seen.add(resource.kind)
                if outcome:
                    snapshot.api_versions.setdefault(resource.kind, set()).add(resource.group_version)
                for obj in outcome:
                    snapshot.add(resource.kind, obj)
        return snapshot

    def _fetch_any(
        self, versions: list[Resource] | str, namespace: str | None, field_selector: str, raw: bool
    ) -> tuple[Resource | None, list[Any] | str]:
        """The items of one kind in the first of VERSIONS the server answers (a 404 tries the
        next), with the version listed; or why the kind is missing (a string)."""
        try:
            if isinstance(versions, str):
                return None, versions
            why = ""
            for resource in versions:
                self._state.current = resource.display
                try:
                    if resource.name:
                        return resource, self._get_object(resource, raw)
                    # The fetch's lists (not the params', fetched after) go to the sink, but the few it holds.
                    sink = self.sink if raw and resource.kind not in HELD_KINDS else None
                    return resource, self._list(resource, namespace, field_selector, raw, sink=sink)
                except _HttpError as exc:
                    if exc.status == 404 and resource.name:
                        return resource, []  # no such object
                    if exc.status == 404 and resource.optional:
                        continue  # not in this version: the next, or the add-on is not installed
                    reason = _missing_reason(resource, exc)
                    verb = "get" if resource.name else "list"
                    if reason is None and resource.kind in ADD_ON_KINDS:
                        # An add-on's: its failing (Kueue's conversion webhook down) leaves it missing.
                        reason = f"cannot {verb} {resource.display}: {exc.message}"
                    if resource.kind in ESSENTIAL or reason is None:
                        raise PodwhyError(f"cannot {verb} {resource.display} on {self.host}: {exc.message}") from None
                    if exc.status != 404:
                        return None, reason
                    why = reason
            if versions and versions[0].optional:
                refused = self._refused_version(versions[0])
                return (None, refused) if refused else (versions[0], [])
            if len(versions) > 1:
                tried = ", ".join(r.group_version for r in versions)
                why = f"the server does not serve {versions[0].display} in {tried}"
            return None, why
        finally:
            with self._lock:
                self._state.kinds_done += 1
            self._report()

    def _refused_version(self, resource: Resource) -> str:
        """Why an add-on's kind that no version podwhy reads it in is served for is missing, when
        the server serves its group in a version podwhy refuses (Kueue before 0.13 serves Cohorts
        in kueue.x-k8s.io/v1alpha1 only); "" when the add-on is simply not installed."""
        for version in (self._served or {}).get(resource.group, []):
            how = VERSIONS.get(resource.kind, {}).get(version)
            if isinstance(how, Refused):
                return f"cannot read {resource.display}: the server serves {version}: {how.why}"
        return ""

    def namespace_exists(self, name: str) -> bool | None:
        """GET the Namespace (when the list of them could not be read): whether it exists, or None
        when the API server does not say."""
        try:
            self.get(Resource("Namespace", "v1", "namespaces").path() + "/" + quote(name, safe=""))
        except _HttpError as exc:
            return False if exc.status == 404 else None
        return True

    def pod_names(self, namespace: str) -> list[str]:
        """Names of the pods of a namespace (for shell completion)."""
        pods = self._list(Resource("Pod", "v1", "pods"), namespace, "", raw=False)
        return [p.metadata.name for p in pods]


def _missing_reason(resource: Resource, exc: _HttpError) -> str | None:
    """Why a kind is absent from a live snapshot, or None when the failure is an error."""
    if exc.status == 403:
        return f"cannot {'get' if resource.name else 'list'} {resource.display}{FORBIDDEN}"
    if exc.status == 404:
        return f"the server does not serve {resource.group_version} {resource.plural}"
    return None
