"""The validation of where a pod asks to run (pkg/apis/core/validation: validateAffinity,
ValidateNodeSelectorRequirement, ValidateNodeFieldSelectorRequirement, validatePodAffinityTerm,
validateTopologySpreadConstraints): node affinity terms (required ones' label values checked,
preferred ones' weights 1-100), pod affinity and anti-affinity terms, topology spread
constraints. matchLabelKeys and mismatchLabelKeys are not checked."""

from __future__ import annotations

from podwhy.cluster.apiserver.validation.invalid import invalid_named, not_supported_named
from podwhy.cluster.apiserver.validation.objectmeta import label_selector_errors
from podwhy.helpers.fielderrors import child, duplicate, forbidden, index, invalid, required, validate_label_name
from podwhy.helpers.namevalidation import dns1123_label_errors, dns1123_subdomain_errors, label_value_errors
from podwhy.model import objects as o

SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
IS_NOT_POSITIVE = "must be greater than zero"


def _node_requirement_errors(req: o.NodeSelectorRequirement, path: str, check_values: bool) -> list[str]:
    """ValidateNodeSelectorRequirement."""
    errs: list[str] = []
    values_path = child(path, "values")
    if req.operator in ("In", "NotIn"):
        if not req.values:
            errs.append(required(values_path, "must be specified when `operator` is 'In' or 'NotIn'"))
    elif req.operator in ("Exists", "DoesNotExist"):
        if req.values:
            errs.append(forbidden(values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif req.operator in ("Gt", "Lt"):
        if len(req.values) != 1:
            errs.append(required(values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid_named(child(path, "operator"), req.operator, "not a valid selector operator"))
    errs += validate_label_name(req.key, child(path, "key"))
    if check_values:
        for i, value in enumerate(req.values):
            errs += [invalid(index(values_path, i), value, m) for m in label_value_errors(value)]
    return errs


def _node_field_requirement_errors(req: o.NodeSelectorRequirement, path: str) -> list[str]:
    """ValidateNodeFieldSelectorRequirement: `metadata.name` In or NotIn one node name."""
    errs: list[str] = []
    if req.operator in ("In", "NotIn"):
        if len(req.values) != 1:
            detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            errs.append(required(child(path, "values"), detail))
    else:
        errs.append(invalid_named(child(path, "operator"), req.operator, "not a valid selector operator"))
    if req.key != "metadata.name":
        errs.append(invalid(child(path, "key"), req.key, "not a valid field selector key"))
    else:
        for i, value in enumerate(req.values):
            errs += [invalid(index(child(path, "values"), i), value, m) for m in dns1123_subdomain_errors(value)]
    return errs


def _node_term_errors(term: o.NodeSelectorTerm, path: str, check_values: bool) -> list[str]:
    errs: list[str] = []
    for j, req in enumerate(term.match_expressions):
        errs += _node_requirement_errors(req, index(child(path, "matchExpressions"), j), check_values)
    for j, req in enumerate(term.match_fields):
        errs += _node_field_requirement_errors(req, index(child(path, "matchFields"), j))
    return errs


def _weight_errors(weight: int, path: str) -> list[str]:
    return [] if 1 <= weight <= 100 else [invalid(child(path, "weight"), weight, "must be in the range 1-100")]


def _pod_affinity_term_errors(term: o.PodAffinityTerm, path: str) -> list[str]:
    """validatePodAffinityTerm, but for matchLabelKeys and mismatchLabelKeys."""
    errs = label_selector_errors(term.label_selector, child(path, "labelSelector"))
    errs += label_selector_errors(term.namespace_selector, child(path, "namespaceSelector"))
    for name in term.namespaces:
        errs += [invalid(child(path, "namespace"), name, m) for m in dns1123_label_errors(name)]
    topology_path = child(path, "topologyKey")
    if not term.topology_key:
        errs.append(required(topology_path, "can not be empty"))
    return errs + validate_label_name(term.topology_key, topology_path)


def _pod_affinity_errors(affinity: o.PodAffinity, path: str) -> list[str]:
    errs: list[str] = []
    required_path = child(path, "requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(affinity.required_during_scheduling_ignored_during_execution):
        errs += _pod_affinity_term_errors(term, index(required_path, i))
    preferred_path = child(path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(affinity.preferred_during_scheduling_ignored_during_execution):
        errs += _weight_errors(weighted.weight, index(preferred_path, i))
        errs += _pod_affinity_term_errors(
            weighted.pod_affinity_term, child(index(preferred_path, i), "podAffinityTerm")
        )
    return errs


def affinity_errors(affinity: o.Affinity, path: str) -> list[str]:
    """validateAffinity: required node affinity (label values checked), preferred terms (weights
    1-100; any label value), pod affinity and anti-affinity terms."""
    errs: list[str] = []
    node = affinity.node_affinity
    if node is not None:
        node_path = child(path, "nodeAffinity")
        selector = node.required_during_scheduling_ignored_during_execution
        if selector is not None:
            terms_path = child(child(node_path, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
            if not selector.node_selector_terms:
                errs.append(required(terms_path, "must have at least one node selector term"))
            for i, term in enumerate(selector.node_selector_terms):
                errs += _node_term_errors(term, index(terms_path, i), check_values=True)
        preferred_path = child(node_path, "preferredDuringSchedulingIgnoredDuringExecution")
        for i, preferred in enumerate(node.preferred_during_scheduling_ignored_during_execution):
            errs += _weight_errors(preferred.weight, index(preferred_path, i))
            errs += _node_term_errors(preferred.preference, child(index(preferred_path, i), "preference"), False)
    if affinity.pod_affinity is not None:
        errs += _pod_affinity_errors(affinity.pod_affinity, child(path, "podAffinity"))
    if affinity.pod_anti_affinity is not None:
        errs += _pod_affinity_errors(affinity.pod_anti_affinity, child(path, "podAntiAffinity"))
    return errs


def spread_errors(constraints: list[o.TopologySpreadConstraint], path: str) -> list[str]:
    """validateTopologySpreadConstraints, but for matchLabelKeys."""
    errs: list[str] = []
    for i, constraint in enumerate(constraints):
        item = index(path, i)
        if constraint.max_skew <= 0:
            errs.append(invalid(child(item, "maxSkew"), constraint.max_skew, IS_NOT_POSITIVE))
        if not constraint.topology_key:
            errs.append(required(child(item, "topologyKey"), "can not be empty"))
        action = constraint.when_unsatisfiable
        if action not in SCHEDULE_ACTIONS:
            errs.append(not_supported_named(child(item, "whenUnsatisfiable"), action, SCHEDULE_ACTIONS))
        if any(
            (c.topology_key, c.when_unsatisfiable) == (constraint.topology_key, action) for c in constraints[i + 1 :]
        ):
            errs.append(
                duplicate(child(item, "{topologyKey, whenUnsatisfiable}"), f"{{{constraint.topology_key}, {action}}}")
            )
        if constraint.min_domains is not None:
            min_path = child(item, "minDomains")
            if constraint.min_domains <= 0:
                errs.append(invalid(min_path, constraint.min_domains, IS_NOT_POSITIVE))
            if action != "DoNotSchedule":
                detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                errs.append(invalid_named(min_path, constraint.min_domains, detail))
        for name, policy in (
            ("nodeAffinityPolicy", constraint.node_affinity_policy),
            ("nodeTaintsPolicy", constraint.node_taints_policy),
        ):
            if policy is not None and policy not in NODE_INCLUSION_POLICIES:
                errs.append(not_supported_named(child(item, name), policy, NODE_INCLUSION_POLICIES))
        errs += label_selector_errors(constraint.label_selector, child(item, "labelSelector"))
    return errs
