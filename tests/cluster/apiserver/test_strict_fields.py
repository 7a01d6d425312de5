"""The API server's strict decoding of manifests (issue 23): a field the kind does not have in
the emulated release is refused as `kubectl apply` reports it, before defaulting and admission
(cluster/apiserver/fieldvalidation.py, the fields of model/fields.py)."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cluster.apiserver.fieldvalidation import MAX_STRICT_ERRORS, StrictDecodingError, unknown_fields
from podwhy.cluster.manifests import ManifestSource
from podwhy.errors import PodwhyError
from podwhy.features.emulation import DEFAULT, EMULATED
from podwhy.model.fields import KINDS, STRUCTS
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.decode import decode
from tests.paths import REPO
from tests.shared import SHARED, needs_shared

REPO = REPO

POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: nginx
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
"""
STATEFUL_SET = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {request: {storage: 1Gi}}
"""
CRON_JOB = """apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      backofLimit: 3
      template:
        spec:
          restartPolicy: Never
          containers: [{name: a, image: busybox, imagePullPolcy: Always}]
"""


def _refusal(manifest: str, minor: int = DEFAULT.minor) -> str:
    """The strict decoding error of `check -f` of MANIFEST ("" if it is accepted)."""
    source = ManifestSource(["-"], stdin=io.BytesIO(manifest.encode()))
    try:
        source.load_into(Snapshot(), EMULATED[minor])
    except StrictDecodingError as refused:
        return refused.words
    except PodwhyError:  # accepted by strict decoding, whatever comes next
        return ""
    return ""


def _words(kind: str, version: str, *paths: str) -> str:
    fields = ", ".join(f'unknown field "{p}"' for p in paths)
    return f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: {fields}'


@pytest.mark.parametrize(
    ("manifest", "minor", "expected"),
    [
        # metadata
        (POD.replace("{name: web}", "{name: web, lables: {a: b}}"), 35, _words("Pod", "v1", "metadata.lables")),
        # spec
        (DEPLOYMENT.replace("  replicas: 2", "  replica: 2"), 35, _words("Deployment", "v1", "spec.replica")),
        # a container
        (
            DEPLOYMENT + "        resouces: {requests: {cpu: 1}}\n",
            35,
            _words("Deployment", "v1", "spec.template.spec.containers[0].resouces"),
        ),
        # a volume source
        (
            POD + "  volumes: [{name: v, configMap: {nmae: cm}}]\n",
            35,
            _words("Pod", "v1", "spec.volumes[0].configMap.nmae"),
        ),
        # a probe's handler
        (
            POD + "    readinessProbe: {httpGet: {port: 80, pth: /}, periodSecond: 3}\n",
            35,
            _words(
                "Pod",
                "v1",
                "spec.containers[0].readinessProbe.httpGet.pth",
                "spec.containers[0].readinessProbe.periodSecond",
            ),
        ),
        # an affinity term
        (
            POD + "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
            "      - {labelSelector: {matchLabels: {a: b}}, topologykey: zone}\n",
            35,
            _words(
                "Pod",
                "v1",
                "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologykey",
            ),
        ),
        # a StatefulSet's PVC template
        (STATEFUL_SET, 35, _words("StatefulSet", "v1", "spec.volumeClaimTemplates[0].spec.resources.request")),
        # an ephemeral volume's claim template
        (
            POD + "  volumes:\n  - name: scratch\n    ephemeral:\n      volumeClaimTemplate:\n"
            "        spec: {accessModes: [ReadWriteOnce], storageClass: fast, resources: {requests: {storage: 1Gi}}}\n",
            35,
            _words("Pod", "v1", "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.storageClass"),
        ),
        # a CronJob's jobTemplate, in key order: backofLimit before template
        (
            CRON_JOB,
            35,
            _words(
                "CronJob",
                "v1",
                "spec.jobTemplate.spec.backofLimit",
                "spec.jobTemplate.spec.template.spec.containers[0].imagePullPolcy",
            ),
        ),
        # several at once: in the order of the JSON kubectl sends (keys sorted at every level), not
        # the file's: metadata before spec, `affinty` before `containers`, items in order
        (
            "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n"
            "      containers: [{name: a, image: b, imge: c}, {name: b, image: c, ports: [{contanerPort: 80}]}]\n"
            "      affinty: {}\n  replicaz: 1\nmetadata: {name: web, zz: 1, aa: 2}\n",
            35,
            _words(
                "Deployment",
                "v1",
                "metadata.aa",
                "metadata.zz",
                "spec.replicaz",
                "spec.template.spec.affinty",
                "spec.template.spec.containers[0].imge",
                "spec.template.spec.containers[1].ports[0].contanerPort",
            ),
        ),
        # below an unknown field nothing is read; the case of a key matters
        (POD + "  extra: {deeper: {x: 1}}\n  NodeName: n1\n", 35, _words("Pod", "v1", "spec.NodeName", "spec.extra")),
        # the other kinds
        (
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  replicas: 3\n"
            "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n"
            "    spec: {containers: [{name: a, image: b}]}\n",
            35,
            _words("DaemonSet", "v1", "spec.replicas"),
        ),
        (
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  replicas: 3\n  template:\n"
            "    spec: {restartPolicy: Never, containers: [{name: a, image: b, env: [{name: X, valeu: y}]}]}\n",
            35,
            _words("Job", "v1", "spec.replicas", "spec.template.spec.containers[0].env[0].valeu"),
        ),
        (
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec:\n  selector: {matchLabels: {a: b}}\n"
            "  template:\n    metadata: {labels: {a: b}}\n"
            "    spec: {containers: [{name: a, image: b}], tolerations: [{key: k, operater: Exists}]}\n",
            35,
            _words("ReplicaSet", "v1", "spec.template.spec.tolerations[0].operater"),
        ),
        (
            "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\nspec:\n  selector: {a: b}\n"
            "  strategy: {type: Recreate}\n  template:\n    metadata: {labels: {a: b}}\n"
            "    spec: {containers: [{name: a, image: b}]}\n",
            35,
            _words("ReplicationController", "v1", "spec.strategy"),
        ),
        (
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
            "spec: {accessModes: [ReadWriteOnce], storageClass: x, resources: {requests: {storage: 1Gi}}}\n---\n" + POD,
            35,
            _words("PersistentVolumeClaim", "v1", "spec.storageClass"),
        ),
        # fields by release: hostnameOverride and restartPolicyRules from v1.34, schedulingGroup from
        # v1.36, workloadRef in v1.35 only
        (POD + "  hostnameOverride: h\n", 33, _words("Pod", "v1", "spec.hostnameOverride")),
        (POD + "  hostnameOverride: h\n", 34, ""),
        (
            POD + "    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n",
            33,
            _words("Pod", "v1", "spec.containers[0].restartPolicyRules"),
        ),
        (POD + "    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n", 34, ""),
        (POD + "  schedulingGroup: {podGroupName: g}\n", 33, _words("Pod", "v1", "spec.schedulingGroup")),
        (POD + "  schedulingGroup: {podGroupName: g}\n", 35, _words("Pod", "v1", "spec.schedulingGroup")),
        (POD + "  schedulingGroup: {podGroupName: g}\n", 36, ""),
        (POD + "  workloadRef: {name: w, podGroup: g}\n", 35, ""),
        (POD + "  workloadRef: {name: w, podGroup: g}\n", 36, _words("Pod", "v1", "spec.workloadRef")),
        # status is read whole (the API server ignores it on create); maps with free keys are free
        (POD + "status: {phase: Running, anything: {goes: here}}\n", 35, ""),
        (
            POD.replace("{name: web}", "{name: web, labels: {any.key/x: v}, annotations: {whatever: v}}")
            + "    resources: {requests: {example.com/gpu: 1}, limits: {cpu: 1}}\n"
            "  nodeSelector: {some/label: x}\n  overhead: {cpu: 1m}\n",
            35,
            "",
        ),
        # a valid manifest of every part passes
        (DEPLOYMENT, 33, ""),
        (CRON_JOB.replace("backofLimit", "backoffLimit").replace("imagePullPolcy", "imagePullPolicy"), 33, ""),
    ],
)
def test_unknown_fields_are_refused_as_the_api_server_words_them(manifest: str, minor: int, expected: str) -> None:
    assert _refusal(manifest, minor) == expected


def test_a_list_item_is_its_own_object_and_json_is_read_alike() -> None:
    """kubectl sends each item of a List as its own object: the path starts at the item."""
    item = json.loads(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "nmae": "x"}}))
    manifest = json.dumps({"apiVersion": "v1", "kind": "List", "items": [item]})
    assert _refusal(manifest) == _words("Pod", "v1", "metadata.nmae")


def test_a_typo_in_a_template_is_refused_before_the_template_is_validated() -> None:
    """Strict decoding comes first: an invalid value elsewhere is not reached."""
    bad = DEPLOYMENT + "        resouces: {}\n        ports: [{containerPort: 99999}]\n"
    assert _refusal(bad) == _words("Deployment", "v1", "spec.template.spec.containers[0].resouces")


def test_at_most_a_hundred_unknown_fields_are_named() -> None:
    document = {"metadata": {f"f{i:03}": 1 for i in range(150)}}
    found = unknown_fields("Pod", document, 35)
    assert len(found) == MAX_STRICT_ERRORS
    assert found[0] == 'unknown field "metadata.f000"'


def test_every_nested_struct_named_exists() -> None:
    for name, fields in STRUCTS.items():
        for field_name, field in fields.items():
            held = field.item or field.holds
            assert not held or held in STRUCTS, f"{name}.{field_name}: {held}"
    assert set(KINDS) <= set(STRUCTS)


def test_duplicate_keys_are_refused_by_the_readers() -> None:
    """A key twice in one mapping never reaches strict decoding: the readers refuse it, JSON in
    the API server's words, YAML in the YAML reader's (docs/shapes.md)."""
    json_pod = b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "name": "b"}}'
    with pytest.raises(PodwhyError, match=r'duplicate field "metadata\.name"'):
        decode(json_pod, "p.json", manifests=True)
    yaml_pod = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n"
    with pytest.raises(PodwhyError, match=r'line 5: mapping key "name" already defined at line 4'):
        decode(yaml_pod, "p.yaml", manifests=True)


# ------------------------------------------------------------------ the command line


def _run(tmp_path: Path, command: str, manifest: str, *extra: str) -> tuple[int, str, str]:
    cluster = (
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n"
        '  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}\n'
    )
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "web.yaml").write_text(manifest)
    args = [command, "-f", str(tmp_path / "web.yaml"), "--from", str(tmp_path / "cluster.yaml"), *extra]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


HINT = "`kubectl apply`, whose strict field validation is the default, fails and nothing is created)\n"


def test_explain_f_refuses_in_one_line(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, "explain", POD + "    resouces: {}\n  hostnameOverride: h\n", "--kube-version=1.33")
    assert (code, out) == (3, "")
    assert err == (
        f'podwhy: error: {tmp_path / "web.yaml"}: Pod in version "v1" cannot be handled as a Pod: strict decoding '
        'error: unknown field "spec.containers[0].resouces", unknown field "spec.hostnameOverride" (the API server '
        "refuses Pod 'web' (document 1): " + HINT
    )


def test_check_f_refuses_in_one_line(tmp_path: Path) -> None:
    manifest = POD + "---\n" + DEPLOYMENT + "        resouces: {requests: {cpu: 1}}\n"
    code, out, err = _run(tmp_path, "check", manifest)
    assert (code, out) == (3, "")
    assert err == (
        f'podwhy: error: {tmp_path / "web.yaml"}: Deployment in version "v1" cannot be handled as a Deployment: '
        'strict decoding error: unknown field "spec.template.spec.containers[0].resouces" (the API server refuses '
        "Deployment 'web' (document 2): " + HINT
    )


# ------------------------------------------------------------------ real objects pass


def _manifest_files(root: Path) -> list[Path]:
    suffixes = (".yaml", ".yml", ".json", ".yaml.gz", ".json.gz")
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(suffixes) and p.name != "case.json")


def _refusals(path: Path, minors: set[int], checked: list[int] | None = None) -> list[str]:
    """What strict decoding refuses in PATH under each release of MINORS (CHECKED counts the objects)."""
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    try:
        entries = decode(data, str(path), manifests=True, skip_kindless=True).entries
    except PodwhyError:  # inputs podwhy refuses for other reasons
        return []
    found = []
    for entry in entries:
        if entry.kind in KINDS and entry.raw:
            if checked is not None:
                checked.append(1)
            document = msgspec.json.decode(entry.raw)
            for minor in sorted(minors):
                errors = unknown_fields(entry.kind, document, minor)
                if errors:
                    found.append(f"{path.relative_to(path.parents[2])} {entry.where} v1.{minor}: {errors}")
    return found


def _recorded_clusters() -> dict[Path, set[int]]:
    """Every cluster of the recorded cases, with the releases it was recorded with (a case of
    golden-v1.N names its cluster in ../golden: the same objects, stored by that release)."""
    out: dict[Path, set[int]] = {}
    for folder in sorted(SHARED.glob("golden*")):
        default = int(folder.name.rpartition(".")[2]) if "-v1." in folder.name else 35
        for case_file in sorted(folder.glob("*/case.json")):
            case = json.loads(case_file.read_text())
            minor = int(case["kubeVersion"].split(".")[1]) if "kubeVersion" in case else default
            named = case.get("cluster")
            candidates = [case_file.parent / named] if named else list(case_file.parent.glob("cluster.yaml*"))
            for cluster in candidates:
                if not cluster.exists():  # the largest clusters are stored compressed
                    cluster = cluster.with_name(cluster.name + ".gz")
                out.setdefault(cluster.resolve(), set()).add(minor)
    return out


@needs_shared("golden")
def test_every_recorded_object_passes_with_its_release() -> None:
    clusters = _recorded_clusters()
    assert len(clusters) >= 250
    assert {m for minors in clusters.values() for m in minors} == set(EMULATED)
    checked: list[int] = []
    refused = [r for cluster, minors in clusters.items() for r in _refusals(cluster, minors, checked)]
    assert refused == []
    assert len(checked) > 10_000  # the recorded Pods and PVCs


def test_every_test_manifest_passes() -> None:
    roots = [REPO / "tests" / "scenarios", REPO / "tests" / "scenarios-check", REPO / "fixtures" / "examples"]
    checked: list[int] = []
    refused = [r for root in roots for path in _manifest_files(root) for r in _refusals(path, set(EMULATED), checked)]
    assert refused == []
    assert len(checked) > 30


# Real-world inputs the API server refuses, rightly: a DaemonSet with a Deployment's replicas (a
# validator's fixture of an extra property), a k9s test object with extensions/v1beta1's
# templateGeneration under apps/v1, and a container with `limits` outside `resources`.
REALWORLD_REFUSED = {
    "09-k9s-minikube/manifests/ds.json": ['unknown field "spec.templateGeneration"'],
    "13-kubeconform-fixtures/extra_property.yaml": ['unknown field "spec.replicas"'],
    "14-aks-cluster-info-dump/arena-pod.yaml": ['unknown field "spec.containers[0].limits"'],
}


@needs_shared("realworld", "cases")
def test_real_world_manifests_are_refused_only_where_the_api_server_would() -> None:
    cases = SHARED / "realworld" / "cases"
    found: dict[str, list[str]] = {}
    for path in _manifest_files(cases):
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        try:
            entries = decode(data, str(path), manifests=True, skip_kindless=True).entries
        except PodwhyError:  # inputs podwhy refuses for other reasons
            continue
        for entry in entries:
            if entry.kind in KINDS and entry.raw:
                for minor in EMULATED:
                    errors = unknown_fields(entry.kind, msgspec.json.decode(entry.raw), minor)
                    if errors:
                        found[path.relative_to(cases).as_posix()] = errors
    assert found == REALWORLD_REFUSED
