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


class UnevaluatedSelector(msgspec.Struct, frozen=True, order=True):
    """A DRA device selector whose value podwhy does not know: `owner` as upstream's allocator
    names it in its errors ("class gpu", "claim default/my-claim"), the selector's index there,
    and what it needs that podwhy does not evaluate (CelNotEvaluatedError.what: "cel:timestamp")."""

    owner: str
    index: int
    what: str


class NotEvaluated(msgspec.Struct, frozen=True):
    """What was not evaluated and why. What: the plugins (by name, sorted), or else, for a pod that
    fits, the FIT_UNKNOWNS kinds whose part in the fit is unknown (sorted); neither when the fact
    belongs to one plugin's verdict. Why: the kinds the source simply holds none of (sorted), and
    the source's own words for those it could not read ("cannot list persistentvolumeclaims:
    forbidden"), each once, in the kinds' order, and the DRA device selectors whose value on a
    node's devices podwhy cannot tell (sorted, each once). Two facts are equal exactly when they
    are said alike."""

    plugins: tuple[str, ...] = ()
    fit: tuple[str, ...] = ()
    lacking: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    selectors: tuple[UnevaluatedSelector, ...] = ()


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


def merged(facts: Iterable[NotEvaluated]) -> NotEvaluated:
    """One fact saying all of FACTS: each field's items once (sorted, errors in their order)."""
    facts = list(facts)
    return NotEvaluated(
        plugins=tuple(sorted({p for f in facts for p in f.plugins})),
        fit=tuple(sorted({k for f in facts for k in f.fit})),
        lacking=tuple(sorted({k for f in facts for k in f.lacking})),
        errors=tuple(dict.fromkeys(e for f in facts for e in f.errors)),
        selectors=tuple(sorted({s for f in facts for s in f.selectors})),
    )
