"""The Kubernetes semver library: semver(), isSemver() and the Semver methods."""

from __future__ import annotations

from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import Semver, need


def semver(value: Any, normalize: bool = False) -> Semver:
    if not isinstance(value, str):
        raise CelError(NO_SUCH_OVERLOAD)
    text = value
    if normalize:
        text = _normalize_semver(text)
    try:
        return Semver.parse(text)
    except ValueError:
        raise CelError(f"could not parse {value!r} as semver") from None


def _normalize_semver(text: str) -> str:
    """semver(s, true): drop a leading "v", pad minor/patch, strip leading zeros."""
    if text.startswith("v"):
        text = text[1:]
    cut = min((i for i in (text.find("-"), text.find("+")) if i >= 0), default=len(text))
    core, rest = text[:cut], text[cut:]
    parts = core.split(".")
    while len(parts) < 3:
        parts.append("0")
    return ".".join(str(int(p)) if p.isdigit() else p for p in parts) + rest


def is_semver(value: Any, normalize: Any = False) -> bool:
    """isSemver(s) and isSemver(s, normalize): whether semver() would parse it."""
    try:
        semver(value, bool(normalize))
    except CelError:
        return False
    return True


def semver_method(name: str, v: Semver, args: list[Any]) -> Any:
    if name in ("isGreaterThan", "isLessThan", "compareTo") and len(args) == 1:
        cmp = v.compare(need(args[0], Semver))
        if name == "compareTo":
            return cmp
        return cmp > 0 if name == "isGreaterThan" else cmp < 0
    if not args and name in ("major", "minor", "patch"):
        return int(getattr(v, name))
    raise CelError(NO_SUCH_OVERLOAD)
