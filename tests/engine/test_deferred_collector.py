"""explain and pending run with the cyclic garbage collector deferred (podwhy.heap.gc_deferred,
engine/explainpod.py and engine/pendingpods.py): off from the snapshot's load to the report, back
as it was afterwards, after an error too. The answer is the same either way."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import podwhy.engine.explainpod as explainpod
import podwhy.engine.pendingpods as pendingpods
from podwhy.engine import ExplainRequest, PendingRequest, explain, pending
from podwhy.errors import PodwhyError
from podwhy.report.model import encode_json
from podwhy.snapshot.source import FileSource
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"


def _explain() -> Any:
    return explain(ExplainRequest(pod_ref=POD, namespace="default", source=FileSource([str(EXAMPLE)])))


def _pending() -> Any:
    return pending(PendingRequest(FileSource([str(EXAMPLE)]), None))


# Each command, its module and a step it takes after the cycles (where the collector is looked at).
COMMANDS: list[tuple[str, Callable[[], Any], Any, str]] = [
    ("explain", _explain, explainpod, "build_report"),
    ("pending", _pending, pendingpods, "build_pending_report"),
]


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.parametrize(
    ("command", "module", "step"), [(c, m, s) for _, c, m, s in COMMANDS], ids=[n for n, *_ in COMMANDS]
)
def test_the_collector_is_off_while_a_command_runs_and_on_again_after(
    command: Callable[[], Any], module: Any, step: str, monkeypatch: pytest.MonkeyPatch, collector_on: None
) -> None:
    seen: list[bool] = []
    original = getattr(module, step)

    def looked_at(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, step, looked_at)
    command()
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize(
    ("command", "module", "step"), [(c, m, s) for _, c, m, s in COMMANDS], ids=[n for n, *_ in COMMANDS]
)
def test_after_an_error_the_collector_is_on_again(
    command: Callable[[], Any], module: Any, step: str, monkeypatch: pytest.MonkeyPatch, collector_on: None
) -> None:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise PodwhyError("made to fail")

    monkeypatch.setattr(module, step, failing)
    with pytest.raises(PodwhyError, match="made to fail"):
        command()
    assert gc.isenabled()


@pytest.mark.parametrize("command", [c for _, c, _, _ in COMMANDS], ids=[n for n, *_ in COMMANDS])
def test_a_collector_that_was_off_stays_off(command: Callable[[], Any]) -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        command()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("command", [c for _, c, _, _ in COMMANDS], ids=[n for n, *_ in COMMANDS])
def test_the_answer_is_the_same_with_the_collector_running(
    command: Callable[[], Any], monkeypatch: pytest.MonkeyPatch, collector_on: None
) -> None:
    deferred = encode_json(command())
    # Collections as often as the collector can make them: the first generation's threshold 1.
    thresholds = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    try:
        for module in (explainpod, pendingpods):
            monkeypatch.setattr(module, "gc_deferred", contextlib.nullcontext)
        running = encode_json(command())
    finally:
        gc.set_threshold(*thresholds)
    assert running == deferred
