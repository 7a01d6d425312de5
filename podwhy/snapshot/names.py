"""Names of the objects controllers and the API server make, shaped as theirs, but deterministic.

The API server names an object that has only `metadata.generateName` by appending five random
characters of a vowel-free alphabet (names.SimpleNameGenerator); podwhy derives those five
characters from a hash of what the object is instead, so a run is reproducible. The
Deployment controller's `pod-template-hash` is FNV-1a (32 bit) over the pod template, plus
the collision count, written in that alphabet (controller.ComputeHash). Upstream hashes a Go
dump of the API server's defaulted template, which podwhy cannot reproduce: podwhy hashes the
template as the manifest gives it. Both suffixes are podwhy's own; only their shape is upstream's.
"""

from __future__ import annotations

import hashlib
import struct

# The API's alphabet for generated names and hashes: no vowels, so no words (util/rand).
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
MAX_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def fnv32a(data: bytes) -> int:
    """FNV-1a, 32 bit (Go's hash/fnv New32a)."""
    value = _FNV32_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """Each character mapped into ALPHANUMS by its code point (rand.SafeEncodeString)."""
    return "".join(ALPHANUMS[ord(ch) % len(ALPHANUMS)] for ch in text)


def template_hash(template: bytes, collision_count: int | None = None) -> str:
    """The shape of controller.ComputeHash: FNV-1a over the template, then the collision count
    as 8 little-endian bytes (its low 4 set), the decimal sum safe-encoded."""
    data = template
    if collision_count is not None:
        data += struct.pack("<I", collision_count & 0xFFFFFFFF) + b"\0\0\0\0"
    return safe_encode(str(fnv32a(data)))


def suffix(seed: str, length: int = RANDOM_LENGTH) -> str:
    """LENGTH characters of ALPHANUMS derived from SEED (where the API server draws random ones)."""
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(ALPHANUMS[byte % len(ALPHANUMS)] for byte in digest[:length])


def generated_name(base: str, seed: str) -> str:
    """What the API server makes of `generateName: BASE`: BASE cut to 58 characters plus 5."""
    return base[:MAX_GENERATED_NAME_LENGTH] + suffix(seed)


def pods_prefix(controller_name: str) -> str:
    """The generateName a ReplicaSet, Job or DaemonSet controller gives its pods: its name and a
    dash, unless that is no valid name prefix (longer than 253 characters) (getPodsPrefix)."""
    prefix = controller_name + "-"
    return prefix if len(prefix) <= 253 else controller_name


def indexed_job_prefix(job_name: str, index: int) -> str:
    """The generateName of an Indexed Job's pod: `<job>-<index>-`, the job name cut so that the
    whole stays within 58 characters (podGenerateNameWithIndex)."""
    append = f"-{index}-"
    prefix = job_name + append
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = prefix[: MAX_GENERATED_NAME_LENGTH - len(append)] + append
    return prefix
