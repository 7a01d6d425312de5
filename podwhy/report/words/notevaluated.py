"""What podwhy could not evaluate, in words: framework/notevaluated.py's fact said once ("not
evaluated: the snapshot has no PersistentVolumeClaims")."""

from __future__ import annotations

from collections.abc import Iterable

from podwhy.framework.notevaluated import ADMISSION_CONTROL, NotEvaluated, UnevaluatedSelector
from podwhy.model.objects import plural
from podwhy.report.words.admission import gap_text

# What admission, or the cluster's pods, might change of a pod that fits, for each kind the
# snapshot cannot vouch for (framework/notevaluated.py's FIT_UNKNOWNS).
FIT_UNKNOWN_WORDS = {
    "LimitRange": "the requests its namespace's defaults may add",
    "ResourceQuota": "whether its namespace's ResourceQuotas admit it",
    "Namespace": "whether its namespace's PodSecurity level admits it",
    "Pod": "the room the cluster's pods take on its nodes",
    ADMISSION_CONTROL: "whether the admission webhooks and policies it meets let it be created",
}
NOT_EVALUATED = "not evaluated: "
LACKS = "the snapshot has no "


def selector_text(selector: UnevaluatedSelector) -> str:
    """A DRA device selector podwhy cannot evaluate: "device selector #0 of class gpu needs CEL's
    timestamp, which podwhy does not evaluate" (names only: never the expression's text)."""
    return f"device selector #{selector.index} of {selector.owner} needs {gap_text(selector.what)}"


def why_text(fact: NotEvaluated) -> str:
    """Why it was not evaluated: "the snapshot has no StorageClasses; cannot list ...: forbidden"."""
    parts = [LACKS + ", ".join(plural(kind) for kind in fact.lacking)] if fact.lacking else []
    return "; ".join([*parts, *fact.errors, *map(selector_text, fact.selectors)])


def not_evaluated_text(fact: NotEvaluated) -> str:
    """The fact in one line: what was not evaluated (the plugins, or what a fit leaves unknown), and why."""
    why = why_text(fact)
    if fact.plugins:
        return f"{NOT_EVALUATED}{', '.join(fact.plugins)} ({why})"
    if fact.fit:
        said = "; ".join(FIT_UNKNOWN_WORDS[kind] for kind in fact.fit)
        return f"{NOT_EVALUATED}{said} ({why})" if why else NOT_EVALUATED + said
    return NOT_EVALUATED + why


def joined_why_text(facts: Iterable[NotEvaluated]) -> str:
    """Why several things were not evaluated, each cause once; the kinds the snapshot lacks in one
    sentence when that is all they say ("" for none)."""
    said = list(dict.fromkeys(why for fact in facts if (why := why_text(fact))))
    if len(said) > 1 and all(why.startswith(LACKS) for why in said):
        said = [LACKS + ", ".join(why.removeprefix(LACKS) for why in said)]
    return "; ".join(said)
