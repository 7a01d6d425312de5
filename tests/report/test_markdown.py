"""`-o markdown`: a compact table for a pull-request comment or a CI job summary, the detail folded,
cluster strings unable to break the table or open an HTML tag."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.report.render.markdown import cell
from tests.paths import REPO

ROOT = REPO
EXAMPLE = ROOT / "fixtures" / "examples" / "shop-cluster.yaml"
CAUSES = ROOT / "fixtures" / "pending" / "causes"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--complete", "-o", "markdown"])
    return result.exit_code, result.stdout


def test_a_cell_cannot_break_the_table_or_open_a_tag() -> None:
    assert cell("a|b\nc <script>&") == "a\\|b<br>c &lt;script&gt;&amp;"


def test_check_in_markdown(tmp_path: Path) -> None:
    manifest = tmp_path / "rc.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: nginx}\nspec:\n  replicas: 3\n"
        "  template:\n    metadata: {labels: {app: nginx}}\n    spec:\n      containers:\n"
        "      - {name: c, image: nginx, resources: {requests: {cpu: '1'}}}\n"
    )
    code, out = run("check", "-f", str(manifest), "--from", str(EXAMPLE))
    assert code == 1
    lines = out.splitlines()
    assert lines[:2] == ["### podwhy check: 2/3 replicas placed; 1 stay Pending in 1 workload", ""]
    assert "| Workload | Placed | Pending | Why |" in lines
    row = next(line for line in lines if line.startswith("| default/nginx (ReplicationController) | 2/3 | 1 |"))
    assert "Insufficient cpu" in row
    assert "<summary>Every replica</summary>" in lines and lines.count("</details>") == 1


def test_pending_in_markdown() -> None:
    code, out = run("pending", "-A", "--from", str(CAUSES))
    assert code == 1
    assert out.startswith("### podwhy pending\n\n**22 Pending pods in all 6 namespaces, 22 stuck, in 18 groups**\n")
    # The cause once, in the summary; its group refers to it.
    assert "| 4. scheduling gates [example.com/gpu-quota] | 2 Gated | ml/train-resnet (Job) |  |" in out
    assert "| 2 pods of ml/train-resnet (Job) | Gated | cause 4 (above)<br>· gated since 2026-03-04T10:22:15Z |" in out
    assert out.count("scheduling gates [example.com/gpu-quota]") == 1
    # Each command once, whole, in the summary's next steps; no group repeats its cause's sizing.
    assert "<summary>Suggestions</summary>" not in out and "kubectl delete pod -n batch cleanup-29541630-q8z7n" in out


def test_explain_in_markdown() -> None:
    code, out = run("explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(EXAMPLE))
    assert code == 1
    assert out.startswith("### podwhy explain\n\n**shop/checkout-7c9d8b6f5-m4x2q: Unschedulable**\n")
    assert "| 2 (worker-a1, worker-b1) | cpu: needs 2, free 1400m |" in out
    assert "suggestions, each verified</summary>" in out
