"""PodSecurity's words: a check's verdict (its forbidden reason and detail), the phrasing the
checks share (policy/helpers.go: pluralize, joinQuote), and the refusal that aggregates the
verdicts (policy/checks.go: AggregateCheckResult.ForbiddenDetail, as admission.go quotes the
policy):

    violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app"
    must set securityContext.allowPrivilegeEscalation=false), ...
"""

from __future__ import annotations

from podwhy.cluster.apiserver.admission.podsecurity.levels import Policy

# A check's verdict: None (allowed), or the forbidden reason and its detail.
Violation = tuple[str, str]


def plural(singular: str, many: str, count: int) -> str:
    """pluralize: SINGULAR for one, MANY otherwise."""
    return singular if count == 1 else many


def join_quote(items: list[str]) -> str:
    """joinQuote: each item double-quoted, comma-separated."""
    return '"' + '", "'.join(items) + '"' if items else ""


def named(names: list[str]) -> str:
    """`container "a"`, `containers "a", "b"`."""
    return f"{plural('container', 'containers', len(names))} {join_quote(names)}"


def refusal(policy: Policy, violations: list[Violation]) -> str:
    """The API server's words after `pods "NAME" is forbidden: ` (AggregateCheckResult.ForbiddenDetail)."""
    parts = [f"{reason} ({detail})" if detail else reason for reason, detail in violations]
    return f'violates PodSecurity "{policy}": {", ".join(parts)}'
