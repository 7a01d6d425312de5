"""Structured-parameters device allocation, as k8s.io/dynamic-resource-allocation/structured does it."""
