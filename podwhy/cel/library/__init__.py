"""The function libraries Kubernetes adds to CEL (k8s.io/apiserver/pkg/cel/library) and
cel-go's extensions it enables.
"""

from __future__ import annotations
