"""Hypothesis strategies for small clusters and the pod to explain.

Every object is assembled as a camelCase dict with the builders of tests/builders.py and
converted with msgspec, exactly as the loader converts dumps. The value pools are small on
purpose: a handful of label keys, zones, taint keys and ports make nodes, pods and selectors
collide often, so the plugins have something to decide. Everything generated is valid for
the API server (e.g. Gt/Lt take one integer, minDomains only with DoNotSchedule, matchFields
only metadata.name with one value), so every verdict is one kube-scheduler could give.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from hypothesis import strategies as st

from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from tests.builders import Json, NodeBuilder, PodBuilder, from_raw, make_node, make_pod, make_snapshot

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
ZONES = ("zone-a", "zone-b", "zone-c")
NAMESPACES = ("default", "shop")
GPU = "example.com/gpu"
# Node labels besides hostname and zone; "cores" holds integers for Gt/Lt.
NODE_LABELS: dict[str, tuple[str, ...]] = {
    "tier": ("web", "db", "batch"),
    "disk": ("ssd", "hdd"),
    "cores": ("2", "4", "8", "16"),
}
POD_LABELS: dict[str, tuple[str, ...]] = {"app": ("web", "db", "cache"), "team": ("a", "b")}
APPS = ("web", "web", "db", "cache")  # most pods are "web": selectors match often
TAINT_KEYS = ("dedicated", "gpu", "spot")
TAINT_VALUES = ("", "db", "ml")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
IMAGES = ("registry.example/app:1.0", "registry.example/db:2.1", "docker.io/library/nginx:1.27")
HOST_PORTS = (8080, 9090)
PRIORITIES = (0, 10, 100, 1000)


@dataclass
class Cluster:
    """A generated cluster: nodes, the pods already there (bound or nominated), the pod to explain."""

    nodes: list[o.Node]
    pods: list[o.Pod]
    pod: o.Pod
    namespaces: list[o.Namespace] = field(default_factory=list)

    def snapshot(self, *extra_nodes: o.Node) -> Snapshot:
        """The snapshot as a dump of it would load: the pending pod is in it too."""
        return make_snapshot(*self.nodes, *extra_nodes, *self.namespaces, *self.pods, self.pod)

    @property
    def node_names(self) -> list[str]:
        return [n.metadata.name for n in self.nodes]


def one_in(n: int) -> st.SearchStrategy[bool]:
    """True about once in n draws (hypothesis' integers lean towards their bounds)."""
    return st.sampled_from((False,) * (n - 1) + (True,))


# ---------------------------------------------------------------------- nodes


@st.composite
def node_builders(draw: st.DrawFn, name: str) -> NodeBuilder:
    node = make_node(name, hostname_label=not draw(one_in(10)))
    if not draw(one_in(7)):
        node.zone(draw(st.sampled_from(ZONES)))
    for key, values in NODE_LABELS.items():
        if draw(st.booleans()):
            node.labels({key: draw(st.sampled_from(values))})
    for _ in range(draw(st.sampled_from((0, 0, 0, 1, 1, 2)))):
        node.taint(
            draw(st.sampled_from(TAINT_KEYS)), draw(st.sampled_from(TAINT_VALUES)), draw(st.sampled_from(TAINT_EFFECTS))
        )
    if draw(one_in(8)):
        node.unschedulable()
        if draw(st.booleans()):  # the node lifecycle controller adds this taint to cordoned nodes
            node.taint(UNSCHEDULABLE_TAINT)
    allocatable: dict[str, str] = {
        "cpu": draw(st.sampled_from(("1", "2", "4", "8", "16"))),
        "memory": draw(st.sampled_from(("1Gi", "4Gi", "16Gi", "64Gi"))),
        "pods": draw(st.sampled_from(("2", "4", "10", "110"))),
    }
    if draw(one_in(3)):
        allocatable[GPU] = draw(st.sampled_from(("0", "1", "4")))
    if not draw(one_in(6)):
        allocatable["ephemeral-storage"] = draw(st.sampled_from(("20Gi", "100Gi")))
    node.alloc(allocatable)
    for image in draw(st.lists(st.sampled_from(IMAGES), max_size=2, unique=True)):
        node.image(draw(st.sampled_from((20 * 2**20, 300 * 2**20, 2 * 2**30))), image)
    return node


# ---------------------------------------------------------------------- pieces of pods


@cache
def _label_selectors() -> st.SearchStrategy[Json]:
    """metav1.LabelSelector over the pod labels: matchLabels and/or valid matchExpressions."""
    match_labels = st.dictionaries(
        st.sampled_from(sorted(POD_LABELS)), st.sampled_from(POD_LABELS["app"] + POD_LABELS["team"]), max_size=1
    )
    expression = st.one_of(
        st.builds(
            lambda key, op, values: {"key": key, "operator": op, "values": values},
            st.sampled_from(sorted(POD_LABELS)),
            st.sampled_from(("In", "NotIn")),
            st.lists(st.sampled_from(POD_LABELS["app"] + POD_LABELS["team"]), min_size=1, max_size=2, unique=True),
        ),
        st.builds(
            lambda key, op: {"key": key, "operator": op},
            st.sampled_from(sorted(POD_LABELS)),
            st.sampled_from(("Exists", "DoesNotExist")),
        ),
    )

    def selector(labels: dict[str, str], expressions: list[Json]) -> Json:
        out: Json = {}
        if labels:
            out["matchLabels"] = labels
        if expressions:
            out["matchExpressions"] = expressions
        return out

    return st.builds(selector, match_labels, st.lists(expression, max_size=1))


@cache
def _node_selector_requirement() -> st.SearchStrategy[Json]:
    label_values = [v for values in NODE_LABELS.values() for v in values] + list(ZONES)
    keys = [*sorted(NODE_LABELS), ZONE]
    in_not_in = st.builds(
        lambda key, op, values: {"key": key, "operator": op, "values": values},
        st.sampled_from(keys),
        st.sampled_from(("In", "NotIn")),
        st.lists(st.sampled_from(label_values), min_size=1, max_size=2, unique=True),
    )
    exists = st.builds(
        lambda key, op: {"key": key, "operator": op},
        st.sampled_from(keys),
        st.sampled_from(("Exists", "DoesNotExist")),
    )
    compare = st.builds(
        lambda op, value: {"key": "cores", "operator": op, "values": [value]},
        st.sampled_from(("Gt", "Lt")),
        st.sampled_from(("1", "3", "4", "12")),
    )
    return st.one_of(in_not_in, exists, compare)


@st.composite
def _node_selector_term(draw: st.DrawFn, node_names: list[str]) -> Json:
    term: Json = {}
    expressions = draw(st.lists(_node_selector_requirement(), max_size=2))
    if expressions:
        term["matchExpressions"] = expressions
    if draw(one_in(4)):
        term["matchFields"] = [
            {
                "key": "metadata.name",
                "operator": draw(st.sampled_from(("In", "NotIn"))),
                "values": [draw(st.sampled_from(node_names))],
            }
        ]
    if not term:
        term["matchExpressions"] = [draw(_node_selector_requirement())]
    return term


@st.composite
def _node_affinity(draw: st.DrawFn, node_names: list[str]) -> Json:
    affinity: Json = {}
    if draw(one_in(3)):
        terms = draw(st.lists(_node_selector_term(node_names), min_size=1, max_size=2))
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    preferred = draw(
        st.lists(
            st.builds(
                lambda weight, term: {"weight": weight, "preference": term},
                st.integers(1, 100),
                _node_selector_term(node_names),
            ),
            max_size=2,
        )
    )
    if preferred:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return affinity


@st.composite
def _pod_affinity_term(draw: st.DrawFn) -> Json:
    term: Json = {"topologyKey": draw(st.sampled_from((ZONE, HOSTNAME))), "labelSelector": draw(_label_selectors())}
    namespaces = draw(st.sampled_from((0, 0, 1, 2, 3)))
    if namespaces == 1:
        term["namespaces"] = draw(st.lists(st.sampled_from(NAMESPACES), min_size=1, max_size=2, unique=True))
    elif namespaces == 2:
        term["namespaceSelector"] = {}  # every namespace
    elif namespaces == 3:
        term["namespaceSelector"] = {"matchLabels": {"env": "prod"}}
    return term


@st.composite
def _pod_affinity(draw: st.DrawFn) -> Json:
    out: Json = {}
    required = draw(st.lists(_pod_affinity_term(), max_size=2))
    if required:
        out["requiredDuringSchedulingIgnoredDuringExecution"] = required
    preferred = draw(
        st.lists(
            st.builds(lambda w, t: {"weight": w, "podAffinityTerm": t}, st.integers(1, 100), _pod_affinity_term()),
            max_size=2,
        )
    )
    if preferred:
        out["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return out


@st.composite
def _spread_constraint(draw: st.DrawFn) -> Json:
    when = draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway")))
    constraint: Json = {
        "maxSkew": draw(st.sampled_from((1, 1, 2, 3))),
        "topologyKey": draw(st.sampled_from((ZONE, HOSTNAME))),
        "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": draw(st.sampled_from(APPS))}},
    }
    if when == "DoNotSchedule" and draw(one_in(4)):
        constraint["minDomains"] = draw(st.integers(1, 4))
    if draw(one_in(3)):
        constraint["nodeAffinityPolicy"] = draw(st.sampled_from(("Honor", "Ignore")))
    if draw(one_in(3)):
        constraint["nodeTaintsPolicy"] = draw(st.sampled_from(("Honor", "Ignore")))
    if draw(one_in(5)):
        constraint["matchLabelKeys"] = ["team"]  # never a key of the labelSelector, as validation demands
    return constraint


@cache
def _toleration() -> st.SearchStrategy[Json]:
    equal = st.builds(
        lambda key, value, effect: {"key": key, "operator": "Equal", "value": value, "effect": effect},
        st.sampled_from(TAINT_KEYS),
        st.sampled_from(TAINT_VALUES),
        st.sampled_from(("", *TAINT_EFFECTS)),
    )
    exists = st.builds(
        lambda key, effect: {"key": key, "operator": "Exists", "effect": effect},
        st.sampled_from(("", *TAINT_KEYS, UNSCHEDULABLE_TAINT)),
        st.sampled_from(("", *TAINT_EFFECTS)),
    )
    return st.one_of(equal, exists).map(lambda tol: {k: v for k, v in tol.items() if v})


@cache
def _requests() -> st.SearchStrategy[dict[str, str]]:
    pools: dict[str, tuple[str, ...]] = {
        "cpu": ("100m", "250m", "500m", "1", "2"),
        "memory": ("64Mi", "256Mi", "1Gi", "2Gi"),
        "ephemeral-storage": ("1Gi", "20Gi"),
    }
    return st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in pools.items()})


@st.composite
def _container_requests(draw: st.DrawFn, gpu: bool) -> dict[str, str]:
    requests = draw(_requests())
    if gpu and draw(one_in(2)):
        requests[GPU] = draw(st.sampled_from(("1", "2")))
    return requests


@cache
def _host_port() -> st.SearchStrategy[Json]:
    return st.builds(
        lambda port, protocol, host_ip: {
            "containerPort": port,
            "hostPort": port,
            "protocol": protocol,
            **({"hostIP": host_ip} if host_ip else {}),
        },
        st.sampled_from(HOST_PORTS),
        st.sampled_from(("TCP", "UDP")),
        st.sampled_from(("", "0.0.0.0", "10.0.0.1")),
    )


@st.composite
def _containers(draw: st.DrawFn, pod: PodBuilder) -> PodBuilder:
    gpu = draw(one_in(5))  # extended resources only on some nodes: a rarer request
    for _ in range(draw(st.integers(1, 2))):
        ports = draw(st.lists(_host_port(), max_size=1))
        requests = draw(_container_requests(gpu))
        pod.container(image=draw(st.sampled_from(IMAGES)), requests=requests, ports=ports or None)
    for _ in range(draw(st.sampled_from((0, 0, 1, 2)))):
        pod.init_req(draw(_requests()), sidecar=draw(st.booleans()))
    if draw(one_in(4)):
        overhead = st.fixed_dictionaries(
            {"cpu": st.sampled_from(("100m", "250m"))}, optional={"memory": st.just("64Mi")}
        )
        pod.overhead(**draw(overhead))
    return pod


@cache
def _labels() -> st.SearchStrategy[dict[str, str]]:
    return st.fixed_dictionaries(
        {}, optional={"app": st.sampled_from(APPS), "team": st.sampled_from(POD_LABELS["team"])}
    )


# ---------------------------------------------------------------------- pods


@st.composite
def target_pods(draw: st.DrawFn, node_names: list[str]) -> o.Pod:
    """The pending pod to explain, using every scheduling feature the filter and score plugins read."""
    pod = make_pod("target", draw(st.sampled_from(NAMESPACES))).labels(draw(_labels()))
    draw(_containers(pod))
    pod.priority(draw(st.sampled_from(PRIORITIES)))
    if draw(one_in(4)):
        pod.preemption_policy(draw(st.sampled_from(("PreemptLowerPriority", "Never"))))
    if draw(one_in(4)):
        key, values = draw(st.sampled_from(sorted(NODE_LABELS.items())))
        pod.node_selector({key: draw(st.sampled_from(values))})
    if draw(one_in(6)):
        pod.node_selector({ZONE: draw(st.sampled_from(ZONES))})
    affinity: Json = {}
    node_affinity = draw(_node_affinity(node_names))
    if node_affinity:
        affinity["nodeAffinity"] = node_affinity
    for kind in ("podAffinity", "podAntiAffinity"):
        if draw(one_in(4)):
            terms = draw(_pod_affinity())
            if terms:
                affinity[kind] = terms
    if affinity:
        pod.affinity(affinity)
    for tol in draw(st.lists(_toleration(), max_size=4)):
        pod.raw["spec"].setdefault("tolerations", []).append(tol)
    for constraint in draw(st.lists(_spread_constraint(), max_size=2)):
        pod.raw["spec"].setdefault("topologySpreadConstraints", []).append(constraint)
    if draw(one_in(5)):
        pod.nominated(draw(st.sampled_from(node_names)))
    if draw(one_in(20)):
        pod.gate("example.com/hold")
    return pod.obj()


@st.composite
def existing_pods(draw: st.DrawFn, node_names: list[str], index: int) -> o.Pod:
    """A pod already on a node (bound) or nominated to one, as the scheduler's cache holds them."""
    pod = make_pod(f"p{index}", draw(st.sampled_from(NAMESPACES))).labels(draw(_labels()))
    gpu = draw(one_in(5))
    for _ in range(draw(st.integers(1, 2))):
        ports = draw(st.lists(_host_port(), max_size=1))
        requests = draw(_container_requests(gpu))
        pod.container(image=draw(st.sampled_from(IMAGES)), requests=requests, ports=ports or None)
    pod.priority(draw(st.sampled_from(PRIORITIES)))
    if draw(one_in(4)):
        pod.affinity(
            {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [draw(_pod_affinity_term())]}}
        )
    if draw(one_in(6)):
        pod.affinity({"podAffinity": draw(_pod_affinity())})
    node = draw(st.sampled_from(node_names))
    if draw(one_in(5)):
        pod.nominated(node).phase("Pending")
    else:
        pod.node(node).phase(draw(st.sampled_from(("Running", "Running", "Running", "Succeeded"))))
        pod.start_time(f"2026-01-01T00:{index:02d}:00Z")
    return pod.obj()


@st.composite
def clusters(draw: st.DrawFn, min_nodes: int = 2, max_nodes: int = 6, max_pods: int = 10) -> Cluster:
    count = draw(st.integers(min_nodes, max_nodes))
    names = [f"node-{i}" for i in range(count)]
    nodes = [draw(node_builders(name)).obj() for name in names]
    pods = [draw(existing_pods(names, i)) for i in range(draw(st.integers(0, max_pods)))]
    namespaces = [
        from_raw(o.Namespace, {"metadata": {"name": "default", "labels": {"kubernetes.io/metadata.name": "default"}}}),
        from_raw(
            o.Namespace,
            {"metadata": {"name": "shop", "labels": {"kubernetes.io/metadata.name": "shop", "env": "prod"}}},
        ),
    ]
    return Cluster(nodes, pods, draw(target_pods(names)), namespaces)
