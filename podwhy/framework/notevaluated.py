"""What podwhy could not evaluate for want of kinds the snapshot cannot vouch for, and why, as a
typed fact: report/words/notevaluated.py says it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

# Kinds whose admission the snapshot cannot vouch for (LimitRanger's defaults, ResourceQuota,
# PodSecurity's namespace level): a pod admitted without them that fits is then Inconclusive (one
# that does not fit still does not fit, whatever admission does).
# ADMISSION_CONTROL is no kind: the admission webhooks and policies a pod meets that podwhy does not
# call or cannot evaluate.
ADMISSION_CONTROL = "AdmissionControl"
ADMISSION_UNKNOWNS = frozenset({"LimitRange", "ResourceQuota", "Namespace", ADMISSION_CONTROL})
# Kinds without which no fit can be vouched for: a snapshot holding no Pod at all cannot tell
# how much room the cluster's pods take (a pod that does not fit still does not fit).
ROOM_UNKNOWNS = frozenset({"Pod"})
FIT_UNKNOWNS = ADMISSION_UNKNOWNS | ROOM_UNKNOWNS


class NotEvaluated(msgspec.Struct, frozen=True):
    """What was not evaluated and why. What: the plugins (by name, sorted), or else, for a pod that
    fits, the FIT_UNKNOWNS kinds whose part in the fit is unknown (sorted); neither when the fact
    belongs to one plugin's verdict. Why: the kinds the source simply holds none of (sorted), and
    the source's own words for those it could not read ("cannot list persistentvolumeclaims:
    forbidden"), each once, in the kinds' order. Two facts are equal exactly when they are said
    alike."""

    plugins: tuple[str, ...] = ()
    fit: tuple[str, ...] = ()
    lacking: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


def not_evaluated(kinds: Iterable[str], missing: Mapping[str, str]) -> NotEvaluated | None:
    """Why something needing KINDS cannot be evaluated, or None when the snapshot has all of them.

    MISSING maps a kind to its cause: "" when the source simply lacks it, otherwise the source's
    own words.
    """
    absent = sorted(kind for kind in set(kinds) if kind in missing)
    if not absent:
        return None
    return NotEvaluated(
        lacking=tuple(kind for kind in absent if not missing[kind]),
        errors=tuple(dict.fromkeys(missing[kind] for kind in absent if missing[kind])),
    )
