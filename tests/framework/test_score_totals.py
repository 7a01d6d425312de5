"""Placement's totals (run_scores with totals_only, and a ScoreMemo between identical pods) must be
the totals, best nodes and errors of scoring every plugin over every node in the profile's order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest

from podwhy.engine import scheduler_config
from podwhy.framework.interface import CycleState, Plugin
from podwhy.framework.profile import Profile
from podwhy.framework.scoring import ScoreMemo, ScoreOutcome, run_scores
from podwhy.framework.status import Status, error, success
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.plugins.registry import NODE_LOCAL_SCORES
from podwhy.scheduler.config import profile_for_pod
from podwhy.scheduler.cycle import make_framework
from podwhy.snapshot.source import FileSource
from tests.builders import make_handle, make_node, make_pod
from tests.conformance import case_dirs, cluster_file


def _outcome(outcome: ScoreOutcome) -> tuple[dict[str, int], list[str], str | None]:
    return outcome.totals, outcome.best_nodes, outcome.error


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in case_dirs()])
def test_totals_are_the_rows_totals(case: Path) -> None:
    meta = json.loads((case / "case.json").read_text())
    config = scheduler_config(case / meta["config"] if "config" in meta else None)
    snapshot = FileSource([str(cluster_file(case))]).load()
    pod = next(p for p in snapshot.pods if f"{p.metadata.namespace}/{p.metadata.name}" == meta["pod"])
    profile = profile_for_pod(config, pod)
    if pod.spec.node_name or profile is None:
        pytest.skip("the target is bound, or no profile schedules it")
    framework = make_framework(snapshot, profile)
    info = PodInfo(pod)

    def scores(memo: ScoreMemo | None, totals_only: bool) -> tuple[dict[str, int], list[str], str | None]:
        outcome = framework.run_filters(info)
        nodes = [framework.handle.node_info_by_name[name] for name in outcome.feasible]
        if not nodes:
            pytest.skip("no node fits")
        return _outcome(
            run_scores(profile, framework.plugins, outcome.state, info, nodes, snapshot.missing, memo, totals_only)
        )

    rows = scores(None, totals_only=False)
    assert scores(None, totals_only=True) == rows
    memo = ScoreMemo(NODE_LOCAL_SCORES)
    assert scores(memo, totals_only=True) == rows  # the memo filled
    assert scores(memo, totals_only=True) == rows  # the memo taken


class _Fixed(Plugin):
    """Scores each node as SCORES says (an error for a missing node), optionally normalizing."""

    NAME: ClassVar[str] = "Fixed"
    SCORES: ClassVar[dict[str, int]] = {}

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> tuple[int, Status]:
        value = self.SCORES.get(node_info.name)
        return (0, error(f"no score for {node_info.name}")) if value is None else (value, success())


class _Static(_Fixed):
    NAME = "Static"
    SCORES: ClassVar[dict[str, int]] = {"n1": 10, "n2": 150, "n3": 30}


class _Failing(_Fixed):
    NAME = "Failing"
    SCORES: ClassVar[dict[str, int]] = {"n1": 1, "n3": 2}


class _Normalized(_Fixed):
    NAME = "Normalized"
    SCORES: ClassVar[dict[str, int]] = {"n1": 4, "n2": 2, "n3": 4}

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        for node, value in scores.items():
            scores[node] = value * 25
        return success()


@pytest.mark.parametrize(
    "order",
    [
        ["Normalized", "Static", "Failing"],
        ["Failing", "Static", "Normalized"],
        ["Static", "Normalized"],
        ["Normalized"],
        ["Failing"],
    ],
)
def test_memo_totals_meet_the_first_error_of_the_profiles_order(order: list[str]) -> None:
    """A static (memoized, not normalized) plugin's error, or its score out of range, is the
    error only when no plugin before it in the profile's order fails."""
    handle = make_handle(*(make_node(n).obj() for n in ("n1", "n2", "n3")))
    classes: dict[str, type[_Fixed]] = {c.NAME: c for c in (_Static, _Failing, _Normalized)}
    plugins: dict[str, Plugin] = {name: classes[name](handle) for name in order}
    profile = Profile(score=dict.fromkeys(order, 2))
    info = PodInfo(make_pod("p").obj())
    rows = _outcome(run_scores(profile, plugins, CycleState(), info, handle.node_infos))
    memo = ScoreMemo(order)
    for _ in range(2):
        got = run_scores(profile, plugins, CycleState(), info, handle.node_infos, memo=memo, totals_only=True)
        assert _outcome(got) == rows
    if "Failing" not in order and "Static" not in order:
        assert rows == ({"n1": 200, "n2": 100, "n3": 200}, ["n1", "n3"], None)
