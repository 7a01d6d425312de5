"""The admission plugins of the API server's policies and webhooks over one request, in
AllOrderedPlugins' order: MutatingAdmissionPolicy applies its mutations (policy/mutating.py, the
pod's JSON patched, then read back into the typed pod), MutatingAdmissionWebhook and
ValidatingAdmissionWebhook are never called (the webhooks a request meets are named, their
failurePolicy kept, as not evaluated), and ValidatingAdmissionPolicy is evaluated: every policy
and binding the request meets (policy/matching.py), each binding's params looked up (policy/
params.py) and the binding dispatched (policy/validating.py), their verdict. What a policy reads
that podwhy does not hold (params the snapshot cannot vouch for, the authorizer) is not
evaluated, never guessed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgspec

from podwhy.cluster import admissionopen
from podwhy.cluster.admissionopen import MUTATING_POLICY, VALIDATING_POLICY, AdmissionOpen, OpenPolicy, OpenWebhook
from podwhy.cluster.apiserver.admission.attributes import AdmissionRefusalError, Attributes, PolicyDenied
from podwhy.cluster.apiserver.admission.podobject import pod_object
from podwhy.cluster.apiserver.admission.policy import mutating as m
from podwhy.cluster.apiserver.admission.policy import params as p
from podwhy.cluster.apiserver.admission.policy import validating as v
from podwhy.cluster.apiserver.admission.policy.cel import admission_request, namespace_object
from podwhy.cluster.apiserver.admission.policy.matching import matching_policies
from podwhy.cluster.apiserver.admission.policy.patch.schema import schema_for
from podwhy.cluster.apiserver.admission.policy.products import recognize
from podwhy.cluster.apiserver.admission.policy.request import Request, request_for
from podwhy.cluster.apiserver.admission.policy.webhooks import WebhookError, WebhookInvocation, matching_webhooks
from podwhy.cluster.apiserver.defaults import default_pod_spec, default_template
from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.features.kubefeatures import MUTATING_ADMISSION_POLICY
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.verdict import ExitCode

MUTATING_WEBHOOK = "MutatingAdmissionWebhook"
VALIDATING_WEBHOOK = "ValidatingAdmissionWebhook"

# What podwhy does not evaluate, as facts (report/ words them).
PARAMS = admissionopen.PARAMS


class PolicyGap(msgspec.Struct, frozen=True):
    """A policy and binding the request meets whose decision podwhy cannot make: WHAT it reads
    that podwhy does not hold (PARAMS, or CEL's `authorizer`); for PARAMS, why they could not be
    looked up (policy/params.py's facts: WHY, the PARAM_KIND, what it names in DETAIL)."""

    policy: str
    binding: str | None
    what: str
    why: str = ""
    param_kind: str = ""
    detail: str = ""


def _params_gap(policy: str, binding: str | None, gap: p.ParamsGap) -> PolicyGap:
    return PolicyGap(policy, binding, PARAMS, gap.why, gap.param_kind, gap.detail)


class PoliciesAnswer(msgspec.Struct, frozen=True):
    """The policies' and webhooks' part in admitting one object: the ValidatingAdmissionPolicy
    verdict (its first denial refuses the object; its warnings reach `kubectl apply`), what of it
    was not evaluated, and the webhooks (mutating, then validating) the object would be sent to."""

    verdict: v.Verdict
    gaps: tuple[PolicyGap, ...] = ()
    webhooks: tuple[WebhookInvocation | WebhookError, ...] = ()


def _policy(policy: o.ValidatingAdmissionPolicy) -> v.Policy:
    spec = policy.spec
    return v.Policy(
        name=policy.metadata.name,
        validations=tuple(
            v.Validation(x.expression, x.message, x.message_expression, x.reason or "") for x in spec.validations
        ),
        variables=tuple(v.Variable(x.name, x.expression) for x in spec.variables),
        match_conditions=tuple(v.MatchCondition(x.name, x.expression) for x in spec.match_conditions),
        audit_annotations=tuple(v.AuditAnnotation(x.key, x.value_expression) for x in spec.audit_annotations),
        failure_policy=spec.failure_policy,
        has_param_kind=spec.param_kind is not None,
    )


def _binding(binding: o.ValidatingAdmissionPolicyBinding) -> v.Binding:
    ref = binding.spec.param_ref
    return v.Binding(
        name=binding.metadata.name,
        validation_actions=tuple(binding.spec.validation_actions),
        has_param_ref=ref is not None,
        parameter_not_found_action=(ref.parameter_not_found_action if ref is not None else None) or v.DENY,
    )


def _policy_request(request: Request) -> v.PolicyRequest:
    kind, resource = request.kind, request.resource
    return v.PolicyRequest(
        object=request.object,
        old_object=request.old_object,
        request=admission_request(
            kind.group,
            kind.version,
            kind.kind,
            resource.resource,
            request.name,
            request.namespace,
            request.operation,
        ),
        namespace_object=namespace_object(request.namespace_object),
    )


_COMPILED: dict[tuple[str, str], v.CompiledPolicy] = {}


def _compiled(policy: v.Policy, version: str) -> v.CompiledPolicy:
    """A policy's expressions compiled once per resourceVersion (the API server recompiles on change)."""
    key = (policy.name, version)
    found = _COMPILED.get(key)
    if found is None or found.policy != policy:
        found = _COMPILED[key] = v.compile_policy(policy)
    return found


_Source = p.ParamSource | p.PolicySkipped | p.ParamsGap | str


def _param_sources(
    snapshot: Snapshot, policies: Mapping[str, o.ValidatingAdmissionPolicy | o.MutatingAdmissionPolicy]
) -> dict[str, _Source]:
    """Each policy's paramKind resolved (policy_source.go's calculatePolicyData), by policy name."""
    return {
        name: p.param_source(snapshot.params, policy.spec.param_kind)
        for name, policy in policies.items()
        if policy.spec.param_kind is not None
    }


_P = TypeVar("_P", o.ValidatingAdmissionPolicy, o.MutatingAdmissionPolicy)


def _among_the_servers(snapshot: Snapshot, policies: Mapping[str, _P]) -> tuple[dict[str, _Source], dict[str, _P]]:
    """Each policy's paramKind resolved, and the policies the API server holds: one whose paramKind
    does not parse is not among them (policy_source.go leaves it out)."""
    sources = _param_sources(snapshot, policies)
    kept = {name: policy for name, policy in policies.items() if not isinstance(sources.get(name), p.PolicySkipped)}
    return sources, kept


def validate_policies(snapshot: Snapshot, request: Request) -> tuple[v.Verdict, tuple[PolicyGap, ...]]:
    """ValidatingAdmissionPolicy's Validate on REQUEST over the snapshot's policies and bindings:
    each binding's params looked up (policy/params.py), the policy evaluated once with each."""
    outcomes: list[v.BindingOutcome] = []
    gaps: list[PolicyGap] = []
    cel_request = _policy_request(request)
    sources, policies = _among_the_servers(snapshot, snapshot.validating_admission_policies)
    found = matching_policies(policies, snapshot.validating_admission_policy_bindings.values(), request)
    for match in found:
        policy = _policy(match.policy)
        source = sources.get(policy.name)
        if match.definition.error is not None:
            outcomes.append(v.configuration_error(policy, None, match.definition.error.message))
            continue
        if isinstance(source, str):  # the hook's ConfigurationError: no binding is evaluated
            outcomes.append(v.configuration_error(policy, None, source))
            continue
        if isinstance(source, p.ParamsGap):  # whether it is one, the snapshot cannot tell
            gaps.append(_params_gap(policy.name, None, source))
            continue
        for binding_obj, error in match.binding_errors:
            outcomes.append(v.configuration_error(policy, _binding(binding_obj), error.message))
        compiled = _compiled(policy, match.policy.metadata.resource_version or "")
        for binding_obj in match.bindings:
            binding = _binding(binding_obj)
            found_params: list[Any] = []
            ref = binding_obj.spec.param_ref
            if isinstance(source, p.ParamSource) and ref is not None:
                collected = p.collect(snapshot.params, source, ref, request.namespace)
                if isinstance(collected, p.ParamsGap):
                    gaps.append(_params_gap(policy.name, binding.name, collected))
                    continue
                if isinstance(collected, str):
                    outcomes.append(v.configuration_error(policy, binding, collected))
                    continue
                found_params = [param.json for param in collected]
            outcome = v.dispatch_binding(policy, binding, cel_request, found_params, compiled=compiled)
            outcomes.append(outcome)
            gaps += [PolicyGap(policy.name, binding.name, d.not_evaluated) for d in outcome.not_evaluated]
    return v.verdict(outcomes), tuple(gaps)


def _conditions_may_hold(invocation: WebhookInvocation, request: Request) -> bool:
    """Whether the webhook's matchConditions may let it be called: False only when one is false."""
    if not invocation.match_conditions:
        return True
    conditions = tuple(v.MatchCondition(c.name, c.expression) for c in invocation.match_conditions)
    policy = v.Policy(name=invocation.uid, match_conditions=conditions, failure_policy=invocation.failure_policy)
    # Compiled once per webhook, not per pod (_compiled recompiles when the conditions change).
    return v.conditions_hold(_compiled(policy, ""), _policy_request(request)) is not False


def webhooks_met(snapshot: Snapshot, request: Request) -> tuple[WebhookInvocation | WebhookError, ...]:
    """The webhooks REQUEST would be sent to, mutating then validating, those whose matchConditions
    are false left out."""
    out: list[WebhookInvocation | WebhookError] = []
    for configurations in (snapshot.mutating_webhook_configurations, snapshot.validating_webhook_configurations):
        for met in matching_webhooks(configurations, request):
            if isinstance(met, WebhookError) or _conditions_may_hold(met, request):
                out.append(met)
    return tuple(out)


def namespace_json(snapshot: Snapshot, namespace: str) -> dict[str, Any] | None:
    """The Namespace as JSON, for selectors and CEL (None: the snapshot has no such Namespace)."""
    ns = snapshot.namespaces.get(namespace)
    return None if ns is None else msgspec.to_builtins(ns)


def admit_object(snapshot: Snapshot, obj: Mapping[str, Any], namespace: str) -> PoliciesAnswer:
    """What the policies and webhooks do to the creation of OBJ (JSON of a kind podwhy creates) in
    NAMESPACE."""
    request = request_for(obj, namespace_json(snapshot, namespace) if namespace else None)
    verdict, gaps = validate_policies(snapshot, request)
    return PoliciesAnswer(verdict, gaps, webhooks_met(snapshot, request))


def holds_any(snapshot: Snapshot) -> bool:
    """Whether the snapshot has any policy binding or webhook configuration (else nothing to do)."""
    return bool(
        snapshot.validating_admission_policy_bindings
        or snapshot.validating_webhook_configurations
        or snapshot.mutating_webhook_configurations
    )


def _open_webhook(met: WebhookInvocation | WebhookError, on: str = "") -> OpenWebhook:
    webhook = met.webhook
    product = recognize(webhook)
    return OpenWebhook(
        name=webhook.name,
        configuration=met.configuration,
        failure_policy=webhook.failure_policy,
        mutating=isinstance(webhook, o.MutatingWebhook),
        product=product.value if product is not None else "",
        error=met.error.message if isinstance(met, WebhookError) else "",
        on=on,
    )


def open_of(answer: PoliciesAnswer, on: str = "") -> AdmissionOpen:
    """What of ANSWER podwhy leaves open, as the placement's fact (ON: the object admitted, when
    not the pod)."""
    return AdmissionOpen(
        webhooks=tuple(_open_webhook(met, on) for met in answer.webhooks),
        policies=tuple(
            OpenPolicy(g.policy, g.binding, g.what, why=g.why, param_kind=g.param_kind, detail=g.detail, on=on)
            for g in answer.gaps
        ),
    )


def validate_pod(pod: o.Pod, attributes: Attributes) -> None:
    """The policies' and webhooks' part in creating POD, after the built-in validating plugins and
    before ResourceQuota: a policy's denial refuses it (AdmissionRefusalError, the API server's
    words); the warnings of a Pod applied by `kubectl apply` are printed as kubectl prints them;
    webhooks met and policies not evaluated are left open on ATTRIBUTES."""
    snapshot = attributes.snapshot
    if not holds_any(snapshot):
        return
    obj = pod_object(pod, attributes.raw_spec, attributes.emulation)
    answer = admit_object(snapshot, obj, pod.metadata.namespace)
    denial = answer.verdict.denial
    if denial is not None:
        cause = f"policy {denial.policy}" + (f", binding {denial.binding}" if denial.binding else "")
        denied = PolicyDenied(denial.policy, denial.binding, denial.expression_index)
        raise AdmissionRefusalError(pod, VALIDATING_POLICY, denial.text, cause, denied=denied)
    if not any(ref.controller for ref in pod.metadata.owner_references):  # `kubectl apply` of a Pod
        key = f"Pod {pod.metadata.namespace}/{pod.metadata.name}"
        snapshot.api_warnings.extend((key, warning) for warning in answer.verdict.warnings)
    found = open_of(answer)
    attributes.open = AdmissionOpen(found.webhooks, attributes.open.policies + found.policies)


# The resource each workload kind is created as, for the refusal's words (`deployments.apps "web"`).
_RESOURCES = {
    "Deployment": "deployments.apps",
    "ReplicaSet": "replicasets.apps",
    "StatefulSet": "statefulsets.apps",
    "DaemonSet": "daemonsets.apps",
    "Job": "jobs.batch",
    "CronJob": "cronjobs.batch",
    "ReplicationController": "replicationcontrollers",
}


class ObjectDeniedError(PodwhyError):
    """A ValidatingAdmissionPolicy refuses to create a workload of the manifests: `kubectl apply`
    of it fails, nothing of it is created (exit 1, as for a replica that stays Pending)."""

    exit_code = int(ExitCode.NOT_SCHEDULED)


def admit_workload(
    snapshot: Snapshot, document: Mapping[str, Any], kind: str, namespace: str, emulation: Emulation, source: str
) -> PoliciesAnswer | None:
    """The policies on `kubectl apply` creating the workload DOCUMENT (its JSON as written, its
    pod template defaulted as the API server stores it): a denial raises ObjectDeniedError in the
    API server's words; its warnings are kubectl's. None when nothing is configured."""
    if not holds_any(snapshot) or not isinstance(document, Mapping):
        return None
    obj = dict(document)
    metadata = dict(obj.get("metadata") or {})
    metadata["namespace"] = metadata.get("namespace") or namespace
    obj["metadata"] = metadata
    spec = obj.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("template"), dict):
        obj["spec"] = {**spec, "template": default_template(spec["template"], emulation)}
    answer = admit_object(snapshot, obj, metadata["namespace"])
    name = str(metadata.get("name", ""))
    denial = answer.verdict.denial
    if denial is not None:
        _refuse_object(kind, name, source, denial.text)
    key = f"{kind} {metadata['namespace']}/{name}"
    snapshot.api_warnings.extend((key, warning) for warning in answer.verdict.warnings)
    return answer


def _refuse_object(kind: str, name: str, source: str, text: str) -> None:
    words = f'{_RESOURCES.get(kind, kind.lower())} "{name}" is forbidden: {text}'
    raise ObjectDeniedError(
        f'{source}: Error from server: error when creating "{source}": {words}',
        hint="the API server refuses this object: `kubectl apply` fails and nothing of it is created",
    )


# ------------------------------------------------------------------ MutatingAdmissionPolicy


def _mutating_policy(policy: o.MutatingAdmissionPolicy) -> m.MutatingPolicy:
    spec = policy.spec
    mutations = []
    for mutation in spec.mutations:
        source = mutation.apply_configuration if mutation.patch_type == m.APPLY_CONFIGURATION else mutation.json_patch
        if source is not None:  # compilePolicy skips a mutation without its patch type's field
            mutations.append(m.Mutation(mutation.patch_type, source.expression))
    return m.MutatingPolicy(
        name=policy.metadata.name,
        mutations=tuple(mutations),
        variables=tuple(v.Variable(x.name, x.expression) for x in spec.variables),
        match_conditions=tuple(v.MatchCondition(x.name, x.expression) for x in spec.match_conditions),
        failure_policy=spec.failure_policy,
        reinvocation_policy=spec.reinvocation_policy or m.NEVER,
        has_param_kind=spec.param_kind is not None,
    )


_COMPILED_MUTATING: dict[tuple[str, str], m.CompiledMutatingPolicy] = {}


def _compiled_mutating(policy: m.MutatingPolicy, version: str) -> m.CompiledMutatingPolicy:
    key = (policy.name, version)
    found = _COMPILED_MUTATING.get(key)
    if found is None or found.policy != policy:
        found = _COMPILED_MUTATING[key] = m.compile_mutating_policy(policy)
    return found


def _configuration_refusal(policy: m.MutatingPolicy, binding: str | None, error: str) -> tuple[m.Refusal, ...]:
    """The dispatcher's addConfigError, filtered by the policy's failurePolicy."""
    if policy.failure_policy == v.IGNORE:
        return ()
    message = f"failed to configure {'policy' if binding is None else 'binding'}: {error}"
    return (m.Refusal(policy.name, binding, message),)


def _binding_params(snapshot: Snapshot, source: _Source | None, ref: o.ParamRef | None, namespace: str) -> Any:
    """generic.CollectParams for a MutatingAdmissionPolicyBinding: the params objects to invoke it
    with ([None] without paramKind or paramRef), a gap, or its configuration error (a string)."""
    if not isinstance(source, p.ParamSource) or ref is None:
        return [None]
    collected = p.collect(snapshot.params, source, ref, namespace)
    if isinstance(collected, p.ParamsGap | str):
        return collected
    if not collected and (ref.parameter_not_found_action or v.DENY) == v.DENY:
        return v.NO_PARAMS_DENY
    return [param.json for param in collected]


def mutating_invocations(
    snapshot: Snapshot, request: Request
) -> tuple[list[m.Invocation], list[m.Refusal], list[PolicyGap]]:
    """The MutatingAdmissionPolicies, bindings and params REQUEST meets, in the server's order
    (policy_dispatcher.go Dispatch), with the configuration errors found, and the bindings not
    evaluated (params the snapshot cannot vouch for, as for a ValidatingAdmissionPolicy)."""
    invocations: list[m.Invocation] = []
    refusals: list[m.Refusal] = []
    gaps: list[PolicyGap] = []
    sources, policies = _among_the_servers(snapshot, snapshot.mutating_admission_policies)
    found = matching_policies(policies, snapshot.mutating_admission_policy_bindings.values(), request)
    for match in found:
        policy = _mutating_policy(match.policy)
        source = sources.get(policy.name)
        if match.definition.error is not None:
            refusals += _configuration_refusal(policy, None, match.definition.error.message)
            continue
        if isinstance(source, str):  # the hook's ConfigurationError
            refusals += _configuration_refusal(policy, None, source)
            continue
        if isinstance(source, p.ParamsGap):
            gaps.append(_params_gap(policy.name, None, source))
            continue
        for binding_obj, error in match.binding_errors:
            refusals += _configuration_refusal(policy, binding_obj.metadata.name, error.message)
        compiled = _compiled_mutating(policy, match.policy.metadata.resource_version or "")
        for binding_obj in match.bindings:
            name = binding_obj.metadata.name
            params = _binding_params(snapshot, source, binding_obj.spec.param_ref, request.namespace)
            if isinstance(params, p.ParamsGap):
                gaps.append(_params_gap(policy.name, name, params))
            elif isinstance(params, str):
                refusals += _configuration_refusal(policy, name, params)
            else:
                invocations += [m.Invocation(compiled, name, param) for param in params]
    return invocations, refusals, gaps


def _open_mutating(gap: PolicyGap) -> OpenPolicy:
    return OpenPolicy(
        gap.policy, gap.binding, gap.what, MUTATING_POLICY, why=gap.why, param_kind=gap.param_kind, detail=gap.detail
    )


def _pod_defaulter(emulation: Emulation) -> Callable[[Any], Any]:
    """The API server's defaulting of the patched pod (the dispatcher defaults after each patch)."""

    def default(obj: Any) -> Any:
        spec = obj.get("spec") if isinstance(obj, dict) else None
        if isinstance(spec, dict):
            default_pod_spec(spec, emulation, pod=True)
        return obj

    return default


def _typed_back(pod: o.Pod, obj: dict[str, Any]) -> dict[str, Any]:
    """The patched pod's JSON read back into POD (its spec, labels and annotations), returning the
    spec as written for what reads it next; an object that does not decode is refused."""
    found_spec, found_metadata = obj.get("spec"), obj.get("metadata")
    spec: dict[str, Any] = found_spec if isinstance(found_spec, dict) else {}
    metadata: dict[str, Any] = found_metadata if isinstance(found_metadata, dict) else {}
    try:
        pod.spec = msgspec.convert(spec, type(pod.spec))
        pod.metadata.labels = msgspec.convert(metadata.get("labels") or {}, dict[str, str])
        pod.metadata.annotations = msgspec.convert(metadata.get("annotations") or {}, dict[str, str])
    except msgspec.ValidationError as exc:
        raise AdmissionRefusalError(
            pod, MUTATING_POLICY, f"Internal error occurred: {exc}", "the patched pod does not decode", words=str(exc)
        ) from exc
    return spec


def admit_pod(pod: o.Pod, attributes: Attributes) -> None:
    """MutatingAdmissionPolicy's Admit on creating POD, after the built-in mutating plugins and
    before MutatingAdmissionWebhook: every policy and binding it meets mutates the pod's JSON in
    turn, read back into POD (and ATTRIBUTES' raw spec, what the policies after it read); each
    changed field is recorded as the API server's (apiServerDefaults). A refusal raises
    AdmissionRefusalError in the API server's words (`policy 'P' with binding 'B' denied request:
    ...`). Where the release's gate is off by default, a snapshot holding MutatingAdmissionPolicies
    is a cluster that turned it on. Called again on the reinvocation (ATTRIBUTES.reinvoke)."""
    snapshot = attributes.snapshot
    enabled = attributes.emulation.enabled(MUTATING_ADMISSION_POLICY) or bool(snapshot.mutating_admission_policies)
    if not enabled or not snapshot.mutating_admission_policy_bindings:
        return
    obj = pod_object(pod, attributes.raw_spec, attributes.emulation)
    request = request_for(obj, namespace_json(snapshot, pod.metadata.namespace))
    invocations, refusals, gaps = mutating_invocations(snapshot, request)
    context = attributes.reinvocation if attributes.reinvocation is not None else m.ReinvocationContext()
    reinvoking = attributes.reinvocation is not None
    attributes.reinvocation = context
    outcome = m.admit(
        invocations,
        _policy_request(request),
        "v1/Pod",
        schema_for(attributes.emulation.minor),
        _pod_defaulter(attributes.emulation),
        context,
        reinvoking=reinvoking,
        refusals=refusals,
    )
    gaps += [PolicyGap(d.policy, d.binding, d.not_evaluated) for d in outcome.not_evaluated]
    if gaps:
        found = tuple(_open_mutating(g) for g in gaps)
        attributes.open = AdmissionOpen(attributes.open.webhooks, attributes.open.policies + found)
    if outcome.refusal is not None:
        cause = f"policy {outcome.refusal.policy}" + (
            f", binding {outcome.refusal.binding}" if outcome.refusal.binding else ""
        )
        text = outcome.refusal.text
        raise AdmissionRefusalError(pod, MUTATING_POLICY, text, cause, words=text)
    attributes.reinvoke = context.should_reinvoke and not reinvoking
    if outcome.object == obj:
        return
    for done in outcome.mutations:
        why = f"{MUTATING_POLICY} '{done.policy}'"
        attributes.defaulted += [(f, value, why) for f, value in m.changed_fields(obj, done.object) if f]
        obj = done.object
    attributes.raw_spec = _typed_back(pod, outcome.object)


# The group/version/kind of each workload kind as the schema's roots name them.
_WORKLOAD_GVK = {
    "Deployment": "apps/v1/Deployment",
    "ReplicaSet": "apps/v1/ReplicaSet",
    "StatefulSet": "apps/v1/StatefulSet",
    "DaemonSet": "apps/v1/DaemonSet",
    "Job": "batch/v1/Job",
    "CronJob": "batch/v1/CronJob",
}
# What podwhy does not hold to apply a mutation: the kind's served schema (ReplicationController's).
SCHEMA = "schema"


class MutatedObject(msgspec.Struct, frozen=True):
    """A workload as MutatingAdmissionPolicies leave it on `kubectl apply`: its JSON (None when
    nothing changed it), each changed field with the policy that changed it, and the bindings
    podwhy could not evaluate."""

    obj: dict[str, Any] | None
    changed: tuple[tuple[str, str, str], ...] = ()
    open: tuple[OpenPolicy, ...] = ()


def _template_defaulter(emulation: Emulation) -> Callable[[Any], Any]:
    """The API server's defaulting of a patched workload's pod template."""

    def default(obj: Any) -> Any:
        spec = obj.get("spec") if isinstance(obj, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("template"), dict):
            spec["template"] = default_template(spec["template"], emulation)
        return obj

    return default


def mutate_workload(
    snapshot: Snapshot, document: Mapping[str, Any], kind: str, namespace: str, emulation: Emulation, source: str
) -> MutatedObject:
    """MutatingAdmissionPolicy's Admit on `kubectl apply` creating the workload DOCUMENT (its pod
    template defaulted as the API server stores it), reinvoked once when a mutation changed it
    and a policy asks (IfNeeded; no webhook runs between, podwhy calls none). A refusal raises
    ObjectDeniedError in the API server's words."""
    enabled = emulation.enabled(MUTATING_ADMISSION_POLICY) or bool(snapshot.mutating_admission_policies)
    if not enabled or not snapshot.mutating_admission_policy_bindings or not isinstance(document, Mapping):
        return MutatedObject(None)
    obj = dict(document)
    metadata = dict(obj.get("metadata") or {})
    metadata["namespace"] = metadata.get("namespace") or namespace
    obj["metadata"] = metadata
    obj = _template_defaulter(emulation)(obj)
    request = request_for(obj, namespace_json(snapshot, metadata["namespace"]))
    invocations, refusals, gaps = mutating_invocations(snapshot, request)
    gvk = _WORKLOAD_GVK.get(kind)
    if gvk is None:  # no served schema podwhy holds: every binding it meets is not evaluated
        gaps += [PolicyGap(i.compiled.policy.name, i.binding, SCHEMA) for i in invocations]
        invocations = []
    context = m.ReinvocationContext()
    schema, default = schema_for(emulation.minor), _template_defaulter(emulation)
    outcome = m.admit(invocations, _policy_request(request), gvk or kind, schema, default, context, refusals=refusals)
    done = list(outcome.mutations)
    if outcome.refusal is None and context.should_reinvoke:
        again = _policy_request(request_for(outcome.object, namespace_json(snapshot, metadata["namespace"])))
        outcome = m.admit(invocations, again, gvk or kind, schema, default, context, reinvoking=True)
        done += outcome.mutations
    gaps += [PolicyGap(d.policy, d.binding, d.not_evaluated) for d in outcome.not_evaluated]
    left_open = tuple(_open_mutating(g) for g in gaps)
    if outcome.refusal is not None:
        _refuse_object(kind, str(metadata.get("name", "")), source, outcome.refusal.text)
    if outcome.object == obj:
        return MutatedObject(None, open=left_open)
    changed: list[tuple[str, str, str]] = []
    before: Any = obj
    for mutation in done:
        why = f"{MUTATING_POLICY} '{mutation.policy}'"
        changed += [(f, value, why) for f, value in m.changed_fields(before, mutation.object) if f]
        before = mutation.object
    out = dict(outcome.object)
    if not (document.get("metadata") or {}).get("namespace"):  # -n fills it, as before
        out["metadata"] = {k: val for k, val in dict(out.get("metadata") or {}).items() if k != "namespace"}
    return MutatedObject(out, tuple(changed), left_open)
