"""What the allocator's parts share: device IDs, consumed capacity, the errors (upstream's
internal/types.go and allocator.go)."""

from __future__ import annotations

from fractions import Fraction

from podwhy.framework.notevaluated import UnevaluatedSelector
from podwhy.model import objects as o

DeviceID = tuple[str, str, str]  # driver, pool, device


def device_id_string(device_id: DeviceID) -> str:
    return "/".join(device_id)


class AllocationError(Exception):
    """Bad input (claim, class, CEL): the scheduler aborts the whole attempt with an Error."""

    @property
    def message(self) -> str:
        return str(self.args[0])


class NodeAllocationError(AllocationError):
    """Allocation failed on this node only (structured.ErrFailedAllocationOnNode)."""


class SelectorsNotEvaluatedError(Exception):
    """Whether the claims fit on this node rests on device selectors podwhy cannot evaluate
    (`selectors`, each once, sorted): the node may pass or fail."""

    def __init__(self, selectors: tuple[UnevaluatedSelector, ...]) -> None:
        super().__init__(selectors)
        self.selectors = selectors


class NotSimulatedError(Exception):
    """The allocation needs a feature of the emulated release that podwhy does not simulate."""

    @property
    def message(self) -> str:
        return str(self.args[0])


# Consumed capacity per capacity name (ConsumedCapacity); per device (ConsumedCapacityCollection).
Capacity = dict[str, Fraction]


def claim_key(claim: o.ResourceClaim) -> str:
    """klog.KObj's text: "namespace/name", or the bare name without a namespace."""
    meta = claim.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name
