"""Kueue's objects (kueue.x-k8s.io/v1beta2) decoded from YAML as `kubectl get -o yaml` prints it,
and the kinds table's group-aware key for Kueue's Workload."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity


def _decode(text: str, kind: str) -> Any:
    doc = msgspec.yaml.decode(text.encode())
    assert doc["apiVersion"] == o.KUEUE_API_VERSION
    key = o.table_kind(doc["kind"], doc["apiVersion"])
    return msgspec.convert(doc, o.KUEUE_KINDS[key].type)


RESOURCE_FLAVOR = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  creationTimestamp: "2026-08-01T10:00:00Z"
  finalizers:
  - kueue.x-k8s.io/resource-in-use
  generation: 1
  name: spot
  resourceVersion: "1234"
  uid: 5b0c7f5e-0000-4000-8000-000000000001
spec:
  nodeLabels:
    instance-type: spot
  nodeTaints:
  - effect: NoSchedule
    key: spot
    value: "true"
  tolerations:
  - effect: NoSchedule
    key: spot-taint
    operator: Exists
  topologyName: default
"""


def test_resource_flavor() -> None:
    rf = _decode(RESOURCE_FLAVOR, "ResourceFlavor")
    assert isinstance(rf, o.ResourceFlavor)
    assert rf.metadata.name == "spot"
    assert rf.spec.node_labels == {"instance-type": "spot"}
    assert rf.spec.node_taints == [o.Taint(key="spot", value="true", effect="NoSchedule")]
    assert rf.spec.tolerations[0].operator == "Exists"
    assert rf.spec.topology_name == "default"


CLUSTER_QUEUE = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  creationTimestamp: "2026-08-01T10:00:00Z"
  generation: 2
  name: team-a
  resourceVersion: "99"
  uid: 5b0c7f5e-0000-4000-8000-000000000002
spec:
  cohortName: all-teams
  flavorFungibility:
    whenCanBorrow: MayStopSearch
    whenCanPreempt: TryNextFlavor
  namespaceSelector: {}
  preemption:
    borrowWithinCohort:
      policy: Never
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources:
    - cpu
    - memory
    flavors:
    - name: default-flavor
      resources:
      - borrowingLimit: "2"
        name: cpu
        nominalQuota: 9
      - lendingLimit: 10Gi
        name: memory
        nominalQuota: 36Gi
  stopPolicy: None
status:
  admittedWorkloads: 1
  conditions:
  - lastTransitionTime: "2026-08-01T10:00:01Z"
    message: Can admit new workloads
    observedGeneration: 2
    reason: Ready
    status: "True"
    type: Active
  flavorsReservation:
  - name: default-flavor
    resources:
    - borrowed: "0"
      name: cpu
      total: "3"
  flavorsUsage:
  - name: default-flavor
    resources:
    - borrowed: "0"
      name: cpu
      total: "3"
    - borrowed: "0"
      name: memory
      total: 600Mi
  pendingWorkloads: 2
  reservingWorkloads: 1
"""


def test_cluster_queue() -> None:
    cq = _decode(CLUSTER_QUEUE, "ClusterQueue")
    spec = cq.spec
    assert spec.cohort_name == "all-teams"
    assert spec.queueing_strategy == "StrictFIFO"
    assert spec.namespace_selector == o.LabelSelector()
    group = spec.resource_groups[0]
    assert group.covered_resources == ["cpu", "memory"]
    cpu, memory = group.flavors[0].resources
    assert (cpu.name, parse_quantity(cpu.nominal_quota), cpu.borrowing_limit, cpu.lending_limit) == (
        "cpu",
        9,
        "2",
        None,
    )
    assert parse_quantity(memory.lending_limit) == 10 * 2**30
    assert spec.preemption.reclaim_within_cohort == "Any"
    assert spec.preemption.within_cluster_queue == "LowerPriority"
    status = cq.status
    assert status.conditions[0].reason == "Ready"
    assert status.flavors_usage[0].resources[1].total == "600Mi"
    assert (status.pending_workloads, status.reserving_workloads, status.admitted_workloads) == (2, 1, 1)


def test_cluster_queue_defaults() -> None:
    """The CRD's defaults: BestEffortFIFO, stopPolicy None, fungibility MayStopSearch/TryNextFlavor,
    preemption Never, and no namespaceSelector (no namespace may submit)."""
    cq = msgspec.convert({"metadata": {"name": "cq"}}, o.ClusterQueue)
    assert cq.spec.queueing_strategy == "BestEffortFIFO"
    assert cq.spec.stop_policy == "None"
    assert cq.spec.flavor_fungibility == o.FlavorFungibility(
        when_can_borrow="MayStopSearch", when_can_preempt="TryNextFlavor"
    )
    assert cq.spec.preemption.reclaim_within_cohort == cq.spec.preemption.within_cluster_queue == "Never"
    assert cq.spec.namespace_selector is None
    partial = msgspec.convert({"spec": {"flavorFungibility": {"whenCanBorrow": "TryNextFlavor"}}}, o.ClusterQueue)
    assert partial.spec.flavor_fungibility.when_can_preempt == "TryNextFlavor"


COHORT = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: all-teams
spec:
  parentName: root
  fairSharing:
    weight: "2"
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: "10"
        lendingLimit: "4"
"""


def test_cohort() -> None:
    cohort = _decode(COHORT, "Cohort")
    assert cohort.spec.parent_name == "root"
    assert cohort.spec.fair_sharing == o.FairSharing(weight="2")
    assert cohort.spec.resource_groups[0].flavors[0].resources[0].lending_limit == "4"


LOCAL_QUEUE = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  creationTimestamp: "2026-08-01T10:00:00Z"
  name: user-queue
  namespace: team-a
spec:
  clusterQueue: team-a
  stopPolicy: Hold
status:
  admittedWorkloads: 0
  conditions:
  - lastTransitionTime: "2026-08-01T10:00:01Z"
    message: Can't submit new workloads to clusterQueue
    observedGeneration: 1
    reason: ClusterQueueIsInactive
    status: "False"
    type: Active
  pendingWorkloads: 1
  reservingWorkloads: 0
"""


def test_local_queue() -> None:
    lq = _decode(LOCAL_QUEUE, "LocalQueue")
    assert (lq.metadata.namespace, lq.spec.cluster_queue, lq.spec.stop_policy) == ("team-a", "team-a", "Hold")
    assert lq.status.conditions[0].reason == "ClusterQueueIsInactive"
    assert msgspec.convert({}, o.LocalQueue).spec.stop_policy == "None"


WORKLOAD = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  creationTimestamp: "2026-08-01T10:00:00Z"
  generation: 1
  labels:
    kueue.x-k8s.io/job-uid: 5b0c7f5e-0000-4000-8000-00000000000a
  name: job-sample-job-3c5f1
  namespace: team-a
  ownerReferences:
  - apiVersion: batch/v1
    blockOwnerDeletion: true
    controller: true
    kind: Job
    name: sample-job
    uid: 5b0c7f5e-0000-4000-8000-00000000000a
  resourceVersion: "4242"
  uid: 5b0c7f5e-0000-4000-8000-00000000000b
spec:
  active: true
  podSets:
  - count: 3
    minCount: 2
    name: main
    template:
      metadata: {}
      spec:
        containers:
        - image: registry.k8s.io/e2e-test-images/agnhost:2.53
          name: dummy-job
          resources:
            requests:
              cpu: "1"
              memory: 200Mi
        nodeSelector:
          instance-type: spot
        restartPolicy: Never
        tolerations:
        - key: spot
          operator: Exists
    topologyRequest:
      required: cloud.provider.com/topology-block
  priority: 100
  priorityClassRef:
    group: kueue.x-k8s.io
    kind: WorkloadPriorityClass
    name: high
  queueName: user-queue
  maximumExecutionTimeSeconds: 600
status:
  admission:
    clusterQueue: team-a
    podSetAssignments:
    - count: 3
      flavors:
        cpu: default-flavor
        memory: default-flavor
      name: main
      resourceUsage:
        cpu: "3"
        memory: 600Mi
  conditions:
  - lastTransitionTime: "2026-08-01T10:00:02Z"
    message: Quota reserved in ClusterQueue team-a
    observedGeneration: 1
    reason: QuotaReserved
    status: "True"
    type: QuotaReserved
  requeueState:
    count: 2
    requeueAt: "2026-08-01T10:05:00Z"
  resourceRequests:
  - name: main
    resources:
      cpu: "3"
      memory: 600Mi
"""


def test_workload() -> None:
    wl = _decode(WORKLOAD, "Workload")
    assert isinstance(wl, o.KueueWorkload)
    spec = wl.spec
    pod_set = spec.pod_sets[0]
    assert (pod_set.name, pod_set.count, pod_set.min_count) == ("main", 3, 2)
    assert isinstance(pod_set.template, o.PodTemplateSpec)
    assert pod_set.template.spec.containers[0].resources.requests == {"cpu": "1", "memory": "200Mi"}
    assert pod_set.template.spec.node_selector == {"instance-type": "spot"}
    assert pod_set.topology_request == o.PodSetTopologyRequest(required="cloud.provider.com/topology-block")
    assert (spec.queue_name, spec.priority, spec.active, spec.maximum_execution_time_seconds) == (
        "user-queue",
        100,
        True,
        600,
    )
    assert spec.priority_class_ref == o.PriorityClassRef(
        group="kueue.x-k8s.io", kind="WorkloadPriorityClass", name="high"
    )
    admission = wl.status.admission
    assert admission is not None and admission.cluster_queue == "team-a"
    assignment = admission.pod_set_assignments[0]
    assert (assignment.name, assignment.count, assignment.flavors["cpu"]) == ("main", 3, "default-flavor")
    assert assignment.resource_usage == {"cpu": "3", "memory": "600Mi"}
    assert wl.status.conditions[0].type == "QuotaReserved"
    assert wl.status.requeue_state == o.RequeueState(count=2, requeue_at="2026-08-01T10:05:00Z")
    assert wl.status.resource_requests[0].resources["memory"] == "600Mi"


def test_workload_defaults() -> None:
    """The CRD's defaults: active true, a pod set named main of count 1."""
    wl = msgspec.convert({"spec": {"podSets": [{}]}}, o.KueueWorkload)
    assert wl.spec.active is True
    assert (wl.spec.pod_sets[0].name, wl.spec.pod_sets[0].count) == ("main", 1)
    inactive = msgspec.convert({"spec": {"active": False}}, o.KueueWorkload)
    assert inactive.spec.active is False


@pytest.mark.parametrize(
    ("text", "check"),
    [
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n  name: high\n"
            "value: 10000\ndescription: Sample high priority\n",
            lambda obj: obj.value == 10000,
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: prov\nspec:\n"
            "  controllerName: kueue.x-k8s.io/provisioning-request\n  parameters:\n    apiGroup: kueue.x-k8s.io\n"
            "    kind: ProvisioningRequestConfig\n    name: prov-config\nstatus:\n  conditions:\n"
            '  - lastTransitionTime: "2026-08-01T10:00:00Z"\n    message: ""\n    reason: Active\n'
            '    status: "True"\n    type: Active\n',
            lambda obj: (
                obj.spec.controller_name == "kueue.x-k8s.io/provisioning-request"
                and obj.status.conditions[0].status == "True"
            ),
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: default\nspec:\n  levels:\n"
            "  - nodeLabel: cloud.provider.com/topology-block\n  - nodeLabel: kubernetes.io/hostname\n",
            lambda obj: (
                [level.node_label for level in obj.spec.levels]
                == ["cloud.provider.com/topology-block", "kubernetes.io/hostname"]
            ),
        ),
    ],
    ids=["WorkloadPriorityClass", "AdmissionCheck", "Topology"],
)
def test_small_kinds(text: str, check: Any) -> None:
    assert check(_decode(text, ""))


def test_workload_kind_is_told_apart_by_group() -> None:
    """scheduling.k8s.io's Workload keeps its key; Kueue's is filed under its group-qualified name."""
    assert o.table_kind("Workload", "scheduling.k8s.io/v1alpha2") == "Workload"
    assert o.table_kind("Workload", "kueue.x-k8s.io/v1beta2") == o.KUEUE_WORKLOAD == "Workload.kueue.x-k8s.io"
    assert o.table_kind("ClusterQueue", "kueue.x-k8s.io/v1beta2") == "ClusterQueue"
    assert o.KINDS["Workload"].type is o.SchedulingWorkload
    assert o.KUEUE_KINDS[o.KUEUE_WORKLOAD].type is o.KueueWorkload
    assert o.plural(o.KUEUE_WORKLOAD) == "Workloads"
    assert o.KINDS.items() >= o.KUEUE_KINDS.items()  # the snapshot files them (snapshot/cluster.py)


def test_quantities_checked_on_load() -> None:
    cq = _decode(CLUSTER_QUEUE, "ClusterQueue")
    quantities = o.KUEUE_KINDS["ClusterQueue"].quantities
    assert quantities is not None
    assert list(quantities(cq)) == [
        {"nominalQuota": 9, "borrowingLimit": "2"},
        {"nominalQuota": "36Gi", "lendingLimit": "10Gi"},
    ]
    wl = _decode(WORKLOAD, "Workload")
    wl_quantities = o.KUEUE_KINDS[o.KUEUE_WORKLOAD].quantities
    assert wl_quantities is not None
    assert {"cpu": "3", "memory": "600Mi"} in list(wl_quantities(wl))
