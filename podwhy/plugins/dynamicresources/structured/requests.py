"""A request or a firstAvailable subrequest, as the allocator reads either (requestAccessor)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from podwhy.model import objects as o

MODE_EXACT_COUNT = o.ALLOCATION_MODE_EXACT_COUNT
MODE_ALL = "All"


class RequestView(msgspec.Struct, frozen=True):
    """A request or a firstAvailable subrequest, as the allocator reads either."""

    name: str
    device_class_name: str
    selectors: list[o.DeviceSelector]
    allocation_mode: str
    count: int
    admin_access: bool
    has_admin_access: bool
    # DeviceTolerations as the API holds them (dicts: key, operator, value, effect).
    tolerations: tuple[Any, ...] = ()
    # capacity.requests (DRAConsumableCapacity).
    capacity_requests: Mapping[str, Any] | None = None

    @classmethod
    def of_exact(cls, name: str, req: o.ExactDeviceRequest) -> RequestView:
        mode = req.allocation_mode or MODE_EXACT_COUNT  # API server defaulting
        count = req.count if req.count is not None else (1 if mode == MODE_EXACT_COUNT else 0)
        return cls(
            name,
            req.device_class_name,
            req.selectors,
            mode,
            count,
            bool(req.admin_access),
            req.admin_access is not None,
            tuple(req.tolerations),
            req.capacity.requests if req.capacity is not None else None,
        )

    @classmethod
    def of_sub(cls, sub: o.DeviceSubRequest) -> RequestView:
        mode = sub.allocation_mode or MODE_EXACT_COUNT
        count = sub.count if sub.count is not None else (1 if mode == MODE_EXACT_COUNT else 0)
        requests = sub.capacity.requests if sub.capacity is not None else None
        return cls(
            sub.name, sub.device_class_name, sub.selectors, mode, count, False, False, tuple(sub.tolerations), requests
        )
