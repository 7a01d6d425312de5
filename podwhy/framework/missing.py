"""The verdict wording for plugins that need kinds the snapshot cannot vouch for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from podwhy.model.objects import plural

# Kinds whose admission can only add requests and limits to a pod (LimitRanger's defaults): a pod
# admitted without them that fits may not fit, but one that does not fit still does not.
REQUESTS_ADDED_AT_ADMISSION = frozenset({"LimitRange"})
# What admission might do with kinds the snapshot cannot vouch for: a pod that fits is then
# Inconclusive (one that does not fit still does not fit, whatever admission does).
ADMISSION_UNKNOWNS = {
    "LimitRange": "the requests its namespace's defaults may add",
    "ResourceQuota": "whether its namespace's ResourceQuotas admit it",
    "Namespace": "whether its namespace's PodSecurity level admits it",
}
# Kinds without which no fit can be vouched for: a snapshot holding no Pod at all cannot tell
# how much room the cluster's pods take (a pod that does not fit still does not fit).
ROOM_UNKNOWNS = {"Pod": "the room the cluster's pods take on its nodes"}
FIT_UNKNOWNS = {**ADMISSION_UNKNOWNS, **ROOM_UNKNOWNS}


def not_evaluated_reason(kinds: Iterable[str], missing: Mapping[str, str]) -> str:
    """Why a plugin needing KINDS was not evaluated, or "" when the snapshot has all of them.

    MISSING maps a kind to its cause: "" when the source simply lacks it ("the snapshot has
    no PersistentVolumeClaims"), otherwise the source's own words ("cannot list
    persistentvolumeclaims: forbidden").
    """
    absent = sorted(kind for kind in set(kinds) if kind in missing)
    if not absent:
        return ""
    parts: list[str] = []
    lacking = [kind for kind in absent if not missing[kind]]
    if lacking:
        parts.append("the snapshot has no " + ", ".join(plural(kind) for kind in lacking))
    parts.extend(dict.fromkeys(missing[kind] for kind in absent if missing[kind]))
    return "not evaluated: " + "; ".join(parts)
