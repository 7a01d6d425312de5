"""The StatefulSet controller (pkg/controller/statefulset): each ordinal's claims from the volume
claim templates, its ordinals, and which pods count as running and ready."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.model import objects as o


def mount_claims(pod: o.Pod, templates: list[o.PersistentVolumeClaim], set_name: str, ordinal: int) -> None:
    """The StatefulSet controller's volumes: each claim template mounted as the volume of its name
    (replacing a template volume of that name), then the template's other volumes (updateStorage)."""
    claimed = {t.metadata.name for t in templates}
    volumes = [
        o.Volume(
            name=t.metadata.name,
            persistent_volume_claim=o.PVCVolumeSource(claim_name=f"{t.metadata.name}-{set_name}-{ordinal}"),
        )
        for t in templates
    ]
    pod.spec.volumes = volumes + [v for v in pod.spec.volumes if v.name not in claimed]


def running_and_ready(pod: o.Pod) -> bool:
    """isRunningAndReady: Running, and its Ready condition True (a dump that gives no Ready
    condition: taken as Ready)."""
    ready = next((c.status for c in pod.status.conditions if c.type == "Ready"), "True")
    return pod.status.phase == "Running" and ready == "True"


def highest_ordinal_first(pods: Sequence[o.Pod]) -> list[o.Pod]:
    """The StatefulSet controller scales down from the highest ordinal."""
    return sorted(pods, key=lambda p: ordinal(p.metadata.name), reverse=True)


def ordinal(name: str) -> int:
    tail = name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else -1
