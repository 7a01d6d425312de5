"""`podwhy snapshot` written as the pages arrive: the same bytes as a snapshot fetched whole, with a
bounded number of pages held at once (counted by the live source, not measured), and nothing left
behind (the real kubernetes client against the local API server of tests/apiserver.py)."""

from __future__ import annotations

import copy
import gzip
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy import clock
from podwhy.cli import app
from podwhy.model import objects as o
from podwhy.report.render import progress as progress_module
from podwhy.snapshot.live import source as source_module
from podwhy.snapshot.live.source import CONCURRENCY, HELD_KINDS, LIVE_RESOURCES, LiveSource
from podwhy.snapshot.writer import DumpTarget, write_dump
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
# Pods per page the server answers with: many pages of every list.
PAGE = 2
# Copies of the example's pods (under new names) that make the pods' list long.
COPIES = 40


def _fleet() -> list[dict[str, Any]]:
    objects = load_objects(EXAMPLE)
    pods = [obj for obj in objects if obj.get("kind") == "Pod"]
    for copy_number in range(COPIES):
        for pod in pods:
            twin = copy.deepcopy(pod)
            twin["metadata"]["name"] = f"{pod['metadata']['name']}-{copy_number}"
            objects.append(twin)
    return objects


def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))


def _fetched_whole(config: str, path: Path) -> tuple[bytes, int, int]:
    """The snapshot as it was written before it was streamed: every list held, then written; with
    the pages held at once and the pages listed."""
    live = LiveSource(kubeconfig=config, events_for=("", ""))
    fetched = live.fetch(raw=True)
    items: dict[tuple[str, str], list[Any]] = {}
    for r, v in fetched.items():
        if not isinstance(v, str):
            items.setdefault((r.kind, r.group_version), []).extend(v)
    missing = {r.kind: v for r, v in fetched.items() if isinstance(v, str)}
    write_dump(DumpTarget(path), items, missing, False, live.server_version, live.taken_at, live.params)
    return path.read_bytes(), live.peak_pages_held, live._state.pages


def _streamed(config: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, LiveSource]:
    sources: list[LiveSource] = []
    fetch = LiveSource.fetch

    def recorded(self: LiveSource, raw: bool = False) -> Any:
        sources.append(self)
        return fetch(self, raw)

    monkeypatch.setattr(LiveSource, "fetch", recorded)
    result = CliRunner().invoke(app, ["snapshot", "-o", str(path), "-A", "--kubeconfig", config])
    assert result.exit_code == 0, result.output
    data = path.read_bytes()
    return (gzip.decompress(data) if path.name.endswith(".gz") else data), sources[0]


@pytest.mark.parametrize("name", ["snap.json", "snap.json.gz"])
def test_streamed_snapshot_is_the_whole_fetchs_bytes_holding_few_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _fixed_clock(monkeypatch)
    with FakeApiServer(_fleet(), page_size_cap=PAGE, forbidden={"poddisruptionbudgets"}) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        whole, whole_peak, pages = _fetched_whole(config, tmp_path / "whole.json")
        folder = tmp_path / "out"
        folder.mkdir()
        streamed, live = _streamed(config, folder / name, monkeypatch)
    assert streamed == whole
    assert b'"podwhy.dev/missing-kinds"' in streamed and b"-39" in streamed  # the copies are in
    # Fetched whole, every page of raw JSON is held to the end; streamed, one per list in flight.
    assert pages > 10 * CONCURRENCY and whole_peak > 5 * CONCURRENCY
    # (and the pages of the few kinds held in memory: the example has none of them)
    assert 1 <= live.peak_pages_held <= CONCURRENCY and live.pages_held == 0
    assert [p.name for p in folder.iterdir()] == [name]  # no spool, no partial file left


def test_an_expired_list_starts_again_in_the_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fixed_clock(monkeypatch)
    with FakeApiServer(_fleet(), page_size_cap=PAGE) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        whole, _, _ = _fetched_whole(config, tmp_path / "whole.json")
        server.expire_continue_once = {"pods"}  # the pods' list expires once: it is listed again
        streamed, _ = _streamed(config, tmp_path / "snap.json", monkeypatch)
        assert "pods" not in server.expire_continue_once
    assert streamed == whole


def test_a_list_that_fails_midway_leaves_none_of_its_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fixed_clock(monkeypatch)
    with FakeApiServer(_fleet(), page_size_cap=PAGE) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        server.expire_continue_once = {"pods"}
        monkeypatch.setattr(source_module, "RETRIES", 0)  # so the expired list fails
        result = CliRunner().invoke(app, ["snapshot", "-o", str(tmp_path / "snap.json"), "--kubeconfig", config])
    assert result.exit_code != 0
    assert list(tmp_path.iterdir()) == [tmp_path / "config"]


def test_the_kinds_held_in_memory_are_all_a_param_can_be_among_the_lists() -> None:
    """live/params.py fetches as params ConfigMaps and custom kinds podwhy does not read; the
    writer writes a param the lists hold once, so those lists are held, not spooled."""
    for resource in LIVE_RESOURCES:
        if resource.kind not in HELD_KINDS:
            assert o.table_kind(resource.kind, resource.group_version) in o.KINDS, resource
    assert "ConfigMap" in HELD_KINDS and set(o.ADMISSION_KINDS) <= HELD_KINDS


def test_verbose_says_counts_and_rate_on_stderr_never_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "SHOW_AFTER_S", 0.0)
    monkeypatch.setattr(progress_module, "LINE_INTERVAL_S", 0.0)  # a line for every page
    with FakeApiServer(_fleet(), page_size_cap=PAGE) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        result = CliRunner().invoke(app, ["snapshot", "-o", "-", "-v", "--kubeconfig", config])
        quiet = CliRunner().invoke(app, ["snapshot", "-o", "-", "--kubeconfig", config])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("fetching: ")]
    assert len(lines) > 10
    assert all(line.endswith(" objects/s") and " kinds · " in line for line in lines)
    assert any("(Pod " in line for line in lines)
    assert [line for line in result.stderr.splitlines() if line.startswith("fetched ") and " objects/s" in line]
    assert result.stdout.startswith('{"apiVersion": "v1", "kind": "List"') and "objects/s" not in result.stdout
    # Without -v, stderr no terminal: no progress at all.
    assert "objects/s" not in quiet.stderr and "fetching:" not in quiet.stderr


def test_params_listed_after_the_lists_are_written_not_spooled(tmp_path: Path) -> None:
    """A custom kind's params a selector selects are listed once the policies are in: they are the
    params' own, never the sink's (a snapshot written as it streams still holds them)."""
    from tests.snapshot.test_live_params import CUSTOM, NODE, _binding, _policy

    custom = {"apiVersion": "example.com/v1", "kind": "ParamsConfig", "metadata": {"namespace": "shop"}}
    objects = [
        NODE,
        _policy("custom", "example.com/v1", "ParamsConfig"),
        _binding("b", "custom", {"selector": {"matchLabels": {"team": "a"}}, "namespace": "shop"}),
        {**custom, "metadata": {"name": "c", "namespace": "shop", "labels": {"team": "a"}}, "spec": {"max": 3}},
        {**custom, "metadata": {"name": "other", "namespace": "shop"}},
    ]
    with FakeApiServer(objects, extra_served=CUSTOM) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        dump = tmp_path / "snap.json"
        result = CliRunner().invoke(app, ["snapshot", "-o", str(dump), "-q", "--kubeconfig", config])
        listed = [r for r in server.requests if r.path.endswith("/paramsconfigs")]
    assert result.exit_code == 0, result.output
    assert listed  # listed by the selector, not got by name
    written = [item for item in json.loads(dump.read_bytes())["items"] if item["kind"] == "ParamsConfig"]
    assert [(i["metadata"]["name"], i["spec"]) for i in written] == [("c", {"max": 3})]
