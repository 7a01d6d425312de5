"""Snapshot sources: where a cluster snapshot comes from, behind one protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from podwhy.snapshot.cluster import Snapshot


class SnapshotSource(Protocol):
    """Files, folders and stdin; the API server; manifests. Each records what it could not provide
    in `Snapshot.missing`."""

    def load(self) -> Snapshot: ...


@dataclass
class FileSource:
    """`kubectl get -o yaml|json` files, folders, cluster-info dumps, or '-' for stdin."""

    paths: Sequence[str]

    def load(self) -> Snapshot:
        from podwhy.snapshot.offline import load_offline

        return load_offline(self.paths)
