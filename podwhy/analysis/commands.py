"""The kubectl command that makes a change to a Pending pod's spec, through the workload that owns it:
the line to run, and a typed note (suggest/facts.py) on what it does beyond the patch, which
report/words/suggest.py says as its comment.

A change is given as RFC 6902 ops with paths relative to the pod (`/spec/containers/0/...`).
A change of requests is written as a strategic merge patch (kubectl patch's own type for built-in
kinds), its containers merged by name: it applies to whatever the template or manifest holds of
them. A template need not hold what the API server gave the pod — a container without
`resources` whose requests a LimitRange default set, requests copied from limits — and containers
a webhook added to the pod shift the indices a JSON patch would name. Other changes (a selector,
an affinity term, a spread constraint, the whole tolerations list) touch fields admission leaves
as the template wrote them, and stay RFC 6902 ops. Each owner kind takes a change differently,
and what follows the patch differs with it:

- Deployment, DaemonSet: patching `/spec/template` rolls out new pods; the Pending ones go.
- StatefulSet: patching rolls out, except that with `podManagementPolicy: OrderedReady` (the
  default) the controller waits for the Pending pod to become Ready before it changes anything,
  and with `updateStrategy: OnDelete` it never replaces a pod itself: the Pending pod must be
  deleted after the patch (it is recreated from the new template). An ordinal below the rolling
  update's `partition` is recreated from the old template, so the partition is lowered to it.
- ReplicaSet (no Deployment) and ReplicationController: a template change never touches existing
  pods: the Pending pods are deleted after the patch, and recreated from the new template.
- Job: `spec.template` is immutable once created (a suspended Job that never started may change
  scheduling directives only, and a Job with Pending pods is not suspended): the Job is recreated
  from a patched copy of itself, without the selector and template labels the API server
  generated from the old Job's uid (its pods start over).
- A Job of a CronJob: the CronJob's `/spec/jobTemplate/spec/template` is patched for future runs,
  and the running Job is recreated from the patched CronJob.
- A bare pod: most of a pod's spec is immutable: it is replaced with a patched copy.
- A pod given as a manifest (`explain -f pod.yaml`) is not in the cluster: the manifest is patched
  locally and the result created (`kubectl apply`, or `kubectl create` for a manifest with only
  `metadata.generateName`, whose name podwhy made up).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Any

from podwhy.analysis.owners import Owner, controller_ref, owner_of
from podwhy.analysis.suggest.facts import (
    Command,
    CronJobRecreated,
    JobRecreated,
    ManifestOnStdin,
    StatefulSetHold,
    StatefulSetReplaced,
    TemplateNotRolledOut,
)
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot

# Where each owner kind holds its pod template.
TEMPLATE_PATHS = {
    "Deployment": "/spec/template",
    "StatefulSet": "/spec/template",
    "DaemonSet": "/spec/template",
    "ReplicaSet": "/spec/template",
    "ReplicationController": "/spec/template",
    "Job": "/spec/template",
    "CronJob": "/spec/jobTemplate/spec/template",
}
# What the API server generates on a Job when it is created (with spec.manualSelector unset): the
# selector, and the template labels it matches, carry the Job's uid. A Job created from a copy of
# another gets a new uid: with the old ones it would be rejected ("`selector` not auto-generated").
# A merge patch, since a JSON-patch "remove" fails on a Job that lacks one (older Jobs have no
# batch.kubernetes.io/controller-uid).
JOB_GENERATED_FIELDS: dict[str, Any] = {
    "spec": {
        "selector": None,
        "template": {"metadata": {"labels": {"controller-uid": None, "batch.kubernetes.io/controller-uid": None}}},
    }
}


# The lists a strategic merge patch of a pod merges by a key (patchMergeKey in k8s.io/api/core/v1):
# containers and init containers by name.
_MERGED_BY_NAME = ("containers", "initContainers")


def strategic_patch(pod: o.Pod, ops: list[dict[str, Any]]) -> dict[str, Any] | None:
    """OPS (paths relative to POD) as a strategic merge patch of the pod, when every op sets the
    requests of a container (by its name) or of the pod, sets or removes one resource of a
    container's requests or limits, or one label or annotation (null removes it); None for any
    other change."""
    if not ops:
        return None
    spec: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for op in ops:
        if op["op"] not in ("add", "replace", "remove"):
            return None
        parts = op["path"].split("/")[1:]
        value = op.get("value") if op["op"] != "remove" else None
        if _metadata_key(parts):
            metadata.setdefault(parts[1], {})[_unescaped(parts[2])] = value
            continue
        if parts == ["spec", "resources", "requests"] and op["op"] != "remove":
            spec["resources"] = {"requests": value}
            continue
        whole = len(parts) == 5 and parts[3:] == ["resources", "requests"] and op["op"] != "remove"
        one = len(parts) == 6 and parts[3] == "resources" and parts[4] in ("requests", "limits")
        if not (whole or one) or parts[1] not in _MERGED_BY_NAME:
            return None
        containers = pod.spec.containers if parts[1] == "containers" else pod.spec.init_containers
        if not parts[2].isdigit() or int(parts[2]) >= len(containers):
            return None
        name = containers[int(parts[2])].name
        entries: list[dict[str, Any]] = spec.setdefault(parts[1], [])
        entry = next((e for e in entries if e["name"] == name), None)
        if entry is None:
            entry = {"name": name}
            entries.append(entry)
        if whole:
            entry["resources"] = {"requests": value}
        else:
            entry.setdefault("resources", {}).setdefault(parts[4], {})[_unescaped(parts[5])] = value
    patch = {"metadata": metadata, "spec": spec}
    return {key: value for key, value in patch.items() if value}


def _metadata_key(parts: list[str]) -> bool:
    """Whether PARTS (of an op's path) name one label or annotation."""
    return len(parts) == 3 and parts[0] == "metadata" and parts[1] in ("labels", "annotations")


def _unescaped(part: str) -> str:
    """An RFC 6901 reference token as the key it names."""
    return part.replace("~1", "/").replace("~0", "~")


def _nested(prefix: str, patch: dict[str, Any]) -> dict[str, Any]:
    """PATCH (of a pod) placed at PREFIX (`/spec/template`) of its owner."""
    for part in reversed(prefix.split("/")[1:]):
        patch = {part: patch}
    return patch


def _deep_merge(into: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(into)
    for key, value in extra.items():
        out[key] = _deep_merge(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out


def _patch_flags(
    pod: o.Pod,
    prefix: str,
    ops: list[dict[str, Any]],
    extra: tuple[dict[str, Any], dict[str, Any]] | None = None,
) -> str:
    """`--type ... -p ...` for the change OPS (paths relative to POD) to the pod template at PREFIX
    ("" for the pod itself); EXTRA: one more change of the owner, as (RFC 6902 op, merge patch)."""
    strategic = strategic_patch(pod, ops)
    if strategic is not None:
        patch = _nested(prefix, strategic)
        if extra is not None:
            patch = _deep_merge(patch, extra[1])
        return f"--type strategic -p {_json(patch)}"
    under = _under(prefix, ops) + ([extra[0]] if extra is not None else [])
    return f"--type json -p {_json(under)}"


def template_owner(pod: o.Pod, snapshot: Snapshot) -> tuple[str, str, str] | None:
    """(kind, namespace, name) of the workload whose template makes the pod (a ReplicaSet lifted
    to its Deployment, a Job to its CronJob), None for a bare pod or an owner without a pod template."""
    owner = owner_of(pod, snapshot)
    if owner is None or owner.kind not in TEMPLATE_PATHS:
        return None
    return owner.kind, owner.namespace, owner.name


def _json(value: Any) -> str:
    return shlex.quote(json.dumps(value, separators=(",", ":")))


def _under(prefix: str, ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**op, "path": prefix + op["path"]} for op in ops]


def _delete_pods(namespace: str, pods: Sequence[o.Pod]) -> str:
    return f"kubectl delete pod -n {shlex.quote(namespace)} " + " ".join(shlex.quote(p.metadata.name) for p in pods)


def patch_command(pod: o.Pod, snapshot: Snapshot, ops: list[dict[str, Any]], replaced: Sequence[o.Pod] = ()) -> Command:
    """The command that makes the change `ops` (paths relative to the pod) to the pod's owner, and
    replaces the Pending pods `replaced` (the pod's pending group; the pod alone by default) where
    the owner would not replace them itself."""
    owner = owner_of(pod, snapshot)
    if owner is None or owner.kind not in TEMPLATE_PATHS:
        return Command(_replace_bare_pod(pod, ops))
    pods = list(replaced) if any(p is pod for p in replaced) else [pod]
    if owner.kind == "CronJob":
        return Command(_cron_job(pod, owner, ops), CronJobRecreated())
    if owner.kind == "Job":
        job = snapshot.jobs.get(f"{owner.namespace}/{owner.name}")
        manual_selector = job is not None and bool(job.spec.manual_selector)
        return Command(_recreate_job(pod, owner, ops, manual_selector), JobRecreated())
    patch = _patch(pod, owner, ops)
    if owner.kind in ("ReplicaSet", "ReplicationController"):
        return Command(f"{patch} && {_delete_pods(owner.namespace, pods)}", TemplateNotRolledOut(owner.kind))
    if owner.kind == "StatefulSet":
        return _stateful_set(pod, snapshot, owner, ops, pods)
    return Command(patch)


def created_patch_command(
    pod: o.Pod, snapshot: Snapshot, ops: list[dict[str, Any]], recreate_job: bool = True
) -> Command | None:
    """The command that makes the change OPS (paths relative to POD) to the template of the
    workload whose controller cannot create POD (None for a bare pod): the patch alone, for there
    is no pod to replace (the controller creates the pods from the changed template as it retries),
    but for a Job, whose template cannot change (recreated from a patched copy), and a CronJob's
    Job (the CronJob patched, its Job recreated from it unless RECREATE_JOB is False: the next Job
    gets the change)."""
    owner = owner_of(pod, snapshot)
    if owner is None or owner.kind not in TEMPLATE_PATHS:
        return None
    if owner.kind == "CronJob":
        if not recreate_job:
            return Command(_patch(pod, owner, ops))
        return Command(_cron_job(pod, owner, ops), CronJobRecreated())
    if owner.kind == "Job":
        job = snapshot.jobs.get(f"{owner.namespace}/{owner.name}")
        manual_selector = job is not None and bool(job.spec.manual_selector)
        return Command(_recreate_job(pod, owner, ops, manual_selector), JobRecreated())
    return Command(_patch(pod, owner, ops))


def manifest_command(path: str, pod: o.Pod, ops: list[dict[str, Any]]) -> Command:
    """The command that makes the change `ops` (paths relative to the pod) to the pod manifest at
    PATH ('-': stdin) and creates the pod from the patched manifest: never a command naming the
    pod, which is not in the cluster (and whose name podwhy may have made up from generateName)."""
    # A manifest without a name cannot be applied: create makes the API server generate one.
    create = "kubectl create -f" if pod.metadata.generate_name else "kubectl apply -f"
    local = f"kubectl patch --local {_patch_flags(pod, '', ops)} -o yaml"
    if path == "-":
        return Command(f"{local} -f - | {create} -", ManifestOnStdin())
    stem, dot, ext = path.rpartition(".")
    patched = f"{stem}.patched.{ext}" if dot and "/" not in ext else f"{path}.patched.yaml"
    return Command(f"{local} -f {shlex.quote(path)} > {shlex.quote(patched)} && {create} {shlex.quote(patched)}")


def _patch(pod: o.Pod, owner: Owner, ops: list[dict[str, Any]]) -> str:
    return (
        f"kubectl patch {owner.kind.lower()} {shlex.quote(owner.name)} -n {shlex.quote(owner.namespace)} "
        f"{_patch_flags(pod, TEMPLATE_PATHS[owner.kind], ops)}"
    )


def _replace_bare_pod(pod: o.Pod, ops: list[dict[str, Any]]) -> str:
    ns, name = shlex.quote(pod.metadata.namespace), shlex.quote(pod.metadata.name)
    return (
        f"kubectl get pod {name} -n {ns} -o json | kubectl patch --local -f - {_patch_flags(pod, '', ops)} "
        "-o json | kubectl replace --force -f -"
    )


def _recreate_job(pod: o.Pod, owner: Owner, ops: list[dict[str, Any]], manual_selector: bool) -> str:
    ns, name = shlex.quote(owner.namespace), shlex.quote(owner.name)
    drop = (
        ""
        if manual_selector
        else f"kubectl patch --local -f - --type merge -p {_json(JOB_GENERATED_FIELDS)} -o json | "
    )
    return (
        f"kubectl get job {name} -n {ns} -o json | {drop}"
        f"kubectl patch --local -f - {_patch_flags(pod, TEMPLATE_PATHS['Job'], ops)} -o json"
        " | kubectl replace --force -f -"
    )


def _cron_job(pod: o.Pod, owner: Owner, ops: list[dict[str, Any]]) -> str:
    ref = controller_ref(pod.metadata)
    assert ref is not None  # the pod's Job, which lifted it to the CronJob
    ns, job = shlex.quote(owner.namespace), shlex.quote(ref.name)
    return (
        f"{_patch(pod, owner, ops)} && kubectl delete job {job} -n {ns} && "
        f"kubectl create job {job} --from={shlex.quote(f'cronjob/{owner.name}')} -n {ns}"
    )


def _ordinal(pod: o.Pod, stateful_set: str) -> int | None:
    """The ordinal of a StatefulSet's pod, `<statefulset>-<ordinal>`."""
    suffix = pod.metadata.name.removeprefix(f"{stateful_set}-")
    return int(suffix) if suffix != pod.metadata.name and suffix.isdigit() else None


def _stateful_set(
    pod: o.Pod, snapshot: Snapshot, owner: Owner, ops: list[dict[str, Any]], pods: Sequence[o.Pod]
) -> Command:
    sts = next(
        (s for s in snapshot.stateful_sets if (s.metadata.namespace, s.metadata.name) == (owner.namespace, owner.name)),
        None,
    )
    extra: tuple[dict[str, Any], dict[str, Any]] | None = None
    partition: int | None = None
    lowest: int | None = None
    if sts is None:
        held: StatefulSetHold | None = StatefulSetHold.UNKNOWN
    else:
        strategy = sts.spec.update_strategy
        if strategy.type == "OnDelete":
            held = StatefulSetHold.ON_DELETE
        elif sts.spec.pod_management_policy in ("", "OrderedReady"):
            held = StatefulSetHold.ORDERED_READY
        else:
            held = None  # Parallel: the rolling update replaces the Pending pod itself
        partition = strategy.rolling_update.partition if strategy.rolling_update is not None else None
        ordinals = [n for p in pods if (n := _ordinal(p, owner.name)) is not None]
        if partition and ordinals and min(ordinals) < partition:
            # An ordinal below the partition is recreated from the old template.
            lowest = min(ordinals)
            extra = (
                {"op": "replace", "path": "/spec/updateStrategy/rollingUpdate/partition", "value": lowest},
                {"spec": {"updateStrategy": {"rollingUpdate": {"partition": lowest}}}},
            )
    line = (
        f"kubectl patch statefulset {shlex.quote(owner.name)} -n {shlex.quote(owner.namespace)} "
        f"{_patch_flags(pod, TEMPLATE_PATHS['StatefulSet'], ops, extra)}"
    )
    if held is not None:
        line += f" && {_delete_pods(owner.namespace, pods)}"
    if lowest is None and held is None:
        return Command(line)
    return Command(line, StatefulSetReplaced(partition if lowest is not None else None, lowest, held))
