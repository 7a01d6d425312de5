"""policy: PodDisruptionBudgets."""

from __future__ import annotations

import msgspec

from podwhy.model.objects.meta import Int32, LabelSelector, ObjectMeta, _Base


class PodDisruptionBudgetSpec(_Base):
    min_available: Int32 | str | None = None
    max_unavailable: Int32 | str | None = None
    selector: LabelSelector | None = None


class PodDisruptionBudgetStatus(_Base):
    disruptions_allowed: Int32 = 0
    current_healthy: Int32 = 0
    desired_healthy: Int32 = 0
    expected_pods: Int32 = 0
    disrupted_pods: dict[str, str] = {}


class PodDisruptionBudget(_Base):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodDisruptionBudgetSpec = msgspec.field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus = msgspec.field(default_factory=PodDisruptionBudgetStatus)
