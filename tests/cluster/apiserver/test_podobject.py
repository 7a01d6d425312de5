"""The pod admission policies see (cluster/apiserver/admission/podobject.py): the manifest's spec
defaulted as the API server defaults a Pod, what the mutating plugins set, the registry's
identity and PrepareForCreate's status."""

from __future__ import annotations

from typing import Any

import msgspec

from podwhy.cluster.apiserver.admission.chain import admit
from podwhy.cluster.apiserver.admission.podobject import pod_object
from podwhy.features.emulation import DEFAULT
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

RAW: dict[str, Any] = {
    "containers": [
        {
            "name": "web",
            "image": "nginx",
            "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
            "livenessProbe": {"httpGet": {"path": "/", "port": 80}},
        }
    ]
}


def _admitted() -> o.Pod:
    pod = msgspec.convert({"metadata": {"name": "web", "uid": "u-1"}, "spec": RAW}, o.Pod)
    return admit(pod, Snapshot(), "shop", DEFAULT)


def test_the_spec_as_read_defaulted_with_admissions_changes() -> None:
    obj = pod_object(_admitted(), RAW, DEFAULT)
    spec = obj["spec"]
    (container,) = spec["containers"]
    # Fields the typed model does not hold are kept as read, and defaulted (SetDefaults_HTTPGetAction).
    assert container["livenessProbe"]["httpGet"] == {"path": "/", "port": 80, "scheme": "HTTP"}
    # SetDefaults_Pod: requests copied from limits.
    assert container["resources"]["requests"] == {"cpu": "500m", "memory": "128Mi"}
    assert container["imagePullPolicy"] == "Always" and container["terminationMessagePolicy"] == "File"
    assert (spec["restartPolicy"], spec["dnsPolicy"], spec["schedulerName"]) == (
        "Always",
        "ClusterFirst",
        "default-scheduler",
    )
    # Priority admission (no default class: 0) and DefaultTolerationSeconds.
    assert spec["priority"] == 0
    assert {t["key"] for t in spec["tolerations"]} == {
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    }
    assert obj["metadata"] == {"name": "web", "namespace": "shop", "uid": "u-1"}
    assert obj["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}
    assert RAW["containers"][0]["resources"] == {"limits": {"cpu": "500m", "memory": "128Mi"}}  # not changed


def test_without_the_spec_as_read_the_typed_pods() -> None:
    obj = pod_object(_admitted(), None, DEFAULT)
    assert obj["spec"]["containers"][0]["name"] == "web"
    assert obj["kind"] == "Pod" and obj["apiVersion"] == "v1"
