"""What the live source reads off the wire (list pages, Status, discovery, /version), what a
fetch reports as it goes (Progress), and where a raw fetch's pages go as they arrive (PageSink)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import msgspec

from podwhy.model import objects as o
from podwhy.snapshot.decoded import ListMeta
from podwhy.snapshot.resources import Resource


class _ListPage(msgspec.Struct):
    """A list page with its items left as raw JSON (for `podwhy snapshot`, which copies them)."""

    metadata: ListMeta = msgspec.field(default_factory=ListMeta)
    items: list[msgspec.Raw] = []


class Status(msgspec.Struct):
    message: str = ""
    reason: str = ""


class _GroupVersion(msgspec.Struct):
    groupVersion: str = ""  # noqa: N815 - wire name


class _Group(msgspec.Struct):
    name: str = ""
    versions: list[_GroupVersion] = []


class _GroupList(msgspec.Struct):
    """Discovery's APIGroupList (GET /apis): every group the server serves, with its versions."""

    groups: list[_Group] = []


class _Version(msgspec.Struct):
    git_version: str = msgspec.field(default="", name="gitVersion")


PAGE_DECODER = msgspec.json.Decoder(_ListPage)
STATUS_DECODER = msgspec.json.Decoder(Status)
GROUPS_DECODER = msgspec.json.Decoder(_GroupList)
VERSION_DECODER = msgspec.json.Decoder(_Version)


class Progress(msgspec.Struct):
    """What has been fetched so far; the command line renders it."""

    kinds_done: int = 0
    kinds_total: int = 0
    objects: int = 0
    pages: int = 0
    requests: int = 0
    # The list requested last (resource display name), and which page of it.
    current: str = ""
    page: int = 0
    # Objects fetched so far, by kind.
    by_kind: dict[str, int] = msgspec.field(default_factory=dict)


ProgressCallback = Callable[[Progress], None]


class PageSink(Protocol):
    """Where a raw fetch's list pages go as they arrive (`podwhy snapshot`: writer.py Spool),
    instead of being held until every list is in."""

    def page(self, resource: Resource, items: list[msgspec.Raw]) -> None:
        """The items of one more page of RESOURCE's list."""

    def restart(self, resource: Resource) -> None:
        """Forget RESOURCE's pages: its list starts again (an expired continue token) or failed."""


# The kinds a raw fetch holds in memory even with a sink: the admission policies and their
# bindings (whose paramRefs say which params to fetch once every list is in) and ConfigMaps (a
# param may be one the lists hold: Cluster Autoscaler's status, written once). All are few.
HELD_KINDS = frozenset(o.ADMISSION_KINDS) | {"ConfigMap"}


def decode_status(data: bytes) -> Status:
    try:
        return STATUS_DECODER.decode(data)
    except msgspec.MsgspecError:
        return Status(message=data[:200].decode("utf-8", "replace").strip())
