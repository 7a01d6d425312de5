"""k8s.io/apiserver's admission policy matching and webhook predicates: which policies and webhooks meet a request."""
