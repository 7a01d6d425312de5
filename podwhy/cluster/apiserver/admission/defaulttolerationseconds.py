"""DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds): a pod
tolerates the not-ready and unreachable taints' NoExecute for 300 seconds unless it tolerates
them already."""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.attributes import Attributes
from podwhy.model import objects as o
from podwhy.model.wellknownnames import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE

NAME = "DefaultTolerationSeconds"

DEFAULT_TOLERATION_SECONDS = 300


def _tolerates(pod: o.Pod, key: str) -> bool:
    """DefaultTolerationSeconds skips a taint the pod already tolerates for NoExecute."""
    for tol in pod.spec.tolerations:
        if tol.effect not in ("", "NoExecute"):
            continue
        if (tol.operator == "Exists" and not tol.key) or tol.key == key:
            return True
    return False


def admit_pod(pod: o.Pod, attributes: Attributes) -> None:
    """The not-ready and unreachable tolerations the pod lacks, for DEFAULT_TOLERATION_SECONDS."""
    for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not _tolerates(pod, key):
            pod.spec.tolerations.append(
                o.Toleration(
                    key=key,
                    operator="Exists",
                    effect="NoExecute",
                    toleration_seconds=DEFAULT_TOLERATION_SECONDS,
                )
            )
