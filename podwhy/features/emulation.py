"""What differs between the Kubernetes releases podwhy emulates: one table, as data.

Each emulated minor release carries its default feature gates (features/kubefeatures.py) and the
behaviour that changed without a gate: the scheduler's plugins' and default profile's, and the
API server's words and defaults. The scheduler, the API server and the controllers read these
switches; nothing else compares version numbers.

How the version of a user's cluster is found, and what happens to one podwhy does not emulate,
is podwhy.scheduler.release.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import msgspec

from podwhy.features.kubefeatures import DEFAULTS


class Emulation(msgspec.Struct, frozen=True):
    """One Kubernetes minor release as podwhy emulates it: its scheduler, API server and controllers."""

    minor: int
    # The release the recordings podwhy is checked against come from.
    release: str
    gates: Mapping[str, bool]
    # NodeResourcesBalancedAllocation scores the pod's improvement of the node's balance
    # (kubernetes#135573, v1.36) instead of the balance with the pod alone.
    balanced_allocation_improvement: bool
    # ImageLocality counts the images of image volumes (spec.volumes[].image), v1.36.
    image_locality_image_volumes: bool
    # NodeResourcesFitArgs: scoringStrategy.requestedToCapacityRatio is required with type
    # RequestedToCapacityRatio and forbidden with the others; its shape is checked there (v1.36).
    fit_args_ratio_only_with_its_type: bool = False
    # NodeVolumeLimits counts in-tree Portworx volumes as CSI ones only on nodes whose CSINode
    # lists the plugin as migrated (isCSIMigrationOn, v1.35); from v1.36 on every node.
    portworx_migration_needs_annotation: bool = True
    # kubescheduler.config.k8s.io/v1 extension points of this release that podwhy reads and
    # validates but never runs (the pod-group cycle), and the upstream plugins they may name.
    unsimulated_extension_points: tuple[str, ...] = ()
    unsimulated_plugins: tuple[str, ...] = ()
    # DynamicResources has a Score (it scores claims that use firstAvailable, v1.35); before, the
    # plugin has no Score method and the default profile gives it no weight.
    dynamic_resources_scores: bool = True
    # NodeResourcesFit returns UnschedulableAndUnresolvable when the request alone exceeds the
    # node's allocatable (v1.34): preemption then passes such nodes by; before, Unschedulable.
    fit_unresolvable_over_allocatable: bool = True
    # TaintToleration's reason names the first untolerated taint (v1.33: "node(s) had untolerated
    # taint {key: value}"); from v1.34 on one reason for all.
    taint_toleration_names_taint: bool = False
    # VolumeRestrictions says a ReadWriteOncePod claim in use elsewhere in v1.33's words.
    read_write_once_pod_older_words: bool = False
    # The API server defaults an env var's valueFrom.fileKeyRef.optional to false (v1.34, EnvFiles).
    file_key_ref_optional_default: bool = True
    # validateHostUsers' detail for hostNetwork, hostPID and hostIPC with hostUsers false (v1.34
    # on; v1.33: "when `pod.Spec.HostUsers` is false").
    host_users_forbidden: str = "when `hostUsers` is false"
    # How the API server words a bad label key and a label key's or value's length (v1.35 on:
    # k8s.io/apimachinery's validate/content, "a valid label key", "bytes"; before: util/validation's
    # IsQualifiedName, "a qualified name", "characters").
    label_key_words: str = "a valid label key"
    label_length_unit: str = "bytes"
    # The admissionregistration.k8s.io versions the API server can serve MutatingAdmissionPolicy
    # and its bindings in (pkg/registry/admissionregistration/rest/storage_apiserver.go), newest
    # first: v1alpha1 from v1.32, v1beta1 from v1.34, v1 from v1.36.
    mutating_admission_policy_versions: tuple[str, ...] = ("v1beta1", "v1alpha1")

    @property
    def name(self) -> str:
        """ "1.36"."""
        return f"1.{self.minor}"

    def enabled(self, gate: str) -> bool:
        """A feature gate's default in this release (unknown gates: KeyError, a programming error)."""
        return self.gates[gate]


V1_33 = Emulation(
    minor=33,
    release="v1.33.3",
    gates=DEFAULTS[33],
    balanced_allocation_improvement=False,
    image_locality_image_volumes=False,
    dynamic_resources_scores=False,
    fit_unresolvable_over_allocatable=False,
    taint_toleration_names_taint=True,
    read_write_once_pod_older_words=True,
    file_key_ref_optional_default=False,
    host_users_forbidden="when `pod.Spec.HostUsers` is false",
    label_key_words="a qualified name",
    label_length_unit="characters",
    mutating_admission_policy_versions=("v1alpha1",),
)
V1_34 = Emulation(
    minor=34,
    release="v1.34.7",
    gates=DEFAULTS[34],
    balanced_allocation_improvement=False,
    image_locality_image_volumes=False,
    dynamic_resources_scores=False,
    label_key_words="a qualified name",
    label_length_unit="characters",
)
V1_35 = Emulation(
    minor=35,
    release="v1.35.4",
    gates=DEFAULTS[35],
    balanced_allocation_improvement=False,
    image_locality_image_volumes=False,
)
V1_36 = Emulation(
    minor=36,
    release="v1.36.3",
    gates=DEFAULTS[36],
    balanced_allocation_improvement=True,
    image_locality_image_volumes=True,
    fit_args_ratio_only_with_its_type=True,
    portworx_migration_needs_annotation=False,
    unsimulated_extension_points=("placementGenerate", "placementScore"),
    unsimulated_plugins=("TopologyPlacementGenerator", "PodGroupPodsCount"),
    mutating_admission_policy_versions=("v1", "v1beta1", "v1alpha1"),
)

EMULATED: dict[int, Emulation] = {e.minor: e for e in (V1_33, V1_34, V1_35, V1_36)}
DEFAULT = V1_35

# What may differ when a cluster's version is emulated by the nearest one podwhy has.
DIFFERENCES_BEFORE = (
    "feature-gate defaults and plugin behaviour of releases before v1.33 (e.g. which DRA features are on)"
)
DIFFERENCES_AFTER = "anything changed after v1.36: default plugins, feature-gate defaults, scores and reason strings"

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?([-+.][0-9A-Za-z.+-]*)?$")


class KubeVersion(msgspec.Struct, frozen=True, order=True):
    """A Kubernetes version as clusters report it ("v1.36.3-eks-1234" keeps its suffix)."""

    major: int
    minor: int
    patch: int | None = None
    suffix: str = ""

    def __str__(self) -> str:
        patch = f".{self.patch}" if self.patch is not None else ""
        return f"v{self.major}.{self.minor}{patch}{self.suffix}"


def parse_version(text: str) -> KubeVersion | None:
    """ "1.36", "v1.36.3", "v1.36.3-gke.100" -> KubeVersion; None when it is not a version."""
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    major, minor, patch, suffix = match.groups()
    return KubeVersion(int(major), int(minor), int(patch) if patch is not None else None, suffix or "")


def nearest_emulation(version: KubeVersion) -> Emulation:
    """The emulated release for a version: its own minor, else the nearest one podwhy has."""
    if version.major != 1:
        return EMULATED[max(EMULATED)] if version.major > 1 else EMULATED[min(EMULATED)]
    if version.minor in EMULATED:
        return EMULATED[version.minor]
    return EMULATED[min(EMULATED)] if version.minor < min(EMULATED) else EMULATED[max(EMULATED)]
