"""ImageLocality: favour nodes that already hold the pod's container images (and, from v1.36, the
images of its image volumes), weighted by image size and by how widely each has spread over the cluster."""

from __future__ import annotations

from collections.abc import Hashable

from msgspec import UNSET

from podwhy.framework.equivalence import NodeReader
from podwhy.framework.evidence import ImageLocalityEvidence, ImageOnNode
from podwhy.framework.handle import normalized_image_name
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState, Plugin
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status
from podwhy.framework.types import ImageStateSummary, NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.helper.normalize_score import go_div

MB = 1024 * 1024
# Bounds of the summed image sizes that map onto the score range (typical compressed image sizes).
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _float_to_int64(value: float) -> int:
    """Go's int64(float64) conversion: truncate; out-of-range values saturate (amd64 gives MinInt64)."""
    if value != value or not _INT64_MIN <= value < 2.0**63:
        return _INT64_MIN
    return int(value)


def scaled_image_score(image: ImageStateSummary, total_num_nodes: int) -> int:
    """The image size scaled by the fraction of all nodes that have it (limits node heating)."""
    spread = image.num_nodes / total_num_nodes
    return _float_to_int64(float(image.size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = MIN_THRESHOLD if sum_scores < MIN_THRESHOLD else min(sum_scores, max_threshold)
    return go_div(MAX_NODE_SCORE * (clamped - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def _pod_images(pod: o.Pod, image_volumes: bool) -> list[tuple[str, str, str]]:
    """(kind, name, image) for init containers, then containers, then (from v1.36) image volumes,
    as the plugin walks them."""
    images = [("container", c.name, c.image) for c in pod.spec.init_containers]
    images += [("container", c.name, c.image) for c in pod.spec.containers]
    if image_volumes:
        images += [("volume", v.name, v.image.reference) for v in pod.spec.volumes if v.image is not None]
    return images


class ImageLocality(Plugin):
    NAME = names.IMAGE_LOCALITY
    NODE_LOCAL_SCORE = True
    POD_PARTS = frozenset({PodPart.SPEC})

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        total_num_nodes = len(self.handle.node_infos)
        images = _pod_images(pod.pod, self.handle.emulation.image_locality_image_volumes)
        # The thresholds scale with the containers only, image volumes are not counted.
        num_containers = len(pod.pod.spec.init_containers) + len(pod.pod.spec.containers)
        found: list[ImageOnNode] = []
        total = 0
        for kind, owner, image in images:
            name = normalized_image_name(image)
            summary = node_info.image_states.get(name)
            if summary is None:
                continue
            scaled = scaled_image_score(summary, total_num_nodes)
            total += scaled
            found.append(
                ImageOnNode(
                    container=owner if kind == "container" else UNSET,
                    volume=owner if kind == "volume" else UNSET,
                    image=name,
                    size_bytes=summary.size,
                    num_nodes=summary.num_nodes,
                    scaled_score=scaled,
                )
            )
        value = calculate_priority(total, num_containers)
        evidence = ImageLocalityEvidence(
            images_on_node=found,
            sum_scores=total,
            total_num_nodes=total_num_nodes,
            num_containers=num_containers,
            min_threshold_bytes=MIN_THRESHOLD,
            max_threshold_bytes=MAX_CONTAINER_THRESHOLD * num_containers,
        )
        return value, Status(evidence=[evidence])

    def score_key(self, state: CycleState, pod: PodInfo) -> NodeReader | None:
        # The node's size and spread of each image of the pod.
        names = [
            normalized_image_name(image)
            for _, _, image in _pod_images(pod.pod, self.handle.emulation.image_locality_image_volumes)
        ]

        def read(node_info: NodeInfo) -> Hashable:
            states = node_info.image_states
            return tuple([(s.size, s.num_nodes) if (s := states.get(name)) is not None else None for name in names])

        return read
