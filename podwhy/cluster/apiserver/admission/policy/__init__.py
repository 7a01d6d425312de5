"""The API server's admission policies: k8s.io/apiserver/pkg/admission/plugin/policy (and its cel/)."""
