"""lowerRequest: lower the pod's requests so that it fits where only resources keep it off."""

from __future__ import annotations

from heapq import nsmallest
from typing import Any

import msgspec

from podwhy.analysis.suggest.base import MAX_TRIES_PER_KIND, MI, RESOURCE_FIT, _Verifier
from podwhy.analysis.suggest.facts import LowerRequest, RequestCut, Suggestion
from podwhy.analysis.suggest.patches import _pod_command, _pod_patch
from podwhy.framework.evidence import ResourceEvidence
from podwhy.framework.status import Status
from podwhy.model import objects as o
from podwhy.model.quantity import quantity_milli_value, quantity_value
from podwhy.scheduler.cycle import CycleOutcome


def _amount(resource: str, raw: Any) -> int:
    return quantity_milli_value(raw) if resource == "cpu" else quantity_value(raw)


def _format(resource: str, amount: int) -> str:
    if resource == "cpu":
        return f"{amount}m"
    if resource in ("memory", "ephemeral-storage") and amount % MI == 0:
        return f"{amount // MI}Mi"
    return str(amount)


def _lowered(resource: str, current: int, delta: int) -> int | None:
    """The container's request lowered by `delta`, rounded down to whole MiB for byte sizes."""
    new = current - delta
    if new <= 0:
        return None
    if resource in ("memory", "ephemeral-storage") and new >= MI:
        new -= new % MI
    return new


def _lower_requests(pod: o.Pod, cuts: dict[str, int]) -> tuple[o.Pod, list[dict[str, Any]], list[RequestCut]] | None:
    """The pod with each resource's total request lowered by its cut (from the largest container,
    or the pod-level request), the json-patch ops and the requests lowered; None when it cannot be."""
    spec = pod.spec
    containers = list(spec.containers)
    pod_resources = spec.resources
    ops: list[dict[str, Any]] = []
    said: list[RequestCut] = []
    for resource, delta in sorted(cuts.items()):
        if pod_resources is not None and resource in pod_resources.requests:
            new = _lowered(resource, _amount(resource, pod_resources.requests[resource]), delta)
            if new is None:
                return None
            requests = {**pod_resources.requests, resource: _format(resource, new)}
            pod_resources = msgspec.structs.replace(pod_resources, requests=requests)
            ops.append({"op": "add", "path": "/spec/resources/requests", "value": dict(requests)})
            said.append(RequestCut(resource, _format(resource, new)))
            continue
        holders = [(i, c) for i, c in enumerate(containers) if resource in c.resources.requests]
        if not holders:
            return None
        index, container = max(holders, key=lambda ic: _amount(resource, ic[1].resources.requests[resource]))
        new = _lowered(resource, _amount(resource, container.resources.requests[resource]), delta)
        if new is None:
            return None
        requests = {**container.resources.requests, resource: _format(resource, new)}
        containers[index] = msgspec.structs.replace(
            container, resources=msgspec.structs.replace(container.resources, requests=requests)
        )
        # The whole map: a template or manifest that sets only limits has no `requests` to add a
        # member to (the API server derives the pod's requests from its limits); this one applies
        # to either, and gives the pod the requests it had, but the one lowered.
        ops.append({"op": "add", "path": f"/spec/containers/{index}/resources/requests", "value": dict(requests)})
        said.append(RequestCut(resource, _format(resource, new), container.name))
    new_spec = msgspec.structs.replace(spec, containers=containers, resources=pod_resources)
    return msgspec.structs.replace(pod, spec=new_spec), ops, said


def _cuts(status: Status) -> tuple[dict[str, int], float]:
    """The cut each short resource needs on a node only resources keep the pod off, and the
    largest as a share of the request; no cuts when one cannot help (pods, no room at all)."""
    cuts: dict[str, int] = {}
    worst = 0.0
    for ev in status.evidence:
        if not isinstance(ev, ResourceEvidence) or ev.resource == "pods" or ev.free <= 0:
            return {}, 0.0
        cuts[ev.resource] = ev.requested - ev.free
        worst = max(worst, cuts[ev.resource] / ev.requested)
    return cuts, worst


def _suggest_lower_request(v: _Verifier, cycle: CycleOutcome) -> list[Suggestion]:
    assert cycle.outcome is not None
    # Per node whose only rejection is resources: the cut each short resource needs there, found
    # once per group of nodes sharing that status. Only the first nodes by (share, name) are
    # tried: of each group, those first by name are enough.
    options: list[tuple[float, str, dict[str, int]]] = []
    for group in v.groups_of(cycle).groups:
        status = group.only_failing(RESOURCE_FIT)
        if status is None:
            continue
        cuts, worst = _cuts(status)
        if cuts:
            options.extend((worst, name, cuts) for name in nsmallest(MAX_TRIES_PER_KIND * 2, group.names))
    out: list[Suggestion] = []
    seen: set[tuple[tuple[str, int], ...]] = set()
    for _, _node, cuts in sorted(options)[: MAX_TRIES_PER_KIND * 2]:
        key = tuple(sorted(cuts.items()))
        if key in seen:
            continue
        seen.add(key)
        lowered = _lower_requests(v.pod, cuts)
        if lowered is None:
            continue
        pod, ops, said = lowered
        feasible = v.with_pod(pod)
        if feasible is None:
            continue
        command = _pod_command(v, ops)
        if command is None:  # does not apply to the pod's source
            continue
        out.append(
            Suggestion(
                LowerRequest(tuple(said)),
                nodes=feasible,
                patches=[_pod_patch(v, ops)],
                command=command,
            )
        )
        break
    return out
