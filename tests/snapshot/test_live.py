"""Live mode: the real kubernetes client against a local API server the tests start."""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.errors import PodwhyError, UsageError
from podwhy.snapshot.live.errors import UNTRUSTED_HINT
from podwhy.snapshot.live.source import LiveSource
from podwhy.snapshot.source import FileSource
from tests.apiserver import TLS_CERT, FakeApiServer, load_objects
from tests.conformance import GOLDEN, case_dirs, cluster_file
from tests.oldversions import DRA_KINDS, dra_to
from tests.paths import REPO
from tests.snapshot.test_redact import comparable

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
POD = "shop/checkout-7c9d8b6f5-m4x2q"
CA_STATUS_PATH = "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status"


@pytest.fixture
def shop() -> Iterator[FakeApiServer]:
    with FakeApiServer(load_objects(EXAMPLE), page_size_cap=3) as server:
        yield server


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["explain", *args], env=env)
    return result.exit_code, result.stdout, result.stderr


def _same_snapshot(a: Any, b: Any) -> None:
    def keys(snapshot: Any) -> dict[str, Any]:
        return {
            "nodes": [n.metadata.name for n in snapshot.nodes],
            "pods": sorted(f"{p.metadata.namespace}/{p.metadata.name}" for p in snapshot.pods),
            "pvcs": sorted(snapshot.persistent_volume_claims),
            "pvs": sorted(snapshot.persistent_volumes),
            "classes": sorted(snapshot.priority_classes),
        }

    assert keys(a) == keys(b)


def test_live_snapshot_equals_the_dump_and_sends_only_gets(shop: FakeApiServer, tmp_path: Path) -> None:
    source = LiveSource(kubeconfig=str(shop.kubeconfig(tmp_path / "config")))
    live = source.load()
    _same_snapshot(live, FileSource([str(EXAMPLE)], complete=True).load())
    assert shop.methods == {"GET"}
    # Lists are paged: the pods of the example take several pages of 3.
    pod_lists = [r for r in shop.requests if r.path == "/api/v1/pods"]
    assert len(pod_lists) > 1 and all(r.query["limit"] for r in pod_lists)
    assert not any("secrets" in r.path for r in shop.requests)
    # Of the ConfigMaps, only Cluster Autoscaler's status, by name: never a list of them.
    assert [r.path for r in shop.requests if "configmaps" in r.path] == [CA_STATUS_PATH]
    assert source.requests_sent == len(shop.requests)


def test_forbidden_and_unserved_kinds_are_recorded_as_missing(tmp_path: Path) -> None:
    objects = load_objects(EXAMPLE)
    with FakeApiServer(objects, forbidden={"persistentvolumeclaims"}, unserved_groups={"resource.k8s.io/v1"}) as s:
        snapshot = LiveSource(kubeconfig=str(s.kubeconfig(tmp_path / "config"))).load()
    assert snapshot.missing["PersistentVolumeClaim"] == "cannot list persistentvolumeclaims: forbidden"
    assert snapshot.missing["ResourceClaim"] == (
        "the server does not serve resourceclaims.resource.k8s.io in resource.k8s.io/v1, resource.k8s.io/v1beta2, "
        "resource.k8s.io/v1beta1, resource.k8s.io/v1alpha3"
    )
    assert "Node" not in snapshot.missing and snapshot.nodes


def test_expired_continue_token_restarts_the_list_and_500_is_retried(tmp_path: Path) -> None:
    objects = load_objects(EXAMPLE)
    with FakeApiServer(objects, page_size_cap=2, expire_continue_once={"pods"}, fail_once={"nodes"}) as s:
        snapshot = LiveSource(kubeconfig=str(s.kubeconfig(tmp_path / "config"))).load()
        statuses = [r.path for r in s.requests if r.path == "/api/v1/nodes"]
    _same_snapshot(snapshot, FileSource([str(EXAMPLE)], complete=True).load())
    assert len(statuses) >= 2  # the 500, then success


def test_cannot_list_pods_is_an_error(tmp_path: Path) -> None:
    with FakeApiServer(load_objects(EXAMPLE), forbidden={"pods"}) as s:
        with pytest.raises(PodwhyError, match=r"cannot list pods on http://127\.0\.0\.1:[0-9]+: pods is forbidden"):
            LiveSource(kubeconfig=str(s.kubeconfig(tmp_path / "config"))).load()


def test_unknown_context_is_a_usage_error(shop: FakeApiServer, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no context 'prod' in the kubeconfig"):
        LiveSource(kubeconfig=str(shop.kubeconfig(tmp_path / "config")), context="prod").connect()


def test_context_namespace_is_the_default_namespace(shop: FakeApiServer, tmp_path: Path) -> None:
    config = shop.kubeconfig(tmp_path / "config", namespace="shop")
    code, out, err = _cli("checkout-7c9d8b6f5-m4x2q", "--kubeconfig", str(config), "-o", "json")
    assert code == 1, err
    assert json.loads(out)["pod"]["namespace"] == "shop"


def test_cli_live_report_equals_offline_report(shop: FakeApiServer, tmp_path: Path) -> None:
    config = shop.kubeconfig(tmp_path / "config")
    code_live, live, err = _cli(POD, "--kubeconfig", str(config), "-o", "json")
    # The same cluster dumped with kubectl: its objects as the server stores them.
    dump = shop.dump(tmp_path / "cluster.json")
    code_file, offline, _ = _cli(POD, "--from", str(dump), "--complete", "-o", "json")
    assert (code_live, err) == (code_file, "")
    a, b = json.loads(live), json.loads(offline)
    assert a["snapshot"].pop("sources") != b["snapshot"].pop("sources")
    assert a["snapshot"].pop("takenAt") and "takenAt" not in b["snapshot"]
    # Live, the API server says its version; the dump (not written by podwhy snapshot) does not.
    assert [a["scheduler"].pop(k) for k in ("versionSource", "clusterVersion")] == ["apiServer", "v1.35.4"]
    assert [b["scheduler"].pop(k) for k in ("versionSource", "clusterVersion")] == ["default", None]
    assert a == b
    assert shop.methods == {"GET"}


def test_a_missing_kubeconfig_is_one_line(tmp_path: Path) -> None:
    code, out, err = _cli(POD, "--kubeconfig", str(tmp_path / "absent"))
    assert (code, out) == (3, "")
    assert err.count("\n") == 1 and "the kubeconfig file does not exist (--kubeconfig)" in err


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A local port bound but not listening: a connection to it is refused, whatever the machine runs."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_refused_connection_says_kubectls_words_and_offers_a_dump(tmp_path: Path, closed_port: int) -> None:
    code, out, err = _cli(POD, "--kubeconfig", str(_config_for(tmp_path, f"http://127.0.0.1:{closed_port}")))
    assert (code, out) == (3, "")
    assert err == (
        f"podwhy: error: the connection to the server 127.0.0.1:{closed_port} was refused (did you specify the"
        " right host or port? It is the server of the kubeconfig's context, chosen with --kubeconfig and"
        " --context; to explain offline, pass --from and a dump)\n"
    )


@pytest.fixture
def https() -> Iterator[FakeApiServer]:
    with FakeApiServer(load_objects(EXAMPLE), tls=True) as server:
        yield server


def test_an_untrusted_certificate_keeps_the_whole_message_and_names_the_ca(
    https: FakeApiServer, tmp_path: Path
) -> None:
    code, out, err = _cli(POD, "--kubeconfig", str(https.kubeconfig(tmp_path / "config")))
    assert (code, out) == (3, "")
    # The TLS library's words whole, its closing parenthesis included, then the hint.
    url = re.escape(https.url)
    hint = re.escape(UNTRUSTED_HINT)
    said = r"certificate verify failed: self.signed certificate( \([^()]*\))?"
    assert re.fullmatch(f"podwhy: error: TLS handshake with {url} failed: {said} \\({hint}\\)\n", err), err
    assert "certificate-authority" in UNTRUSTED_HINT and "--insecure-skip-tls-verify" in UNTRUSTED_HINT


def _report(code: int, out: str, err: str) -> dict[str, Any]:
    assert (code, err) == (1, ""), err
    report: dict[str, Any] = json.loads(out)
    report["snapshot"].pop("sources")
    report["snapshot"].pop("takenAt")
    return report


def test_insecure_skip_tls_verify_skips_only_the_certificate_check(https: FakeApiServer, tmp_path: Path) -> None:
    config = https.kubeconfig(tmp_path / "config")
    skipped = _report(*_cli(POD, "--kubeconfig", str(config), "--insecure-skip-tls-verify", "-o", "json"))
    # The same report as with the cluster's CA in the kubeconfig, and no warning on stderr.
    trusted = tmp_path / "trusted"
    doc = yaml.safe_load(config.read_text())
    doc["clusters"][0]["cluster"]["certificate-authority"] = str(TLS_CERT)
    trusted.write_text(yaml.safe_dump(doc))
    assert _report(*_cli(POD, "--kubeconfig", str(trusted), "-o", "json")) == skipped
    # With a CA in the kubeconfig too (kubectl sets it aside), and the credentials still sent.
    assert _report(*_cli(POD, "--kubeconfig", str(trusted), "--insecure-skip-tls-verify", "-o", "json")) == skipped
    trusted.write_text(trusted.read_text().replace(https.token, "expired"))
    code, _, err = _cli(POD, "--kubeconfig", str(trusted), "--insecure-skip-tls-verify")
    assert code == 3 and "Unauthorized" in err and "TLS" not in err
    assert {r.user_agent.split("/")[0] for r in https.requests} == {"podwhy"}


@pytest.mark.parametrize("command", [["explain", POD], ["pending", "-A"], ["check", "-f"], ["snapshot", "-o", "-"]])
def test_every_live_command_takes_insecure_skip_tls_verify(
    https: FakeApiServer, tmp_path: Path, command: list[str]
) -> None:
    config = str(https.kubeconfig(tmp_path / "config"))
    if command == ["check", "-f"]:
        pod = tmp_path / "pod.yaml"
        pod.write_text("kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n")
        command = [*command, str(pod)]
    result = CliRunner().invoke(app, [*command, "--kubeconfig", config, "--insecure-skip-tls-verify", "-q"])
    assert result.exit_code in (0, 1, 4) and result.stdout, result.stderr
    refused = CliRunner().invoke(app, [*command, "--kubeconfig", config, "-q"])
    assert refused.exit_code == 3 and "certificate verify failed" in refused.stderr


def test_insecure_skip_tls_verify_is_for_live_mode() -> None:
    code, out, err = _cli(POD, "--from", str(EXAMPLE), "--insecure-skip-tls-verify")
    assert (code, out) == (2, "")
    assert "--insecure-skip-tls-verify are for live mode" in err


def test_wrong_token_is_one_line(shop: FakeApiServer, tmp_path: Path) -> None:
    config = shop.kubeconfig(tmp_path / "config")
    config.write_text(config.read_text().replace(shop.token, "expired"))
    code, out, err = _cli(POD, "--kubeconfig", str(config))
    assert (code, out) == (3, "")
    assert err.count("\n") == 1 and "Unauthorized" in err


def test_unknown_pod_names_the_closest(shop: FakeApiServer, tmp_path: Path) -> None:
    code, out, err = _cli("shop/checkout-7c9d8b6f5-m4x2x", "--kubeconfig", str(shop.kubeconfig(tmp_path / "c")))
    assert (code, out) == (3, "")
    assert "closest: shop/checkout-7c9d8b6f5-m4x2q" in err


def test_from_and_live_options_do_not_mix(tmp_path: Path) -> None:
    code, out, err = _cli(POD, "--from", str(EXAMPLE), "--complete", "--context", "x")
    assert (code, out) == (2, "")
    assert "live mode" in err


def _config_for(tmp: Path, server: str) -> Path:
    path = tmp / "config"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": server}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "c",
            }
        )
    )
    return path


# Every sixth recording by default; PODWHY_LIVE_ALL=1 serves every golden cluster (a few minutes).
LIVE_CASES = case_dirs() if os.environ.get("PODWHY_LIVE_ALL") else case_dirs()[::6]


@pytest.mark.parametrize("case", LIVE_CASES, ids=lambda c: c.name)
def test_live_and_dump_agree_on_golden_clusters(case: Path, tmp_path: Path) -> None:
    """The same objects served by an API server or read from the dump give the same report."""
    from podwhy.engine import ExplainRequest, explain
    from podwhy.report.model import to_builtins

    meta = json.loads((case / "case.json").read_text())
    config = case / meta["config"] if "config" in meta else None
    with FakeApiServer(load_objects(cluster_file(case))) as server:
        live = LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config")))
        reports = [
            # The release named: live, /version would say it; the dump tells only its kubelets'.
            to_builtins(
                explain(
                    ExplainRequest(
                        meta["pod"],
                        "default",
                        source,
                        scheduler_config=config,
                        kube_version="1.35",
                    )
                )
            )
            for source in (live, FileSource([str(cluster_file(case))], complete=True))
        ]
        assert server.methods == {"GET"}
    for report in reports:
        report["snapshot"].pop("sources")
        report["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    assert reports[0] == reports[1]


def _snapshot_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["snapshot", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("redact", [False, True])
def test_snapshot_reads_back_to_the_live_report(tmp_path: Path, redact: bool) -> None:
    objects = load_objects(EXAMPLE)
    for obj in objects:  # free text that --redact must not let through
        if obj.get("kind") == "Pod":
            obj["spec"]["containers"][0]["env"] = [{"name": "PASSWORD", "value": "hunter2"}]
            obj["spec"]["containers"][0]["command"] = ["run", "--token=hunter2"]
            obj["metadata"].setdefault("annotations", {})["secret-note"] = "hunter2"
    with FakeApiServer(objects, forbidden={"poddisruptionbudgets"}, page_size_cap=4) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        dump = tmp_path / "snap.json.gz"
        code, out, err = _snapshot_cli("-o", str(dump), "-A", "--kubeconfig", config, *(["--redact"] if redact else []))
        assert (code, out) == (0, ""), err
        assert "cannot list poddisruptionbudgets.policy: forbidden" in err
        _, live, _ = _cli(POD, "--kubeconfig", config, "-o", "json")
        assert server.methods == {"GET"}
    _, offline, _ = _cli(POD, "--from", str(dump), "-o", "json")
    a, b = json.loads(live), json.loads(offline)
    a["snapshot"].pop("sources")
    a["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    b["snapshot"].pop("sources")
    b["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    if redact:
        # Merge patches are made from the pod's JSON, which a redacted snapshot trims: the
        # suggestion says to run its command instead.
        assert "hunter2" not in offline
        for dump_s in b["suggestions"]:
            if any(p.get("kind") == "Pod" and "spec" in (p.get("patch") or {}) for p in dump_s["patches"]):
                assert dump_s["summary"].endswith("run the command instead)")
        b, a = comparable(b, a)
    assert a == b
    assert a["snapshot"]["missingKinds"] == ["PodDisruptionBudget"]
    import gzip

    text = gzip.decompress(dump.read_bytes()).decode()
    assert ("hunter2" in text) is not redact


@pytest.mark.parametrize("case", LIVE_CASES[::4], ids=lambda c: c.name)
def test_redacted_snapshot_keeps_every_verdict(case: Path, tmp_path: Path) -> None:
    meta = json.loads((case / "case.json").read_text())
    args = ["--scheduler-config", str(case / meta["config"])] if "config" in meta else []
    # The dump records the API server's version, the recording's file does not: name the release.
    args += ["--kube-version", "1.35"]
    with FakeApiServer(load_objects(cluster_file(case))) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        dump = tmp_path / "snap.json"
        assert _snapshot_cli("-o", str(dump), "--kubeconfig", config, "--redact", "-n", "default")[0] == 0
    _, redacted, _ = _cli(meta["pod"], "--from", str(dump), "-o", "json", *args)
    _, original, _ = _cli(meta["pod"], "--from", str(cluster_file(case)), "--complete", "-o", "json", *args)
    a, b = comparable(json.loads(redacted), json.loads(original))
    assert a == b
    assert (a["verdict"], a["message"]) == (json.loads(original)["verdict"], json.loads(original)["message"])


def test_rbac_role_grants_exactly_what_live_mode_reads(shop: FakeApiServer, tmp_path: Path) -> None:
    import yaml

    from podwhy.snapshot.live.params import CONFIG_MAPS
    from podwhy.snapshot.live.source import CA_STATUS, EVENTS, LIVE_RESOURCES

    docs = list(yaml.safe_load_all((REPO / "deploy" / "rbac.yaml").read_text()))
    (cluster_role,) = [d for d in docs if d["kind"] == "ClusterRole"]
    (role,) = [d for d in docs if d["kind"] == "Role"]
    granted = {
        (group, res) for rule in cluster_role["rules"] for group in rule["apiGroups"] for res in rule["resources"]
    }
    assert all(rule["verbs"] == ["get", "list"] for rule in cluster_role["rules"])
    listed = [r for r in (*LIVE_RESOURCES, EVENTS) if not r.name]
    # And ConfigMaps: the params of ValidatingAdmissionPolicies (live/params.py reads only those a
    # binding's paramRef can select).
    assert granted == {(r.group, r.plural) for r in listed} | {(CONFIG_MAPS.group, CONFIG_MAPS.plural)}
    assert ("", "secrets") not in granted
    # Cluster Autoscaler's status: get by name in its namespace (a cluster that grants no more).
    assert role["metadata"]["namespace"] == CA_STATUS.namespace
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [CA_STATUS.name], "verbs": ["get"]}
    ]
    assert {d["kind"] for d in docs} == {"ClusterRole", "Role"}
    _cli(POD, "--kubeconfig", str(shop.kubeconfig(tmp_path / "config")))
    assert {"/apis/karpenter.sh/v1/nodepools", CA_STATUS_PATH} <= {r.path for r in shop.requests}
    for request in shop.requests:
        if request.path in ("/api", "/apis"):
            continue  # discovery, which every authenticated user may read (system:discovery)
        if request.path == "/version":
            continue  # a non-resource URL every user may read (ClusterRole system:public-info-viewer)
        if request.path == CA_STATUS_PATH:
            continue  # the Role's one object
        parts = request.path.strip("/").split("/")
        group = "" if parts[0] == "api" else parts[1]
        assert (group, parts[-1]) in granted, request.path


def test_pod_names_complete_from_a_dump() -> None:
    from types import SimpleNamespace

    from podwhy.cli import _complete_pod

    ctx = SimpleNamespace(params={"from_": [str(EXAMPLE)]})
    assert _complete_pod(ctx, "shop/checkout") == [POD]  # type: ignore[arg-type]


def _with_cron_job_run() -> list[dict[str, Any]]:
    """The example cluster plus a CronJob, its Job, and the Job's Pending pod."""
    owner = {"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly", "uid": "uid-cj", "controller": True}
    job_ref = {"apiVersion": "batch/v1", "kind": "Job", "name": "nightly-29541630", "uid": "uid-j", "controller": True}
    template = {"spec": {"containers": [{"name": "c", "image": "tools:1"}], "restartPolicy": "Never"}}
    return [
        *load_objects(EXAMPLE),
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "nightly", "namespace": "shop", "uid": "uid-cj"},
            "spec": {"schedule": "30 0 * * *", "jobTemplate": {"spec": {"template": template}}},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "nightly-29541630", "namespace": "shop", "uid": "uid-j", "ownerReferences": [owner]},
            "spec": {"template": template},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "nightly-29541630-x7k2p", "namespace": "shop", "ownerReferences": [job_ref]},
            "spec": {**template["spec"], "nodeSelector": {"pool": "none"}},
            "status": {"phase": "Pending"},
        },
    ]


def _pending_cli(*args: str) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(app, ["pending", "-A", "-o", "json", *args])
    return result.exit_code, json.loads(result.stdout), result.stderr


def _owner_of(report: dict[str, Any], pod: str) -> str | None:
    return next(g["owner"] for g in report["groups"] if pod in g["pods"])


def test_live_mode_lists_jobs_and_cron_jobs_to_name_owners(tmp_path: Path) -> None:
    with FakeApiServer(_with_cron_job_run(), page_size_cap=3) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        snapshot = LiveSource(kubeconfig=config).load()
        code, report, err = _pending_cli("--kubeconfig", config)
        paths = {r.path for r in server.requests}
        assert server.methods == {"GET"}
    assert {"/apis/batch/v1/jobs", "/apis/batch/v1/cronjobs"} <= paths
    assert list(snapshot.jobs) == ["shop/nightly-29541630"] and list(snapshot.cron_jobs) == ["shop/nightly"]
    assert "Job" not in snapshot.missing and "CronJob" not in snapshot.missing
    assert code == 1, err
    assert _owner_of(report, "shop/nightly-29541630-x7k2p") == "shop/nightly (CronJob)"


def test_jobs_that_cannot_be_listed_only_leave_owners_unlifted(tmp_path: Path) -> None:
    """Forbidden Jobs and CronJobs are missing kinds, which no plugin needs: every verdict stays."""
    objects = _with_cron_job_run()
    with FakeApiServer(objects) as allowed, FakeApiServer(objects, forbidden={"jobs", "cronjobs"}) as denied:
        reports = []
        for server in (allowed, denied):
            config = str(server.kubeconfig(tmp_path / f"config-{server.url.rpartition(':')[2]}"))
            code, report, err = _pending_cli("--kubeconfig", config)
            assert code == 1, err
            explained = json.loads(_cli(POD, "--kubeconfig", config, "-o", "json")[1])
            reports.append((report, explained))
    (pending_ok, explain_ok), (pending_denied, explain_denied) = reports
    assert explain_denied["snapshot"].pop("missingKinds") == ["CronJob", "Job"]
    assert explain_ok["snapshot"].pop("missingKinds") == []
    for doc in (explain_ok, explain_denied):
        doc["snapshot"].pop("sources")
        doc["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    assert explain_ok == explain_denied
    assert "NotEvaluated" not in json.dumps(explain_denied)
    assert _owner_of(pending_denied, "shop/nightly-29541630-x7k2p") == "shop/nightly-29541630 (Job)"
    assert [g["verdict"] for g in pending_ok["groups"]] == [g["verdict"] for g in pending_denied["groups"]]


def test_snapshot_dump_keeps_jobs_and_cron_jobs(tmp_path: Path) -> None:
    with FakeApiServer(_with_cron_job_run()) as server:
        dump = tmp_path / "snap.json"
        code, out, err = _snapshot_cli("-o", str(dump), "-A", "--kubeconfig", str(server.kubeconfig(tmp_path / "c")))
        assert (code, out) == (0, ""), err
    snapshot = FileSource([str(dump)]).load()
    assert list(snapshot.jobs) == ["shop/nightly-29541630"] and list(snapshot.cron_jobs) == ["shop/nightly"]
    assert not snapshot.missing and not snapshot.ignored_kinds
    code, report, _ = _pending_cli("--from", str(dump))
    assert _owner_of(report, "shop/nightly-29541630-x7k2p") == "shop/nightly (CronJob)"


# ---------------------------------------------------------------------- served API versions

DRA_CASE = GOLDEN / "g0348"  # a claim allocated on a node that is gone, and free devices elsewhere


def _explain_json(case: Path, source: Any) -> dict[str, Any]:
    from podwhy.engine import ExplainRequest, explain
    from podwhy.report.model import to_builtins

    meta = json.loads((case / "case.json").read_text())
    # The release named: live, /version would say it; the dump tells only its kubelets'.
    report = to_builtins(explain(ExplainRequest(meta["pod"], "default", source, kube_version="1.35")))
    report["snapshot"].pop("sources")
    report["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    return report


@pytest.mark.parametrize(
    ("version", "discovery"), [("v1beta1", True), ("v1alpha3", True), ("v1beta2", True), ("v1beta1", False)]
)
def test_dra_objects_are_listed_in_the_version_the_cluster_serves(
    version: str, discovery: bool, tmp_path: Path
) -> None:
    """A 1.32 cluster serves DRA as resource.k8s.io/v1beta1 only: listed and read there, not missing."""
    objects = [dra_to(o, version) if o["kind"] in DRA_KINDS else o for o in load_objects(cluster_file(DRA_CASE))]
    served = {kind: f"resource.k8s.io/{version}" for kind in DRA_KINDS}
    with FakeApiServer(objects, versions=served, discovery=discovery) as server:
        live = LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config")))
        report = _explain_json(DRA_CASE, live)
        paths = [r.path for r in server.requests]
    assert report == _explain_json(DRA_CASE, FileSource([str(cluster_file(DRA_CASE))], complete=True))
    assert not report["snapshot"]["missingKinds"]
    assert f"/apis/resource.k8s.io/{version}/resourceclaims" in paths
    # With discovery, no version the server does not serve is asked for.
    assert any(p.startswith("/apis/resource.k8s.io/v1/") for p in paths) is not discovery


def test_a_cluster_with_classic_dra_only_says_why_its_claims_are_missing(tmp_path: Path) -> None:
    served = {kind: "resource.k8s.io/v1alpha2" for kind in DRA_KINDS}
    with FakeApiServer(load_objects(EXAMPLE), versions=served) as server:
        snapshot = LiveSource(kubeconfig=str(server.kubeconfig(tmp_path / "config"))).load()
        assert not any("resourceclaims" in r.path for r in server.requests)
    why = snapshot.missing["ResourceClaim"]
    assert why.startswith("cannot read resourceclaims.resource.k8s.io: the server serves resource.k8s.io/v1alpha2")
    assert "classic dynamic resource allocation of Kubernetes 1.26-1.30" in why
    assert snapshot.nodes and snapshot.pods


def test_snapshot_of_a_v1beta1_cluster_keeps_its_versions_and_reads_back_to_the_same_report(tmp_path: Path) -> None:
    objects = [dra_to(o, "v1beta1") if o["kind"] in DRA_KINDS else o for o in load_objects(cluster_file(DRA_CASE))]
    served = {kind: "resource.k8s.io/v1beta1" for kind in DRA_KINDS}
    pod = json.loads((DRA_CASE / "case.json").read_text())["pod"]
    with FakeApiServer(objects, versions=served) as server:
        config = str(server.kubeconfig(tmp_path / "config"))
        dump = tmp_path / "snap.json"
        code, _, err = _snapshot_cli("-o", str(dump), "--kubeconfig", config, "-n", "default")
        assert code == 0, err
        _, live, _ = _cli(pod, "--kubeconfig", config, "-o", "json", "--kube-version", "1.35")
    _, offline, _ = _cli(pod, "--from", str(dump), "-o", "json", "--kube-version", "1.35")
    _, original, _ = _cli(
        pod, "--from", str(cluster_file(DRA_CASE)), "--complete", "-o", "json", "--kube-version", "1.35"
    )
    reports = [json.loads(text) for text in (live, offline, original)]
    for report in reports:
        report["snapshot"].pop("sources")
        report["snapshot"].pop("takenAt", None)  # when a live snapshot was taken
    assert reports[0] == reports[1] == reports[2]
    written = {(i["kind"], i["apiVersion"]) for i in json.loads(dump.read_text())["items"]}
    assert ("ResourceClaim", "resource.k8s.io/v1beta1") in written
    assert ("ResourceSlice", "resource.k8s.io/v1beta1") in written
