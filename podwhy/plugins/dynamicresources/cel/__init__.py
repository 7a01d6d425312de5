"""CEL for DRA device selectors, as k8s.io/dynamic-resource-allocation/cel compiles and runs them.

The language itself is podwhy/cel/ (cel-go and k8s.io/apiserver/pkg/cel/library); here is DRA's
environment: `compile.py`, the selector cache, the `device` variable, the selector's cost limit
and a selector's result.
"""
