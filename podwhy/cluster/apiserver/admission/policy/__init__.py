"""The API server's admission policies and webhooks (k8s.io/apiserver/pkg/admission/plugin/policy,
plugin/webhook): which policies and webhooks meet a request, and the ValidatingAdmissionPolicy evaluator."""
