"""The bounds on what podwhy reads: every input is bounded before it can exhaust memory or time
(issue 26). Each limit is documented, with the reason for its value, in docs/limits.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from podwhy.errors import PodwhyError

# The most bytes one input (a file, stdin, a file of a folder) may hold once decompressed,
# counted while reading and decompressing, never after. A real 5,000-node, 150,000-pod cluster
# is about 1 GiB of JSON (1.5-3 GiB as YAML with managedFields) and needs 2-3 times its size of
# memory to explain: 4 GiB lets any cluster a machine can explain through, and stops a gzip bomb,
# an endless pipe or `--from /dev/zero` before it exhausts memory.
MAX_INPUT_BYTES = 4 * 1024**3
# Raises (or lowers) MAX_INPUT_BYTES: bytes, or a number with Ki, Mi, Gi or Ti; 0 for no limit.
MAX_INPUT_ENV = "PODWHY_MAX_INPUT_SIZE"

# The most YAML nodes aliases (`*name`) may add to a file once expanded: kubectl and the API
# server never write aliases, a hand-written manifest's few anchors add hundreds of nodes, and a
# 536-byte "billion laughs" file adds billions. The API server's own YAML decoding refuses
# "excessive aliasing" in the same way (go-yaml counts the nodes aliases expand to).
MAX_YAML_ALIAS_NODES = 1_000_000

# The deepest a YAML document may nest (flow and block collections): Kubernetes objects nest
# about 20 levels deep; libyaml's parser recurses once per level in C, and beyond some ten
# thousand levels would overflow the stack rather than fail.
MAX_YAML_DEPTH = 1_000

# The most pods `check` creates for the manifests, one workload or all together: Kubernetes
# supports clusters of at most 150,000 pods (its documented scalability limit), so no more can
# run at once; `replicas: 2147483647` would otherwise build two billion pods.
MAX_PODS = 150_000

# The most bytes of JSON text a snapshot holds of ConfigMaps and custom resources while reading
# its inputs, before it knows which kinds policies' params are (snapshot/params.py): a cluster's
# ConfigMaps are typically a few to a few tens of MiB (one `kube-root-ca.crt` of about 1.5 KiB per
# namespace, dashboards and configuration files of up to 1 MiB each); past the bound, the kind of
# the object that crossed it is dropped and the params of that kind are said not evaluated.
MAX_PARAM_BYTES = 256 * 1024**2

# The most names (files and folders, whatever they are) podwhy looks through in a folder given
# with --from or -f, before reading any: `kubectl cluster-info dump --output-directory` of a
# 150,000-pod cluster writes about 300,000 (a folder and a logs.txt per pod, a few files per
# namespace); a folder of a million files, or `--from /`, would take minutes to list and read.
MAX_FOLDER_ENTRIES = 1_000_000

_UNITS = {"": 1, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4}


def max_input_bytes() -> int | None:
    """MAX_INPUT_BYTES, or what MAX_INPUT_ENV says (None: no limit)."""
    raw = os.environ.get(MAX_INPUT_ENV)
    if raw is None or not raw.strip():
        return MAX_INPUT_BYTES
    match = re.fullmatch(r"\s*(\d+)\s*(Ki|Mi|Gi|Ti)?\s*", raw)
    if match is None:
        raise PodwhyError(
            f"{MAX_INPUT_ENV}={raw!r}: not a size", hint="bytes, or a number with Ki, Mi, Gi or Ti; 0 for no limit"
        )
    value = int(match[1]) * _UNITS[match[2] or ""]
    return value or None


def size_words(size: int) -> str:
    """SIZE in the largest binary unit that divides it (4 GiB), else in bytes."""
    for unit in ("Ti", "Gi", "Mi", "Ki"):
        if size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]} {unit}B"
    return f"{size} bytes"


def too_large(source: str, limit: int, what: str = "holds") -> PodwhyError:
    return PodwhyError(
        f"{source}: {what} more than {size_words(limit)}, the most podwhy reads from one input",
        hint=f"set {MAX_INPUT_ENV} to raise the limit, e.g. {MAX_INPUT_ENV}=16Gi",
    )


# Kueue's lists as its CRDs bound them (kubebuilder MaxItems and MaxProperties of
# apis/kueue/v1beta2, Kueue v0.20): the API server stores no object past one, so an object past
# one is refused in one line naming the field, as an integer past its Go type is. What Kueue's
# decision walks (pod sets, resource groups, flavors, resources) stays within them.
KUEUE_MAX_ITEMS: dict[str, int] = {
    "spec.resourceGroups": 16,  # ClusterQueue, Cohort
    "spec.resourceGroups[].coveredResources": 64,
    "spec.resourceGroups[].flavors": 64,
    "spec.resourceGroups[].flavors[].resources": 64,
    "spec.admissionChecksStrategy.admissionChecks": 64,  # ClusterQueue
    "spec.podSets": 18,  # Workload
    "status.admission.podSetAssignments": 18,
    "spec.nodeLabels": 8,  # ResourceFlavor
    "spec.nodeTaints": 8,
    "spec.tolerations": 8,
    "spec.levels": 16,  # Topology
}


def _kueue_lists(obj: Any) -> Iterator[tuple[str, int]]:
    """Each bounded list (or map) of a Kueue object: (its path, as KUEUE_MAX_ITEMS names it, its length)."""
    spec = getattr(obj, "spec", None)  # a WorkloadPriorityClass has none
    for group in getattr(spec, "resource_groups", []):
        yield "spec.resourceGroups[].coveredResources", len(group.covered_resources)
        yield "spec.resourceGroups[].flavors", len(group.flavors)
        for flavor in group.flavors:
            yield "spec.resourceGroups[].flavors[].resources", len(flavor.resources)
    for path, name in (
        ("spec.resourceGroups", "resource_groups"),
        ("spec.podSets", "pod_sets"),
        ("spec.nodeLabels", "node_labels"),
        ("spec.nodeTaints", "node_taints"),
        ("spec.tolerations", "tolerations"),
        ("spec.levels", "levels"),
    ):
        if hasattr(spec, name):
            yield path, len(getattr(spec, name))
    strategy = getattr(spec, "admission_checks_strategy", None)
    if strategy is not None:
        yield "spec.admissionChecksStrategy.admissionChecks", len(strategy.admission_checks)
    admission = getattr(getattr(obj, "status", None), "admission", None)
    if admission is not None:
        yield "status.admission.podSetAssignments", len(admission.pod_set_assignments)


def kueue_past_bound(obj: Any) -> str | None:
    """Why the Kueue object OBJ is past one of its CRD's bounds (KUEUE_MAX_ITEMS), or None."""
    for path, count in _kueue_lists(obj):
        bound = KUEUE_MAX_ITEMS[path]
        if count > bound:
            return f"{path} holds {count:,} items, more than the {bound} Kueue's API stores (its CRD's maxItems)"
    return None
