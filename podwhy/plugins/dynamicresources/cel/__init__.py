"""CEL for DRA device selectors, as k8s.io/dynamic-resource-allocation/cel evaluates them."""
