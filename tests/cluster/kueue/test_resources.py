"""Kueue's amounts and how its messages print them, after Kueue's pkg/resources tests
(amount_test.go TestAmountFromQuantity and TestAmountArithmetic, resource_formatter_test.go),
and the feature gates' v0.20 defaults (pkg/features/kube_features.go)."""

from __future__ import annotations

import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.resources import (
    DEFAULT_FORMATTER,
    MAX_INT64,
    MIN_INT64,
    UNLIMITED,
    ResourceFormatter,
    add,
    add_int,
    amount_from_quantity,
    fnv1a64,
    request_order,
    sub,
)

# Upstream TestAmountFromQuantity: (resource, quantity, want; None for Unlimited).
AMOUNT_CASES = {
    "cpu small value preserved": ("cpu", "2", 2_000),
    "cpu sub-cpu preserved": ("cpu", "500m", 500),
    "cpu 1P preserved (no overflow)": ("cpu", "1P", 1_000_000_000_000_000_000),
    "cpu 1E becomes Unlimited (was 0 with raw ResourceValue)": ("cpu", "1E", None),
    "cpu 10P becomes Unlimited": ("cpu", "10P", None),
    "memory small value preserved": ("memory", "512Mi", 512 * 1024 * 1024),
    "memory 1E preserved (fits in int64)": ("memory", "1E", 1_000_000_000_000_000_000),
    "memory past int64 becomes Unlimited": ("memory", "10E", None),
    "extended resource preserved": ("example.com/gpu", "8", 8),
}


@pytest.mark.parametrize("name", list(AMOUNT_CASES))
def test_amount_from_quantity(name: str) -> None:
    resource, quantity, want = AMOUNT_CASES[name]
    assert amount_from_quantity(resource, quantity) == (UNLIMITED if want is None else want)


def test_amount_arithmetic() -> None:
    """Upstream TestAmountArithmetic."""
    assert add(5, UNLIMITED) == UNLIMITED  # Add propagates Unlimited
    assert add(MAX_INT64 - 5, 100) == UNLIMITED  # saturates into the sentinel
    assert sub(UNLIMITED, 1000) == UNLIMITED
    assert UNLIMITED > MAX_INT64 - 1 and MAX_INT64 - 1 < UNLIMITED
    assert sub(UNLIMITED, UNLIMITED) == 0
    assert sub(1000, UNLIMITED) == MIN_INT64
    assert add_int(MAX_INT64 - 1, 100) == MAX_INT64


@pytest.mark.parametrize(
    ("resource", "value", "want"),
    [
        ("cpu", 1_000, "1"),
        ("cpu", 1_500, "1500m"),
        ("cpu", 0, "0"),
        ("memory", 10 * 2**20, "10Mi"),
        ("memory", 1_000_000, "1M"),  # the BinarySI string parsed again: newCanonicalQuantity
        ("memory", 600, "600"),
        ("ephemeral-storage", 2**30, "1Gi"),
        ("hugepages-2Mi", 4 * 2**20, "4Mi"),
        ("pods", 3, "3"),
        ("example.com/gpu", 1_000, "1k"),
        ("gpu.memory", 9984 * 1024 * 1024, "10468982784"),
    ],
)
def test_quantity_string(resource: str, value: int, want: str) -> None:
    """ResourceFormatter.ResourceQuantityString (TestNilResourceFormatterUsesDefaultFormatting)."""
    assert DEFAULT_FORMATTER.quantity_string(resource, value) == want


def test_formatter_isolation() -> None:
    """Upstream TestResourceFormatterIsolation: a resource registered as binary prints as memory."""
    configured = ResourceFormatter(frozenset({"gpu.memory"}))
    assert configured.quantity_string("gpu.memory", 9984 * 1024 * 1024) == "9984Mi"
    assert DEFAULT_FORMATTER.quantity_string("gpu.memory", 9984 * 1024 * 1024) == "10468982784"
    assert configured.amount_string("cpu", UNLIMITED) == "<unlimited>"


def test_feature_gate_defaults() -> None:
    """v0.20: UnadmittedWorkloadsObservability is on (beta since v0.19), so the scheduler's reason
    is the granular one; off, the legacy Pending."""
    assert names.enabled(names.UNADMITTED_WORKLOADS_OBSERVABILITY)
    assert names.unadmitted_reason(names.WAITING_FOR_QUOTA, names.LEGACY_PENDING) == "WaitingForQuota"
    off = {names.UNADMITTED_WORKLOADS_OBSERVABILITY: False}
    assert names.unadmitted_reason(names.WAITING_FOR_QUOTA, names.LEGACY_PENDING, off) == "Pending"
    assert not names.enabled(names.PRIORITY_BOOST)
    assert names.enabled(names.TOPOLOGY_AWARE_SCHEDULING)
    assert str(names.Mode.PREEMPT) == "Preempt"


# pkg/resources/slice_requests.go: hashResourceName is Go's hash/fnv New64a; SliceRequests are
# sorted by (hash, name), so Kueue tries a workload's resources in that order.
@pytest.mark.parametrize(
    ("name", "want"),
    [("", 0xCBF29CE484222325), ("a", 0xAF63DC4C8601EC8C), ("foobar", 0x85944171F73967E8)],
)
def test_fnv1a64_is_go_hash_fnv_new64a(name: str, want: int) -> None:
    assert fnv1a64(name) == want


def test_request_order_by_hash_then_name() -> None:
    names = ["cpu", "memory", "pods", "nvidia.com/gpu", "example.com/gpu"]
    assert request_order(names) == sorted(names, key=lambda n: (fnv1a64(n), n))
    assert request_order(names, vectorized=False) == sorted(names)
