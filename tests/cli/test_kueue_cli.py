"""`podwhy explain job/NAME` and `workload/NAME` on the command line: kubectl's TYPE/NAME and -n,
closest names for a typo, and a pod in a namespace named like a TYPE still found."""

from __future__ import annotations

from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import TESTS

SHORT = str(TESTS / "scenarios-kueue" / "short-quota" / "cluster.yaml")
GATED = str(TESTS / "scenarios-kueue" / "gated-pod-group" / "cluster.yaml")


def _run(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["explain", *argv], env={"COLUMNS": "140", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_job_and_workload_spellings_agree() -> None:
    outs = {
        _run(ref, "-n", "ml", "--from", SHORT)[1].split("\n")[0]
        for ref in ("job/train-7", "jobs/train-7", "job.batch/train-7")
    }
    assert len(outs) == 1
    assert next(iter(outs)).startswith("Job ml/train-7 waits in queue team-a: ClusterQueue team-a has 4 of its 16")
    code, out, _ = _run("workload/job-train-7-8d3e2", "-n", "ml", "--from", SHORT)
    assert code == 1 and out.startswith("Workload ml/job-train-7-8d3e2 waits in queue team-a")


def test_a_typo_names_the_closest() -> None:
    code, out, err = _run("job/trian-7", "-n", "ml", "--from", SHORT)
    assert code != 0 and not out
    assert "Job ml/trian-7 not found in the snapshot" in err and "closest: ml/train-7" in err


def test_the_wrong_namespace_names_the_closest_in_all() -> None:
    _code, _out, err = _run("job/train-7", "-n", "default", "--from", SHORT)
    assert "closest: ml/train-7" in err


def test_a_gated_pod_gets_kueues_answer_first_then_the_schedulers() -> None:
    code, out, _ = _run("infer-group-0", "-n", "ml", "--from", GATED)
    first, *rest = out.split("\n")
    assert first.startswith("Pod ml/infer-group-0 waits in queue team-a: ClusterQueue team-a has 4 of its 16")
    assert any(line.startswith("Pod ml/infer-group-0 · Gated") for line in rest)
    assert code == 1


def test_wide_shows_counts_and_modes() -> None:
    _code, out, _ = _run("job/train-7", "-n", "ml", "--from", SHORT, "-o", "wide")
    assert "main ×2" in out and "NoFit" in out
