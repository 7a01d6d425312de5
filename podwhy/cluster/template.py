"""A node group's template node, as Cluster Autoscaler builds it from a node of the group
(processors/nodeinfosprovider, simulator/node_info_utils.go), and the scheduler's verdict on it.

- The example is the group's first node that is Ready, schedulable and not being deleted by CA
  (ToBeDeletedByClusterAutoscaler); failing that, any node of the group.
- The copy keeps the example's labels (its hostname label renamed), allocatable and taints, less
  the taints CA removes: its own deletion taints, node-condition taints, and startup, ignore and
  status taints (their cluster-autoscaler.kubernetes.io prefixes).
- It runs the example's DaemonSet and static (mirror) pods, and nothing else.

The pod is then filtered on the copy by every Filter plugin, with the rest of the cluster as it
is (spreading and affinity count the real nodes), as CA's scheduling simulation does. Only the
copy is filtered: its verdict is all that is asked."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from podwhy.cluster.nodecopy import node_copy, pod_for_copy, startup_pods
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.runtime import Framework
from podwhy.framework.status import Status
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.model.wellknownnames import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE
from podwhy.scheduler.cycle import FILTER_ONLY, run_cycle
from podwhy.snapshot.cluster import Snapshot

TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE_TAINT = "DeletionCandidateOfClusterAutoscaler"
# Taints CA drops from a template: its own, and those of a node's condition or lifecycle.
SANITIZED_TAINTS = frozenset(
    {
        TO_BE_DELETED_TAINT,
        DELETION_CANDIDATE_TAINT,
        TAINT_NODE_NOT_READY,
        TAINT_NODE_UNREACHABLE,
        TAINT_NODE_UNSCHEDULABLE,
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/network-unavailable",
        "node.kubernetes.io/pid-pressure",
        "node.cloudprovider.kubernetes.io/uninitialized",
        "node.cloudprovider.kubernetes.io/shutdown",
        "cloud.google.com/impending-node-termination",
        "NodeWithImpairedVolumes",
    }
)
SANITIZED_TAINT_PREFIXES = (
    "startup-taint.cluster-autoscaler.kubernetes.io/",
    "ignore-taint.cluster-autoscaler.kubernetes.io/",
    "status-taint.cluster-autoscaler.kubernetes.io/",
)


def _ready(node: o.Node) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in node.status.conditions)


def good_template_candidate(node: o.Node) -> bool:
    return (
        _ready(node)
        and not node.spec.unschedulable
        and not any(t.key == TO_BE_DELETED_TAINT for t in node.spec.taints)
        and node.metadata.deletion_timestamp is None
    )


def example_node(nodes: Sequence[o.Node]) -> o.Node | None:
    """The node of the group CA builds its template from (None for a group without nodes)."""
    return next((n for n in nodes if good_template_candidate(n)), nodes[0] if nodes else None)


def kept_taint(taint: o.Taint) -> bool:
    return taint.key not in SANITIZED_TAINTS and not taint.key.startswith(SANITIZED_TAINT_PREFIXES)


def template_node(example: o.Node, group: str) -> o.Node:
    """The sanitized copy of EXAMPLE CA simulates a new node of GROUP with."""
    name = f"template-node-for-{group.rsplit('/', 1)[-1]}"[:253]
    copy = node_copy(example, name)
    spec = msgspec.structs.replace(copy.spec, taints=[t for t in copy.spec.taints if kept_taint(t)])
    return msgspec.structs.replace(copy, spec=spec)


class TemplateVerdict(msgspec.Struct):
    fits: bool
    # The first Filter plugin that rejects the pod there, and its reasons.
    plugin: str = ""
    reasons: list[str] = msgspec.field(default_factory=list)


class TemplateView:
    """The cluster with one group's template node added (its DaemonSet and static pods with it),
    indexed once: the verdicts of many pods on that node are asked in turn."""

    def __init__(self, snapshot: Snapshot, framework: Framework, example: o.Node, template: o.Node) -> None:
        original = example.metadata.name
        pods = [pod_for_copy(p, original, template.metadata.name) for p in startup_pods(snapshot, original)]
        self.snapshot = records.replace(snapshot, nodes=[*snapshot.nodes, template], pods=[*snapshot.pods, *pods])
        self.framework = framework.on(framework.handle.with_nodes(self.snapshot, [template]))
        self.template = template
        # Only the template node is filtered: the others' verdicts are not asked for (PreFilter
        # still sees every node, as spreading and affinity count their pods).
        self.others = {ni.name: NodeVerdict(ni.name) for ni in framework.handle.node_infos}

    def verdict(self, pod: o.Pod) -> TemplateVerdict:
        """Every Filter plugin's verdict for POD on the template node, the rest of the cluster unchanged."""
        cycle = run_cycle(self.snapshot, pod, framework=self.framework, options=FILTER_ONLY, settled=self.others)
        outcome = cycle.outcome
        name = self.template.metadata.name
        verdict = next((v for v in outcome.nodes if v.name == name), None) if outcome else None
        if verdict is None:
            status = outcome.pre_filter_failure if outcome is not None else None
            return TemplateVerdict(False, status.plugin if status else "", list(status.reasons) if status else [])
        if verdict.feasible:
            return TemplateVerdict(True)
        first: Status | None = verdict.first_failure
        return TemplateVerdict(False, first.plugin if first else "", list(first.reasons) if first else [])
