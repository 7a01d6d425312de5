"""Progress: only for work that takes long, in words that say what is really done."""

from __future__ import annotations

import gzip
import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from podwhy.report.render import progress as progress_module
from podwhy.report.render.progress import _Display, describe
from podwhy.snapshot import source as source_module
from podwhy.snapshot.live.source import LiveSource, Progress
from podwhy.snapshot.source import FileSource, ReadProgress
from tests.apiserver import FakeApiServer, load_objects
from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
MB = 1024 * 1024


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (ReadProgress("/dumps/cluster.json", "reading", 312 * MB, 1020 * MB), "reading cluster.json 312/1,020 MB"),
        (ReadProgress("cluster.json.gz", "decompressing", 80 * MB, 80 * MB), "decompressing cluster.json.gz (80 MB)"),
        (ReadProgress("cluster.json", "decoding", 1020 * MB, 1020 * MB), "decoding cluster.json (1,020 MB)"),
        (ReadProgress("small.yaml", "decoding", 2000, 2000), "decoding small.yaml"),
        (ReadProgress("cluster.json", "loaded", 0, 0), ""),
        (
            Progress(kinds_done=3, kinds_total=19, objects=1234, current="pods", page=14),
            "listing pods, page 14 · 3/19 kinds · 1,234 objects",
        ),
        (Progress(kinds_done=19, kinds_total=19, objects=1234, current="pods", page=14), ""),
        (Progress(kinds_total=19), ""),
    ],
)
def test_progress_says_what_is_done(event: Progress | ReadProgress, words: str) -> None:
    assert describe(event) == words
    assert "connect" not in describe(event)


def test_a_fetch_says_its_largest_kinds_and_its_rate() -> None:
    counts = {"Pod": 10000, "Node": 2000, "Event": 0, "Namespace": 9, "DaemonSet": 5}
    fetch = Progress(kinds_done=3, kinds_total=19, objects=12014, current="pods", page=21, by_kind=counts)
    assert describe(fetch, 4.0) == (
        "listing pods, page 21 · 3/19 kinds · 12,014 objects (Pod 10,000, Node 2,000, Namespace 9, …) · 3,004 objects/s"
    )
    assert progress_module.fetch_line(fetch, 2.0) == (
        "fetching: 3/19 kinds · 12,014 objects (Pod 10,000, Node 2,000, Namespace 9, …) · 6,007 objects/s"
    )
    assert progress_module.fetch_summary(fetch, 4.0) == (
        "fetched 12,014 objects (Pod 10,000, Node 2,000, Namespace 9, …) in 4.0 s · 3,004 objects/s"
    )


def _display() -> tuple[_Display, io.StringIO]:
    out = io.StringIO()
    return _Display(Console(file=out, force_terminal=True, width=80)), out


def test_nothing_shows_before_a_second_has_passed() -> None:
    display, _ = _display()
    display.update(ReadProgress("cluster.json", "reading", MB, 100 * MB))
    assert display.status is None
    display.begun -= progress_module.SHOW_AFTER_S  # a second has gone by
    display.update(ReadProgress("cluster.json", "reading", 2 * MB, 100 * MB))
    assert display.status is not None
    display.update(ReadProgress("cluster.json", "loaded", 0, 0))  # reading is over: gone for good
    assert display.status is None and display.done
    display.start()
    assert display.status is None


def test_the_timer_shows_the_last_words_of_work_that_went_quiet() -> None:
    display, out = _display()
    display.update(ReadProgress("cluster.json", "decoding", 500 * MB, 500 * MB))
    display.start()  # what the timer does after SHOW_AFTER_S
    assert display.status is not None
    display.stop()
    assert "decoding cluster.json (500 MB)" in out.getvalue()


def test_quiet_when_disabled_or_not_a_terminal() -> None:
    with progress_module.fetch_progress(False) as callback:
        assert callback is None
    with progress_module.fetch_progress(True) as callback:  # pytest's stderr is no terminal
        assert callback is None


def test_large_files_are_read_in_reported_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_module, "CHUNKED_READ_BYTES", 1000)
    monkeypatch.setattr(source_module, "READ_CHUNK_BYTES", 1000)
    plain = tmp_path / "cluster.yaml"
    shutil.copy(EXAMPLE, plain)
    packed = tmp_path / "cluster.yaml.gz"
    packed.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    for path, steps in (
        (plain, ["reading", "decoding", "loaded"]),
        (packed, ["decompressing", "decoding", "loaded"]),  # read and decompressed together
    ):
        events: list[ReadProgress] = []
        snapshot = FileSource([str(path)], progress=events.append).load()
        assert [s for i, s in enumerate(e.step for e in events) if i == 0 or events[i - 1].step != s] == steps
        reads = [e for e in events if e.step == steps[0]]  # of the bytes in the file
        assert len(reads) == -(-path.stat().st_size // 1000)
        assert [e.done for e in reads] == sorted(e.done for e in reads) and reads[-1].done == path.stat().st_size
        assert len(snapshot.pods) == len(FileSource([str(EXAMPLE)]).load().pods)


def test_live_lists_report_their_pages(tmp_path: Path) -> None:
    events: list[tuple[str, int, int]] = []
    with FakeApiServer(load_objects(EXAMPLE), page_size_cap=3) as server:
        source = LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config")))
        source.progress = lambda p: events.append((p.current, p.page, p.kinds_done))
        source.load()
    pod_pages = sorted({page for kind, page, _ in events if kind == "pods"})
    assert pod_pages[0] == 1 and len(pod_pages) > 1
    assert pod_pages == list(range(1, len(pod_pages) + 1))
    assert events[-1][2] == len(source.resources)


def test_check_reports_the_replicas_it_places() -> None:
    from podwhy.cluster.check import place
    from podwhy.cluster.manifests import ManifestSource
    from podwhy.cluster.placementreasons import PlaceProgress
    from podwhy.scheduler.config import default_config
    from podwhy.snapshot.cluster import Snapshot
    from tests.builders import make_node

    manifest = (
        b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n"
        b"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        b"    spec: {containers: [{name: c, image: x}]}\n"
    )
    snapshot = Snapshot(nodes=[make_node("n1").alloc(cpu="4", memory="8Gi", pods=110).obj()])
    workloads = ManifestSource(["-"], stdin=io.BytesIO(manifest)).load_into(snapshot)
    seen: list[PlaceProgress] = []
    place(snapshot, workloads, default_config(), progress=seen.append)
    assert seen == [PlaceProgress(0, 3, "default/web (Deployment)"), PlaceProgress(3, 3, "")]
    assert describe(seen[0]) == "placing replicas 0/3 · default/web (Deployment)"
    assert describe(seen[1]) == ""  # done: the display goes
