"""satisfyPolicy: a change to the pod template of a workload whose pods a ValidatingAdmissionPolicy
refuses, offered only once verified.

From the failing validation (its expression's tests, policyfields.py) and the pod as the policy
saw it, the fields to set (policy.py). The change is applied to the pod its controller creates,
before admission, and the whole admission runs again on it, as `check` creates a pod
(cluster/apiserver/admission/chain.admit: defaulting, the mutating plugins, the pod's
validation, LimitRanger's bounds, PodSecurity, RuntimeClass, every ValidatingAdmissionPolicy,
ResourceQuota), on a copy of what admission charges (the quotas' usage). Then:

- admitted: the pod's scheduling cycle says whether it then fits (the nodes, or the scheduler's
  message); offered, with what admission leaves open (webhooks never called, policies not
  evaluated);
- refused by another ValidatingAdmissionPolicy, or another validation of the same one: that
  validation's fields are added and admission runs again (MAX_ROUNDS in all);
- refused by anything else (a LimitRange's max, a ResourceQuota, the pod's validation): the next
  value of each field is tried (a LimitRange default after the container's own request), else
  nothing is offered, and a note says why (never a change that admission then refuses);
- a field podwhy cannot set (no value determinable), or none found: a note names it.

The command patches the owning workload's template (analysis/commands.created_patch_command);
the merge patch is against the workload, its template's containers written whole.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import msgspec

from podwhy.analysis.commands import TEMPLATE_PATHS, created_patch_command
from podwhy.analysis.owners import owner_of
from podwhy.analysis.suggest.facts import Command, ManifestEdit, PolicyFixes, Suggestion
from podwhy.analysis.suggest.patches import merge_diff
from podwhy.analysis.suggest.policy import Choice, candidates
from podwhy.analysis.suggest.policyfacts import (
    ContainerResource,
    FieldSet,
    MetadataKey,
    PolicyFixRefused,
    PolicyNote,
    PolicyNothingFound,
    PolicyValuesUnknown,
    SatisfyPolicy,
)
from podwhy.analysis.suggest.policyfields import requirements
from podwhy.analysis.workloadfacts import RefusalKind, WorkloadFacts, WorkloadState
from podwhy.cluster.admissionopen import VALIDATING_POLICY, AdmissionOpen
from podwhy.cluster.apiserver.admission import limitranger
from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, PolicyDenied
from podwhy.cluster.apiserver.admission.limitranger import namespace_limit_ranges
from podwhy.cluster.apiserver.validation.invalid import InvalidObjectError
from podwhy.cluster.controllers.types import WorkloadPlacement
from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.framework.runtime import Framework
from podwhy.model import objects as o
from podwhy.model import records
from podwhy.scheduler.config import SchedulerConfig, profile_for_pod
from podwhy.scheduler.cycle import make_framework, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import Verdict

# Policies (or validations of one) satisfied one after another; values tried for each field.
MAX_ROUNDS = 3
MAX_ATTEMPTS = 2
# The pod's validation, as the refusal's plugin; LimitRanger's, whose refusal is a PodwhyError.
VALIDATION = "validation"
LIMIT_RANGER = limitranger.NAME

JSON = dict[str, Any]


class RefusedPod(msgspec.Struct, frozen=True):
    """A pod a ValidatingAdmissionPolicy refuses, as its controller makes it (before admission):
    its spec as written (None: the typed pod's), the denial and its words; SOURCE: the manifest of
    a Pod `check` read (it has no workload to patch)."""

    pod: o.Pod
    raw_spec: JSON | None
    denied: PolicyDenied
    words: str
    source: str = ""
    # A CronJob's Job is recreated from the patched CronJob (False: check's, which podwhy made up:
    # the CronJob's next Job gets the change).
    recreate_job: bool = True


class PolicyVerifier(msgspec.Struct):
    """What verifying a change reads: the cluster, the release, the scheduler's configuration;
    ASSUME_WEBHOOKS_ALLOW drops the webhooks left open (check's flag). The profiles' frameworks
    are indexed once, for every pod verified."""

    snapshot: Snapshot
    emulation: Emulation
    config: SchedulerConfig
    assume_webhooks_allow: bool = False
    frameworks: dict[str, Framework] = msgspec.field(default_factory=dict)

    def fixes(self, refused: RefusedPod) -> PolicyFixes:
        """The verified change for REFUSED (at most one), and the notes on what was not offered."""
        notes: list[PolicyNote] = []
        suggestion = _Search(self, refused, notes).run()
        return PolicyFixes((suggestion,) if suggestion is not None else (), tuple(notes))

    # ---- the whole admission, and the scheduling cycle

    def admit(self, pod: o.Pod, raw_spec: JSON | None) -> tuple[o.Pod, AdmissionOpen] | _Refusal:
        """POD through the API server's admission as `check` creates a pod, on a copy of what it
        charges: admitted, with what it leaves open, or the refusal."""
        from podwhy.cluster.apiserver.admission.chain import admit

        snapshot = records.replace(
            self.snapshot,
            resource_quotas=[copy.deepcopy(q) for q in self.snapshot.resource_quotas],
            defaulted={},
            admitted_without={},
            api_warnings=[],
        )
        left_open: list[AdmissionOpen] = []
        try:
            admitted = admit(
                pod, snapshot, pod.metadata.namespace, self.emulation, raw_spec=raw_spec, admission_open=left_open
            )
        except AdmissionRefusalError as refused:
            return _Refusal(refused.plugin, refused.words, refused.denied)
        except InvalidObjectError as invalid:
            return _Refusal(VALIDATION, invalid.words, None)
        except PodwhyError as refused:  # LimitRanger's bounds (said as an error of the input)
            return _Refusal(LIMIT_RANGER, refused.message, None)
        found = left_open[0] if left_open else AdmissionOpen()
        if self.assume_webhooks_allow:
            found = AdmissionOpen(policies=found.policies)
        return admitted, found

    def fit(self, pod: o.Pod) -> tuple[Verdict, list[str], str]:
        """The admitted POD's scheduling cycle: its verdict, the nodes it fits on, the scheduler's
        message when it does not."""
        profile = profile_for_pod(self.config, pod)
        if profile is None:
            return Verdict.NO_PROFILE, [], ""
        names = frozenset(p.scheduler_name for p in self.config.profiles)
        framework = self.frameworks.get(profile.scheduler_name)
        if framework is None:
            framework = self.frameworks[profile.scheduler_name] = make_framework(self.snapshot, profile, names)
        cycle = run_cycle(
            self.snapshot, pod, profile, extenders=self.config.extenders, scheduler_names=names, framework=framework
        )
        fits = cycle.verdict in (Verdict.SCHEDULABLE, Verdict.INCONCLUSIVE) and cycle.outcome is not None
        return cycle.verdict, list(cycle.outcome.feasible) if fits and cycle.outcome else [], cycle.message


class _Refusal(msgspec.Struct, frozen=True):
    """Admission's refusal of the pod (with SETS made), by PLUGIN, in the API server's WORDS."""

    plugin: str
    words: str
    denied: PolicyDenied | None
    sets: tuple[FieldSet, ...] = ()


class _Search(msgspec.Struct):
    """One refused pod's search: each round reads the failing validation, adds its fields, and
    admits the changed pod."""

    verifier: PolicyVerifier
    refused: RefusedPod
    notes: list[PolicyNote]
    chosen: list[Choice] = msgspec.field(default_factory=list)
    # The policies and validations read so far, in order.
    read: list[tuple[str, int]] = msgspec.field(default_factory=list)

    def run(self) -> Suggestion | None:
        last = _Refusal(VALIDATING_POLICY, self.refused.words, self.refused.denied)
        for _ in range(MAX_ROUNDS):
            assert last.denied is not None
            index = _index_of(self.verifier.snapshot, last)
            if index is None:  # not a validation false of the pod: an error's, a configuration's
                if not self.read:
                    return None  # nothing of the pod's to change
                break
            if not self._read(last.denied.policy, index):
                return None
            outcome = self._attempts()
            if not isinstance(outcome, _Refusal):
                return outcome
            last = outcome
            if last.denied is None or (last.denied.policy, _index_of(self.verifier.snapshot, last)) in self.read:
                break  # refused by the rest of admission, or the same validation still fails
        self._refused(last)
        return None

    def _read(self, name: str, index: int) -> bool:
        """The fields of the policy NAME's failing validation INDEX added to the change; False (a
        note says why) when there is nothing podwhy can set."""
        policy = self.verifier.snapshot.validating_admission_policies[name]
        self.read.append((name, index))
        expression = policy.spec.validations[index].expression
        found = requirements(expression, {v.name: v.expression for v in policy.spec.variables})
        pod, raw_spec = self._changed(tuple(c.options[0] for c in self.chosen))
        try:
            seen = _seen_object(self.verifier, pod, raw_spec)
        except PodwhyError as refused:  # the changed pod's mutation refused (a MutatingAdmissionPolicy)
            sets = tuple(c.options[0] for c in self.chosen)
            plugin = refused.plugin if isinstance(refused, AdmissionRefusalError) else ""
            self.notes.append(PolicyFixRefused(self.refused.denied.policy, sets, plugin, refused.message))
            return False
        ranges = namespace_limit_ranges(self.verifier.snapshot.limit_ranges, pod.metadata.namespace)
        choices, unset = candidates(found, seen, ranges)
        choices = [c for c in choices if _op(self.refused.pod, c.options[0]) is not None]
        if unset:
            self.notes.append(PolicyValuesUnknown(name, index, tuple(unset)))
            return False
        if not choices:
            self.notes.append(PolicyNothingFound(name, index, expression))
            return False
        self.chosen += choices
        return True

    def _attempts(self) -> Suggestion | _Refusal:
        """The change with each field's first value, then its next ones: the first admitted, else
        the last refusal (at once when a policy refuses it: the next round reads it)."""
        tried: set[tuple[FieldSet, ...]] = set()
        last: _Refusal | None = None
        for attempt in range(MAX_ATTEMPTS):
            sets = tuple(c.options[min(attempt, len(c.options) - 1)] for c in self.chosen)
            if sets in tried:
                break
            tried.add(sets)
            pod, raw_spec = self._changed(sets)
            admitted = self.verifier.admit(pod, raw_spec)
            if not isinstance(admitted, _Refusal):
                return self._suggestion(sets, *admitted)
            last = records.replace(admitted, sets=sets)
            if admitted.plugin == VALIDATING_POLICY:
                break
        assert last is not None
        return last

    def _refused(self, refusal: _Refusal) -> None:
        sets = refusal.sets or tuple(c.options[0] for c in self.chosen)
        self.notes.append(PolicyFixRefused(self.refused.denied.policy, sets, refusal.plugin, refusal.words))

    def _changed(self, sets: Sequence[FieldSet]) -> tuple[o.Pod, JSON | None]:
        """The refused pod, before admission, with SETS made (its spec as written too)."""
        ops = [op for s in sets if (op := _op(self.refused.pod, s)) is not None]
        doc = msgspec.json.decode(msgspec.json.encode(self.refused.pod))
        raw = copy.deepcopy(self.refused.raw_spec)
        for op in ops:
            _set(doc, op["path"], op["value"])
            if raw is not None and op["path"].startswith("/spec/"):
                _set(raw, op["path"].removeprefix("/spec"), op["value"])
        return msgspec.json.decode(msgspec.json.encode(doc), type=o.Pod), raw

    def _suggestion(self, sets: tuple[FieldSet, ...], admitted: o.Pod, left_open: AdmissionOpen) -> Suggestion:
        verifier, pod = self.verifier, self.refused.pod
        verdict, nodes, message = verifier.fit(admitted)
        owner = owner_of(pod, verifier.snapshot)
        kind, namespace, name = (owner.kind, owner.namespace, owner.name) if owner else ("Pod", *_pod_key(pod))
        first = self.read[0][0]
        change = SatisfyPolicy(
            kind=kind,
            namespace=namespace,
            name=name,
            policy=first,
            validation=self.read[0][1],
            sets=sets,
            verdict=verdict,
            message=message if verdict != Verdict.SCHEDULABLE else "",
            also=tuple(dict.fromkeys(p for p, _ in self.read if p != first)),
            webhooks=tuple(w.name for w in left_open.webhooks),
            unevaluated=tuple(dict.fromkeys(p.policy for p in left_open.policies)),
        )
        ops = [op for s in sets if (op := _op(pod, s)) is not None]
        command = created_patch_command(pod, verifier.snapshot, ops, recreate_job=self.refused.recreate_job)
        if command is None:
            command = Command("", ManifestEdit(self.refused.source)) if self.refused.source else Command("")
        return Suggestion(change, nodes, [self._patch(kind, namespace, name, ops)], command)

    def _patch(self, kind: str, namespace: str, name: str, ops: list[JSON]) -> JSON:
        """The merge patch of the change against the workload (its template's containers whole)."""
        pod = self.refused.pod
        spec = self.refused.raw_spec
        template: JSON = {
            "metadata": {"labels": dict(pod.metadata.labels), "annotations": dict(pod.metadata.annotations)},
            "spec": copy.deepcopy(spec) if spec is not None else msgspec.to_builtins(pod.spec),
        }
        changed = copy.deepcopy(template)
        for op in ops:
            _set(changed, op["path"], op["value"])
        patch = merge_diff(template, changed)
        for part in reversed(TEMPLATE_PATHS.get(kind, "").split("/")[1:]):
            patch = {part: patch}
        return {"kind": kind, "namespace": namespace, "name": name, "patch": patch}


def _pod_key(pod: o.Pod) -> tuple[str, str]:
    return pod.metadata.namespace, pod.metadata.name


def _index_of(snapshot: Snapshot, refusal: _Refusal) -> int | None:
    denied = refusal.denied
    if denied is None:
        return None
    return _validation_index(
        snapshot.validating_admission_policies.get(denied.policy), denied.validation, refusal.words
    )


def _validation_index(policy: o.ValidatingAdmissionPolicy | None, index: int | None, words: str) -> int | None:
    """The failing validation: the denial's index, else the one whose expression its error quotes
    (`expression '...' resulted in error: ...`)."""
    if policy is None:
        return None
    validations = policy.spec.validations
    if index is not None:
        return index if index < len(validations) else None
    return next((i for i, v in enumerate(validations) if f"expression '{v.expression}'" in words), None)


def _seen_object(verifier: PolicyVerifier, pod: o.Pod, raw_spec: JSON | None) -> JSON:
    """POD as the policies see it (defaulted, through the mutating plugins), as JSON."""
    from podwhy.analysis.refusals import admitted_object

    copied = msgspec.json.decode(msgspec.json.encode(pod), type=o.Pod)
    return admitted_object(verifier.snapshot, copied, copy.deepcopy(raw_spec), verifier.emulation)


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _op(pod: o.Pod, change: FieldSet) -> JSON | None:
    """CHANGE as an RFC 6902 add op relative to POD (None: its container is not the pod's)."""
    ref = change.field
    if isinstance(ref, ContainerResource):
        kind = "initContainers" if ref.init else "containers"
        containers = pod.spec.init_containers if ref.init else pod.spec.containers
        index = next((i for i, c in enumerate(containers) if c.name == ref.container), None)
        if index is None:
            return None
        path = f"/spec/{kind}/{index}/resources/{ref.kind}/{_escaped(ref.resource)}"
    elif isinstance(ref, MetadataKey):
        path = f"/metadata/{ref.kind}/{_escaped(ref.key)}"
    else:
        return None
    return {"op": "add", "path": path, "value": change.value}


def _set(doc: Any, pointer: str, value: Any) -> None:
    """DOC's member at POINTER (RFC 6901) set to VALUE, the objects on the way made as needed."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    target = doc
    for part in parts[:-1]:
        if isinstance(target, list):
            target = target[int(part)]
            continue
        if not isinstance(target.get(part), (dict, list)):
            target[part] = {}
        target = target[part]
    target[parts[-1]] = value


# ---- where the refused pods come from: explain's and pending's workloads, check's manifests

# pending: the workloads (most events first) whose refusal gets a suggestion.
MAX_WORKLOADS = 5


def workload_fixes(verifier: PolicyVerifier, facts: WorkloadFacts) -> PolicyFixes | None:
    """For the first of the workload's FailedCreate events whose policy, re-evaluated on the
    template of the object the event is about, still refuses: what is suggested (None: no such
    event, or the snapshot does not keep the template)."""
    from podwhy.analysis.refusals import refused_pod

    for event in facts.events:
        refusal, recheck = event.refusal, event.refusal.policy
        if refusal.kind is not RefusalKind.POLICY or recheck is None or recheck.denies is not True:
            continue
        made = refused_pod(verifier.snapshot, (event.owner_kind, event.owner), facts.namespace, refusal.text)
        if made is None:
            continue
        pod, template = made
        spec = template.get("spec")
        denied = PolicyDenied(recheck.policy, recheck.now_binding or recheck.binding, recheck.expression_index)
        return verifier.fixes(RefusedPod(pod, spec if isinstance(spec, dict) else None, denied, recheck.message))
    return None


def with_policy_fixes(
    snapshot: Snapshot,
    facts: Sequence[WorkloadFacts],
    config: SchedulerConfig,
    emulation: Emulation,
    frameworks: dict[str, Framework] | None = None,
) -> list[WorkloadFacts]:
    """FACTS, those whose pods a policy refuses (the first MAX_WORKLOADS) with what is suggested.
    FRAMEWORKS: the profiles' over SNAPSHOT by schedulerName, when the caller has indexed them."""
    verifier = PolicyVerifier(snapshot, emulation, config, frameworks={} if frameworks is None else frameworks)
    out: list[WorkloadFacts] = []
    tried = 0
    for facts_of in facts:
        refused = facts_of.state is WorkloadState.NOT_CREATED and tried < MAX_WORKLOADS
        fixes = workload_fixes(verifier, facts_of) if refused else None
        tried += fixes is not None
        out.append(records.replace(facts_of, fixes=fixes) if fixes is not None else facts_of)
    return out


def check_fixes(
    snapshot: Snapshot,
    placements: Sequence[WorkloadPlacement],
    config: SchedulerConfig,
    emulation: Emulation,
    assume_webhooks_allow: bool = False,
) -> dict[str, PolicyFixes]:
    """`check`: for each workload of the manifests a policy refuses a pod of (its first such
    replica), what is suggested, by the workload's key; verified on the cluster as placing the
    manifests left it."""
    verifier = PolicyVerifier(snapshot, emulation, config, assume_webhooks_allow)
    out: dict[str, PolicyFixes] = {}
    for placement in placements:
        workload = placement.workload
        refused = workload.policy_refused
        if refused is None:
            continue
        source = workload.source if workload.kind == "Pod" else ""
        made = RefusedPod(refused.pod, refused.raw_spec, refused.denied, refused.words, source, recreate_job=False)
        fixes = verifier.fixes(made)
        if fixes:
            out[workload.key] = fixes
    return out
