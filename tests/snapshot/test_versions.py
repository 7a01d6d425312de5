"""Every served apiVersion of the kinds podwhy reads decodes into the one model, as the API server
converts it (pkg/apis/resource/v1beta1 and v1alpha3, pkg/apis/policy/v1beta1 conversion.go),
from JSON, the fast YAML reader and the reference YAML reader alike; anything else is an error."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
import yaml

from podwhy.errors import PodwhyError
from podwhy.model import objects as o
from podwhy.snapshot import apiversions as versions
from podwhy.snapshot import fastyaml
from podwhy.snapshot.decode import decode, peek_type
from tests.oldversions import PDB_LABEL, dra_to, pdb_to_v1beta1

Json = dict[str, Any]
DRA = "resource.k8s.io"
READERS = ("json", "fast-yaml", "split-yaml", "reference-yaml")


def read(doc: Json | list[Json], reader: str, manifests: bool = False) -> Any:
    """Decode DOC (an object, or several as a List) with one of the readers."""
    body = doc if isinstance(doc, dict) else {"apiVersion": "v1", "kind": "List", "items": doc}
    if reader == "json":
        return decode(json.dumps(body).encode(), "in.json", manifests=manifests)
    with pytest.MonkeyPatch.context() as patch:
        if reader == "split-yaml":
            patch.setattr(fastyaml, "BATCH_BYTES", 1)  # every List item read on its own
        if reader == "reference-yaml":
            patch.setattr(fastyaml, "ryml", None)
        return decode(yaml.safe_dump(body).encode(), "in.yaml", manifests=manifests)


def the_object(doc: Json, reader: str) -> Any:
    decoded = read(doc, reader)
    ((kind, objs),) = decoded.objects.items()
    assert kind == doc["kind"] and len(objs) == 1
    return objs[0]


def error(doc: Json | list[Json], reader: str, manifests: bool = False) -> str:
    with pytest.raises(PodwhyError) as info:
        read(doc, reader, manifests)
    return info.value.message


def meta(name: str = "x", namespace: str | None = "ns") -> Json:
    return {"name": name, "namespace": namespace} if namespace else {"name": name}


# ---------------------------------------------------------------------- conversions

ATTRS = {"model": {"string": "LATEST-GPU-MODEL"}, "index": {"int": 0}, "driverVersion": {"version": "1.0.0"}}
TAINT = {"key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoSchedule"}
TOLERATION = {"key": "gpu.example.com/unhealthy", "operator": "Exists", "effect": "NoSchedule"}
CEL = [{"cel": {"expression": "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"}}]
ALLOCATED = {
    "allocation": {
        "devices": {
            "results": [
                {
                    "request": "gpu",
                    "driver": "gpu.example.com",
                    "pool": "worker",
                    "device": "gpu-0",
                    "adminAccess": True,
                }
            ]
        },
        "nodeSelector": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker"]}]}]
        },
    },
    "reservedFor": [{"resource": "pods", "name": "pod0", "uid": "u-1"}],
}


def slice_(version: str, devices: list[Json], **spec: Any) -> Json:
    body = {"driver": "gpu.example.com", "pool": {"name": "worker", "generation": 0, "resourceSliceCount": 1}}
    return {
        "apiVersion": f"{DRA}/{version}",
        "kind": "ResourceSlice",
        "metadata": meta("worker-gpus", None),
        "spec": {**body, **spec, "devices": devices},
    }


def claim(version: str, *requests: Json, status: Json | None = None) -> Json:
    out = {
        "apiVersion": f"{DRA}/{version}",
        "kind": "ResourceClaim",
        "metadata": meta("gpu"),
        "spec": {"devices": {"requests": list(requests)}},
    }
    if status is not None:
        out["status"] = status
    return out


def v1_slice(devices: list[Json], **spec: Any) -> Json:
    body = {"driver": "gpu.example.com", "pool": {"name": "worker", "generation": 0, "resourceSliceCount": 1}}
    return {"metadata": meta("worker-gpus", None), "spec": {**body, **spec, "devices": devices}}


def v1_claim(*requests: Json, status: Json | None = None) -> Json:
    return {"metadata": meta("gpu"), "spec": {"devices": {"requests": list(requests)}}, "status": status or {}}


CONVERSIONS: list[tuple[str, Json, type[msgspec.Struct], Json]] = [
    (
        "v1beta1 slice: basic is flattened, nodeName and allNodes become unset-or-set",
        slice_(
            "v1beta1",
            [
                {
                    "name": "gpu-0",
                    "basic": {
                        "attributes": ATTRS,
                        "capacity": {"memory": {"value": "80Gi"}},
                        "taints": [TAINT],
                        "consumesCounters": [{"counterSet": "mem", "counters": {"memory": {"value": "8Gi"}}}],
                        "bindsToNode": True,
                        "bindingConditions": ["ready"],
                        "bindingFailureConditions": ["failed"],
                        "allowMultipleAllocations": True,
                    },
                },
                {"name": "bare"},
            ],
            nodeName="worker",
            sharedCounters=[{"name": "mem", "counters": {"memory": {"value": "80Gi"}}}],
        ),
        o.ResourceSlice,
        v1_slice(
            [
                {
                    "name": "gpu-0",
                    "attributes": ATTRS,
                    "capacity": {"memory": {"value": "80Gi"}},
                    "taints": [TAINT],
                    "consumesCounters": [{"counterSet": "mem", "counters": {"memory": {"value": "8Gi"}}}],
                    "bindsToNode": True,
                    "bindingConditions": ["ready"],
                    "bindingFailureConditions": ["failed"],
                    "allowMultipleAllocations": True,
                },
                {"name": "bare"},
            ],
            nodeName="worker",
            sharedCounters=[{"name": "mem", "counters": {"memory": {"value": "80Gi"}}}],
        ),
    ),
    (
        "v1beta1 slice for all nodes, and a device with its own node selection",
        slice_(
            "v1beta1",
            [{"name": "gpu-0", "basic": {"nodeName": "worker", "attributes": ATTRS}}],
            allNodes=True,
            perDeviceNodeSelection=True,
        ),
        o.ResourceSlice,
        v1_slice(
            [{"name": "gpu-0", "nodeName": "worker", "attributes": ATTRS}], allNodes=True, perDeviceNodeSelection=True
        ),
    ),
    (
        "v1alpha3 slice: a capacity is a bare quantity",
        slice_(
            "v1alpha3",
            [{"name": "gpu-0", "basic": {"attributes": ATTRS, "capacity": {"memory": "80Gi"}}}],
            nodeName="worker",
        ),
        o.ResourceSlice,
        v1_slice(
            [{"name": "gpu-0", "attributes": ATTRS, "capacity": {"memory": {"value": "80Gi"}}}], nodeName="worker"
        ),
    ),
    (
        "v1beta2 slice: v1's shape",
        slice_("v1beta2", [{"name": "gpu-0", "attributes": ATTRS}], nodeName="worker"),
        o.ResourceSlice,
        v1_slice([{"name": "gpu-0", "attributes": ATTRS}], nodeName="worker"),
    ),
    (
        "v1beta1 claim: a class alone is exactly one device (the version's defaults)",
        claim("v1beta1", {"name": "gpu", "deviceClassName": "gpu.example.com"}),
        o.ResourceClaim,
        v1_claim(
            {
                "name": "gpu",
                "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1},
            }
        ),
    ),
    (
        "v1beta1 claim: every exactly field, an allocation result with adminAccess",
        claim(
            "v1beta1",
            {
                "name": "gpu",
                "deviceClassName": "gpu.example.com",
                "selectors": CEL,
                "allocationMode": "All",
                "adminAccess": True,
                "tolerations": [TOLERATION],
                "capacity": {"requests": {"memory": "4Gi"}},
            },
            status=ALLOCATED,
        ),
        o.ResourceClaim,
        v1_claim(
            {
                "name": "gpu",
                "exactly": {
                    "deviceClassName": "gpu.example.com",
                    "selectors": CEL,
                    "allocationMode": "All",
                    "adminAccess": True,
                    "tolerations": [TOLERATION],
                    "capacity": {"requests": {"memory": "4Gi"}},
                },
            },
            status=ALLOCATED,
        ),
    ),
    (
        "v1beta1 claim: a count, and firstAvailable alone (no exactly)",
        claim(
            "v1beta1",
            {"name": "two", "deviceClassName": "gpu.example.com", "count": 2},
            {"name": "any", "firstAvailable": [{"name": "big", "deviceClassName": "big.example.com", "count": 1}]},
        ),
        o.ResourceClaim,
        v1_claim(
            {
                "name": "two",
                "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2},
            },
            {"name": "any", "firstAvailable": [{"name": "big", "deviceClassName": "big.example.com", "count": 1}]},
        ),
    ),
    (
        "v1beta1 claim: an empty selector list still makes the request exactly (Go's non-nil slice)",
        claim("v1beta1", {"name": "odd", "selectors": []}),
        o.ResourceClaim,
        v1_claim({"name": "odd", "exactly": {}}),
    ),
    (
        "v1alpha3 claim: as v1beta1, without request capacity (not a v1alpha3 field)",
        claim("v1alpha3", {"name": "gpu", "deviceClassName": "gpu.example.com", "capacity": {"requests": {"m": "1"}}}),
        o.ResourceClaim,
        v1_claim(
            {
                "name": "gpu",
                "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1},
            }
        ),
    ),
    (
        "v1beta2 claim: v1's shape",
        claim("v1beta2", {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}),
        o.ResourceClaim,
        v1_claim({"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}),
    ),
    (
        "v1beta1 template: its claim spec converted",
        {
            "apiVersion": f"{DRA}/v1beta1",
            "kind": "ResourceClaimTemplate",
            "metadata": meta("single-gpu"),
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com"}]}}},
        },
        o.ResourceClaimTemplate,
        {
            "metadata": meta("single-gpu"),
            "spec": {
                "spec": {
                    "devices": {
                        "requests": [
                            {
                                "name": "gpu",
                                "exactly": {
                                    "deviceClassName": "gpu.example.com",
                                    "allocationMode": "ExactCount",
                                    "count": 1,
                                },
                            }
                        ]
                    }
                }
            },
        },
    ),
    *[
        (
            f"{version} DeviceClass: v1's shape",
            {
                "apiVersion": f"{DRA}/{version}",
                "kind": "DeviceClass",
                "metadata": meta("gpu.example.com", None),
                "spec": {"selectors": CEL},
            },
            o.DeviceClass,
            {"metadata": meta("gpu.example.com", None), "spec": {"selectors": CEL}},
        )
        for version in ("v1beta2", "v1beta1", "v1alpha3")
    ],
    (
        "policy/v1beta1 PDB: an empty selector selects no pod",
        {
            "apiVersion": "policy/v1beta1",
            "kind": "PodDisruptionBudget",
            "metadata": meta("zk"),
            "spec": {"selector": {}},
        },
        o.PodDisruptionBudget,
        {
            "metadata": meta("zk"),
            "spec": {"selector": {"matchExpressions": [{"key": PDB_LABEL, "operator": "Exists"}]}},
        },
    ),
    (
        "policy/v1beta1 PDB: its match-all selector is v1's empty one",
        {
            "apiVersion": "policy/v1beta1",
            "kind": "PodDisruptionBudget",
            "metadata": meta("zk"),
            "spec": {"selector": {"matchExpressions": [{"key": PDB_LABEL, "operator": "DoesNotExist"}]}},
        },
        o.PodDisruptionBudget,
        {"metadata": meta("zk"), "spec": {"selector": {}}},
    ),
    (
        "policy/v1beta1 PDB: the reserved label is taken out of any other selector",
        {
            "apiVersion": "policy/v1beta1",
            "kind": "PodDisruptionBudget",
            "metadata": meta("zk"),
            "spec": {
                "minAvailable": 2,
                "selector": {
                    "matchLabels": {"app": "zk"},
                    "matchExpressions": [{"key": PDB_LABEL, "operator": "Exists"}],
                },
            },
        },
        o.PodDisruptionBudget,
        {"metadata": meta("zk"), "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "zk"}}}},
    ),
    (
        "policy/v1beta1 PDB: no selector stays none",
        {
            "apiVersion": "policy/v1beta1",
            "kind": "PodDisruptionBudget",
            "metadata": meta("zk"),
            "spec": {"maxUnavailable": 1},
        },
        o.PodDisruptionBudget,
        {"metadata": meta("zk"), "spec": {"maxUnavailable": 1}},
    ),
    (
        "policy/v1 PDB: an empty selector stays empty",
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta("zk"), "spec": {"selector": {}}},
        o.PodDisruptionBudget,
        {"metadata": meta("zk"), "spec": {"selector": {}}},
    ),
    (
        "batch/v1beta1 CronJob",
        {"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": meta("nightly")},
        o.CronJob,
        {"metadata": meta("nightly")},
    ),
    (
        "storage.k8s.io/v1beta1 CSIStorageCapacity",
        {
            "apiVersion": "storage.k8s.io/v1beta1",
            "kind": "CSIStorageCapacity",
            "metadata": meta("cap"),
            "storageClassName": "fast",
            "capacity": "10Gi",
        },
        o.CSIStorageCapacity,
        {"metadata": meta("cap"), "storageClassName": "fast", "capacity": "10Gi"},
    ),
    (
        "events.k8s.io/v1beta1 Event: events.k8s.io names",
        {
            "apiVersion": "events.k8s.io/v1beta1",
            "kind": "Event",
            "metadata": meta("e"),
            "regarding": {"kind": "Pod", "name": "p", "namespace": "ns"},
            "note": "0/3 nodes are available",
            "reason": "FailedScheduling",
        },
        o.Event,
        {
            "metadata": meta("e"),
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "ns"},
            "message": "0/3 nodes are available",
            "reason": "FailedScheduling",
        },
    ),
]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("given", "tp", "want"), [c[1:] for c in CONVERSIONS], ids=[c[0] for c in CONVERSIONS])
def test_conversion(given: Json, tp: type[msgspec.Struct], want: Json, reader: str) -> None:
    assert the_object(given, reader) == msgspec.convert(want, tp)


ROUND_TRIPS = [
    c
    for c in CONVERSIONS
    if c[1]["apiVersion"].startswith(f"{DRA}/") and "Go's non-nil slice" not in c[0]  # that one is lossy upstream too
]


@pytest.mark.parametrize(("given", "tp", "want"), [c[1:] for c in ROUND_TRIPS], ids=[c[0] for c in ROUND_TRIPS])
def test_test_helpers_write_what_podwhy_reads_back(given: Json, tp: type[msgspec.Struct], want: Json) -> None:
    # tests/oldversions.py's reverse conversion of the v1 object, read back, is the v1 object again.
    version = given["apiVersion"].rpartition("/")[2]
    v1 = {**want, "apiVersion": f"{DRA}/v1", "kind": given["kind"]}
    assert the_object(dra_to(v1, version), "json") == msgspec.convert(want, tp)


@pytest.mark.parametrize(
    "selector",
    [{}, {"matchLabels": {"app": "zk"}}, {"matchExpressions": [{"key": "app", "operator": "Exists"}]}, None],
)
def test_pdb_round_trip(selector: Json | None) -> None:
    v1: Json = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta("zk"), "spec": {}}
    if selector is not None:
        v1["spec"]["selector"] = selector
    assert the_object(pdb_to_v1beta1(v1), "json") == the_object(v1, "json")


# ---------------------------------------------------------------------- what is an error


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (
            claim("v1alpha2", {"name": "gpu", "deviceClassName": "gpu.example.com"}),
            "({where} (ResourceClaim 'gpu'): resource.k8s.io/v1alpha2 is the classic dynamic resource allocation of "
            "Kubernetes 1.26-1.30",
        ),
        (
            claim("v2", {"name": "gpu"}),
            "({where} (ResourceClaim 'gpu'): apiVersion resource.k8s.io/v2 is not one podwhy reads ResourceClaim in "
            "(it reads resource.k8s.io/v1, resource.k8s.io/v1beta2, resource.k8s.io/v1beta1, resource.k8s.io/v1alpha3)",
        ),
        (
            {"kind": "ResourceSlice", "metadata": meta("s", None), "spec": {}},
            "({where} (ResourceSlice 's'): it has no apiVersion, and ResourceSlice reads differently in",
        ),
        (
            {"apiVersion": "policy/v1alpha1", "kind": "PodDisruptionBudget", "metadata": meta("zk")},
            "({where} (PodDisruptionBudget 'zk'): apiVersion policy/v1alpha1 is not one podwhy reads",
        ),
        (
            {"apiVersion": "extensions/v1beta1", "kind": "ReplicaSet", "metadata": meta("rs")},
            "({where} (ReplicaSet 'rs'): apiVersion extensions/v1beta1 is not one podwhy reads ReplicaSet in "
            "(it reads apps/v1)",
        ),
        (
            {"apiVersion": "v2", "kind": "Pod", "metadata": meta("p")},
            "({where} (Pod 'p'): apiVersion v2 is not one podwhy reads Pod in (it reads v1)",
        ),
    ],
)
def test_an_apiversion_podwhy_cannot_read_is_a_one_line_error(doc: Json, message: str, reader: str) -> None:
    source = "in.json" if reader == "json" else "in.yaml"
    alone = error(doc, reader)
    assert "\n" not in alone
    assert (
        alone.startswith(f"{source}: ")
        and message.format(where="the object" if reader == "json" else "document 1")[1:] in alone
    )
    in_list = error([doc], reader)
    assert message.format(where="items[0]")[1:] in in_list


@pytest.mark.parametrize("reader", READERS)
def test_manifests_of_versions_kubernetes_stopped_serving_are_errors(reader: str) -> None:
    deployment = {"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": meta("web"), "spec": {}}
    assert "apiVersion extensions/v1beta1 is not one podwhy reads Deployment in (it reads apps/v1)" in error(
        deployment, reader, manifests=True
    )


@pytest.mark.parametrize("reader", READERS)
def test_kinds_of_other_api_groups_are_other_kinds(reader: str) -> None:
    knative = {"apiVersion": "serving.knative.dev/v1", "kind": "Service", "metadata": meta("hello"), "spec": {}}
    volcano = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": meta("train"), "spec": {}}
    core = {"apiVersion": "v1", "kind": "Service", "metadata": meta("web"), "spec": {"selector": {"app": "web"}}}
    decoded = read([knative, volcano, core], reader)
    assert decoded.ignored == {"Service (serving.knative.dev/v1)": 1, "Job (batch.volcano.sh/v1alpha1)": 1}
    assert [s.metadata.name for s in decoded.objects["Service"]] == ["web"]


@pytest.mark.parametrize("reader", READERS)
def test_without_an_apiversion_a_kind_of_one_shape_is_read(reader: str) -> None:
    # As dra-example-driver's device-taint demo ships its pod: no apiVersion line. Pods have
    # one version, so there is nothing to misread.
    pod = {"kind": "Pod", "metadata": meta("pod-no-schedule"), "spec": {"containers": [{"name": "c"}]}}
    assert the_object(pod, reader).metadata.name == "pod-no-schedule"


# ---------------------------------------------------------------------- typed Lists


def _typed_list(kind: str, api_version: str, items: list[Json]) -> Json:
    bare = [{k: v for k, v in item.items() if k not in ("kind", "apiVersion")} for item in items]
    return {"apiVersion": api_version, "kind": f"{kind}List", "metadata": {"resourceVersion": "7"}, "items": bare}


@pytest.mark.parametrize("reader", READERS)
def test_typed_list_items_take_the_lists_kind_and_apiversion(reader: str) -> None:
    nodes = _typed_list("Node", "v1", [{"metadata": {"name": "n1"}}, {"metadata": {"name": "n2"}}])
    assert [n.metadata.name for n in read(nodes, reader).objects["Node"]] == ["n1", "n2"]
    v1beta1 = slice_("v1beta1", [{"name": "gpu-0", "basic": {"attributes": ATTRS}}], nodeName="worker")
    slices = read(_typed_list("ResourceSlice", f"{DRA}/v1beta1", [v1beta1]), reader)
    assert slices.objects["ResourceSlice"][0].spec.devices[0].attributes["model"].string_value == "LATEST-GPU-MODEL"
    assert slices.list_kinds == {"ResourceSlice"}
    refused = _typed_list("ResourceClaim", f"{DRA}/v1alpha2", [claim("v1alpha2", {"name": "gpu"})])
    assert "items[0] (ResourceClaim 'gpu'): resource.k8s.io/v1alpha2 is the classic" in error(refused, reader)


@pytest.mark.parametrize("reader", READERS)
def test_a_list_mixes_versions(reader: str) -> None:
    items = [
        slice_("v1beta1", [{"name": "gpu-0", "basic": {"capacity": {"memory": {"value": "80Gi"}}}}], nodeName="a"),
        slice_("v1alpha3", [{"name": "gpu-0", "basic": {"capacity": {"memory": "40Gi"}}}], nodeName="b"),
        slice_("v1", [{"name": "gpu-0", "capacity": {"memory": {"value": "20Gi"}}}], nodeName="c"),
    ]
    slices = read(items, reader).objects["ResourceSlice"]
    assert [(s.spec.node_name, s.spec.devices[0].capacity["memory"].value) for s in slices] == [
        ("a", "80Gi"),
        ("b", "40Gi"),
        ("c", "20Gi"),
    ]


@pytest.mark.parametrize(
    ("raw", "kind_and_version"),
    [
        (b'{"apiVersion":"v1","kind":"Pod","metadata":{}}', ("Pod", "v1")),
        (b'{"kind": "Pod", "apiVersion": "v1", "metadata": {}}', ("Pod", "v1")),
        (b'{"kind":"Pod","metadata":{},"apiVersion":"v1"}', ("Pod", "v1")),
        (b'{"metadata":{},"kind":"Pod"}', ("Pod", "")),
        (b'{"apiVersion":"","kind":"Pod"}', ("Pod", "")),
    ],
)
def test_peek_type(raw: bytes, kind_and_version: tuple[str, str]) -> None:
    assert peek_type(raw) == kind_and_version


def test_every_kind_podwhy_reads_has_its_versions() -> None:
    kinds = set(o.KINDS) | set(o.MANIFEST_KIND_TYPES)
    assert kinds <= set(versions.VERSIONS)
    for kind in kinds:
        newest = versions.read_versions(kind)[0]
        assert versions.VERSIONS[kind][newest] is versions.SAME, kind  # the newest is the model's shape


@pytest.mark.parametrize("reader", READERS)
def test_a_pod_of_the_classic_dra_is_an_error(reader: str) -> None:
    # dra-example-driver's demo/gpu-test2.yaml of 2023: the pod names its template under `source`,
    # which Kubernetes 1.31 removed without conversion. Read as v1, it would have no claim at all.
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta("pod", "gpu-test2"),
        "spec": {
            "containers": [{"name": "ctr0", "resources": {"claims": [{"name": "shared-gpu"}]}}],
            "resourceClaims": [{"name": "shared-gpu", "source": {"resourceClaimTemplateName": "gpu.example.com"}}],
        },
    }
    message = error(pod, reader)
    assert "(Pod 'pod'): spec.resourceClaims[0].source: a pod of the classic dynamic resource allocation" in message
    modern = {**pod, "spec": {**pod["spec"], "resourceClaims": [{"name": "g", "resourceClaimTemplateName": "t"}]}}
    assert the_object(modern, reader).spec.resource_claims[0].resource_claim_template_name == "t"
