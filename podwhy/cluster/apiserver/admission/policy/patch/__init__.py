"""k8s.io/apiserver's admission/plugin/policy/mutating/patch: JSON Patch, and apply configurations over the schema."""
