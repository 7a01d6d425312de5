"""admissionregistration.k8s.io: ValidatingAdmissionPolicies and their bindings (v1),
MutatingAdmissionPolicies and their bindings (v1alpha1, v1beta1, v1: one shape), and the
Validating- and MutatingWebhookConfigurations (v1).

Only what the API server's matching and evaluation read is declared (k8s.io/api
admissionregistration/v1 types.go). Defaults are v1's SetDefaults_* (pkg/apis/admissionregistration/v1
defaults.go), which the API server applies before storing: a field it would have defaulted
reads as that default when a manifest or a hand-written dump leaves it out.
"""

from __future__ import annotations

import msgspec

from podwhy.model.objects.meta import Int32, LabelSelector, ObjectMeta, _Base

ADMISSIONREGISTRATION_GROUP = "admissionregistration.k8s.io"

# FailurePolicyType
FAIL = "Fail"
IGNORE = "Ignore"
# MatchPolicyType
EXACT = "Exact"
EQUIVALENT = "Equivalent"
# ScopeType
CLUSTER_SCOPE = "Cluster"
NAMESPACED_SCOPE = "Namespaced"
ALL_SCOPES = "*"
# OperationType
OPERATION_ALL = "*"
CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
CONNECT = "CONNECT"
# ValidationAction
DENY = "Deny"
WARN = "Warn"
AUDIT = "Audit"
# ParameterNotFoundActionType
ALLOW_ACTION = "Allow"
DENY_ACTION = "Deny"
# ReinvocationPolicyType
NEVER_REINVOCATION = "Never"
IF_NEEDED_REINVOCATION = "IfNeeded"
# PatchType (MutatingAdmissionPolicy)
PATCH_TYPE_APPLY_CONFIGURATION = "ApplyConfiguration"
PATCH_TYPE_JSON_PATCH = "JSONPatch"
# SideEffectClass
SIDE_EFFECTS_NONE = "None"
SIDE_EFFECTS_NONE_ON_DRY_RUN = "NoneOnDryRun"

# v1 SetDefaults_* values.
DEFAULT_FAILURE_POLICY = FAIL  # webhooks, ValidatingAdmissionPolicySpec, MutatingAdmissionPolicySpec
DEFAULT_MATCH_POLICY = EQUIVALENT  # webhooks, MatchResources
DEFAULT_SCOPE = ALL_SCOPES  # Rule
DEFAULT_TIMEOUT_SECONDS = 10  # webhooks
DEFAULT_SERVICE_PORT = 443  # ServiceReference
DEFAULT_WEBHOOK_REINVOCATION = NEVER_REINVOCATION  # MutatingWebhook
# v1alpha1's SetDefaults_ParamRef (v1beta1 and v1 require the field instead).
V1ALPHA1_PARAMETER_NOT_FOUND_ACTION = DENY_ACTION


# ---------------------------------------------------------------- rules and match resources


class RuleWithOperations(_Base):
    """A rule: operations, and the API groups, versions and resources (`pods`, `pods/status`,
    `*`, `*/scale`, `pods/*`) it covers, in a scope (Rule is inlined, as its JSON is)."""

    operations: list[str] = []
    api_groups: list[str] = []
    api_versions: list[str] = []
    resources: list[str] = []
    scope: str = DEFAULT_SCOPE


class NamedRuleWithOperations(RuleWithOperations, kw_only=True):
    """A policy's rule, which may name the objects it covers (empty: every name)."""

    resource_names: list[str] = []


class MatchResources(_Base):
    """A policy's matchConstraints, or a binding's matchResources (SetDefaults_MatchResources: an
    unset selector is the empty one, which selects everything)."""

    namespace_selector: LabelSelector = msgspec.field(default_factory=LabelSelector)
    object_selector: LabelSelector = msgspec.field(default_factory=LabelSelector)
    resource_rules: list[NamedRuleWithOperations] = []
    exclude_resource_rules: list[NamedRuleWithOperations] = []
    match_policy: str = DEFAULT_MATCH_POLICY


class MatchCondition(_Base):
    """A CEL expression a request must satisfy for the policy or webhook to apply."""

    name: str = ""
    expression: str = ""


class ParamKind(_Base):
    api_version: str = ""
    kind: str = ""


class ParamRef(_Base):
    name: str = ""
    namespace: str = ""
    selector: LabelSelector | None = None
    parameter_not_found_action: str | None = None


class Variable(_Base):
    name: str = ""
    expression: str = ""


# ---------------------------------------------------------------- ValidatingAdmissionPolicy


class Validation(_Base):
    expression: str = ""
    message: str = ""
    reason: str | None = None  # metav1.StatusReason; unset: Invalid
    message_expression: str = ""


class AuditAnnotation(_Base):
    key: str = ""
    value_expression: str = ""


class ValidatingAdmissionPolicySpec(_Base):
    param_kind: ParamKind | None = None
    match_constraints: MatchResources | None = None  # required: a policy without matches nothing
    validations: list[Validation] = []
    failure_policy: str = DEFAULT_FAILURE_POLICY
    audit_annotations: list[AuditAnnotation] = []
    match_conditions: list[MatchCondition] = []
    variables: list[Variable] = []


class ValidatingAdmissionPolicy(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ValidatingAdmissionPolicySpec = msgspec.field(default_factory=ValidatingAdmissionPolicySpec)


class ValidatingAdmissionPolicyBindingSpec(_Base):
    policy_name: str = ""
    param_ref: ParamRef | None = None
    match_resources: MatchResources | None = None  # unset: whatever the policy matches
    validation_actions: list[str] = []


class ValidatingAdmissionPolicyBinding(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ValidatingAdmissionPolicyBindingSpec = msgspec.field(default_factory=ValidatingAdmissionPolicyBindingSpec)


# ---------------------------------------------------------------- MutatingAdmissionPolicy


class ApplyConfiguration(_Base):
    expression: str = ""


class JSONPatch(_Base):
    expression: str = ""


class Mutation(_Base):
    patch_type: str = ""
    apply_configuration: ApplyConfiguration | None = None
    json_patch: JSONPatch | None = None


class MutatingAdmissionPolicySpec(_Base):
    param_kind: ParamKind | None = None
    match_constraints: MatchResources | None = None
    variables: list[Variable] = []
    mutations: list[Mutation] = []
    failure_policy: str = DEFAULT_FAILURE_POLICY
    match_conditions: list[MatchCondition] = []
    reinvocation_policy: str = ""  # required (Never or IfNeeded), no default


class MutatingAdmissionPolicy(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: MutatingAdmissionPolicySpec = msgspec.field(default_factory=MutatingAdmissionPolicySpec)


class MutatingAdmissionPolicyBindingSpec(_Base):
    policy_name: str = ""
    param_ref: ParamRef | None = None
    match_resources: MatchResources | None = None


class MutatingAdmissionPolicyBinding(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: MutatingAdmissionPolicyBindingSpec = msgspec.field(default_factory=MutatingAdmissionPolicyBindingSpec)


# ---------------------------------------------------------------- webhooks


class ServiceReference(_Base):
    namespace: str = ""
    name: str = ""
    path: str | None = None
    port: Int32 = DEFAULT_SERVICE_PORT


class WebhookClientConfig(_Base):
    """Where the webhook is called: a URL, or a Service (caBundle is not read)."""

    url: str | None = None
    service: ServiceReference | None = None


class ValidatingWebhook(_Base):
    name: str = ""
    client_config: WebhookClientConfig = msgspec.field(default_factory=WebhookClientConfig)
    rules: list[RuleWithOperations] = []
    failure_policy: str = DEFAULT_FAILURE_POLICY
    match_policy: str = DEFAULT_MATCH_POLICY
    namespace_selector: LabelSelector = msgspec.field(default_factory=LabelSelector)
    object_selector: LabelSelector = msgspec.field(default_factory=LabelSelector)
    side_effects: str | None = None  # required in v1, no default
    timeout_seconds: Int32 = DEFAULT_TIMEOUT_SECONDS
    admission_review_versions: list[str] = []
    match_conditions: list[MatchCondition] = []


class MutatingWebhook(ValidatingWebhook, kw_only=True):
    reinvocation_policy: str = DEFAULT_WEBHOOK_REINVOCATION


class ValidatingWebhookConfiguration(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    webhooks: list[ValidatingWebhook] = []


class MutatingWebhookConfiguration(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    webhooks: list[MutatingWebhook] = []
