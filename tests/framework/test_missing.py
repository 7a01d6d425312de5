"""The verdict of a plugin that needs kinds the snapshot cannot vouch for."""

from __future__ import annotations

import pytest

from podwhy.framework.notevaluated import not_evaluated
from podwhy.report.words.notevaluated import not_evaluated_text

FORBIDDEN = "cannot list persistentvolumeclaims: forbidden"


@pytest.mark.parametrize(
    ("kinds", "missing", "reason"),
    [
        ({"PersistentVolumeClaim"}, {}, ""),
        (set(), {"PersistentVolumeClaim": ""}, ""),
        ({"StorageClass"}, {"PersistentVolumeClaim": ""}, ""),
        (
            {"PersistentVolumeClaim"},
            {"PersistentVolumeClaim": ""},
            "not evaluated: the snapshot has no PersistentVolumeClaims",
        ),
        (
            {"StorageClass", "PersistentVolumeClaim", "CSINode"},
            {"StorageClass": "", "PersistentVolumeClaim": "", "PriorityClass": ""},
            "not evaluated: the snapshot has no PersistentVolumeClaims, StorageClasses",
        ),
        (
            {"CSIStorageCapacity", "ResourceClaim"},
            {"CSIStorageCapacity": "", "ResourceClaim": ""},
            "not evaluated: the snapshot has no CSIStorageCapacities, ResourceClaims",
        ),
        ({"PersistentVolumeClaim"}, {"PersistentVolumeClaim": FORBIDDEN}, f"not evaluated: {FORBIDDEN}"),
        (
            {"PersistentVolumeClaim", "StorageClass"},
            {"PersistentVolumeClaim": FORBIDDEN, "StorageClass": ""},
            f"not evaluated: the snapshot has no StorageClasses; {FORBIDDEN}",
        ),
        (
            {"PersistentVolume", "PersistentVolumeClaim"},
            {"PersistentVolume": "cannot list: timeout", "PersistentVolumeClaim": "cannot list: timeout"},
            "not evaluated: cannot list: timeout",
        ),
        # A kind podwhy does not read is named by its kind and an "s".
        ({"Lease"}, {"Lease": ""}, "not evaluated: the snapshot has no Leases"),
    ],
)
def test_not_evaluated_reason(kinds: set[str], missing: dict[str, str], reason: str) -> None:
    for given in (kinds, sorted(kinds, reverse=True)):
        fact = not_evaluated(given, missing)
        assert (not_evaluated_text(fact) if fact is not None else "") == reason
