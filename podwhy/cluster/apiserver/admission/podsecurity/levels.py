"""pod-security-admission's api/: the Pod Security Standards' levels, policy versions, and the
policy a namespace's labels name.

A namespace's `pod-security.kubernetes.io/enforce` label names the level (privileged, baseline,
restricted; an invalid value enforces restricted), `pod-security.kubernetes.io/enforce-version`
the policy version (v1.N or latest; an invalid value is latest). Without labels the default
AdmissionConfiguration applies: privileged, latest (podwhy assumes the default configuration: no
exemptions). The warn labels name the policy the server warns of (`warn_policy`)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

PRIVILEGED = "privileged"
BASELINE = "baseline"
RESTRICTED = "restricted"
LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)

ENFORCE_LEVEL_LABEL = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION_LABEL = "pod-security.kubernetes.io/enforce-version"
WARN_LEVEL_LABEL = "pod-security.kubernetes.io/warn"
WARN_VERSION_LABEL = "pod-security.kubernetes.io/warn-version"


class Policy(msgspec.Struct, frozen=True):
    """A level and a policy version (None: latest), as api.LevelVersion."""

    level: str
    version: int | None = None  # the minor of v1.N

    def __str__(self) -> str:
        return f"{self.level}:{'latest' if self.version is None else f'v1.{self.version}'}"


DEFAULT_POLICY = Policy(PRIVILEGED)


def parse_version(text: str) -> int | None:
    """api.ParseVersion: "latest", or "v1.N" (no leading zero); anything else is latest."""
    if text == "latest" or not text.startswith("v1."):
        return None
    minor = text[3:]
    if not minor.isascii() or not minor.isdigit() or (len(minor) > 1 and minor[0] == "0"):
        return None
    return int(minor)


def enforced_policy(labels: Mapping[str, str]) -> Policy:
    """The policy a namespace of LABELS enforces (api.PolicyToEvaluate): an invalid level fails
    closed (restricted), an invalid version is latest."""
    level, version = DEFAULT_POLICY.level, DEFAULT_POLICY.version
    if ENFORCE_LEVEL_LABEL in labels:
        level = labels[ENFORCE_LEVEL_LABEL]
        if level not in LEVELS:
            level = RESTRICTED
    if ENFORCE_VERSION_LABEL in labels:
        version = parse_version(labels[ENFORCE_VERSION_LABEL])
    return Policy(level, version)


def warn_policy(labels: Mapping[str, str]) -> Policy:
    """The policy a namespace of LABELS warns of (api.PolicyToEvaluate): an invalid level fails
    open (privileged); without a warn level, an enforce level stricter than it (and its version,
    without a warn version)."""
    level, version = DEFAULT_POLICY.level, DEFAULT_POLICY.version
    has_level = WARN_LEVEL_LABEL in labels
    if has_level:
        level = labels[WARN_LEVEL_LABEL] if labels[WARN_LEVEL_LABEL] in LEVELS else PRIVILEGED
    has_version = WARN_VERSION_LABEL in labels
    if has_version:
        version = parse_version(labels[WARN_VERSION_LABEL])
    enforce_set = labels.get(ENFORCE_LEVEL_LABEL) in LEVELS
    if not has_level and enforce_set:
        enforce = enforced_policy(labels)
        if LEVELS.index(enforce.level) > LEVELS.index(level):
            level = enforce.level
            if not has_version:
                version = enforce.version
    return Policy(level, version)
