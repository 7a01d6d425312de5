"""The bounds on what podwhy reads: every input is bounded before it can exhaust memory or time
(issue 26). Each limit is documented, with the reason for its value, in docs/limits.md.
"""

from __future__ import annotations

import os
import re

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
