"""A claim's constraints: matchAttribute and distinctAttribute (upstream's constraint.go)."""

from __future__ import annotations

from typing import Any

from podwhy.model import objects as o
from podwhy.plugins.dynamicresources.structured.types import DeviceID


class MatchAttribute:
    """matchAttribute: every device of the named requests has the same attribute value."""

    def __init__(self, request_names: list[str], attribute: str) -> None:
        self.request_names = set(request_names)
        self.attribute = attribute
        self.value: tuple[str, Any] | None = None
        self.num_devices = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.request_names:
            return True
        if not sub:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub}" in self.request_names

    def add(self, request: str, sub: str, device: o.Device, device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        value = _typed_attribute(lookup_attribute(device, device_id, self.attribute))
        if value is None:
            return False
        if self.num_devices == 0:
            self.value = value
            self.num_devices = 1
            return True
        if self.value is None or self.value != value:
            return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.num_devices -= 1


class DistinctAttribute(MatchAttribute):
    """distinctAttribute: no two devices of the named requests share the attribute's value.

    As upstream, the values seen are kept per base request name (a later device of the same
    request replaces the earlier one's value, and removing one device forgets the request's)."""

    def __init__(self, request_names: list[str], attribute: str) -> None:
        super().__init__(request_names, attribute)
        self.values: dict[str, tuple[str, Any]] = {}

    def add(self, request: str, sub: str, device: o.Device, device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        value = _typed_attribute(lookup_attribute(device, device_id, self.attribute))
        if value is None:
            return False
        if self.num_devices == 0:
            self.values[request] = value
            self.num_devices = 1
            return True
        if any(seen == value for seen in self.values.values()):
            return False
        self.values[request] = value
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.values.pop(request, None)
            self.num_devices -= 1


def _typed_attribute(attr: o.DeviceAttribute | None) -> tuple[str, Any] | None:
    if attr is None:
        return None
    if attr.string_value is not None:
        return ("string", attr.string_value)
    if attr.int_value is not None:
        return ("int", attr.int_value)
    if attr.bool_value is not None:
        return ("bool", attr.bool_value)
    if attr.version_value is not None:
        return ("version", attr.version_value)
    return None


def lookup_attribute(device: o.Device, device_id: DeviceID, name: str) -> o.DeviceAttribute | None:
    """A fully qualified attribute; the driver's own domain may also be written unqualified."""
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id[0]:
        return None
    return device.attributes.get(ident)
